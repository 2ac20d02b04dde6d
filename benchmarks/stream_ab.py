"""Non-temporal stores on or off (``POLYFUSE_STREAM_STORES``), interleaved in one process.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/stream_ab.py [elements=16000000] [rounds=15] [threshold=default] [columns=C]

Kernels: the STREAM triad into a preallocated array (polyfuse/bench/limits.py) and ``x + y``
returning a fresh array; each compiled with the knob at 0 (off) and at ``threshold`` (default:
the knob's default, the last-level cache), on 1 and 2 threads; results checked against NumPy.
``columns=C``: the arrays are matrices of ``C`` columns and the triad a loop over rows and
columns (each row one run of the streamed loop).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench.limits import TRIAD_SCALAR, stream_triad
from polyfuse.bench.machine import set_polyfuse_threads


def add(x, y):
    return x + y


def rows_triad(s, a, b, c):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = b[i, j] + s * c[i, j]


def compiled(func, threshold: str | None, args):
    saved = os.environ.get("POLYFUSE_STREAM_STORES")
    if threshold is None:
        os.environ.pop("POLYFUSE_STREAM_STORES", None)
    else:
        os.environ["POLYFUSE_STREAM_STORES"] = threshold
    try:
        kernel = polyfuse.kernel(func)
        kernel(*args)
        return kernel
    finally:
        if saved is None:
            os.environ.pop("POLYFUSE_STREAM_STORES", None)
        else:
            os.environ["POLYFUSE_STREAM_STORES"] = saved


def main(argv: list[str]) -> None:
    options = dict(a.split("=", 1) for a in argv)
    n, rounds = int(options.get("elements", 16_000_000)), int(options.get("rounds", 15))
    threshold = options.get("threshold")
    rng = np.random.default_rng(0)
    a, b, c = np.empty(n), rng.random(n), rng.random(n)
    triad_func = stream_triad
    if "columns" in options:
        columns = int(options["columns"])
        n -= n % columns
        a, b, c = (v[:n].reshape(n // columns, columns) for v in (a, b, c))
        triad_func = rows_triad
    runs = {}
    for label, knob in (("off", "0"), ("on", threshold)):
        triad = compiled(triad_func, knob, (TRIAD_SCALAR, a, b, c))
        plus = compiled(add, knob, (b, c))
        runs[f"triad {label}"] = lambda k=triad: k(TRIAD_SCALAR, a, b, c)
        runs[f"x + y {label}"] = lambda k=plus: k(b, c)
    expected_triad, expected_add = b + TRIAD_SCALAR * c, b + c
    best: dict[tuple[str, int], float] = {}
    for _ in range(rounds):
        for threads in (1, 2):
            set_polyfuse_threads(threads)
            for label, run in runs.items():
                began = time.perf_counter()
                result = run()
                seconds = time.perf_counter() - began
                if label.startswith("triad"):
                    assert np.array_equal(a, expected_triad), label
                else:
                    assert np.array_equal(result, expected_add), label
                del result
                best[(label, threads)] = min(best.get((label, threads), np.inf), seconds)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    for (label, threads), seconds in best.items():
        print(f"{label:10s} T{threads} {seconds * 1e3:8.3f} ms")
    shape = "x".join(map(str, a.shape))
    print(f"({shape} float64 elements, min of {rounds} interleaved rounds; load {load} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main(sys.argv[1:])
