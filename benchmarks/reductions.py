"""Full reductions of NumPy code under @polyfuse.kernel against NumPy: time and accuracy.

    python benchmarks/reductions.py [elements] [repeats]

``np.sum(x)`` of float32 and float64 arrays and ``a @ b`` of float32 vectors, ``elements``
long (default 8M), each compiled once and checked; times are the minimum of ``repeats``
(default 15) calls, NumPy's and polyfuse's interleaved.  The error columns are relative to
the exact sum (``math.fsum`` of the values, exact in float64 for float32 products) in units
of the dtype's eps; polyfuse's reductions of NumPy code sum in vector partial sums
(docs/subset.md, *Reduction order*).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

import polyfuse


def total(x):
    return np.sum(x)


def dot(a, b):
    return a @ b


def best_ms(calls, repeats: int) -> list[float]:
    """The minimum time of each call over ``repeats`` interleaved rounds, in ms."""
    best = [float("inf")] * len(calls)
    for _ in range(repeats):
        for k, call in enumerate(calls):
            start = time.perf_counter()
            call()
            best[k] = min(best[k], time.perf_counter() - start)
    return [b * 1e3 for b in best]


def main(n: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    print(f"n = {n}, min of {repeats}, threads = {polyfuse.get_num_threads()}")
    print(f"{'reduction':<22} {'numpy ms':>9} {'polyfuse ms':>11} {'np/pf':>6} {'numpy err':>10} {'pf err':>8}")
    for name, fn, dtype, args in (
        ("np.sum float32", total, np.float32, (rng.random(n, dtype=np.float32),)),
        ("np.sum float64", total, np.float64, (rng.random(n),)),
        ("a @ b float32", dot, np.float32, (rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32))),
    ):
        kernel = polyfuse.kernel(fn)
        kernel(*args)  # compile
        terms = args[0].astype(np.float64) * (args[1].astype(np.float64) if len(args) > 1 else 1.0)
        exact = math.fsum(terms.tolist())
        eps = float(np.finfo(dtype).eps) * abs(exact)
        t_np, t_pf = best_ms([lambda fn=fn, args=args: fn(*args), lambda k=kernel, args=args: k(*args)], repeats)
        e_np, e_pf = (abs(float(f(*args)) - exact) / eps for f in (fn, kernel))
        print(f"{name:<22} {t_np:9.3f} {t_pf:11.3f} {t_np / t_pf:5.2f}x {e_np:9.2f}e {e_pf:7.2f}e")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8_000_000, int(sys.argv[2]) if len(sys.argv) > 2 else 15)
