"""fe34's batch: np.broadcast_to, np.ascontiguousarray / np.asfortranarray, np.nanargmax /
np.nanargmin, np.vander, np.lexsort and ``(expr).dtype`` in dtype positions, written as
third-party code writes them (feature scaling, least-squares fits, sorting records, NaN-aware
picks); then the data-dependent shapes (np.where(c) / np.nonzero / np.flatnonzero as an index
array, boolean selections, np.unique, np.histogram2d)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=7, edge=1):
    return big if rng.integers(0, 3) else edge


def _two(rng, first, second, big=7, edge=2):
    n = _n(rng, big, edge)
    return first(n), second(n)


def _with_nans(rng, n, every=False):
    x = rng.standard_normal(n)
    if every:
        x[:] = np.nan
    else:
        x[rng.random(n) < 0.3] = np.nan
    return x


# ---- np.broadcast_to -------------------------------------------------------------------------
def center_rows(X):
    mu = X.mean(axis=0)
    M = np.broadcast_to(mu, X.shape)
    return X - M


def bias_table(b, n):
    B = np.broadcast_to(b, (n, b.shape[0]))
    return B * 2.0 + 1.0


def column_scale(X, s):
    S = np.broadcast_to(s[:, None], X.shape)
    return (X * S).sum(axis=1)


def broadcast_sum(x):
    return np.broadcast_to(x, (3, x.shape[0])).sum(axis=0)


def broadcast_then_write_source(x):
    b = np.broadcast_to(x, (2, x.shape[0]))
    x[0] = 100.0
    return b.sum()


def broadcast_int(a):
    return np.broadcast_to(a, (4, a.shape[0])) + np.arange(4)[:, None]


def broadcast_write(x):
    b = np.broadcast_to(x, (2, x.shape[0]))
    b[0, 0] = 1.0
    return b


# ---- np.ascontiguousarray / np.asfortranarray ------------------------------------------------
def contiguous_norms(X):
    Y = np.ascontiguousarray(X)
    return np.sqrt((Y * Y).sum(axis=1))


def contiguous_cast(a):
    x = np.ascontiguousarray(a, dtype=np.float64)
    x[0] = -1.0
    return x * 0.5


def fortran_gram(A):
    F = np.asfortranarray(A)
    return F.T @ F


def contiguous_transpose(A):
    return np.ascontiguousarray(A.T) + 1.0


def contiguous_written(x):
    y = np.ascontiguousarray(x)
    y[0] = 0.0
    return y


# ---- np.nanargmax / np.nanargmin -------------------------------------------------------------
def nan_peak(x):
    return np.nanargmax(x), np.nanargmin(x)


def nan_peak_rows(X):
    return np.nanargmax(X, axis=1), np.nanargmin(X, axis=0)


def nan_peak_all_nan(x):
    return np.nanargmax(x)


def nan_peak_int(a):
    return np.nanargmax(a), np.nanargmin(a)


def nan_best_value(x):
    k = np.nanargmax(x)
    return x[k], k


def nan_peak_f32(x):
    return np.nanargmin(x.astype(np.float32) * 2)


# ---- np.vander -------------------------------------------------------------------------------
def vander_fit(x, y):
    V = np.vander(x, 3)
    return V.T @ V, V.T @ y


def vander_increasing(x):
    return np.vander(x, 4, increasing=True)


def vander_square(x):
    return np.vander(x)


def vander_int(a):
    return np.vander(a, 3)


def vander_eval(c, x):
    return np.vander(x, c.shape[0]) @ c


def vander_f32(x):
    return np.vander(x, 3, increasing=False)


def vander_n_arg(x, n):
    return np.vander(x, n, increasing=True).sum(axis=0)


# ---- np.lexsort ------------------------------------------------------------------------------
def sort_records(last, first):
    return np.lexsort((first, last))


def sort_three_keys(a, b, c):
    order = np.lexsort([a, b, c])
    return a[order], order


def lexsort_ints(a, b):
    order = np.lexsort((b, a))
    return b[order] * 10 + a[order]


# ---- (expr).dtype ----------------------------------------------------------------------------
def zeros_like_dtype(x, a):
    out = np.zeros(x.shape[0], dtype=(x * a).dtype)
    out[:] = x * a
    return out


def astype_of_expr(x, a):
    return (a * 2).astype((x + a).dtype)


def full_of_dtype(x):
    return np.full(x.shape[0], 3, dtype=x.dtype)


def empty_like_dtype(x, a):
    y = np.empty_like(a, dtype=x.dtype)
    y[:] = a
    return y


def element_dtype(x):
    s = np.zeros(2, dtype=x[0].dtype)
    s[0] = x.sum()
    s[1] = x.max()
    return s


def arange_dtype(x):
    return np.arange(x.shape[0], dtype=x.dtype) * x


def array_of_dtype(x):
    return np.array([1, 2], dtype=x.dtype)


# ---- data-dependent shapes -------------------------------------------------------------------
def where_index(x):
    idx = np.where(x > 0)[0]
    return x[idx] * 2


def nonzero_index_sum(x, w):
    idx = np.nonzero(w)[0]
    return x[idx].sum()


def flatnonzero_first(x):
    idx = np.flatnonzero(x > 0.5)
    if idx.shape[0] == 0:
        return -1
    return idx[0]


def mask_select(x):
    y = x[x > 0]
    return y.sum(), len(y)


def unique_sorted(a):
    return np.unique(a)


def unique_counts_loop(a):
    u = np.unique(a)
    c = np.zeros(len(u))
    for k in range(len(u)):
        c[k] = (a == u[k]).sum()
    return c


def hist2d(x, y):
    H, xe, ye = np.histogram2d(x, y, bins=3)
    return H


CASES = [
    Case("center_rows", center_rows, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("bias_table", bias_table, lambda r: (r.standard_normal(_n(r, 4)), 3)),
    Case("column_scale", column_scale, lambda r: _two(r, lambda n: r.standard_normal((n, 3)), r.standard_normal)),
    Case("broadcast_sum", broadcast_sum, lambda r: (r.standard_normal(_n(r)),)),
    Case("broadcast_then_write_source", broadcast_then_write_source, lambda r: (r.standard_normal(_n(r, 5)),)),
    Case("broadcast_int", broadcast_int, lambda r: (r.integers(-5, 5, _n(r)),)),
    Case("broadcast_write", broadcast_write, lambda r: (r.standard_normal(4),)),
    Case("contiguous_norms", contiguous_norms, lambda r: (r.standard_normal((_n(r), 4)),)),
    Case("contiguous_cast", contiguous_cast, lambda r: (r.integers(-5, 5, _n(r, 6, 2)),)),
    Case("fortran_gram", fortran_gram, lambda r: (r.standard_normal((_n(r, 5, 2), 3)),)),
    Case("contiguous_transpose", contiguous_transpose, lambda r: (r.standard_normal((3, _n(r))),)),
    Case("contiguous_written", contiguous_written, lambda r: (r.standard_normal(4),)),
    Case("nan_peak", nan_peak, lambda r: (_with_nans(r, _n(r, 8, 2)),)),
    Case("nan_peak_rows", nan_peak_rows, lambda r: (r.standard_normal((4, 5)),)),
    Case("nan_peak_all_nan", nan_peak_all_nan, lambda r: (_with_nans(r, 4, every=bool(r.integers(0, 2))),)),
    Case("nan_peak_int", nan_peak_int, lambda r: (r.integers(-9, 9, _n(r)).astype(np.int16),)),
    Case("nan_best_value", nan_best_value, lambda r: (_with_nans(r, 6),)),
    Case("nan_peak_f32", nan_peak_f32, lambda r: (_with_nans(r, _n(r, 6, 3)),)),
    Case("vander_fit", vander_fit, lambda r: _two(r, r.standard_normal, r.standard_normal)),
    Case("vander_increasing", vander_increasing, lambda r: (r.standard_normal(_n(r)),)),
    Case("vander_square", vander_square, lambda r: (r.standard_normal(_n(r, 5)),)),
    Case("vander_int", vander_int, lambda r: (r.integers(-4, 5, _n(r)).astype(np.int8),)),
    Case("vander_eval", vander_eval, lambda r: (r.standard_normal(3), r.standard_normal(_n(r)))),
    Case("vander_f32", vander_f32, lambda r: (r.standard_normal(_n(r)).astype(np.float32),)),
    Case("vander_n_arg", vander_n_arg, lambda r: (r.standard_normal(_n(r, 5)), int(r.integers(0, 5)))),
    Case("sort_records", sort_records, lambda r: _two(r, lambda n: r.integers(0, 3, n) * 1.0,
                                                      lambda n: np.where(r.random(n) < 0.2, np.nan, r.integers(0, 3, n) * 1.0))),
    Case("sort_three_keys", sort_three_keys, lambda r: (r.integers(0, 3, 8), r.integers(0, 2, 8), r.integers(0, 2, 8))),
    Case("lexsort_ints", lexsort_ints, lambda r: _two(r, lambda n: r.integers(0, 3, n), lambda n: r.integers(0, 3, n))),
    Case("zeros_like_dtype", zeros_like_dtype, lambda r: _two(r, lambda n: r.standard_normal(n).astype(np.float32),
                                                              lambda n: r.integers(0, 5, n).astype(np.int16))),
    Case("astype_of_expr", astype_of_expr, lambda r: _two(r, lambda n: r.standard_normal(n).astype(np.float32),
                                                          lambda n: r.integers(0, 5, n))),
    Case("full_of_dtype", full_of_dtype, lambda r: (r.integers(0, 5, _n(r)).astype(np.uint8),)),
    Case("empty_like_dtype", empty_like_dtype, lambda r: (r.standard_normal(3).astype(np.float32), r.integers(0, 5, _n(r)))),
    Case("element_dtype", element_dtype, lambda r: (r.standard_normal(_n(r)).astype(np.float32),), rtol=1e-6),  # float32 sum: order
    Case("arange_dtype", arange_dtype, lambda r: (r.standard_normal(_n(r)).astype(np.float32),)),
    Case("array_of_dtype", array_of_dtype, lambda r: (r.integers(0, 5, 3).astype(np.int32),)),
    Case("where_index", where_index, lambda r: (r.standard_normal(_n(r)),)),
    Case("nonzero_index_sum", nonzero_index_sum, lambda r: (r.standard_normal(6), r.integers(0, 2, 6))),
    Case("flatnonzero_first", flatnonzero_first, lambda r: (r.random(_n(r)),)),
    Case("mask_select", mask_select, lambda r: (r.standard_normal(_n(r)),)),
    Case("unique_sorted", unique_sorted, lambda r: (r.integers(0, 4, _n(r)),)),
    Case("unique_counts_loop", unique_counts_loop, lambda r: (r.integers(0, 4, _n(r, 9)),)),
    Case("hist2d", hist2d, lambda r: _two(r, r.standard_normal, r.standard_normal)),
]
