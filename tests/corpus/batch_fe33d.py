"""fe33's batch, part 4: NumPy array programs with names bound to views, in-place updates through
them, iterative algorithms written with whole-array steps, and fancy indexing idioms."""

import numpy as np
from corpus_case import Case


def _n(rng, big=6, edge=1):
    return big if rng.integers(0, 3) else edge


def strided_view_scale(x):
    y = x[::2]
    y *= 2.0
    return x


def transpose_view_write(A):
    B = A.T
    B[0] = 0.0
    return A


def alias_then_add(x):
    y = x
    y += 1.0
    return x


def rebind_not_inplace(x):
    x = x + 1.0
    x *= 2.0
    return x


def center_inplace(X):
    X -= X.mean(axis=0)
    return X


def row_normalize_inplace(X):
    X /= X.sum(axis=1, keepdims=True)
    return X


def masked_store_zero(x):
    x[x < 0] = 0.0
    return x


def masked_scale(x, m):
    x[m] *= 2.0
    return x


def maximum_out(x):
    np.maximum(x, 0.0, out=x)
    return x


def fill_method(x):
    y = np.empty_like(x)
    y.fill(3.5)
    return y + x


def copyto_where(dst, src):
    np.copyto(dst, src, where=src > 0)
    return dst


def sort_method(x):
    y = x.copy()
    y.sort()
    return y[-1] - y[0]


def return_view_of_arg(x):
    return x[1:]


def same_array_twice(x):
    y = x * 2
    return y, y


def gram_schmidt_cols(A):
    Q = np.zeros_like(A)
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        for i in range(j):
            v -= (Q[:, i] @ A[:, j]) * Q[:, i]
        Q[:, j] = v / np.linalg.norm(v)
    return Q


def power_iteration(A, iters):
    v = np.ones(A.shape[0])
    for _ in range(iters):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v


def jacobi_slices(u, steps):
    for _ in range(steps):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
    return u


def logistic_gd(X, y, lr, iters):
    w = np.zeros(X.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        w -= lr * X.T @ (p - y) / X.shape[0]
    return w


def kmeans_loop(X, C, iters):
    C = C.copy()
    for _ in range(iters):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        lab = np.argmin(d, axis=1)
        for k in range(C.shape[0]):
            m = lab == k
            if m.any():
                C[k] = X[m].mean(axis=0)
    return C


def kalman_step(x, P, F, Q, H, R, z):
    x = F @ x
    P = F @ P @ F.T + Q
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    x = x + K @ (z - H @ x)
    P = (np.eye(P.shape[0]) - K @ H) @ P
    return x, P


def one_hot_eye(labels, k):
    return np.eye(k)[labels]


def nll_fancy(P, y):
    n = P.shape[0]
    return -np.log(P[np.arange(n), y]).mean()


def hist_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf = (cdf - cdf.min()) * 255 // max(cdf.max() - cdf.min(), 1)
    return cdf[img].astype(np.uint8)


def polyval_vander(c, x):
    return np.polyval(c, x), np.vander(x, 3) @ c[-3:]


def log1p_expm1(x):
    return np.log1p(np.abs(x)) + np.expm1(x * 0.1) + np.sinc(x)


def channel_normalize(img):
    f = img.astype(np.float32)
    mean = f.mean(axis=(0, 1))
    std = f.std(axis=(0, 1)) + 1e-6
    return (f - mean) / std


def add_accumulate(x):
    return np.add.accumulate(x) - np.cumsum(x)


def cumulative_max_drawdown(p):
    peak = np.maximum.accumulate(p)
    return ((p - peak) / peak).min()


def sliding_window_sum(x, w):
    c = np.concatenate(([0.0], np.cumsum(x)))
    return c[w:] - c[:-w]


def pairwise_upper(X):
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    iu = np.triu_indices(X.shape[0], 1)
    return D[iu].mean() if X.shape[0] > 1 else 0.0


def swap_halves_inplace(x):
    h = x.shape[0] // 2
    x[:h], x[h:2 * h] = x[h:2 * h].copy(), x[:h].copy()
    return x


def diag_view_add(A):
    d = np.diagonal(A).copy()
    A += np.diag(d)
    return A


def argsort_rank(x):
    r = np.empty_like(x, dtype=np.int64)
    r[np.argsort(x, kind="stable")] = np.arange(x.shape[0])
    return r


def clip_inplace_out(x, lo, hi):
    np.clip(x, lo, hi, out=x)
    return x


def scale_cols_broadcast(X, s):
    X[:] = X * s[None, :]
    return X


def mean_where_keep(X):
    m = X > 0
    return np.where(m.any(axis=1, keepdims=True), X, -1.0)


def _spd(r, n=3):
    a = r.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


CASES = [
    Case("strided_view_scale", strided_view_scale, lambda r: (r.standard_normal(_n(r, 7)),)),
    Case("transpose_view_write", transpose_view_write, lambda r: (r.standard_normal((3, _n(r, 4))),)),
    Case("alias_then_add", alias_then_add, lambda r: (r.standard_normal(_n(r)),)),
    Case("rebind_not_inplace", rebind_not_inplace, lambda r: (r.standard_normal(_n(r)),)),
    Case("center_inplace", center_inplace, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("row_normalize_inplace", row_normalize_inplace, lambda r: (r.uniform(1, 2, (_n(r), 3)),)),
    Case("masked_store_zero", masked_store_zero, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("masked_scale", masked_scale, lambda r: (r.standard_normal(6), r.random(6) > 0.5)),
    Case("maximum_out", maximum_out, lambda r: (r.standard_normal((_n(r), 2)),)),
    Case("fill_method", fill_method, lambda r: (r.standard_normal(_n(r)),)),
    Case("copyto_where", copyto_where, lambda r: (r.standard_normal(_n(r)), r.standard_normal(6))),
    Case("sort_method", sort_method, lambda r: (r.standard_normal(_n(r)),)),
    Case("return_view_of_arg", return_view_of_arg, lambda r: (r.standard_normal(_n(r)),)),
    Case("same_array_twice", same_array_twice, lambda r: (r.standard_normal(_n(r)),)),
    Case("gram_schmidt_cols", gram_schmidt_cols, lambda r: (r.standard_normal((5, _n(r, 3))),), rtol=1e-8),
    Case("power_iteration", power_iteration, lambda r: (_spd(r), 5), rtol=1e-8),
    Case("jacobi_slices", jacobi_slices, lambda r: (r.standard_normal(_n(r, 8, 2)), 3)),
    Case("logistic_gd", logistic_gd, lambda r: (r.standard_normal((_n(r, 8), 3)), (r.random(8) > 0.5) * 1.0, 0.1, 4), rtol=1e-8),
    Case("kmeans_loop", kmeans_loop, lambda r: (r.standard_normal((_n(r, 9), 2)), r.standard_normal((3, 2)), 3), rtol=1e-8),
    Case("kalman_step", kalman_step, lambda r: (r.standard_normal(2), np.eye(2), np.array([[1.0, 0.1], [0, 1]]), 0.01 * np.eye(2), np.array([[1.0, 0.0]]), np.array([[0.5]]), r.standard_normal(1)), rtol=1e-8),
    Case("one_hot_eye", one_hot_eye, lambda r: (r.integers(0, 4, _n(r)), 4)),
    Case("nll_fancy", nll_fancy, lambda r: (r.uniform(0.1, 1, (_n(r), 3)), r.integers(0, 3, 6))),
    Case("hist_equalize", hist_equalize, lambda r: (r.integers(0, 256, (_n(r), 4)).astype(np.uint8),)),
    Case("polyval_vander", polyval_vander, lambda r: (r.standard_normal(4), r.standard_normal(_n(r)))),
    Case("log1p_expm1", log1p_expm1, lambda r: (r.standard_normal(_n(r)),)),
    Case("channel_normalize", channel_normalize, lambda r: (r.integers(0, 256, (_n(r, 4), 3, 3)).astype(np.uint8),), rtol=1e-5, atol=1e-5),
    Case("add_accumulate", add_accumulate, lambda r: (r.standard_normal(_n(r)),)),
    Case("cumulative_max_drawdown", cumulative_max_drawdown, lambda r: (r.uniform(1, 2, _n(r)),)),
    Case("sliding_window_sum", sliding_window_sum, lambda r: (r.standard_normal(_n(r, 8, 3)), 3)),
    Case("pairwise_upper", pairwise_upper, lambda r: (r.standard_normal((_n(r, 5), 2)),)),
    Case("swap_halves_inplace", swap_halves_inplace, lambda r: (r.standard_normal(_n(r, 7)),)),
    Case("diag_view_add", diag_view_add, lambda r: (r.standard_normal((3, 3)),)),
    Case("argsort_rank", argsort_rank, lambda r: (r.standard_normal(_n(r)),)),
    Case("clip_inplace_out", clip_inplace_out, lambda r: (r.standard_normal(_n(r)), -0.5, 0.5)),
    Case("scale_cols_broadcast", scale_cols_broadcast, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal(3))),
    Case("mean_where_keep", mean_where_keep, lambda r: (r.standard_normal((_n(r), 3)) - 1,)),
]
