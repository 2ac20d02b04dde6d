"""Thread-CPU cost of ov50's checks of Python-int ``//``/``%`` by zero and of ``int(v)`` of a float.

Run one side per process, in two worktrees (before/after), interleaved::

    for r in 1 2 3; do for w in base new; do (cd $w && POLYFUSE_NUM_THREADS=1 python benchmarks/int_checks_ab.py); done; done

Prints, per kernel, the least thread CPU time of one call (us) over ``REPEATS`` calls.
"""

from __future__ import annotations

import time

import numpy as np

import polyfuse

N = 1 << 20
REPEATS = 30


def int_floordiv(out, k):
    for i in range(out.shape[0]):
        out[i] = (i * 7 + 3) // k + i % k


def int_of_float(out, x):
    for i in range(out.shape[0]):
        out[i] = int(x[i] * 8.0)


def int_floordiv_proven(out):
    n = out.shape[0]
    for i in range(n):
        out[i] = (i * 7 + 3) // (i + 1) + n % (n - i)


def main() -> None:
    x = np.random.default_rng(0).random(N)
    cases = {int_floordiv: (np.zeros(N, np.int64), 5), int_of_float: (np.zeros(N, np.int64), x),
             int_floordiv_proven: (np.zeros(N, np.int64),)}
    for fn, args in cases.items():
        kernel = polyfuse.kernel(fn)
        kernel(*args)
        best = float("inf")
        for _ in range(REPEATS):
            start = time.thread_time()
            kernel(*args)
            best = min(best, time.thread_time() - start)
        print(f"{fn.__name__} {best * 1e6:.0f}")


if __name__ == "__main__":
    main()
