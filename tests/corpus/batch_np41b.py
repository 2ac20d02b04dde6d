"""np41's second batch: the NumPy semantics traps under the idioms of batch_np41 — scatter with
repeated indices, overlapping in-place slices (``x[1:] += x[:-1]``, ``A += A.T``), reversed and
strided views, int8/uint8/uint64 wrap and promotion, bool arithmetic and reductions, NaN in
reductions and sorts, floor division and modulo by negatives and zeros (ints and floats), shifts
past the width, round half to even with decimals, float32 staying float32, ddof, einsum
diagonals, kron/outer of mixed kinds, diff/gradient/trapezoid options, np.convolve with the
shorter array first, np.diag offsets, unravel_index, reduceat/logaddexp.reduce/argwhere; written
before looking at what is supported."""

import numpy as np
from corpus_case import Case


def scatter_repeated(x, idx):
    x[idx] += 1
    return x


def overlap_shift(x):
    x[1:] += x[:-1]
    return x


def reverse_inplace(x):
    x[:] = x[::-1]
    return x


def int8_matmul(a, b):
    return a @ b, (a * 100).sum(), np.cumsum(a), np.prod(a[:3])


def uint_sums(a):
    return a.sum(), a.mean(), a - 1, a.max() - a.min(), np.abs(a - 200)


def bool_arith(m, n):
    return m + n, m * 2, m & ~n, np.sum(m, dtype=np.int8), m.mean()


def nan_reductions(x):
    return np.max(x), np.argmax(x), np.fmax(x, 0.5), np.maximum(x, 0.5), np.sort(x), np.nanmax(x)


def neg_step_slices(x):
    return x[-2::-2], x[5:1:-1], x[3:1], x[::-3].sum()


def floor_mod_float(a, b):
    return a // b, a % b, np.fmod(a, b), divmod(a, b)[1]


def abs_int8_min(a):
    return np.abs(a), -a, a // -1


def round_negative_decimals(x, k):
    return np.round(x, -1), np.round(k, -1), np.round(x.astype(np.float32), 2)


def diff_prepend(x):
    return np.diff(x, n=2), np.diff(x, prepend=0.0), np.diff(x, append=x[-1])


def gradient_edge2(y):
    return np.gradient(y, edge_order=2)


def einsum_misc(A, v):
    return np.einsum("ii->i", A), np.einsum("ij->", A), np.einsum("i,i->", v, v), np.einsum("ij,j->i", A, v)


def kron_2d(A, B):
    return np.kron(A, B)


def polyval_int(c, x):
    return np.polyval(c, x), np.polyval(c.astype(np.float64), 2.0)


def where_dtypes(m, x, k):
    return np.where(m, 0, x), np.where(m, k, 1.5), np.where(m, k, np.int8(3))


def f32_mixed(x):
    return x * 2.5, x * np.float64(2.5), x + np.float32(1), x / 3, x.mean(), np.sqrt(x).dtype == np.float32


def shifts_int8(a):
    return a << 3, a >> 1, np.left_shift(a, 2), ~a


def std_ddof(X):
    return X.std(ddof=1), X.var(axis=0, ddof=1), np.std(X, axis=1)


def mask_assign_array(x, y):
    m = x > 0
    x[m] = y[m]
    x[~m] *= 2
    return x


def fancy_negative(x, idx):
    return x[idx], x[-idx - 1], x[[0, -1]]


def interp_outside(xq, xp, fp):
    return np.interp(xq, xp, fp), np.interp(xq, xp, fp, left=0.0, right=-1.0)


def convolve_int_float(a, k):
    return np.convolve(a, k), np.convolve(k, a, mode="same")


def trapezoid_dx(y, Y):
    return np.trapezoid(y, dx=0.5), np.trapezoid(Y, axis=0), np.trapezoid(Y)


def cumprod_int(a):
    return np.cumprod(a), np.cumprod(a.astype(np.float32))


def scalar_int_python(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] // -2
    t = a[0] * 3 // -4
    return s, t, -7 // 2, -7 % 3


def argsort_axis0(X):
    return np.argsort(X, axis=0, kind="stable"), np.sort(X, axis=None)


def cross_3d_rows(a, b):
    return np.cross(a, b), np.cross(a[0], b[0]), np.linalg.norm(np.cross(a, b), axis=-1)


def norm_ords(X, v):
    return np.linalg.norm(v, 1), np.linalg.norm(v, np.inf), np.linalg.norm(X, "fro"), np.linalg.norm(X, axis=0, ord=1)


def softmax_axis0_f32(Z):
    e = np.exp(Z - Z.max(axis=0))
    return e / e.sum(axis=0)


def searchsorted_left_ints(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, 2), a[np.searchsorted(a, v, side="right") - 1]


def minmax_ptp(X):
    return np.ptp(X), np.ptp(X, axis=1), X.argmin(axis=0)


def isin_unique(a, b):
    return np.isin(a, b), np.unique(a)


def repeat_tile(a):
    return np.repeat(a, 2), np.tile(a, 3), np.repeat(a[:, None], 2, axis=1)


def meshgrid_dist(x, y):
    X, Y = np.meshgrid(x, y)
    return np.sqrt(X ** 2 + Y ** 2), X.shape


def tril_diag_indices(A):
    i, j = np.tril_indices(A.shape[0], -1)
    B = A.copy()
    B[i, j] = 0
    d = np.diag_indices(A.shape[0])
    B[d] = 1
    return B, A[i, j].sum()


def average_weights(x, w):
    return np.average(x, weights=w), np.average(x)


def logaddexp_lse(a, b):
    return np.logaddexp(a, b), np.logaddexp.reduce(a)


def lexsort_two(a, b):
    return np.lexsort((b, a))


def vander_fit(x):
    return np.vander(x, 3)


def cumsum_reset(x):
    c = np.cumsum(x)
    reset = x == 0
    off = np.maximum.accumulate(np.where(reset, c, 0))
    return c - off


def clip_lohi(x):
    return np.clip(x, 0.8, 0.2), np.clip(x, None, 0.5), x.clip(min=0.3)


def int_pow(a):
    return a ** 2, 2 ** a, np.power(a, 3), a ** 0.5


def uint64_mix(u, i):
    return u + i, u * 2, u // 3


def add_reduceat(x, idx):
    return np.add.reduceat(x, idx)


def flatnonzero_2d(X):
    r, c = np.nonzero(X > 0.5)
    return r, c, np.argwhere(X > 0.5), np.flatnonzero(X > 0.5)


def rint_sign_zero(x):
    return np.rint(x), np.sign(x), np.copysign(1.0, x), np.signbit(x)


def add_transpose_inplace(A):
    A += A.T
    return A


def shift_overlap_assign(a):
    a[1:] = a[:-1]
    return a


def reversed_matmul(A, B):
    return A[:, ::-1] @ B, A.T @ A[::-1]


def int_reductions(a):
    return a.sum(), a.mean(), a.max(), np.cumsum(a), np.prod(a), a.sum(axis=0)


def uint_neg_abs(u):
    return -u, np.abs(u), np.diff(u), u.astype(np.int8), np.negative(u)


def mixed_int_kinds(u, i):
    return u + i, u * i, u // np.int8(3), (u > i)


def int_div_zero(a, b):
    return a // b, a % b, np.floor_divide(a, b), np.remainder(a, b)


def float_div_zero(x, y):
    return x // y, x % y, x / y, np.fmod(x, y)


def shift_wide(a, s):
    return a << s, a >> s, np.right_shift(a, s)


def int8_pow(a):
    return a ** 3, np.power(a, 2), np.square(a)


def bool_reductions(m):
    return np.cumsum(m), m.argmax(), m.sum(axis=1), np.any(m, axis=0), m.astype(np.float32).mean()


def sort_nan_axis(X):
    return np.sort(X, axis=-1), np.argsort(X, axis=1, kind="stable"), np.nanmin(X, axis=0)


def clip_out_inplace(x):
    np.clip(x, -0.5, 0.5, out=x)
    return x


def sqrt_int(a):
    return np.sqrt(a), np.exp(a.astype(np.float32)), np.log1p(a)


def f32_accumulate(x):
    return x.sum(), np.cumsum(x), x.mean(axis=0), (x * x).sum(axis=1)


def strided_views_update(X):
    X[::2, 1::2] *= -1
    X[1, :] = X[:, 1]
    return X


def where_broadcast(x, y):
    return np.where(x[:, None] > y[None, :], x[:, None], 0)


def argmax_ties_2d(X):
    return X.argmax(axis=0), X.argmin(axis=1), np.unravel_index(X.argmax(), X.shape)


def dot_int_1d(a, b):
    return np.dot(a, b), a @ b, np.inner(a, b), np.vdot(a, b)


def swap_rows(A, i, j):
    A[[i, j]] = A[[j, i]]
    return A


def fancy_add_dup(x, idx, v):
    x[idx] += v
    return x


def cumsum_int32_overflow(a):
    return np.cumsum(a), a.sum(dtype=np.int32), np.add.accumulate(a)


def round_f32_decimals(x):
    return np.round(x, 2), np.round(x.astype(np.float64), 3), np.floor(x * 10) / 10


def nan_to_num_like(x):
    y = x.copy()
    y[np.isnan(y)] = 0
    y[np.isinf(y)] = np.sign(y[np.isinf(y)]) * 1e300
    return y


def mean_axis_keepdims(X):
    return X - X.mean(axis=1, keepdims=True), X / X.sum(axis=0, keepdims=True)


def outer_int_uint(a, u):
    return np.outer(a, u), np.kron(u, a)


def linspace_arange_float(n):
    return np.linspace(0, 1, n), np.arange(0.0, 1.0, 0.1), np.arange(n, 0, -2)


def diag_ops(A):
    return np.diag(A), np.diag(np.diag(A)), np.trace(A), np.diag(A, k=1)


def norm_rows_zero(X):
    n = np.linalg.norm(X, axis=1)
    return X / np.where(n == 0, 1, n)[:, None]


CASES = [
    Case("scatter_repeated", scatter_repeated, lambda r: (np.zeros(5), r.integers(0, 5, 8))),
    Case("overlap_shift", overlap_shift, lambda r: (r.random(6),)),
    Case("reverse_inplace", reverse_inplace, lambda r: (r.random(6),)),
    Case("int8_matmul", int8_matmul, lambda r: (r.integers(-128, 128, (3, 4)).astype(np.int8),
                                                r.integers(-128, 128, (4, 2)).astype(np.int8))),
    Case("uint_sums", uint_sums, lambda r: (r.integers(0, 256, 6).astype(np.uint8),)),
    Case("bool_arith", bool_arith, lambda r: (r.random(6) < 0.5, r.random(6) < 0.5)),
    Case("nan_reductions", nan_reductions, lambda r: (np.where(r.random(6) < 0.3, np.nan, r.random(6)),)),
    Case("neg_step_slices", neg_step_slices, lambda r: (r.random(7),)),
    Case("floor_mod_float", floor_mod_float, lambda r: (r.standard_normal(6) * 5, r.choice([-2.0, -0.5, 0.0, 3.0], 6))),
    Case("abs_int8_min", abs_int8_min, lambda r: (np.array([-128, -1, 0, 127], dtype=np.int8) + r.integers(0, 1, 4).astype(np.int8),)),
    Case("round_negative_decimals", round_negative_decimals, lambda r: (r.standard_normal(6) * 100, r.integers(-99, 99, 6)), rtol=1e-6, atol=1e-6),
    Case("diff_prepend", diff_prepend, lambda r: (r.random(6),)),
    Case("gradient_edge2", gradient_edge2, lambda r: (r.random(6),), rtol=1e-7, atol=1e-9),
    Case("einsum_misc", einsum_misc, lambda r: (r.random((3, 3)), r.random(3)), rtol=1e-7, atol=1e-9),
    Case("kron_2d", kron_2d, lambda r: (r.random((2, 3)), r.random((3, 2)))),
    Case("polyval_int", polyval_int, lambda r: (r.integers(-3, 4, 4), r.integers(-3, 4, 5))),
    Case("where_dtypes", where_dtypes, lambda r: (r.random(5) < 0.5, r.random(5).astype(np.float32), 3)),
    Case("f32_mixed", f32_mixed, lambda r: (r.random(5).astype(np.float32),), rtol=1e-6, atol=1e-6),
    Case("shifts_int8", shifts_int8, lambda r: (r.integers(-128, 128, 6).astype(np.int8),)),
    Case("std_ddof", std_ddof, lambda r: (r.random((4, 3)),), rtol=1e-7, atol=1e-9),
    Case("mask_assign_array", mask_assign_array, lambda r: (r.standard_normal(7), r.standard_normal(7))),
    Case("fancy_negative", fancy_negative, lambda r: (r.random(6), r.integers(0, 6, 4))),
    Case("interp_outside", interp_outside, lambda r: (r.random(6) * 2 - 0.5, np.linspace(0, 1, 4), r.random(4))),
    Case("convolve_int_float", convolve_int_float, lambda r: (r.integers(-3, 4, 6), r.random(3)), rtol=1e-7, atol=1e-9),
    Case("trapezoid_dx", trapezoid_dx, lambda r: (r.random(5), r.random((4, 3))), rtol=1e-7, atol=1e-9),
    Case("cumprod_int", cumprod_int, lambda r: (r.integers(-3, 4, 6),), rtol=1e-6, atol=1e-6),
    Case("scalar_int_python", scalar_int_python, lambda r: (r.integers(-9, 9, 5),)),
    Case("argsort_axis0", argsort_axis0, lambda r: (r.integers(0, 3, (4, 3)),)),
    Case("cross_3d_rows", cross_3d_rows, lambda r: (r.standard_normal((4, 3)), r.standard_normal((4, 3))), rtol=1e-7, atol=1e-9),
    Case("norm_ords", norm_ords, lambda r: (r.standard_normal((3, 4)), r.standard_normal(5)), rtol=1e-7, atol=1e-9),
    Case("softmax_axis0_f32", softmax_axis0_f32, lambda r: (r.standard_normal((4, 3)).astype(np.float32),), rtol=1e-5, atol=1e-6),
    Case("searchsorted_left_ints", searchsorted_left_ints, lambda r: (np.sort(r.integers(0, 5, 6)), r.integers(0, 5, 4))),
    Case("minmax_ptp", minmax_ptp, lambda r: (r.random((3, 4)),)),
    Case("isin_unique", isin_unique, lambda r: (r.integers(0, 5, 7), r.integers(0, 5, 3))),
    Case("repeat_tile", repeat_tile, lambda r: (r.random(3),)),
    Case("meshgrid_dist", meshgrid_dist, lambda r: (r.random(3), r.random(4)), rtol=1e-7, atol=1e-9),
    Case("tril_diag_indices", tril_diag_indices, lambda r: (r.random((4, 4)),), rtol=1e-7, atol=1e-9),
    Case("average_weights", average_weights, lambda r: (r.random(5), r.random(5)), rtol=1e-7, atol=1e-9),
    Case("logaddexp_lse", logaddexp_lse, lambda r: (r.standard_normal(5), r.standard_normal(5)), rtol=1e-7, atol=1e-9),
    Case("lexsort_two", lexsort_two, lambda r: (r.integers(0, 3, 7), r.integers(0, 3, 7))),
    Case("vander_fit", vander_fit, lambda r: (r.random(4),), rtol=1e-7, atol=1e-9),
    Case("cumsum_reset", cumsum_reset, lambda r: (r.integers(0, 3, 8).astype(np.float64),)),
    Case("clip_lohi", clip_lohi, lambda r: (r.random(6),)),
    Case("int_pow", int_pow, lambda r: (r.integers(0, 6, 5),), rtol=1e-7, atol=1e-9),
    Case("uint64_mix", uint64_mix, lambda r: (r.integers(0, 100, 4).astype(np.uint64), r.integers(-5, 5, 4))),
    Case("add_reduceat", add_reduceat, lambda r: (r.random(8), np.array([0, 3, 3, 6])), rtol=1e-7, atol=1e-9),
    Case("flatnonzero_2d", flatnonzero_2d, lambda r: (r.random((3, 4)),)),
    Case("rint_sign_zero", rint_sign_zero, lambda r: (np.array([-0.0, 0.0, -1.5, 2.5, -2.5, 0.5]) + 0 * r.random(),)),
    Case("add_transpose_inplace", add_transpose_inplace, lambda r: (r.random((4, 4)),)),
    Case("shift_overlap_assign", shift_overlap_assign, lambda r: (r.random(6),)),
    Case("reversed_matmul", reversed_matmul, lambda r: (r.random((3, 4)), r.random((4, 2))), rtol=1e-9, atol=1e-12),
    Case("int_reductions", int_reductions, lambda r: (r.integers(-100, 100, (3, 4)).astype(np.int8),)),
    Case("uint_neg_abs", uint_neg_abs, lambda r: (r.integers(0, 256, 6).astype(np.uint8),)),
    Case("mixed_int_kinds", mixed_int_kinds, lambda r: (r.integers(0, 256, 6).astype(np.uint8),
                                                        r.integers(-128, 128, 6).astype(np.int8))),
    Case("int_div_zero", int_div_zero, lambda r: (r.integers(-9, 9, 6), r.integers(-2, 3, 6))),
    Case("float_div_zero", float_div_zero, lambda r: (r.standard_normal(6), r.choice([-1.5, -0.0, 0.0, 2.0], 6))),
    Case("shift_wide", shift_wide, lambda r: (r.integers(-9, 9, 6), r.integers(0, 70, 6))),
    Case("int8_pow", int8_pow, lambda r: (r.integers(-128, 128, 6).astype(np.int8),)),
    Case("bool_reductions", bool_reductions, lambda r: (r.random((3, 4)) < 0.5,)),
    Case("sort_nan_axis", sort_nan_axis, lambda r: (np.where(r.random((3, 4)) < 0.3, np.nan, r.random((3, 4))),)),
    Case("clip_out_inplace", clip_out_inplace, lambda r: (r.standard_normal(6),)),
    Case("sqrt_int", sqrt_int, lambda r: (r.integers(0, 9, 5),), rtol=1e-6, atol=1e-7),
    Case("f32_accumulate", f32_accumulate, lambda r: (r.random((4, 3)).astype(np.float32),), rtol=1e-5, atol=1e-6),
    Case("strided_views_update", strided_views_update, lambda r: (r.random((4, 4)),)),
    Case("where_broadcast", where_broadcast, lambda r: (r.random(3), r.random(4))),
    Case("argmax_ties_2d", argmax_ties_2d, lambda r: (r.integers(0, 2, (3, 4)),)),
    Case("dot_int_1d", dot_int_1d, lambda r: (r.integers(-5, 5, 4), r.integers(-5, 5, 4))),
    Case("swap_rows", swap_rows, lambda r: (r.random((4, 3)), 0, 2)),
    Case("fancy_add_dup", fancy_add_dup, lambda r: (np.zeros(5), r.integers(0, 5, 7), r.random(7))),
    Case("cumsum_int32_overflow", cumsum_int32_overflow, lambda r: (r.integers(2**30, 2**31 - 1, 5).astype(np.int32),)),
    Case("round_f32_decimals", round_f32_decimals, lambda r: (r.random(6).astype(np.float32) * 10,)),
    Case("nan_to_num_like", nan_to_num_like, lambda r: (np.array([np.nan, np.inf, -np.inf, 1.0]) + 0 * r.random(),)),
    Case("mean_axis_keepdims", mean_axis_keepdims, lambda r: (r.random((3, 4)) + 0.1,), rtol=1e-9, atol=1e-12),
    Case("outer_int_uint", outer_int_uint, lambda r: (r.integers(-5, 5, 3), r.integers(0, 5, 4).astype(np.uint8))),
    Case("linspace_arange_float", linspace_arange_float, lambda r: (int(r.integers(2, 7)),)),
    Case("diag_ops", diag_ops, lambda r: (r.random((4, 4)),)),
    Case("norm_rows_zero", norm_rows_zero, lambda r: (np.vstack([r.random((2, 3)), np.zeros((1, 3))]),)),
]
