"""fe33's batch, part 3: NumPy array programs whose meaning hangs on NumPy's semantics (aliasing
views, overlap, dtype rules of ufuncs and reductions, NaN, empty and size-1 broadcasting)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=5, edge=1):
    return big if rng.integers(0, 3) else edge


def add_own_transpose(A):
    A += A.T
    return A


def assign_transpose(A):
    A[:] = A.T
    return A


def shift_left_overlap(x):
    x[:-1] = x[1:]
    return x


def shift_right_overlap(x):
    x[1:] = x[:-1] * 2
    return x


def reverse_in_place(x):
    x[:] = x[::-1]
    return x


def view_alias_write(X):
    row = X[0]
    X[1:] += row
    return X


def col_view_scale(X):
    c = X[:, 0]
    X *= c[:, None]
    return X


def sqrt_int8(a):
    return np.sqrt(a)


def exp_int16(a):
    return np.exp(a)


def sqrt_int32(a):
    return np.sqrt(a)


def int8_sum_mean(a):
    return a.sum(), a.mean(), a.prod(), a.max()


def uint8_sub(a, b):
    return a - b, np.diff(a)


def bool_cumsum_diff(m):
    return np.cumsum(m), np.diff(m)


def int_pow(a):
    return a ** 2, 2 ** a


def int_divmod_zero(a, b):
    return a // b, a % b


def float_mod_neg(x, y):
    return x % y, np.fmod(x, y), np.remainder(x, -1.5)


def nan_max_argmax(x):
    return np.max(x), np.argmax(x), np.fmax(x, 0.0), np.maximum(x, 0.0)


def nan_sort(x):
    return np.sort(x)


def round_half_even(x):
    return np.round(x), np.round(x * 10) / 10, np.rint(x)


def where_promote(m, a):
    return np.where(m, a, 0.5), np.where(m, 1, 0)


def clip_int_float(a):
    return np.clip(a, 0.5, 3.5)


def empty_max(x):
    return x.max()


def empty_mean(x):
    return x.mean()


def int32_matmul(A, B):
    return A @ B, np.dot(A[0], B[:, 0])


def int_norm(a):
    return np.linalg.norm(a)


def int32_std(a):
    return a.std(), a.var(axis=0)


def f32_sum_large(x):
    return x.sum(), np.cumsum(x)[-1], x.mean()


def f32_plus_int64(x, k):
    return x + k, x + np.int64(2), x * 2.5


def int32_plus_f32(a, x):
    return a + x


def size1_broadcast(A, b):
    return A + b, A * b.T


def newaxis_assign(X, v):
    X[:, :] = v[None, :]
    return X


def abs_int_min(a):
    return np.abs(a)


def neg_uint(a):
    return -a


def astype_trunc(x):
    return x.astype(np.int32), (x * 100).astype(np.int8), x.astype(bool)


def int_true_div_zero(a, b):
    return a / b


def cumprod_int(a):
    return np.cumprod(a)


def argmin_ties(X):
    return X.argmin(axis=1), X.argmin()


def mean_int_axis(A):
    return A.mean(axis=0), np.median(A, axis=1)


def logsumexp_inf(z):
    m = z.max()
    return m + np.log(np.exp(z - m).sum())


def fancy_gather(x, idx):
    return x[idx] * 2


def fancy_scatter(x, idx, v):
    x[idx] = v
    return x


def fancy_scatter_add(x, idx):
    x[idx] += 1.0
    return x


def strided_inplace(x):
    x[::2] += x[1::2]
    return x


def min_max_scalar_mix(x, t):
    return np.minimum(x, t).sum() + max(x.max(), t) + min(x.min(), t)


def sum_bool_int(m, a):
    return (m * a).sum(), m.sum() + a.sum(), (m + m).dtype == np.bool_  # .dtype of an expression: refused


def matmul_1x1(a, b):
    return a @ b


def f32_division(x, y):
    return x / y, x // y


def complex_abs(z):
    return np.abs(z) ** 2 + np.real(z * np.conj(z))


def _nan(r, n):
    x = r.standard_normal(n)
    if n > 2:
        x[r.integers(0, n)] = np.nan
    return x


CASES = [
    Case("add_own_transpose", add_own_transpose, lambda r: (r.standard_normal((4, 4)),)),
    Case("assign_transpose", assign_transpose, lambda r: (r.standard_normal((4, 4)),)),
    Case("shift_left_overlap", shift_left_overlap, lambda r: (r.standard_normal(_n(r)),)),
    Case("shift_right_overlap", shift_right_overlap, lambda r: (r.standard_normal(_n(r)),)),
    Case("reverse_in_place", reverse_in_place, lambda r: (r.standard_normal(_n(r)),)),
    Case("view_alias_write", view_alias_write, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("col_view_scale", col_view_scale, lambda r: (r.standard_normal((_n(r), 3)),)),
    Case("sqrt_int8", sqrt_int8, lambda r: (r.integers(0, 100, _n(r)).astype(np.int8),)),
    Case("exp_int16", exp_int16, lambda r: (r.integers(-5, 5, _n(r)).astype(np.int16),), rtol=1e-6),  # float32 exp
    Case("sqrt_int32", sqrt_int32, lambda r: (r.integers(0, 100, _n(r)).astype(np.int32),)),
    Case("int8_sum_mean", int8_sum_mean, lambda r: (r.integers(-128, 127, _n(r, 9)).astype(np.int8),)),
    Case("uint8_sub", uint8_sub, lambda r: (r.integers(0, 256, _n(r)).astype(np.uint8), r.integers(0, 256, 5).astype(np.uint8))),
    Case("bool_cumsum_diff", bool_cumsum_diff, lambda r: (r.random(_n(r)) > 0.5,)),
    Case("int_pow", int_pow, lambda r: (r.integers(0, 9, _n(r)),)),
    Case("int_divmod_zero", int_divmod_zero, lambda r: (r.integers(-9, 9, _n(r)), r.integers(-2, 3, 5))),
    Case("float_mod_neg", float_mod_neg, lambda r: (r.standard_normal(_n(r)) * 5, r.standard_normal(5))),
    Case("nan_max_argmax", nan_max_argmax, lambda r: (_nan(r, _n(r)),)),
    Case("nan_sort", nan_sort, lambda r: (_nan(r, _n(r)),)),
    Case("round_half_even", round_half_even, lambda r: (r.integers(-6, 6, _n(r)) / 2.0,)),
    Case("where_promote", where_promote, lambda r: (r.random(_n(r)) > 0.5, r.integers(-9, 9, 5).astype(np.int32))),
    Case("clip_int_float", clip_int_float, lambda r: (r.integers(-2, 6, _n(r)),)),
    Case("empty_max", empty_max, lambda r: (r.standard_normal(_n(r, 4, 0)),)),
    Case("empty_mean", empty_mean, lambda r: (r.standard_normal(_n(r, 4, 0)),)),
    Case("int32_matmul", int32_matmul, lambda r: (r.integers(-9, 9, (_n(r), 3)).astype(np.int32), r.integers(-9, 9, (3, 4)).astype(np.int32))),
    Case("int_norm", int_norm, lambda r: (r.integers(-9, 9, _n(r)),)),
    Case("int32_std", int32_std, lambda r: (r.integers(-9, 9, (_n(r), 3)).astype(np.int32),)),
    Case("f32_sum_large", f32_sum_large, lambda r: (r.standard_normal(_n(r, 300)).astype(np.float32),), rtol=1e-4, atol=1e-4),
    Case("f32_plus_int64", f32_plus_int64, lambda r: (r.standard_normal(_n(r)).astype(np.float32), 3), rtol=1e-6),
    Case("int32_plus_f32", int32_plus_f32, lambda r: (r.integers(-9, 9, _n(r)).astype(np.int32), r.standard_normal(5).astype(np.float32))),
    Case("size1_broadcast", size1_broadcast, lambda r: (r.standard_normal((_n(r), 1)), r.standard_normal((1, 4)))),
    Case("newaxis_assign", newaxis_assign, lambda r: (r.standard_normal((_n(r), 3)), r.standard_normal(3))),
    Case("abs_int_min", abs_int_min, lambda r: (np.array([-128, -1, 5, 127][: _n(r, 4)], dtype=np.int8),)),
    Case("neg_uint", neg_uint, lambda r: (r.integers(0, 256, _n(r)).astype(np.uint8),)),
    Case("astype_trunc", astype_trunc, lambda r: (r.standard_normal(_n(r)) * 3,)),
    Case("int_true_div_zero", int_true_div_zero, lambda r: (r.integers(-3, 3, _n(r)), r.integers(-1, 2, 5))),
    Case("cumprod_int", cumprod_int, lambda r: (r.integers(-3, 4, _n(r, 9)).astype(np.int16),)),
    Case("argmin_ties", argmin_ties, lambda r: (r.integers(0, 2, (_n(r), 4)).astype(float),)),
    Case("mean_int_axis", mean_int_axis, lambda r: (r.integers(-9, 9, (_n(r), 4)),)),
    Case("logsumexp_inf", logsumexp_inf, lambda r: (np.array([-np.inf, 0.0, 1.0, -np.inf])[: _n(r, 4)],)),
    Case("fancy_gather", fancy_gather, lambda r: (r.standard_normal(6), r.integers(-6, 6, _n(r)))),
    Case("fancy_scatter", fancy_scatter, lambda r: (r.standard_normal(6), r.integers(-6, 6, _n(r)), 7.0)),
    Case("fancy_scatter_add", fancy_scatter_add, lambda r: (r.standard_normal(6), np.array([1, 1, 2, 5, 1])[: _n(r)])),
    Case("strided_inplace", strided_inplace, lambda r: (r.standard_normal(2 * _n(r)),)),
    Case("min_max_scalar_mix", min_max_scalar_mix, lambda r: (r.standard_normal(_n(r)), 0.1)),
    Case("sum_bool_int", sum_bool_int, lambda r: (r.random(_n(r)) > 0.5, r.integers(-9, 9, 5))),
    Case("matmul_1x1", matmul_1x1, lambda r: (r.standard_normal((_n(r), 1)), r.standard_normal((1, 3)))),
    Case("f32_division", f32_division, lambda r: (r.standard_normal(_n(r)).astype(np.float32), r.standard_normal(5).astype(np.float32)), rtol=1e-6),
    Case("complex_abs", complex_abs, lambda r: (r.standard_normal(_n(r)) + 1j * r.standard_normal(5),)),
]
