"""np37's third batch: helpers with keyword defaults, strided in-place updates of arguments,
np.append/concatenate in loops, lists made into arrays, reductions with where=, argmax of a
matrix with np.unravel_index, batched @, np.linalg.matrix_power, triangular index pairs, bitwise
reductions, NumPy scalar conversions; written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def _scale(x, factor=2.0, shift=0.0):
    return x * factor + shift


def helper_defaults(x):
    return _scale(x), _scale(x, shift=1.0), _scale(x, 0.5)


def flip_every_other(x):
    x[::2] *= -1
    x[1::2] += 1
    return x.sum()


def append_loop(x, k):
    out = np.zeros(0)
    for i in range(k):
        out = np.append(out, x[i] * 2)
    return out


def list_to_array(x):
    vals = [x[i] ** 2 for i in range(x.shape[0])]
    return np.array(vals), np.asarray([x.min(), x.max()])


def sum_where(x, m):
    return np.sum(x, where=m), np.mean(x, where=m, axis=0)


def argmax_unravel(A):
    i, j = np.unravel_index(np.argmax(A), A.shape)
    return int(i), int(j), A[i, j]


def batched_at(A, B, v):
    return A @ B, A @ v, np.matmul(A, B[0])


def matrix_power_small(A):
    return np.linalg.matrix_power(A, 3), np.linalg.norm(A, ord=1), np.linalg.norm(A, "fro")


def upper_pairs(D):
    iu = np.triu_indices(D.shape[0], k=1)
    return D[iu].sum(), D[iu].max()


def xor_reduce(a):
    return np.bitwise_xor.reduce(a), np.bitwise_or.reduce(a, axis=0)


def scalar_conversions(x):
    a = np.float32(x[0])
    b = np.int64(x.sum())
    c = float(np.float32(0.1)) + x[1]
    return a, b, c


def finite_checks(x):
    ok = np.isfinite(x).all()
    bad = np.count_nonzero(~np.isfinite(x))
    clean = np.where(np.isfinite(x), x, 0.0)
    return bool(ok), int(bad), clean


def clip_out_arg(x, lo, hi):
    y = np.empty_like(x)
    np.clip(x, lo, hi, out=y)
    return y


def outer_loop_update(P, xs):
    for k in range(xs.shape[0]):
        v = xs[k]
        P = P - np.outer(P @ v, v @ P) / (1.0 + v @ P @ v)
    return P


def kalman_filter(zs, F, H, Q, R):
    n = F.shape[0]
    x = np.zeros(n)
    P = np.eye(n)
    out = np.empty((zs.shape[0], n))
    for t in range(zs.shape[0]):
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        x = x + K @ (zs[t] - H @ x)
        P = (np.eye(n) - K @ H) @ P
        out[t] = x
    return out


def adam_step(w, g, m, v, t, lr):
    b1, b2, eps = 0.9, 0.999, 1e-8
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    mhat = m / (1 - b1 ** t)
    vhat = v / (1 - b2 ** t)
    return w - lr * mhat / (np.sqrt(vhat) + eps), m, v


def conv1d_channels(x, w):
    C_out, C_in, K = w.shape
    L = x.shape[1] - K + 1
    y = np.zeros((C_out, L))
    for k in range(K):
        y += np.einsum("oc,cl->ol", w[:, :, k], x[:, k:k + L])
    return y


def int8_saturating(a, b):
    s = a.astype(np.int16) + b.astype(np.int16)
    return np.clip(s, -128, 127).astype(np.int8)


def complex64_fir(x, h):
    y = np.zeros(x.shape[0] - h.shape[0] + 1, dtype=np.complex64)
    for k in range(h.shape[0]):
        y += h[k] * x[k:k + y.shape[0]]
    return y, np.abs(y).astype(np.float32)


def lu_nopivot(A):
    A = A.copy()
    n = A.shape[0]
    for k in range(n - 1):
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return np.tril(A, -1) + np.eye(n), np.triu(A)


def _spd(r, n):
    A = r.standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


CASES = [
    Case("helper_defaults", helper_defaults, lambda r: (r.standard_normal(5),)),
    Case("flip_every_other", flip_every_other, lambda r: (r.standard_normal(_n(r, 7, 1)),), rtol=1e-7, atol=1e-9),
    Case("append_loop", append_loop, lambda r: (r.standard_normal(6), int(r.integers(0, 6)))),
    Case("list_to_array", list_to_array, lambda r: (r.standard_normal(_n(r, 5, 1)),)),
    Case("sum_where", sum_where, lambda r: (r.standard_normal((3, 4)), r.random((3, 4)) < 0.6), rtol=1e-7,
         atol=1e-9),
    Case("argmax_unravel", argmax_unravel, lambda r: (r.standard_normal((3, 4)),)),
    Case("batched_at", batched_at, lambda r: (r.standard_normal((2, 3, 4)), r.standard_normal((2, 4, 2)),
                                              r.standard_normal(4)), rtol=1e-7, atol=1e-9),
    Case("matrix_power_small", matrix_power_small, lambda r: (r.standard_normal((3, 3)),), rtol=1e-7, atol=1e-9),
    Case("upper_pairs", upper_pairs, lambda r: (r.random((4, 4)),), rtol=1e-7, atol=1e-9),
    Case("xor_reduce", xor_reduce, lambda r: (r.integers(0, 256, (3, 4)).astype(np.uint8),)),
    Case("scalar_conversions", scalar_conversions, lambda r: (r.standard_normal(4),), rtol=1e-7, atol=1e-9),
    Case("finite_checks", finite_checks, lambda r: (np.where(r.random(6) < 0.3, np.inf, r.standard_normal(6)),)),
    Case("clip_out_arg", clip_out_arg, lambda r: (r.standard_normal(6), -0.5, 0.5)),
    Case("outer_loop_update", outer_loop_update, lambda r: (_spd(r, 3), r.standard_normal((int(r.integers(0, 4)), 3))),
         rtol=1e-7, atol=1e-9),
    Case("kalman_filter", kalman_filter, lambda r: (r.standard_normal((5, 1)), np.array([[1.0, 0.1], [0.0, 1.0]]),
                                                    np.array([[1.0, 0.0]]), 0.01 * np.eye(2), np.array([[0.5]])),
         rtol=1e-7, atol=1e-9),
    Case("adam_step", adam_step, lambda r: (r.standard_normal(4), r.standard_normal(4), r.standard_normal(4) * 0.1,
                                            r.random(4) * 0.1, 3, 0.01), rtol=1e-7, atol=1e-9),
    Case("conv1d_channels", conv1d_channels, lambda r: (r.standard_normal((2, 7)), r.standard_normal((3, 2, 3))),
         rtol=1e-7, atol=1e-9),
    Case("int8_saturating", int8_saturating, lambda r: (r.integers(-128, 128, 6).astype(np.int8),
                                                        r.integers(-128, 128, 6).astype(np.int8))),
    Case("complex64_fir", complex64_fir,
         lambda r: ((r.standard_normal(8) + 1j * r.standard_normal(8)).astype(np.complex64),
                    (r.standard_normal(3) + 1j * r.standard_normal(3)).astype(np.complex64)), rtol=1e-5, atol=1e-5),
    Case("lu_nopivot", lu_nopivot, lambda r: (_spd(r, _n(r, 4, 1)),), rtol=1e-7, atol=1e-9),
]
