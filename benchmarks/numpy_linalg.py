"""Matrix products written with ``@`` inside @polyfuse.kernel against the same function run by
NumPy (which calls BLAS for each product).

    python benchmarks/numpy_linalg.py               # n = 512, min of 5
    python benchmarks/numpy_linalg.py --n 256 --repeat 7

Each kernel is compiled and checked against NumPy once before timing; the times are the minimum
over ``--repeat`` calls (interference on a shared machine only adds time).  ``gemm_whole`` is a
whole-statement product with nothing to fuse (``C[:] = A @ B``), the case a BLAS call would win.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import polyfuse


def gemm_whole(A, B, C):
    C[:] = A @ B


def gemm(alpha, beta, A, B, C):
    C[:] = alpha * A @ B + beta * C


def mlp(x, W1, b1, W2, b2, out):
    out[:, :] = np.maximum(x @ W1 + b1, 0.0) @ W2 + b2


def attention(Q, K, V, scale, out):
    S = Q @ K.T * scale
    S = np.exp(S - S.max(axis=-1, keepdims=True))
    out[:, :] = (S / S.sum(axis=-1, keepdims=True)) @ V


def cases(n: int, rng):
    r = rng.random
    return {
        "gemm_whole": (gemm_whole, (r((n, n)), r((n, n)), np.zeros((n, n)))),
        "gemm": (gemm, (1.5, 1.2, r((n, n)), r((n, n)), r((n, n)))),
        "mlp": (mlp, (r((n, n)), r((n, n)) - 0.5, r(n), r((n, n)), r(n), np.zeros((n, n)))),
        "attention": (attention, (r((n, 64)), r((n, 64)), r((n, 64)), 0.125, np.zeros((n, 64)))),
    }


def best(fn, args, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        start = time.perf_counter()
        fn(*fresh)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None)
    opts = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"n={opts.n}, min of {opts.repeat}, ms; threads={polyfuse.get_num_threads()}")
    print(f"{'kernel':<12} {'numpy':>9} {'polyfuse':>9} {'ratio':>7}")
    for name, (fn, args) in cases(opts.n, rng).items():
        if opts.only and name not in opts.only:
            continue
        kernel = polyfuse.kernel(fn)
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        fn(*expected)
        kernel(*actual)  # compiles
        for e, a in zip(expected, actual):
            if isinstance(e, np.ndarray):
                np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-9)
        t_np, t_pf = best(fn, args, opts.repeat), best(kernel, args, opts.repeat)
        print(f"{name:<12} {t_np * 1e3:9.2f} {t_pf * 1e3:9.2f} {t_pf / t_np:6.2f}x")


if __name__ == "__main__":
    main()
