"""fe34's batch, part 3: the edges of fe34's forms, written to find wrong answers: views read
after their source changes, -inf and NaN ties, zero and one columns, dtypes of mixed
expressions, positions whose mask's source is written after the binding."""

import numpy as np
from corpus_case import Case


def _n(rng, big=6, edge=1):
    return big if rng.integers(0, 3) else edge


def _two(rng, first, second, big=6, edge=2):
    n = _n(rng, big, edge)
    return first(n), second(n)


def broadcast_in_loop(x):
    b = np.broadcast_to(x, (3, x.shape[0]))
    t = 0.0
    for k in range(3):
        x[k % x.shape[0]] += 1.0
        t += b[k].sum()
    return t, x


def broadcast_of_expression(x):
    b = np.broadcast_to(x * 2.0 + 1.0, (2, x.shape[0]))
    return b.T @ np.ones(2)


def broadcast_scalar_axis(A, v):
    return A * np.broadcast_to(v[None, :], A.shape) - np.broadcast_to(v, A.shape)


def contiguous_slice(x):
    y = np.ascontiguousarray(x[::2])
    return y.cumsum()


def contiguous_int_cast(a):
    y = np.ascontiguousarray(a, dtype=np.float32)
    return y / 3, y.dtype == np.float32


def fortran_vector(x):
    return np.asfortranarray(x) * 2, np.asfortranarray(x[::-1]).sum()


def nanargmax_inf(x):
    return np.nanargmax(x), np.nanargmin(x), np.nanargmax(-x)


def nanargmax_keepdims(X):
    return np.nanargmax(X, axis=0, keepdims=True), np.nanargmin(X, axis=-1)


def nanargmax_bool(m):
    return np.nanargmax(m), np.nanargmin(m)


def vander_zero_cols(x, n):
    return np.vander(x, n).shape[1], np.vander(x, n)


def vander_bool(m):
    return np.vander(m, 3)


def vander_uint64(a):
    return np.vander(a, 2)


def vander_overflow(a):
    return np.vander(a, 6)


def lexsort_nan(a, b):
    return np.lexsort((a, b)), np.lexsort([b])


def lexsort_float_keys(a, b, c):
    return np.lexsort((a, b, c))


def dtype_mixed(a, x):
    out = np.empty(a.shape[0], dtype=(a * x).dtype)
    out[:] = a * x
    return out, np.zeros(2, dtype=(a + a).dtype)


def dtype_of_sum(a):
    return np.full(3, 2, dtype=a.sum().dtype), a.astype(a[1:].dtype)


def dtype_of_division(a):
    return np.ones(2, dtype=(a / 2).dtype) + np.zeros(2, dtype=(a // 2).dtype)


def positions_after_write(x):
    idx = np.where(x > 0)[0]
    x[:] = -x
    return x[idx], np.where(x > 0)[0]


def positions_store_rows(X, c):
    idx = np.flatnonzero(c)
    X[idx] = 0.0
    return X


def positions_two_arrays(x, y):
    idx = np.nonzero(x < y)[0]
    d = y[idx] - x[idx]
    return d.sum(), len(idx)


def positions_nan(x):
    idx = np.nonzero(x)[0]
    return x[idx], idx


def positions_column(X):
    idx = np.where(X[:, 0] != 0)[0]
    return X[idx, 2] * 2, X[idx, 1:].sum(axis=0)


def positions_empty(x):
    idx = np.where(x > 100.0)[0]
    return x[idx].sum(), x[idx].max() if len(idx) else -1.0


def unique_counts_int(a):
    vals, counts = np.unique(a, return_counts=True)
    return vals, counts, counts.sum()


def tolerance_by_dtype(x, y):
    tol = 1e-3 if x.dtype == np.float32 else 1e-9
    same = x.dtype == y.dtype
    return np.abs(x - y) < tol, same, (x * 2).dtype != np.float64


def arange_float(x, n):
    t = np.arange(n, dtype=np.float64) * 0.5
    return t, np.arange(1, x.shape[0] + 1, dtype=float) * x, np.arange(0.5, 3.0, dtype=np.float64), np.arange(n, dtype=int)


def zero_bad_rows(X):
    X[np.isnan(X).any(axis=1)] = 0.0
    return X


def shift_rows_int(A, w):
    A[w > 0] += 3
    A[w < -1] = 2.7
    return A


def hist2d_int(a, b):
    H, xe, ye = np.histogram2d(a, b, bins=2)
    return H, xe


CASES = [
    Case("broadcast_in_loop", broadcast_in_loop, lambda r: (r.standard_normal(_n(r, 4, 2)),)),
    Case("broadcast_of_expression", broadcast_of_expression, lambda r: (r.standard_normal(_n(r)),)),
    Case("broadcast_scalar_axis", broadcast_scalar_axis, lambda r: _two(r, lambda n: r.standard_normal((3, n)), r.standard_normal)),
    Case("contiguous_slice", contiguous_slice, lambda r: (r.standard_normal(_n(r, 7)),)),
    Case("contiguous_int_cast", contiguous_int_cast, lambda r: (r.integers(-9, 9, _n(r)),), rtol=1e-6),
    Case("fortran_vector", fortran_vector, lambda r: (r.standard_normal(_n(r)),)),
    Case("nanargmax_inf", nanargmax_inf, lambda r: (np.array([np.nan, -np.inf, np.inf, np.nan, -np.inf])[: _n(r, 5, 2)],)),
    Case("nanargmax_keepdims", nanargmax_keepdims, lambda r: (np.where(r.random((3, 4)) < 0.3, np.nan, r.integers(0, 3, (3, 4)) * 1.0),)),
    Case("nanargmax_bool", nanargmax_bool, lambda r: (r.random(_n(r)) > 0.5,)),
    Case("vander_zero_cols", vander_zero_cols, lambda r: (r.standard_normal(_n(r, 4)), int(r.integers(0, 3)))),
    Case("vander_bool", vander_bool, lambda r: (r.random(_n(r)) > 0.5,)),
    Case("vander_uint64", vander_uint64, lambda r: (r.integers(0, 9, _n(r)).astype(np.uint64),)),
    Case("vander_overflow", vander_overflow, lambda r: (r.integers(-2000, 2000, _n(r)).astype(np.int32),)),
    Case("lexsort_nan", lexsort_nan, lambda r: _two(r, lambda n: np.where(r.random(n) < 0.3, np.nan, r.integers(0, 2, n) * 1.0),
                                                    lambda n: np.where(r.random(n) < 0.3, np.nan, r.integers(0, 2, n) * 1.0), 9)),
    Case("lexsort_float_keys", lexsort_float_keys, lambda r: (r.integers(0, 2, 8) * 0.5, r.integers(0, 2, 8) * -0.0, r.integers(0, 3, 8) * 1.0)),
    Case("dtype_mixed", dtype_mixed, lambda r: _two(r, lambda n: r.integers(-9, 9, n).astype(np.int8), lambda n: r.standard_normal(n).astype(np.float32)), rtol=1e-6),
    Case("dtype_of_sum", dtype_of_sum, lambda r: (r.integers(0, 9, _n(r, 5, 2)).astype(np.uint8),)),
    Case("dtype_of_division", dtype_of_division, lambda r: (r.integers(0, 9, 4).astype(np.int16),)),
    Case("positions_after_write", positions_after_write, lambda r: (r.standard_normal(_n(r)),)),
    Case("positions_store_rows", positions_store_rows, lambda r: _two(r, lambda n: r.standard_normal((n, 3)), lambda n: r.integers(0, 2, n))),
    Case("positions_two_arrays", positions_two_arrays, lambda r: _two(r, r.standard_normal, r.standard_normal)),
    Case("positions_nan", positions_nan, lambda r: (np.where(r.random(_n(r)) < 0.3, np.nan, r.integers(0, 2, 6)[:1] * 1.0),)),
    Case("positions_column", positions_column, lambda r: (r.integers(0, 2, (_n(r), 4)) * 1.5,)),
    Case("positions_empty", positions_empty, lambda r: (r.standard_normal(_n(r)),)),
    Case("unique_counts_int", unique_counts_int, lambda r: (r.integers(0, 3, _n(r, 7)).astype(np.int32),)),
    Case("tolerance_by_dtype", tolerance_by_dtype, lambda r: _two(r, lambda n: r.standard_normal(n).astype(np.float32) if r.integers(0, 2) else r.standard_normal(n),
                                                                  lambda n: r.standard_normal(n).astype(np.float32))),
    Case("arange_float", arange_float, lambda r: (r.standard_normal(_n(r)), int(r.integers(0, 5)))),
    Case("zero_bad_rows", zero_bad_rows, lambda r: (np.where(r.random((_n(r), 3)) < 0.2, np.nan, 1.0),)),
    Case("shift_rows_int", shift_rows_int, lambda r: _two(r, lambda n: r.integers(-5, 5, (n, 2, 2)), r.standard_normal)),
    Case("hist2d_int", hist2d_int, lambda r: _two(r, lambda n: r.integers(0, 4, n), lambda n: r.integers(0, 2, n))),
]
