"""np41's batch: idioms the np37/np39 batches cover little — pandas-free group-bys (np.unique with
bincount / np.add.at, per-group cumulative sums, ranks through argsort(argsort)), ML pieces
(log-sum-exp cross-entropy, one-hot by eye indexing, batch-norm forward and backward, a hand
MLP gradient, cosine-similarity and pairwise-distance matrices by broadcasting and einsum, top-k
by argsort slicing), image code (rgb->gray with dot, np.power gamma, histogram equalisation
with cumsum and take, masks combined with & | ~, borders without np.pad), signal code (cumsum
moving average, np.convolve modes, zero crossings with signbit/diff), finance (returns,
maximum.accumulate drawdown, EWMA), geometry (np.cross, norm with axis=, arctan2, rotation
matrices by np.stack), numerics (polyval, interp, trapezoid, gradient, searchsorted, outer,
kron, triu_indices) and dtype corners (int8 wrap, uint arithmetic, float32 staying float32,
bool sums, floor division by negatives, round half to even); written before looking at what
is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# -- data wrangling ---------------------------------------------------------------------------

def groupby_mean_unique(keys, vals):
    uk, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=vals)
    counts = np.bincount(inv)
    return uk, sums / counts


def groupby_add_at(keys, vals, k):
    sums = np.zeros(k)
    np.add.at(sums, keys, vals)
    counts = np.zeros(k, dtype=np.int64)
    np.add.at(counts, keys, 1)
    return sums, counts


def group_cumsum_sorted(keys, vals):
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    v = vals[order]
    cs = np.cumsum(v)
    start = np.ones(k.shape[0], dtype=bool)
    start[1:] = k[1:] != k[:-1]
    idx = np.where(start, np.arange(k.shape[0]), 0)
    idx = np.maximum.accumulate(idx)
    before = cs[idx] - v[idx]
    out = np.empty_like(v)
    out[order] = cs - before
    return out


def rank_argsort_argsort(x):
    return np.argsort(np.argsort(x, kind="stable"), kind="stable")


def group_max_at(keys, vals, k):
    out = np.full(k, -np.inf)
    np.maximum.at(out, keys, vals)
    return out


def value_counts_sorted(x):
    vals, counts = np.unique(x, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    return vals[order], counts[order]


def pivot_table_2d(r, c, v):
    t = np.zeros((3, 4))
    np.add.at(t, (r, c), v)
    return t


def fillna_ffill(x):
    mask = np.isnan(x)
    idx = np.where(~mask, np.arange(x.shape[0]), 0)
    np.maximum.accumulate(idx, out=idx)
    return x[idx]


# -- ML ---------------------------------------------------------------------------------------

def softmax_xent(logits, y):
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return np.mean(lse - logits[np.arange(logits.shape[0]), y])


def onehot_eye_index(y, k):
    return np.eye(k, dtype=np.float32)[y]


def batchnorm_forward(x, gamma, beta):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xhat = (x - mu) / np.sqrt(var + 1e-5)
    return gamma * xhat + beta, xhat


def batchnorm_backward(dout, x, gamma):
    n = x.shape[0]
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    inv = 1.0 / np.sqrt(var + 1e-5)
    xhat = (x - mu) * inv
    dgamma = np.sum(dout * xhat, axis=0)
    dbeta = dout.sum(axis=0)
    dxhat = dout * gamma
    dx = inv / n * (n * dxhat - dxhat.sum(axis=0) - xhat * np.sum(dxhat * xhat, axis=0))
    return dx, dgamma, dbeta


def mlp_grad(X, y, W1, W2):
    h = X @ W1
    a = np.maximum(h, 0)
    out = a @ W2
    err = out - y
    gW2 = a.T @ err / X.shape[0]
    da = err @ W2.T
    dh = da * (h > 0)
    gW1 = X.T @ dh / X.shape[0]
    return gW1, gW2, 0.5 * np.mean(err ** 2)


def cosine_sim_matrix(A):
    norms = np.linalg.norm(A, axis=1, keepdims=True)
    An = A / np.maximum(norms, 1e-12)
    return An @ An.T


def pairwise_dist_broadcast(X, Y):
    d = X[:, None, :] - Y[None, :, :]
    return np.sqrt(np.sum(d * d, axis=-1))


def pairwise_dist_einsum(X, Y):
    xx = np.einsum("ij,ij->i", X, X)
    yy = np.einsum("ij,ij->i", Y, Y)
    xy = np.einsum("ik,jk->ij", X, Y)
    return np.maximum(xx[:, None] + yy[None, :] - 2 * xy, 0.0)


def topk_argsort(scores, k):
    idx = np.argsort(scores)[::-1][:k]
    return idx, scores[idx]


def topk_rows(S, k):
    idx = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return idx, np.take_along_axis(S, idx, axis=1)


def sigmoid_bce(z, y):
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))


def accuracy_confusion(y, yhat, k):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (y, yhat), 1)
    return np.trace(cm) / y.shape[0], cm


# -- image ------------------------------------------------------------------------------------

def rgb_to_gray_dot(img):
    return np.dot(img, np.array([0.299, 0.587, 0.114]))


def gamma_power(img, g):
    return np.power(np.clip(img, 0.0, 1.0), 1.0 / g)


def hist_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0].min()
    lut = np.round((cdf - cdf_min) / max(img.size - cdf_min, 1) * 255)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return np.take(lut, img)


def mask_combine(img, lo, hi):
    m = (img > lo) & (img < hi) | ~(img != 0.5)
    out = img.copy()
    out[~m] = 0
    return out, m.sum()


def border_replicate_blur(img):
    h, w = img.shape
    p = np.empty((h + 2, w + 2))
    p[1:-1, 1:-1] = img
    p[0, 1:-1] = img[0]
    p[-1, 1:-1] = img[-1]
    p[:, 0] = p[:, 1]
    p[:, -1] = p[:, -2]
    return (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] + p[1:-1, 1:-1]) / 5


def threshold_otsu_like(img):
    t = img.mean()
    fg = img[img > t]
    bg = img[img <= t]
    return t, fg.size, bg.size


def flip_rotate(img):
    return np.flip(img, axis=1), np.rot90(img), img[::-1, ::-1].T


# -- signal -----------------------------------------------------------------------------------

def moving_avg_cumsum(x, w):
    c = np.cumsum(np.concatenate(([0.0], x)))
    return (c[w:] - c[:-w]) / w


def convolve_modes(x, k):
    return np.convolve(x, k, mode="full"), np.convolve(x, k, mode="same"), np.convolve(x, k, mode="valid")


def zero_crossings(x):
    s = np.signbit(x)
    return np.nonzero(np.diff(s.astype(np.int8)))[0]


def zero_cross_count(x):
    return np.count_nonzero(np.diff(np.sign(x)) != 0)


def envelope_peaks(x):
    inner = (x[1:-1] > x[:-2]) & (x[1:-1] > x[2:])
    return np.flatnonzero(inner) + 1


# -- finance ----------------------------------------------------------------------------------

def log_simple_returns(p):
    return np.diff(np.log(p)), p[1:] / p[:-1] - 1


def max_drawdown(p):
    peak = np.maximum.accumulate(p)
    dd = p / peak - 1
    return dd.min(), np.argmin(dd)


def ewma_loop(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def sharpe_rolling(r, w):
    c1 = np.cumsum(np.insert(r, 0, 0.0))
    c2 = np.cumsum(np.insert(r * r, 0, 0.0))
    m = (c1[w:] - c1[:-w]) / w
    v = (c2[w:] - c2[:-w]) / w - m * m
    return m / np.sqrt(np.maximum(v, 1e-12))


# -- geometry ---------------------------------------------------------------------------------

def triangle_normals(a, b, c):
    n = np.cross(b - a, c - a)
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def polar_angles(xy):
    return np.arctan2(xy[:, 1], xy[:, 0]), np.hypot(xy[:, 0], xy[:, 1])


def rotation_stack(theta):
    c, s = np.cos(theta), np.sin(theta)
    R = np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)
    return R


def rotate_points(P, theta):
    R = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    return P @ R.T


def polygon_area_shoelace(x, y):
    return 0.5 * np.abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


# -- numerics ---------------------------------------------------------------------------------

def polyval_horner(c, x):
    return np.polyval(c, x)


def interp_trapezoid(x, y, xq):
    yq = np.interp(xq, x, y)
    return yq, np.trapezoid(y, x)


def gradient_spacing(y, dx):
    return np.gradient(y, dx), np.gradient(y)


def searchsorted_bins(edges, x):
    return np.searchsorted(edges, x, side="right") - 1


def outer_kron(a, b):
    return np.outer(a, b), np.kron(a, b)


def triu_pairs(X):
    i, j = np.triu_indices(X.shape[0], k=1)
    d = np.linalg.norm(X[i] - X[j], axis=1)
    return d


def digitize_bins(x, bins):
    return np.digitize(x, bins)


# -- dtype corners ----------------------------------------------------------------------------

def int8_wrap(a, b):
    return a + b, a * b, -a


def uint_arith(a, b):
    return a - b, (a + b) // 2, a.astype(np.int16) - b


def float32_stays(x):
    y = x * 2.0 + 1
    return y, y.sum(), np.sqrt(y), y.mean()


def bool_sums(m):
    return m.sum(), m.sum(axis=0), np.count_nonzero(m, axis=1), m.mean()


def floordiv_negative(a, b):
    return a // b, a % b, np.floor_divide(a, -3), np.fmod(a, b)


def round_half_even_arr(x):
    return np.round(x), np.round(x * 10, 0), np.round(x, 1), np.around(x)


# -- known leftovers --------------------------------------------------------------------------

def argpartition_topk(x, k):
    idx = np.argpartition(x, -k)[-k:]
    return np.sort(x[idx])


def add_at_float_into_int(counts, rows, cols, vals):
    np.add.at(counts, (rows, cols), vals)
    return counts


def ix_submatrix(X, rows, cols):
    return X[np.ix_(rows, cols)]


CASES = [
    Case("groupby_mean_unique", groupby_mean_unique, lambda r: (r.integers(0, 4, 9), r.random(9)),
         rtol=1e-7, atol=1e-9),
    Case("groupby_add_at", groupby_add_at, lambda r: (r.integers(0, 4, 9), r.random(9), 4), rtol=1e-7, atol=1e-9),
    Case("group_cumsum_sorted", group_cumsum_sorted, lambda r: (r.integers(0, 3, 8), r.random(8)),
         rtol=1e-7, atol=1e-9),
    Case("rank_argsort_argsort", rank_argsort_argsort, lambda r: (r.integers(0, 4, _n(r)).astype(np.float64),)),
    Case("group_max_at", group_max_at, lambda r: (r.integers(0, 4, 9), r.standard_normal(9), 5)),
    Case("value_counts_sorted", value_counts_sorted, lambda r: (r.integers(0, 5, 12),)),
    Case("pivot_table_2d", pivot_table_2d, lambda r: (r.integers(0, 3, 10), r.integers(0, 4, 10), r.random(10)),
         rtol=1e-7, atol=1e-9),
    Case("fillna_ffill", fillna_ffill, lambda r: (np.where(r.random(8) < 0.3, np.nan, r.random(8)),)),
    Case("softmax_xent", softmax_xent, lambda r: (r.standard_normal((5, 3)) * 10, r.integers(0, 3, 5)),
         rtol=1e-7, atol=1e-9),
    Case("onehot_eye_index", onehot_eye_index, lambda r: (r.integers(0, 4, _n(r)), 4)),
    Case("batchnorm_forward", batchnorm_forward, lambda r: (r.standard_normal((6, 3)), r.random(3), r.random(3)),
         rtol=1e-7, atol=1e-9),
    Case("batchnorm_backward", batchnorm_backward, lambda r: (r.standard_normal((6, 3)), r.standard_normal((6, 3)),
                                                              r.random(3)), rtol=1e-7, atol=1e-9),
    Case("mlp_grad", mlp_grad, lambda r: (r.standard_normal((5, 3)), r.standard_normal((5, 2)),
                                          r.standard_normal((3, 4)), r.standard_normal((4, 2))), rtol=1e-7, atol=1e-9),
    Case("cosine_sim_matrix", cosine_sim_matrix, lambda r: (r.standard_normal((4, 3)),), rtol=1e-7, atol=1e-9),
    Case("pairwise_dist_broadcast", pairwise_dist_broadcast, lambda r: (r.standard_normal((4, 3)),
                                                                        r.standard_normal((_n(r, 5), 3))),
         rtol=1e-7, atol=1e-9),
    Case("pairwise_dist_einsum", pairwise_dist_einsum, lambda r: (r.standard_normal((4, 3)),
                                                                  r.standard_normal((5, 3))), rtol=1e-7, atol=1e-9),
    Case("topk_argsort", topk_argsort, lambda r: (r.permutation(9).astype(np.float64), 3)),
    Case("topk_rows", topk_rows, lambda r: (r.standard_normal((3, 6)), 2)),
    Case("sigmoid_bce", sigmoid_bce, lambda r: (r.standard_normal(7), (r.random(7) < 0.5).astype(np.float64)),
         rtol=1e-7, atol=1e-9),
    Case("accuracy_confusion", accuracy_confusion, lambda r: (r.integers(0, 3, 10), r.integers(0, 3, 10), 3)),
    Case("rgb_to_gray_dot", rgb_to_gray_dot, lambda r: (r.random((4, 5, 3)),), rtol=1e-7, atol=1e-9),
    Case("gamma_power", gamma_power, lambda r: (r.random((4, 5)) * 1.2 - 0.1, 2.2), rtol=1e-7, atol=1e-9),
    Case("hist_equalize", hist_equalize, lambda r: (r.integers(0, 256, (6, 7)).astype(np.uint8),)),
    Case("mask_combine", mask_combine, lambda r: (np.round(r.random((4, 5)) * 4) / 4, 0.2, 0.8)),
    Case("border_replicate_blur", border_replicate_blur, lambda r: (r.random((_n(r, 5), 6)),), rtol=1e-7, atol=1e-9),
    Case("threshold_otsu_like", threshold_otsu_like, lambda r: (r.random((5, 5)),)),
    Case("flip_rotate", flip_rotate, lambda r: (r.random((3, 4)),)),
    Case("moving_avg_cumsum", moving_avg_cumsum, lambda r: (r.random(10), 3), rtol=1e-7, atol=1e-9),
    Case("convolve_modes", convolve_modes, lambda r: (r.random(_n(r, 8, 3)), r.random(3)), rtol=1e-7, atol=1e-9),
    Case("zero_crossings", zero_crossings, lambda r: (r.standard_normal(12),)),
    Case("zero_cross_count", zero_cross_count, lambda r: (r.standard_normal(12),)),
    Case("envelope_peaks", envelope_peaks, lambda r: (r.standard_normal(12),)),
    Case("log_simple_returns", log_simple_returns, lambda r: (r.random(8) + 1,), rtol=1e-7, atol=1e-9),
    Case("max_drawdown", max_drawdown, lambda r: (np.cumprod(1 + 0.1 * r.standard_normal(10)),)),
    Case("ewma_loop", ewma_loop, lambda r: (r.standard_normal(9), 0.3), rtol=1e-7, atol=1e-9),
    Case("sharpe_rolling", sharpe_rolling, lambda r: (0.01 * r.standard_normal(12), 4), rtol=1e-6, atol=1e-9),
    Case("triangle_normals", triangle_normals, lambda r: (r.standard_normal((4, 3)), r.standard_normal((4, 3)),
                                                          r.standard_normal((4, 3))), rtol=1e-7, atol=1e-9),
    Case("polar_angles", polar_angles, lambda r: (r.standard_normal((6, 2)),), rtol=1e-7, atol=1e-9),
    Case("rotation_stack", rotation_stack, lambda r: (r.random(4) * 6,), rtol=1e-7, atol=1e-9),
    Case("rotate_points", rotate_points, lambda r: (r.standard_normal((5, 2)), 0.7), rtol=1e-7, atol=1e-9),
    Case("polygon_area_shoelace", polygon_area_shoelace, lambda r: (r.standard_normal(6), r.standard_normal(6)),
         rtol=1e-7, atol=1e-9),
    Case("polyval_horner", polyval_horner, lambda r: (r.standard_normal(4), r.standard_normal(6)),
         rtol=1e-7, atol=1e-9),
    Case("interp_trapezoid", interp_trapezoid, lambda r: (np.sort(r.random(6)), r.standard_normal(6),
                                                          r.random(5)), rtol=1e-7, atol=1e-9),
    Case("gradient_spacing", gradient_spacing, lambda r: (r.standard_normal(_n(r, 7, 3)), 0.5),
         rtol=1e-7, atol=1e-9),
    Case("searchsorted_bins", searchsorted_bins, lambda r: (np.linspace(0, 1, 5), r.random(8))),
    Case("outer_kron", outer_kron, lambda r: (r.standard_normal(3), r.standard_normal(4)), rtol=1e-7, atol=1e-9),
    Case("triu_pairs", triu_pairs, lambda r: (r.standard_normal((_n(r, 5, 2), 3)),), rtol=1e-7, atol=1e-9),
    Case("digitize_bins", digitize_bins, lambda r: (r.random(8), np.array([0.2, 0.5, 0.7]))),
    Case("int8_wrap", int8_wrap, lambda r: (r.integers(-128, 128, 6).astype(np.int8),
                                            r.integers(-128, 128, 6).astype(np.int8))),
    Case("uint_arith", uint_arith, lambda r: (r.integers(0, 256, 6).astype(np.uint8),
                                              r.integers(0, 256, 6).astype(np.uint8))),
    Case("float32_stays", float32_stays, lambda r: (r.random(5).astype(np.float32),), rtol=1e-6, atol=1e-6),
    Case("bool_sums", bool_sums, lambda r: (r.random((3, 4)) < 0.5,)),
    Case("floordiv_negative", floordiv_negative, lambda r: (r.integers(-9, 10, 6), r.choice([-4, -3, 2, 5], 6))),
    Case("round_half_even_arr", round_half_even_arr, lambda r: (np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.25, 0.35,
                                                                          0.05]) + 0 * r.random(),)),
    Case("argpartition_topk", argpartition_topk, lambda r: (r.standard_normal(9), 3)),
    Case("add_at_float_into_int", add_at_float_into_int, lambda r: (np.zeros((3, 4), dtype=np.int64),
                                                                    r.integers(0, 3, 7), r.integers(0, 4, 7),
                                                                    r.random(7) * 3)),
    Case("ix_submatrix", ix_submatrix, lambda r: (r.standard_normal((5, 4)), np.array([0, 2, 4]),
                                                  np.array([1, 3]))),
]
