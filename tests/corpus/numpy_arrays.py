"""NumPy array statements as NumPy users write them: slices, broadcasting, temporaries, reductions.

Float sums reduce in a plain loop (NumPy sums pairwise), so cases with sums compare at rtol 1e-12.
"""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def jacobi_2d(A, B, tsteps):
    for t in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def heat_3d(A, B, tsteps):
    for t in range(tsteps):
        B[1:-1, 1:-1, 1:-1] = (
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
            + A[1:-1, 1:-1, 1:-1]
        )
        A[1:-1, 1:-1, 1:-1] = (
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
            + B[1:-1, 1:-1, 1:-1]
        )


def stencil_1d(x, y):
    y[0] = x[0]
    y[-1] = x[-1]
    y[1:-1] = (x[:-2] + x[1:-1] + x[2:]) / 3.0


def softmax_rows(X, out):
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    out[...] = e / e.sum(axis=-1, keepdims=True)


def softmax_loop(X, out):
    for i in range(X.shape[0]):
        m = np.max(X[i, :])
        e = np.exp(X[i, :] - m)
        out[i, :] = e / np.sum(e)


def layernorm(X, gamma, beta, out, eps):
    mu = X.mean(axis=-1, keepdims=True)
    xc = X - mu
    var = (xc * xc).mean(axis=-1, keepdims=True)
    out[:, :] = xc / np.sqrt(var + eps) * gamma[None, :] + beta


def add_relu_sigmoid(a, b, out):
    h = np.maximum(a + b, 0.0)
    out[:] = 1.0 / (1.0 + np.exp(-h))


def gesummv(alpha, beta, A, B, x, y):
    tmp = np.zeros(A.shape[0])
    z = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            tmp[i] += A[i, j] * x[j]
            z[i] += B[i, j] * x[j]
    y[:] = alpha * tmp + beta * z


def seidel_rows(A, tsteps):
    for t in range(tsteps):
        for i in range(1, A.shape[0] - 1):
            A[i, 1:-1] = (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:]
                          + A[i, :-2] + A[i, 1:-1] + A[i, 2:]
                          + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:]) / 9.0


def hdiff(inp, coeff, out):
    lap = 4.0 * inp[1:-1, 1:-1] - (inp[2:, 1:-1] + inp[:-2, 1:-1] + inp[1:-1, 2:] + inp[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    out[2:-2, 2:-2] = inp[2:-2, 2:-2] - coeff[2:-2, 2:-2] * (
        flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])


def inplace_prefix(A, B):
    A[1:] += A[:-1]
    B[:, 1:] = B[:, :-1] * 0.5 + B[:, 1:]


def normalize_columns(X, out):
    out[:] = (X - X.mean(axis=0)) / (X.max(axis=0) - X.min(axis=0) + 1.0)


def transpose_add(A, B, C):
    C[:] = A + B.T
    C[::2, :] *= -1.0


def reverse_and_stride(x, y):
    y[::-1] = x
    y[1::2] += x[:-1:2] * 2.0


def total_scale(A, out):
    s = np.sum(A)
    out[:, :] = A / s + np.prod(A[0, :2])


def _f(*shape):
    return lambda rng: rng.random(shape)


CASES = [
    Case("jacobi_2d", jacobi_2d, lambda rng: (rng.random((8, 9)), rng.random((8, 9)), 3)),
    Case("heat_3d", heat_3d, lambda rng: (rng.random((5, 6, 7)), rng.random((5, 6, 7)), 2)),
    Case("stencil_1d", stencil_1d, lambda rng: (rng.random(11), np.zeros(11))),
    Case("softmax_rows", softmax_rows, lambda rng: (rng.random((4, 7)), np.zeros((4, 7))), rtol=1e-12),
    Case("softmax_loop", softmax_loop, lambda rng: (rng.random((4, 7)), np.zeros((4, 7))), rtol=1e-12),
    Case("layernorm", layernorm, lambda rng: (rng.random((5, 8)), rng.random(8), rng.random(8),
                                              np.zeros((5, 8)), 1e-5), rtol=1e-12),
    Case("add_relu_sigmoid", add_relu_sigmoid, lambda rng: (rng.random(9) - 0.5, rng.random(9) - 0.5,
                                                            np.zeros(9))),
    Case("add_relu_sigmoid_f32", add_relu_sigmoid,
         lambda rng: ((rng.random(9) - 0.5).astype(np.float32), (rng.random(9) - 0.5).astype(np.float32),
                      np.zeros(9, np.float32)), rtol=1e-6, atol=1e-7),
    Case("gesummv", gesummv, lambda rng: (1.5, 1.2, rng.random((6, 5)), rng.random((6, 5)), rng.random(5),
                                          np.zeros(6))),
    Case("seidel_rows", seidel_rows, lambda rng: (rng.random((7, 8)), 2)),
    Case("hdiff", hdiff, lambda rng: (rng.random((10, 11)), rng.random((10, 11)), np.zeros((10, 11)))),
    Case("inplace_prefix", inplace_prefix, lambda rng: (rng.random(9), rng.random((3, 6)))),
    Case("normalize_columns", normalize_columns, lambda rng: (rng.random((6, 4)), np.zeros((6, 4))),
         rtol=1e-12),
    Case("transpose_add", transpose_add, lambda rng: (rng.random((5, 4)), rng.random((4, 5)), np.zeros((5, 4)))),
    Case("reverse_and_stride", reverse_and_stride, lambda rng: (rng.random(9), np.zeros(9))),
    Case("total_scale", total_scale, lambda rng: (rng.random((4, 5)), np.zeros((4, 5))), rtol=1e-12),
]
