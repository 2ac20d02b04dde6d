"""Thread time of two conditional sums whose Python kind follows a choice (fe49: the sum's
strength flag is set in place beside each addition): run from two checkouts, interleaved.

    POLYFUSE_NUM_THREADS=1 POLYFUSE_DISABLE_CACHE=1 python benchmarks/choice_kind_flags_ab.py
"""

from __future__ import annotations

import time

import numpy as np

import polyfuse


def relu_sum_f64(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else 0.0
    return s


def relu_sum_i64(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else 0
    return s


def main() -> None:
    rng = np.random.default_rng(0)
    out = []
    for func, x in ((relu_sum_f64, rng.standard_normal(100_000)), (relu_sum_i64, rng.integers(-5, 5, 100_000))):
        kernel = polyfuse.kernel(func, target="cpu", cache=False)
        assert kernel(x) == func(x)
        best = 1e9
        for _ in range(200):
            t0 = time.thread_time()
            kernel(x)
            best = min(best, time.thread_time() - t0)
        out.append(f"{func.__name__} {best * 1e6:.0f} us")
    print(" | ".join(out))


if __name__ == "__main__":
    main()
