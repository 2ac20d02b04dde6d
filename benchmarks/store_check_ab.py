"""What NumPy's element-store check costs in a hot loop (session 35, ov45): ``y[i] = x[i] + n``
of an int64 ``x`` into an int8 ``y`` (checked: frontend.scalars.element_store_checked), into an
int64 ``y`` (nothing to check) and a float64 ``x`` into int32 (the float checks).  Prints the
least thread CPU of ``ROUNDS`` means of ``CALLS`` calls, in microseconds.  Run it under the
base commit and the branch in turn (PYTHONPATH=<other worktree>), A B A B:

    export POLYFUSE_NUM_THREADS=1; for r in 1 2 3; do PYTHONPATH=/path/base python benchmarks/store_check_ab.py; \\
        python benchmarks/store_check_ab.py; done

Session 35 second round (ov46): ``POLYFUSE_VECTOR_CHECKS=0`` is ov45's branching checks, so one
worktree alternates the knob instead (docs/performance.md, vectorized element-store checks).

Session 36 (ov47): two nests that read what they write, which keep the branching checks (not run
twice): ``y_int8[i] = y_int8[i] + x_int64[i]`` in place (x zero, so y keeps its values) and
``s = s + x_int64[i]; y_int8[i] = s`` (a carried scalar), each beside the same nest with the value
cast first (``np.int8(...)``: NumPy's cast wraps, nothing checked).  Then float to integer casts,
which give NumPy's x86-64 value out of range since ov47 (a compare and a select per element): the
NumPy suite's ``quantize_int8`` (2^20 elements) and ``y_int32[:] = x_float64``.

Session 36 (ov48): ``in_place`` of a float64 ``x`` into an int32 ``y`` (the float checks, which branch
there; ``POLYFUSE_GUARDED_CHECKS`` tests their guard first), A/B by that knob in one worktree.
"""

from __future__ import annotations

import time

import numpy as np

import polyfuse
from polyfuse.bench.numpy_suite import quantize_int8

N, CALLS, ROUNDS = 1 << 20, 20, 7


def shift(x, y, n):
    for i in range(x.shape[0]):
        y[i] = x[i] + n


def in_place(x, y):
    for i in range(x.shape[0]):
        y[i] = y[i] + x[i]


def in_place_cast(x, y):
    for i in range(x.shape[0]):
        y[i] = y[i] + np.int8(x[i])


def running(x, y):
    s = 0
    for i in range(x.shape[0]):
        s = s + x[i]
        y[i] = s


def running_cast(x, y):
    s = 0
    for i in range(x.shape[0]):
        s = s + x[i]
        y[i] = np.int8(s)


def cast_all(x, y):
    y[:] = x


def measure(kernel, *args) -> float:
    kernel(*args)
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.thread_time()
        for _ in range(CALLS):
            kernel(*args)
        best = min(best, (time.thread_time() - start) / CALLS)
    return best * 1e6


def main() -> None:
    x = np.arange(N, dtype=np.int64) % 100
    k = polyfuse.kernel(shift)  # POLYFUSE_NUM_THREADS=1: one thread
    rows = {"int64->int8": (x, np.zeros(N, np.int8), 5), "int64->int64": (x, np.zeros(N, np.int64), 5),
            "float64->int32": (x.astype(np.float64), np.zeros(N, np.int32), 5)}
    print(" ".join(f"{name} {measure(k, *args):.0f}us" for name, args in rows.items()))
    zero, y8 = np.zeros(N, np.int64), np.arange(N).astype(np.int8)
    reads = {"in-place": in_place, "in-place cast": in_place_cast, "carried": running, "carried cast": running_cast}
    print(" ".join(f"{name} {measure(polyfuse.kernel(fn), zero, y8):.0f}us" for name, fn in reads.items()))
    float_zero, y32 = np.zeros(N), np.arange(N).astype(np.int32)  # the float checks, branching (ov48)
    print(f"in-place float64->int32 {measure(polyfuse.kernel(in_place), float_zero, y32):.0f}us")
    floats = np.random.default_rng(0).standard_normal(N)
    casts = {"quantize_int8": (polyfuse.kernel(quantize_int8), floats, 0.02),
             "float64->int32 cast": (polyfuse.kernel(cast_all), floats * 1000, np.zeros(N, np.int32))}
    print(" ".join(f"{name} {measure(*args):.0f}us" for name, args in casts.items()))


if __name__ == "__main__":
    main()
