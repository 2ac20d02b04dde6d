"""fe33's batch: ~50 NumPy array programs in the style of data-science / physics scripts (whole
array expressions, slices, broadcasting, reductions along axes, views; no explicit loop nests)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=7, edge=1):
    return big if rng.integers(0, 3) else edge


# ---- normalisation ----------------------------------------------------------------------------
def standardize_cols(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    return (X - mu) / (sd + 1e-8)


def robust_scale_rows(X):
    lo = X.min(axis=1, keepdims=True)
    hi = X.max(axis=1, keepdims=True)
    return (X - lo) / np.maximum(hi - lo, 1e-12)


def l2_normalize_rows(X):
    norms = np.sqrt(np.sum(X ** 2, axis=1))
    return X / norms[:, np.newaxis]


def l1_normalize_cols(X):
    return X / np.abs(X).sum(axis=0, keepdims=True)


def unit_vectors_linalg(V):
    n = np.linalg.norm(V, axis=1)
    return V / n[:, None]


# ---- softmax / logsumexp ----------------------------------------------------------------------
def logsumexp_rows(Z):
    m = Z.max(axis=1)
    return m + np.log(np.exp(Z - m[:, None]).sum(axis=1))


def log_softmax_cols(Z):
    m = np.max(Z, axis=0, keepdims=True)
    s = Z - m
    return s - np.log(np.sum(np.exp(s), axis=0, keepdims=True))


def softmax_temperature(z, T):
    e = np.exp((z - z.max()) / T)
    return e / e.sum()


# ---- distances -------------------------------------------------------------------------------
def sq_dists_broadcast(A, B):
    d = A[:, None, :] - B[None, :, :]
    return (d ** 2).sum(axis=-1)


def sq_dists_expand(A, B):
    aa = (A * A).sum(axis=1)
    bb = (B * B).sum(axis=1)
    return aa[:, None] + bb[None, :] - 2.0 * A @ B.T


def cosine_sim_matrix(A, B):
    An = A / np.linalg.norm(A, axis=1, keepdims=True)
    Bn = B / np.linalg.norm(B, axis=1, keepdims=True)
    return An @ Bn.T


def manhattan_to_point(X, p):
    return np.abs(X - p).sum(axis=1)


def nearest_center(X, C):
    d = ((X[:, np.newaxis, :] - C[np.newaxis, :, :]) ** 2).sum(axis=2)
    return np.argmin(d, axis=1)


# ---- moving averages, differences ------------------------------------------------------------
def moving_avg_cumsum(x, w):
    c = np.cumsum(x)
    out = c[w - 1:].copy()
    out[1:] -= c[:-w]
    return out / w


def moving_avg_slices(x):
    return (x[:-2] + x[1:-1] + x[2:]) / 3.0


def ema_weights(x, alpha):
    k = np.arange(x.shape[0])
    w = (1 - alpha) ** k[::-1]
    return np.dot(w, x) / w.sum()


def central_diff(y, h):
    d = np.empty_like(y)
    d[1:-1] = (y[2:] - y[:-2]) / (2 * h)
    d[0] = (y[1] - y[0]) / h
    d[-1] = (y[-1] - y[-2]) / h
    return d


def second_diff(y):
    return np.diff(y, n=2)


def diff_cols(X):
    return np.diff(X, axis=0)


def trapezoid_area(y, x):
    return 0.5 * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]))


# ---- images ----------------------------------------------------------------------------------
def image_gradient_mag(img):
    gx = img[1:-1, 2:] - img[1:-1, :-2]
    gy = img[2:, 1:-1] - img[:-2, 1:-1]
    return np.sqrt(gx * gx + gy * gy)


def box3_sum_slices(img):
    return (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
            + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
            + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0


def threshold_where(img, t):
    return np.where(img > t, 1.0, 0.0)


def gamma_u8(img, g):
    f = img.astype(np.float64) / 255.0
    return (np.clip(f ** g, 0.0, 1.0) * 255.0).astype(np.uint8)


def rgb_to_gray(rgb):
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def flip_and_add(img):
    return img + img[::-1, ::-1]


def downsample2(img):
    return 0.25 * (img[::2, ::2] + img[1::2, ::2] + img[::2, 1::2] + img[1::2, 1::2])


# ---- clipping chains, masks ------------------------------------------------------------------
def clip_chain(x, lo, hi):
    y = np.maximum(x, lo)
    y = np.minimum(y, hi)
    return np.clip(y * 2.0, -1.0, 1.0)


def huber_loss(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)).mean()


def masked_mean_select(x, t):
    sel = x[x > t]
    return sel.mean() if sel.size > 0 else 0.0


def masked_sum_where(x, m):
    return np.where(m, x, 0.0).sum()


def masked_col_means(X, M):
    num = np.where(M, X, 0.0).sum(axis=0)
    den = M.sum(axis=0)
    return num / np.maximum(den, 1)


def relu_leaky(x, a):
    return np.where(x > 0, x, a * x)


# ---- shapes: newaxis, T, reshape, joins ------------------------------------------------------
def outer_centered(x, y):
    return np.outer(x - x.mean(), y - y.mean())


def gram_T(X):
    return X.T @ X


def reshape_block_means(x):
    return x.reshape(-1, 4).mean(axis=1)


def stack_features(x):
    return np.stack([x, x ** 2, np.sin(x)], axis=1)


def hstack_bias(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def concat_halves(x):
    h = x.shape[0] // 2
    return np.concatenate([x[h:], x[:h]])


def vstack_rows(a, b):
    return np.vstack([a, b]).sum(axis=0)


# ---- linear algebra --------------------------------------------------------------------------
def matvec_at(A, x):
    return A @ x


def vecmat_at(x, A):
    return x @ A


def quad_form(A, x):
    return x @ A @ x


def dot_chain(A, B, v):
    return np.dot(np.dot(A, B), v)


def einsum_trace_prod(A, B):
    return np.einsum("ij,ji->", A, B)


def einsum_rowdot(A, B):
    return np.einsum("ij,ij->i", A, B)


def power_iter_step(A, v):
    w = A @ v
    return w / np.linalg.norm(w)


# ---- argmax, in-place slices -----------------------------------------------------------------
def argmax_per_col(X):
    return np.argmax(X, axis=0), X.max(axis=0)


def accuracy(scores, labels):
    pred = np.argmax(scores, axis=1)
    return (pred == labels).mean()


def inplace_slice_update(x, s):
    x[1:-1] += s * (x[2:] - 2 * x[1:-1] + x[:-2])
    return x


def inplace_row_scale(X, w):
    X[:, 1:] *= w
    return X


def inplace_block(X):
    X[:2, :2] -= X[:2, :2].mean()
    return X


# ---- dtypes, scalars -------------------------------------------------------------------------
def f32_norm_rows(X):
    return np.sqrt(np.sum(X * X, axis=1))


def int_mean_center(a):
    return a - a.mean()


def int_sum_axis(A):
    return A.sum(axis=1), A.max(axis=0) - A.min(axis=0)


def mixed_f32_f64(a, b):
    return a * b + a.sum()


def int_over_float(a, s):
    return a * s + 1


def bool_fraction(x, t):
    return (x > t).mean(axis=0)


def physics_energy(m, v, k, x):
    return 0.5 * np.sum(m[:, None] * v ** 2) + 0.5 * k * np.sum(x ** 2)


def lj_potential(r, eps, sigma):
    sr6 = (sigma / r) ** 6
    return 4 * eps * (sr6 * sr6 - sr6)


def _u8(r, shape):
    return r.integers(0, 256, shape).astype(np.uint8)


CASES = [
    Case("standardize_cols", standardize_cols, lambda r: (r.standard_normal((_n(r), 4)),)),
    Case("robust_scale_rows", robust_scale_rows, lambda r: (r.standard_normal((5, _n(r, 6))),)),
    Case("l2_normalize_rows", l2_normalize_rows, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("l1_normalize_cols", l1_normalize_cols, lambda r: (r.standard_normal((4, _n(r))),)),
    Case("unit_vectors_linalg", unit_vectors_linalg, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("logsumexp_rows", logsumexp_rows, lambda r: (r.standard_normal((_n(r), 5)) * 3,)),
    Case("log_softmax_cols", log_softmax_cols, lambda r: (r.standard_normal((4, _n(r))) * 3,)),
    Case("softmax_temperature", softmax_temperature, lambda r: (r.standard_normal(_n(r, 8)), 0.7)),
    Case("sq_dists_broadcast", sq_dists_broadcast, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal((4, 3)))),
    Case("sq_dists_expand", sq_dists_expand, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal((4, 3)))),
    Case("cosine_sim_matrix", cosine_sim_matrix, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal((4, 3)))),
    Case("manhattan_to_point", manhattan_to_point, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal(3))),
    Case("nearest_center", nearest_center, lambda r: (r.standard_normal((_n(r), 2)), r.standard_normal((3, 2)))),
    Case("moving_avg_cumsum", moving_avg_cumsum, lambda r: (r.standard_normal(_n(r, 10, 3)), 3)),
    Case("moving_avg_slices", moving_avg_slices, lambda r: (r.standard_normal(_n(r, 10, 2)),)),
    Case("ema_weights", ema_weights, lambda r: (r.standard_normal(_n(r, 10)), 0.3)),
    Case("central_diff", central_diff, lambda r: (r.standard_normal(_n(r, 9, 2)), 0.1)),
    Case("second_diff", second_diff, lambda r: (r.standard_normal(_n(r, 9, 2)),)),
    Case("diff_cols", diff_cols, lambda r: (r.standard_normal((_n(r, 6, 1), 3)),)),
    Case("trapezoid_area", trapezoid_area, lambda r: (r.standard_normal(_n(r, 9)), np.sort(r.uniform(0, 1, 9)))),
    Case("image_gradient_mag", image_gradient_mag, lambda r: (r.standard_normal((_n(r, 7, 2), 6)),)),
    Case("box3_sum_slices", box3_sum_slices, lambda r: (r.standard_normal((_n(r, 7, 2), 6)),)),
    Case("threshold_where", threshold_where, lambda r: (r.standard_normal((_n(r), 5)), 0.2)),
    Case("gamma_u8", gamma_u8, lambda r: (_u8(r, (_n(r), 4)), 2.2)),
    Case("rgb_to_gray", rgb_to_gray, lambda r: (r.uniform(0, 1, (_n(r), 4, 3)),)),
    Case("flip_and_add", flip_and_add, lambda r: (r.standard_normal((_n(r), 5)),)),
    Case("downsample2", downsample2, lambda r: (r.standard_normal((2 * _n(r, 3), 6)),)),
    Case("clip_chain", clip_chain, lambda r: (r.standard_normal(_n(r, 9)), -0.3, 0.4)),
    Case("huber_loss", huber_loss, lambda r: (r.standard_normal(_n(r, 9)) * 2, 1.0)),
    Case("masked_mean_select", masked_mean_select, lambda r: (r.standard_normal(_n(r, 9)), 0.5)),
    Case("masked_sum_where", masked_sum_where, lambda r: (r.standard_normal((_n(r), 3)), r.random((1, 3)) > 0.5)),
    Case("masked_col_means", masked_col_means, lambda r: (r.standard_normal((6, _n(r, 4))), r.random((6, 4)) > 0.4)),
    Case("relu_leaky", relu_leaky, lambda r: (r.standard_normal((_n(r), 3)), 0.01)),
    Case("outer_centered", outer_centered, lambda r: (r.standard_normal(_n(r, 5)), r.standard_normal(4))),
    Case("gram_T", gram_T, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("reshape_block_means", reshape_block_means, lambda r: (r.standard_normal(4 * _n(r, 3)),)),
    Case("stack_features", stack_features, lambda r: (r.standard_normal(_n(r, 6)),)),
    Case("hstack_bias", hstack_bias, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("concat_halves", concat_halves, lambda r: (r.standard_normal(_n(r, 9)),)),
    Case("vstack_rows", vstack_rows, lambda r: (r.standard_normal(_n(r, 5)), r.standard_normal(5))),
    Case("matvec_at", matvec_at, lambda r: (r.standard_normal((_n(r), 4)), r.standard_normal(4))),
    Case("vecmat_at", vecmat_at, lambda r: (r.standard_normal(4), r.standard_normal((4, _n(r))))),
    Case("quad_form", quad_form, lambda r: (r.standard_normal((4, 4)), r.standard_normal(4))),
    Case("dot_chain", dot_chain, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal((3, 4)), r.standard_normal(4))),
    Case("einsum_trace_prod", einsum_trace_prod, lambda r: (r.standard_normal((3, _n(r))), r.standard_normal((7, 3)))),
    Case("einsum_rowdot", einsum_rowdot, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal((7, 3)))),
    Case("power_iter_step", power_iter_step, lambda r: (r.standard_normal((5, 5)), r.standard_normal(5))),
    Case("argmax_per_col", argmax_per_col, lambda r: (r.standard_normal((_n(r), 4)),)),
    Case("accuracy", accuracy, lambda r: (r.standard_normal((_n(r, 8), 3)), r.integers(0, 3, 8))),
    Case("inplace_slice_update", inplace_slice_update, lambda r: (r.standard_normal(_n(r, 9, 2)), 0.25)),
    Case("inplace_row_scale", inplace_row_scale, lambda r: (r.standard_normal((_n(r), 4)), r.standard_normal(3))),
    Case("inplace_block", inplace_block, lambda r: (r.standard_normal((_n(r, 4, 2), 3)),)),
    Case("f32_norm_rows", f32_norm_rows, lambda r: (r.standard_normal((_n(r), 5)).astype(np.float32),), rtol=1e-5),
    Case("int_mean_center", int_mean_center, lambda r: (r.integers(-9, 9, _n(r, 8)),)),
    Case("int_sum_axis", int_sum_axis, lambda r: (r.integers(-9, 9, (_n(r), 4)).astype(np.int32),)),
    Case("mixed_f32_f64", mixed_f32_f64, lambda r: (r.standard_normal(_n(r)).astype(np.float32), r.standard_normal(1)), rtol=1e-5),
    Case("int_over_float", int_over_float, lambda r: (r.integers(-9, 9, (_n(r), 3)), 0.5)),
    Case("bool_fraction", bool_fraction, lambda r: (r.standard_normal((_n(r), 4)), 0.1)),
    Case("physics_energy", physics_energy, lambda r: (r.uniform(1, 2, _n(r, 6)), r.standard_normal((6, 3)), 2.0, r.standard_normal(5))),
    Case("lj_potential", lj_potential, lambda r: (r.uniform(0.9, 2.5, _n(r, 8)), 1.0, 1.0)),
]
