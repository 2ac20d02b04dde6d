"""NumPy programs in the style of statistics, ML preprocessing, image and scientific code that use
what session 19's np21 added: np.argsort (1-d, rows, columns; kind='stable'), np.sort(axis=) and of
expressions, np.median(axis=), np.quantile / np.percentile (axis=, lists of q), np.isin, ufunc.at
(np.add.at & co.), np.argmax/argmin(keepdims=), reductions of rows selected by a
boolean mask (X[y == c].mean(axis=0)), np.take_along_axis,
np.corrcoef, beside the NumPy forms such code mixes them with
(keepdims reductions, dtype= reductions, integer and bool dtypes through ufuncs, einsum, reshapes of
expressions).  Written for this corpus, not copied.  Data with ties is passed to np.argsort only
with kind='stable' (NumPy's default sort orders ties in no set order: the kernel raises there)."""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def sort_rows(A):
    return np.sort(A, axis=1)


def sort_cols(A):
    return np.sort(A, axis=0)


def iqr(x):
    q75 = np.percentile(x, 75)
    q25 = np.percentile(x, 25)
    return q75 - q25


def isin_mask(x, vals):
    return np.isin(x, vals)


def argmax_rows(A):
    return np.argmax(A, axis=1)


def argmin_cols(A):
    return A.argmin(axis=0)


def cumprod_cols(A):
    return np.cumprod(A, axis=0)


def positive_sum(x):
    return x[x > 0].sum()


def gather(x, idx):
    return x[idx] * 2.0


def linspace_weights(x):
    w = np.linspace(0.0, 1.0, x.shape[0])
    return (w * x).sum()


def arange_poly(x):
    k = np.arange(x.shape[0])
    return (k * x).sum()


def eye_shift(A):
    return A + 2.0 * np.eye(A.shape[0])


def einsum_mm(A, B):
    return np.einsum("ij,jk->ik", A, B)


def reshape_expr(A):
    return (A * 2).reshape(4, 3)


def ravel_expr(A):
    return (A + 1).ravel()


def transpose_expr(A, B):
    return (A + B).T @ A


def normalize_keepdims(A):
    return A / A.sum(axis=1, keepdims=True)


def center_keepdims(A):
    return A - np.mean(A, axis=0, keepdims=True)


def max_keepdims(A):
    return A - A.max(axis=1, keepdims=True)


def sum_dtype64(x):
    return np.sum(x, dtype=np.float64)


def mean_dtype(x):
    return x.mean(dtype=np.float32)


def int_true_div(a):
    return a / 3


def bool_ops(a, b):
    return np.logical_and(a, b).sum() + (a ^ b).sum()


def int32_float32(a, b):
    return a * b


def int_sqrt_abs(a):
    return np.sqrt(np.abs(a))


def image_invert(img):
    return 255 - img


def image_threshold(img):
    return np.where(img > 128, 255, 0).astype(np.uint8)


def softmax_rows(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def cross_entropy(P, y):
    return -np.log(P[np.arange(P.shape[0]), y]).mean()


def one_hot(y):
    out = np.zeros((y.shape[0], 4))
    out[np.arange(y.shape[0]), y] = 1.0
    return out


def pairwise_dist(X):
    d = X[:, None, :] - X[None, :, :]
    return np.sqrt((d ** 2).sum(axis=-1))


def ecdf(x):
    s = np.sort(x)
    return s, np.arange(1, x.shape[0] + 1) / x.shape[0]


def median_rows(A):
    return np.median(A, axis=1)


def median_abs_dev(x):
    med = np.median(x)
    return np.median(np.abs(x - med))


def argsort_desc(x):
    return np.argsort(-x)


def argsort_rows(A):
    return np.argsort(A, axis=1)


def isin_float(x, v):
    return np.isin(np.round(x, 1), v).sum()


def cummax_rows(A):
    return np.maximum.accumulate(A, axis=1)


def argmax_keepdims(A):
    return np.argmax(A, axis=1, keepdims=True)


def flat_argmax_unravel(A):
    k = np.argmax(A)
    return k // A.shape[1], k % A.shape[1]


def cumsum_dtype(x):
    return np.cumsum(x > 0.5)


def any_all_axis(A):
    return np.any(A > 0.9, axis=1), np.all(A > 0.1, axis=0)


def outer_ufunc(A):
    return np.subtract.outer(A[:, 0], A[0, :])


def einsum_batch(T):
    return np.einsum("bij,bkj->bik", T, T)


def triu_outer(a, b):
    return np.triu(np.outer(a, b), 1)


def percentile_flat(A):
    return np.percentile(A, 95)


def sort_then_diff(A):
    return np.diff(np.sort(A, axis=-1), axis=-1)


def reshape_stats(x):
    return x.reshape(3, 3).sum(axis=0)


def transpose_axes_sum(T):
    return T.transpose(2, 0, 1).reshape(4, 6).mean(axis=1)


def min_keepdims_scale(A):
    return (A - A.min(axis=0, keepdims=True)) / np.ptp(A, axis=0, keepdims=True)


def int16_prod_dtype(x):
    return np.prod(x % 3 + 1, dtype=np.int64)


def bool_mean(m):
    return m.mean(), m.sum(), np.count_nonzero(m)


def argsort_stable_ints(x):
    return np.argsort(x, kind="stable")


def quantile_f32(x):
    return np.quantile(x, 0.37)


def percentile_ints(x):
    return np.percentile(x, 33)


def percentile_nan(x):
    return np.percentile(x, 50)


def sort_nan(x):
    return np.sort(x), np.argsort(x, kind="stable")


def quantile_arg(x, q):
    return np.quantile(x, q), np.percentile(x, 100 * q)


def knn_indices(X):
    sq = (X * X).sum(axis=1)
    D = sq[:, None] + sq[None, :] - 2 * X @ X.T
    return np.argsort(D, axis=1)[:, 1:3]


def argsort_cols(A):
    return np.argsort(A, axis=0)


def median_cols(A):
    return np.median(A, axis=0)


def isin_invert(x, t):
    return np.isin(x, t, invert=True)


def isin_2d(x, t):
    return np.isin(x, t)


def median_filter_rows(img):
    return np.median(img, axis=1) - np.median(img)


def argsort_top3(x):
    order = np.argsort(x)
    return order[-3:], x[order[-3:]]


def sort_axis_none(A):
    return np.sort(A, axis=None)


def spearman_manual(x, y):
    rx = np.argsort(np.argsort(x)).astype(np.float64)
    ry = np.argsort(np.argsort(y)).astype(np.float64)
    rx = rx - rx.mean()
    ry = ry - ry.mean()
    return (rx @ ry) / np.sqrt((rx @ rx) * (ry @ ry))


def trimmed_mean(x, w):
    s = np.sort(x * w)
    return s[2:-2].mean()


def sorted_rows_gap(A):
    S = np.sort(A, axis=1)
    return (S[:, 1:] - S[:, :-1]).max(axis=1)


def isin_arange(x):
    return np.isin(np.floor(x), np.arange(3)).mean()


def sort_kind(A):
    return np.sort(A, kind="mergesort"), np.sort(A[0], kind="stable")


def count_at(acc, idx):
    np.add.at(acc, idx, 1)
    return acc


def embedding_grad(W, idx, g):
    np.add.at(W, idx, g)
    return W


def segment_max(out, seg, v):
    np.maximum.at(out, seg, v)
    return out


def segment_prod(out, seg, v):
    np.multiply.at(out, seg, v)
    np.subtract.at(out, seg, 0.25)
    np.minimum.at(out, seg, v)
    return out


def group_sums(labels, x):
    sums = np.zeros(5)
    counts = np.zeros(5)
    np.add.at(sums, labels, x)
    np.add.at(counts, labels, 1.0)
    return sums / np.maximum(counts, 1.0)


def add_row_at(A, idx, row):
    np.add.at(A, idx, row)
    return A


def argmax_keepdims_flat(A):
    return np.argmax(A, keepdims=True)


def class_means(X, y):
    out = np.zeros((3, X.shape[1]))
    for c in range(3):
        out[c] = X[y == c].mean(axis=0)
    return out


def kmeans_step(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
    labels = np.argmin(d, axis=1)
    newC = np.zeros_like(C)
    for k in range(C.shape[0]):
        newC[k] = X[labels == k].mean(axis=0)
    return newC, labels


def masked_row_sums(X, s):
    keep = s > 0.3
    return X[keep].sum(axis=0), np.sum(X[keep]), X[keep].mean()


def masked_int_rows(X, s):
    return X[s > 0.5].sum(axis=0), X[s > 0.5].mean(axis=0)


def masked_rows_empty(X, s):
    return X[s > 0.5].mean(axis=0), X[s > 0.5].sum(axis=0)


def percentile_axis(A):
    return np.percentile(A, 90, axis=0)


def percentile_axis_int(A):
    return np.percentile(A, 40, axis=1)


def quantile_axis_f32(A):
    return np.quantile(A, 0.75, axis=-1)


def quartiles(x):
    q1, q2, q3 = np.percentile(x, [25, 50, 75])
    return q3 - q1, q2


def percentile_axis_nan(A):
    return np.percentile(A, 50, axis=1)


def take_best(A):
    best = np.argmax(A, axis=1, keepdims=True)
    return np.take_along_axis(A, best, axis=1)


def topk_rows(A):
    idx = np.argsort(A, axis=1)[:, -2:]
    return np.take_along_axis(A, idx, axis=1)


def take_along_cols(A):
    best = np.argmax(A, axis=0, keepdims=True)
    return np.take_along_axis(A, best, axis=0)


def take_along_vector(x):
    return np.take_along_axis(x, np.argsort(x), axis=0)


def f32_strong_weak(x, qs, qw):
    return np.quantile(x, qs), np.quantile(x, qw), np.percentile(x, qs * 100)


def f32_rows(A, qs, qw):
    return np.quantile(A, qs, axis=1), np.quantile(A, qw, axis=0), np.percentile(A, 20, axis=1)


def pearson_corrcoef(x, y):
    return np.corrcoef(x, y)[0, 1]


def corr_matrix(X):
    return np.corrcoef(X)


def spearman(x, y):
    rx = np.argsort(np.argsort(x, kind="stable"), kind="stable")
    ry = np.argsort(np.argsort(y, kind="stable"), kind="stable")
    return np.corrcoef(rx, ry)[0, 1]


def feature_corr(X):
    C = np.corrcoef(X.T)
    return np.abs(C - np.eye(3)).max()


#: none and smart only (test_corpus._fuses): the subject here is how library routines (sorts, quantiles, corrcoef, ufunc.at) lowered to loops
#: are lowered; max fusion of their loops is covered by the property tests and the other modules,
#: and it took 40% of this module's time (suite budget).
FUSES = ("none", "smart")

CASES = [
    Case("sort_rows", sort_rows, lambda r: (r.random((5, 6)),)),
    Case("sort_cols", sort_cols, lambda r: (r.random((5, 6)),)),
    Case("iqr", iqr, lambda r: (r.random(31),)),
    Case("isin_mask", isin_mask, lambda r: (r.integers(0, 10, 20), np.array([1, 3, 5]))),
    Case("argmax_rows", argmax_rows, lambda r: (r.random((6, 7)),)),
    Case("argmin_cols", argmin_cols, lambda r: (r.random((6, 7)),)),
    Case("cumprod_cols", cumprod_cols, lambda r: (r.random((6, 7)),)),
    Case("positive_sum", positive_sum, lambda r: (r.random(12) - 0.5,)),
    Case("gather", gather, lambda r: (r.random(10), r.integers(0, 10, 6))),
    Case("linspace_weights", linspace_weights, lambda r: (r.random(11),)),
    Case("arange_poly", arange_poly, lambda r: (r.random(11),)),
    Case("eye_shift", eye_shift, lambda r: (r.random((5, 5)),)),
    Case("einsum_mm", einsum_mm, lambda r: (r.random((5, 4)), r.random((4, 3)))),
    Case("reshape_expr", reshape_expr, lambda r: (r.random((3, 4)),)),
    Case("ravel_expr", ravel_expr, lambda r: (r.random((3, 4)),)),
    Case("transpose_expr", transpose_expr, lambda r: (r.random((3, 4)), r.random((3, 4)))),
    Case("normalize_keepdims", normalize_keepdims, lambda r: (r.random((5, 4)),)),
    Case("center_keepdims", center_keepdims, lambda r: (r.random((5, 4)),)),
    Case("max_keepdims", max_keepdims, lambda r: (r.random((5, 4)),)),
    Case("sum_dtype64", sum_dtype64, lambda r: (r.random(10).astype(np.float32),)),
    Case("mean_dtype", mean_dtype, lambda r: (r.integers(0, 100, 10, dtype=np.int32),)),
    Case("int_true_div", int_true_div, lambda r: (r.integers(0, 100, 10, dtype=np.int32),)),
    Case("bool_ops", bool_ops, lambda r: (r.random(10) > 0.5, r.random(10) > 0.3)),
    Case("int32_float32", int32_float32, lambda r: (r.integers(0, 100, 10, dtype=np.int32), r.random(10).astype(np.float32))),
    Case("int_sqrt_abs", int_sqrt_abs, lambda r: (r.integers(-5, 5, 10, dtype=np.int64),)),
    Case("image_invert", image_invert, lambda r: (r.integers(0, 255, (6, 6), dtype=np.uint8),)),
    Case("image_threshold", image_threshold, lambda r: (r.integers(0, 255, (6, 6), dtype=np.uint8),)),
    Case("softmax_rows", softmax_rows, lambda r: (r.random((6, 3)),)),
    Case("cross_entropy", cross_entropy, lambda r: (r.random((6, 3)), r.integers(0, 3, 6))),
    Case("one_hot", one_hot, lambda r: (r.integers(0, 4, 12),)),
    Case("pairwise_dist", pairwise_dist, lambda r: (r.random((7, 2)),)),
    Case("ecdf", ecdf, lambda r: (r.random(20),)),
    Case("median_rows", median_rows, lambda r: (r.random((5, 7)),)),
    Case("median_abs_dev", median_abs_dev, lambda r: (r.random(21),)),
    Case("argsort_desc", argsort_desc, lambda r: (r.random(15),)),
    Case("argsort_rows", argsort_rows, lambda r: (r.random((4, 6)),)),
    Case("isin_float", isin_float, lambda r: (r.random(12), np.array([0.2, 0.5, 0.9]))),
    Case("cummax_rows", cummax_rows, lambda r: (r.random((5, 6)),)),
    Case("argmax_keepdims", argmax_keepdims, lambda r: (r.random((5, 6)),)),
    Case("flat_argmax_unravel", flat_argmax_unravel, lambda r: (r.random((5, 6)),)),
    Case("cumsum_dtype", cumsum_dtype, lambda r: (r.random(10),)),
    Case("any_all_axis", any_all_axis, lambda r: (r.random((4, 5)),)),
    Case("outer_ufunc", outer_ufunc, lambda r: (r.random((4, 5)),)),
    Case("einsum_batch", einsum_batch, lambda r: (r.random((3, 4, 5)),)),
    Case("triu_outer", triu_outer, lambda r: (r.random(5), r.random(5))),
    Case("percentile_flat", percentile_flat, lambda r: (r.random((6, 6)),)),
    Case("sort_then_diff", sort_then_diff, lambda r: (r.random((4, 5)),)),
    Case("reshape_stats", reshape_stats, lambda r: (r.random(9),)),
    Case("transpose_axes_sum", transpose_axes_sum, lambda r: (r.random((2, 3, 4)),)),
    Case("min_keepdims_scale", min_keepdims_scale, lambda r: (r.random((5, 4)),)),
    Case("int16_prod_dtype", int16_prod_dtype, lambda r: (r.integers(0, 50, 10, dtype=np.int16),)),
    Case("bool_mean", bool_mean, lambda r: (r.integers(0, 2, 10).astype(bool),)),
    Case("argsort_stable_ints", argsort_stable_ints, lambda r: (r.integers(0, 50, 20),)),
    Case("quantile_f32", quantile_f32, lambda r: (r.random(20).astype(np.float32),)),
    Case("percentile_ints", percentile_ints, lambda r: (r.integers(0, 50, 20),)),
    Case("percentile_nan", percentile_nan, lambda r: (np.where(r.random(15) < 0.2, np.nan, r.random(15)),)),
    Case("sort_nan", sort_nan, lambda r: (np.where(r.random(15) < 0.2, np.nan, r.random(15)),)),
    Case("quantile_arg", quantile_arg, lambda r: (r.random(15), 0.25)),
    Case("knn_indices", knn_indices, lambda r: (r.random((6, 4)),)),
    Case("argsort_cols", argsort_cols, lambda r: (r.random((6, 4)),)),
    Case("median_cols", median_cols, lambda r: (r.random((6, 4)),)),
    Case("isin_invert", isin_invert, lambda r: (r.integers(0, 9, 20), r.integers(0, 9, 4))),
    Case("isin_2d", isin_2d, lambda r: (r.integers(0, 9, (4, 5)), r.integers(0, 9, 4))),
    Case("median_filter_rows", median_filter_rows, lambda r: (r.random((5, 5)),)),
    Case("argsort_top3", argsort_top3, lambda r: (r.random(20),)),
    Case("sort_axis_none", sort_axis_none, lambda r: (r.random((4, 6)),)),
    Case("spearman_manual", spearman_manual, lambda r: (r.random(30), r.random(30))),
    Case("trimmed_mean", trimmed_mean, lambda r: (r.random(12), r.random(12))),
    Case("sorted_rows_gap", sorted_rows_gap, lambda r: (r.random((3, 8)),)),
    Case("isin_arange", isin_arange, lambda r: (r.random(20) * 10,)),
    Case("sort_kind", sort_kind, lambda r: (r.random((5, 7)),)),
    Case("count_at", count_at, lambda r: (np.zeros(5, dtype=np.int64), r.integers(0, 5, 20))),
    Case("embedding_grad", embedding_grad, lambda r: (r.random((6, 3)), r.integers(0, 6, 10), r.random((10, 3)))),
    Case("segment_max", segment_max, lambda r: (np.full(4, -np.inf), r.integers(0, 4, 12), r.random(12))),
    Case("segment_prod", segment_prod, lambda r: (np.ones(4), r.integers(0, 4, 12), r.random(12) + 0.5)),
    Case("group_sums", group_sums, lambda r: (r.integers(0, 5, 30), r.random(30))),
    Case("add_row_at", add_row_at, lambda r: (np.zeros((4, 3)), r.integers(0, 4, 7), r.random(3))),
    Case("argmax_keepdims_flat", argmax_keepdims_flat, lambda r: (r.random((5, 6)),)),
    Case("class_means", class_means, lambda r: (r.random((10, 4)), r.integers(0, 3, 10))),
    Case("kmeans_step", kmeans_step, lambda r: (r.random((12, 2)), r.random((3, 2)))),
    Case("masked_row_sums", masked_row_sums, lambda r: (r.random((10, 3)), r.random(10))),
    Case("masked_int_rows", masked_int_rows, lambda r: (r.integers(0, 9, (8, 3)), r.random(8))),
    Case("masked_rows_empty", masked_rows_empty, lambda r: (r.random((6, 3)), np.zeros(6))),
    Case("percentile_axis", percentile_axis, lambda r: (r.random((7, 5)),)),
    Case("percentile_axis_int", percentile_axis_int, lambda r: (r.integers(0, 99, (4, 6)),)),
    Case("quantile_axis_f32", quantile_axis_f32, lambda r: (r.random((4, 6)).astype(np.float32),)),
    Case("quartiles", quartiles, lambda r: (r.random(21),)),
    Case("percentile_axis_nan", percentile_axis_nan, lambda r: (np.where(r.random((5, 4)) < 0.2, np.nan, r.random((5, 4))),)),
    Case("take_best", take_best, lambda r: (r.random((5, 6)),)),
    Case("topk_rows", topk_rows, lambda r: (r.random((6, 5)),)),
    Case("take_along_cols", take_along_cols, lambda r: (r.random((6, 5)),)),
    Case("take_along_vector", take_along_vector, lambda r: (r.random(9),)),
    Case("f32_strong_weak", f32_strong_weak, lambda r: (r.random(9).astype(np.float32), np.float64(0.3), 0.3)),
    Case("f32_rows", f32_rows, lambda r: (r.random((3, 9)).astype(np.float32), np.float64(0.3), 0.3)),
    Case("pearson_corrcoef", pearson_corrcoef, lambda r: (r.random(30), r.random(30)), rtol=1e-7),
    Case("corr_matrix", corr_matrix, lambda r: (r.random((4, 12)),), rtol=1e-7),
    Case("spearman", spearman, lambda r: (r.random(30), r.random(30)), rtol=1e-7),
    Case("feature_corr", feature_corr, lambda r: (r.random((12, 3)),), rtol=1e-7),
]
