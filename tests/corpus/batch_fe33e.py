"""fe33's batch, part 5: dtype rules of NumPy's reductions, accumulations and rounding functions
on small and unsigned integers, float32 and complex64 (the result dtypes users never write)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=6, edge=1):
    return big if rng.integers(0, 3) else edge


def cumsum_int8(a):
    return np.cumsum(a), np.cumprod(a[:3])


def sum_uint8(a):
    return a.sum(), np.sum(a, axis=0), a.prod()


def prod_int32(a):
    return np.prod(a), a.sum(dtype=np.int32)


def mean_var_f32(x):
    return x.mean(), x.var(), x.std(axis=0)


def abs_complex64(z):
    return np.abs(z), z.real * 2, np.angle(z)


def floor_ceil_int(a):
    return np.floor(a), np.ceil(a), np.trunc(a), np.round(a)


def floor_f32(x):
    return np.floor(x), np.rint(x), np.fix(x)


def sign_int(a):
    return np.sign(a), np.abs(a), np.negative(a)


def max_bool(m):
    return m.max(), m.sum(), m.any(), np.cumsum(m)


def mean_uint16(a):
    return a.mean(axis=0), a.astype(np.int32) - 100


def f32_with_f64_scalar(x):
    return x * np.float64(2.0), x + np.float32(1.0), x / 3


def int_and_float_arrays(a, x):
    return a * x, a // 2, a / 2


def median_int(a):
    return np.median(a), np.percentile(a, 50)


def argmax_uint(a):
    return np.argmax(a), a.max() - a.min()


def cumsum_f32_axis(X):
    return np.cumsum(X, axis=0), X.sum(axis=1)


def diff_uint8(a):
    return np.diff(a), np.diff(a.astype(np.int16))


def clip_uint8(a):
    return np.clip(a, 10, 200), np.clip(a.astype(np.int16) - 50, 0, 255).astype(np.uint8)


def square_int16(a):
    return np.square(a), a * a, a ** 2


def dot_int8(a, b):
    return np.dot(a, b), a @ b


def sqrt_f32_mix(x, s):
    return np.sqrt(x * s), np.exp(x) * s


def bool_arith(m, x):
    return x * m, x[m].sum() if m.any() else 0.0, (m * 1).sum()


def minimum_mixed(a, x):
    return np.minimum(a, x), np.maximum(a, 2.5)


def cumulative_mean(x):
    return np.cumsum(x) / np.arange(1, x.shape[0] + 1)


def where_int_float(m, a):
    return np.where(m, a, a * 0.5)


def logical_mix(a, b):
    return np.logical_xor(a > 0, b > 0), np.logical_not(a > 0).sum()


CASES = [
    Case("cumsum_int8", cumsum_int8, lambda r: (r.integers(-100, 100, _n(r, 8, 3)).astype(np.int8),)),
    Case("sum_uint8", sum_uint8, lambda r: (r.integers(0, 256, (_n(r), 3)).astype(np.uint8),)),
    Case("prod_int32", prod_int32, lambda r: (r.integers(-9, 9, _n(r, 8)).astype(np.int32),)),
    Case("mean_var_f32", mean_var_f32, lambda r: (r.standard_normal((_n(r, 20), 3)).astype(np.float32),), rtol=1e-5, atol=1e-6),
    Case("abs_complex64", abs_complex64, lambda r: ((r.standard_normal(_n(r)) + 1j * r.standard_normal(6)[:1]).astype(np.complex64),), rtol=1e-6),
    Case("floor_ceil_int", floor_ceil_int, lambda r: (r.integers(-9, 9, _n(r)),)),
    Case("floor_f32", floor_f32, lambda r: ((r.standard_normal(_n(r)) * 3).astype(np.float32),)),
    Case("sign_int", sign_int, lambda r: (r.integers(-9, 9, _n(r)).astype(np.int16),)),
    Case("max_bool", max_bool, lambda r: (r.random(_n(r)) > 0.5,)),
    Case("mean_uint16", mean_uint16, lambda r: (r.integers(0, 60000, (_n(r), 3)).astype(np.uint16),)),
    Case("f32_with_f64_scalar", f32_with_f64_scalar, lambda r: (r.standard_normal(_n(r)).astype(np.float32),), rtol=1e-6),
    Case("int_and_float_arrays", int_and_float_arrays, lambda r: (r.integers(-9, 9, _n(r)).astype(np.int32), r.standard_normal(6).astype(np.float32)[:1]), rtol=1e-6),
    Case("median_int", median_int, lambda r: (r.integers(-9, 9, _n(r, 7)),)),
    Case("argmax_uint", argmax_uint, lambda r: (r.integers(0, 9, _n(r)).astype(np.uint32),)),
    Case("cumsum_f32_axis", cumsum_f32_axis, lambda r: (r.standard_normal((_n(r), 4)).astype(np.float32),), rtol=1e-6, atol=1e-6),  # float32 sums: order
    Case("diff_uint8", diff_uint8, lambda r: (r.integers(0, 256, _n(r, 6, 2)).astype(np.uint8),)),
    Case("clip_uint8", clip_uint8, lambda r: (r.integers(0, 256, _n(r)).astype(np.uint8),)),
    Case("square_int16", square_int16, lambda r: (r.integers(-300, 300, _n(r)).astype(np.int16),)),
    Case("dot_int8", dot_int8, lambda r: (r.integers(-100, 100, _n(r)).astype(np.int8), r.integers(-100, 100, 6).astype(np.int8)[:1])),
    Case("sqrt_f32_mix", sqrt_f32_mix, lambda r: (r.uniform(0, 2, _n(r)).astype(np.float32), 2.0), rtol=1e-6),
    Case("bool_arith", bool_arith, lambda r: (r.random(5) > 0.5, r.standard_normal(5))),
    Case("minimum_mixed", minimum_mixed, lambda r: (r.integers(-3, 4, _n(r)).astype(np.int32), r.standard_normal(6).astype(np.float32)[:1])),
    Case("cumulative_mean", cumulative_mean, lambda r: (r.standard_normal(_n(r, 8)).astype(np.float32),), rtol=1e-6),
    Case("where_int_float", where_int_float, lambda r: (r.random(_n(r)) > 0.5, r.integers(-9, 9, 6)[:1])),
    Case("logical_mix", logical_mix, lambda r: (r.standard_normal(_n(r)), r.standard_normal(6)[:1])),
]
