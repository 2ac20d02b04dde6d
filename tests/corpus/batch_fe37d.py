"""fe37's fourth batch: row copies and swaps, prange nearest neighbours, math.floor/isnan,
early False/True returns, divmod, while True searches that return from inside, np.int64 casts,
ping-pong and wave-equation buffers, float32 accumulators."""

import math

import numpy as np
from corpus_case import Case
from numba import prange


def _n(rng, big=6, edge=0):
    return big if rng.integers(0, 2) else edge


def row_swap_sort(A):
    B = A.copy()
    n = B.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if B[j, 0] > B[j + 1, 0]:
                tmp = B[j, :].copy()
                B[j, :] = B[j + 1, :]
                B[j + 1, :] = tmp
    return B


def nearest_pairs(X, Y):
    n = X.shape[0]
    idx = np.empty(n, dtype=np.int64)
    for i in prange(n):
        best = np.inf
        for j in range(Y.shape[0]):
            d = np.dot(X[i] - Y[j], X[i] - Y[j])
            if d < best:
                best = d
                idx[i] = j
    return idx


def floor_bins(x, w):
    out = np.empty(x.shape[0], np.int64)
    for i in range(x.shape[0]):
        out[i] = math.floor(x[i] / w)
    return out


def nan_count_isnan(x):
    c = 0
    for i in range(len(x) - 1, -1, -1):
        if math.isnan(x[i]):
            c += 1
    return c


def allclose_loop(x, y, tol):
    if x.shape[0] != y.shape[0]:
        return False
    for i in range(x.shape[0]):
        if abs(x[i] - y[i]) > tol:
            return False
    return True


def sign_flags(x):
    out = np.empty(x.shape[0], dtype=np.bool_)
    for i in range(x.shape[0]):
        out[i] = True if x[i] > 0 else False
    return out


def divmod_loop(a, b):
    q = np.empty_like(a)
    r = np.empty_like(a)
    for i in range(a.shape[0]):
        q[i], r[i] = divmod(a[i], b)
    return q, r


def while_true_search(x, t):
    i = 0
    while True:
        if i >= x.shape[0]:
            return -1
        if x[i] >= t:
            return i
        i += 1


def int64_cast_sum(x):
    s = np.int64(0)
    for i in range(x.shape[0]):
        s += np.int64(x[i] * 10)
    return s


def ping_pong(u, steps):
    a = u.copy()
    b = np.empty_like(u)
    n = u.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            b[i] = 0.5 * (a[i - 1] + a[i + 1])
        b[0] = a[0]
        b[n - 1] = a[n - 1]
        a, b = b, a
    return a


def wave_1d(u, u_prev, c, steps):
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev = u
        u = u_next
    return u


def gauss_kernel_1d(sigma, radius):
    k = np.empty(2 * radius + 1)
    s = 0.0
    for i in range(-radius, radius + 1):
        v = math.exp(-0.5 * (i / sigma) ** 2)
        k[i + radius] = v
        s += v
    return k / s


def count_pairs_close(P, r):
    n = P.shape[0]
    c = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = P[i, 0] - P[j, 0]
            dy = P[i, 1] - P[j, 1]
            if dx * dx + dy * dy < r * r:
                c += 1
    return c


def matvec_f32(A, x):
    n, m = A.shape
    y = np.zeros(n, dtype=np.float32)
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += A[i, j] * x[j]
        y[i] = acc
    return y


def mean_f32_loop(x):
    s = 0.0
    for v in x:
        s += v
    return s / len(x) if len(x) else 0.0


CASES = []


def _add(n, f, m, **k):
    CASES.append(Case(n, f, m, **k))


_add("row_swap_sort", row_swap_sort, lambda r: (r.standard_normal((_n(r, 5, 1), 3)),))
_add(
    "nearest_pairs", nearest_pairs, lambda r: (r.standard_normal((_n(r, 5, 1), 2)), r.standard_normal((4, 2)))
)
_add("floor_bins", floor_bins, lambda r: (r.standard_normal(_n(r)) * 5, 0.7))
_add("nan_count_isnan", nan_count_isnan, lambda r: (np.where(r.random(_n(r)) < 0.3, np.nan, 1.0),))
_add(
    "allclose_loop",
    allclose_loop,
    lambda r: (lambda a: (a, a + r.random(a.shape[0]) * 1e-3, 5e-4))(r.standard_normal(_n(r))),
)
_add("sign_flags", sign_flags, lambda r: (r.standard_normal(_n(r)),))
_add("divmod_loop", divmod_loop, lambda r: (r.integers(-20, 20, _n(r)), 3))
_add("while_true_search", while_true_search, lambda r: (r.random(_n(r)), 0.8))
_add("int64_cast_sum", int64_cast_sum, lambda r: (r.random(_n(r)),))
_add("ping_pong", ping_pong, lambda r: (r.random(_n(r, 6, 2)), 3))
_add("wave_1d", wave_1d, lambda r: (lambda n: (r.random(n), r.random(n), 0.1, 3))(_n(r, 6, 3)))
_add("gauss_kernel_1d", gauss_kernel_1d, lambda r: (1.5, int(r.integers(0, 4))))
_add("count_pairs_close", count_pairs_close, lambda r: (r.random((_n(r), 2)), 0.4))
_add(
    "matvec_f32",
    matvec_f32,
    lambda r: (r.random((_n(r, 4, 1), 3)).astype(np.float32), r.random(3).astype(np.float32)),
    rtol=1e-6,
)
_add("mean_f32_loop", mean_f32_loop, lambda r: (r.random(_n(r)).astype(np.float32),), rtol=1e-6)
