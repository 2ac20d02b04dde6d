"""Stencil shapes users write, two knob settings interleaved on one thread.

    POLYFUSE_DISABLE_CACHE=1 POLYFUSE_NUM_THREADS=1 taskset -c 1 python benchmarks/stencil_shapes_ab.py \\
        ROUNDS SHAPE[,SHAPE...] N TSTEPS A=KNOB:VALUE/KNOB:VALUE B=...

``SHAPE``: ``j1d3`` (the suite's jacobi-1d: two 3-point sweeps), ``j1d5`` (two 5-point sweeps),
``j1d3x3`` (three 3-point sweeps), ``j1d3f32`` (jacobi-1d in float32), ``gs1d`` (an in-place 1-d
Gauss-Seidel sweep), ``j2d5`` (the suite's jacobi-2d: two 5-point 2-d sweeps) / ``j2d9`` (two
9-point sweeps), ``N`` x ``N``; the shapes the suite lacks are written here.  Each
contender (``LABEL=`` alone: the defaults) is compiled with its knobs set (no disk cache) and its
output checked against the Python function (``kernel.py_func``) at a small size and at ``N``
(np.allclose); then each round calls every contender once on fresh copies, timed by the calling
thread's CPU time (``time.thread_time``; a ~3.3 us system call on the AMD VM: calls here are
0.1 ms or longer).  Prints min and median per contender, and the ratio to the first, with the load.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite


def j1d5(tsteps, n, A, B):
    for _t in range(tsteps):
        for i in range(2, n - 2):
            B[i] = 0.2 * (A[i - 2] + A[i - 1] + A[i] + A[i + 1] + A[i + 2])
        for i in range(2, n - 2):
            A[i] = 0.2 * (B[i - 2] + B[i - 1] + B[i] + B[i + 1] + B[i + 2])


def j1d3x3(tsteps, n, A, B, C):
    for _t in range(tsteps):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            C[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (C[i - 1] + C[i] + C[i + 1])


def gs1d(tsteps, n, A):
    for _t in range(tsteps):
        for i in range(1, n - 1):
            A[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])


def j2d9(tsteps, n, A, B):
    for _t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.1111 * (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j - 1] + A[i, j]
                                    + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.1111 * (B[i - 1, j - 1] + B[i - 1, j] + B[i - 1, j + 1] + B[i, j - 1] + B[i, j]
                                    + B[i, j + 1] + B[i + 1, j - 1] + B[i + 1, j] + B[i + 1, j + 1])


# shape -> (function, arrays, dimensions, dtype)
SHAPES = {"j1d3": (suite.jacobi_1d, 2, 1, np.float64), "j1d5": (j1d5, 2, 1, np.float64),
          "j1d3x3": (j1d3x3, 3, 1, np.float64), "j1d3f32": (suite.jacobi_1d, 2, 1, np.float32),
          "gs1d": (gs1d, 1, 1, np.float64), "j2d5": (suite.jacobi_2d, 2, 2, np.float64),
          "j2d9": (j2d9, 2, 2, np.float64)}


def make_args(shape: str, n: int, tsteps: int) -> tuple:
    func, arrays, dims, dtype = SHAPES[shape]
    rng = np.random.default_rng(0)
    return (tsteps, n, *(rng.random((n,) * dims).astype(dtype) for _ in range(arrays)))


def fresh(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def compiled(func, knobs: dict[str, str], args: tuple):
    """``polyfuse.kernel(func)`` compiled (its first call) with ``knobs`` set."""
    saved = dict(os.environ)
    os.environ.update(knobs)
    try:
        kernel = polyfuse.kernel(func)
        kernel(*fresh(args))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return kernel


def check(kernel, args: tuple, label: str) -> None:
    want, got = fresh(args), fresh(args)
    kernel.py_func(*want)
    kernel(*got)
    for x, y in zip(got, want):
        if isinstance(x, np.ndarray):
            assert np.allclose(x, y, rtol=1e-5 if x.dtype == np.float32 else 1e-9, atol=1e-6), label


def main(argv: list[str]) -> None:
    rounds, shapes, n, tsteps = int(argv[0]), argv[1].split(","), int(argv[2]), int(argv[3])
    configs = {}
    for spec in argv[4:]:
        label, _, settings = spec.partition("=")
        configs[label] = dict(s.split(":") for s in settings.split("/") if s)
    for shape in shapes:
        func = SHAPES[shape][0]
        args = make_args(shape, n, tsteps)
        small = make_args(shape, 23, 5)
        kernels = {label: compiled(func, knobs, args) for label, knobs in configs.items()}
        for label, kernel in kernels.items():
            check(kernel, small, f"{shape} {label} small")
            check(kernel, args, f"{shape} {label}")
        times: dict[str, list[float]] = {label: [] for label in kernels}
        for _ in range(rounds):
            for label, kernel in kernels.items():
                call = fresh(args)
                start = time.thread_time()
                kernel(*call)
                times[label].append(time.thread_time() - start)
        first = next(iter(times))
        low, mid = min(times[first]), statistics.median(times[first])
        print(f"{shape} n={n} tsteps={tsteps} load {os.getloadavg()[0]:.1f}, thread CPU, {rounds} rounds, ms min (median): "
              + "; ".join(f"{label} {min(v) * 1e3:.3f} ({statistics.median(v) * 1e3:.3f}) "
                          f"{low / min(v):.2f}x ({mid / statistics.median(v):.2f}x)" for label, v in times.items()),
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
