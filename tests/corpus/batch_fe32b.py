"""fe32's batch, part 2: the idioms of older numba / NumPy code (builtins over arrays, positional
axes, ``reversed(range())``, ``raise``, ``np.select``, ``np.add.at``, ``np.nonzero`` tuples,
``np.percentile`` with a list, stacking, ``np.newaxis``/``...``, ufuncs with ``out=``, inner
``def``s)."""

import math

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=1):
    return big if rng.integers(0, 3) else edge


def reversed_suffix_max(x):
    out = np.empty_like(x)
    m = -np.inf
    for i in reversed(range(x.shape[0])):
        m = max(m, x[i])
        out[i] = m
    return out


def builtin_sum_max(x):
    return sum(x), max(x), min(x)


def raise_on_bad(x, k):
    if k <= 0:
        raise ValueError("k must be positive")
    return x[:k].sum()


def select_bands(x):
    return np.select([x < -1, x > 1], [-x, x * 2], default=0.0)


def add_at_hist(idx, w, k):
    h = np.zeros(k)
    np.add.at(h, idx, w)
    return h


def nonzero_tuple(M):
    rows, cols = np.nonzero(M > 0.5)
    return rows * 10 + cols


def where_one_arg(x):
    return np.where(x > 0)[0]


def percentile_list(x):
    q1, q3 = np.percentile(x, [25, 75])
    return q3 - q1


def stack_cols(a, b):
    return np.stack([a, b], axis=1), np.column_stack((a, b)), np.vstack((a, b)), np.hstack((a, b))


def newaxis_ellipsis(X, v):
    return X[..., np.newaxis] * v[np.newaxis, np.newaxis, :]


def ufunc_out(x, y):
    out = np.empty_like(x)
    np.add(x, y, out=out)
    np.sqrt(np.abs(out), out=out)
    return out


def inner_def(x, s):
    def scale(v):
        return v * s + 1.0

    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = scale(x[i])
    return out


def chained_assign(n):
    a = np.empty(n)
    b = np.empty(n)
    for i in range(n):
        a[i] = b[i] = i * 0.5
    return a + b


def positional_axes(X):
    return X.mean(0) + X.sum(1)[:X.shape[1]] if X.shape[0] >= X.shape[1] else X.mean(0)


def triu_tril(A):
    return np.triu(A, 1) - np.tril(A, -1)


def unary_zoo(x):
    return np.log1p(np.abs(x)) + np.expm1(x * 0.1) + np.deg2rad(x) + np.sign(x) * np.cbrt(x)


def fmod_remainder(a, b):
    return np.fmod(a, b), np.remainder(a, b), np.floor_divide(a, b)


def minimum_reduce(X):
    return np.minimum.reduce(X, axis=0), np.add.reduce(X, axis=1)


def argsort_desc_k(x, k):
    return x.argsort()[::-1][:k]


def clip_min_only(x):
    return x.clip(0), x.round(1)


def method_dot(a, b):
    return a.dot(b)


def fill_method(n):
    a = np.empty((n, 3))
    a.fill(2.5)
    a[...] += 1
    return a


def swap_moveaxis(T):
    return np.swapaxes(T, 0, 2).copy(), np.moveaxis(T, 0, -1).sum(axis=-1)


def flatten_squeeze(X):
    return X.flatten(), np.squeeze(X[:, :1]), np.expand_dims(X[0], 0)


def broadcast_to_sum(v, n):
    return np.broadcast_to(v, (n, v.shape[0])).sum(axis=0)


def digitize_counts(x, edges):
    b = np.digitize(x, edges)
    out = np.zeros(edges.shape[0] + 1, dtype=np.int64)
    for i in range(b.shape[0]):
        out[b[i]] += 1
    return out


def isin_filter(x, allowed):
    return x[np.isin(x, allowed)]


def math_in_loop(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        v = x[i]
        if math.isnan(v) or not math.isfinite(v):
            out[i] = -1.0
        else:
            out[i] = math.floor(v) + math.exp(-abs(v))
    return out


def int_floor_cast(x):
    return np.floor(x).astype(int), np.ceil(x).astype(np.int32), np.trunc(x)


def builtin_round_divmod(x):
    out = np.empty((x.shape[0], 3))
    for i in range(x.shape[0]):
        q, r = divmod(x[i], 3.0)
        out[i, 0] = q
        out[i, 1] = r
        out[i, 2] = round(x[i])
    return out


def min3(a, b, c):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = min(a[i], b[i], c[i])
    return out


def finfo_iinfo(x):
    eps = np.finfo(np.float64).eps
    big = np.iinfo(np.int32).max
    return np.maximum(x, eps), big - x.astype(np.int32)


def while_true_break(x, t):
    i = 0
    while True:
        if i >= x.shape[0] or x[i] > t:
            break
        i += 1
    return i


def for_rows_iter(X):
    tot = np.zeros(X.shape[1])
    for row in X:
        tot += row * row
    return tot


def zip_loop(a, b):
    s = 0.0
    for u, v in zip(a, b):
        s += u * v
    return s


def masked_mean_or(x):
    pos = x[x > 0]
    return pos.mean() if pos.size > 0 else 0.0


def reverse_cumsum(x):
    return np.cumsum(x[::-1])[::-1]


def logical_ops(a, b):
    m = np.logical_and(a > 0, ~(b > 0))
    return np.logical_not(m).sum(), np.logical_or(a > 1, b > 1), np.logical_xor(a > 0, b > 0)


def int_pow_ops(a):
    return a ** 3, 2 ** (a % 5), (a % 2 == 0).sum()


def nan_funcs(x):
    return np.nansum(x), np.nanmean(x, axis=0), np.nanmax(x, axis=1), np.nanmin(x)


def isnan_any(x):
    return np.isnan(x).any(), np.isinf(x).sum(), np.isfinite(x).all(axis=0)


def eye_solve(A, b):
    M = A @ A.T + np.eye(A.shape[0])
    return np.linalg.solve(M, b), np.linalg.det(M)


def lstsq_fit(x, y):
    X = np.column_stack((np.ones_like(x), x))
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    return coef


def cov_np(X):
    return np.cov(X.T), np.cov(X[:, 0], X[:, 1])


def unravel_argmax(X):
    k = np.argmax(X)
    i, j = np.unravel_index(k, X.shape)
    return i, j


def diff_n2_axis0(X):
    return np.diff(X, n=2, axis=0), np.diff(X[0], 2)


def unique_counts(x):
    vals, counts = np.unique(x, return_counts=True)
    return vals, counts


def lexsort_keys(a, b):
    return np.lexsort((b, a))


def meshgrid_ij(n, m):
    I, J = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    return I * m + J


def list_fancy_cols(X):
    return X[:, [0, 2]], X[[1, 0], :]


def searchsorted_left_right(a, v):
    return np.searchsorted(a, v, side="left"), np.searchsorted(a, v, side="right")


def histogram_edges(x, edges):
    c, _ = np.histogram(x, bins=edges)
    return c


def histogram2d_counts(x, y):
    H, xe, ye = np.histogram2d(x, y, bins=4, range=[[0, 1], [0, 1]])
    return H


def array_of_scalars(x):
    return np.array([x.sum(), x.max(), x.min()])


def empty_pos_dtype(n):
    a = np.empty((n,), np.float32)
    for i in range(n):
        a[i] = i / 3
    return a


def zeros_shape_arg(X):
    Z = np.zeros(X.shape)
    Z[::2] = X[::2]
    return Z


def sqrt_pow_norm(x):
    return (x ** 2).sum() ** 0.5, np.exp(-x ** 2)


def astype_bool(x):
    return x.astype(bool), x.astype(np.bool_).sum()


def cumsum_neg_axis(X):
    return np.cumsum(X, axis=-1), np.cumprod(X, axis=-2)


def ediff_prepend(x):
    return np.ediff1d(x), np.diff(x, prepend=0.0), np.diff(x, append=x[-1])


def outer_ufunc_mult(a, b):
    return np.multiply.outer(a, b), np.subtract.outer(a, b).max()


def ascontig_copy(X):
    Y = np.ascontiguousarray(X.T)
    Y[0, 0] = 99.0
    return Y, X


def int_index_float_math(x, idx):
    return x[idx].sum() / idx.shape[0]


def arange_mask_tri(n):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return (i >= j).astype(np.float64) * (i - j)


def var_ddof(x):
    return np.var(x, ddof=1), np.std(x, ddof=1), x.var()


def where_xy_index(x):
    idx = np.where(x > 0.0)[0]
    return x[idx].sum() if idx.size else 0.0


def abs_int_max(a):
    best = 0
    for i in range(a.shape[0]):
        v = abs(a[i])
        if v > best:
            best = v
    return best


def neg_float_index(x):
    return x[-1] - x[-2] + x[len(x) // 2]


def quantile_scalar(x):
    return np.quantile(x, 0.9), np.median(x)


CASES = [
    Case("reversed_suffix_max", reversed_suffix_max, lambda r: (r.standard_normal(_n(r)),)),
    Case("builtin_sum_max", builtin_sum_max, lambda r: (r.standard_normal(_n(r)),)),
    Case("raise_on_bad", raise_on_bad, lambda r: (r.standard_normal(6), int(r.choice([-1, 0, 3])))),
    Case("select_bands", select_bands, lambda r: (r.standard_normal(9) * 2,)),
    Case("add_at_hist", add_at_hist, lambda r: (r.integers(0, 4, 10), r.random(10), 4)),
    Case("nonzero_tuple", nonzero_tuple, lambda r: (r.random((4, 5)),)),
    Case("where_one_arg", where_one_arg, lambda r: (r.standard_normal(_n(r)),)),
    Case("percentile_list", percentile_list, lambda r: (r.standard_normal(11),)),
    Case("stack_cols", stack_cols, lambda r: (r.standard_normal(4), r.standard_normal(4))),
    Case("newaxis_ellipsis", newaxis_ellipsis, lambda r: (r.standard_normal((3, 4)), r.standard_normal(2))),
    Case("ufunc_out", ufunc_out, lambda r: (r.standard_normal(7), r.standard_normal(7))),
    Case("inner_def", inner_def, lambda r: (r.standard_normal(7), 2.0)),
    Case("chained_assign", chained_assign, lambda r: (int(r.integers(0, 6)),)),
    Case("positional_axes", positional_axes, lambda r: (r.standard_normal((5, 3)),)),
    Case("triu_tril", triu_tril, lambda r: (r.standard_normal((4, 4)),)),
    Case("unary_zoo", unary_zoo, lambda r: (r.standard_normal(9),)),
    Case("fmod_remainder", fmod_remainder, lambda r: (r.integers(-9, 9, 8), r.integers(1, 4, 8) * r.choice([-1, 1]))),
    Case("minimum_reduce", minimum_reduce, lambda r: (r.standard_normal((4, 5)),)),
    Case("argsort_desc_k", argsort_desc_k, lambda r: (r.standard_normal(9), 3)),
    Case("clip_min_only", clip_min_only, lambda r: (r.standard_normal(9),)),
    Case("method_dot", method_dot, lambda r: (r.standard_normal((3, 4)), r.standard_normal(4))),
    Case("fill_method", fill_method, lambda r: (int(r.integers(0, 5)),)),
    Case("swap_moveaxis", swap_moveaxis, lambda r: (r.standard_normal((2, 3, 4)),)),
    Case("flatten_squeeze", flatten_squeeze, lambda r: (r.standard_normal((3, 4)),)),
    Case("broadcast_to_sum", broadcast_to_sum, lambda r: (r.standard_normal(4), 3)),
    Case("digitize_counts", digitize_counts, lambda r: (r.standard_normal(12), np.array([-1.0, 0.0, 1.0]))),
    Case("isin_filter", isin_filter, lambda r: (r.integers(0, 6, 10), np.array([1, 3]))),
    Case("math_in_loop", math_in_loop, lambda r: (np.array([1.5, -2.5, np.nan, np.inf, 0.0]),)),
    Case("int_floor_cast", int_floor_cast, lambda r: (r.standard_normal(9) * 3,)),
    Case("builtin_round_divmod", builtin_round_divmod, lambda r: (np.array([2.5, 3.5, -2.5, 7.0, -7.25]),)),
    Case("min3", min3, lambda r: (r.standard_normal(5), r.standard_normal(5), r.standard_normal(5))),
    Case("finfo_iinfo", finfo_iinfo, lambda r: (r.standard_normal(5),)),
    Case("while_true_break", while_true_break, lambda r: (r.random(8), float(r.choice([0.5, 2.0])))),
    Case("for_rows_iter", for_rows_iter, lambda r: (r.standard_normal((4, 3)),)),
    Case("zip_loop", zip_loop, lambda r: (r.standard_normal(6), r.standard_normal(6))),
    Case("masked_mean_or", masked_mean_or, lambda r: (r.standard_normal(_n(r)) - r.choice([0, 5]),)),
    Case("reverse_cumsum", reverse_cumsum, lambda r: (r.standard_normal(_n(r)),)),
    Case("logical_ops", logical_ops, lambda r: (r.standard_normal(7), r.standard_normal(7))),
    Case("int_pow_ops", int_pow_ops, lambda r: (r.integers(-5, 6, 7),)),
    Case("nan_funcs", nan_funcs, lambda r: (np.where(r.random((3, 4)) < 0.2, np.nan, r.standard_normal((3, 4))),)),
    Case("isnan_any", isnan_any, lambda r: (np.where(r.random((3, 4)) < 0.2, np.inf, r.standard_normal((3, 4))),)),
    Case("eye_solve", eye_solve, lambda r: (r.standard_normal((3, 3)), r.standard_normal(3)), rtol=1e-7),
    Case("lstsq_fit", lstsq_fit, lambda r: (r.standard_normal(8), r.standard_normal(8)), rtol=1e-7),
    Case("cov_np", cov_np, lambda r: (r.standard_normal((6, 3)),)),
    Case("unravel_argmax", unravel_argmax, lambda r: (r.standard_normal((3, 4)),)),
    Case("diff_n2_axis0", diff_n2_axis0, lambda r: (r.standard_normal((5, 4)),)),
    Case("unique_counts", unique_counts, lambda r: (r.integers(0, 5, 10),)),
    Case("lexsort_keys", lexsort_keys, lambda r: (r.integers(0, 3, 8), r.integers(0, 3, 8))),
    Case("meshgrid_ij", meshgrid_ij, lambda r: (3, 4)),
    Case("list_fancy_cols", list_fancy_cols, lambda r: (r.standard_normal((3, 4)),)),
    Case("searchsorted_left_right", searchsorted_left_right, lambda r: (np.array([0.0, 1.0, 1.0, 2.0]), np.array([1.0, 0.5, 3.0]))),
    Case("histogram_edges", histogram_edges, lambda r: (r.standard_normal(20), np.array([-2.0, -0.5, 0.0, 0.7, 2.0]))),
    Case("histogram2d_counts", histogram2d_counts, lambda r: (r.random(20), r.random(20))),
    Case("array_of_scalars", array_of_scalars, lambda r: (r.standard_normal(5),)),
    Case("empty_pos_dtype", empty_pos_dtype, lambda r: (int(r.integers(0, 6)),)),
    Case("zeros_shape_arg", zeros_shape_arg, lambda r: (r.standard_normal((5, 3)),)),
    Case("sqrt_pow_norm", sqrt_pow_norm, lambda r: (r.standard_normal(6),)),
    Case("astype_bool", astype_bool, lambda r: (r.integers(-1, 2, 7).astype(np.float64),)),
    Case("cumsum_neg_axis", cumsum_neg_axis, lambda r: (r.standard_normal((3, 4)),)),
    Case("ediff_prepend", ediff_prepend, lambda r: (r.standard_normal(6),)),
    Case("outer_ufunc_mult", outer_ufunc_mult, lambda r: (r.standard_normal(3), r.standard_normal(4))),
    Case("ascontig_copy", ascontig_copy, lambda r: (r.standard_normal((3, 4)),)),
    Case("int_index_float_math", int_index_float_math, lambda r: (r.standard_normal(6), r.integers(-6, 6, 4))),
    Case("arange_mask_tri", arange_mask_tri, lambda r: (4,)),
    Case("var_ddof", var_ddof, lambda r: (r.standard_normal(7),)),
    Case("where_xy_index", where_xy_index, lambda r: (r.standard_normal(_n(r)) - r.choice([0, 5]),)),
    Case("abs_int_max", abs_int_max, lambda r: (r.integers(-9, 9, _n(r)),)),
    Case("neg_float_index", neg_float_index, lambda r: (r.standard_normal(_n(r, 7, 2)),)),
    Case("quantile_scalar", quantile_scalar, lambda r: (r.standard_normal(9),)),
]
