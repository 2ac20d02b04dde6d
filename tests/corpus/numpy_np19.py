"""NumPy programs in the style of public data-science, signal and image code that use the calls
session 18's np19 added (x[:-w] by an argument, builtin sum of a matrix, np.nan* reductions,
np.trapezoid, np.gradient, np.pad, np.fill_diagonal, nested np.array tables, ufunc out=,
np.interp, np.searchsorted, np.rot90/swapaxes, np.count_nonzero(axis=)). Written for this
corpus, not copied."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def moving_average(x, w):
    c = np.cumsum(x)
    out = c[w - 1:].copy()
    out[1:] -= c[:-w]
    return out / w


def lagged_correlation(x, lag):
    a = x[:-lag] - x[:-lag].mean()
    b = x[lag:] - x[lag:].mean()
    return (a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum())


def column_totals(scores):
    totals = sum(scores)
    return totals / scores.shape[0]


def nan_robust_zscore(X):
    mu = np.nanmean(X, axis=0)
    spread = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    Z = (X - mu) / spread
    return np.where(np.isnan(Z), 0.0, Z), np.nansum(X, axis=1)


def area_and_slope(t, y):
    return np.trapezoid(y, t), np.gradient(y, t[1] - t[0])


def padded_sobel(img):
    p = np.pad(img, 1, mode="edge")
    k = np.array([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]])
    gx = np.zeros_like(img)
    for i in range(3):
        for j in range(3):
            gx += k[i, j] * p[i:i + img.shape[0], j:j + img.shape[1]]
    return gx


def zero_border_laplacian(u):
    p = np.pad(u, 1)
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u


def nearest_neighbour_distance(X):
    sq = (X * X).sum(axis=1)
    D = sq[:, None] + sq[None, :] - 2 * X @ X.T
    np.fill_diagonal(D, np.inf)
    return np.sqrt(np.maximum(D.min(axis=1), 0))


def clipped_update(w, g, lr):
    np.multiply(g, -lr, out=g)
    np.add(w, g, out=w)
    np.clip(w, -1.0, 1.0, out=w)
    return w


def resample(t, y, t_new):
    return np.interp(t_new, t, y)


def lookup_bins(edges, x):
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.shape[0] - 2)
    counts = np.zeros(edges.shape[0] - 1, dtype=np.int64)
    for i in range(x.shape[0]):
        counts[idx[i]] += 1
    return counts


def rotate_tiles(img):
    return np.rot90(img) + np.swapaxes(img, 0, 1), np.count_nonzero(img > 0.5, axis=0)


CASES = [
    Case("moving_average", moving_average, lambda r: (r.random(30), 4)),
    Case("lagged_correlation", lagged_correlation, lambda r: (r.random(40), 3)),
    Case("column_totals", column_totals, lambda r: (r.random((6, 4)),)),
    Case("nan_robust_zscore", nan_robust_zscore,
         lambda r: (np.where(r.random((8, 3)) < 0.2, np.nan, r.standard_normal((8, 3))),)),
    Case("area_and_slope", area_and_slope, lambda r: (np.linspace(0.0, 2.0, 21), r.random(21))),
    Case("padded_sobel", padded_sobel, lambda r: (r.random((7, 9)),)),
    Case("zero_border_laplacian", zero_border_laplacian, lambda r: (r.random((6, 5)),)),
    Case("nearest_neighbour_distance", nearest_neighbour_distance, lambda r: (r.random((7, 3)),), rtol=1e-7),
    Case("clipped_update", clipped_update, lambda r: (r.standard_normal(12), r.standard_normal(12), 0.3)),
    Case("resample", resample, lambda r: (np.linspace(0, 1, 9), r.random(9), r.random(15) * 1.2 - 0.1)),
    Case("lookup_bins", lookup_bins, lambda r: (np.linspace(0, 1, 6), r.random(25) * 1.1)),
    Case("rotate_tiles", rotate_tiles, lambda r: (r.random((5, 5)),)),
]
