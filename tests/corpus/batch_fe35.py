"""fe35's batch, part 1: kernels as people publish them (stats groupby with np.unique /
bincount / argsort, finance indicators, image filters, simulation steps, ML preprocessing),
numba-style loops and NumPy array code mixed; written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def mode_of(x):
    vals, counts = np.unique(x, return_counts=True)
    return vals[np.argmax(counts)]


def group_means(keys, values):
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=values)
    counts = np.bincount(inv)
    return uniq, sums / counts


def first_occurrence(x):
    u, idx = np.unique(x, return_index=True)
    return u, idx


def nonzero_pairs(M):
    r, c = np.nonzero(M)
    return r, c


def nonzero_sum(M, W):
    rows, cols = np.nonzero(M > 0.5)
    total = 0.0
    for k in range(len(rows)):
        total += W[rows[k], cols[k]]
    return total


def vander_shape(x):
    V = np.vander(x, 3)
    n, m = V.shape
    return n * 10 + m, V.T @ V


def eigh_spectrum(A):
    S = 0.5 * (A + A.T)
    w, v = np.linalg.eigh(S)
    return w


def ewma(prices, alpha):
    out = np.empty_like(prices)
    out[0] = prices[0]
    for i in range(1, prices.shape[0]):
        out[i] = alpha * prices[i] + (1.0 - alpha) * out[i - 1]
    return out


def max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    dd = (prices - peak) / peak
    return dd.min()


def log_returns_vol(p):
    r = np.diff(np.log(p))
    return r.mean(), r.std(ddof=1) * np.sqrt(252)


def rsi(prices, period):
    delta = np.diff(prices)
    gain = np.where(delta > 0, delta, 0.0)
    loss = np.where(delta < 0, -delta, 0.0)
    avg_gain = gain[:period].mean()
    avg_loss = loss[:period].mean()
    for i in range(period, len(delta)):
        avg_gain = (avg_gain * (period - 1) + gain[i]) / period
        avg_loss = (avg_loss * (period - 1) + loss[i]) / period
    rs = avg_gain / avg_loss if avg_loss != 0 else np.inf
    return 100.0 - 100.0 / (1.0 + rs)


def box_blur(img):
    h, w = img.shape
    out = np.zeros_like(img)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            s = 0.0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    s += img[i + di, j + dj]
            out[i, j] = s / 9.0
    return out


def sobel_magnitude(img):
    gx = img[1:-1, 2:] - img[1:-1, :-2]
    gy = img[2:, 1:-1] - img[:-2, 1:-1]
    return np.hypot(gx, gy)


def otsu_like_threshold(img, t):
    mask = img > t
    n_fg = np.count_nonzero(mask)
    fg_mean = img[mask].mean() if n_fg > 0 else 0.0
    bg_mean = img[~mask].mean() if n_fg < img.size else 0.0
    return n_fg, fg_mean, bg_mean


def life_step(grid):
    n, m = grid.shape
    new = np.zeros_like(grid)
    for i in range(n):
        for j in range(m):
            c = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if di == 0 and dj == 0:
                        continue
                    c += grid[(i + di) % n, (j + dj) % m]
            if grid[i, j] == 1 and (c == 2 or c == 3):
                new[i, j] = 1
            elif grid[i, j] == 0 and c == 3:
                new[i, j] = 1
    return new


def heat_1d(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def kmeans_assign(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    labels = np.argmin(d, axis=1)
    inertia = d[np.arange(X.shape[0]), labels].sum()
    return labels, inertia


def kmeans_update(X, labels, k):
    C = np.zeros((k, X.shape[1]))
    counts = np.zeros(k)
    for i in range(X.shape[0]):
        C[labels[i]] += X[i]
        counts[labels[i]] += 1
    for j in range(k):
        if counts[j] > 0:
            C[j] /= counts[j]
    return C


def softmax_rows(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    e = np.exp(Z)
    return e / e.sum(axis=1, keepdims=True)


def one_hot(labels, k):
    return np.eye(k)[labels]


def confusion(y_true, y_pred, k):
    cm = np.zeros((k, k), dtype=np.int64)
    for t, p in zip(y_true, y_pred):
        cm[t, p] += 1
    return cm


def group_sum_bincount(ids, w):
    return np.bincount(ids, weights=w, minlength=4)


def digitize_counts(x, edges):
    idx = np.searchsorted(edges, x, side="right")
    return np.bincount(idx, minlength=len(edges) + 1)


def histogram_density(x):
    h, edges = np.histogram(x, bins=5, range=(-2.0, 2.0), density=True)
    centers = 0.5 * (edges[1:] + edges[:-1])
    return h, centers


def ols_normal(X, y):
    Xb = np.hstack([np.ones((X.shape[0], 1)), X])
    beta = np.linalg.solve(Xb.T @ Xb, Xb.T @ y)
    resid = y - Xb @ beta
    return beta, (resid ** 2).sum()


def cov_corr(X):
    C = np.cov(X, rowvar=False)
    d = np.sqrt(np.diag(C))
    return C / np.outer(d, d)


def iqr_filter(x):
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    keep = (x >= q1 - 1.5 * iqr) & (x <= q3 + 1.5 * iqr)
    return x[keep].mean()


def nearest_neighbor(points):
    n = points.shape[0]
    nn = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        bi = -1
        for j in range(n):
            if i != j:
                d = 0.0
                for k in range(points.shape[1]):
                    t = points[i, k] - points[j, k]
                    d += t * t
                if d < best:
                    best = d
                    bi = j
        nn[i] = bi
    return nn


def trapezoid_cumulative(y, dx):
    out = np.zeros_like(y)
    for i in range(1, len(y)):
        out[i] = out[i - 1] + 0.5 * dx * (y[i] + y[i - 1])
    return out, np.trapezoid(y, dx=dx)


def rank_data(x):
    order = np.argsort(x)
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(x))
    return ranks


def standardize_columns(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - mu) / sd


def run_lengths(x):
    n = len(x)
    lengths = []
    values = []
    i = 0
    while i < n:
        j = i
        while j < n and x[j] == x[i]:
            j += 1
        values.append(x[i])
        lengths.append(j - i)
        i = j
    return np.array(values), np.array(lengths)


def _edges(r):
    e = np.sort(r.standard_normal(3))
    return e


CASES = [
    Case("mode_of", mode_of, lambda r: (r.integers(0, 4, _n(r, 9)),)),
    Case("group_means", group_means, lambda r: (r.integers(0, 3, 7), r.standard_normal(7))),
    Case("first_occurrence", first_occurrence, lambda r: (r.integers(0, 4, _n(r, 9)),)),
    Case("nonzero_pairs", nonzero_pairs, lambda r: (r.random((_n(r, 4), 3)) > 0.5,)),
    Case("nonzero_sum", nonzero_sum, lambda r: (r.random((4, 3)), r.standard_normal((4, 3)))),
    Case("vander_shape", vander_shape, lambda r: (r.standard_normal(_n(r, 5)),)),
    Case("eigh_spectrum", eigh_spectrum, lambda r: (r.standard_normal((3, 3)),), rtol=1e-7, atol=1e-9),
    Case("ewma", ewma, lambda r: (r.random(_n(r)) + 1.0, 0.3)),
    Case("max_drawdown", max_drawdown, lambda r: (np.cumprod(1 + 0.05 * r.standard_normal(_n(r, 10))),)),
    Case("log_returns_vol", log_returns_vol, lambda r: (np.cumprod(1 + 0.05 * r.standard_normal(_n(r, 10, 3))),)),
    Case("rsi", rsi, lambda r: (np.cumsum(r.standard_normal(12)) + 50, int(r.integers(2, 6)))),
    Case("box_blur", box_blur, lambda r: (r.random((_n(r, 6, 2), 5)),)),
    Case("sobel_magnitude", sobel_magnitude, lambda r: (r.random((_n(r, 6, 2), 5)),)),
    Case("otsu_like_threshold", otsu_like_threshold, lambda r: (r.random((4, 5)), float(r.choice([0.5, 2.0, -1.0])))),
    Case("life_step", life_step, lambda r: ((r.random((_n(r, 6, 3), 5)) < 0.4).astype(np.int64),)),
    Case("heat_1d", heat_1d, lambda r: (r.random(_n(r, 10, 3)), 0.2, int(r.integers(0, 5)))),
    Case("kmeans_assign", kmeans_assign, lambda r: (r.standard_normal((_n(r, 7), 2)), r.standard_normal((3, 2)))),
    Case("kmeans_update", kmeans_update, lambda r: (r.standard_normal((7, 2)), r.integers(0, 3, 7), 3)),
    Case("softmax_rows", softmax_rows, lambda r: (r.standard_normal((_n(r, 4), 3)),)),
    Case("one_hot", one_hot, lambda r: (r.integers(0, 4, _n(r, 6)), 4)),
    Case("confusion", confusion, lambda r: (r.integers(0, 3, 9), r.integers(0, 3, 9), 3)),
    Case("group_sum_bincount", group_sum_bincount, lambda r: (r.integers(0, 3, _n(r)), r.standard_normal(_n(r)))),
    Case("digitize_counts", digitize_counts, lambda r: (r.standard_normal(_n(r, 10)), _edges(r))),
    Case("histogram_density", histogram_density, lambda r: (r.standard_normal(_n(r, 20, 2)),)),
    Case("ols_normal", ols_normal, lambda r: (r.standard_normal((8, 2)), r.standard_normal(8)), rtol=1e-7, atol=1e-9),
    Case("cov_corr", cov_corr, lambda r: (r.standard_normal((_n(r, 6, 3), 3)),), rtol=1e-7, atol=1e-9),
    Case("iqr_filter", iqr_filter, lambda r: (r.standard_normal(_n(r, 12, 2)),)),
    Case("nearest_neighbor", nearest_neighbor, lambda r: (r.standard_normal((_n(r, 6, 2), 2)),)),
    Case("trapezoid_cumulative", trapezoid_cumulative, lambda r: (r.standard_normal(_n(r)), 0.1)),
    Case("rank_data", rank_data, lambda r: (r.standard_normal(_n(r)),)),
    Case("standardize_columns", standardize_columns, lambda r: (np.column_stack([r.standard_normal(5), np.ones(5)]),)),
    Case("run_lengths", run_lengths, lambda r: (r.integers(0, 2, _n(r, 9)),)),
]
