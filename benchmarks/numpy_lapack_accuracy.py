"""How often np.linalg inside a kernel gives NumPy's bits: cholesky, inv, solve, det and slogdet of
30 random positive definite matrices (orders 2 to 60) per dtype and target, against NumPy itself.

    python benchmarks/numpy_lapack_accuracy.py                      # NumPy's own LAPACK
    POLYFUSE_BLAS=scipy python benchmarks/numpy_lapack_accuracy.py  # SciPy's cython_lapack

Prints, per target and dtype, how many of the 30 results of each call are bit for bit NumPy's
(dtype included) and the largest relative difference of an element.
"""

from __future__ import annotations

import warnings

import numpy as np

import polyfuse
from polyfuse.runtime.linalg_library import describe


def cholesky(A):
    return np.linalg.cholesky(A)


def inv(A):
    return np.linalg.inv(A)


def solve(A, b):
    return np.linalg.solve(A, b)


def det(A):
    return np.linalg.det(A)


def slogdet(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign, logdet


CALLS = (cholesky, inv, solve, det, slogdet)


def _relative(got, want) -> float:
    got, want = np.asarray(got), np.asarray(want)
    finite = np.isfinite(want) & (want != 0)
    if not finite.any():
        return 0.0 if np.array_equal(got, want) else float("inf")
    return float(np.max(np.abs(got[finite] - want[finite]) / np.abs(want[finite])))


def main() -> None:
    warnings.simplefilter("ignore")  # float32 determinants of the larger matrices overflow, as in NumPy
    print(f"LAPACK: {describe()}")
    rng = np.random.default_rng(2026)
    orders = range(2, 62, 2)
    for target in ("cpu", "python"):
        for dtype in ("float64", "float32", "complex128", "complex64"):
            kernels = {fn: polyfuse.kernel(fn, target=target) for fn in CALLS}
            equal = dict.fromkeys(CALLS, 0)
            worst = dict.fromkeys(CALLS, 0.0)
            for n in orders:
                m = rng.standard_normal((n, n))
                if dtype.startswith("complex"):
                    m = m + 1j * rng.standard_normal((n, n))
                A = (m @ m.conj().T + n * np.eye(n)).astype(dtype)
                b = rng.standard_normal((n, 3)).astype(dtype)
                for fn in CALLS:
                    args = (A, b) if fn is solve else (A,)
                    got, want = kernels[fn](*args), fn(*args)
                    pairs = list(zip(got, want)) if isinstance(want, tuple) else [(got, want)]
                    equal[fn] += all(np.asarray(g).dtype == np.asarray(w).dtype and np.array_equal(g, w)
                                     for g, w in pairs)
                    worst[fn] = max(worst[fn], *(_relative(g, w) for g, w in pairs))
            cells = " ".join(f"{fn.__name__} {equal[fn]}/{len(orders)} ({worst[fn]:.1e})" for fn in CALLS)
            print(f"{target:6} {dtype:10} {cells}")


if __name__ == "__main__":
    main()
