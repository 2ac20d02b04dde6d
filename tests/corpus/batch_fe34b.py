"""fe34's batch, part 2: values whose shape depends on the data, as third-party code uses them:
positions from np.where(c) / np.nonzero / np.flatnonzero as index arrays, boolean selections,
np.unique, np.histogram2d."""

import numpy as np
from corpus_case import Case


def _n(rng, big=7, edge=1):
    return big if rng.integers(0, 3) else edge


def _two(rng, first, second, big=7, edge=2):
    n = _n(rng, big, edge)
    return first(n), second(n)


def above_mean(x):
    idx = np.where(x > x.mean())[0]
    return x[idx].mean() if len(idx) else 0.0


def zero_flagged(y, flags):
    idx = np.nonzero(flags)[0]
    y[idx] = 0.0
    return y


def fill_nans(x):
    idx = np.flatnonzero(np.isnan(x))
    x[idx] = 0.0
    return x


def class_centroid(X, labels):
    idx = np.where(labels == 1)[0]
    return X[idx].sum(axis=0)


def positions_and_values(x):
    idx = np.where(x > 0.2)[0]
    return idx, x[idx]


def weighted_positive(x, w):
    idx = np.where(x > 0)[0]
    b = w[idx]
    return b.sum() * 2.0


def loop_over_positions(x):
    idx = np.nonzero(x > 0.5)[0]
    s = 0.0
    for i in idx:
        s += x[i] * i
    return s


def repeated_reads(x):
    idx = np.where(x < 0)[0]
    s = 0.0
    for k in range(3):
        s += x[idx].sum() * k
    return s


def bump_selected(x, c):
    idx = c.nonzero()[0]
    x[idx] += 1.5
    return x


def mask_then_write_source(x):
    idx = np.where(x > 0)[0]
    x[0] = 10.0
    return x[idx]


def selected_stats(x):
    p = x[x > 0]
    if len(p) == 0:
        return 0.0, 0.0
    return p.mean(), p.max()


def selected_loop(x):
    p = x[np.abs(x) > 0.5]
    t = 0.0
    for v in p:
        t += v * v
    return t


def selection_returned(x, w):
    m = (x > 0) & (w > 0)
    return x[m] * w[m]


def rows_selected(X):
    keep = X[:, 0] > 0
    return X[keep]


def unique_values(a):
    return np.unique(a)


def unique_loop(a, x):
    t = 0.0
    for v in np.unique(a):
        t += x[a == v].mean()
    return t


def unique_first_last(a):
    u = np.unique(a)
    return u[0], u[-1], len(u)


def unique_counts_kw(a):
    vals, counts = np.unique(a, return_counts=True)
    return vals, counts


def unique_counts_nan(x):
    vals, counts = np.unique(x, return_counts=True)
    return counts, vals.shape[0]


def mode_of(a):
    vals, counts = np.unique(a, return_counts=True)
    return vals[np.argmax(counts)]


def unique_and_length(a):
    u = np.unique(a)
    return u, len(u)


def unique_means(a, x):
    u = np.unique(a)
    m = np.zeros(len(u))
    for k in range(len(u)):
        m[k] = x[a == u[k]].mean()
    return u, m


def hist2d_counts(x, y):
    H, xe, ye = np.histogram2d(x, y, bins=3)
    return H, xe, ye


def hist2d_range(x, y, k):
    H, xe, ye = np.histogram2d(x, y, bins=k, range=[[-1.0, 1.0], [-0.5, 2.0]])
    return H / (H.sum() + 1.0), xe


def hist2d_index(x, y):
    return np.histogram2d(x, y, bins=4)[0].sum(axis=0)


def nonzero_2d(M):
    r, c = np.nonzero(M > 0)
    return r + c


def where_rows_2d(M):
    idx = np.where(M[:, 0] > 0)[0]
    return M[idx, 1]


CASES = [
    Case("above_mean", above_mean, lambda r: (r.standard_normal(_n(r)),)),
    Case("zero_flagged", zero_flagged, lambda r: _two(r, r.standard_normal, lambda n: r.integers(0, 2, n))),
    Case("fill_nans", fill_nans, lambda r: (np.where(r.random(_n(r)) < 0.3, np.nan, 1.0),)),
    Case("class_centroid", class_centroid, lambda r: _two(r, lambda n: r.standard_normal((n, 3)), lambda n: r.integers(0, 2, n))),
    Case("positions_and_values", positions_and_values, lambda r: (r.random(_n(r)),)),
    Case("weighted_positive", weighted_positive, lambda r: _two(r, r.standard_normal, r.standard_normal)),
    Case("loop_over_positions", loop_over_positions, lambda r: (r.random(_n(r)),)),
    Case("repeated_reads", repeated_reads, lambda r: (r.standard_normal(_n(r)),)),
    Case("bump_selected", bump_selected, lambda r: _two(r, r.standard_normal, lambda n: r.random(n) > 0.5)),
    Case("mask_then_write_source", mask_then_write_source, lambda r: (r.standard_normal(_n(r, 6, 2)),)),
    Case("selected_stats", selected_stats, lambda r: (r.standard_normal(_n(r)),)),
    Case("selected_loop", selected_loop, lambda r: (r.standard_normal(_n(r)),)),
    Case("selection_returned", selection_returned, lambda r: _two(r, r.standard_normal, r.standard_normal)),
    Case("rows_selected", rows_selected, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("unique_values", unique_values, lambda r: (r.integers(0, 4, _n(r)),)),
    Case("unique_loop", unique_loop, lambda r: _two(r, lambda n: r.integers(0, 3, n), r.standard_normal)),
    Case("unique_first_last", unique_first_last, lambda r: (r.integers(0, 5, _n(r)),)),
    Case("unique_counts_kw", unique_counts_kw, lambda r: (r.integers(0, 4, _n(r)),)),
    Case("unique_counts_nan", unique_counts_nan, lambda r: ((lambda n: np.where(r.random(n) < 0.3, np.nan, r.integers(0, 3, n) * 1.0))(_n(r, 8)),)),
    Case("mode_of", mode_of, lambda r: (r.integers(0, 4, _n(r, 9)),)),
    Case("unique_and_length", unique_and_length, lambda r: (r.integers(0, 4, _n(r)) * 0.5,)),
    Case("unique_means", unique_means, lambda r: _two(r, lambda n: r.integers(0, 3, n), r.standard_normal)),
    Case("hist2d_counts", hist2d_counts, lambda r: _two(r, r.standard_normal, r.standard_normal)),
    Case("hist2d_range", hist2d_range, lambda r: (*_two(r, r.standard_normal, lambda n: np.where(r.random(n) < 0.2, np.nan, r.standard_normal(n))), int(r.integers(1, 5)))),
    Case("hist2d_index", hist2d_index, lambda r: _two(r, r.standard_normal, r.standard_normal)),
    Case("nonzero_2d", nonzero_2d, lambda r: (r.standard_normal((3, 4)),)),
    Case("where_rows_2d", where_rows_2d, lambda r: (r.standard_normal((_n(r), 3)),)),
]
