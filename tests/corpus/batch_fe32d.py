"""fe32's batch, part 4: NumPy's edge semantics a compiled loop can silently miss (integer
reductions' dtypes, NaN in argmax/maximum/fmax/sort, division and remainder by zero and of
negatives, half-to-even rounding, unsigned wrap, clip with lo > hi, shifts, empty reductions),
written as user code, with loops where numba users would write them."""

import numpy as np
from corpus_case import Case


def int8_sum_dtype(a):
    return a.sum(), a.mean(), np.cumsum(a)[-1], a.prod()


def argmax_nan(x):
    return np.argmax(x), np.argmin(x), np.nanargmax(x)


def maximum_fmax_nan(a, b):
    return np.maximum(a, b), np.fmax(a, b), np.minimum.reduce(a)


def int_div_mod_zero(a, b):
    return a // b, a % b


def float_mod_negative(x, y):
    return x % y, np.fmod(x, y), x // y


def half_even(x):
    return np.round(x), np.rint(x), np.round(x, 1)


def uint_wrap(a, b):
    return a - b, (a - b).sum(), np.abs(a.astype(np.int8))


def clip_lo_gt_hi(x):
    return np.clip(x, 1.0, -1.0)


def shifts(a, s):
    return a << s, a >> s


def loop_min_bool(m):
    best = True
    for i in range(m.shape[0]):
        best = best and m[i]
    return best, m.min(), m.sum()


def empty_mean_loop(x):
    s = 0.0
    n = 0
    for v in x:
        if v > 0:
            s += v
            n += 1
    return s / n if n > 0 else np.nan


def sign_nan(x):
    return np.sign(x), np.sqrt(x), np.log(x)


def int_abs_min(a):
    return np.abs(a), -a


def f32_loop_accumulate(x):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s += x[i] * np.float32(0.1)
    return s


def mixed_int_float_loop(a, w):
    out = np.zeros(a.shape[0], dtype=np.int32)
    for i in range(a.shape[0]):
        out[i] = a[i] * w
    return out


def bool_arith(a, b):
    return a & b, a | b, a ^ b, ~a, (a + 0).sum()


def nan_sort(x):
    return np.sort(x), np.argsort(x, kind="stable")


def power_ints(a):
    return a ** 2, np.power(a, 3), 2.0 ** a


def where_int_float(x, k):
    return np.where(x > 0, k, x), np.where(x > 0, 1, 0)


CASES = [
    Case("int8_sum_dtype", int8_sum_dtype, lambda r: (r.integers(-128, 128, 40).astype(np.int8),)),
    Case("argmax_nan", argmax_nan, lambda r: (np.array([1.0, np.nan, 3.0, np.nan]) * r.choice([1, -1]),)),
    Case("maximum_fmax_nan", maximum_fmax_nan, lambda r: (np.array([1.0, np.nan, 3.0, -0.0]), np.array([np.nan, 2.0, 1.0, 0.0]))),
    Case("int_div_mod_zero", int_div_mod_zero, lambda r: (r.integers(-9, 9, 8), r.integers(-2, 3, 8))),
    Case("float_mod_negative", float_mod_negative, lambda r: (np.array([5.5, -5.5, 3.0, -0.0, np.inf]), np.array([-2.0, 2.0, 0.0, 1.0, 2.0]))),
    Case("half_even", half_even, lambda r: (np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.25, 0.35, 2.675]),)),
    Case("uint_wrap", uint_wrap, lambda r: (r.integers(0, 256, 6).astype(np.uint8), r.integers(0, 256, 6).astype(np.uint8))),
    Case("clip_lo_gt_hi", clip_lo_gt_hi, lambda r: (r.standard_normal(6) * 3,)),
    Case("shifts", shifts, lambda r: (r.integers(-100, 100, 6), r.integers(0, 8, 6))),
    Case("loop_min_bool", loop_min_bool, lambda r: (r.random(5) < 0.8,)),
    Case("empty_mean_loop", empty_mean_loop, lambda r: (r.standard_normal(6) - r.choice([0, 9]),)),
    Case("sign_nan", sign_nan, lambda r: (np.array([-1.0, 0.0, -0.0, np.nan, np.inf, 2.0]),)),
    Case("int_abs_min", int_abs_min, lambda r: (np.array([-128, -1, 0, 127], dtype=np.int8),)),
    Case("f32_loop_accumulate", f32_loop_accumulate, lambda r: (r.standard_normal(50).astype(np.float32),)),
    Case("mixed_int_float_loop", mixed_int_float_loop, lambda r: (r.integers(-9, 9, 6), 2.7)),
    Case("bool_arith", bool_arith, lambda r: (r.random(6) < 0.5, r.random(6) < 0.5)),
    Case("nan_sort", nan_sort, lambda r: (np.array([3.0, np.nan, 1.0, -np.inf, np.nan, 2.0]),)),
    Case("power_ints", power_ints, lambda r: (r.integers(0, 6, 6),)),
    Case("where_int_float", where_int_float, lambda r: (r.standard_normal(6), 3)),
]
