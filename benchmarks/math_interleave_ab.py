"""Interleave counts of loops with inline vector math, per function, interleaved in one process.

    python benchmarks/math_interleave_ab.py [functions] [counts] [elements] [rounds] [threads]
    python benchmarks/math_interleave_ab.py atan,asinh,tanh 1,2,4,default 250000 150 1

For each function of benchmarks/vector_math.py's ``FUNCTIONS`` (default: all), its loop
``out[i] = f(x[i])`` is compiled once per count, ``POLYFUSE_MATH_INTERLEAVE`` set to it while
compiling (``default``: unset, the per-function default of ``options.math_loop_interleave``), with
the disk cache off.  Every version's output must equal the first's bit for bit (the count only
reorders whole vectors).  Each round times every version once; the minimum over ``rounds`` is
printed (ms) with the load.  Arguments are drawn from the function's range in ``FUNCTIONS``.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

os.environ["POLYFUSE_DISABLE_CACHE"] = "1"

import polyfuse  # noqa: E402 - after the cache knob
from polyfuse.bench.machine import set_polyfuse_threads  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vector_math import FUNCTIONS  # noqa: E402


def arguments(ranges, n: int, rng) -> list[np.ndarray]:
    """One array per argument: uniform in its range ("log": 0.01..100)."""
    return [rng.uniform(*((0.01, 100.0) if r == "log" else r), n) for r in ranges]


def compiled(loop, count: str, args: list[np.ndarray]):
    """``loop`` compiled with POLYFUSE_MATH_INTERLEAVE = ``count`` (unset for "default"), and its output."""
    saved = os.environ.pop("POLYFUSE_MATH_INTERLEAVE", None)
    if count != "default":
        os.environ["POLYFUSE_MATH_INTERLEAVE"] = count
    try:
        kernel = polyfuse.kernel(loop)
        out = np.empty_like(args[0])
        kernel(*args, out)
        return kernel, out
    finally:
        os.environ.pop("POLYFUSE_MATH_INTERLEAVE", None)
        if saved is not None:
            os.environ["POLYFUSE_MATH_INTERLEAVE"] = saved


def main(argv: list[str]) -> None:
    names = argv[0].split(",") if argv else list(FUNCTIONS)
    counts = argv[1].split(",") if len(argv) > 1 else ["2", "4", "default"]
    n = int(argv[2]) if len(argv) > 2 else 250_000
    rounds = int(argv[3]) if len(argv) > 3 else 100
    threads = int(argv[4]) if len(argv) > 4 else 1
    rng = np.random.default_rng(0)
    runs = {}
    for name in names:
        loop, _ufunc, _libm, ranges = FUNCTIONS[name]
        args = arguments(ranges, n, rng)
        first = None
        for count in counts:
            kernel, out = compiled(loop, count, args)
            if first is None:
                first = out
            assert np.array_equal(out, first, equal_nan=True), (name, count)
            runs[name, count] = (kernel, args, out)
    set_polyfuse_threads(threads)
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for key, (kernel, args, out) in runs.items():
            began = time.perf_counter()
            kernel(*args, out)
            best[key] = min(best[key], time.perf_counter() - began)
    for name in names:
        print(f"{name:8s} " + "  ".join(f"{c}: {best[name, c] * 1e3:8.3f}" for c in counts))
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"(ms, min of {rounds} interleaved rounds, {n} elements, {threads} thread(s); load {load})")


if __name__ == "__main__":
    main(sys.argv[1:])
