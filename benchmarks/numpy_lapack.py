"""The corpus's np.linalg programs (tests/corpus/numpy_lapack.py, and the factorizations below)
inside @polyfuse.kernel against the same functions run by NumPy (which calls LAPACK for each
routine, as polyfuse does).

    OPENBLAS_NUM_THREADS=1 POLYFUSE_NUM_THREADS=1 python benchmarks/numpy_lapack.py   # n = 400
    python benchmarks/numpy_lapack.py --n 200 --repeat 9

Each kernel is compiled and checked against NumPy once before timing; NumPy and polyfuse are
timed in turn, ``--rounds`` times, each the minimum over ``--repeat`` calls (interference on a
shared machine only adds time).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import polyfuse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "corpus"))
import numpy_lapack as corpus  # noqa: E402


def pca(X, k):
    Xc = X - X.mean(axis=0)
    w, V = np.linalg.eigh(Xc.T @ Xc / X.shape[0])
    return Xc @ V[:, ::-1][:, :k]


def qr_least_squares(A, b):
    Q, R = np.linalg.qr(A)
    return np.linalg.solve(R, Q.T @ b)


def spectral_ratio(A):
    Ac = A - A.mean(axis=0)
    return np.linalg.norm(Ac, 2) / np.linalg.norm(Ac)


def _spd(rng, n: int) -> np.ndarray:
    m = rng.random((n, n))
    return m @ m.T + n * np.eye(n)


def programs(n: int, rng) -> dict:
    return {
        "gp_posterior": (corpus.gp_posterior, (np.sort(rng.random(n)) * 5, rng.random(n), rng.random(n // 4) * 5,
                                               1.3, 0.1)),
        "newton_system": (corpus.newton_system, (_spd(rng, n), rng.random(n), np.zeros(n), 5)),
        "ridge": (corpus.ridge, (rng.random((4 * n, n)), rng.random(4 * n), 0.5)),
        "gaussian_loglik": (corpus.gaussian_loglik, (_spd(rng, n), rng.random(n) - 0.5)),
        "volumes": (corpus.volumes, (rng.random((64, 40, 40)), np.zeros(64))),
        "whiten": (corpus.whiten, (_spd(rng, n), rng.random((n, n)))),
        "quadratic_fit": (corpus.quadratic_fit, (rng.random(50 * n) * 4, rng.random(50 * n))),
        "pca (eigh)": (pca, (rng.random((10 * n, n // 4)), 8)),
        "qr_least_squares": (qr_least_squares, (rng.random((4 * n, n // 2)), rng.random(4 * n))),
        "spectral (svd)": (spectral_ratio, (rng.random((2 * n, n // 2)),)),
    }


def best(fn, args, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated program names")
    args = parser.parse_args()
    chosen = programs(args.n, np.random.default_rng(0))
    for name, (fn, inputs) in chosen.items():
        if args.only and name not in args.only.split(","):
            continue
        kernel = polyfuse.kernel(fn)
        got, want = kernel(*inputs), fn(*inputs)
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)] if want is not None else []
        for g, w in pairs:
            np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10)
        numpy_s, polyfuse_s = [], []
        for _ in range(args.rounds):
            numpy_s.append(best(fn, inputs, args.repeat))
            polyfuse_s.append(best(kernel, inputs, args.repeat))
        print(f"{name:16s} numpy {min(numpy_s) * 1e3:8.3f} ms  polyfuse {min(polyfuse_s) * 1e3:8.3f} ms  "
              f"speed-up {min(numpy_s) / min(polyfuse_s):5.2f}x")


if __name__ == "__main__":
    main()
