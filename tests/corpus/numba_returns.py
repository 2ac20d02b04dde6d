"""Kernels that return their result, as numba users write them: reductions returning a scalar,
functions that allocate and return their output, tuples of statistics, an argument returned."""

from __future__ import annotations

import math

import numpy as np
from corpus_case import Case


def array_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def array_mean(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
    return total / x.shape[0]


def dot(a, b):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


def norm2(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return math.sqrt(s)


def argmax(x):
    best = 0
    best_value = x[0]
    for i in range(1, x.shape[0]):
        best = i if x[i] > best_value else best
        best_value = x[i] if x[i] > best_value else best_value
    return best


def count_positive(x):
    count = 0
    for i in range(x.shape[0]):
        count += 1 if x[i] > 0 else 0
    return count


def int_total(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def mean_var(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    mean = s / x.shape[0]
    var = 0.0
    for i in range(x.shape[0]):
        var += (x[i] - mean) ** 2
    return mean, var / x.shape[0]


def min_max(x):
    lo = x[0]
    hi = x[0]
    for i in range(1, x.shape[0]):
        lo = min(lo, x[i])
        hi = max(hi, x[i])
    return lo, hi


def axpy(a, x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = a * x[i] + y[i]
    return out


def matvec(A, x):
    y = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            y[i] += A[i, j] * x[j]
    return y


def matmul(A, B):
    C = np.zeros((A.shape[0], B.shape[1]), dtype=A.dtype)
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
    return C


def cumsum(x):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]
    return out


def softmax(x):
    m = x[0]
    for i in range(1, x.shape[0]):
        m = max(m, x[i])
    e = np.empty_like(x)
    s = 0.0
    for i in range(x.shape[0]):
        e[i] = math.exp(x[i] - m)
        s += e[i]
    for i in range(x.shape[0]):
        e[i] = e[i] / s
    return e


def normalize_inplace(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += abs(x[i])
    for i in range(x.shape[0]):
        x[i] = x[i] / s
    return x


def pairwise_distances(X):
    D = np.empty((X.shape[0], X.shape[0]))
    for i in range(X.shape[0]):
        for j in range(X.shape[0]):
            d = 0.0
            for k in range(X.shape[1]):
                diff = X[i, k] - X[j, k]
                d += diff * diff
            D[i, j] = math.sqrt(d)
    return D


def smooth_with_weights(x):
    w = np.full(x.shape[0], 0.25)
    out = np.zeros_like(x)
    for i in range(1, x.shape[0] - 1):
        out[i] = w[i] * x[i - 1] + 2 * w[i] * x[i] + w[i] * x[i + 1]
    return out, w


def column_means(A):
    means = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            means[j] += A[i, j]
    for j in range(A.shape[1]):
        means[j] /= A.shape[0]
    return means


def vec(n, dtype=np.float64):
    return lambda rng: (rng.standard_normal(n).astype(dtype),)


CASES = [
    Case("array_sum", array_sum, vec(37)),
    Case("array_sum_f32", array_sum, vec(37, np.float32), rtol=1e-5, atol=1e-5),
    Case("array_mean", array_mean, vec(50)),
    Case("dot", dot, lambda rng: (rng.standard_normal(40), rng.standard_normal(40))),
    Case("norm2", norm2, vec(33)),
    Case("argmax", argmax, vec(29)),
    Case("count_positive", count_positive, vec(41)),
    Case("int_total_i32", int_total, lambda rng: (rng.integers(-50, 50, 30).astype(np.int32),)),
    Case("mean_var", mean_var, vec(45)),
    Case("min_max", min_max, vec(31)),
    Case("axpy", axpy, lambda rng: (1.5, rng.standard_normal(20), rng.standard_normal(20))),
    Case("matvec", matvec, lambda rng: (rng.standard_normal((9, 7)), rng.standard_normal(7))),
    Case("matmul_f32", matmul, lambda rng: (rng.standard_normal((6, 5)).astype(np.float32),
                                            rng.standard_normal((5, 7)).astype(np.float32)),
         rtol=1e-5, atol=1e-5),
    Case("cumsum", cumsum, vec(25)),
    Case("softmax", softmax, vec(17)),
    Case("normalize_inplace", normalize_inplace, vec(19)),
    Case("pairwise_distances", pairwise_distances, lambda rng: (rng.standard_normal((8, 3)),)),
    Case("smooth_with_weights", smooth_with_weights, vec(23)),
    Case("column_means", column_means, lambda rng: (rng.standard_normal((11, 4)),)),
]
