"""A knob of schedule/overwritten.py on and off, interleaved (A B B A ...): row softmax written two ways.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/overwritten_forward_ab.py [rows=1500] [cols=2500]
        [rounds=12] [threads=1,2] [knob=POLYFUSE_OVERWRITTEN_FORWARD] [forms=suite,numba]

``suite``: the suite's softmax (``e = exp(X[i, j] - m); out[i, j] = e; s += e``, then
``out[i, j] = out[i, j] / s``), where ``POLYFUSE_OVERWRITTEN_FORWARD`` lets ``e``'s statement
write the overwritten store's local row (no row of ``e`` and copy of it); ``numba``: the
numba-style form (``out[i, j] = exp(...); s += out[i, j]``, then ``out[i, j] /= s``), where
``POLYFUSE_OVERWRITTEN_COMPANIONS=1`` sends ``out``'s first store through a local row at all
(``s += out[i, j]`` reads it there).  Each variant is
compiled with the knob set, checked bitwise against the other and against the Python function
(allclose); per thread count the best and median CPU time of ``rounds`` calls on fresh copies of
the inputs (thread CPU on one thread, process CPU on more) and the best wall time.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.machine import set_polyfuse_threads


def numba_softmax(X, out):
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(1, X.shape[1]):
            m = max(m, X[i, j])
        s = 0.0
        for j in range(X.shape[1]):
            out[i, j] = math.exp(X[i, j] - m)
            s += out[i, j]
        for j in range(X.shape[1]):
            out[i, j] /= s


def compiled(func, args, knob: str, setting: str):
    saved = os.environ.get(knob)
    os.environ[knob] = setting
    try:
        kernel = polyfuse.kernel(func)
        out = [a.copy() for a in args]
        kernel(*out)
        return kernel, out
    finally:
        os.environ.pop(knob, None)
        if saved is not None:
            os.environ[knob] = saved


def main(argv: list[str]) -> None:
    opts = dict(a.split("=", 1) for a in argv)
    rows, cols, rounds = int(opts.get("rows", 1500)), int(opts.get("cols", 2500)), int(opts.get("rounds", 12))
    thread_counts = [int(t) for t in opts.get("threads", "1,2").split(",")]
    knob, forms = opts.get("knob", "POLYFUSE_OVERWRITTEN_FORWARD"), opts.get("forms", "suite,numba").split(",")
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((rows, cols)) * 3.0, rng.random((rows, cols)))
    for name, func in (("suite", suite.get("softmax").func), ("numba", numba_softmax)):
        if name not in forms:
            continue
        kernels = {v: compiled(func, args, knob, v) for v in ("1", "0")}
        expected = [a.copy() for a in args]
        func(*expected)
        same = np.array_equal(kernels["1"][1][1], kernels["0"][1][1])
        close = all(np.allclose(k[1][1], expected[1], rtol=1e-12) for k in kernels.values())
        for threads in thread_counts:
            set_polyfuse_threads(threads)
            clock = time.thread_time if threads == 1 else time.process_time
            times: dict[str, list[tuple[float, float]]] = {"1": [], "0": []}
            for r in range(rounds):
                for v in ("1", "0", "0", "1") if r % 2 else ("0", "1", "1", "0"):
                    call = [a.copy() for a in args]
                    cpu, wall = clock(), time.perf_counter()
                    kernels[v][0](*call)
                    times[v].append((clock() - cpu, time.perf_counter() - wall))
            for v in ("1", "0"):
                cpu_ms = sorted(t[0] * 1e3 for t in times[v])
                wall_ms = min(t[1] * 1e3 for t in times[v])
                print(f"{name:6s} {rows}x{cols} T{threads} {knob}={v}: cpu best {cpu_ms[0]:7.3f} "
                      f"median {cpu_ms[len(cpu_ms) // 2]:7.3f} ms, wall best {wall_ms:7.3f} ms "
                      f"(bitwise same={same}, python allclose={close})")
    with open("/proc/loadavg") as f:
        print(f"load {f.read().split()[0]} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main(sys.argv[1:])
