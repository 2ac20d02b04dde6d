"""np45's batch: NumPy programs as data scientists and engineers write them, in areas the np37-np43
batches touch little: pandas-like groupby (np.unique(return_inverse) with bincount, sums / counts,
group ranks and z-scores, last-per-group), rolling windows by cumsum and by
sliding_window_view / as_strided, outer operations with np.newaxis, np.einsum in pipelines, small
np.linalg (norm, solve, lstsq, det, inv), chained boolean indexing, nested three-argument np.where,
binning (clip, digitize, searchsorted), np.diff / np.gradient / np.trapz, np.roll and np.pad
stencils, np.meshgrid grids, ranks by argsort, np.cumprod, np.interp, image ops by reshape and
transposes, a k-means step, PCA by SVD, softmax and log-sum-exp, one-hot encodings and confusion
matrices; written before looking at what is supported."""

import numpy as np
from corpus_case import Case
from numpy.lib.stride_tricks import as_strided, sliding_window_view


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# -- groupby --------------------------------------------------------------------------------------

def groupby_sum_count(keys, vals):
    uk, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=vals)
    counts = np.bincount(inv)
    return uk, sums / counts


def groupby_std(keys, vals):
    uk, inv = np.unique(keys, return_inverse=True)
    n = np.bincount(inv)
    s1 = np.bincount(inv, weights=vals)
    s2 = np.bincount(inv, weights=vals * vals)
    mean = s1 / n
    var = s2 / n - mean ** 2
    return np.sqrt(np.maximum(var, 0))


def groupby_zscore(keys, vals):
    _, inv = np.unique(keys, return_inverse=True)
    n = np.bincount(inv)
    mean = np.bincount(inv, weights=vals) / n
    sq = np.bincount(inv, weights=(vals - mean[inv]) ** 2) / n
    sd = np.sqrt(sq)
    sd[sd == 0] = 1.0
    return (vals - mean[inv]) / sd[inv]


def groupby_max_sorted(keys, vals):
    order = np.lexsort((vals, keys))
    k = keys[order]
    v = vals[order]
    last = np.ones(len(k), dtype=bool)
    last[:-1] = k[1:] != k[:-1]
    return k[last], v[last]


def groupby_first_index(keys):
    uk, first = np.unique(keys, return_index=True)
    return uk, first


def groupby_size_sorted_desc(keys):
    uk, counts = np.unique(keys, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    return uk[order], counts[order]


def group_rank_within(keys, vals):
    order = np.lexsort((vals, keys))
    k = keys[order]
    start = np.ones(len(k), dtype=bool)
    start[1:] = k[1:] != k[:-1]
    grp_start = np.maximum.accumulate(np.where(start, np.arange(len(k)), 0))
    rank_sorted = np.arange(len(k)) - grp_start
    ranks = np.empty(len(k), dtype=np.int64)
    ranks[order] = rank_sorted
    return ranks


def groupby_2d_matrix(keys, X):
    uk, inv = np.unique(keys, return_inverse=True)
    out = np.zeros((len(uk), X.shape[1]))
    np.add.at(out, inv, X)
    counts = np.bincount(inv, minlength=len(uk))
    return out / counts[:, None]


def crosstab(a, b):
    ua, ia = np.unique(a, return_inverse=True)
    ub, ib = np.unique(b, return_inverse=True)
    tab = np.zeros((len(ua), len(ub)), dtype=np.int64)
    np.add.at(tab, (ia, ib), 1)
    return tab


def weighted_group_mean_minlength(labels, w, x, k):
    num = np.bincount(labels, weights=w * x, minlength=k)
    den = np.bincount(labels, weights=w, minlength=k)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


# -- rolling windows -----------------------------------------------------------------------------

def rolling_sum_cumsum(x, w):
    c = np.cumsum(x)
    out = c[w - 1:].copy()
    out[1:] -= c[:-w]
    return out


def rolling_mean_swv(x, w):
    return sliding_window_view(x, w).mean(axis=-1)


def rolling_max_swv(x, w):
    return sliding_window_view(x, w).max(axis=1)


def rolling_median_swv(x, w):
    return np.median(sliding_window_view(x, w), axis=1)


def rolling_zscore(x, w):
    win = sliding_window_view(x, w)
    mu = win.mean(axis=1)
    sd = win.std(axis=1)
    return (x[w - 1:] - mu) / (sd + 1e-12)


def as_strided_frames(x, frame, hop):
    n = 1 + (len(x) - frame) // hop
    s = x.strides[0]
    frames = as_strided(x, shape=(n, frame), strides=(hop * s, s))
    return frames.sum(axis=1)


def swv_2d_patches_mean(img):
    return sliding_window_view(img, (3, 3)).mean(axis=(-2, -1))


def ewm_mean_loop(x, alpha):
    out = np.empty_like(x)
    acc = x[0]
    for i in range(len(x)):
        acc = alpha * x[i] + (1 - alpha) * acc
        out[i] = acc
    return out


def expanding_mean(x):
    return np.cumsum(x) / np.arange(1, len(x) + 1)


def rolling_count_above(x, t, w):
    c = np.concatenate(([0], np.cumsum(x > t)))
    return c[w:] - c[:-w]


# -- broadcasting outer ----------------------------------------------------------------------------

def outer_diff_newaxis(a, b):
    return a[:, np.newaxis] - b[np.newaxis, :]


def gaussian_kernel_matrix(X, gamma):
    d2 = ((X[:, np.newaxis, :] - X[np.newaxis, :, :]) ** 2).sum(axis=-1)
    return np.exp(-gamma * d2)


def outer_and_mask(a, b):
    m = (a[:, None] > 0) & (b[None, :] < 0)
    return m.sum(axis=0), m.any(axis=1)


def rbf_features(x, centers, width):
    return np.exp(-((x[:, None] - centers[None, :]) / width) ** 2)


def cartesian_sum_triple(a, b, c):
    return a[:, None, None] + b[None, :, None] * c[None, None, :]


# -- einsum --------------------------------------------------------------------------------------

def einsum_bilinear(x, A, y):
    return np.einsum("i,ij,j->", x, A, y)


def einsum_batch_outer(U, V):
    return np.einsum("bi,bj->bij", U, V)


def einsum_row_dots(A, B):
    return np.einsum("ij,ij->i", A, B)


def einsum_trace_product(A, B):
    return np.einsum("ij,ji->", A, B)


def einsum_mahalanobis(X, mu, P):
    D = X - mu
    return np.einsum("ni,ij,nj->n", D, P, D)


# -- linalg ----------------------------------------------------------------------------------------

def linalg_solve_small(A, b):
    M = A @ A.T + 3 * np.eye(A.shape[0])
    return np.linalg.solve(M, b)


def lstsq_line_fit(x, y):
    A = np.vstack([x, np.ones(len(x))]).T
    coef, res, rank, sv = np.linalg.lstsq(A, y, rcond=None)
    return coef


def norm_rows_normalize(X):
    n = np.linalg.norm(X, axis=1, keepdims=True)
    n[n == 0] = 1
    return X / n


def frobenius_and_inf(A):
    return np.linalg.norm(A), np.linalg.norm(A, np.inf), np.linalg.norm(A, 1)


def det_inv_check(A):
    M = A + 4 * np.eye(A.shape[0])
    return np.linalg.det(M), np.linalg.inv(M) @ M


def gram_schmidt(A):
    Q = np.zeros_like(A)
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        for i in range(j):
            v -= (Q[:, i] @ A[:, j]) * Q[:, i]
        Q[:, j] = v / np.linalg.norm(v)
    return Q


# -- boolean indexing chains -----------------------------------------------------------------------

def bool_chain_filter(x, y):
    m = x > 0
    xs = x[m]
    ys = y[m]
    return xs[ys > xs.mean()] if xs.size else xs


def bool_mask_assign_cols(X):
    Y = X.copy()
    Y[Y < 0] = 0
    cols = Y.sum(axis=0) > 1
    return Y[:, cols]


def bool_and_or_not(a, b):
    m = (a > 0.3) & ~(b > 0.6) | (a + b > 1.5)
    return np.count_nonzero(m), a[m].sum()


def nonzero_pairs(A):
    r, c = np.nonzero(A > 0.5)
    return r * A.shape[1] + c


# -- where -----------------------------------------------------------------------------------------

def where_nested3(x):
    return np.where(x < -1, -1.0, np.where(x > 1, 1.0, np.where(np.abs(x) < 0.1, 0.0, x)))


def where_huber(r, d):
    a = np.abs(r)
    return np.where(a <= d, 0.5 * r * r, d * (a - 0.5 * d))


def where_int_classes(x):
    return np.where(x > 0, np.where(x > 10, 2, 1), np.where(x < -10, -2, 0))


# -- binning ---------------------------------------------------------------------------------------

def digitize_hist(x, edges):
    idx = np.digitize(x, edges)
    return np.bincount(idx, minlength=len(edges) + 1)


def clip_to_bins(x, lo, hi, nb):
    b = ((x - lo) / (hi - lo) * nb).astype(np.int64)
    return np.clip(b, 0, nb - 1)


def searchsorted_lookup(table_x, table_y, q):
    i = np.searchsorted(table_x, q, side="right") - 1
    i = np.clip(i, 0, len(table_x) - 1)
    return table_y[i]


def digitize_right_decreasing(x):
    edges = np.array([3.0, 2.0, 1.0, 0.0])
    return np.digitize(x, edges, right=True)


# -- calculus ------------------------------------------------------------------------------------

def diff_n2_axis1(A):
    return np.diff(A, n=2, axis=1)


def gradient_nonuniform(y, x):
    return np.gradient(y, x)


def trapz_cumulative(y, dx):
    return np.concatenate(([0.0], np.cumsum((y[1:] + y[:-1]) * dx / 2)))


def trapz_x(y, x):
    return np.trapezoid(y, x)


def gradient_2d_axes(F):
    gy, gx = np.gradient(F, 0.5, 2.0)
    return np.hypot(gx, gy)


# -- stencils ----------------------------------------------------------------------------------

def roll_laplacian_periodic(u):
    return (np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u)


def pad_reflect_blur(x):
    p = np.pad(x, 1, mode="reflect")
    return (p[:-2] + p[1:-1] + p[2:]) / 3


def pad_constant_box2d(img):
    p = np.pad(img, ((1, 1), (1, 1)), mode="constant", constant_values=0)
    out = np.zeros_like(img)
    for di in range(3):
        for dj in range(3):
            out += p[di:di + img.shape[0], dj:dj + img.shape[1]]
    return out / 9


def roll_shift_diff(x, k):
    return x - np.roll(x, k)


# -- grids ---------------------------------------------------------------------------------------

def meshgrid_gaussian(n, sigma):
    ax = np.arange(n) - (n - 1) / 2
    xx, yy = np.meshgrid(ax, ax)
    g = np.exp(-(xx ** 2 + yy ** 2) / (2 * sigma ** 2))
    return g / g.sum()


def meshgrid_ij_eval(x, y):
    X, Y = np.meshgrid(x, y, indexing="ij")
    return np.sin(X) * np.cos(Y)


def radial_profile(img):
    h, w = img.shape
    yy, xx = np.indices((h, w))
    r = np.sqrt((xx - w // 2) ** 2 + (yy - h // 2) ** 2).astype(np.int64)
    tot = np.bincount(r.ravel(), weights=img.ravel())
    cnt = np.bincount(r.ravel())
    return tot / np.maximum(cnt, 1)


# -- ranking ---------------------------------------------------------------------------------------

def rank_dense(x):
    u, inv = np.unique(x, return_inverse=True)
    return inv + 1


def rank_percentile(x):
    r = np.argsort(np.argsort(x, kind="stable"), kind="stable")
    return r / max(len(x) - 1, 1)


def topk_indices_sorted(x, k):
    idx = np.argsort(x)[::-1][:k]
    return idx, x[idx]


def argsort_unique_counts(x):
    u, c = np.unique(x, return_counts=True)
    order = np.argsort(c)
    return u[order]


def argpartition_smallest(x, k):
    idx = np.argpartition(x, k)[:k]
    return np.sort(x[idx])


# -- cumprod / interp ------------------------------------------------------------------------------

def cumprod_growth(r):
    return np.cumprod(1 + r) - 1


def cumprod_axis0_survival(h):
    return np.cumprod(1 - h, axis=0)


def interp_fill_nans(y):
    x = np.arange(len(y))
    good = ~np.isnan(y)
    out = y.copy()
    out[~good] = np.interp(x[~good], x[good], y[good])
    return out


def interp_periodic(xq, xp, fp):
    return np.interp(xq, xp, fp, period=2 * np.pi)


# -- image ----------------------------------------------------------------------------------------

def hwc_to_chw_normalize(img, mean, std):
    x = img.astype(np.float64) / 255.0
    x = (x - mean) / std
    return x.transpose(2, 0, 1)


def block_reduce_max(img, b):
    h, w = img.shape
    return img[:h - h % b, :w - w % b].reshape(h // b, b, w // b, b).max(axis=(1, 3))


def patches_to_rows(img, p):
    h, w = img.shape
    return img.reshape(h // p, p, w // p, p).swapaxes(1, 2).reshape(-1, p * p)


def rot90_flip_sum(img):
    return np.rot90(img) + np.fliplr(img).T


def clahe_like_stretch(img):
    lo, hi = np.percentile(img, [2, 98])
    return np.clip((img - lo) / (hi - lo + 1e-12), 0, 1)


# -- ML blocks -------------------------------------------------------------------------------------

def kmeans_step(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    lab = d.argmin(axis=1)
    newC = C.copy()
    for k in range(C.shape[0]):
        m = lab == k
        if m.any():
            newC[k] = X[m].mean(axis=0)
    return lab, newC


def kmeans_step_bincount(X, C):
    d = np.linalg.norm(X[:, None, :] - C[None, :, :], axis=2)
    lab = np.argmin(d, axis=1)
    k = C.shape[0]
    cnt = np.bincount(lab, minlength=k)
    newC = np.zeros_like(C)
    for j in range(X.shape[1]):
        newC[:, j] = np.bincount(lab, weights=X[:, j], minlength=k)
    return np.where(cnt[:, None] > 0, newC / np.maximum(cnt, 1)[:, None], C)


def pca_svd(X, k):
    Xc = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    return (S[:k] ** 2) / (len(X) - 1)


def pca_project_abs(X, k):
    Xc = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    return np.abs(Xc @ Vt[:k].T)


def softmax_stable_rows(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=1, keepdims=True)


def logsumexp_axis(Z):
    m = np.max(Z, axis=0)
    return m + np.log(np.sum(np.exp(Z - m), axis=0))


def log_softmax_nll(Z, y):
    m = Z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(Z - m).sum(axis=1))
    return np.mean(lse - Z[np.arange(len(y)), y])


def onehot_indexing(y, k):
    out = np.zeros((len(y), k))
    out[np.arange(len(y)), y] = 1
    return out


def onehot_eye_take(y, k):
    return np.eye(k, dtype=np.int64)[y]


def confusion_bincount(yt, yp, k):
    return np.bincount(yt * k + yp, minlength=k * k).reshape(k, k)


def precision_recall(yt, yp, k):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (yt, yp), 1)
    tp = np.diag(cm)
    prec = tp / np.maximum(cm.sum(axis=0), 1)
    rec = tp / np.maximum(cm.sum(axis=1), 1)
    f1 = np.where(prec + rec > 0, 2 * prec * rec / np.where(prec + rec > 0, prec + rec, 1), 0.0)
    return prec, rec, f1


def auc_rank(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    npos = labels.sum()
    nneg = len(labels) - npos
    return (ranks[labels == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)


def logaddexp_pairs(a, b):
    return np.logaddexp(a, b), np.logaddexp2(a, b)


def sigmoid_stable(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))


def linear_regression_gd(X, y, lr, steps):
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        grad = X.T @ (X @ w - y) / len(y)
        w -= lr * grad
    return w


# -- returned items from branches ----------------------------------------------------------------

def branch_return_kinds(x, flag):
    if flag:
        out = x * 2
    else:
        out = x[x > 0]
    return out


def branch_scalar_or_array(x, mode):
    if mode == 0:
        r = x.sum()
    else:
        r = x.cumsum()
    return r


def convolve_valid_short_first(x, k):
    return np.convolve(k, x, mode="valid")


def convolve_same_short_first(x, k):
    return np.convolve(k, x, mode="same")


def logaddexp2_reduce(x):
    return np.logaddexp2.reduce(x)


def bincount_matrix_row(L):
    M = L % 4
    return np.bincount(M[0], minlength=4) + np.bincount(M[-1], minlength=4)


CASES = [
    # groupby
    Case("groupby_sum_count", groupby_sum_count, lambda r: (lambda n: (r.integers(0, 5, n), r.random(n)))(_n(r, 12)), rtol=1e-7, atol=1e-9),
    Case("groupby_std", groupby_std, lambda r: (lambda n: (r.integers(0, 4, n), r.standard_normal(n)))(_n(r, 15)),
         rtol=1e-7, atol=1e-9),
    Case("groupby_zscore", groupby_zscore, lambda r: (lambda n: (r.integers(0, 3, n), r.standard_normal(n)))(_n(r, 10)),
         rtol=1e-6, atol=1e-9),
    Case("groupby_max_sorted", groupby_max_sorted, lambda r: (lambda n: (r.integers(0, 4, n), r.random(n)))(_n(r, 11))),
    Case("groupby_first_index", groupby_first_index, lambda r: (r.integers(-3, 3, _n(r, 9)),)),
    Case("groupby_size_sorted_desc", groupby_size_sorted_desc, lambda r: (r.integers(0, 6, _n(r, 20)),)),
    Case("group_rank_within", group_rank_within, lambda r: (lambda n: (r.integers(0, 3, n), r.random(n)))(_n(r, 10))),
    Case("groupby_2d_matrix", groupby_2d_matrix, lambda r: (lambda n: (r.integers(0, 3, n), r.random((n, 3))))(_n(r, 9)),
         rtol=1e-7, atol=1e-9),
    Case("crosstab", crosstab, lambda r: (lambda n: (r.integers(0, 3, n), r.integers(5, 9, n)))(_n(r, 14))),
    Case("weighted_group_mean_minlength", weighted_group_mean_minlength,
         lambda r: (lambda n: (r.integers(0, 4, n), r.random(n), r.standard_normal(n), 6))(_n(r, 10)),
         rtol=1e-7, atol=1e-9),
    # rolling
    Case("rolling_sum_cumsum", rolling_sum_cumsum, lambda r: (r.random(_n(r, 10, 3)), 3), rtol=1e-7, atol=1e-9),
    Case("rolling_mean_swv", rolling_mean_swv, lambda r: (r.random(_n(r, 10, 4)), 4), rtol=1e-7, atol=1e-9),
    Case("rolling_max_swv", rolling_max_swv, lambda r: (r.random(_n(r, 10, 3)), 3)),
    Case("rolling_median_swv", rolling_median_swv, lambda r: (r.random(_n(r, 10, 5)), 5)),
    Case("rolling_zscore", rolling_zscore, lambda r: (r.standard_normal(_n(r, 12, 4)), 4), rtol=1e-6, atol=1e-8),
    Case("as_strided_frames", as_strided_frames, lambda r: (r.random(_n(r, 13, 4)), 4, 3), rtol=1e-7, atol=1e-9),
    Case("swv_2d_patches_mean", swv_2d_patches_mean, lambda r: (r.random((_n(r, 6, 3), 5)),), rtol=1e-7, atol=1e-9),
    Case("ewm_mean_loop", ewm_mean_loop, lambda r: (r.standard_normal(_n(r, 9)), 0.3), rtol=1e-7, atol=1e-9),
    Case("expanding_mean", expanding_mean, lambda r: (r.standard_normal(_n(r, 9, 0)),), rtol=1e-7, atol=1e-9),
    Case("rolling_count_above", rolling_count_above, lambda r: (r.random(_n(r, 10, 2)), 0.5, 2)),
    # outer
    Case("outer_diff_newaxis", outer_diff_newaxis, lambda r: (r.random(_n(r, 4, 0)), r.random(3))),
    Case("gaussian_kernel_matrix", gaussian_kernel_matrix, lambda r: (r.random((_n(r, 5), 3)), 0.7),
         rtol=1e-7, atol=1e-9),
    Case("outer_and_mask", outer_and_mask, lambda r: (r.standard_normal(_n(r, 5)), r.standard_normal(4))),
    Case("rbf_features", rbf_features, lambda r: (r.random(_n(r, 6)), np.linspace(0, 1, 4), 0.25),
         rtol=1e-7, atol=1e-9),
    Case("cartesian_sum_triple", cartesian_sum_triple, lambda r: (r.random(2), r.random(_n(r, 3)), r.random(4))),
    # einsum
    Case("einsum_bilinear", einsum_bilinear, lambda r: (r.random(4), r.random((4, 3)), r.random(3)), rtol=1e-7),
    Case("einsum_batch_outer", einsum_batch_outer, lambda r: (lambda b: (r.random((b, 2)), r.random((b, 4))))(_n(r, 3))),
    Case("einsum_row_dots", einsum_row_dots, lambda r: (lambda n: (r.random((n, 4)), r.random((n, 4))))(_n(r, 5)),
         rtol=1e-7),
    Case("einsum_trace_product", einsum_trace_product, lambda r: (r.random((3, 4)), r.random((4, 3))), rtol=1e-7),
    Case("einsum_mahalanobis", einsum_mahalanobis, lambda r: (r.random((_n(r, 5), 3)), r.random(3),
                                                              np.eye(3) + 0.1), rtol=1e-7),
    # linalg
    Case("linalg_solve_small", linalg_solve_small, lambda r: (r.standard_normal((4, 4)), r.standard_normal(4)),
         rtol=1e-6, atol=1e-9),
    Case("lstsq_line_fit", lstsq_line_fit, lambda r: (lambda x: (x, 2 * x + 1 + 0.1 * r.standard_normal(len(x))))(
        r.random(_n(r, 8, 3))), rtol=1e-6, atol=1e-9),
    Case("norm_rows_normalize", norm_rows_normalize, lambda r: (r.standard_normal((4, 3)) * (r.random((4, 1)) > 0.3),),
         rtol=1e-7, atol=1e-9),
    Case("frobenius_and_inf", frobenius_and_inf, lambda r: (r.standard_normal((3, 5)),), rtol=1e-7, atol=1e-9),
    Case("det_inv_check", det_inv_check, lambda r: (r.standard_normal((3, 3)),), rtol=1e-6, atol=1e-9),
    Case("gram_schmidt", gram_schmidt, lambda r: (r.standard_normal((5, 3)),), rtol=1e-6, atol=1e-9),
    # boolean chains
    Case("bool_chain_filter", bool_chain_filter, lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(
        _n(r, 12))),
    Case("bool_mask_assign_cols", bool_mask_assign_cols, lambda r: (r.standard_normal((5, 4)),)),
    Case("bool_and_or_not", bool_and_or_not, lambda r: (lambda n: (r.random(n), r.random(n)))(_n(r, 10)), rtol=1e-7, atol=1e-9),
    Case("nonzero_pairs", nonzero_pairs, lambda r: (r.random((3, 4)),)),
    # where
    Case("where_nested3", where_nested3, lambda r: (r.standard_normal(_n(r, 12)) * 1.5,)),
    Case("where_huber", where_huber, lambda r: (r.standard_normal(_n(r, 9)), 1.0)),
    Case("where_int_classes", where_int_classes, lambda r: (r.integers(-20, 20, _n(r, 9)),)),
    # binning
    Case("digitize_hist", digitize_hist, lambda r: (r.random(_n(r, 15)), np.array([0.2, 0.5, 0.9]))),
    Case("clip_to_bins", clip_to_bins, lambda r: (r.standard_normal(_n(r, 10)), -1.0, 1.0, 5)),
    Case("searchsorted_lookup", searchsorted_lookup, lambda r: (np.array([0.0, 1.0, 2.5, 4.0]),
                                                                np.array([10, 20, 30, 40]), r.random(_n(r, 7)) * 5 - 0.5)),
    Case("digitize_right_decreasing", digitize_right_decreasing, lambda r: (np.round(r.random(_n(r, 9)) * 4 - 0.5),)),
    # calculus
    Case("diff_n2_axis1", diff_n2_axis1, lambda r: (r.random((3, _n(r, 6, 2))),), rtol=1e-7, atol=1e-9),
    Case("gradient_nonuniform", gradient_nonuniform, lambda r: (r.random(6), np.cumsum(r.random(6) + 0.1)),
         rtol=1e-6, atol=1e-9),
    Case("trapz_cumulative", trapz_cumulative, lambda r: (r.random(_n(r, 7)), 0.1), rtol=1e-7, atol=1e-9),
    Case("trapz_x", trapz_x, lambda r: (lambda n: (r.random(n), np.sort(r.random(n))))(_n(r, 7, 2)), rtol=1e-7, atol=1e-9),
    Case("gradient_2d_axes", gradient_2d_axes, lambda r: (r.random((4, 5)),), rtol=1e-7, atol=1e-9),
    # stencils
    Case("roll_laplacian_periodic", roll_laplacian_periodic, lambda r: (r.random((_n(r, 5, 1), 4)),),
         rtol=1e-7, atol=1e-9),
    Case("pad_reflect_blur", pad_reflect_blur, lambda r: (r.random(_n(r, 8, 2)),), rtol=1e-7, atol=1e-9),
    Case("pad_constant_box2d", pad_constant_box2d, lambda r: (r.random((_n(r, 5, 1), 4)),), rtol=1e-7, atol=1e-9),
    Case("roll_shift_diff", roll_shift_diff, lambda r: (r.random(_n(r, 7)), 2)),
    # grids
    Case("meshgrid_gaussian", meshgrid_gaussian, lambda r: (int(r.integers(1, 6)), 1.2), rtol=1e-7, atol=1e-9),
    Case("meshgrid_ij_eval", meshgrid_ij_eval, lambda r: (r.random(_n(r, 4)), r.random(3)), rtol=1e-7, atol=1e-9),
    Case("radial_profile", radial_profile, lambda r: (r.random((5, 6)),), rtol=1e-7, atol=1e-9),
    # ranking
    Case("rank_dense", rank_dense, lambda r: (r.integers(0, 5, _n(r, 9)),)),
    Case("rank_percentile", rank_percentile, lambda r: (r.random(_n(r, 7)),)),
    Case("topk_indices_sorted", topk_indices_sorted, lambda r: (r.permutation(10).astype(np.float64), 3)),
    Case("argsort_unique_counts", argsort_unique_counts, lambda r: (np.repeat(np.arange(5), [3, 1, 4, 2, 5])[
        r.permutation(15)],)),
    Case("argpartition_smallest", argpartition_smallest, lambda r: (r.random(_n(r, 9, 3)), 2)),
    # cumprod / interp
    Case("cumprod_growth", cumprod_growth, lambda r: (r.standard_normal(_n(r, 8)) * 0.05,), rtol=1e-7, atol=1e-9),
    Case("cumprod_axis0_survival", cumprod_axis0_survival, lambda r: (r.random((_n(r, 5), 3)) * 0.3,),
         rtol=1e-7, atol=1e-9),
    Case("interp_fill_nans", interp_fill_nans, lambda r: (np.where((r.random(9) < 0.3) & (np.arange(9) % 8 != 0),
                                                                    np.nan, r.random(9)),), rtol=1e-7, atol=1e-9),
    Case("interp_periodic", interp_periodic, lambda r: (r.random(_n(r, 6)) * 10 - 3, np.linspace(0, 6, 5),
                                                        r.random(5)), rtol=1e-7, atol=1e-9),
    # image
    Case("hwc_to_chw_normalize", hwc_to_chw_normalize, lambda r: (r.integers(0, 256, (3, 4, 3)).astype(np.uint8),
                                                                  np.array([0.5, 0.4, 0.3]), np.array([0.2, 0.25, 0.3])),
         rtol=1e-7, atol=1e-9),
    Case("block_reduce_max", block_reduce_max, lambda r: (r.random((7, _n(r, 9, 2))), 2)),
    Case("patches_to_rows", patches_to_rows, lambda r: (r.random((4, 6)), 2)),
    Case("rot90_flip_sum", rot90_flip_sum, lambda r: (r.random((4, 4)),)),
    Case("clahe_like_stretch", clahe_like_stretch, lambda r: (r.random((5, 5)),), rtol=1e-7, atol=1e-9),
    # ML
    Case("kmeans_step", kmeans_step, lambda r: (r.random((_n(r, 12, 2), 2)), r.random((3, 2))), rtol=1e-7, atol=1e-9),
    Case("kmeans_step_bincount", kmeans_step_bincount, lambda r: (r.random((_n(r, 12, 2), 2)), r.random((3, 2))),
         rtol=1e-7, atol=1e-9),
    Case("pca_svd", pca_svd, lambda r: (r.standard_normal((8, 4)), 2), rtol=1e-6, atol=1e-9),
    Case("pca_project_abs", pca_project_abs, lambda r: (r.standard_normal((8, 3)), 2), rtol=1e-6, atol=1e-9),
    Case("softmax_stable_rows", softmax_stable_rows, lambda r: (r.standard_normal((_n(r, 4), 5)) * 5,),
         rtol=1e-7, atol=1e-12),
    Case("logsumexp_axis", logsumexp_axis, lambda r: (r.standard_normal((6, _n(r, 3))) * 10,), rtol=1e-7, atol=1e-9),
    Case("log_softmax_nll", log_softmax_nll, lambda r: (lambda n: (r.standard_normal((n, 4)), r.integers(0, 4, n)))(
        _n(r, 6)), rtol=1e-7, atol=1e-9),
    Case("onehot_indexing", onehot_indexing, lambda r: (r.integers(0, 4, _n(r, 6, 0)), 4)),
    Case("onehot_eye_take", onehot_eye_take, lambda r: (r.integers(0, 3, _n(r, 6)), 3)),
    Case("confusion_bincount", confusion_bincount, lambda r: (lambda n: (r.integers(0, 3, n), r.integers(0, 3, n), 3))(
        _n(r, 12))),
    Case("precision_recall", precision_recall, lambda r: (lambda n: (r.integers(0, 3, n), r.integers(0, 3, n), 3))(
        _n(r, 12)), rtol=1e-7, atol=1e-9),
    Case("auc_rank", auc_rank, lambda r: (r.random(10), np.array([0, 1] * 5)[r.permutation(10)]), rtol=1e-7),
    Case("logaddexp_pairs", logaddexp_pairs, lambda r: (lambda n: (r.standard_normal(n) * 20, r.standard_normal(n) * 20))(_n(r, 5)),
         rtol=1e-7, atol=1e-9),
    Case("sigmoid_stable", sigmoid_stable, lambda r: (r.standard_normal(_n(r, 8)) * 30,), rtol=1e-7, atol=1e-12),
    Case("linear_regression_gd", linear_regression_gd, lambda r: (r.random((6, 2)), r.random(6), 0.1, 5),
         rtol=1e-7, atol=1e-9),
    # the session-34 open refusals
    Case("branch_return_kinds", branch_return_kinds, lambda r: (r.standard_normal(_n(r, 6)), bool(r.integers(0, 2)))),
    Case("branch_scalar_or_array", branch_scalar_or_array, lambda r: (r.random(5), int(r.integers(0, 2))),
         rtol=1e-7, atol=1e-9),
    Case("convolve_valid_short_first", convolve_valid_short_first, lambda r: (r.random(_n(r, 8, 3)), r.random(3)),
         rtol=1e-7, atol=1e-9),
    Case("convolve_same_short_first", convolve_same_short_first, lambda r: (r.random(_n(r, 8, 3)), r.random(3)),
         rtol=1e-7, atol=1e-9),
    Case("logaddexp2_reduce", logaddexp2_reduce, lambda r: (r.standard_normal(_n(r, 6)) * 5,), rtol=1e-7, atol=1e-9),
    Case("bincount_matrix_row", bincount_matrix_row, lambda r: (r.integers(0, 50, (3, _n(r, 6))),)),
]
