"""Dense linear algebra as NumPy users write it: np.linalg.cholesky, solve, inv, det, slogdet and
lstsq inside larger array programs (Gaussian processes, Newton's method, regression, likelihoods).

Each routine runs on the same LAPACK routine NumPy calls, on the same column-major copy; the
statements around it are polyfuse's (products on BLAS or as loops, fused element-wise code), so
float results compare at rtol 1e-9.
"""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def gp_posterior(x, y, xs, length, noise):
    """A Gaussian-process regression: RBF kernels, the Cholesky factor of the noisy Gram matrix,
    two triangular systems (as general solves), the posterior mean and variance."""
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / length**2) + noise * np.eye(x.shape[0])
    Ks = np.exp(-0.5 * (x[:, None] - xs[None, :]) ** 2 / length**2)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    mean = Ks.T @ alpha
    v = np.linalg.solve(L, Ks)
    var = 1.0 - np.sum(v * v, axis=0)
    return mean, var


def newton_system(A, b, x, steps):
    """Newton's method for A x + x**3 / 10 = b: the Jacobian built in place, one solve a step."""
    J = np.empty_like(A)
    for it in range(steps):
        F = A @ x + 0.1 * x**3 - b
        J[:, :] = A
        for i in range(x.shape[0]):
            J[i, i] += 0.3 * x[i] ** 2
        x = x - np.linalg.solve(J, F)
    return x


def ridge(X, y, lam):
    """Ridge regression by the normal equations, through the explicit inverse (as often written)."""
    G = X.T @ X + lam * np.eye(X.shape[1])
    return np.linalg.inv(G) @ (X.T @ y)


def gaussian_loglik(S, r):
    """A multivariate normal log-density: slogdet and a solve with the covariance."""
    sign, logdet = np.linalg.slogdet(S)
    quad = r @ np.linalg.solve(S, r)
    return -0.5 * (logdet + quad + r.shape[0] * np.log(2 * np.pi)), sign


def volumes(P, out):
    """Determinants of a stack of small matrices, one per loop iteration, with an offset."""
    for t in range(P.shape[0]):
        out[t] = np.abs(np.linalg.det(P[t] + 0.5 * t))


def whiten(A, Z):
    """npbench-style Cholesky of an SPD matrix, used to colour samples."""
    L = np.linalg.cholesky(A)
    return Z @ L.T


def quadratic_fit(x, y):
    """A least-squares polynomial fit (gelsd, as np.linalg.lstsq) and its residual vector."""
    X = np.empty((x.shape[0], 3))
    X[:, 0] = 1.0
    X[:, 1] = x
    X[:, 2] = x * x
    coef, res, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    return X @ coef - y, rank, sv


def cholesky_in_place(A):
    """The factor written over its matrix, the strict upper triangle kept (npbench's cholesky2
    form): the right-hand side reads A before the store writes it."""
    A[:] = np.linalg.cholesky(A) + np.triu(A, k=1)


def resolvent_sum(A, B, Y, points):
    """A contour integral of the resolvent, npbench's contour_integral without its power and
    branch: at each complex point z the system (z B - A) X = Y (zgesv), X and z X summed, and the
    determinants (zgetrf and NumPy's complex slogdet scan) and inverses (zgesv of the identity)."""
    P0 = np.zeros(Y.shape, dtype=np.complex128)
    P1 = np.zeros(Y.shape, dtype=np.complex128)
    dets = 0j
    for z in points:
        T = z * B - A
        X = np.linalg.solve(T, Y)
        P0 += X
        P1 += z * X + np.linalg.inv(T) @ Y
        dets += np.linalg.det(T)
    return P0, P1, dets


def _complex(rng, *shape):
    return rng.random(shape) + 1j * rng.random(shape)


def _spd(rng, n):
    M = rng.random((n, n))
    return M @ M.T + n * np.eye(n)


CASES = [
    Case("gp_posterior", gp_posterior, lambda r: (np.sort(r.random(9)) * 5, r.random(9), r.random(4) * 5, 1.3, 0.1)),
    Case("newton_system", newton_system, lambda r: (_spd(r, 7), r.random(7), np.zeros(7), 5)),
    Case("ridge", ridge, lambda r: (r.random((12, 5)), r.random(12), 0.5)),
    Case("gaussian_loglik", gaussian_loglik, lambda r: (_spd(r, 6), r.random(6) - 0.5)),
    Case("volumes", volumes, lambda r: (r.random((4, 5, 5)), np.zeros(4))),
    Case("whiten", whiten, lambda r: (_spd(r, 6), r.random((5, 6)))),
    Case("quadratic_fit", quadratic_fit, lambda r: (r.random(11) * 4, r.random(11))),
    Case("cholesky_in_place", cholesky_in_place, lambda r: (_spd(r, 9),)),
    Case("resolvent_sum", resolvent_sum, lambda r: (_complex(r, 6, 6), _complex(r, 6, 6), _complex(r, 6, 4),
                                                    _complex(r, 5))),
]
