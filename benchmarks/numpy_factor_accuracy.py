"""How often qr, eigh / eigvalsh and svd inside a kernel give NumPy's bits (signs of the factors'
columns included), and whether their defining properties hold: 30 random real matrices per dtype
and target (square symmetric ones of orders 2 to 60 for eigh, tall and wide ones for qr and svd),
against NumPy itself.

    python benchmarks/numpy_factor_accuracy.py                      # NumPy's own LAPACK
    POLYFUSE_BLAS=scipy python benchmarks/numpy_factor_accuracy.py  # SciPy's cython_lapack

Prints, per target and dtype, how many of the 30 results of each call are bit for bit NumPy's
(dtype included), the largest relative difference of an element, and how many factorizations
miss their defining property (A = QR, A V = V diag(w), A = U diag(s) Vh, orthonormal factors;
rtol 1e-9 in float64, 1e-4 in float32).
"""

from __future__ import annotations

import numpy as np

import polyfuse
from polyfuse.runtime.linalg_library import describe


def qr(A):
    Q, R = np.linalg.qr(A)
    return Q, R


def qr_complete(A):
    Q, R = np.linalg.qr(A, mode="complete")
    return Q, R


def eigh(S):
    w, V = np.linalg.eigh(S)
    return w, V


def eigvalsh(S):
    return np.linalg.eigvalsh(S, UPLO="U")


def svd(A):
    U, s, Vh = np.linalg.svd(A, full_matrices=False)
    return U, s, Vh


CALLS = (qr, qr_complete, eigh, eigvalsh, svd)


def _relative(got, want) -> float:
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    scale = np.max(np.abs(want)) if want.size else 0.0
    return float(np.max(np.abs(got - want)) / scale) if scale else 0.0


def _holds(fn, got, A, rtol: float) -> bool:
    def close(x, y) -> bool:
        return bool(np.allclose(x, y, rtol=rtol, atol=rtol * max(1.0, float(np.max(np.abs(A))))))
    if fn in (qr, qr_complete):
        Q, R = got
        return close(Q @ R, A) and close(Q.T @ Q, np.eye(Q.shape[1])) and np.array_equal(R, np.triu(R))
    if fn is eigh:
        w, V = got
        return close(A @ V, V * w) and close(V.T @ V, np.eye(len(w))) and bool(np.all(np.diff(w) >= 0))
    if fn is svd:
        U, s, Vh = got
        return close((U * s) @ Vh, A) and bool(np.all(np.diff(s) <= 0))
    return bool(np.all(np.diff(got) >= 0))


def main() -> None:
    print(f"LAPACK: {describe()}")
    rng = np.random.default_rng(2026)
    orders = range(2, 62, 2)
    for target in ("cpu", "python"):
        for dtype in ("float64", "float32"):
            kernels = {fn: polyfuse.kernel(fn, target=target) for fn in CALLS}
            equal, worst, broken = dict.fromkeys(CALLS, 0), dict.fromkeys(CALLS, 0.0), dict.fromkeys(CALLS, 0)
            rtol = 1e-4 if dtype == "float32" else 1e-9
            for n in orders:
                m = rng.standard_normal((n, n))
                S = (m + m.T).astype(dtype)
                rows = n + int(rng.integers(-n // 2, n + 1))  # tall and wide
                A = rng.standard_normal((max(rows, 1), n)).astype(dtype)
                for fn in CALLS:
                    arg = S if fn in (eigh, eigvalsh) else A
                    got, want = kernels[fn](arg), fn(arg)
                    pairs = list(zip(got, want)) if isinstance(want, tuple) else [(got, want)]
                    equal[fn] += all(np.asarray(g).dtype == np.asarray(w).dtype and np.array_equal(g, w)
                                     for g, w in pairs)
                    worst[fn] = max(worst[fn], *(_relative(g, w) for g, w in pairs))
                    broken[fn] += not _holds(fn, got, arg.astype(np.float64), rtol)
            cells = " ".join(f"{fn.__name__} {equal[fn]}/{len(orders)} ({worst[fn]:.1e}, {broken[fn]} off)"
                             for fn in CALLS)
            print(f"{target:6} {dtype:8} {cells}")


if __name__ == "__main__":
    main()
