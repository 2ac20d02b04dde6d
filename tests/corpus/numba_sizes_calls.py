"""Kernels as numba users write them: sizes unpacked from ``.shape``, ``len()``, integer locals,
``prange`` loops and small helper functions (some ``@njit``-decorated), compiled unchanged."""

from __future__ import annotations

import math

import numba
import numpy as np
from corpus_case import Case
from numba import njit, prange


def relu(v):
    return max(v, 0.0)


def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


def silu(v):
    return v * sigmoid(v)


@njit
def gelu(v):
    inner = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    return 0.5 * v * (1.0 + math.tanh(inner))


def axpy(a, x, y):
    """y += a * x, in place (a helper that writes an array argument)."""
    for i in range(len(x)):
        y[i] += a * x[i]


def layernorm(X, gamma, beta, Y):
    n, d = X.shape
    for i in prange(n):
        mean = 0.0
        for j in range(d):
            mean += X[i, j]
        mean /= d
        var = 0.0
        for j in range(d):
            diff = X[i, j] - mean
            var += diff * diff
        var /= d
        inv = 1.0 / math.sqrt(var + 1e-5)
        for j in range(d):
            Y[i, j] = (X[i, j] - mean) * inv * gamma[j] + beta[j]


def rmsnorm_silu(X, w, Y):
    n, d = X.shape
    for i in numba.prange(n):
        ss = 0.0
        for j in range(d):
            ss += X[i, j] * X[i, j]
        scale = 1.0 / math.sqrt(ss / d + 1e-6)
        for j in range(d):
            Y[i, j] = silu(X[i, j] * scale * w[j])


def gelu_chain(x, y, z):
    for i in range(len(x)):
        y[i] = gelu(x[i])
        z[i] = gelu(y[i]) * 2.0 + sigmoid(x[i])


def softmax_rows(X, Y):
    n, m = X.shape
    for i in prange(n):
        mx = X[i, 0]
        for j in range(1, m):
            mx = max(mx, X[i, j])
        total = 0.0
        for j in range(m):
            Y[i, j] = math.exp(X[i, j] - mx)
            total += Y[i, j]
        for j in range(m):
            Y[i, j] /= total


def linear_bias_relu(X, W, b, Y):
    n, k = X.shape[0], X.shape[1]
    m = W.shape[1]
    for i in prange(n):
        for j in range(m):
            acc = b[j]
            for p in range(k):
                acc += X[i, p] * W[p, j]
            Y[i, j] = relu(acc)


def conv1d_relu(x, w, y):
    n = len(x)
    k = len(w)
    m = n - k + 1
    for i in prange(m):
        s = 0.0
        for t in range(k):
            s += x[i + t] * w[t]
        y[i] = relu(s)


def blur_sharpen(A, B):
    n, m = A.shape
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            T[i, j] = A[i, j]
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            T[i, j] = (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1] + A[i, j]) / 5.0
    for i in range(n):
        for j in range(m):
            B[i, j] = 2.0 * A[i, j] - T[i, j]


def jacobi_2d(steps, X, Y):
    n, d = X.shape
    for t in range(steps):
        for i in prange(1, n - 1):
            for j in range(1, d - 1):
                Y[i, j] = 0.2 * (X[i, j] + X[i - 1, j] + X[i + 1, j] + X[i, j - 1] + X[i, j + 1])
        for i in prange(1, n - 1):
            for j in range(1, d - 1):
                X[i, j] = Y[i, j]


def fold_halves(x, y):
    n = x.shape[0]
    h = n // 2
    for i in range(h):
        y[i] = x[i] + x[i + h]


def centered_window(x, k, y):
    n = len(x)
    m = n - 2 * k
    half = (m + 1) // 2
    for i in range(m):
        y[i] = x[i + k] - x[k + half]


def axpy_twice(a, x, y, z):
    axpy(a, x, y)
    axpy(2.0, y, z)


def normalize_by_size(X, Y):
    d = X.shape[-1]
    total = X.size
    s = 0.0
    for i in range(len(X)):
        for j in range(d):
            s += X[i, j]
    mean = s / total
    for i in range(X.shape[0]):
        for j in range(X.shape[-1]):
            Y[i, j] = X[i, j] - mean


def column_sums(X, out):
    n, m = X.shape
    for i in prange(n):  # a reduction over i: numba would race here, polyfuse keeps it serial
        for j in range(m):
            out[j] += X[i, j]


def _normal(rng, *shape):
    return rng.standard_normal(shape)


CASES = [
    Case("layernorm", layernorm, lambda r: (_normal(r, 5, 8), _normal(r, 8), _normal(r, 8), np.zeros((5, 8)))),
    Case("rmsnorm_silu", rmsnorm_silu, lambda r: (_normal(r, 4, 6), _normal(r, 6), np.zeros((4, 6)))),
    Case("gelu_chain", gelu_chain, lambda r: (_normal(r, 9), np.zeros(9), np.zeros(9))),
    Case("softmax_rows", softmax_rows, lambda r: (_normal(r, 4, 7), np.zeros((4, 7)))),
    Case("linear_bias_relu", linear_bias_relu,
         lambda r: (_normal(r, 5, 4), _normal(r, 4, 3), _normal(r, 3), np.zeros((5, 3)))),
    Case("conv1d_relu", conv1d_relu, lambda r: (_normal(r, 12), _normal(r, 3), np.zeros(10))),
    Case("blur_sharpen", blur_sharpen, lambda r: (_normal(r, 6, 7), np.zeros((6, 7)))),
    Case("jacobi_2d", jacobi_2d, lambda r: (3, _normal(r, 7, 6), np.zeros((7, 6)))),
    Case("fold_halves", fold_halves, lambda r: (_normal(r, 11), np.zeros(5))),
    Case("centered_window", centered_window, lambda r: (_normal(r, 13), 3, np.zeros(7))),
    Case("axpy_twice", axpy_twice, lambda r: (1.5, _normal(r, 8), _normal(r, 8), _normal(r, 8))),
    Case("normalize_by_size", normalize_by_size, lambda r: (_normal(r, 3, 5), np.zeros((3, 5)))),
    Case("column_sums", column_sums, lambda r: (_normal(r, 6, 4), np.zeros(4))),
]
