"""fe41's second batch: the arithmetic numba code leans on without saying so, in the domains of
batch_fe41: narrow integer arrays (uint8 pixels, int16 samples, uint32 hashes) stored into and
updated in place, negative floor division and modulo, truncating int(), banker's round(),
float32 accumulators and math.* of float32 elements, bool sums, chained comparisons, min/max
of mixed kinds, divmod; written before looking at what is supported."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=7, edge=0):
    return big if rng.integers(0, 3) else edge


@njit
def _wrap(i, n):
    return (i % n + n) % n


def brighten_u8_inplace(img, delta):
    h, w = img.shape
    for i in range(h):
        for j in range(w):
            v = int(img[i, j]) + delta
            if v > 255:
                v = 255
            elif v < 0:
                v = 0
            img[i, j] = v


def u8_wraparound_sum(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]
    return out


def int16_scale_truncate(x, num, den):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * num // den
    return out


def int_elements_div_inplace(a):
    for i in range(a.shape[0]):
        a[i] //= 3
        a[i] -= 1


def int_array_float_update(a, f):
    for i in range(a.shape[0]):
        a[i] = a[i] * f


def negative_floor_mod(x, m):
    q = np.empty_like(x)
    r = np.empty_like(x)
    for i in range(x.shape[0]):
        q[i] = x[i] // m
        r[i] = x[i] % m
    return q, r


def float_floor_mod(x, m):
    out = np.empty((x.shape[0], 2))
    for i in range(x.shape[0]):
        out[i, 0] = x[i] // m
        out[i, 1] = x[i] % m
    return out


def truncate_toward_zero(x):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = int(x[i])
    return out


def floor_vs_int(x):
    s = 0
    for i in range(x.shape[0]):
        s += math.floor(x[i]) - int(x[i])
    return s


def bankers_round(x):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = round(x[i])
    return out


def f32_accumulate(x):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s += x[i] * np.float32(0.1)
    return s


def f32_math_elements(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = math.sqrt(abs(x[i])) + math.exp(-x[i] * x[i])
    return out


def bool_sum_count(x, lo, hi):
    c = 0
    for i in range(x.shape[0]):
        c += lo < x[i] <= hi
    return c


def mixed_min_max(x):
    lo = 0
    hi = 0
    for i in range(x.shape[0]):
        lo = min(lo, x[i])
        hi = max(hi, x[i])
    return lo, hi


def divmod_digits(x, base):
    out = np.zeros((x.shape[0], 4), dtype=np.int64)
    for i in range(x.shape[0]):
        v = x[i]
        for d in range(4):
            v, r = divmod(v, base)
            out[i, d] = r
    return out


def circular_shift_helper(x, k):
    n = x.shape[0]
    out = np.empty_like(x)
    for i in range(n):
        out[_wrap(i + k, n)] = x[i]
    return out


def hash_u32_mix(keys):
    out = np.empty(keys.shape[0], dtype=np.uint32)
    for i in range(keys.shape[0]):
        h = np.uint32(keys[i])
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x45D9F3B)
        h ^= h >> np.uint32(16)
        out[i] = h
    return out


def int_power_table(base, n):
    out = np.empty(n, dtype=np.int64)
    p = 1
    for i in range(n):
        out[i] = p
        p *= base
    return out


def sign_changes_int8(x):
    c = 0
    prev = 0
    for i in range(x.shape[0]):
        s = int(x[i] > 0) - int(x[i] < 0)
        if s != 0:
            if prev != 0 and s != prev:
                c += 1
            prev = s
    return c


def mean_of_uint8(img):
    total = 0
    for v in img.ravel():
        total += v
    return total / img.size if img.size else 0.0


def clip_to_uint8(x):
    out = np.empty(x.shape[0], dtype=np.uint8)
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0 if v < 0 else (255 if v > 255 else np.uint8(v))
    return out


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


_add("brighten_u8_inplace", brighten_u8_inplace,
     lambda r: (r.integers(0, 256, (_n(r, 3), 4)).astype(np.uint8), int(r.integers(-80, 80))))
_add("u8_wraparound_sum", u8_wraparound_sum,
     lambda r: (lambda n: (r.integers(0, 256, n).astype(np.uint8), r.integers(0, 256, n).astype(np.uint8)))(_n(r)))
_add("int16_scale_truncate", int16_scale_truncate,
     lambda r: (r.integers(-3000, 3000, _n(r)).astype(np.int16), 7, int(r.integers(1, 5))))
_add("int_elements_div_inplace", int_elements_div_inplace, lambda r: (r.integers(-20, 20, _n(r)),))
_add("int_array_float_update", int_array_float_update, lambda r: (r.integers(-20, 20, _n(r)), 0.7))
_add("negative_floor_mod", negative_floor_mod, lambda r: (r.integers(-20, 20, _n(r)), int(r.choice([-3, 3, 4]))))
_add("float_floor_mod", float_floor_mod, lambda r: (r.standard_normal(_n(r)) * 5, float(r.choice([-1.5, 2.0]))))
_add("truncate_toward_zero", truncate_toward_zero, lambda r: (r.standard_normal(_n(r)) * 5,))
_add("floor_vs_int", floor_vs_int, lambda r: (r.standard_normal(_n(r)) * 5,))
_add("bankers_round", bankers_round, lambda r: (np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.4, -2.6])[:_n(r)],))
_add("f32_accumulate", f32_accumulate, lambda r: (r.random(_n(r, 9)).astype(np.float32),), rtol=1e-6, atol=1e-7)
_add("f32_math_elements", f32_math_elements, lambda r: (r.standard_normal(_n(r)).astype(np.float32),),
     rtol=1e-6, atol=1e-7)
_add("bool_sum_count", bool_sum_count, lambda r: (r.standard_normal(_n(r, 9)), -0.5, 0.5))
_add("mixed_min_max", mixed_min_max, lambda r: (r.standard_normal(_n(r)),))
_add("divmod_digits", divmod_digits, lambda r: (r.integers(-500, 5000, _n(r)), int(r.choice([7, 10]))))
_add("circular_shift_helper", circular_shift_helper, lambda r: (r.standard_normal(_n(r, 6, 1)), int(r.integers(-9, 9))))
_add("hash_u32_mix", hash_u32_mix, lambda r: (r.integers(0, 2**31, _n(r)),))
_add("int_power_table", int_power_table, lambda r: (int(r.integers(-3, 4)), _n(r, 9)))
_add("sign_changes_int8", sign_changes_int8, lambda r: (r.integers(-2, 3, _n(r, 9)).astype(np.int8),))
_add("mean_of_uint8", mean_of_uint8, lambda r: (r.integers(0, 256, (_n(r, 3), 5)).astype(np.uint8),))
_add("clip_to_uint8", clip_to_uint8, lambda r: (r.standard_normal(_n(r)) * 300,))
