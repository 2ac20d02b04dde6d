"""fe35's batch, part 2: more published-style kernels (interpolation, numerical methods,
array reshaping, top-k, set membership, small linear algebra, simulation), as written."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def _sized(rng, make, big=8, edge=1):
    return make(_n(rng, big, edge))


def interp_resample(x, xp, fp):
    return np.interp(x, xp, fp)


def polyfit_vander(x, y):
    A = np.vander(x, 3)
    coef, res, rank, sv = np.linalg.lstsq(A, y, rcond=None)
    return coef, np.polyval(coef, x)


def clip_and_scale(x, lo, hi):
    y = np.clip(x, lo, hi)
    return (y - lo) / (hi - lo)


def cummax_loop(x):
    out = np.empty_like(x)
    m = -np.inf
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
        out[i] = m
    return out


def floyd_warshall(D):
    n = D.shape[0]
    dist = D.copy()
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if dist[i, k] + dist[k, j] < dist[i, j]:
                    dist[i, j] = dist[i, k] + dist[k, j]
    return dist


def lu_doolittle(A):
    n = A.shape[0]
    L = np.eye(n)
    U = np.zeros((n, n))
    for i in range(n):
        for k in range(i, n):
            s = 0.0
            for j in range(i):
                s += L[i, j] * U[j, k]
            U[i, k] = A[i, k] - s
        for k in range(i + 1, n):
            s = 0.0
            for j in range(i):
                s += L[k, j] * U[j, i]
            L[k, i] = (A[k, i] - s) / U[i, i]
    return L, U


def matrix_power_loop(A, p):
    R = np.eye(A.shape[0])
    for _ in range(p):
        R = R @ A
    return R


def lower_upper_parts(A):
    return np.tril(A, -1).sum(), np.triu(A).sum(), np.trace(A)


def roll_shift(x, s):
    return np.roll(x, s) - x


def pad_edges(img):
    p = np.pad(img, 1, mode="edge")
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * img


def gaussian_kernel(size, sigma):
    ax = np.arange(size) - (size - 1) / 2.0
    xx, yy = np.meshgrid(ax, ax)
    k = np.exp(-(xx ** 2 + yy ** 2) / (2.0 * sigma ** 2))
    return k / k.sum()


def conv2d_valid(img, k):
    H, W = img.shape
    kh, kw = k.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * k)
    return out


def jacobi_solve(A, b, tol):
    x = np.zeros_like(b)
    D = np.diag(A)
    R = A - np.diagflat(D)
    for it in range(200):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x, ord=np.inf) < tol:
            return x_new, it
        x = x_new
    return x, 200


def newton_sqrt(a):
    x = a if a > 1 else 1.0
    for _ in range(50):
        nx = 0.5 * (x + a / x)
        if abs(nx - x) < 1e-12:
            break
        x = nx
    return x


def bisect_root(c):
    lo, hi = 0.0, max(1.0, c)
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
    return lo


def top_k(x, k):
    idx = np.argsort(x)[::-1][:k]
    return idx, x[idx]


def take_sorted_rows(X):
    order = np.argsort(X, axis=1)
    return np.take_along_axis(X, order, axis=1)


def isin_filter(x, allowed):
    mask = np.isin(x, allowed)
    return x[mask].sum(), mask


def any_all_rows(X):
    return np.all(X > 0, axis=1), np.any(X > 1, axis=0)


def stack_features(a, b):
    F = np.stack([a, b, a * b], axis=1)
    return np.concatenate([F, F ** 2], axis=1)


def row_norms(X):
    n = np.linalg.norm(X, axis=1)
    return X / n[:, None]


def einsum_bilinear(x, A, y):
    return np.einsum("i,ij,j->", x, A, y)


def distinct_per_row(M):
    out = np.zeros(M.shape[0], dtype=np.int64)
    for i in range(M.shape[0]):
        out[i] = len(np.unique(M[i]))
    return out


def second_diff(x):
    return np.diff(x, n=2)


def sorted_columns_median(X):
    S = np.sort(X, axis=0)
    return S[-1] - S[0], np.median(X, axis=0)


def random_walk_stats(steps):
    pos = np.cumsum(steps)
    first_pass = np.argmax(pos >= 3) if np.any(pos >= 3) else -1
    return pos.max(), pos.min(), first_pass


def lotka_volterra(x0, y0, dt, n):
    xs = np.empty(n)
    ys = np.empty(n)
    x, y = x0, y0
    for i in range(n):
        dx = 1.1 * x - 0.4 * x * y
        dy = 0.1 * x * y - 0.4 * y
        x += dt * dx
        y += dt * dy
        xs[i] = x
        ys[i] = y
    return xs, ys


def label_counts_sorted(labels):
    vals, counts = np.unique(labels, return_counts=True)
    order = np.argsort(-counts)
    return vals[order], counts[order]


def unique_inverse_reconstruct(x):
    u, inv = np.unique(x, return_inverse=True)
    return u[inv], inv.max()


def weighted_percentile_loop(x, w, q):
    order = np.argsort(x)
    xs = x[order]
    ws = w[order]
    cw = np.cumsum(ws)
    target = q * cw[-1]
    for i in range(len(cw)):
        if cw[i] >= target:
            return xs[i]
    return xs[-1]


CASES = [
    Case("interp_resample", interp_resample, lambda r: (r.random(_n(r)) * 4 - 0.5, np.arange(4.0), r.standard_normal(4))),
    Case("polyfit_vander", polyfit_vander, lambda r: (np.linspace(0, 1, 7), r.standard_normal(7)), rtol=1e-7, atol=1e-9),
    Case("clip_and_scale", clip_and_scale, lambda r: (r.standard_normal(_n(r)), -0.5, 0.5)),
    Case("cummax_loop", cummax_loop, lambda r: (r.standard_normal(_n(r)),)),
    Case("floyd_warshall", floyd_warshall, lambda r: (r.random((5, 5)) * 10,)),
    Case("lu_doolittle", lu_doolittle, lambda r: (r.standard_normal((4, 4)) + 4 * np.eye(4),), rtol=1e-9, atol=1e-10),
    Case("matrix_power_loop", matrix_power_loop, lambda r: (r.standard_normal((3, 3)) * 0.5, int(r.integers(0, 4)))),
    Case("lower_upper_parts", lower_upper_parts, lambda r: (r.standard_normal((_n(r, 4), 4)),)),
    Case("roll_shift", roll_shift, lambda r: (r.standard_normal(_n(r, 6, 2)), int(r.integers(-3, 4)))),
    Case("pad_edges", pad_edges, lambda r: (r.random((_n(r, 5, 1), 4)),)),
    Case("gaussian_kernel", gaussian_kernel, lambda r: (int(r.integers(1, 6)), 1.5)),
    Case("conv2d_valid", conv2d_valid, lambda r: (r.random((6, 5)), r.random((3, 2)))),
    Case("jacobi_solve", jacobi_solve, lambda r: (r.standard_normal((4, 4)) + 6 * np.eye(4), r.standard_normal(4), 1e-8), rtol=1e-9, atol=1e-10),
    Case("newton_sqrt", newton_sqrt, lambda r: (float(r.random() * 10),)),
    Case("bisect_root", bisect_root, lambda r: (float(r.random() * 10),)),
    Case("top_k", top_k, lambda r: (r.standard_normal(8), int(r.integers(0, 5)))),
    Case("take_sorted_rows", take_sorted_rows, lambda r: (r.standard_normal((_n(r, 3), 4)),)),
    Case("isin_filter", isin_filter, lambda r: (r.integers(0, 6, _n(r)), np.array([1, 3, 4]))),
    Case("any_all_rows", any_all_rows, lambda r: (r.standard_normal((_n(r, 4), 3)) + 0.5,)),
    Case("stack_features", stack_features, lambda r: _sized(r, lambda n: (r.standard_normal(n), r.standard_normal(n)))),
    Case("row_norms", row_norms, lambda r: (r.standard_normal((_n(r, 4), 3)),)),
    Case("einsum_bilinear", einsum_bilinear, lambda r: (r.standard_normal(3), r.standard_normal((3, 4)), r.standard_normal(4))),
    Case("distinct_per_row", distinct_per_row, lambda r: (r.integers(0, 3, (_n(r, 4), 5)),)),
    Case("second_diff", second_diff, lambda r: (r.standard_normal(_n(r, 6, 2)),)),
    Case("sorted_columns_median", sorted_columns_median, lambda r: (r.standard_normal((_n(r, 5), 3)),)),
    Case("random_walk_stats", random_walk_stats, lambda r: (r.choice([-1, 1], _n(r, 20)),)),
    Case("lotka_volterra", lotka_volterra, lambda r: (10.0, 5.0, 0.01, int(r.integers(0, 20)))),
    Case("label_counts_sorted", label_counts_sorted, lambda r: (r.integers(0, 5, _n(r, 12)),)),
    Case("unique_inverse_reconstruct", unique_inverse_reconstruct, lambda r: (r.integers(0, 5, _n(r, 9)),)),
    Case("weighted_percentile_loop", weighted_percentile_loop, lambda r: _sized(r, lambda n: (r.standard_normal(n), r.random(n) + 0.1, 0.5))),
]
