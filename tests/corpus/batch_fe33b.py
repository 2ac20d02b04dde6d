"""fe33's batch, part 2: NumPy array programs that reach wider into NumPy's API (axis tuples,
ddof, out=, ufunc methods, rolls and pads, shape helpers, linalg, interpolation)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=6, edge=1):
    return big if rng.integers(0, 3) else edge


def std_ddof1_cols(X):
    return X.std(axis=0, ddof=1), np.var(X, axis=1, ddof=1)


def mean_axis_tuple(V):
    return V.mean(axis=(0, 1)), V.sum(axis=(1, 2))


def negative_axis_norm(X):
    return X / X.sum(axis=-1)[:, None]


def add_out_inplace(a, b):
    np.add(a, b, out=a)
    np.multiply(a, 2.0, out=a)
    return a


def ufunc_reduce_methods(X):
    return np.add.reduce(X, axis=0), np.maximum.reduce(X, axis=1)


def multiply_outer(x, y):
    return np.multiply.outer(x, y) + np.subtract.outer(x, y)


def roll_diff(x):
    return x - np.roll(x, 1)


def roll_2d_laplacian(u):
    return (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1)
            + np.roll(u, -1, axis=1) - 4 * u)


def pad_edge_smooth(x):
    p = np.pad(x, 1, mode="edge")
    return (p[:-2] + p[1:-1] + p[2:]) / 3


def tile_repeat(x):
    return np.tile(x, 2) + np.repeat(x, 2)


def meshgrid_radius(n):
    xs = np.linspace(-1.0, 1.0, n)
    X, Y = np.meshgrid(xs, xs)
    return np.sqrt(X ** 2 + Y ** 2)


def arange_float_step(a):
    t = np.arange(0.0, 1.0, 0.25)
    return a * t.sum()


def convolve_valid(x, k):
    return np.convolve(x, k, mode="valid")


def tensordot_axes(A, B):
    return np.tensordot(A, B, axes=([1], [0]))


def kron_small(a, b):
    return np.kron(a, b)


def trace_triu_tril(A):
    return np.trace(A) + np.triu(A).sum() - np.tril(A, -1).sum()


def flips_rot(A):
    return np.fliplr(A) + np.flipud(A) + np.rot90(A, 2)


def swap_move_axes(V):
    return np.swapaxes(V, 0, 2).sum(axis=0) + np.moveaxis(V, 0, -1).sum(axis=-1).T


def expand_squeeze(x):
    y = np.expand_dims(x, axis=0)
    return np.squeeze(y * 2, axis=0)


def broadcast_to_sum(x, n):
    return np.broadcast_to(x, (n, x.shape[0])).sum(axis=0)


def isclose_count(a, b):
    return np.isclose(a, b, atol=0.5).sum(), np.allclose(a, a)


def nan_stats(x):
    return np.nanmean(x), np.nansum(x), np.nanmax(x)


def weighted_average(x, w):
    return np.average(x, weights=w), np.average(x)


def ptp_cols(X):
    return np.ptp(X, axis=0)


def cov_rows(X):
    return np.cov(X)


def interp_table(xq, xp, fp):
    return np.interp(xq, xp, fp)


def searchsorted_bins(edges, x):
    return np.searchsorted(edges, x), np.digitize(x, edges)


def round_decimals(x):
    return np.round(x, 2) + np.floor(x) - np.ceil(x)


def method_clip(x):
    return x.clip(-0.5, 0.5) + x.clip(min=0.0)


def logaddexp_hypot(a, b):
    return np.logaddexp(a, b) + np.hypot(a, b) + np.arctan2(a, b)


def cross_vectors(a, b):
    return np.cross(a, b)


def batched_matmul(A, B):
    return np.matmul(A, B)


def inner_vdot(x, y):
    return np.inner(x, y) + np.vdot(x, y)


def ellipsis_none(X):
    return (X[..., None] * X[:, None, :]).sum(axis=0)


def ravel_flatten(X):
    return X.ravel() @ X.flatten()


def reshape_neg1(x, n):
    return x.reshape(n, -1).sum(axis=1)


def zeros_like_dtype(x):
    y = np.zeros_like(x, dtype=np.int64)
    y[x > 0] = 1
    return y


def eye_identity_diag(x):
    n = x.shape[0]
    return np.eye(n) * 2 + np.identity(n) + np.diag(x) + np.diag(np.diag(np.outer(x, x)))


def fill_diag(A):
    B = A.copy()
    np.fill_diagonal(B, 0.0)
    return B


def count_nonzero_axis(X):
    return np.count_nonzero(X > 0, axis=1), np.any(X > 1, axis=0), np.all(X > -3)


def cumsum_axis1(X):
    return np.cumsum(X, axis=1) / np.arange(1, X.shape[1] + 1)


def median_percentile(x):
    return np.median(x), np.percentile(x, [10, 90])


def solve_inv_det(A, b):
    return np.linalg.solve(A, b), np.linalg.inv(A) @ b, np.linalg.det(A)


def lstsq_fit(X, y):
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    return coef


def cholesky_solve(A, b):
    L = np.linalg.cholesky(A)
    z = np.linalg.solve(L, b)
    return np.linalg.solve(L.T, z)


def eigh_top(A):
    w, v = np.linalg.eigh(A)
    return w[-1]


def norm_ords(x, A):
    return np.linalg.norm(x, 1), np.linalg.norm(x, np.inf), np.linalg.norm(A, "fro"), np.linalg.norm(A)


def mean_dtype_f32(x):
    return x.mean(dtype=np.float64), x.sum(dtype=np.float32)


def logical_reduce(M):
    return np.logical_and.reduce(M, axis=0), np.logical_or.reduce(M, axis=1)


def sign_abs_chain(x):
    return np.sign(x) * np.sqrt(np.abs(x))


def where_nan_fill(x):
    y = np.where(np.isnan(x), 0.0, x)
    return y.cumsum()


def item_scalar(x):
    return x.sum().item() + x[0].item()


def int_floor_div_arr(a, b):
    return a // b, a % b, np.floor_divide(a, 3)


def sort_axis_rows(X):
    return np.sort(X, axis=1)[:, -1] - np.sort(X, axis=1)[:, 0]


def _spd(r, n=4):
    a = r.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def _nanvec(r):
    x = r.standard_normal(_n(r, 7))
    x[0] = np.nan
    return x


CASES = [
    Case("std_ddof1_cols", std_ddof1_cols, lambda r: (r.standard_normal((_n(r, 5, 2), 3)),)),
    Case("mean_axis_tuple", mean_axis_tuple, lambda r: (r.standard_normal((2, _n(r, 3), 4)),)),
    Case("negative_axis_norm", negative_axis_norm, lambda r: (r.uniform(1, 2, (_n(r), 3)),)),
    Case("add_out_inplace", add_out_inplace, lambda r: (r.standard_normal(_n(r)), r.standard_normal(6))),
    Case("ufunc_reduce_methods", ufunc_reduce_methods, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("multiply_outer", multiply_outer, lambda r: (r.standard_normal(_n(r)), r.standard_normal(4))),
    Case("roll_diff", roll_diff, lambda r: (r.standard_normal(_n(r)),)),
    Case("roll_2d_laplacian", roll_2d_laplacian, lambda r: (r.standard_normal((_n(r), 5)),)),
    Case("pad_edge_smooth", pad_edge_smooth, lambda r: (r.standard_normal(_n(r)),)),
    Case("tile_repeat", tile_repeat, lambda r: (r.standard_normal(_n(r, 3)),)),
    Case("meshgrid_radius", meshgrid_radius, lambda r: (_n(r, 5, 2),)),
    Case("arange_float_step", arange_float_step, lambda r: (r.standard_normal(_n(r)),)),
    Case("convolve_valid", convolve_valid, lambda r: (r.standard_normal(_n(r, 8, 3)), r.standard_normal(3))),
    Case("tensordot_axes", tensordot_axes, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal((3, 4)))),
    Case("kron_small", kron_small, lambda r: (r.standard_normal((2, 2)), r.standard_normal((_n(r, 3), 2)))),
    Case("trace_triu_tril", trace_triu_tril, lambda r: (r.standard_normal((_n(r, 4), 4)),)),
    Case("flips_rot", flips_rot, lambda r: (r.standard_normal((_n(r, 4), 4)),)),
    Case("swap_move_axes", swap_move_axes, lambda r: (r.standard_normal((3, _n(r, 3), 3)),)),
    Case("expand_squeeze", expand_squeeze, lambda r: (r.standard_normal(_n(r)),)),
    Case("broadcast_to_sum", broadcast_to_sum, lambda r: (r.standard_normal(_n(r)), 3)),
    Case("isclose_count", isclose_count, lambda r: (r.standard_normal(_n(r)), r.standard_normal(6))),
    Case("nan_stats", nan_stats, lambda r: (_nanvec(r),)),
    Case("weighted_average", weighted_average, lambda r: (r.standard_normal(_n(r)), r.uniform(0.5, 1, 6))),
    Case("ptp_cols", ptp_cols, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("cov_rows", cov_rows, lambda r: (r.standard_normal((3, _n(r, 6, 2))),)),
    Case("interp_table", interp_table, lambda r: (r.uniform(-0.2, 1.2, _n(r)), np.linspace(0, 1, 5), r.standard_normal(5))),
    Case("searchsorted_bins", searchsorted_bins, lambda r: (np.linspace(0, 1, 5), r.uniform(-0.2, 1.2, _n(r)))),
    Case("round_decimals", round_decimals, lambda r: (r.standard_normal(_n(r)) * 3,)),
    Case("method_clip", method_clip, lambda r: (r.standard_normal(_n(r)),)),
    Case("logaddexp_hypot", logaddexp_hypot, lambda r: (r.standard_normal(_n(r)), r.standard_normal(6))),
    Case("cross_vectors", cross_vectors, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal((6, 3)))),
    Case("batched_matmul", batched_matmul, lambda r: (r.standard_normal((_n(r, 3), 2, 3)), r.standard_normal((3, 3, 2)))),
    Case("inner_vdot", inner_vdot, lambda r: (r.standard_normal(_n(r)), r.standard_normal(6))),
    Case("ellipsis_none", ellipsis_none, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("ravel_flatten", ravel_flatten, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("reshape_neg1", reshape_neg1, lambda r: (r.standard_normal(3 * _n(r, 4)), 3)),
    Case("zeros_like_dtype", zeros_like_dtype, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("eye_identity_diag", eye_identity_diag, lambda r: (r.standard_normal(_n(r, 4)),)),
    Case("fill_diag", fill_diag, lambda r: (r.standard_normal((_n(r, 4), 4)),)),
    Case("count_nonzero_axis", count_nonzero_axis, lambda r: (r.standard_normal((_n(r), 4)),)),
    Case("cumsum_axis1", cumsum_axis1, lambda r: (r.standard_normal((3, _n(r))),)),
    Case("median_percentile", median_percentile, lambda r: (r.standard_normal(_n(r, 7)),)),
    Case("solve_inv_det", solve_inv_det, lambda r: (_spd(r), r.standard_normal(4)), rtol=1e-7, atol=1e-10),
    Case("lstsq_fit", lstsq_fit, lambda r: (r.standard_normal((8, 3)), r.standard_normal(8)), rtol=1e-7, atol=1e-10),
    Case("cholesky_solve", cholesky_solve, lambda r: (_spd(r), r.standard_normal(4)), rtol=1e-7, atol=1e-10),
    Case("eigh_top", eigh_top, lambda r: (_spd(r),), rtol=1e-7),
    Case("norm_ords", norm_ords, lambda r: (r.standard_normal(_n(r)), r.standard_normal((3, 3)))),
    Case("mean_dtype_f32", mean_dtype_f32, lambda r: (r.standard_normal(_n(r, 9)).astype(np.float32),), rtol=1e-5),
    Case("logical_reduce", logical_reduce, lambda r: (r.random((_n(r), 3)) > 0.3,)),
    Case("sign_abs_chain", sign_abs_chain, lambda r: (r.standard_normal(_n(r)),)),
    Case("where_nan_fill", where_nan_fill, lambda r: (_nanvec(r),)),
    Case("item_scalar", item_scalar, lambda r: (r.standard_normal(_n(r)),)),
    Case("int_floor_div_arr", int_floor_div_arr, lambda r: (r.integers(-9, 9, _n(r)), r.integers(1, 4, 6))),
    Case("sort_axis_rows", sort_axis_rows, lambda r: (r.standard_normal((_n(r), 4)),)),
]
