"""np52's batch (40 programs): NumPy programs as data-science and scientific Python users write
them, written before looking at what is supported: feature scaling by percentiles and medians,
rolling windows by cumsum differences, groupby by sorting (argsort, diff, add.reduceat), 2-D
binning by searchsorted, distance matrices by broadcasting and einsum, softmax cross-entropy with
take_along_axis, masks by np.where, triu/tril, outer/kron, norms along an axis, clip/round/floor,
meshgrid grids, gradients and trapezoids, polyval, interp, padded image convolutions, any/all per
axis, argmax per row, integer arithmetic with astype, per-axis sorts, cumprod, returned tuples and
in-place updates.  Dropped in the session's review as the same programs up to names as earlier
corpus kernels (benchmarks/corpus_duplicates.py): gradient_2d_magnitude (batch_fe32's grad_mag) and
interp_uniform_grid (batch_np39's interp_resample), of the 42 that came."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# -- feature scaling ----------------------------------------------------------------------------

def percentile_range_scale(X):
    lo = np.percentile(X, 5, axis=0)
    hi = np.percentile(X, 95, axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.clip((X - lo) / span, 0.0, 1.0)


def median_center_mad(X):
    med = np.median(X, axis=0)
    mad = np.median(np.abs(X - med), axis=0)
    mad[mad == 0] = 1.0
    return (X - med) / (1.4826 * mad)


def quantile_normalize_cols(X):
    order = np.argsort(X, axis=0)
    ranks = np.argsort(order, axis=0)
    means = np.sort(X, axis=0).mean(axis=1)
    return means[ranks]


# -- rolling windows ------------------------------------------------------------------------------

def rolling_mean_var_cumsum(x, w):
    c1 = np.cumsum(np.concatenate(([0.0], x)))
    c2 = np.cumsum(np.concatenate(([0.0], x * x)))
    s1 = c1[w:] - c1[:-w]
    s2 = c2[w:] - c2[:-w]
    mean = s1 / w
    var = s2 / w - mean ** 2
    return mean, np.maximum(var, 0.0)


def sliding_sum_shifted_adds(x, w):
    n = x.shape[0] - w + 1
    out = np.zeros(n)
    for k in range(w):
        out += x[k:k + n]
    return out


def rolling_max_2d_cols(A, w):
    n = A.shape[0] - w + 1
    out = A[:n].copy()
    for k in range(1, w):
        out = np.maximum(out, A[k:k + n])
    return out


# -- groupby ----------------------------------------------------------------------------------------

def groupby_sum_reduceat(keys, vals):
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    v = vals[order]
    starts = np.concatenate(([0], np.nonzero(np.diff(k))[0] + 1))
    return k[starts], np.add.reduceat(v, starts)


def groupby_mean_cumsum(keys, vals):
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    v = vals[order]
    flag = np.empty(k.shape[0], dtype=bool)
    flag[0] = True
    flag[1:] = k[1:] != k[:-1]
    idx = np.nonzero(flag)[0]
    cs = np.cumsum(v)
    ends = np.append(idx[1:], k.shape[0]) - 1
    sums = cs[ends] - np.where(idx > 0, cs[idx - 1], 0.0)
    counts = ends - idx + 1
    return sums / counts


def groupby_max_bincount_labels(labels, vals, n_groups):
    out = np.full(n_groups, -np.inf)
    np.maximum.at(out, labels, vals)
    counts = np.bincount(labels, minlength=n_groups)
    return out, counts


# -- binning ----------------------------------------------------------------------------------------

def hist2d_searchsorted(x, y, xedges, yedges):
    ix = np.searchsorted(xedges, x, side="right") - 1
    iy = np.searchsorted(yedges, y, side="right") - 1
    nx = xedges.shape[0] - 1
    ny = yedges.shape[0] - 1
    ok = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny)
    H = np.zeros((nx, ny), dtype=np.int64)
    np.add.at(H, (ix[ok], iy[ok]), 1)
    return H


def bin_means_searchsorted(x, v, edges):
    b = np.clip(np.searchsorted(edges, x) - 1, 0, edges.shape[0] - 2)
    s = np.bincount(b, weights=v, minlength=edges.shape[0] - 1)
    c = np.bincount(b, minlength=edges.shape[0] - 1)
    return np.where(c > 0, s / np.maximum(c, 1), np.nan)


# -- distances --------------------------------------------------------------------------------------

def pairwise_manhattan(X, Y):
    return np.abs(X[:, None, :] - Y[None, :, :]).sum(axis=-1)


def sqdist_einsum(X, Y):
    xx = np.einsum("ij,ij->i", X, X)
    yy = np.einsum("ij,ij->i", Y, Y)
    d = xx[:, None] + yy[None, :] - 2.0 * np.einsum("ik,jk->ij", X, Y)
    return np.sqrt(np.maximum(d, 0.0))


def nearest_centroid_labels(X, C):
    d = np.linalg.norm(X[:, None, :] - C[None, :, :], axis=2)
    lab = np.argmin(d, axis=1)
    return lab, d[np.arange(X.shape[0]), lab].sum()


# -- ML losses --------------------------------------------------------------------------------------

def xent_take_along(logits, y):
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    picked = np.take_along_axis(logp, y[:, None], axis=1)
    return -picked.mean()


def softmax_grad_onehot(logits, y):
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    p[np.arange(y.shape[0]), y] -= 1.0
    return p / y.shape[0]


def hinge_loss_multiclass(scores, y):
    n = scores.shape[0]
    correct = scores[np.arange(n), y][:, None]
    margins = np.maximum(0.0, scores - correct + 1.0)
    margins[np.arange(n), y] = 0.0
    return margins.sum() / n, (margins > 0).sum(axis=1)


# -- masks, triangles, products -----------------------------------------------------------------

def masked_mean_where(X, lo):
    m = X > lo
    s = np.where(m, X, 0.0).sum(axis=1)
    c = m.sum(axis=1)
    return np.where(c > 0, s / np.maximum(c, 1), 0.0)


def triu_offdiag_sum(A):
    U = np.triu(A, k=1)
    L = np.tril(A, k=-1)
    return U.sum() - L.sum(), np.trace(A)


def kron_identity_block(A, m):
    return np.kron(np.eye(m), A) + np.kron(A, np.ones((1, 1)))


def outer_minus_mean(u, v):
    P = np.outer(u, v)
    P -= P.mean(axis=0)
    return P


def row_col_norms(A):
    return np.linalg.norm(A, axis=1), np.linalg.norm(A, ord=1, axis=0), np.linalg.norm(A)


# -- rounding and integer arithmetic -------------------------------------------------------------

def quantize_round_floor(x, step):
    q = np.round(x / step) * step
    f = np.floor(x / step).astype(np.int64)
    return q, f, np.clip(f, -3, 3)


def int_pixels_scale(img, num, den):
    out = (img.astype(np.int32) * num) // den
    return np.clip(out, 0, 255).astype(np.uint8)


def int_mod_checksum(a):
    s = (a.astype(np.int64) * 31 + 7) % 1000003
    return s.sum() % 65521, (a % 3 == 0).sum()


# -- grids, calculus ------------------------------------------------------------------------------

def meshgrid_gauss_kernel2d(n, sigma):
    x = np.linspace(-1.0, 1.0, n)
    X, Y = np.meshgrid(x, x)
    G = np.exp(-(X ** 2 + Y ** 2) / (2 * sigma ** 2))
    return G / G.sum()


def gradient_uneven_spacing(y, x):
    return np.gradient(y, x)


def trapezoid_manual_2d(F, dx, dy):
    inner = 0.5 * (F[1:, :] + F[:-1, :]).sum(axis=0) * dy
    return 0.5 * (inner[1:] + inner[:-1]).sum() * dx


def polyval_and_derivative(p, x):
    dp = p[:-1] * np.arange(p.shape[0] - 1, 0, -1)
    return np.polyval(p, x), np.polyval(dp, x)


def diff_second_order(y, h):
    d2 = np.diff(y, n=2) / h ** 2
    return d2, np.abs(d2).max()


# -- images -----------------------------------------------------------------------------------------

def conv3x3_pad_edge(img, k):
    p = np.pad(img, 1, mode="edge")
    h, w = img.shape
    out = np.zeros((h, w))
    for i in range(3):
        for j in range(3):
            out += k[i, j] * p[i:i + h, j:j + w]
    return out


def laplacian_pad_reflect(img):
    p = np.pad(img, 1, mode="reflect")
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * img


def median3_filter_rows(img):
    p = np.pad(img, ((0, 0), (1, 1)), mode="edge")
    stack = np.stack([p[:, :-2], p[:, 1:-1], p[:, 2:]])
    return np.sort(stack, axis=0)[1]


# -- boolean reductions ---------------------------------------------------------------------------

def any_all_nan_rows(X):
    bad = np.isnan(X)
    return np.any(bad, axis=1), np.all(~bad, axis=0), X[~np.any(bad, axis=1)].sum()


def argmax_row_confidence(P):
    k = np.argmax(P, axis=1)
    conf = P.max(axis=1)
    return k, conf, (conf > 0.5).mean()


def sorted_rows_topgap(X):
    S = np.sort(X, axis=1)
    return S[:, -1] - S[:, -2], np.sort(X, axis=0)[0]


def cumprod_survival_curve(h):
    s = np.cumprod(1.0 - h)
    return s, np.concatenate(([1.0], s[:-1])) - s


# -- in-place updates ----------------------------------------------------------------------------

def zero_masked_inplace(a, thr):
    a[np.abs(a) < thr] = 0
    return np.count_nonzero(a)


def add_row_bias_inplace(X, b):
    X += b[:, None]
    X *= 0.5
    return X.sum()


def cap_columns_inplace(X, caps):
    over = X > caps
    X[over] = np.broadcast_to(caps, X.shape)[over]
    return over.sum(axis=0)


CASES = [
    Case("percentile_range_scale", percentile_range_scale, lambda r: (r.standard_normal((_n(r, 20, 1), 3)),),
         rtol=1e-9, atol=1e-12),
    Case("median_center_mad", median_center_mad, lambda r: (r.standard_normal((_n(r, 9, 2), 3)),),
         rtol=1e-9, atol=1e-12),
    Case("quantile_normalize_cols", quantile_normalize_cols, lambda r: (r.standard_normal((_n(r, 7, 1), 3)),),
         rtol=1e-9, atol=1e-12),
    Case("rolling_mean_var_cumsum", rolling_mean_var_cumsum, lambda r: (r.standard_normal(_n(r, 15, 3)), 3),
         rtol=1e-7, atol=1e-9),
    Case("sliding_sum_shifted_adds", sliding_sum_shifted_adds, lambda r: (r.standard_normal(_n(r, 12, 4)), 4),
         rtol=1e-9, atol=1e-12),
    Case("rolling_max_2d_cols", rolling_max_2d_cols, lambda r: (r.standard_normal((_n(r, 10, 3), 4)), 3)),
    Case("groupby_sum_reduceat", groupby_sum_reduceat,
         lambda r: (lambda n: (r.integers(0, 5, n), r.standard_normal(n)))(_n(r, 20, 1)), rtol=1e-9, atol=1e-12),
    Case("groupby_mean_cumsum", groupby_mean_cumsum,
         lambda r: (lambda n: (r.integers(0, 5, n), r.standard_normal(n)))(_n(r, 20, 1)), rtol=1e-7, atol=1e-9),
    Case("groupby_max_bincount_labels", groupby_max_bincount_labels,
         lambda r: (lambda n: (r.integers(0, 4, n), r.standard_normal(n), 4))(_n(r, 20, 1))),
    Case("hist2d_searchsorted", hist2d_searchsorted,
         lambda r: (lambda n: (r.random(n) * 1.2 - 0.1, r.random(n) * 1.2 - 0.1, np.linspace(0, 1, 5),
                               np.linspace(0, 1, 4)))(_n(r, 30, 1))),
    Case("bin_means_searchsorted", bin_means_searchsorted,
         lambda r: (lambda n: (r.random(n), r.standard_normal(n), np.linspace(0, 1, 6)))(_n(r, 25, 1)),
         rtol=1e-9, atol=1e-12),
    Case("pairwise_manhattan", pairwise_manhattan,
         lambda r: (r.standard_normal((_n(r, 6, 1), 3)), r.standard_normal((_n(r, 5, 1), 3))), rtol=1e-9, atol=1e-12),
    Case("sqdist_einsum", sqdist_einsum,
         lambda r: (r.standard_normal((_n(r, 6, 1), 3)), r.standard_normal((_n(r, 5, 1), 3))), rtol=1e-7, atol=1e-7),
    Case("nearest_centroid_labels", nearest_centroid_labels,
         lambda r: (r.standard_normal((_n(r, 10, 1), 2)), r.standard_normal((3, 2))), rtol=1e-9, atol=1e-12),
    Case("xent_take_along", xent_take_along,
         lambda r: (lambda n: (r.standard_normal((n, 4)), r.integers(0, 4, n)))(_n(r, 8, 1)), rtol=1e-9, atol=1e-12),
    Case("softmax_grad_onehot", softmax_grad_onehot,
         lambda r: (lambda n: (r.standard_normal((n, 4)), r.integers(0, 4, n)))(_n(r, 8, 1)), rtol=1e-9, atol=1e-12),
    Case("hinge_loss_multiclass", hinge_loss_multiclass,
         lambda r: (lambda n: (r.standard_normal((n, 4)), r.integers(0, 4, n)))(_n(r, 8, 1)), rtol=1e-9, atol=1e-12),
    Case("masked_mean_where", masked_mean_where, lambda r: (r.standard_normal((_n(r, 6, 1), 5)), 0.3),
         rtol=1e-9, atol=1e-12),
    Case("triu_offdiag_sum", triu_offdiag_sum, lambda r: (r.standard_normal((_n(r, 5, 1), _n(r, 5, 1))),),
         rtol=1e-9, atol=1e-12),
    Case("kron_identity_block", kron_identity_block, lambda r: (r.standard_normal((2, _n(r, 3, 1))), 3)),
    Case("outer_minus_mean", outer_minus_mean,
         lambda r: (r.standard_normal(_n(r, 5, 1)), r.standard_normal(_n(r, 4, 1))), rtol=1e-9, atol=1e-12),
    Case("row_col_norms", row_col_norms, lambda r: (r.standard_normal((_n(r, 5, 1), 4)),), rtol=1e-9, atol=1e-12),
    Case("quantize_round_floor", quantize_round_floor, lambda r: (3 * r.standard_normal(_n(r, 12, 1)), 0.25)),
    Case("int_pixels_scale", int_pixels_scale,
         lambda r: (r.integers(0, 256, (_n(r, 5, 1), 6), dtype=np.uint8), 7, 5)),
    Case("int_mod_checksum", int_mod_checksum, lambda r: (r.integers(-1000, 1000, _n(r, 20, 1)).astype(np.int32),)),
    Case("meshgrid_gauss_kernel2d", meshgrid_gauss_kernel2d, lambda r: (int(_n(r, 9, 2)), 0.4), rtol=1e-9, atol=1e-12),
    Case("gradient_uneven_spacing", gradient_uneven_spacing,
         lambda r: (lambda n: (r.standard_normal(n), np.cumsum(r.random(n) + 0.1)))(_n(r, 10, 3)),
         rtol=1e-7, atol=1e-9),
    Case("trapezoid_manual_2d", trapezoid_manual_2d, lambda r: (r.random((_n(r, 6, 2), 5)), 0.1, 0.2),
         rtol=1e-9, atol=1e-12),
    Case("polyval_and_derivative", polyval_and_derivative,
         lambda r: (r.standard_normal(_n(r, 4, 2)), r.standard_normal(7)), rtol=1e-9, atol=1e-12),
    Case("diff_second_order", diff_second_order, lambda r: (r.standard_normal(_n(r, 10, 3)), 0.1),
         rtol=1e-9, atol=1e-9),
    Case("conv3x3_pad_edge", conv3x3_pad_edge, lambda r: (r.random((_n(r, 6, 1), 5)), r.random((3, 3))),
         rtol=1e-9, atol=1e-12),
    Case("laplacian_pad_reflect", laplacian_pad_reflect, lambda r: (r.random((_n(r, 6, 2), 5)),),
         rtol=1e-9, atol=1e-12),
    Case("median3_filter_rows", median3_filter_rows, lambda r: (r.random((_n(r, 4, 1), 6)),)),
    Case("any_all_nan_rows", any_all_nan_rows,
         lambda r: (np.where(r.random((_n(r, 6, 1), 4)) < 0.15, np.nan, r.standard_normal((1, 4))),),
         rtol=1e-9, atol=1e-12),
    Case("argmax_row_confidence", argmax_row_confidence, lambda r: (r.dirichlet(np.ones(3), _n(r, 7, 1)),),
         rtol=1e-9, atol=1e-12),
    Case("sorted_rows_topgap", sorted_rows_topgap, lambda r: (r.standard_normal((_n(r, 5, 1), 4)),)),
    Case("cumprod_survival_curve", cumprod_survival_curve, lambda r: (0.3 * r.random(_n(r, 10, 1)),),
         rtol=1e-9, atol=1e-12),
    Case("zero_masked_inplace", zero_masked_inplace, lambda r: (r.standard_normal(_n(r, 12, 1)), 0.5)),
    Case("add_row_bias_inplace", add_row_bias_inplace,
         lambda r: (lambda n: (r.standard_normal((n, 3)), r.standard_normal(n)))(_n(r, 5, 1)), rtol=1e-9, atol=1e-12),
    Case("cap_columns_inplace", cap_columns_inplace, lambda r: (r.standard_normal((_n(r, 6, 1), 3)), r.random(3))),
]
