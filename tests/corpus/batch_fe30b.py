"""fe30's batch, part 2: edge semantics (aliasing, swaps of buffers, negative division, rounding,
NaN, float32, early exits)."""

import math

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=1):
    return big if rng.integers(0, 3) else edge


def shift_right_inplace(x):
    x[1:] = x[:-1]
    return x


def pingpong_smooth(u, steps):
    a = u.copy()
    b = np.empty_like(u)
    n = u.shape[0]
    for _ in range(steps):
        b[0] = a[0]
        b[n - 1] = a[n - 1]
        for i in range(1, n - 1):
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
        a, b = b, a
    return a


def floor_div_mod(a, k):
    q = np.empty_like(a)
    r = np.empty_like(a)
    for i in range(a.shape[0]):
        q[i] = a[i] // k
        r[i] = a[i] % k
    return q, r


def py_round_trunc(x):
    out = np.empty((x.shape[0], 3))
    for i in range(x.shape[0]):
        out[i, 0] = round(x[i])
        out[i, 1] = int(x[i])
        out[i, 2] = math.floor(x[i])
    return out


def nan_max_loop(x):
    m = -np.inf
    for v in x:
        if v > m:
            m = v
    return m, np.max(x), max(x[0], x[-1])


def f32_accumulate(x):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s += x[i] * np.float32(0.5)
    return s


def first_negative_2d(A):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] < 0:
                return i, j
    return -1, -1


def cumprod_clip(x, cap):
    out = np.empty_like(x)
    p = 1.0
    for i in range(x.shape[0]):
        p *= x[i]
        if p > cap:
            p = cap
        out[i] = p
    return out


def argmax_ties(x):
    best = 0
    for i in range(1, x.shape[0]):
        if x[i] > x[best]:
            best = i
    return best, np.argmax(x)


def reverse_scan(x):
    out = np.zeros_like(x)
    acc = 0.0
    for i in range(x.shape[0] - 1, -1, -1):
        acc += x[i]
        out[i] = acc
    return out


def int_overflow_wrap(a):
    s = np.int32(0)
    for i in range(a.shape[0]):
        s += a[i]
    return s


def where_broadcast(x, y):
    return np.where(x[:, None] > y[None, :], x[:, None] - y[None, :], 0.0)


def transpose_inplace(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            A[i, j], A[j, i] = A[j, i], A[i, j]
    return A


def gather_scatter_add(x, idx, out):
    for i in range(idx.shape[0]):
        out[idx[i]] += x[i]
    return out


def while_bisect_index(a, v):
    lo, hi = 0, a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


def pairwise_min_dist(P):
    n = P.shape[0]
    best = np.inf
    for i in range(n):
        for j in range(i + 1, n):
            d = np.sqrt(((P[i] - P[j]) ** 2).sum())
            if d < best:
                best = d
    return best


CASES = [
    Case("shift_right_inplace", shift_right_inplace, lambda r: (r.standard_normal(_n(r)),)),
    Case("pingpong_smooth", pingpong_smooth, lambda r: (r.standard_normal(_n(r, 8, 2)), int(r.integers(0, 4)))),
    Case("floor_div_mod", floor_div_mod, lambda r: (r.integers(-9, 9, 8), int(r.choice([3, -3])))),
    Case("floor_div_mod_f", floor_div_mod, lambda r: (r.standard_normal(8) * 5, float(r.choice([2.5, -2.5])))),
    Case("py_round_trunc", py_round_trunc, lambda r: (np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 3.49]),)),
    Case("nan_max_loop", nan_max_loop, lambda r: (np.where(r.random(6) < 0.3, np.nan, r.standard_normal(6)),)),
    Case("f32_accumulate", f32_accumulate, lambda r: (r.standard_normal(_n(r, 20)).astype(np.float32),), rtol=1e-6),
    Case("first_negative_2d", first_negative_2d, lambda r: (r.standard_normal((3, 4)) + float(r.choice([0.0, 5.0])),)),
    Case("cumprod_clip", cumprod_clip, lambda r: (r.uniform(0.5, 2.0, _n(r)), 3.0)),
    Case("argmax_ties", argmax_ties, lambda r: (r.integers(0, 3, _n(r)).astype(np.float64),)),
    Case("reverse_scan", reverse_scan, lambda r: (r.standard_normal(_n(r)),)),
    Case("int_overflow_wrap", int_overflow_wrap, lambda r: (r.integers(2**30, 2**31 - 1, 5).astype(np.int32),)),
    Case("where_broadcast", where_broadcast, lambda r: (r.standard_normal(4), r.standard_normal(3))),
    Case("transpose_inplace", transpose_inplace, lambda r: (r.standard_normal((_n(r, 4), _n(r, 4))),)),
    Case("gather_scatter_add", gather_scatter_add, lambda r: (r.standard_normal(8), r.integers(0, 4, 8), np.zeros(4))),
    Case("while_bisect_index", while_bisect_index, lambda r: (np.sort(r.standard_normal(_n(r, 9, 0))), 0.1)),
    Case("pairwise_min_dist", pairwise_min_dist, lambda r: (r.standard_normal((_n(r, 6, 1), 2)),)),
]
