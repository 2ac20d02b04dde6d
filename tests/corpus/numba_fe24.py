"""Session 22's unseen programs (fe24): numba-style loops and NumPy code as users write them,
not written for polyfuse's features: a rolling mean by cumsum, k-means assignment, 2-d
histograms, the game of life with np.roll, logistic-regression gradients, bubble sort with an
early break, Mandelbrot with complex numbers and a while loop, Levenshtein and Viterbi dynamic
programs, Jacobi until convergence, n-body accelerations (numba's prange), a prime sieve, the
Thomas algorithm, a weighted median.  Of 57 such programs (27 kept here, one mode each: the suite
is at its time budget) main compiled and matched 52; fe24 made np.nan_to_num, np.arange with
float bounds and np.searchsorted of a cumsum of a gather work (55); left refused: appends inside
while loops (run-length encoding) and np.unique used to build a map.  The numba decorators are
left out (the reference is the undecorated function either way)."""

from __future__ import annotations

import math

import numpy as np
from corpus_case import Case


def rolling_mean_cumsum(x, w):
    c = np.cumsum(np.concatenate((np.zeros(1), x)))
    return (c[w:] - c[:-w]) / w


def pairwise_dist(X, Y):
    return np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=-1))


def softmax_rows(z):
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=1, keepdims=True)


def kmeans_assign(X, C):
    n, d = X.shape
    k = C.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        arg = 0
        for j in range(k):
            dist = 0.0
            for t in range(d):
                diff = X[i, t] - C[j, t]
                dist += diff * diff
            if dist < best:
                best = dist
                arg = j
        labels[i] = arg
    return labels


def hist2d(x, y, nx, ny):
    H = np.zeros((nx, ny), dtype=np.int64)
    for i in range(x.shape[0]):
        a = int(x[i] * nx)
        b = int(y[i] * ny)
        if 0 <= a < nx and 0 <= b < ny:
            H[a, b] += 1
    return H


def life_step(G):
    n = (np.roll(G, 1, 0) + np.roll(G, -1, 0) + np.roll(G, 1, 1) + np.roll(G, -1, 1)
         + np.roll(np.roll(G, 1, 0), 1, 1) + np.roll(np.roll(G, 1, 0), -1, 1)
         + np.roll(np.roll(G, -1, 0), 1, 1) + np.roll(np.roll(G, -1, 0), -1, 1))
    return ((n == 3) | ((G == 1) & (n == 2))).astype(np.int64)


def logreg_grad(X, y, w):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return X.T @ (p - y) / X.shape[0]


def bubble_sort(a):
    b = a.copy()
    n = len(b)
    for i in range(n):
        swapped = False
        for j in range(n - i - 1):
            if b[j] > b[j + 1]:
                b[j], b[j + 1] = b[j + 1], b[j]
                swapped = True
        if not swapped:
            break
    return b


def mandelbrot(xs, ys, max_iter):
    out = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            c = complex(xs[j], ys[i])
            z = 0j
            k = 0
            while k < max_iter and abs(z) <= 2.0:
                z = z * z + c
                k += 1
            out[i, j] = k
    return out


def levenshtein(a, b):
    n, m = len(a), len(b)
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def jacobi_until(A, b, tol, max_iter):
    x = np.zeros_like(b)
    D = np.diag(A)
    R = A - np.diag(D)
    it = 0
    while it < max_iter:
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x) < tol:
            x = x_new
            break
        x = x_new
        it += 1
    return x


def viterbi(log_trans, log_emit, obs):
    T = obs.shape[0]
    S = log_trans.shape[0]
    V = np.zeros((T, S))
    B = np.zeros((T, S), dtype=np.int64)
    for s in range(S):
        V[0, s] = log_emit[s, obs[0]]
    for t in range(1, T):
        for s in range(S):
            best = -np.inf
            arg = 0
            for r in range(S):
                v = V[t - 1, r] + log_trans[r, s]
                if v > best:
                    best = v
                    arg = r
            V[t, s] = best + log_emit[s, obs[t]]
            B[t, s] = arg
    path = np.zeros(T, dtype=np.int64)
    path[T - 1] = np.argmax(V[T - 1])
    for t in range(T - 1, 0, -1):
        path[t - 1] = B[t, path[t]]
    return path


def positive_mean(p):
    p = p[p > 0]
    return p.mean()


def gather_rows_scale(X, rows, s):
    Y = X[rows] * s[:, None]
    return Y.sum(axis=0)


def _clamp(v, lo, hi):
    return max(lo, min(v, hi))


def nbody_acc(pos, mass, eps):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        ax = 0.0
        ay = 0.0
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                r2 = dx * dx + dy * dy + eps
                inv = mass[j] / (r2 * math.sqrt(r2))
                ax += dx * inv
                ay += dy * inv
        acc[i, 0] = ax
        acc[i, 1] = ay
    return acc


def clamp_all(x, lo, hi):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = _clamp(x[i], lo, hi)
    return out


def nan_filtered_sum(x):
    return x[~np.isnan(x)].sum()


def meshgrid_gauss(n, sigma):
    x = np.linspace(-1, 1, n)
    X, Y = np.meshgrid(x, x)
    return np.exp(-(X ** 2 + Y ** 2) / (2 * sigma ** 2))


def enumerate_rows(X):
    out = np.zeros(X.shape[0])
    for i, row in enumerate(X):
        out[i] = row.max() - row.min()
    return out


def nan_to_num_mean(x):
    return np.nan_to_num(x, nan=0.0).mean()


def prime_sieve(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, int(math.sqrt(n)) + 1):
        if is_p[i]:
            for j in range(i * i, n + 1, i):
                is_p[j] = False
    return is_p.sum()


def tridiag_solve(a, b, c, d):
    n = d.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def weighted_percentile_like(x, w):
    idx = np.argsort(x)
    cw = np.cumsum(w[idx])
    k = np.searchsorted(cw, 0.5 * cw[-1])
    return x[idx[k]]


def local_var(x, w):
    n = x.shape[0] - w + 1
    out = np.empty(n)
    for i in range(n):
        seg = x[i:i + w]
        out[i] = seg.var()
    return out


def normalize_inplace(X):
    rows, cols = X.shape
    for i in range(rows):
        s = 0.0
        for j in range(cols):
            s += X[i, j] ** 2
        s = s ** 0.5
        if s > 0:
            X[i, :] /= s
    return X


def float_arange_sum(n):
    t = np.arange(0.0, n, 0.5)
    return (t * t).sum()


def _case(name, func, make_args, **kw):
    """One mode (cpu, smart): the suite is at its time budget."""
    return Case(name, func, make_args, fuses=("smart",), targets=("cpu",),
                why_narrowed="suite time budget (session 22): one mode", **kw)


CASES = [
    _case("rolling_mean_cumsum", rolling_mean_cumsum, lambda rng: (rng.random(40), 5)),
    _case("pairwise_dist", pairwise_dist, lambda rng: (rng.random((6, 3)), rng.random((5, 3)))),
    _case("softmax_rows", softmax_rows, lambda rng: (rng.standard_normal((4, 7)),)),
    _case("kmeans_assign", kmeans_assign, lambda rng: (rng.random((30, 2)), rng.random((4, 2)))),
    _case("hist2d", hist2d, lambda rng: (rng.random(100), rng.random(100), 5, 4)),
    _case("life_step", life_step, lambda rng: (rng.integers(0, 2, (8, 9)),)),
    _case("logreg_grad", logreg_grad, lambda rng: (rng.standard_normal((20, 3)), rng.integers(0, 2, 20).astype(float), rng.standard_normal(3))),
    _case("bubble_sort", bubble_sort, lambda rng: (rng.standard_normal(15),)),
    _case("mandelbrot", mandelbrot, lambda rng: (np.linspace(-2, 1, 12), np.linspace(-1, 1, 9), 30)),
    _case("levenshtein", levenshtein, lambda rng: (rng.integers(0, 4, 9), rng.integers(0, 4, 7))),
    _case("jacobi_until", jacobi_until, lambda rng: (np.eye(5) * 10 + rng.random((5, 5)), rng.random(5), 1e-10, 100)),
    _case("viterbi", viterbi, lambda rng: (np.log(rng.random((3, 3))), np.log(rng.random((3, 4))), rng.integers(0, 4, 12))),
    _case("positive_mean", positive_mean, lambda rng: (rng.standard_normal(20),)),
    # (scatter_max, numba_fe23's max_per_group up to names, with the same argument types: dropped, ts52)
    _case("gather_rows_scale", gather_rows_scale, lambda rng: (rng.random((6, 3)), rng.integers(0, 6, 8), rng.random(8))),
    _case("nbody_acc", nbody_acc, lambda rng: (rng.random((12, 2)), rng.random(12), 1e-3)),
    _case("clamp_all", clamp_all, lambda rng: (rng.standard_normal(20), -0.5, 0.5)),
    _case("nan_filtered_sum", nan_filtered_sum, lambda rng: (np.where(rng.random(20) < 0.3, np.nan, rng.random(20)),)),
    _case("meshgrid_gauss", meshgrid_gauss, lambda rng: (9, 0.5)),
    _case("enumerate_rows", enumerate_rows, lambda rng: (rng.random((5, 6)),)),
    _case("nan_to_num_mean", nan_to_num_mean, lambda rng: (np.where(rng.random(20) < 0.3, np.nan, rng.random(20)),)),
    _case("prime_sieve", prime_sieve, lambda rng: (100,)),
    _case("tridiag_solve", tridiag_solve, lambda rng: (rng.random(8), rng.random(8) + 3, rng.random(8), rng.random(8))),
    _case("weighted_percentile_like", weighted_percentile_like, lambda rng: (rng.random(15), rng.random(15))),
    _case("local_var", local_var, lambda rng: (rng.random(20), 4)),
    _case("normalize_inplace", normalize_inplace, lambda rng: (rng.random((4, 5)),)),
    _case("float_arange_sum", float_arange_sum, lambda rng: (7,)),
]
