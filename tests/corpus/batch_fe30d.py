"""fe30's batch, part 4: NumPy-style array code (broadcasting, masks, rolls, pads, sorts,
einsum, outer products, histograms)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=1):
    return big if rng.integers(0, 3) else edge


def pairwise_dist(X):
    d = X[:, None, :] - X[None, :, :]
    return np.sqrt((d ** 2).sum(axis=-1))


def rank_transform(x):
    order = np.argsort(x, kind="stable")
    ranks = np.empty_like(order)
    ranks[order] = np.arange(x.shape[0])
    return ranks


def periodic_laplacian(u):
    return np.roll(u, 1) + np.roll(u, -1) - 2 * u


def padded_diff(u):
    p = np.pad(u, 1, mode="edge")
    return p[2:] - p[:-2]


def grid_gaussian(n, s):
    x = np.linspace(-1, 1, n)
    X, Y = np.meshgrid(x, x)
    return np.exp(-(X ** 2 + Y ** 2) / (2 * s * s))


def clip_outliers(x, k):
    mu = x.mean()
    sd = x.std()
    y = x.copy()
    y[y > mu + k * sd] = mu + k * sd
    y[y < mu - k * sd] = mu - k * sd
    return y


def outer_update(W, a, b, lr):
    W += lr * np.outer(a, b)
    return W


def einsum_bilinear(x, A, y):
    return np.einsum("i,ij,j->", x, A, y)


def upper_sum(A):
    return np.triu(A, 1).sum()


def percentile_band(x):
    lo, hi = np.percentile(x, [10, 90])
    return x[(x >= lo) & (x <= hi)].mean()


def smooth_convolve(x):
    k = np.ones(3) / 3.0
    return np.convolve(x, k, mode="same")


def cumulative_returns(p):
    r = np.diff(p) / p[:-1]
    return np.cumprod(1 + r) - 1


def masked_assign_where(x, t):
    return np.where(x > t, np.sqrt(np.abs(x)), np.where(x < -t, -1.0, 0.0))


def row_normalize(A):
    s = np.linalg.norm(A, axis=1, keepdims=True)
    s[s == 0] = 1.0
    return A / s


CASES = [
    Case("pairwise_dist", pairwise_dist, lambda r: (r.standard_normal((_n(r, 5), 3)),)),
    Case("rank_transform", rank_transform, lambda r: (r.standard_normal(_n(r)),)),
    Case("periodic_laplacian", periodic_laplacian, lambda r: (r.standard_normal(_n(r)),)),
    Case("padded_diff", padded_diff, lambda r: (r.standard_normal(_n(r)),)),
    Case("grid_gaussian", grid_gaussian, lambda r: (int(r.choice([1, 5])), 0.5)),
    Case("clip_outliers", clip_outliers, lambda r: (r.standard_normal(_n(r, 20)) * 3, 1.5)),
    Case("outer_update", outer_update, lambda r: (r.standard_normal((3, 4)), r.standard_normal(3), r.standard_normal(4), 0.1)),
    Case("einsum_bilinear", einsum_bilinear, lambda r: (r.standard_normal(3), r.standard_normal((3, 4)), r.standard_normal(4))),
    Case("upper_sum", upper_sum, lambda r: (r.standard_normal((_n(r, 4), 4)),)),
    Case("percentile_band", percentile_band, lambda r: (r.standard_normal(_n(r, 20, 3)),)),
    Case("smooth_convolve", smooth_convolve, lambda r: (r.standard_normal(_n(r, 9, 3)),)),
    Case("cumulative_returns", cumulative_returns, lambda r: (r.uniform(1, 2, _n(r, 8, 2)),)),
    Case("masked_assign_where", masked_assign_where, lambda r: (r.standard_normal(_n(r)), 0.5)),
    Case("row_normalize", row_normalize, lambda r: (np.vstack([r.standard_normal((3, 4)), np.zeros((1, 4))]),)),
]
