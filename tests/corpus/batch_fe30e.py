"""fe30's batch, part 5: edge semantics in NumPy style (overlapping in-place slices, small
integer dtypes, float32 with Python floats, empty inputs, reversed views, accumulate)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=0):
    return big if rng.integers(0, 3) else edge


def overlap_add(x):
    x[1:] += x[:-1]
    return x


def reversed_view_copy(x):
    y = x[::-1]
    x[:] = y * 2
    return x


def uint8_saturate(img, gain):
    out = img.astype(np.int32) * gain
    return np.clip(out, 0, 255).astype(np.uint8)


def uint8_wrap(a, b):
    return a + b


def f32_mix(x):
    return x * 0.1 + np.float32(1.5)


def int_true_div(a, b):
    return a / b, a // b


def empty_reductions(x):
    return x.sum(), x.size, np.prod(x)


def maximum_accumulate(x):
    return np.maximum.accumulate(x)


def stride_scatter(x):
    y = np.zeros(2 * x.shape[0])
    y[::2] = x
    y[1::2] = -x
    return y


def neg_zero_sign(x):
    return np.sign(x), np.copysign(1.0, x)


def argsort_desc_top(x, k):
    idx = np.argsort(-x, kind="stable")[:k]
    return x[idx]


def bool_count_mean(x):
    m = x > 0
    return m.sum(), m.mean() if m.size else 0.0


def int16_accumulate(a):
    s = np.zeros(1, dtype=np.int16)
    for v in a:
        s[0] += v
    return s


CASES = [
    Case("overlap_add", overlap_add, lambda r: (r.standard_normal(_n(r, 9, 1)),)),
    Case("reversed_view_copy", reversed_view_copy, lambda r: (r.standard_normal(_n(r, 7, 1)),)),
    Case("uint8_saturate", uint8_saturate, lambda r: (r.integers(0, 256, (3, 4)).astype(np.uint8), 3)),
    Case("uint8_wrap", uint8_wrap, lambda r: (r.integers(0, 256, 6).astype(np.uint8), r.integers(0, 256, 6).astype(np.uint8))),
    Case("f32_mix", f32_mix, lambda r: (r.standard_normal(_n(r)).astype(np.float32),), rtol=1e-6),
    Case("int_true_div", int_true_div, lambda r: (r.integers(-9, 9, 6), r.integers(1, 4, 6) * r.choice([-1, 1]))),
    Case("empty_reductions", empty_reductions, lambda r: (r.standard_normal(_n(r)),)),
    Case("maximum_accumulate", maximum_accumulate, lambda r: (r.standard_normal(_n(r, 9, 1)),)),
    Case("stride_scatter", stride_scatter, lambda r: (r.standard_normal(_n(r)),)),
    Case("neg_zero_sign", neg_zero_sign, lambda r: (np.array([-0.0, 0.0, -2.0, 3.0, np.nan]),)),
    Case("argsort_desc_top", argsort_desc_top, lambda r: (r.standard_normal(8), int(r.choice([0, 3, 8])))),
    Case("bool_count_mean", bool_count_mean, lambda r: (r.standard_normal(_n(r)),)),
    Case("int16_accumulate", int16_accumulate, lambda r: (r.integers(-30000, 30000, 6).astype(np.int16),)),
]
