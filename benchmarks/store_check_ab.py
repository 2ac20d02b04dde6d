"""What NumPy's element-store check costs in a hot loop (session 35, ov45): ``y[i] = x[i] + n``
of an int64 ``x`` into an int8 ``y`` (checked: frontend.scalars.element_store_checked), into an
int64 ``y`` (nothing to check) and a float64 ``x`` into int32 (the float checks).  Prints the
least thread CPU of ``ROUNDS`` means of ``CALLS`` calls, in microseconds.  Run it under the
base commit and the branch in turn (PYTHONPATH=<other worktree>), A B A B:

    export POLYFUSE_NUM_THREADS=1; for r in 1 2 3; do PYTHONPATH=/path/base python benchmarks/store_check_ab.py; \\
        python benchmarks/store_check_ab.py; done

Session 35 second round (ov46): ``POLYFUSE_VECTOR_CHECKS=0`` is ov45's branching checks, so one
worktree alternates the knob instead (docs/performance.md, vectorized element-store checks).
"""

from __future__ import annotations

import time

import numpy as np

import polyfuse

N, CALLS, ROUNDS = 1 << 20, 20, 7


def shift(x, y, n):
    for i in range(x.shape[0]):
        y[i] = x[i] + n


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


if __name__ == "__main__":
    main()
