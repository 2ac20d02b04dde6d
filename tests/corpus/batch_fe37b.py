"""fe37's second batch: control flow and result types as numba users write them (for-else,
continue, while with compound tests, early returns from nested loops, helpers returning tuples,
Welford/Kahan accumulators, DP tables with data-dependent bounds, sieves, heaps, 3-d images,
complex DFTs, integer hashes); written before looking at what is supported.  Its binary search
was numba_fe26.binary_search (same body and argument types, in the corpus): dropped."""

import cmath
import math

import numpy as np
from corpus_case import Case
from numba import njit

G = 6.674e-3
WEIGHTS = np.array([0.25, 0.5, 0.25])


def _n(rng, big=7, edge=1):
    return big if rng.integers(0, 3) else edge


@njit
def _divmod_pair(a, b):
    q = a // b
    return q, a - q * b


@njit
def _clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


def all_positive_for_else(x):
    for i in range(x.shape[0]):
        if x[i] <= 0:
            break
    else:
        return True
    return False


def sum_skip_nan(x):
    s = 0.0
    for i in range(x.shape[0]):
        if np.isnan(x[i]):
            continue
        s += x[i]
    return s


def count_leading_below(x, t):
    i = 0
    while i < x.shape[0] and x[i] < t:
        i += 1
    return i


def find_in_matrix(A, v):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] == v:
                return i, j
    return -1, -1


def quotients(a, b):
    q = np.empty_like(a)
    r = np.empty_like(a)
    for i in range(a.shape[0]):
        q[i], r[i] = _divmod_pair(a[i], b[i])
    return q, r


def clamp_all(x, lo, hi):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = _clamp(x[i], lo, hi)
    return out


def welford(x):
    count = 0
    mean = 0.0
    m2 = 0.0
    for v in x:
        count += 1
        d = v - mean
        mean += d / count
        m2 += d * (v - mean)
    var = m2 / (count - 1) if count > 1 else 0.0
    return mean, var


def kahan_sum(x):
    s = 0.0
    c = 0.0
    for i in range(x.shape[0]):
        y = x[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def knapsack(wt, val, cap):
    dp = np.zeros(cap + 1)
    for i in range(wt.shape[0]):
        for w in range(cap, wt[i] - 1, -1):
            cand = dp[w - wt[i]] + val[i]
            if cand > dp[w]:
                dp[w] = cand
    return dp[cap]


def lcs_length(a, b):
    n, m = a.shape[0], b.shape[0]
    L = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n):
        for j in range(m):
            if a[i] == b[j]:
                L[i + 1, j + 1] = L[i, j] + 1
            else:
                L[i + 1, j + 1] = max(L[i, j + 1], L[i + 1, j])
    return L[n, m]


def sieve(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_p[i]:
            for j in range(i * i, n + 1, i):
                is_p[j] = False
    return is_p


def heapsort(a):
    x = a.copy()
    n = x.shape[0]
    for start in range(n // 2 - 1, -1, -1):
        root = start
        while 2 * root + 1 < n:
            child = 2 * root + 1
            if child + 1 < n and x[child] < x[child + 1]:
                child += 1
            if x[root] < x[child]:
                x[root], x[child] = x[child], x[root]
                root = child
            else:
                break
    for end in range(n - 1, 0, -1):
        x[0], x[end] = x[end], x[0]
        root = 0
        while 2 * root + 1 < end:
            child = 2 * root + 1
            if child + 1 < end and x[child] < x[child + 1]:
                child += 1
            if x[root] < x[child]:
                x[root], x[child] = x[child], x[root]
                root = child
            else:
                break
    return x


def rgb_to_gray(img):
    h, w, _ = img.shape
    out = np.empty((h, w), dtype=np.float32)
    for i in range(h):
        for j in range(w):
            out[i, j] = 0.299 * img[i, j, 0] + 0.587 * img[i, j, 1] + 0.114 * img[i, j, 2]
    return out


def maxpool2x2(img):
    c, h, w = img.shape
    out = np.empty((c, h // 2, w // 2), dtype=img.dtype)
    for k in range(c):
        for i in range(h // 2):
            for j in range(w // 2):
                m = img[k, 2 * i, 2 * j]
                m = max(m, img[k, 2 * i + 1, 2 * j])
                m = max(m, img[k, 2 * i, 2 * j + 1])
                m = max(m, img[k, 2 * i + 1, 2 * j + 1])
                out[k, i, j] = m
    return out


def dft_loop(x):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.complex128)
    for k in range(n):
        s = 0j
        for t in range(n):
            s += x[t] * cmath.exp(-2j * math.pi * k * t / n)
        out[k] = s
    return out


def string_hash_int32(codes):
    h = np.int32(7)
    for i in range(codes.shape[0]):
        h = h * np.int32(31) + np.int32(codes[i])
    return h


def gray_code(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] ^ (x[i] >> 1)
    return out


def invert_u8(img):
    out = np.empty_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            out[i, j] = ~img[i, j]
    return out


def random_walk(steps):
    pos = 0
    path = np.empty(steps.shape[0], dtype=np.int64)
    for i, s in enumerate(steps):
        pos += 1 if s > 0.5 else -1
        path[i] = pos
    return path, pos


def back_substitution(U, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return x


def gravity_potential(pos, m):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = math.sqrt((pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2)
            e -= G * m[i] * m[j] / r
    return e


def smooth_global_weights(x):
    n = x.shape[0]
    out = x.copy()
    for i in range(1, n - 1):
        out[i] = WEIGHTS[0] * x[i - 1] + WEIGHTS[1] * x[i] + WEIGHTS[2] * x[i + 1]
    return out


def zip_dot(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s += a * b
    return s


def reversed_cumsum(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in reversed(range(x.shape[0])):
        acc += x[i]
        out[i] = acc
    return out


def f32_dot(x, y):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


def wrap_angles(a):
    out = a.copy()
    for i in range(out.shape[0]):
        while out[i] > math.pi:
            out[i] -= 2 * math.pi
        while out[i] < -math.pi:
            out[i] += 2 * math.pi
    return out


def collatz_steps(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        c = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            c += 1
        out[i] = c
    return out


def heat3d_step(u, alpha):
    nx, ny, nz = u.shape
    out = u.copy()
    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            for k in range(1, nz - 1):
                out[i, j, k] = u[i, j, k] + alpha * (u[i + 1, j, k] + u[i - 1, j, k] + u[i, j + 1, k]
                                                     + u[i, j - 1, k] + u[i, j, k + 1] + u[i, j, k - 1]
                                                     - 6.0 * u[i, j, k])
    return out


def argmax_rows_loop(A):
    n, m = A.shape
    idx = np.zeros(n, dtype=np.int64)
    for i in range(n):
        best = A[i, 0]
        for j in range(1, m):
            if A[i, j] > best:
                best = A[i, j]
                idx[i] = j
    return idx


def best_index_and_value(x):
    best_i = -1
    best = -np.inf
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
            best_i = i
    return best_i, best


def cholesky_loop(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    return L


def int_mean_round(x):
    total = 0
    for i in range(x.shape[0]):
        total += int(x[i])
    return round(total / max(x.shape[0], 1), 2)


def mask_fraction(x, t):
    m = x > t
    return m.sum() / m.size if m.size else 0.0


def _sized(rng):
    return (rng.integers(1, 5, _n(rng, 5, 0)), rng.random(_n(rng, 5, 0)))


def _spd(rng):
    n = _n(rng, 4, 1)
    M = rng.standard_normal((n, n))
    return (M @ M.T + n * np.eye(n),)


def _kn(rng):
    n = _n(rng, 5, 0)
    return rng.integers(1, 5, n), rng.random(n), int(rng.integers(0, 10))


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


_add("all_positive_for_else", all_positive_for_else, lambda r: (r.random(_n(r, 5, 0)) - 0.05,))
_add("sum_skip_nan", sum_skip_nan,
     lambda r: (np.where(r.random(_n(r)) < 0.3, np.nan, r.standard_normal(_n(r, 7, 7))),))
_add("count_leading_below", count_leading_below, lambda r: (r.random(_n(r, 8, 0)), 0.7))
_add("find_in_matrix", find_in_matrix, lambda r: (r.integers(0, 6, (_n(r, 3), 4)), 2))
_add("quotients", quotients, lambda r: (r.integers(-20, 20, 6), r.integers(1, 5, 6)))
_add("clamp_all", clamp_all, lambda r: (r.standard_normal(_n(r)), -0.5, 0.5))
_add("welford", welford, lambda r: (r.standard_normal(_n(r, 7, 0)),))
_add("kahan_sum", kahan_sum, lambda r: (r.standard_normal(_n(r, 9, 0)),))
_add("knapsack", knapsack, _kn)
_add("lcs_length", lcs_length, lambda r: (r.integers(0, 3, _n(r, 6, 0)), r.integers(0, 3, _n(r, 5))))
_add("sieve", sieve, lambda r: (int(r.integers(1, 40)),))
_add("heapsort", heapsort, lambda r: (r.standard_normal(_n(r, 9, 0)),))
_add("rgb_to_gray", rgb_to_gray, lambda r: (r.integers(0, 255, (_n(r, 3), 4, 3)).astype(np.uint8),), rtol=1e-6)
_add("maxpool2x2", maxpool2x2, lambda r: (r.standard_normal((2, _n(r, 5, 1), 4)).astype(np.float32),))
_add("dft_loop", dft_loop, lambda r: (r.standard_normal(_n(r, 6)),))
_add("string_hash_int32", string_hash_int32, lambda r: (r.integers(97, 123, _n(r, 12, 0)),))
_add("gray_code", gray_code, lambda r: (r.integers(0, 1000, _n(r)).astype(np.int32),))
_add("invert_u8", invert_u8, lambda r: (r.integers(0, 255, (_n(r, 3), 3)).astype(np.uint8),))
_add("random_walk", random_walk, lambda r: (r.random(_n(r, 8, 0)),))
_add("back_substitution", back_substitution,
     lambda r: (lambda n: (np.triu(r.random((n, n))) + np.eye(n), r.random(n)))(_n(r, 5)))
_add("gravity_potential", gravity_potential, lambda r: (lambda n: (r.random((n, 2)), r.random(n) + 0.5))(_n(r, 5)))
_add("smooth_global_weights", smooth_global_weights, lambda r: (r.standard_normal(_n(r, 6, 2)),))
_add("zip_dot", zip_dot, lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(_n(r, 6, 0)))
_add("reversed_cumsum", reversed_cumsum, lambda r: (r.standard_normal(_n(r, 6, 0)),))
_add("f32_dot", f32_dot,
     lambda r: (lambda n: (r.random(n).astype(np.float32), r.random(n).astype(np.float32)))(_n(r, 6, 0)), rtol=1e-6)
_add("wrap_angles", wrap_angles, lambda r: (r.standard_normal(_n(r)) * 10,))
_add("collatz_steps", collatz_steps, lambda r: (r.integers(1, 30, _n(r)),))
_add("heat3d_step", heat3d_step, lambda r: (r.random((_n(r, 4, 2), 4, 3)), 0.1))
_add("argmax_rows_loop", argmax_rows_loop, lambda r: (r.integers(0, 5, (_n(r, 4), 5)),))
_add("best_index_and_value", best_index_and_value, lambda r: (r.standard_normal(_n(r, 6, 0)),))
_add("cholesky_loop", cholesky_loop, _spd, rtol=1e-8)
_add("int_mean_round", int_mean_round, lambda r: (r.integers(0, 50, _n(r, 6, 0)),))
_add("mask_fraction", mask_fraction, lambda r: (r.random(_n(r, 6, 0)), 0.5))
