"""np39's second batch: the dtype and scalar-type corners of the same kind of code: uint8 image
arithmetic that wraps, int // and % of negatives, float32 matrices and reductions, mixed
Python/NumPy scalars, out= of another dtype, dtype= on ufuncs and reductions, weighted bincount,
histograms with edge arrays, stable argsort with ties, bool cumsum, returned NumPy scalars;
written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def u8_wrap_add(a, b):
    return a + b, a - b, (a.astype(np.int16) + b) // 2


def u8_brightness(img, delta):
    return np.clip(img.astype(np.int32) + delta, 0, 255).astype(np.uint8), img * 2


def int_neg_divmod(a, b):
    return a // b, a % b, -a // 3, np.floor_divide(a, 4), np.remainder(a, -3)


def float_neg_mod(x):
    return x % 1.0, np.fmod(x, 1.0), x // 0.5, np.floor(x), np.trunc(x)


def f32_matmul_reduce(A, B):
    C = A @ B
    return C, C.sum(), C.mean(axis=0), C.max(), np.linalg.norm(C)


def int_matmul(A, B):
    return A @ B, A.T @ A, (A @ B).sum()


def mixed_scalars(x, s):
    a = x[0] * 2
    b = x.sum() + s
    c = float(x.max()) * s
    return a, b, c, np.float32(s) + x[0]


def out_other_dtype(a, b):
    out = np.zeros(a.shape[0])
    np.add(a, b, out=out)
    return out


def ufunc_dtype(x, y):
    return np.add(x, y, dtype=np.float32), np.multiply(x, 2, dtype=np.float64), np.sum(x, dtype=np.int32)


def weighted_bincount(idx, w):
    return np.bincount(idx, weights=w), np.bincount(idx, weights=w, minlength=6)


def histogram_edges(x):
    edges = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    h, e = np.histogram(x, bins=edges)
    return h, e, h.sum()


def histogram_density(x):
    h, e = np.histogram(x, bins=4, range=(0.0, 1.0), density=True)
    return h, e


def stable_argsort_ties(x):
    return np.argsort(x, kind="stable"), np.argsort(-x, kind="stable"), np.sort(x)[::-1]


def bool_cumsum(m):
    return np.cumsum(m), m.sum(), m.mean(), np.cumsum(m, dtype=np.int8)


def scalar_types(x):
    return x.sum(), x.mean(), x.argmax(), x.max() > 0, len(x), x.shape


def f32_scalar_ops(x):
    return x.sum() * 2, x.sum() * np.float64(2), x[0] + 1.5, np.sqrt(x[1]), x.mean()


def int_power_abs(a):
    return a ** 2, np.abs(a), -a, np.square(a), a ** 0


def clip_int_float(a):
    return np.clip(a, 0.5, 3.5), np.clip(a, 1, 3), np.minimum(a, 2.5)


def where_mixed(x, m):
    return np.where(m, x, 0), np.where(m, 1, 0), np.where(m, 1.5, x.astype(np.float32))


def round_half_even(x):
    return np.round(x), np.round(x, 1), np.rint(x), np.round(x * 10).astype(np.int64)


def compare_f32_py(x):
    return x > 0.1, (x == np.float32(0.1)).sum(), x[x > 0.1].sum() if (x > 0.1).any() else np.float32(0)


def argmax_keepdims_axes(A):
    return np.argmax(A, axis=0), np.argmin(A, axis=1, keepdims=True), A.argmax()


def uint_subtract_compare(a, b):
    d = a - b
    return d, d > 100, np.where(a > b, a - b, b - a)


def int_true_divide(a, b):
    return a / b, np.true_divide(a, 2), a / 2.0, (a / b).dtype == np.float64


def cumsum_axis_dtypes(A):
    return np.cumsum(A, axis=0), np.cumprod(A, axis=1), np.cumsum(A.astype(np.float32), axis=1)


def norm_axes(X):
    return np.linalg.norm(X, axis=0), np.linalg.norm(X, axis=1, ord=1), np.linalg.norm(X, ord=np.inf, axis=1)


def mean_std_f32(X):
    return X.mean(axis=0), X.std(axis=0), X.var(), X.mean(dtype=np.float64)


def interp_left_right(x, xp, fp):
    return np.interp(x, xp, fp, left=-1.0, right=99.0), np.interp(x, xp, fp)


def searchsorted_sides(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right"), np.searchsorted(a, 0.5)


def convolve_int(a, b):
    return np.convolve(a, b), np.convolve(a, b, "same"), np.correlate(a, b, "valid")


def gradient_2d(F):
    gy, gx = np.gradient(F)
    return gy, gx, np.gradient(F, axis=1)


def diff_int_bool(a, m):
    return np.diff(a), np.diff(m), np.diff(a, prepend=0)


def unique_float_inverse(x):
    u, inv = np.unique(np.round(x, 1), return_inverse=True)
    return u, inv, u[inv]


def sort_int_axis0(A):
    return np.sort(A, axis=0), np.argsort(A, axis=0, kind="stable")


def add_at_int(acc, idx):
    np.add.at(acc, idx, 1)
    return acc


def maximum_accumulate_f32(x):
    return np.maximum.accumulate(x), np.minimum.accumulate(x[::-1])[::-1]


CASES = [
    Case("u8_wrap_add", u8_wrap_add, lambda r: (r.integers(0, 256, 7).astype(np.uint8),
                                                r.integers(0, 256, 7).astype(np.uint8))),
    Case("u8_brightness", u8_brightness, lambda r: (r.integers(0, 256, (3, 4)).astype(np.uint8), 60)),
    Case("int_neg_divmod", int_neg_divmod, lambda r: (r.integers(-9, 9, 7), r.integers(1, 4, 7) * r.choice([-1, 1], 7))),
    Case("float_neg_mod", float_neg_mod, lambda r: (r.standard_normal(7) * 3,)),
    Case("f32_matmul_reduce", f32_matmul_reduce, lambda r: (r.standard_normal((3, 4)).astype(np.float32),
                                                            r.standard_normal((4, 2)).astype(np.float32)),
         rtol=1e-5, atol=1e-6),
    Case("int_matmul", int_matmul, lambda r: (r.integers(-5, 5, (3, 4)), r.integers(-5, 5, (4, 2)))),
    Case("mixed_scalars", mixed_scalars, lambda r: (r.standard_normal(4).astype(np.float32), 0.5),
         rtol=1e-6, atol=1e-7),
    Case("out_other_dtype", out_other_dtype, lambda r: (r.integers(0, 9, 5), r.integers(0, 9, 5))),
    Case("ufunc_dtype", ufunc_dtype, lambda r: (r.integers(0, 9, 5), r.integers(0, 9, 5))),
    Case("weighted_bincount", weighted_bincount, lambda r: (r.integers(0, 4, 8), r.random(8)), rtol=1e-7, atol=1e-9),
    Case("histogram_edges", histogram_edges, lambda r: (r.random(12),)),
    Case("histogram_density", histogram_density, lambda r: (r.random(12),), rtol=1e-7, atol=1e-9),
    Case("stable_argsort_ties", stable_argsort_ties, lambda r: (r.integers(0, 3, 8).astype(np.float64),)),
    Case("bool_cumsum", bool_cumsum, lambda r: (r.random(7) < 0.5,)),
    Case("scalar_types", scalar_types, lambda r: (r.integers(-5, 5, 6),)),
    Case("f32_scalar_ops", f32_scalar_ops, lambda r: (r.random(4).astype(np.float32),), rtol=1e-6, atol=1e-7),
    Case("int_power_abs", int_power_abs, lambda r: (r.integers(-128, 128, 6).astype(np.int8),)),
    Case("clip_int_float", clip_int_float, lambda r: (r.integers(-2, 6, 6),)),
    Case("where_mixed", where_mixed, lambda r: (r.integers(-3, 3, 6).astype(np.int32), r.random(6) < 0.5)),
    Case("round_half_even", round_half_even, lambda r: (np.array([0.5, 1.5, 2.5, -0.5, 0.25, 0.35]) + 0 * r.random(),)),
    Case("compare_f32_py", compare_f32_py, lambda r: (r.random(6).astype(np.float32),), rtol=1e-6, atol=1e-7),
    Case("argmax_keepdims_axes", argmax_keepdims_axes, lambda r: (r.integers(0, 3, (3, 4)),)),
    Case("uint_subtract_compare", uint_subtract_compare, lambda r: (r.integers(0, 256, 6).astype(np.uint8),
                                                                    r.integers(0, 256, 6).astype(np.uint8))),
    Case("int_true_divide", int_true_divide, lambda r: (r.integers(-9, 9, 5), r.integers(1, 5, 5))),
    Case("cumsum_axis_dtypes", cumsum_axis_dtypes, lambda r: (r.integers(-3, 4, (3, 4)).astype(np.int16),),
         rtol=1e-6, atol=1e-7),
    Case("norm_axes", norm_axes, lambda r: (r.standard_normal((3, 4)),), rtol=1e-7, atol=1e-9),
    Case("mean_std_f32", mean_std_f32, lambda r: (r.standard_normal((5, 3)).astype(np.float32),), rtol=1e-5,
         atol=1e-6),
    Case("interp_left_right", interp_left_right, lambda r: (r.random(7) * 1.4 - 0.2, np.linspace(0, 1, 5),
                                                            r.standard_normal(5)), rtol=1e-7, atol=1e-9),
    Case("searchsorted_sides", searchsorted_sides, lambda r: (np.sort(r.integers(0, 3, 6)).astype(np.float64),
                                                              r.integers(0, 3, 4).astype(np.float64))),
    Case("convolve_int", convolve_int, lambda r: (r.integers(-3, 4, 7), r.integers(-3, 4, 3))),
    Case("gradient_2d", gradient_2d, lambda r: (r.standard_normal((4, 5)),), rtol=1e-7, atol=1e-9),
    Case("diff_int_bool", diff_int_bool, lambda r: (r.integers(0, 9, 6).astype(np.uint8), r.random(6) < 0.5)),
    Case("unique_float_inverse", unique_float_inverse, lambda r: (r.random(8),)),
    Case("sort_int_axis0", sort_int_axis0, lambda r: (r.integers(0, 4, (4, 3)),)),
    Case("add_at_int", add_at_int, lambda r: (np.zeros(5, dtype=np.int32), r.integers(0, 5, 9))),
    Case("maximum_accumulate_f32", maximum_accumulate_f32, lambda r: (r.standard_normal(7).astype(np.float32),)),
]
