"""Matrix products as NumPy users write them: @, np.dot, np.outer, np.einsum, PolyBench and ML kernels.

Products sum in index order where BLAS blocks the sum, so float results compare at rtol 1e-9.
"""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def gemm(alpha, beta, A, B, C):
    C[:] = alpha * A @ B + beta * C


def syrk(alpha, beta, A, C):
    C[:] = alpha * A @ A.T + beta * C


def two_mm(alpha, beta, A, B, C, D):
    D[:] = alpha * A @ B @ C + beta * D


def three_mm(A, B, C, D):
    E = A @ B
    F = C @ D
    return E @ F


def atax(A, x, y):
    y[:] = A.T @ (A @ x)


def bicg(A, p, r, q, s):
    s[:] = r @ A
    q[:] = A @ p


def mvt(A, x1, x2, y1, y2):
    x1 += A @ y1
    x2 += A.T @ y2


def gesummv(alpha, beta, A, B, x, y):
    y[:] = alpha * A @ x + beta * B @ x


def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


def doitgen(A, C4):
    for r in range(A.shape[0]):
        A[r, :, :] = A[r, :, :] @ C4


def mlp(x, W1, b1, W2, b2):
    return np.maximum(x @ W1 + b1, 0) @ W2 + b2


def attention(Q, K, V, scale, out):
    S = Q @ K.T * scale
    S = np.exp(S - S.max(axis=-1, keepdims=True))
    out[:, :] = (S / S.sum(axis=-1, keepdims=True)) @ V


def cholesky(A, L):
    for i in range(A.shape[0]):
        for j in range(i + 1):
            s = np.dot(L[i, :], L[j, :])  # L is zero where it is not computed yet
            if i == j:
                L[i, i] = np.sqrt(A[i, i] - s)
            else:
                L[i, j] = (A[i, j] - s) / L[j, j]


def matvec_rows(A, x, y):
    for i in range(A.shape[0]):
        y[i] = A[i, :] @ x


def rank1_updates(A, u, v, steps):
    for t in range(steps):
        A -= 0.1 * np.outer(A @ v, u)


def einsum_contractions(A, B, T):
    batched = np.einsum("bij,bjk->bik", T, T)
    return np.einsum("ij,jk->ik", A, B), np.einsum("bii->b", batched)


def linear_layer_rows(X, W, b, out):
    for i in range(X.shape[0]):
        out[i, :] = np.tanh(W @ X[i, :] + b)


def _spd(rng, n):
    M = rng.random((n, n))
    return M @ M.T + n * np.eye(n)


CASES = [
    Case("gemm", gemm, lambda r: (1.5, 1.2, r.random((10, 12)), r.random((12, 9)), r.random((10, 9)))),
    Case("syrk", syrk, lambda r: (1.5, 1.2, r.random((10, 7)), r.random((10, 10)))),
    Case("2mm", two_mm, lambda r: (1.5, 1.2, r.random((8, 9)), r.random((9, 10)), r.random((10, 11)),
                                   r.random((8, 11)))),
    Case("3mm", three_mm, lambda r: (r.random((8, 9)), r.random((9, 10)), r.random((10, 11)), r.random((11, 7)))),
    Case("atax", atax, lambda r: (r.random((11, 13)), r.random(13), np.zeros(13))),
    Case("bicg", bicg, lambda r: (r.random((11, 13)), r.random(13), r.random(11), np.zeros(11), np.zeros(13))),
    Case("mvt", mvt, lambda r: (r.random((12, 12)), r.random(12), r.random(12), r.random(12), r.random(12))),
    Case("gesummv", gesummv, lambda r: (1.5, 1.2, r.random((12, 12)), r.random((12, 12)), r.random(12),
                                        np.zeros(12))),
    Case("gemver", gemver, lambda r: (1.5, 1.2, r.random((10, 10)), *(r.random(10) for _ in range(8)))),
    Case("doitgen", doitgen, lambda r: (r.random((4, 5, 6)), r.random((6, 6)))),
    Case("mlp", mlp, lambda r: (r.random((6, 8)), r.random((8, 10)) - 0.5, r.random(10) - 0.5,
                                r.random((10, 3)), r.random(3))),
    Case("attention", attention, lambda r: (r.random((6, 8)), r.random((7, 8)), r.random((7, 5)),
                                            8 ** -0.5, np.zeros((6, 5)))),
    Case("cholesky", cholesky, lambda r: (_spd(r, 8), np.zeros((8, 8)))),
    Case("matvec_rows", matvec_rows, lambda r: (r.random((9, 11)), r.random(11), np.zeros(9))),
    Case("rank1_updates", rank1_updates, lambda r: (r.random((7, 6)), r.random(6), r.random(6), 3)),
    Case("einsum_contractions", einsum_contractions, lambda r: (r.random((6, 7)), r.random((7, 6)),
                                                                r.random((3, 4, 4)))),
    Case("linear_layer_rows", linear_layer_rows, lambda r: (r.random((6, 8)), r.random((5, 8)), r.random(5),
                                                            np.zeros((6, 5)))),
]
