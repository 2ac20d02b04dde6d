"""NumPy programs in the style of npbench (the NumPy benchmark suite), written as its authors
write them: value helpers with loops (conv2d), chained assignments and temporaries that shrink
with the loop (covariance, correlation), np.std and boolean-mask stores, np.eye, np.add.outer
(floyd_warshall), np.flip (durbin), np.linalg.norm, np.var/np.std.  Written for this corpus,
not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2)**2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2)**2
    return 2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))


def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def relu(x):
    return np.maximum(x, 0)


def conv2d(input, weights):
    K = weights.shape[0]
    H_out = input.shape[1] - K + 1
    W_out = input.shape[2] - K + 1
    C_out = weights.shape[3]
    output = np.empty((input.shape[0], H_out, W_out, C_out), dtype=np.float64)
    for i in range(H_out):
        for j in range(W_out):
            output[:, i, j, :] = np.sum(input[:, i:i + K, j:j + K, :, np.newaxis] * weights[np.newaxis, :, :, :], axis=(1, 2, 3))
    return output


def conv2d_bias(input, weights, bias):
    return conv2d(input, weights) + bias


def covariance(M, float_n, data):
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return cov


def correlation(M, float_n, data):
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev[stddev <= 0.1] = 1.0
    data -= mean
    data /= np.sqrt(float_n) * stddev
    corr = np.eye(M, dtype=data.dtype)
    for i in range(M - 1):
        corr[i + 1:M, i] = corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
    return corr


def floyd_warshall(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))


def gramschmidt(A):
    Q = np.zeros_like(A)
    R = np.zeros((A.shape[1], A.shape[1]), dtype=A.dtype)
    for k in range(A.shape[1]):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, A.shape[1]):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def durbin(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def lenet_like(x, w):
    h = np.maximum(x @ w, 0.0)
    return h / np.linalg.norm(h)


def var_std(x):
    return np.var(x, axis=0), x.std(), np.std(x, axis=1, ddof=1)


def softmax(x):
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=-1, keepdims=True)
    return tmp_out / tmp_sum


def _spd(rng, n):
    m = rng.random((n, n))
    return m @ m.T + n * np.eye(n)


CASES = [
    Case("arc_distance", arc_distance, lambda r: tuple(r.random(12) for _ in range(4))),
    Case("go_fast", go_fast, lambda r: (r.random((9, 9)),)),
    Case("conv2d_bias", conv2d_bias, lambda r: (r.random((2, 6, 6, 3)), r.random((3, 3, 3, 4)), r.random(4))),
    Case("covariance", covariance, lambda r: (8, 10.0, r.random((10, 8)))),
    Case("correlation", correlation, lambda r: (8, 10.0, r.random((10, 8)))),
    Case("floyd_warshall", floyd_warshall, lambda r: (r.random((9, 9)) * 10,)),
    Case("gramschmidt", gramschmidt, lambda r: (_spd(r, 8)[:, :6].copy(),), rtol=1e-8),
    Case("durbin", durbin, lambda r: (r.random(10) * 0.1,)),
    Case("lenet_like", lenet_like, lambda r: (r.random((7, 8)), r.random((8, 6)) - 0.5)),
    Case("var_std", var_std, lambda r: (r.random((9, 7)),)),
]
