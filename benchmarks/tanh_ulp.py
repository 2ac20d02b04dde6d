"""The inline ``tanh`` (backends/cpu/vector_math.py) against libm and the exact value.

    python benchmarks/tanh_ulp.py [per_draw] [exact_per_draw] [seed]

Four draws of ``per_draw`` float64 (default 1 M): |x| < 25, |x| < 1.5, 10^-320..10^3 of both
signs, 0.6..2.5 (the exp branch's busiest range); for each the largest distance from glibc's tanh
(Python's ``math.tanh``) in ulp of glibc's result, its 99.99th percentile and how many are above 1
ulp (results that are 0, infinite or NaN must be glibc's exactly, the sign of a zero too).  With
``exact_per_draw`` > 0 (needs mpmath), the first that many of each draw are also compared with
tanh at 160 bits, for polyfuse and for glibc.  docs/performance.md quotes these numbers.
"""

from __future__ import annotations

import math
import sys

import numpy as np

import polyfuse


def tanh_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.tanh(x[i])


def draws(rng, n: int) -> dict[str, np.ndarray]:
    return {"|x| < 25": rng.uniform(-25, 25, n), "|x| < 1.5": rng.uniform(-1.5, 1.5, n),
            "1e-320..1e3": 10.0 ** rng.uniform(-320, 3, n) * rng.choice([-1.0, 1.0], n),
            "0.6..2.5": rng.uniform(0.6, 2.5, n)}


def ulps_vs_libm(out: np.ndarray, ref: np.ndarray) -> np.ndarray:
    finite = np.isfinite(ref) & (ref != 0)
    assert np.array_equal(out[~finite], ref[~finite], equal_nan=True), "a special value differs"
    assert np.array_equal(np.signbit(out[ref == 0]), np.signbit(ref[ref == 0])), "a zero's sign differs"
    return np.abs(out[finite] - ref[finite]) / np.spacing(np.abs(ref[finite]))


def ulps_vs_exact(x: np.ndarray, *results: np.ndarray) -> list[float]:
    import mpmath

    mpmath.mp.prec = 160
    worst = [0.0] * len(results)
    for i, v in enumerate(x.tolist()):
        exact = mpmath.tanh(mpmath.mpf(v))
        if exact == 0:
            continue
        spacing = float(np.spacing(abs(float(exact))))
        for k, r in enumerate(results):
            worst[k] = max(worst[k], float(abs(mpmath.mpf(float(r[i])) - exact)) / spacing)
    return worst


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 1_000_000
    exact_n = int(argv[1]) if len(argv) > 1 else 0
    rng = np.random.default_rng(int(argv[2]) if len(argv) > 2 else 1)
    kernel = polyfuse.kernel(tanh_loop)
    libm = np.frompyfunc(math.tanh, 1, 1)
    for name, x in draws(rng, n).items():
        out = np.empty_like(x)
        kernel(x, out)
        ref = libm(x).astype(np.float64)
        u = ulps_vs_libm(out, ref)
        line = f"{name:12s} vs libm: max {u.max():.3f}, p99.99 {np.quantile(u, 0.9999):.3f}, above 1: {(u > 1).sum()}"
        if exact_n:
            ours, glibc = ulps_vs_exact(x[:exact_n], out, ref)
            line += f"; vs exact ({exact_n}): polyfuse {ours:.3f}, glibc {glibc:.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
