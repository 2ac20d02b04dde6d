"""np39's batch: scikit-learn-style preprocessing and estimators (scalers, one-hot through np.eye,
polynomial features, kNN with argpartition, k-means with bincount/add.at, logistic and softmax
regression steps, PCA pieces), image code (gamma, box blur through cumsum, Sobel by slicing,
histograms, rgb2gray with @), signal code (convolve/correlate modes, interp, searchsorted,
gradient, Hanning windows), finance (returns, rolling means, drawdown), physics (Verlet with
np.roll, pairwise forces with fill_diagonal), masks/select/nan-functions, unique/sort,
reshapes and stacks, keepdims, dtype= and out=, integer and bool dtypes, tuples; written before
looking at what is supported.  Two were batch_np37.poly_features2 and numba_fe21.ewma (same bodies
and argument types): dropped."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


# -- preprocessing ---------------------------------------------------------------------------

def minmax_scale(X, lo, hi):
    mn = X.min(axis=0)
    mx = X.max(axis=0)
    rng = np.where(mx - mn == 0, 1.0, mx - mn)
    return lo + (X - mn) / rng * (hi - lo)


def robust_scale(X):
    med = np.median(X, axis=0)
    q1, q3 = np.percentile(X, [25, 75], axis=0)
    return (X - med) / (q3 - q1 + 1e-12)


def onehot_eye(y, k):
    return np.eye(k)[y], np.eye(k, dtype=np.int64)[y].sum(axis=0)


def maxabs_scale_f32(X):
    scale = np.abs(X).max(axis=0, keepdims=True)
    scale[scale == 0] = 1
    return X / scale


def label_encode(y):
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes


def add_bias_column(X):
    return np.hstack([np.ones((X.shape[0], 1)), X]), np.concatenate((X, X ** 2), axis=1)


# -- estimators -------------------------------------------------------------------------------

def knn_argpartition(Xtr, ytr, Xte, k):
    d2 = ((Xte[:, None, :] - Xtr[None, :, :]) ** 2).sum(axis=-1)
    idx = np.argpartition(d2, k, axis=1)[:, :k]
    votes = ytr[idx]
    return (votes.mean(axis=1) > 0.5).astype(np.int64)


def knn_argsort_dist(X, q, k):
    d = np.sqrt(np.sum((X - q) ** 2, axis=1))
    order = np.argsort(d)
    return order[:k], d[order[:k]]


def kmeans_bincount(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    lab = np.argmin(d, axis=1)
    k = C.shape[0]
    counts = np.bincount(lab, minlength=k)
    newC = np.zeros_like(C)
    np.add.at(newC, lab, X)
    newC = newC / np.maximum(counts, 1)[:, None]
    return lab, counts, newC


def kmeans_inertia(X, C, lab):
    return np.sum((X - C[lab]) ** 2)


def logistic_step(X, y, w, lr):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    grad = X.T @ (p - y) / X.shape[0]
    loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
    return w - lr * grad, loss


def softmax_regression_step(X, Y, W, lr):
    Z = X @ W
    Z = Z - Z.max(axis=1, keepdims=True)
    E = np.exp(Z)
    P = E / E.sum(axis=1, keepdims=True)
    G = X.T @ (P - Y) / X.shape[0]
    return W - lr * G, np.argmax(P, axis=1)


def ridge_closed_form(X, y, alpha):
    d = X.shape[1]
    A = X.T @ X + alpha * np.eye(d)
    return np.linalg.solve(A, X.T @ y)


def pca_cov_power(X, iters):
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / (X.shape[0] - 1)
    v = np.ones(C.shape[0])
    for _ in range(iters):
        v = C @ v
        v = v / np.linalg.norm(v)
    return v, v @ C @ v, Xc @ v


def explained_variance(X):
    Xc = X - X.mean(axis=0, keepdims=True)
    var = Xc.var(axis=0, ddof=1)
    return var / var.sum(), np.cumsum(var[::-1])[::-1]


def perceptron_epochs(X, y, epochs):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(epochs):
        for i in range(X.shape[0]):
            if y[i] * (X[i] @ w + b) <= 0:
                w += y[i] * X[i]
                b += y[i]
    return w, b


def confusion_matrix(y_true, y_pred, k):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (y_true, y_pred), 1)
    acc = np.trace(cm) / cm.sum()
    return cm, acc


# -- images -----------------------------------------------------------------------------------

def gamma_u8(img, gamma):
    f = img.astype(np.float64) / 255.0
    return np.clip(np.round(255.0 * f ** gamma), 0, 255).astype(np.uint8)


def box_blur_cumsum(img, r):
    c = np.cumsum(np.cumsum(img, axis=0), axis=1)
    c = np.pad(c, ((1, 0), (1, 0)))
    k = 2 * r + 1
    s = c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]
    return s / (k * k)


def sobel_slices(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    return np.hypot(gx, gy), np.arctan2(gy, gx)


def hist_u8(img):
    h = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(h)
    return h, cdf / cdf[-1]


def histogram_float(x, bins):
    h, edges = np.histogram(x, bins=bins, range=(0.0, 1.0))
    return h, edges


def rgb2gray_matmul(img):
    w = np.array([0.299, 0.587, 0.114])
    return img @ w, (img[..., :3] @ w).astype(np.float32)


def flip_rotate(img):
    return img[::-1, :], img[:, ::-1].T, np.rot90(img)


def otsu_threshold(img):
    hist = np.bincount(img.ravel(), minlength=256).astype(np.float64)
    p = hist / hist.sum()
    omega = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    mu_t = mu[-1]
    sigma_b = (mu_t * omega - mu) ** 2 / (omega * (1.0 - omega) + 1e-12)
    return int(np.argmax(sigma_b))


def tile_mean_reshape(img, t):
    h, w = img.shape
    return img[:h // t * t, :w // t * t].reshape(h // t, t, w // t, t).mean(axis=(1, 3))


# -- signals ----------------------------------------------------------------------------------

def convolve_modes(x, h):
    return np.convolve(x, h), np.convolve(x, h, mode="same"), np.convolve(x, h, mode="valid")


def correlate_full_lag(x, y):
    c = np.correlate(x, y, mode="full")
    return c, int(np.argmax(c)) - (y.shape[0] - 1)


def interp_resample(t, y, n):
    tn = np.linspace(t[0], t[-1], n)
    return tn, np.interp(tn, t, y)


def searchsorted_bins(edges, x):
    i = np.searchsorted(edges, x, side="right") - 1
    i = np.clip(i, 0, edges.shape[0] - 2)
    return i, np.bincount(i, minlength=edges.shape[0] - 1)


def gradient_spacing(y, dx):
    return np.gradient(y, dx), np.diff(y) / dx, np.diff(y, n=2)


def hann_window_energy(x):
    w = np.hanning(x.shape[0])
    xw = x * w
    return xw, np.sum(xw ** 2) / np.sum(w ** 2)


def zero_crossings(x):
    s = np.sign(x)
    return np.count_nonzero(np.diff(s)), np.nonzero(s[:-1] * s[1:] < 0)[0]


def envelope_peak(x, w):
    env = np.convolve(np.abs(x), np.ones(w) / w, mode="same")
    return env, np.argmax(env)


# -- finance ----------------------------------------------------------------------------------

def log_returns_stats(p):
    r = np.diff(np.log(p))
    return r.mean(), r.std(ddof=1), np.sqrt(252) * r.mean() / r.std(ddof=1)


def rolling_mean_cumsum(x, w):
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


def drawdown(p):
    peak = np.maximum.accumulate(p)
    dd = (p - peak) / peak
    return dd, dd.min(), int(np.argmin(dd))


def portfolio_weights(R):
    mu = R.mean(axis=0)
    S = np.cov(R, rowvar=False)
    w = np.linalg.solve(S, mu)
    return w / w.sum()


# -- physics ----------------------------------------------------------------------------------

def verlet_roll(u, u_prev, c2, steps):
    for _ in range(steps):
        lap = np.roll(u, 1) + np.roll(u, -1) - 2 * u
        u_next = 2 * u - u_prev + c2 * lap
        u_prev = u
        u = u_next
    return u


def pairwise_forces(pos, m):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d ** 2).sum(axis=-1)
    np.fill_diagonal(r2, 1.0)
    inv = m[None, :] / r2 ** 1.5
    np.fill_diagonal(inv, 0.0)
    return (d * inv[:, :, None]).sum(axis=1)


def kinetic_potential(v, m, pos):
    ke = 0.5 * np.sum(m[:, None] * v ** 2)
    d = np.sqrt(((pos[:, None] - pos[None, :]) ** 2).sum(-1))
    iu = np.triu_indices(pos.shape[0], 1)
    pe = -np.sum(m[iu[0]] * m[iu[1]] / d[iu])
    return ke, pe


def heat_2d_roll(u, a, steps):
    for _ in range(steps):
        u = u + a * (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1)
                     + np.roll(u, -1, axis=1) - 4 * u)
    return u


# -- masks, nan, select ----------------------------------------------------------------------

def select_piecewise(x):
    return np.select([x < -1, x > 1], [-1.0, x ** 2], default=x)


def nan_stats(X):
    return np.nanmean(X, axis=0), np.nanstd(X, axis=0), np.nansum(X), np.isnan(X).sum(axis=1)


def nanmedian_fill(X):
    med = np.nanmedian(X, axis=0)
    return np.where(np.isnan(X), med, X)


def clip_out_inplace(x, lo, hi):
    np.clip(x, lo, hi, out=x)
    return x.sum()


def masked_fill_int(a, t):
    b = a.copy()
    b[b > t] = t
    return b, (a > t).sum(dtype=np.int32)


def unique_counts(x):
    u, c = np.unique(x, return_counts=True)
    return u, c, u[np.argmax(c)]


def sort_rows_desc(A):
    return -np.sort(-A, axis=1), np.sort(A, axis=None)


# -- shapes, dtypes, out= ----------------------------------------------------------------------

def reshape_transpose_stack(a):
    M = a.reshape(2, -1)
    return np.stack([M, M * 2]), M.T.copy(), np.vstack((M, M)).shape[0]


def keepdims_norm(X):
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return X / n, n


def sum_dtype_int(a):
    return a.sum(dtype=np.int64), a.mean(dtype=np.float64), np.add.reduce(a, axis=0)


def ufunc_out_args(x, y):
    out = np.empty_like(x)
    np.multiply(x, y, out=out)
    np.add(out, 1.0, out=out)
    return out


def bool_logic(a, b):
    return np.logical_xor(a, b), a & ~b, np.logical_xor.reduce(a), (a | b).sum()


def int_floor_mod(a, b):
    return a // b, a % b, np.divmod(a, b)[0]


def f32_pipeline(x):
    y = x.astype(np.float32)
    z = np.sqrt(y * y + np.float32(1))
    return z, z.dtype == np.float32, z.mean()


def tuple_of_scalars(x):
    return x.max(), x.argmin(), float(x.sum()), int(x.shape[0])


def _rgb(r):
    return r.random((4, 5, 3))


def _pos(r):
    return r.standard_normal((_n(r, 5, 2), 3))


def _forces_args(r):
    pos = _pos(r)
    return pos, r.random(pos.shape[0]) + 0.5


CASES = [
    Case("minmax_scale", minmax_scale, lambda r: (r.standard_normal((6, 3)), 0.0, 1.0), rtol=1e-7, atol=1e-9),
    Case("robust_scale", robust_scale, lambda r: (r.standard_normal((7, 3)),), rtol=1e-7, atol=1e-9),
    Case("onehot_eye", onehot_eye, lambda r: (r.integers(0, 4, 6), 4)),
    Case("maxabs_scale_f32", maxabs_scale_f32, lambda r: (r.standard_normal((4, 3)).astype(np.float32),),
         rtol=1e-6, atol=1e-7),
    Case("label_encode", label_encode, lambda r: (r.integers(0, 5, 8),)),
    Case("add_bias_column", add_bias_column, lambda r: (r.standard_normal((4, 2)),)),
    Case("knn_argpartition", knn_argpartition, lambda r: (r.standard_normal((8, 2)), r.integers(0, 2, 8),
                                                          r.standard_normal((3, 2)), 3), rtol=1e-7, atol=1e-9),
    Case("knn_argsort_dist", knn_argsort_dist, lambda r: (r.standard_normal((8, 2)), r.standard_normal(2), 3),
         rtol=1e-7, atol=1e-9),
    Case("kmeans_bincount", kmeans_bincount, lambda r: (r.standard_normal((10, 2)), r.standard_normal((3, 2))),
         rtol=1e-7, atol=1e-9),
    Case("kmeans_inertia", kmeans_inertia, lambda r: (r.standard_normal((6, 2)), r.standard_normal((3, 2)),
                                                      r.integers(0, 3, 6)), rtol=1e-7, atol=1e-9),
    Case("logistic_step", logistic_step, lambda r: (r.standard_normal((6, 3)), (r.random(6) < 0.5) * 1.0,
                                                    r.standard_normal(3), 0.1), rtol=1e-7, atol=1e-9),
    Case("softmax_regression_step", softmax_regression_step,
         lambda r: (r.standard_normal((6, 3)), np.eye(4)[r.integers(0, 4, 6)], r.standard_normal((3, 4)), 0.1),
         rtol=1e-7, atol=1e-9),
    Case("ridge_closed_form", ridge_closed_form, lambda r: (r.standard_normal((6, 3)), r.standard_normal(6), 0.5),
         rtol=1e-7, atol=1e-9),
    Case("pca_cov_power", pca_cov_power, lambda r: (r.standard_normal((8, 3)), 5), rtol=1e-7, atol=1e-9),
    Case("explained_variance", explained_variance, lambda r: (r.standard_normal((6, 3)),), rtol=1e-7, atol=1e-9),
    Case("perceptron_epochs", perceptron_epochs, lambda r: (r.standard_normal((6, 2)),
                                                            np.where(r.random(6) < 0.5, -1.0, 1.0), 3),
         rtol=1e-7, atol=1e-9),
    Case("confusion_matrix", confusion_matrix, lambda r: (r.integers(0, 3, 9), r.integers(0, 3, 9), 3)),
    Case("gamma_u8", gamma_u8, lambda r: (r.integers(0, 256, (4, 5)).astype(np.uint8), 0.8)),
    Case("box_blur_cumsum", box_blur_cumsum, lambda r: (r.random((6, 7)), 1), rtol=1e-7, atol=1e-9),
    Case("sobel_slices", sobel_slices, lambda r: (r.random((5, 6)),), rtol=1e-7, atol=1e-9),
    Case("hist_u8", hist_u8, lambda r: (r.integers(0, 256, (4, 5)).astype(np.uint8),)),
    Case("histogram_float", histogram_float, lambda r: (r.random(20), 5)),
    Case("rgb2gray_matmul", rgb2gray_matmul, lambda r: (_rgb(r),), rtol=1e-6, atol=1e-7),
    Case("flip_rotate", flip_rotate, lambda r: (r.standard_normal((3, 4)),)),
    Case("otsu_threshold", otsu_threshold, lambda r: (r.integers(0, 256, (6, 6)).astype(np.uint8),)),
    Case("tile_mean_reshape", tile_mean_reshape, lambda r: (r.random((7, 9)), 2), rtol=1e-7, atol=1e-9),
    Case("convolve_modes", convolve_modes, lambda r: (r.standard_normal(8), r.standard_normal(3)), rtol=1e-7,
         atol=1e-9),
    Case("correlate_full_lag", correlate_full_lag, lambda r: (r.standard_normal(8), r.standard_normal(4)),
         rtol=1e-7, atol=1e-9),
    Case("interp_resample", interp_resample, lambda r: (np.sort(r.random(6)), r.standard_normal(6), 9),
         rtol=1e-7, atol=1e-9),
    Case("searchsorted_bins", searchsorted_bins, lambda r: (np.linspace(0, 1, 5), r.random(10) * 1.2 - 0.1)),
    Case("gradient_spacing", gradient_spacing, lambda r: (r.standard_normal(7), 0.5), rtol=1e-7, atol=1e-9),
    Case("hann_window_energy", hann_window_energy, lambda r: (r.standard_normal(_n(r, 8, 2)),), rtol=1e-7,
         atol=1e-9),
    Case("zero_crossings", zero_crossings, lambda r: (r.standard_normal(9),)),
    Case("envelope_peak", envelope_peak, lambda r: (r.standard_normal(10), 3), rtol=1e-7, atol=1e-9),
    Case("log_returns_stats", log_returns_stats, lambda r: (np.exp(np.cumsum(r.standard_normal(10) * 0.01)),),
         rtol=1e-7, atol=1e-9),
    Case("rolling_mean_cumsum", rolling_mean_cumsum, lambda r: (r.standard_normal(9), 3), rtol=1e-7, atol=1e-9),
    Case("drawdown", drawdown, lambda r: (np.exp(np.cumsum(r.standard_normal(10) * 0.1)),), rtol=1e-7, atol=1e-9),
    Case("portfolio_weights", portfolio_weights, lambda r: (r.standard_normal((12, 3)) * 0.01 + 0.001,),
         rtol=1e-6, atol=1e-9),
    Case("verlet_roll", verlet_roll, lambda r: (r.standard_normal(8), r.standard_normal(8), 0.2, 3), rtol=1e-7,
         atol=1e-9),
    Case("pairwise_forces", pairwise_forces, lambda r: _forces_args(r), rtol=1e-7, atol=1e-9),
    Case("kinetic_potential", kinetic_potential, lambda r: (r.standard_normal((4, 3)), r.random(4) + 0.5,
                                                            r.standard_normal((4, 3))), rtol=1e-7, atol=1e-9),
    Case("heat_2d_roll", heat_2d_roll, lambda r: (r.random((5, 6)), 0.1, 3), rtol=1e-7, atol=1e-9),
    Case("select_piecewise", select_piecewise, lambda r: (r.standard_normal(9) * 2,)),
    Case("nan_stats", nan_stats, lambda r: (np.where(r.random((5, 3)) < 0.2, np.nan, r.standard_normal((5, 3))),),
         rtol=1e-7, atol=1e-9),
    Case("nanmedian_fill", nanmedian_fill,
         lambda r: (np.where(r.random((5, 3)) < 0.2, np.nan, r.standard_normal((5, 3))),)),
    Case("clip_out_inplace", clip_out_inplace, lambda r: (r.standard_normal(7), -0.5, 0.5), rtol=1e-7, atol=1e-9),
    Case("masked_fill_int", masked_fill_int, lambda r: (r.integers(-5, 10, 8).astype(np.int32), 4)),
    Case("unique_counts", unique_counts, lambda r: (r.integers(0, 4, 9),)),
    Case("sort_rows_desc", sort_rows_desc, lambda r: (r.standard_normal((3, 4)),)),
    Case("reshape_transpose_stack", reshape_transpose_stack, lambda r: (r.standard_normal(6),)),
    Case("keepdims_norm", keepdims_norm, lambda r: (r.standard_normal((4, 3)),), rtol=1e-7, atol=1e-9),
    Case("sum_dtype_int", sum_dtype_int, lambda r: (r.integers(0, 200, (3, 4)).astype(np.uint8),)),
    Case("ufunc_out_args", ufunc_out_args, lambda r: (r.standard_normal(5), r.standard_normal(5))),
    Case("bool_logic", bool_logic, lambda r: (r.random(7) < 0.5, r.random(7) < 0.5)),
    Case("int_floor_mod", int_floor_mod, lambda r: (r.integers(-9, 9, 6), r.integers(1, 4, 6))),
    Case("f32_pipeline", f32_pipeline, lambda r: (r.standard_normal(6),), rtol=1e-6, atol=1e-7),
    Case("tuple_of_scalars", tuple_of_scalars, lambda r: (r.standard_normal(5),)),
]

