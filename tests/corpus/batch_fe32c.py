"""fe32's batch, part 3: adversarial uses of the forms fe32 added and of old ones around them
(choices of arrays that the statement also writes, reversed loops with breaks, raises inside
while loops, in-place nan_to_num through a view, index lists on both sides, float32 and small
integers, empty inputs)."""

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=1):
    return big if rng.integers(0, 3) else edge


def choice_overlap_store(X, Y, alpha):
    X[1:] = (X if alpha > 0.5 else Y)[:-1] * 2
    return X


def choice_inplace_rev(X, Y, alpha):
    X += (X if alpha > 0.5 else Y)[::-1]
    return X


def choice_in_loop(X, Y):
    out = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        out += (X[i] if X[i, 0] > 0 else Y[i]) * (i + 1)
    return out


def choice_reduced(x, y, t):
    return ((x - x.mean()) if t > 0 else np.sort(y)).sum(), (x if t > 1 else y).max()


def choice_nested(x, y, z, a, b):
    return (x if a > 0 else (y if b > 0 else z)) + 1


def choice_f32(x, alpha):
    return (x * np.float32(2) if alpha > 0 else x - np.float32(1)).astype(np.float64)


def choice_int_bool(a, b, k):
    m = (a > b) if k > 0 else (a < b)
    return np.where(m, a, b), (a if k > 1 else b) // 2


def reversed_break(x, t):
    last = -1
    for i in reversed(range(len(x))):
        if x[i] > t:
            last = i
            break
    return last


def reversed_step_fill(n):
    out = np.zeros(n, dtype=np.int64)
    c = 0
    for i in reversed(range(0, n, 3)):
        out[i] = c
        c += 1
    return out


def reversed_nested(A):
    n = A.shape[0]
    x = np.zeros(n)
    for i in reversed(range(n)):
        s = A[i, n]
        for j in reversed(range(i + 1, n)):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    return x


def raise_in_while(x, cap):
    total = 0.0
    i = 0
    while i < x.shape[0]:
        total += x[i]
        if total > cap:
            raise ValueError("cap exceeded")
        i += 1
    return total


def raise_shape_check(a, b):
    if a.shape[0] != b.shape[0]:
        raise ValueError("shapes differ")
    return a * b


def nan_to_num_view(X):
    row = X[0]
    np.nan_to_num(row, copy=False, nan=9.0)
    return X


def nan_to_num_alias(x):
    y = np.nan_to_num(x, copy=False, posinf=1.0)
    y *= 2
    return x


def nan_to_num_scalar_loop(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.nan_to_num(np.log(x[i]), neginf=-50.0)
    return out


def nan_to_num_f32_scalar(x):
    s = np.float32(0)
    for i in range(x.shape[0]):
        s += np.nan_to_num(x[i] / x[0])
    return s


def index_list_both(X):
    Y = X[:, [2, 0]] * 10
    X[:, [0, 1]] = Y
    return X


def index_list_rows_stat(X):
    return X[[0, -1]].mean(axis=0), X[[1, 1, 0]].sum()


def builtin_max_int(a):
    return max(a) - min(a)


def builtin_max_nan(x):
    return max(x), min(x), np.max(x)


def finfo_guard(x):
    tiny = np.finfo(x.dtype).tiny
    return np.where(np.abs(x) < tiny, 0.0, 1.0 / x)


def iinfo_clip(a):
    hi = np.iinfo(np.int8).max
    lo = np.iinfo(np.int8).min
    return np.clip(a, lo, hi).astype(np.int8)


def cov_pair_scaled(x, y):
    c = np.cov(x, y)
    return c[0, 1] / np.sqrt(c[0, 0] * c[1, 1])


def if_data_temps(X, Y, t):
    if X.sum() > t:
        W = X - Y
    else:
        W = Y * 0.5
    return W.max(axis=0)


def if_data_temps_loop(X, Y):
    acc = np.zeros_like(X)
    for k in range(3):
        if X[0, 0] * k > 1.0:
            T = X * k
        else:
            T = Y + k
        acc += T
    return acc


def while_counter_mask(x, t):
    k = 0
    y = x.copy()
    while (y > t).any() and k < 20:
        y[y > t] *= 0.5
        k += 1
    return y, k


def prefix_argmax(x):
    best = np.empty(x.shape[0], dtype=np.int64)
    b = 0
    for i in range(x.shape[0]):
        if x[i] > x[b]:
            b = i
        best[i] = b
    return best


def u8_hist_equal(img):
    h = np.zeros(256, dtype=np.int64)
    for v in img.ravel():
        h[v] += 1
    c = np.cumsum(h)
    lut = (c * 255 // c[-1]).astype(np.uint8)
    return lut[img]


def keepdims_chain(X):
    m = X.max(axis=(0, 1), keepdims=True)
    return X / m - X.min(axis=-1, keepdims=True)


def transposed_inplace(A):
    A.T[...] *= 2
    A[:, 0] = A[0, :A.shape[0]]
    return A


CASES = [
    Case("choice_overlap_store", choice_overlap_store, lambda r: (r.standard_normal((4, 3)), r.standard_normal((4, 3)), float(r.choice([0.2, 0.9])))),
    Case("choice_inplace_rev", choice_inplace_rev, lambda r: (r.standard_normal((4, 3)), r.standard_normal((4, 3)), float(r.choice([0.2, 0.9])))),
    Case("choice_in_loop", choice_in_loop, lambda r: (r.standard_normal((5, 3)), r.standard_normal((5, 3)))),
    Case("choice_reduced", choice_reduced, lambda r: (r.standard_normal(6), r.standard_normal(6), float(r.choice([-1.0, 0.5, 2.0])))),
    Case("choice_nested", choice_nested, lambda r: (r.standard_normal(4), r.standard_normal(4), r.standard_normal(4), float(r.choice([-1, 1])), float(r.choice([-1, 1])))),
    Case("choice_f32", choice_f32, lambda r: (r.standard_normal(5).astype(np.float32), float(r.choice([-1, 1])))),
    Case("choice_int_bool", choice_int_bool, lambda r: (r.integers(-5, 5, 6), r.integers(-5, 5, 6), int(r.choice([0, 1, 2])))),
    Case("reversed_break", reversed_break, lambda r: (r.random(_n(r)), 0.7)),
    Case("reversed_step_fill", reversed_step_fill, lambda r: (int(r.integers(0, 11)),)),
    Case("reversed_nested", reversed_nested, lambda r: (np.triu(r.random((4, 5))) + 2 * np.eye(4, 5),)),
    Case("raise_in_while", raise_in_while, lambda r: (r.random(8), float(r.choice([1.0, 100.0])))),
    Case("raise_shape_check", raise_shape_check, lambda r: (r.random(4), r.random(int(r.choice([3, 4]))))),
    Case("nan_to_num_view", nan_to_num_view, lambda r: (np.where(r.random((3, 4)) < 0.3, np.nan, r.random((3, 4))),)),
    Case("nan_to_num_alias", nan_to_num_alias, lambda r: (np.where(r.random(6) < 0.3, np.inf, r.random(6)),)),
    Case("nan_to_num_scalar_loop", nan_to_num_scalar_loop, lambda r: (np.array([1.0, 0.0, -1.0, 2.0]),)),
    Case("nan_to_num_f32_scalar", nan_to_num_f32_scalar, lambda r: (r.standard_normal(5).astype(np.float32) * r.choice([0, 1]),), rtol=1e-6),
    Case("index_list_both", index_list_both, lambda r: (r.standard_normal((3, 4)),)),
    Case("index_list_rows_stat", index_list_rows_stat, lambda r: (r.standard_normal((3, 4)),)),
    Case("builtin_max_int", builtin_max_int, lambda r: (r.integers(-9, 9, 5).astype(np.int16),)),
    Case("builtin_max_nan", builtin_max_nan, lambda r: (np.array([r.choice([np.nan, 1.0]), 3.0, np.nan, 2.0]),)),
    Case("finfo_guard", finfo_guard, lambda r: (np.array([0.0, 1e-320, 2.0, -4.0]),)),
    Case("iinfo_clip", iinfo_clip, lambda r: (r.integers(-300, 300, 7),)),
    Case("cov_pair_scaled", cov_pair_scaled, lambda r: (r.standard_normal(9), r.standard_normal(9))),
    Case("if_data_temps", if_data_temps, lambda r: (r.standard_normal((3, 4)), r.standard_normal((3, 4)), 0.0)),
    Case("if_data_temps_loop", if_data_temps_loop, lambda r: (r.standard_normal((3, 4)), r.standard_normal((3, 4)))),
    Case("while_counter_mask", while_counter_mask, lambda r: (r.random(6) * 10, 1.0)),
    Case("prefix_argmax", prefix_argmax, lambda r: (r.integers(0, 4, _n(r)).astype(np.float64),)),
    Case("u8_hist_equal", u8_hist_equal, lambda r: (r.integers(0, 256, (4, 5)).astype(np.uint8),)),
    Case("keepdims_chain", keepdims_chain, lambda r: (r.random((3, 4, 2)) + 0.5,)),
    Case("transposed_inplace", transposed_inplace, lambda r: (r.standard_normal((3, 4)),)),
]
