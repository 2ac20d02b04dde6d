"""Hand-written adversarial programs around session 32's features (cp41): overwritten stores
(aliased arguments, size-0/1 dims, negative steps, break/continue/return between the store and
its reader, run-time subscripts, products and library calls between), time tiles with boundary
statements, None locals, count-then-allocate, max()/min() of mixed types, locals of two dtypes,
small-int wraparound, np.linalg qr/eigh/svd of empty/1x1/NaN inputs, POLYFUSE_INTEGER_CHECKS;
since cp43 Python ints meeting narrow dtypes (NumPy 2's OverflowError), guarded run-time
subscript stores, max/min picks, fuse="max" order, the BLAS scale fold, stacks of row products.

Not part of CI.  Each case runs on target="python" and "cpu" on 1 and 2 threads (threads
forced), its arguments made fresh for every call (aliasing kept: the same array passed twice),
and is compared with the undecorated function (arrays, return value and its type).  A refusal
or an ArgumentError is listed (BAD), for review: aliased arguments that a kernel writes are
refused per call by design.

    python tests/long/adversarial_cases.py            # all (~5 min under load)
    python tests/long/adversarial_cases.py ow_ mm_    # the cases whose names contain these

Since cp45 every kernel is called 5 times, each call with other values (``R`` seeded by the case's
name and the call), so that the last call runs a plan's native entry; ``CALL`` says which call
the arguments are made for (``late``: other layouts, dtypes or overlaps from the 5th call on). A
case's ``env`` may carry kernel options as ``_name`` (``_fuse``, ``_opt_level``).
"""
import os
import sys
import warnings
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]  # tests/ helpers; this checkout's polyfuse

import numpy as np  # noqa: E402
from conftest import define, threads_forced  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402

R = np.random.default_rng(7)


def f64(*s):
    return R.standard_normal(s)


CASES = []


def case(name, src, make, env=None, tol=1e-9):
    CASES.append((name, src, make, env or {}, tol))


# ---- overwritten stores
case("ow_alias_out_is_X", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] * 2.0
        out[i] = out[i] + X[i]
""", lambda: (lambda a: (a, a))(f64(9)))
case("ow_alias_out_view_of_X_shifted", """def kern(X, out):
    for i in range(out.shape[0]):
        out[i] = X[i] * 2.0
        out[i] = out[i] + X[i + 1]
""", lambda: (lambda a: (a, a[1:]))(f64(9)))
case("ow_alias_out_reversed_X", """def kern(X, out):
    for i in range(out.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(out.shape[0]):
        out[i] = out[i] * X[i]
""", lambda: (lambda a: (a, a[::-1]))(f64(8)))
case("ow_softmax_rows_size1", """def kern(X, out):
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(1, X.shape[1]):
            m = max(m, X[i, j])
        s = 0.0
        for j in range(X.shape[1]):
            e = math.exp(X[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(X.shape[1]):
            out[i, j] = out[i, j] / s
""", lambda: (f64(3, 1), np.zeros((3, 1))))
case("ow_softmax_rows_zero", """def kern(X, out):
    for i in range(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            out[i, j] = math.exp(X[i, j])
            s += out[i, j]
        for j in range(X.shape[1]):
            out[i, j] = out[i, j] / s
    return out.sum()
""", lambda: (f64(0, 4), np.zeros((0, 4))))
case("ow_softmax_reads_out_in_sum", """def kern(X, out):
    for i in range(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            out[i, j] = math.exp(X[i, j])
        for j in range(X.shape[1]):
            s += out[i, j]
        for j in range(X.shape[1]):
            out[i, j] = out[i, j] / s
""", lambda: (f64(4, 6), np.zeros((4, 6))))
case("ow_float32_rounding", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] / 3.0
    for i in range(X.shape[0]):
        out[i] = out[i] * 3.0 - X[i]
""", lambda: (f64(17), np.zeros(17, np.float32)), tol=0.0)
case("ow_int8_wrap", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] * 100
    for i in range(X.shape[0]):
        out[i] = out[i] + 100
""", lambda: (np.arange(-5, 6, dtype=np.int8), np.zeros(11, np.int8)), tol=0.0)
case("ow_negative_step", """def kern(X, out):
    for i in range(X.shape[0] - 1, -1, -2):
        out[i] = X[i] + 1.0
    for i in range(X.shape[0] - 1, -1, -2):
        out[i] = out[i] * out[i]
""", lambda: (f64(9), np.zeros(9)))
case("ow_step_mismatch", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(0, X.shape[0], 2):
        out[i] = out[i] * 2.0
""", lambda: (f64(9), np.zeros(9)))
case("ow_early_break", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(X.shape[0]):
        if X[i] > 1.0:
            break
        out[i] = out[i] * 2.0
""", lambda: (f64(12), np.zeros(12)))
case("ow_empty_reader_loop", """def kern(X, out, k):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(k):
        out[i] = out[i] * 2.0
""", lambda: (f64(6), np.zeros(6), 0))
case("ow_reader_partial_k", """def kern(X, out, k):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(k):
        out[i] = out[i] * 2.0
""", lambda: (f64(6), np.zeros(6), 4))
case("ow_returned_then_time", """def kern(T, X, out):
    for t in range(T):
        for i in range(X.shape[0]):
            out[i] = X[i] + t
        for i in range(X.shape[0]):
            out[i] = out[i] * 0.5 + X[i]
            X[i] = out[i]
    return out
""", lambda: (3, f64(7), np.zeros(7)))
case("ow_2d_transpose_reader", """def kern(X, out):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = X[i, j] + 1.0
    for j in range(out.shape[1]):
        for i in range(out.shape[0]):
            out[i, j] = out[i, j] * X[j % X.shape[0], i % X.shape[1]]
""", lambda: (f64(5, 5), np.zeros((5, 5))))
case("ow_numpy_form", """def kern(X):
    out = np.exp(X)
    out = out / out.sum(axis=1, keepdims=True)
    return out
""", lambda: (f64(4, 5),))
case("ow_numpy_inplace", """def kern(X, out):
    out[:] = np.exp(X)
    out /= out.sum(axis=1)[:, None]
""", lambda: (f64(4, 5), np.zeros((4, 5))))
case("ow_numpy_inplace_alias", """def kern(X, out):
    out[:] = X * 2.0
    out[:] = out + X[::-1]
""", lambda: (lambda a: (a, a))(f64(7)))
case("ow_chain_three_int32", """def kern(a, s):
    for j in range(a.shape[0]):
        s[j] = a[j] * 3
        s[j] = s[j] // 2
        s[j] = -s[j] if s[j] < 0 else s[j] % 5
""", lambda: (np.arange(-7, 8, dtype=np.int64), np.zeros(15, np.int32)), tol=0.0)
# ---- time tiles
case("tt_fdtd_boundary_atomic", """def kern(T, ex, ey, hz, fict):
    for t in range(T):
        for j in range(ey.shape[1]):
            ey[0, j] = fict[t]
        for i in range(1, ey.shape[0]):
            for j in range(ey.shape[1]):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(ex.shape[0]):
            for j in range(1, ex.shape[1]):
                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(hz.shape[0] - 1):
            for j in range(hz.shape[1] - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])
""", lambda: (4, f64(6, 5), f64(6, 5), f64(6, 5), f64(4)),
    env={"POLYFUSE_TIME_TILE_SIZES": "2,3,2", "POLYFUSE_ONE_THREAD_TILES": "1"})
case("tt_fdtd_size1", """def kern(T, ex, ey, hz, fict):
    for t in range(T):
        for j in range(ey.shape[1]):
            ey[0, j] = fict[t]
        for i in range(1, ey.shape[0]):
            for j in range(ey.shape[1]):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(hz.shape[0] - 1):
            for j in range(hz.shape[1] - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ey[i + 1, j] - ey[i, j])
""", lambda: (3, f64(1, 1), f64(1, 1), f64(1, 1), f64(3)),
    env={"POLYFUSE_TIME_TILE_SIZES": "1,1,1", "POLYFUSE_ONE_THREAD_TILES": "1"})
case("tt_jacobi_float32_T0", """def kern(T, A, B):
    for t in range(T):
        for i in range(1, A.shape[0] - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, A.shape[0] - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
""", lambda: (0, f64(10).astype(np.float32), f64(10).astype(np.float32)),
    env={"POLYFUSE_TIME_TILE_SIZES": "2,4"})
case("tt_jacobi_alias", """def kern(T, A, B):
    for t in range(T):
        for i in range(1, A.shape[0] - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, A.shape[0] - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
""", lambda: (lambda a: (5, a, a))(f64(12)), env={"POLYFUSE_TIME_TILE_SIZES": "2,4", "POLYFUSE_ONE_THREAD_TILES": "1"})
case("tt_atomic_off_boundary_last", """def kern(T, A, f):
    for t in range(T):
        for i in range(1, A.shape[0]):
            A[i] = 0.5 * (A[i] + A[i - 1])
        A[A.shape[0] - 1] = f[t]
""", lambda: (6, f64(9), f64(6)), env={"POLYFUSE_TIME_TILE_ATOMIC": "0", "POLYFUSE_TIME_TILE_SIZES": "2,3",
                                          "POLYFUSE_ONE_THREAD_TILES": "1"})
# ---- locals, None, counts, max/min
case("none_with_int_overflow", """def kern(x):
    best = None
    for i in range(x.shape[0]):
        v = x[i] * x[i]
        if best is None or v > best:
            best = v
    return 0 if best is None else best
""", lambda: (np.array([100, -120, 50], np.int8),), tol=0.0)
case("none_empty", """def kern(x):
    best = None
    for i in range(x.shape[0]):
        if best is None or x[i] > best:
            best = x[i]
    return best is None
""", lambda: (np.zeros(0),))
case("count_alloc_empty", """def kern(x):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            k += 1
    out = np.empty(k)
    j = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[j] = x[i]
            j += 1
    return out, out.shape
""", lambda: (-np.abs(f64(5)),))
case("count_alloc_float32_dtype", """def kern(x):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            k += 1
    out = np.zeros(k, dtype=x.dtype)
    j = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[j] = x[i] * 3
            j += 1
    return out, out.dtype == np.float32, out.mean() if k else 0.0
""", lambda: (f64(11).astype(np.float32),), tol=1e-6)
case("count_alloc_negative_index", """def kern(x, e):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            k += 1
    out = np.zeros(k)
    for i in range(k):
        out[i] = i
    return out[e]
""", lambda: (np.array([1.0, 2.0, -1.0, 3.0]), -2))
case("count_alloc_oob_index", """def kern(x, e):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            k += 1
    out = np.zeros(k)
    return out[e]
""", lambda: (np.array([1.0, 2.0, -1.0, 3.0]), 3))
case("count_alloc_slice_neg", """def kern(x, e):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            k += 1
    out = np.ones(k)
    return out[:e]
""", lambda: (np.array([1.0, 2.0, -1.0, 3.0]), -5))
case("minmax_types", """def kern(a, b):
    return max(a[0], 2), min(b[0], 0.5), max(a[0], b[0]), max(1, 2.0), min(True, 0), max(a[0], a[1], 7)
""", lambda: (np.array([3, 9], np.int8), np.array([0.25, 1.0], np.float32)))
case("minmax_nan", """def kern(a):
    m = a[0]
    for i in range(a.shape[0]):
        m = max(m, a[i])
    return m, min(a[1], a[0]), max(0.0, a[1])
""", lambda: (np.array([1.0, np.nan, 3.0]),))
case("minmax_nan_first", """def kern(a):
    m = a[0]
    for i in range(a.shape[0]):
        m = min(a[i], m)
    return m
""", lambda: (np.array([np.nan, 1.0, 3.0]),))
case("version_local_int8_float", """def kern(a, f, c):
    t = a[0]
    if c > 0:
        t = f[0]
    return t * 100, t + t
""", lambda: (np.array([100], np.int8), np.array([0.1], np.float32), 0), tol=1e-6)
case("version_local_int8_float_c1", """def kern(a, f, c):
    t = a[0]
    if c > 0:
        t = f[0]
    return t * 100, t + t
""", lambda: (np.array([100], np.int8), np.array([0.1], np.float32), 1), tol=1e-6)
case("version_local_uint8_pyint", """def kern(a, c):
    t = 300
    if c > 0:
        t = a[0]
    return t + 250, t * 2
""", lambda: (np.array([200], np.uint8), 1), tol=0.0)
case("acc_int16_wrap", """def kern(a):
    s = a[0]
    for i in range(1, a.shape[0]):
        s = s * 3 + a[i]
    return s
""", lambda: (np.arange(1, 40, dtype=np.int16),), tol=0.0)
case("acc_pyint_plus_int8", """def kern(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    return s
""", lambda: (np.full(10, 100, np.int8),), tol=0.0)
# ---- linalg
case("qr_tall_float32", """def kern(A):
    q, r = np.linalg.qr(A)
    return np.abs(r).sum(), q.shape, r.dtype == np.float32
""", lambda: (f64(6, 3).astype(np.float32),), tol=1e-4)
case("qr_wide", """def kern(A):
    q, r = np.linalg.qr(A)
    return np.abs(q @ r - A).max() < 1e-10, r.shape
""", lambda: (f64(2, 5),))
case("qr_empty", """def kern(A):
    q, r = np.linalg.qr(A)
    return q.shape, r.shape
""", lambda: (np.zeros((0, 3)),))
case("eigh_1x1", """def kern(S):
    w, v = np.linalg.eigh(S)
    return w, np.abs(v)
""", lambda: (np.array([[2.5]]),))
case("eigh_int", """def kern(S):
    w = np.linalg.eigvalsh(S)
    return w
""", lambda: (np.array([[2, 1], [1, 3]]),))
case("svd_empty", """def kern(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s.shape
""", lambda: (np.zeros((3, 0)),))
case("svd_nan", """def kern(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s
""", lambda: (np.array([[1.0, np.nan], [0.0, 1.0]]),))
case("eigh_alias_out", """def kern(S, out):
    w, v = np.linalg.eigh(S)
    out[:] = w
    S[0, 0] = w[0]
""", lambda: (lambda s: (s + s.T, np.zeros(4)))(f64(4, 4)))
case("integer_checks_product_scale", """def kern(P, V, s):
    return (P / s[:, None]) @ V
""", lambda: (f64(4, 3), f64(3, 2), np.array([1.0, 0.0, 2.0, np.inf])))
case("integer_checks_off", """def kern(P, V, s):
    return (P / s[:, None]) @ V
""", lambda: (f64(4, 3), f64(3, 2), np.array([1.0, 0.0, 2.0, np.inf])), env={"POLYFUSE_INTEGER_CHECKS": "0"})

case("ow_break_between", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
        if X[i] > 0.5:
            break
        out[i] = out[i] * 2.0
""", lambda: (f64(12), np.zeros(12)))
case("ow_return_between", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
        if X[i] > 0.5:
            return i
        out[i] = out[i] * 2.0
    return -1
""", lambda: (f64(12), np.zeros(12)))
case("ow_continue_between", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
        if X[i] > 0.5:
            continue
        out[i] = out[i] * 2.0
""", lambda: (f64(12), np.zeros(12)))
case("ow_return_between_nests", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    if X.shape[0] > 3 and X[3] > 0.0:
        return 1
    for i in range(X.shape[0]):
        out[i] = out[i] * 2.0
    return 0
""", lambda: (np.abs(f64(12)), np.zeros(12)))
case("ow_while_between", """def kern(X, out):
    i = 0
    while i < X.shape[0]:
        out[i] = X[i] + 1.0
        if out[i] > 1.5:
            break
        out[i] = out[i] * 2.0
        i += 1
    return i
""", lambda: (f64(12), np.zeros(12)))
case("ow_raise_between", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(X.shape[0]):
        out[i] = out[i] * 2.0 + X[i + 1]
""", lambda: (f64(12), np.zeros(12)))
case("ow_guarded_reader_sizes", """def kern(X, out, k):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
        if i < k:
            out[i] = out[i] * 2.0
""", lambda: (f64(12), np.zeros(12), 5))
case("ow_reader_reads_other_elem_via_view", """def kern(X, out):
    v = out[::-1]
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(X.shape[0]):
        out[i] = out[i] * 2.0 + v[i]
""", lambda: (f64(7), np.zeros(7)))
case("ow_view_of_out_written", """def kern(X, out):
    v = out[1:]
    for i in range(X.shape[0] - 1):
        v[i] = X[i] + 1.0
    for i in range(X.shape[0] - 1):
        out[i + 1] = out[i + 1] * 2.0
    return out
""", lambda: (f64(7), np.zeros(7)))
case("ow_runtime_subscript_reader", """def kern(X, idx, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(X.shape[0]):
        out[i] = out[i] * 2.0
    for i in range(X.shape[0]):
        X[i] = out[idx[i]]
""", lambda: (f64(7), np.array([6, 0, 1, 2, 3, 4, 5]), np.zeros(7)))
case("ow_runtime_subscript_between", """def kern(X, idx, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
        X[i] = out[idx[i]]
        out[i] = out[i] * 2.0
""", lambda: (f64(7), np.array([6, 0, 1, 2, 3, 4, 5]), np.zeros(7)))
case("ow_runtime_store_between", """def kern(X, idx, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    for i in range(X.shape[0]):
        out[idx[i]] = -1.0
    for i in range(X.shape[0]):
        out[i] = out[i] * 2.0
""", lambda: (f64(7), np.array([6, 0, 1, 2, 3, 4, 5]), np.zeros(7)))
case("ow_blas_reader", """def kern(A, B, C):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = A[i, j] * 2.0
    D = C @ B
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = C[i, j] + 1.0
    return D
""", lambda: (f64(40, 40), f64(40, 40), np.zeros((40, 40))))
case("ow_np_sum_between", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    s = np.sum(out)
    for i in range(X.shape[0]):
        out[i] = out[i] * 2.0
    return s
""", lambda: (f64(9), np.zeros(9)))
case("ow_call_helper_between", """def kern(X, out):
    for i in range(X.shape[0]):
        out[i] = X[i] + 1.0
    y = np.sort(out)
    for i in range(X.shape[0]):
        out[i] = out[i] * 2.0
    return y
""", lambda: (f64(9), np.zeros(9)))
case("ow_cumsum_between", """def kern(X, out):
    out[:] = X + 1.0
    y = np.cumsum(out)
    out[:] = out * 2.0
    return y
""", lambda: (f64(9), np.zeros(9)))

for _k, (_a, _f) in enumerate([(np.array([100, 1], np.int8), np.array([0.3, 5.0], np.float32)),
                              (np.array([-100, 1], np.int8), np.array([0.01, -5.0], np.float32)),
                              (np.array([127, 1], np.int8), np.array([np.nan, 1.0], np.float32))]):
    case(f"mm_datatype_{_k}", """def kern(a, f):
    m = max(f[0], 0.1)
    n = min(a[0], 50)
    p = max(a[0], f[1])
    q = min(0.2, f[0])
    return m * 3, n + 100, p * 7, q / 3, max(n, m)
""", (lambda a, f: lambda: (a.copy(), f.copy()))(_a, _f), tol=0.0)
    case(f"mm_loop_datatype_{_k}", """def kern(a, f):
    m = 0.1
    for i in range(f.shape[0]):
        m = max(m, f[i])
    k = 50
    for i in range(a.shape[0]):
        k = min(k, a[i])
    return m * 3, k + 100
""", (lambda a, f: lambda: (a.copy(), f.copy()))(_a, _f), tol=0.0)
    case(f"ver_datatype_{_k}", """def kern(a, f):
    t = f[0] if a[0] > 0 else a[1]
    u = a[0] if f[0] > 1.0 else 0.5
    return t * 3, u + 100, t + u, u * 2
""", (lambda a, f: lambda: (a.copy(), f.copy()))(_a, _f), tol=0.0)

for _tile in ("2,4", "1,1", "4,2", None):
    for _one in ("1", "0"):
        case(f"ow_tt_jacobi_{_tile}_{_one}", """def kern(T, A, B):
    for t in range(T):
        for i in range(1, A.shape[0] - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
            B[i] = B[i] * 0.9 + 0.01 * t
        for i in range(1, A.shape[0] - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
""", lambda: (7, f64(23), f64(23)), env=({"POLYFUSE_TIME_TILE_SIZES": _tile} if _tile else {}) | {"POLYFUSE_ONE_THREAD_TILES": _one})
        case(f"ow_tt_2d_{_tile}_{_one}", """def kern(T, A, B):
    for t in range(T):
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
                B[i, j] = B[i, j] - 0.01 * A[i, j]
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                A[i, j] = B[i, j]
""", lambda: (5, f64(11, 9), f64(11, 9)), env=({"POLYFUSE_TIME_TILE_SIZES": _tile + ",3"} if _tile else {}) | {"POLYFUSE_ONE_THREAD_TILES": _one})


# ---- cp43: Python ints meeting narrow dtypes (loop variables, sizes, guarded branches), guarded
# run-time subscript stores, max/min picks in array expressions, fuse="max" order, the BLAS scale
# fold (alpha 0/inf/NaN, divisor 0), stacks of row products of odd sizes, views
def _i8(n, lo=-5, hi=5):
    return R.integers(lo, hi, n).astype(np.int8)


for _n in (0, 1, 127, 128, 129):
    case(f"ov_loopvar_int8_n{_n}", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + i
""", lambda _n=_n: (_i8(_n), np.zeros(_n, np.int8)))
    case(f"ov_size_uint8_n{_n}", """def kern(x):
    n = x.shape[0]
    return x * n + len(x)
""", lambda _n=_n: (R.integers(0, 3, _n).astype(np.uint8),))
    case(f"ov_guarded_loopvar_n{_n}", """def kern(x, out):
    for i in range(x.shape[0]):
        if x[i] > 100:
            out[i] = x[i] + i
""", lambda _n=_n: (_i8(_n), np.zeros(_n, np.int8)))
    case(f"ov_ifexp_loopvar_n{_n}", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + i if x[i] > 100 else x[i]
""", lambda _n=_n: (_i8(_n), np.zeros(_n, np.int8)))
    case(f"ov_reversed_loopvar_n{_n}", """def kern(x, out):
    for i in range(x.shape[0] - 1, -1, -1):
        out[i] = x[i] - i
""", lambda _n=_n: (_i8(_n), np.zeros(_n, np.int8)))
case("ov_guarded_hit_at_200", """def kern(x, out):
    for i in range(x.shape[0]):
        if x[i] > 100:
            out[i] = x[i] + i
""", lambda: ((lambda a: (a.__setitem__(200, 120), a)[1])(_i8(300)), np.zeros(300, np.int8)))
case("ov_while_counter", """def kern(x, out):
    k = 0
    while k < x.shape[0]:
        out[k] = x[k] * 2 + k
        k += 1
""", lambda: (_i8(140), np.zeros(140, np.int8)))
case("ov_enumerate", """def kern(x, out):
    for k, v in enumerate(x):
        out[k] = v + k
""", lambda: (_i8(130), np.zeros(130, np.int8)))
case("ov_arg_where_select_max", """def kern(x, y, s):
    a = np.where(x > 0, y, s)
    b = np.select([x > 1], [y], s)
    return a, b, np.maximum(y, s // 8)
""", lambda: (R.integers(-3, 3, 9), R.integers(0, 9, 9).astype(np.uint8), 300))
case("ov_arg_max_raises", """def kern(x, y, s):
    return np.maximum(y, s)
""", lambda: (R.integers(-3, 3, 9), R.integers(0, 9, 9).astype(np.uint8), 300))
case("ov_mask_store_arg", """def kern(x, y, s):
    y[x > 0] = s
""", lambda: (R.integers(-3, 3, 9), R.integers(0, 9, 9).astype(np.uint8), -1))
case("ov_mask_store_arg_none_selected", """def kern(x, y, s):
    y[x > 10] = s - 300
""", lambda: (R.integers(-3, 3, 9), R.integers(0, 9, 9).astype(np.uint8), 700))
case("ov_slice_store_empty", """def kern(y, s):
    y[5:2] = s
    y[y.shape[0]:] = s + 1
""", lambda: (R.integers(0, 9, 9).astype(np.uint8), 700))
case("ov_empty_array_ops", """def kern(x, s):
    return x + s, np.maximum(x, s)
""", lambda: (np.zeros(0, np.int8), 200))
case("ov_empty_iadd", """def kern(x, s):
    x[3:1] += s
    x <<= s // 1000
""", lambda: (np.zeros(4, np.int16), 40000))
case("ov_mask_iadd_none", """def kern(x, s):
    x[x > 5] += s
""", lambda: (np.zeros(4, np.int16), 40000))
case("ov_max_picks_stored_int8", """def kern(x, out):
    for i in range(x.shape[0]):
        m = max(x[i], i)
        out[i] = m + 1
""", lambda: (_i8(200), np.zeros(200, np.int8)))
case("ov_min_arg_times_two", """def kern(x, out, s):
    for i in range(x.shape[0]):
        out[i] = min(x[i], s) * 2
""", lambda: (_i8(20), np.zeros(20, np.int8), -200))
case("ov_ifexp_local_python_int", """def kern(x, out, s):
    for i in range(x.shape[0]):
        t = x[i] if i % 2 else s
        out[i] = t - 1
""", lambda: (_i8(20), np.zeros(20, np.int16), -32768))
case("ov_loop_zero_trips", """def kern(y, s):
    for i in range(y.shape[0]):
        y[i] = s
""", lambda: (np.zeros(0, np.uint8), 700))
case("ov_int_of_float", """def kern(x, f, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + int(f[i])
""", lambda: (_i8(6), np.array([1.5, -3.7, 126.9, 0.0, 2.0, 127.99]), np.zeros(6, np.int8)))
case("ov_int_of_float_out", """def kern(x, f, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + int(f[i])
""", lambda: (_i8(6), np.array([1.5, -3.7, 128.5, 0.0, 2.0, 1.0]), np.zeros(6, np.int8)))
case("ov_np_cast_of_loopvar", """def kern(out):
    for i in range(out.shape[0]):
        out[i] = np.uint8(i) + np.uint8(np.int64(i) * 3)
""", lambda: (np.zeros(300, np.uint16),))
case("ov_index_only", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i * 2 % x.shape[0]] + x[(i + 200) % x.shape[0]]
""", lambda: (_i8(300), np.zeros(300, np.int8)))
case("ov_compare_loopvar", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = (x[i] < i) + (x[i] == i - 300)
""", lambda: (_i8(300), np.zeros(300, np.int64)))
case("ov_max_picks_int_local", """def kern(x, out):
    for i in range(x.shape[0]):
        m = max(x[i], i)
        out[i] = m
""", lambda: (_i8(200), np.zeros(200, np.int64)))
# guarded run-time subscript stores
case("idx_when_hist_empty", """def kern(b, hist):
    for i in range(b.shape[0]):
        if 0 <= b[i] < hist.shape[0]:
            hist[b[i]] += 1
""", lambda: (R.integers(-3, 9, 40), np.zeros(0, np.int64)))
case("idx_when_hist_neg", """def kern(b, hist):
    for i in range(b.shape[0]):
        if b[i] >= -hist.shape[0] and b[i] < hist.shape[0]:
            hist[b[i]] += 1
""", lambda: (R.integers(-9, 9, 40), np.zeros(5, np.int64)))
case("idx_when_two_stores", """def kern(b, c, out):
    for i in range(b.shape[0]):
        if b[i] < out.shape[0] and c[i] > 0:
            out[b[i]] = out[b[i]] + c[i]
        elif b[i] >= out.shape[0]:
            out[0] -= 1.0
""", lambda: (R.integers(0, 12, 30), f64(30), np.zeros(7)))
case("idx_when_size1_view", """def kern(b, out):
    for i in range(b.shape[0]):
        if b[i] < out.shape[0]:
            out[b[i]] = i
""", lambda: (R.integers(0, 3, 10), np.zeros(10)[::-7]))
# max/min of mixed scalars in array expressions (View.picks)
case("picks_div_max", """def kern(x):
    return x / max(1.0, np.max(x))
""", lambda: (np.abs(f64(7)) * 0.1,))
case("picks_int_array", """def kern(x):
    m = max(2, np.max(x))
    return x * m - min(0, x.min())
""", lambda: (R.integers(-5, 5, 7),))
case("picks_empty_like", """def kern(x):
    m = max(0.5, np.abs(x).max())
    return x / m
""", lambda: (f64(1),))
case("picks_float32_view", """def kern(x):
    return x / max(1.0, np.max(x)) + min(np.float32(0.5), x[0])
""", lambda: (f64(9).astype(np.float32)[::-2],), tol=1e-6)
# fuse="max" keeps program order
case("fmax_order_prefix", """def kern(a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] + b[i]
    for i in range(1, a.shape[0]):
        b[i] = a[i] * 0.5 + b[i - 1]
    for i in range(a.shape[0] - 1):
        a[i] = b[i + 1] - a[i]
""", lambda: (f64(11), f64(11)), env={"_fuse": "max"})
case("fmax_order_far_constant", """def kern(a, b):
    for i in range(a.shape[0] - 40):
        a[i] = a[i + 40] + b[i]
    for i in range(40, a.shape[0]):
        b[i] = a[i - 40] * 2.0
""", lambda: (f64(90), f64(90)), env={"_fuse": "max"})
case("fmax_order_size0", """def kern(a, b):
    for i in range(a.shape[0] - 40):
        a[i] = a[i + 40] + b[i]
    for i in range(40, a.shape[0]):
        b[i] = a[i - 40] * 2.0
""", lambda: (f64(30), f64(30)), env={"_fuse": "max"})
# BLAS scale fold
for _alpha in ("0.0", "np.inf", "np.nan", "-0.0", "1e-320"):
    case(f"scale_fold_alpha_{_alpha}", f"""def kern(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            C[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            C[i, j] *= {_alpha}
""", lambda: (f64(33, 31), (lambda b: (b.__setitem__((3, 4), np.inf), b)[1])(f64(31, 35)), np.zeros((33, 35))))
for _d in ("0.0", "-0.0", "n - 1.0"):
    case(f"scale_fold_div_{_d}", f"""def kern(A, C, n):
    for i in range(A.shape[1]):
        for j in range(A.shape[1]):
            C[i, j] = 0.0
            for k in range(A.shape[0]):
                C[i, j] += A[k, i] * A[k, j]
    for i in range(A.shape[1]):
        for j in range(A.shape[1]):
            C[i, j] /= {_d}
""", lambda: (f64(37, 33), np.zeros((33, 33)), 1.0))
# stacks of row products (doitgen shape), odd and degenerate sizes
for _shape in ((3, 5, 7), (1, 1, 9), (2, 3, 1), (5, 1, 33), (0, 4, 6)):
    case(f"stack_rows_{'x'.join(map(str, _shape))}", """def kern(A, C4):
    acc = np.empty_like(A)
    for r in range(A.shape[0]):
        for q in range(A.shape[1]):
            acc[r, q, :] = A[r, q, :] @ C4
    return acc
""", lambda _shape=_shape: (f64(*_shape), f64(_shape[2], _shape[2])))
case("stack_rows_view", """def kern(A, C4):
    acc = np.zeros((A.shape[0], A.shape[1], C4.shape[1]))
    for r in range(A.shape[0]):
        for q in range(A.shape[1]):
            acc[r, q, :] = A[r, q, :] @ C4
    return acc
""", lambda: (f64(4, 6, 10)[::-1, ::2, 1::], f64(9, 9)[::-1, :].T))
# views: negative strides, size 0/1
case("view_neg_stride_inplace", """def kern(x):
    x[1:] = x[:-1] * 0.5 + x[1:]
    return x[::-1].cumsum()
""", lambda: (f64(12)[::-2],))
case("view_size1_matmul", """def kern(A, B):
    return (A @ B) * 2.0 / max(1.0, np.abs(A).max())
""", lambda: (f64(1, 5)[:, ::-1], f64(5, 1)))
case("view_size0_where", """def kern(x, s):
    return np.where(x > 0, x, s) + np.maximum(x, s)
""", lambda: (np.zeros((0, 3), np.int16), 5))

# ---- cp45: aliasing between arguments (views of one buffer, overlapping slices, stride 0, a
# transpose), negative strides and Fortran order, 0-d and empty arrays, integer wraparound and
# division at the int64 minimum and by zero, float32 sums, NaN/inf in min/max/argmin, complex, bool
# arithmetic, the native entry (a plan's 5th call with an overlap, a view, another dtype, a read-only
# or stride-0 array, another int), size thresholds (BLAS minimum work, GEMM sizes, non-temporal
# stores, odd vector remainders), byte order and alignment, unsupported dtypes, float-to-int
# conversions, math domain errors, and out-array forms that target='cuda' runs too
I64MIN = np.iinfo(np.int64).min


def late(early, later):
    """early() for calls 0-3, later() from the 5th call on (a plan's native entry is made by then)."""
    return lambda: (early() if CALL < 4 else later())


def misaligned(n, dtype=np.float64, off=1):
    """n elements of ``dtype`` at ``off`` bytes past an allocation's start (unaligned for off=1)."""
    buf = np.zeros(n * np.dtype(dtype).itemsize + 64, np.uint8)
    return np.frombuffer(buf.data, dtype=dtype, count=n, offset=off)


def _nanny(n, where):
    x = f64(n)
    for k, v in where:
        x[k] = v
    return x


# ---- aliasing between arguments
case("al_overlap_shift_write", """def kern(a, b):
    for i in range(b.shape[0]):
        b[i] = a[i] * 2.0 + 1.0
""", lambda: (lambda x: (x[1:], x[:-1]))(f64(10)))
case("al_interleaved_views", """def kern(a, b):
    for i in range(b.shape[0]):
        b[i] = a[i] + 1.0
""", lambda: (lambda x: (x[::2], x[1::2]))(f64(12)))
case("al_same_read_twice", """def kern(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] * b[i]
""", lambda: (lambda x: (x, x, np.zeros(7)))(f64(7)))
case("al_transpose_written", """def kern(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = A[i, j] + 1.0
""", lambda: (lambda x: (x, x.T))(f64(5, 5)))
case("al_empty_views_one_buffer", """def kern(a, b):
    for i in range(b.shape[0]):
        b[i] = a[i] + 1.0
    return b.sum()
""", lambda: (lambda x: (x[3:3], x[3:3]))(f64(6)))
case("al_stride0_written", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 3.0
""", lambda: (f64(6), np.lib.stride_tricks.as_strided(np.zeros(1), shape=(6,), strides=(0,))))
case("al_stride0_accumulate", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] += x[i]
""", lambda: (f64(6), np.lib.stride_tricks.as_strided(np.zeros(1), shape=(6,), strides=(0,))))
case("al_broadcast_readonly_written", """def kern(x, out):
    out[:] = x * 2.0
""", lambda: (f64(4), np.broadcast_to(np.zeros(1), (4,))))
case("al_numpy_inplace_alias", """def kern(a, b):
    a += b[::-1]
""", lambda: (lambda x: (x, x))(f64(9)))
case("al_numpy_slices_one_buffer", """def kern(a, b):
    a[:] = b * 2.0 + a
""", lambda: (lambda x: (x[2:8], x[:6]))(f64(8)))
# ---- negative strides, non-contiguous
case("ns_reversed_2d_out", """def kern(A, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i, j] = A[i, j] * 2.0 - A[i, A.shape[1] - 1 - j]
""", lambda: (f64(6, 9)[::-1, ::-2], np.zeros((8, 5))[::-1, ::-1][:6, :5]))
case("ns_fortran_matmul", """def kern(A, B):
    return A @ B + 1.0
""", lambda: (np.asfortranarray(f64(20, 17)), f64(34, 19)[::-2, ::-1]))
case("ns_reduction_neg_step", """def kern(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * (i + 1)
    return s, x.sum(), x.max(), x.argmax()
""", lambda: (f64(40)[::-3],))
case("ns_cumsum_reversed_axis", """def kern(X):
    return np.cumsum(X[::-1, :], axis=0) - np.cumsum(X, axis=1)[:, ::-1]
""", lambda: (f64(7, 5)[:, ::-1],))
# ---- 0-d and empty arrays
case("zd_0d_argument_read", """def kern(x, s):
    return x * s[()] + s.sum()
""", lambda: (f64(5), np.array(2.5)))
case("zd_0d_argument_written", """def kern(x, s):
    s[()] = x.sum()
""", lambda: (f64(5), np.array(0.0)))
case("zd_empty_reductions", """def kern(x):
    return x.sum(), np.prod(x), x.shape[0]
""", lambda: (np.zeros(0),))
case("zd_empty_max_raises", """def kern(x):
    return x.max()
""", lambda: (np.zeros(0),))
case("zd_empty_2d_axis", """def kern(X):
    return X.sum(axis=0), X.sum(axis=1), X.max(axis=0)
""", lambda: (np.zeros((0, 4)),))
case("zd_empty_matmul", """def kern(A, B):
    return A @ B
""", lambda: (np.zeros((3, 0)), np.zeros((0, 4))))
case("zd_empty_loop_return_init", """def kern(x):
    m = -1.0
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
    return m
""", lambda: (np.zeros(0),))
# ---- integer wrap / division
case("iw_int64_mul_wrap", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + 7
""", lambda: (np.full(6, 2**40, np.int64), np.arange(2**30, 2**30 + 6, dtype=np.int64), np.zeros(6, np.int64)), tol=0.0)
case("iw_int64_min_floordiv_neg1", """def kern(a, d, out):
    for i in range(a.shape[0]):
        out[i] = a[i] // d[i]
""", lambda: (np.array([I64MIN, -7, 7, I64MIN, 5], np.int64), np.array([-1, 2, -2, 1, -1], np.int64), np.zeros(5, np.int64)), tol=0.0)
case("iw_int64_min_mod_neg1", """def kern(a, d, out):
    for i in range(a.shape[0]):
        out[i] = a[i] % d[i]
""", lambda: (np.array([I64MIN, -7, 7, I64MIN, 5], np.int64), np.array([-1, 2, -2, 3, -1], np.int64), np.zeros(5, np.int64)), tol=0.0)
case("iw_numpy_min_floordiv", """def kern(a, d):
    return a // d, a % d
""", lambda: (np.array([I64MIN, -7, 7, I64MIN], np.int64), np.array([-1, 2, -2, -1], np.int64)), tol=0.0)
case("iw_int_div_by_zero_array", """def kern(a, d):
    return a // d, a % d
""", lambda: (np.array([5, -5, 0, 7], np.int64), np.array([0, 0, 0, 2], np.int64)), tol=0.0)
case("iw_int32_div_by_zero_loop", """def kern(a, d, out):
    for i in range(a.shape[0]):
        out[i] = a[i] // d[i]
""", lambda: (np.array([5, -5, 0, 7], np.int32), np.array([0, 0, 0, 2], np.int32), np.zeros(4, np.int32)), tol=0.0)
case("iw_int8_sum_loop_wraps", """def kern(x):
    s = x[0]
    for i in range(1, x.shape[0]):
        s += x[i]
    return s, x.sum()
""", lambda: (np.full(40, 100, np.int8),), tol=0.0)
case("iw_int8_cumsum_prod", """def kern(x):
    return np.cumsum(x), np.prod(x), x.max() - x.min()
""", lambda: (np.array([100, 100, -100, 120, 7], np.int8),), tol=0.0)
case("iw_uint8_sub_neg", """def kern(a, b):
    return a - b, -a, abs(b.astype(np.int8))
""", lambda: (np.array([0, 1, 200, 255], np.uint8), np.array([1, 2, 100, 128], np.uint8)), tol=0.0)
case("iw_shift_wide", """def kern(a, s, out):
    for i in range(a.shape[0]):
        out[i] = (a[i] << s[i]) >> 1
""", lambda: (np.array([1, 3, -1, 5], np.int64), np.array([62, 63, 3, 0], np.int64), np.zeros(4, np.int64)), tol=0.0)
case("iw_abs_int_min", """def kern(a):
    return np.abs(a), -a
""", lambda: (np.array([np.iinfo(np.int32).min, -3, 4], np.int32),), tol=0.0)
case("iw_python_int_big_mix", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + 2**40
""", lambda: (np.arange(4, dtype=np.int32), np.zeros(4, np.int64)), tol=0.0)
# ---- float32 accumulation
case("f32_sum_long", """def kern(x):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s += x[i]
    return s, x.sum(), np.mean(x)
""", lambda: (R.random(100001).astype(np.float32),), tol=1e-4)
case("f32_dot_loop", """def kern(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s
""", lambda: (R.random(5000).astype(np.float32), R.random(5000).astype(np.float32)), tol=1e-9)
# ---- NaN / inf in reductions
case("nan_minmax_argmin", """def kern(x):
    return np.min(x), np.max(x), np.argmin(x), np.argmax(x)
""", lambda: (_nanny(37, [(5, np.nan), (20, -np.inf), (30, np.nan)]),))
case("nan_minmax_loop", """def kern(x):
    m = x[0]
    k = 0
    for i in range(1, x.shape[0]):
        if x[i] < m:
            m = x[i]
            k = i
    return m, k
""", lambda: (_nanny(37, [(0, np.nan), (20, -1e300)]),))
case("nan_builtin_min_max_order", """def kern(x, out):
    for i in range(x.shape[0] - 1):
        out[i] = max(x[i], x[i + 1]) - min(x[i + 1], x[i])
""", lambda: (_nanny(9, [(3, np.nan), (6, np.inf)]), np.zeros(8)))
case("nan_all_inf_argmax", """def kern(x):
    return np.argmax(x), np.argmin(x), x.max(axis=0), np.argmax(x, axis=1)
""", lambda: (np.full((4, 6), -np.inf),))
case("nan_maximum_fmax", """def kern(a, b):
    return np.maximum(a, b), np.fmax(a, b), np.minimum(a, b), np.fmin(a, b)
""", lambda: (_nanny(8, [(1, np.nan), (3, np.nan)]), _nanny(8, [(1, np.nan), (5, np.nan)])))
case("nan_argmin_axis0_first", """def kern(X):
    return np.argmin(X, axis=0), np.nanmax(X) if X.shape[0] > 100 else X.min()
""", lambda: ((lambda X: (X.__setitem__((2, 1), np.nan), X)[1])(np.round(f64(5, 4))),))
# ---- complex
case("cx_arith", """def kern(a, b):
    return a * b - a / b + np.conj(a) * 2.0, np.abs(a), (a * b).sum()
""", lambda: (f64(6) + 1j * f64(6), f64(6) - 0.5j * f64(6)))
case("cx_div_zero", """def kern(a, b):
    return a / b
""", lambda: (np.array([1 + 1j, 0j, np.inf + 0j, 1j]), np.array([0j, 0j, 1 + 1j, np.inf + 0j])))
case("cx_loop_accumulate64", """def kern(a, out):
    s = 0j
    for i in range(a.shape[0]):
        s += a[i] * a[i]
        out[i] = s
    return s
""", lambda: ((f64(9) + 1j * f64(9)).astype(np.complex64), np.zeros(9, np.complex64)), tol=1e-5)
case("cx_matmul_view", """def kern(A, x):
    return A @ x
""", lambda: ((f64(7, 6) + 1j * f64(7, 6))[::-1, :], (f64(12) - 1j * f64(12))[::2]))
# ---- bool arithmetic
case("bo_add_loop_into_int", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]
""", lambda: (R.random(9) > 0.5, R.random(9) > 0.3, np.zeros(9, np.int64)), tol=0.0)
case("bo_numpy_add_mul", """def kern(a, b):
    return a + b, a * b, a.sum(), np.sum(a & ~b), a ^ b
""", lambda: (R.random(9) > 0.5, R.random(9) > 0.3), tol=0.0)
case("bo_times_float", """def kern(a, x):
    return a * x - x * (~a), (a * 3).dtype == np.int64
""", lambda: (R.random(9) > 0.5, f64(9)))
case("bo_sum_loop_python", """def kern(a):
    c = 0
    for i in range(a.shape[0]):
        c += a[i]
    return c
""", lambda: (R.random(300) > 0.5,), tol=0.0)
case("bo_bool_minus_raises", """def kern(a, b):
    return a - b
""", lambda: (R.random(4) > 0.5, R.random(4) > 0.3))
case("bo_cumsum_bool", """def kern(a):
    return np.cumsum(a), np.cumsum(a).dtype == np.int64, a.max(), a.argmax()
""", lambda: (R.random(11) > 0.7,), tol=0.0)
AXPY = """def kern(a, b):
    for i in range(b.shape[0]):
        b[i] = a[i] * 2.0 + b[i]
"""
# ---- the native entry: calls 0-3 plain, then a call it must not take as the plan's
case("ne_alias_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (lambda x: (x[1:17], x[:16]))(f64(17))))
case("ne_same_array_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (lambda x: (x, x))(f64(16))))
case("ne_view_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (f64(32)[::2], f64(48)[::-3])))
case("ne_readonly_after_4", AXPY, late(lambda: (f64(16), f64(16)),
                                       lambda: (f64(16), (lambda b: (b.setflags(write=False), b)[1])(f64(16)))))
case("ne_dtype_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (f64(16).astype(np.float32), f64(16).astype(np.float32))), tol=1e-6)
case("ne_int_dtype_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (np.arange(16), np.arange(16))))
case("ne_empty_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (np.zeros(0), np.zeros(0))))
case("ne_shorter_a_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (f64(8), f64(16))))
case("ne_2d_after_4", AXPY, late(lambda: (f64(16), f64(16)), lambda: (f64(4, 4), f64(4, 4))))
case("ne_stride0_after_4", AXPY, late(lambda: (f64(16), f64(16)),
                                      lambda: (f64(16), np.lib.stride_tricks.as_strided(np.zeros(1), shape=(16,), strides=(0,)))))
case("ne_int_arg_changes", """def kern(n, a, out):
    for i in range(n):
        out[i] = a[i] + n
""", late(lambda: (10, f64(16), np.zeros(16)), lambda: (20, f64(16), np.zeros(16))))
case("ne_int_arg_negative", """def kern(n, a, out):
    for i in range(a.shape[0]):
        out[i] = a[(i + n) % a.shape[0]]
""", late(lambda: (3, f64(16), np.zeros(16)), lambda: (-5, f64(16), np.zeros(16))))
case("ne_float_arg_int_later", """def kern(alpha, a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * alpha
    return alpha / 2
""", late(lambda: (1.5, f64(16), np.zeros(16)), lambda: (3, f64(16), np.zeros(16))))
case("ne_bool_arg_later", """def kern(alpha, a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * alpha
    return alpha + alpha
""", late(lambda: (2, np.arange(16), np.zeros(16, np.int64)), lambda: (True, np.arange(16), np.zeros(16, np.int64))), tol=0.0)
case("ne_npscalar_arg_later", """def kern(alpha, a):
    return a * alpha + alpha
""", late(lambda: (2.0, f64(16).astype(np.float32)), lambda: (np.float64(2.0), f64(16).astype(np.float32))), tol=1e-6)
case("ne_overlap_numpy_after_4", """def kern(a, b):
    b[:] = np.cumsum(a) + b
""", late(lambda: (f64(16), f64(16)), lambda: (lambda x: (x[2:18], x[:16]))(f64(18))))
case("ne_fortran_after_4", """def kern(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = A[i, j] * 2.0 + A[i, 0]
""", late(lambda: (f64(6, 7), np.zeros((6, 7))), lambda: (np.asfortranarray(f64(6, 7)), np.asfortranarray(np.zeros((6, 7))))))
case("ne_return_alias_later", """def kern(a):
    return a
""", late(lambda: (f64(6),), lambda: (f64(12)[::2],)))
# ---- size thresholds: BLAS minimum work, parallel, GEMM sizes around 8 and 32
for _n in (7, 8, 9, 31, 32, 33):
    case(f"th_gemm_loops_{_n}", """def kern(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            C[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
""", lambda _n=_n: (f64(_n, _n + 1), f64(_n + 1, _n - 1), np.zeros((_n, _n - 1))))
for _n in (31, 32, 33):
    case(f"th_gemv_accumulate_{_n}", """def kern(A, x, y):
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            y[i] += A[i, k] * x[k]
""", lambda _n=_n: (f64(_n, 32 * 32 + 1 - _n), f64(32 * 32 + 1 - _n), f64(_n)))
case("th_gemm_int64", """def kern(A, B):
    return A @ B
""", lambda: (np.arange(40 * 41, dtype=np.int64).reshape(40, 41) % 7 - 3, np.arange(41 * 39, dtype=np.int64).reshape(41, 39) % 5 - 2), tol=0.0)
case("th_gemm_float32_big", """def kern(A, B):
    return A @ B
""", lambda: (f64(70, 65).astype(np.float32), f64(65, 66).astype(np.float32)), tol=1e-4)
case("th_gemm_nan_inf", """def kern(A, B):
    C = A @ B
    return C
""", lambda: ((lambda a: (a.__setitem__((1, 2), np.nan), a.__setitem__((5, 7), np.inf), a)[2])(f64(40, 40)), f64(40, 40)))
case("th_stream_stores", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0 + 1.0
""", lambda: (f64(4099), np.zeros(4099)[::-1]), env={"POLYFUSE_STREAM_STORES": "64"})
case("th_stream_stores_views", """def kern(A, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i, j] = A[i, j] + A[i, A.shape[1] - 1 - j]
""", lambda: (f64(33, 130), np.zeros((33, 130))), env={"POLYFUSE_STREAM_STORES": "64"})
case("th_stream_stores_alias", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0 + 1.0
""", lambda: (lambda x: (x, x))(f64(4099)), env={"POLYFUSE_STREAM_STORES": "64"})
case("th_large_1d_parallel", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = math.exp(-a[i] * a[i]) + b[i]
    return out.sum()
""", lambda: (f64(200003), f64(200003), np.zeros(200003)), tol=1e-12)
case("th_odd_sizes_f32_vectors", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] - math.sqrt(abs(a[i]))
""", lambda: (f64(16 * 7 + 15).astype(np.float32), f64(16 * 7 + 15).astype(np.float32), np.zeros(16 * 7 + 15, np.float32)), tol=1e-6)
case("th_int8_vectors_remainder", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + (a[i] >> 1)
""", lambda: ((R.integers(-128, 128, 131)).astype(np.int8), (R.integers(-128, 128, 131)).astype(np.int8), np.zeros(131, np.int8)), tol=0.0)
case("th_sign_mask_gather_o1", """def kern(v, J, out):
    for i in range(J.shape[0]):
        out[i] = math.tanh(v[J[i]]) * 2.0
""", lambda: (f64(40), (R.integers(-40, 40, 37)), np.zeros(37)), env={"_opt_level": 1})
# LLVM 22's vmovmskpd of ymm23 (llvm/llvm-project#191304; backends/cpu/mask_moves.py): a gather with
# wrapped negative indices at opt_level=1, cpu_campaign --style numpy-extra --options seed 35351;
# _guard_0 (the guard off) is BAD on cpu while llvmlite's LLVM miscompiles it: a canary for the fix
for _guard in ("1", "0"):
    case(f"th_mask_moves_guard_{_guard}", """def kern(n, Y, v):
    I = (np.abs(v) * 7).astype(np.int64) % (n + 3)
    J = I[:n + 2] % (n + 2)
    Y[J, -1 - I[:n + 2]] *= np.tanh(v[1:][J])
    return Y
""", lambda: (4, f64(6, 7), f64(7)), env={"_opt_level": 1, "_fuse": "none", "POLYFUSE_MASK_MOVES_GUARD": _guard})
EW = """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0 + 1.0
"""
case("dt_big_endian_in", EW, lambda: (f64(40).astype(">f8"), np.zeros(40)))
case("dt_big_endian_out", EW, lambda: (f64(40), np.zeros(40, ">f8")))
case("dt_big_endian_numpy", """def kern(a, b):
    return a * 2 + b, np.sum(a)
""", lambda: (np.arange(40, dtype=">i8"), f64(40)))
case("dt_misaligned_in", EW, lambda: ((lambda m: (m.__setitem__(slice(None), f64(40)), m)[1])(misaligned(40)), np.zeros(40)))
case("dt_misaligned_out", EW, lambda: (f64(40), misaligned(40)))
case("dt_misaligned_stream", EW, lambda: (f64(4099), misaligned(4099)), env={"POLYFUSE_STREAM_STORES": "64"})
case("dt_misaligned_stream_off8", EW, lambda: (f64(4099), misaligned(4099, off=8)), env={"POLYFUSE_STREAM_STORES": "64"})
case("dt_float16", """def kern(a, b):
    return a * b + a, (a + b).sum()
""", lambda: (f64(9).astype(np.float16), f64(9).astype(np.float16)), tol=1e-3)
case("dt_float16_loop", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * a[i] + 1
""", lambda: (f64(9).astype(np.float16), np.zeros(9, np.float16)), tol=1e-3)
case("dt_object_array", EW, lambda: (np.array([1.0, 2.0], object), np.zeros(2)))
case("dt_structured", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + 1.0
""", lambda: (np.zeros(3, dtype=[("x", "f8")])["x"], np.zeros(3)))
case("dt_datetime", """def kern(a):
    return a + 1
""", lambda: (np.arange(3).astype("datetime64[D]"),))
case("dt_uint64_plus_int64_loop", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]
""", lambda: (np.array([2**63 + 5, 3, 2**64 - 1], np.uint64), np.array([-1, -7, 1], np.int64), np.zeros(3)), tol=1e-15)
case("dt_uint64_plus_int64_numpy", """def kern(a, b):
    return a + b, a * 2, a // np.uint64(3)
""", lambda: (np.array([2**63 + 5, 3, 2**64 - 1], np.uint64), np.array([-1, -7, 1], np.int64)), tol=1e-15)
case("dt_int8_scalar_strong", """def kern(a, s):
    return a + s, a * s
""", late(lambda: (np.arange(-5, 6, dtype=np.int8) * 10, 100), lambda: (np.arange(-5, 6, dtype=np.int8) * 10, np.int16(100))), tol=0.0)
case("dt_python_int_too_big", """def kern(a, s):
    return a + s
""", lambda: (np.arange(5, dtype=np.int8), 300), tol=0.0)
case("dt_huge_python_int", """def kern(a, s):
    return a + s
""", lambda: (np.arange(5), 2**70), tol=0.0)
# ---- float to int conversions of NaN/inf/huge
case("cv_astype_int64_nonfinite", """def kern(x):
    return x.astype(np.int64)
""", lambda: (np.array([np.nan, np.inf, -np.inf, 1e300, -1e300, 2.5, -2.5, 9.3e18]),), tol=0.0)
case("cv_astype_int32_huge", """def kern(x):
    return x.astype(np.int32), x.astype(np.int16), x.astype(np.uint8)
""", lambda: (np.array([1e10, -1e10, 3e9, 70000.7, -1.0, 256.5, -129.2, 2.0**31]),), tol=0.0)
case("cv_loop_store_int32_huge", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
""", lambda: (np.array([1e10, -1e10, 3e9, 70000.7, -1.0, 2.0**31, 2.5]), np.zeros(7, np.int32)), tol=0.0)
case("cv_int_of_nan_raises", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = int(x[i])
""", lambda: (np.array([1.5, np.nan, 2.0]), np.zeros(3, np.int64)), tol=0.0)
case("cv_float32_to_int", """def kern(x):
    return x.astype(np.int64), x.astype(np.uint32)
""", lambda: (np.array([3e9, -3.5, 1.7e19, np.nan], np.float32),), tol=0.0)
# ---- math domain errors vs NumPy NaN
case("md_math_sqrt_negative", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = math.sqrt(x[i])
""", lambda: (np.array([4.0, -1.0, 9.0]), np.zeros(3)))
case("md_np_sqrt_negative_loop", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = np.sqrt(x[i])
""", lambda: (np.array([4.0, -1.0, 9.0]), np.zeros(3)))
case("md_math_log_zero", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log(x[i])
""", lambda: (np.array([4.0, 0.0, 9.0]), np.zeros(3)))
case("md_python_float_div_zero", """def kern(x, out):
    for i in range(x.shape[0]):
        y = float(x[i])
        out[i] = 1.0 / y
""", lambda: (np.array([4.0, 0.0, 9.0]), np.zeros(3)))
case("md_npfloat_div_zero", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 / x[i]
""", lambda: (np.array([4.0, 0.0, -0.0]), np.zeros(3)))
case("md_int_args_div_zero", """def kern(n, m, out):
    out[0] = n // m
""", lambda: (5, 0, np.zeros(1, np.int64)), tol=0.0)
case("md_int_pow_negative", """def kern(a, b):
    return a ** b
""", lambda: (np.array([2, 3, 0]), np.array([2, -1, 0])), tol=0.0)
case("md_int_pow_loop", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] ** b[i]
""", lambda: (np.array([2, 3, 0, -2]), np.array([62, 41, 0, 63]), np.zeros(4, np.int64)), tol=0.0)
case("md_python_int_pow_neg", """def kern(n, out):
    for i in range(out.shape[0]):
        out[i] = n ** (i - 2)
""", lambda: (2, np.zeros(5)), tol=0.0)
case("md_round_half_even", """def kern(x, out, k):
    for i in range(x.shape[0]):
        out[i] = round(x[i]) + round(x[i], 1) * 10
        k[i] = round(x[i])
    return np.round(x), np.round(x, 1)
""", lambda: (np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.25, 0.35, 2.675]), np.zeros(8), np.zeros(8, np.int64)), tol=0.0)
case("md_negzero_minmax", """def kern(x, y):
    return np.maximum(x, y), np.minimum(x, y), np.signbit(np.minimum(x, y)), np.copysign(1.0, x * y)
""", lambda: (np.array([0.0, -0.0, 0.0, -0.0]), np.array([-0.0, 0.0, 0.0, -0.0])), tol=0.0)
case("md_subnormal", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 0.5 + x[i] / 3.0
    return x.sum(), np.min(x)
""", lambda: (np.array([5e-324, 1e-310, -2e-308, 2.2250738585072014e-308] * 5), np.zeros(20)), tol=0.0)
case("oa_nan_min_reduction", """def kern(x, out):
    m = x[0]
    for i in range(1, x.shape[0]):
        m = min(m, x[i])
    out[0] = m
    s = -np.inf
    for i in range(x.shape[0]):
        s = max(s, x[i])
    out[1] = s
""", lambda: (_nanny(41, [(0, np.nan), (17, np.nan), (30, -np.inf)]), np.zeros(2)))
case("oa_nan_min_reduction_mid", """def kern(x, out):
    m = x[0]
    for i in range(1, x.shape[0]):
        m = min(m, x[i])
    out[0] = m
    s = x[0]
    for i in range(1, x.shape[0]):
        s = max(x[i], s)
    out[1] = s
""", lambda: (_nanny(41, [(17, np.nan)]), np.zeros(2)))
case("oa_argmin_ties_nan", """def kern(x, out):
    k = 0
    for i in range(1, x.shape[0]):
        if x[i] < x[k]:
            k = i
    out[0] = k
""", lambda: (np.array([3.0, 1.0, np.nan, 1.0, 0.5, 0.5, np.nan]), np.zeros(1, np.int64)), tol=0.0)
case("oa_int8_accumulate_rows", """def kern(X, out):
    for i in range(X.shape[0]):
        s = X[i, 0]
        for j in range(1, X.shape[1]):
            s += X[i, j]
        out[i] = s
""", lambda: ((R.integers(-128, 128, (9, 33))).astype(np.int8), np.zeros(9, np.int8)), tol=0.0)
case("oa_int16_mul_wrap", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] - a[i]
""", lambda: ((R.integers(-32768, 32768, 50)).astype(np.int16), (R.integers(-32768, 32768, 50)).astype(np.int16), np.zeros(50, np.int16)), tol=0.0)
case("oa_uint8_sub_wrap", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] - b[i]
""", lambda: ((R.integers(0, 256, 50)).astype(np.uint8), (R.integers(0, 256, 50)).astype(np.uint8), np.zeros(50, np.uint8)), tol=0.0)
case("oa_floordiv_neg_int", """def kern(a, d, out, m):
    for i in range(a.shape[0]):
        out[i] = a[i] // d[i]
        m[i] = a[i] % d[i]
""", lambda: (R.integers(-100, 100, 40), R.choice([-7, -3, -1, 1, 2, 5], 40), np.zeros(40, np.int64), np.zeros(40, np.int64)), tol=0.0)
case("oa_float_floordiv_mod_neg", """def kern(a, d, out, m):
    for i in range(a.shape[0]):
        out[i] = a[i] // d[i]
        m[i] = a[i] % d[i]
""", lambda: (f64(40) * 10, R.choice([-2.5, -0.75, 0.5, 3.0, -0.0, 0.0], 40), np.zeros(40), np.zeros(40)))
case("oa_bool_add_and_sum", """def kern(a, b, out, c):
    n = 0
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]
        n += a[i]
    c[0] = n
""", lambda: (R.random(30) > 0.5, R.random(30) > 0.4, np.zeros(30, np.int64), np.zeros(1, np.int64)), tol=0.0)
case("oa_bool_store_truth", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
""", lambda: (np.array([0.0, -0.0, np.nan, 2.0, -1e-300]), np.zeros(5, bool)), tol=0.0)
case("oa_float_to_bool_mul", """def kern(x, k, out):
    for i in range(x.shape[0]):
        out[i] = k[i] * x[i] + (not k[i]) * 2.0
""", lambda: (f64(12), R.random(12) > 0.5, np.zeros(12)))
case("oa_complex_loop", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i].conjugate() + abs(a[i]) / b[i]
""", lambda: (f64(15) + 1j * f64(15), f64(15) - 1j * f64(15), np.zeros(15, complex)))
case("oa_complex64_loop", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * a[i] - 1j
""", lambda: ((f64(15) + 1j * f64(15)).astype(np.complex64), np.zeros(15, np.complex64)), tol=1e-5)
case("oa_float32_accumulate", """def kern(x, out):
    for i in range(x.shape[0]):
        s = np.float32(0)
        for j in range(x.shape[1]):
            s += x[i, j] * x[i, j]
        out[i] = s
""", lambda: (R.random((7, 3001)).astype(np.float32), np.zeros(7, np.float32)), tol=2e-5)
case("oa_neg_stride_2d", """def kern(A, B):
    for i in range(1, A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = A[i, j] - A[i - 1, j]
""", lambda: (f64(9, 12)[::-1, ::-2], np.zeros((12, 9)).T[::-1, :][:9, :6]))
case("oa_int_minmax_python", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = max(a[i], 2**31) - min(a[i], -5)
""", lambda: (R.integers(-2**40, 2**40, 20), np.zeros(20, np.int64)), tol=0.0)
case("oa_shifts", """def kern(a, s, out):
    for i in range(a.shape[0]):
        out[i] = (a[i] >> s[i]) ^ (a[i] << (s[i] % 8))
""", lambda: (R.integers(-2**30, 2**30, 20), R.integers(0, 63, 20), np.zeros(20, np.int64)), tol=0.0)
case("oa_min_negzero_loop", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = 1.0 / min(a[i], b[i])
""", lambda: (np.array([0.0, -0.0, 0.0, -0.0, 1.0]), np.array([-0.0, 0.0, 0.0, -0.0, -0.0]), np.zeros(5)), tol=0.0)
case("oa_int_div_zero_loop", """def kern(a, d, out):
    for i in range(a.shape[0]):
        out[i] = a[i] // d[i] + a[i] % d[i]
""", lambda: (np.array([5, -5, 0, 7, -2**63]), np.array([0, 0, 0, 2, -1]), np.zeros(5, np.int64)), tol=0.0)
case("oa_sqrt_neg_np", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = np.sqrt(x[i]) + np.log(x[i]) + np.arcsin(x[i])
""", lambda: (np.array([-1.0, 0.0, 0.5, 2.0, np.inf, -np.inf, np.nan]), np.zeros(7)))
case("oa_pow_edge", """def kern(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** y[i]
""", lambda: (np.array([0.0, -0.0, -2.0, -8.0, np.inf, 1.0, np.nan, -1.0]), np.array([-1.0, -1.0, 0.5, 1.0 / 3, -0.0, np.nan, 0.0, np.inf]), np.zeros(8)))

# loops LLVM 22's vectorizer got wrong elsewhere (xor of bytes by i % 4, llvm#215690; i32 copies on
# znver4, llvm#186922) and written as_strided views whose elements meet (refused since cp45)
for _n in (31, 32, 33, 100):
    case(f"lv_xor_bytes_mod4_{_n}", """def kern(b, k):
    for i in range(b.shape[0]):
        b[i] ^= k[i % 4]
""", lambda _n=_n: (np.arange(_n, dtype=np.uint8) * 37, np.array([7, 84, 62, 201], np.uint8)), tol=0.0)
    case(f"lv_xor_bytes_mod4_u32view_{_n}", """def kern(b, k):
    for i in range(b.shape[0]):
        b[i] = b[i] ^ k[i % k.shape[0]]
""", lambda _n=_n: (np.arange(_n, dtype=np.uint8) * 37, np.array([0xc93e5407], np.uint32).view(np.uint8)), tol=0.0)
    case(f"lv_i32_copy_{_n}", """def kern(a, out, s):
    for i in range(a.shape[0]):
        out[i] = a[i]
    for i in range(a.shape[0] - s):
        out[i + s] = out[i + s] + a[i]
""", lambda _n=_n: (np.arange(_n, dtype=np.int32) * 3 - 50, np.zeros(_n, np.int32), 3), tol=0.0)
    case(f"lv_i8_mod_index_{_n}", """def kern(b, k, out):
    for i in range(b.shape[0]):
        out[i] = b[i] + k[(i * 3 + 1) % 4] - k[i % 2]
""", lambda _n=_n: ((np.arange(_n) * 77).astype(np.int8), np.array([100, -100, 27, -128], np.int8), np.zeros(_n, np.int8)), tol=0.0)
    case(f"lv_u16_shift_mix_{_n}", """def kern(b, out):
    for i in range(b.shape[0]):
        out[i] = (b[i] << (i % 16)) | (b[i] >> (16 - i % 16))
""", lambda _n=_n: ((np.arange(_n) * 4099).astype(np.uint16), np.zeros(_n, np.uint16)), tol=0.0)

def _diag_overlap():
    buf = np.zeros(16)
    return np.lib.stride_tricks.as_strided(buf, shape=(4, 4), strides=(8, 8))

case("io_internal_overlap_written", """def kern(X, Y):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[i, j] = Y[i, j] + X[i, j] * 2.0
""", lambda: (_diag_overlap(), f64(4, 4)))
case("io_internal_overlap_numpy", """def kern(X, Y):
    X[:] = Y * 2.0 + 1.0
""", lambda: (_diag_overlap(), f64(4, 4)))
case("io_internal_overlap_1d_half_stride", """def kern(x, y):
    for i in range(x.shape[0]):
        x[i] = y[i]
""", lambda: (np.lib.stride_tricks.as_strided(np.zeros(8, np.int64).view(np.int32), shape=(7,), strides=(4,)), np.arange(7, dtype=np.int32)), tol=0.0)
case("io_internal_overlap_reduction_target", """def kern(X, y):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[i, j] += y[j]
""", lambda: (_diag_overlap(), f64(4)))

def _diag_overlap_big(n=96):
    buf = np.zeros(2 * n)
    return np.lib.stride_tricks.as_strided(buf, shape=(n, n), strides=(8, 8))

case("io_internal_overlap_big", """def kern(X, Y):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[i, j] = Y[i, j] + X[i, j] * 0.5
""", lambda: (_diag_overlap_big(), f64(96, 96)))
case("io_internal_overlap_big_numpy", """def kern(X, Y):
    X += Y
""", lambda: (_diag_overlap_big(), f64(96, 96)))
case("io_internal_overlap_rows", """def kern(X, Y):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[i, j] = Y[i, j] * 3.0 - X[i, j]
""", lambda: (np.lib.stride_tricks.as_strided(np.zeros(400), shape=(50, 40), strides=(8 * 7, 8)), f64(50, 40)))


# ---- (cp47, session 36) edges the generators do not reach
case("s36_neg_step3_runtime_bounds", """def kern(x, out, a, b):
    for i in range(a, b, -3):
        out[i] = x[i] * 2.0 + i
""", lambda: (f64(11), np.zeros(11), 10, -1))
case("s36_neg_step_empty", """def kern(x, out, a, b):
    s = 0.0
    for i in range(a, b, -2):
        out[i] = x[i]
        s += x[i]
    return s
""", lambda: (f64(8), np.zeros(8), 2, 5))
case("s36_runtime_step_negative", """def kern(x, out, st):
    n = x.shape[0]
    for i in range(n - 1, -1, st):
        out[i] = x[i] + 1.0
    return out.sum()
""", lambda: (f64(10), np.zeros(10), -4))
case("s36_zero_rows_2d", """def kern(A, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[j] += A[i, j]
    return out.sum()
""", lambda: (np.zeros((0, 5)), np.ones(5)))
case("s36_zero_cols_2d_max", """def kern(A):
    m = -1.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            m = max(m, A[i, j])
    return m
""", lambda: (np.zeros((4, 0)),))
case("s36_0d_numpy_expr", """def kern(a, b, out):
    out[()] = a[()] * 2 + b
    return out
""", lambda: (np.array(3.5), 2, np.array(0.0)))
case("s36_fortran_axis_sum", """def kern(A):
    return A.sum(axis=0) + A.sum(axis=1)[:A.shape[1]]
""", lambda: (np.asfortranarray(f64(7, 5)),))
case("s36_fortran_rev_loop", """def kern(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = A[i, j] - A[A.shape[0] - 1 - i, j]
""", lambda: (np.asfortranarray(f64(6, 5)), np.asfortranarray(np.zeros((6, 5)))[::-1]))
case("s36_big_affine_constants", """def kern(x, out, k):
    for i in range(x.shape[0]):
        out[i + k - k] = x[i] + (i + k) - k
""", lambda: (f64(9), np.zeros(9), 2**62))
case("s36_index_int32_mul", """def kern(x, out, m):
    for i in range(out.shape[0]):
        out[i] = x[(i * m) % x.shape[0]]
""", lambda: (f64(13), np.zeros(13), 2**40 + 3))
case("s36_mixed_u64_i8_f32", """def kern(a, b, c, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i] * c[i]
    return a[0] + b[0]
""", lambda: (np.arange(5, dtype=np.uint64) * 3, np.arange(-2, 3, dtype=np.int8),
             np.linspace(0, 1, 5, dtype=np.float32), np.zeros(5)))
case("s36_u64_minus_loopvar", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] - i
    return out
""", lambda: (np.arange(6, dtype=np.uint64), np.zeros(6, np.uint64)))
case("s36_bool_plus_bool_loop", """def kern(a, b, out):
    t = 0
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]
        t += a[i] * b[i]
    return t
""", lambda: (R.random(9) > 0.5, R.random(9) > 0.3, np.zeros(9, np.bool_)))
case("s36_complex64_scalar_mix", """def kern(z, x, out):
    for i in range(z.shape[0]):
        out[i] = abs(z[i] * x[i]) + (z[i] * 1.5).real
    return z[0] * 2.0
""", lambda: (np.array([1 + 2j, -3j, 0.5, 2 - 1j], np.complex64), np.arange(4, dtype=np.float32),
             np.zeros(4, np.float32)))
case("s36_alias_reversed_inplace_numpy", """def kern(x, y):
    x[:] = y * 2.0 + x
""", lambda: (lambda a: (a, a[::-1]))(f64(7)))
case("s36_signature_changes", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 3 - 1
    return x.sum()
""", lambda: [(f64(5), np.zeros(5)), (np.arange(7, dtype=np.int32), np.zeros(7, np.int32)),
              (np.arange(4, dtype=np.float32), np.zeros(4, np.float64)),
              (np.arange(3, dtype=np.int8) * 40, np.zeros(3, np.int8)),
              (f64(5), np.zeros(5))][CALL])
case("s36_int8_python_int_overflow", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2 + 100
""", lambda: (np.arange(-3, 3, dtype=np.int8) * 20, np.zeros(6, np.int8)))
case("s36_neg_stride_strided_2d_numpy", """def kern(A, B):
    return (A[::-1, ::2] * B[:, ::-1]).sum(axis=1)
""", lambda: (f64(5, 8)[:, ::-1], f64(5, 4)))
case("s36_uint64_big_values_loop", """def kern(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] // 3 + a[i] % 7
""", lambda: (np.array([2**64 - 1, 2**63, 2**63 - 1, 5], np.uint64), np.zeros(4, np.uint64)))
case("s36_empty_range_return_type", """def kern(x, n):
    s = 0
    for i in range(n):
        s += x[i]
    return s
""", lambda: (np.arange(5, dtype=np.int16), 0 if CALL % 2 else 3))

case("s36_back_substitution", """def kern(A, b, x):
    n = b.shape[0]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    return x
""", lambda: (np.triu(f64(7, 7)) + 7 * np.eye(7), f64(7), np.zeros(7)))
case("s36_reverse_prefix_inplace", """def kern(x):
    for i in range(x.shape[0] - 1, 0, -1):
        x[i - 1] += x[i]
""", lambda: (f64(12),))
case("s36_reverse_gauss_seidel", """def kern(x, T):
    for t in range(T):
        for i in range(x.shape[0] - 2, 0, -1):
            x[i] = 0.5 * (x[i - 1] + x[i + 1])
""", lambda: (f64(40), 3))
case("s36_two_loops_reversed_reader", """def kern(x, y, z):
    n = x.shape[0]
    for i in range(n):
        y[i] = x[i] * 2.0
    for i in range(n):
        z[i] = y[n - 1 - i] + y[i]
""", lambda: (f64(33), np.zeros(33), np.zeros(33)))
case("s36_even_odd_steps", """def kern(x):
    n = x.shape[0]
    for i in range(0, n - 1, 2):
        x[i + 1] = x[i] * 0.5
    for i in range(1, n - 1, 2):
        x[i + 1] += x[i]
""", lambda: (f64(21),))
case("s36_triangular_neg_inner", """def kern(A, out):
    n = A.shape[0]
    for i in range(n):
        for j in range(i, -1, -1):
            out[i] = out[i] * 0.5 + A[i, j]
""", lambda: (f64(9, 9), np.zeros(9)))
case("s36_column_sweep_inplace", """def kern(A):
    for j in range(1, A.shape[1]):
        for i in range(A.shape[0]):
            A[i, j] = A[i, j - 1] + A[i, j] * 0.5
""", lambda: (f64(37, 19),))
case("s36_diag_wavefront", """def kern(A):
    for i in range(1, A.shape[0]):
        for j in range(1, A.shape[1]):
            A[i, j] = A[i - 1, j] + A[i, j - 1] - A[i - 1, j - 1] * 0.25
""", lambda: (f64(40, 35),))
case("s36_antidiag_dep", """def kern(A):
    for i in range(1, A.shape[0]):
        for j in range(A.shape[1] - 1):
            A[i, j] = A[i - 1, j + 1] * 0.5 + 1.0
""", lambda: (f64(30, 30),))
case("s36_slices_out_of_range", """def kern(x):
    return x[10:-20:-1].sum() + x[-100:100:3].sum() + x[::-1][::2][1:].sum()
""", lambda: (f64(15),))
case("s36_arange_neg_float_step", """def kern(a, b):
    return np.arange(a, b, -0.5) * 2.0
""", lambda: (5.0, 0.0))
case("s36_where_weak_int", """def kern(c, x):
    return np.where(c, x, 3), np.where(c, 1, 2.5)
""", lambda: (R.random(6) > 0.5, np.arange(6, dtype=np.int8)))
case("s36_max3_mixed", """def kern(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += max(1, x[i], 2.5) - min(x[i], -1, 0.5)
    return s
""", lambda: (np.arange(-3, 5, dtype=np.int32),))
case("s36_return_input", """def kern(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + 1
    return y
""", lambda: (f64(5), np.zeros(5)))


case("s36_f32_eq_python_float", """def kern(x, out):
    c = 0
    for i in range(x.shape[0]):
        if x[i] == 0.1:
            c += 1
        out[i] = x[i] < 0.3
    return c
""", lambda: (np.array([0.1, 0.2, 0.1, 0.3, 0.30000001], np.float32), np.zeros(5, np.bool_)))
case("s36_int8_cmp_out_of_range_int", """def kern(x, out):
    c = 0
    for i in range(x.shape[0]):
        if x[i] < 300:
            c += 1
        out[i] = (x[i] > -200) + (x[i] == 256)
    return c
""", lambda: (np.arange(-4, 4, dtype=np.int8) * 30, np.zeros(8, np.int64)))
case("s36_uint8_eq_minus_one", """def kern(x):
    c = 0
    for i in range(x.shape[0]):
        if x[i] == -1:
            c += 1
        if x[i] != -1:
            c += 10
    return c
""", lambda: (np.array([255, 0, 1], np.uint8),))
case("s36_u64_vs_i64_compare", """def kern(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] > b[i]
""", lambda: (np.array([2**63, 1, 0, 2**64 - 1], np.uint64), np.array([-1, -2, 0, 5], np.int64),
             np.zeros(4, np.bool_)))
case("s36_u64_vs_i64_numpy", """def kern(a, b):
    return a > b, np.maximum(a, b), a == b
""", lambda: (np.array([2**63, 1, 0, 2**64 - 1], np.uint64), np.array([-1, -2, 0, -1], np.int64)))
case("s36_builtin_max_u64_i64", """def kern(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += max(a[i], b[i])
    return s
""", lambda: (np.array([2**63, 1, 0, 7], np.uint64), np.array([-1, -2, 0, 9], np.int64)))
case("s36_f32_plus_huge_pyfloat", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + 1e300
    return x[0] * 1e-50
""", lambda: (np.ones(3, np.float32), np.zeros(3, np.float64)))
case("s36_tuple_index_negative", """def kern(x):
    s = 0.0
    t = (x[0], x[1], 2)
    for i in range(x.shape[0]):
        s += t[i % 3 - 3] * x[i]
    return s
""", lambda: (f64(8),))
case("s36_tuple_loop_mixed", """def kern(x):
    s = 0
    for i in range(x.shape[0]):
        for c in (1, -2, 3):
            s += c * x[i]
    return s
""", lambda: (np.arange(5, dtype=np.int8) * 20,))
case("s36_helper_if_tuple", """def kern(x, k):
    s = 0.0
    for i in range(x.shape[0]):
        a, b = helper(x[i], k)
        s += a * b
    return s

def helper(v, k):
    if v > k:
        a = v - k
        b = 1
    else:
        a = k - v
        b = -1
    return a, b
""", lambda: ((np.arange(6) - 3) if CALL % 2 else f64(6), 1 if CALL < 3 else 0.5))
case("s36_ping_pong_same_buffers", """def kern(a, b, T):
    for t in range(T):
        for i in range(1, a.shape[0] - 1):
            b[i] = (a[i - 1] + a[i + 1]) * 0.5
        a, b = b, a
    return a
""", lambda: (f64(20), np.zeros(20), 3 if CALL % 2 else 4))
case("s36_complex_into_float_raises", """def kern(z, out):
    for i in range(z.shape[0]):
        out[i] = z[i].real + z[i].imag
    return z.sum().imag
""", lambda: (np.array([1 + 2j, 3 - 1j]), np.zeros(2, np.float32)))
case("s36_bool_from_nan_f32", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
""", lambda: (np.array([np.nan, 0.0, -0.0, 1e-45, np.inf], np.float32), np.zeros(5, np.bool_)))
case("s36_np_scalar_store_wraps_uint8", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 3
""", lambda: (np.array([100, -5, 300, 7], np.int64), np.zeros(4, np.uint8)))


case("s36_ravel_fortran", """def kern(A):
    r = A.ravel()
    return r[:5] * 2.0, A.reshape(-1)[3], A.T.ravel()[:4]
""", lambda: (np.asfortranarray(f64(4, 3)),))
case("s36_round_int_neg_decimals", """def kern(x, y):
    return np.round(x, -1), np.round(y, 1), np.round(y)
""", lambda: (np.array([15, 25, -15, 35, 4], np.int64), np.array([0.25, 0.35, -2.5, 3.5, 1.05])))
case("s36_clip_lo_gt_hi", """def kern(x):
    return np.clip(x, 0.5, -0.5)
""", lambda: (f64(6),))
case("s36_sign_edges", """def kern(x):
    return np.sign(x), np.signbit(x)
""", lambda: (np.array([np.nan, -0.0, 0.0, -np.inf, 3.0]),))
case("s36_builtin_round_loop", """def kern(x, out):
    s = 0
    for i in range(x.shape[0]):
        s += round(x[i])
        out[i] = math.floor(x[i]) + math.ceil(x[i])
    return s
""", lambda: (np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999], np.float32), np.zeros(6, np.int64)))
case("s36_bool_invert_loop", """def kern(b, u, out, out2):
    for i in range(b.shape[0]):
        out[i] = ~b[i]
        out2[i] = ~u[i]
""", lambda: (R.random(5) > 0.5, np.arange(5, dtype=np.uint8), np.zeros(5, np.bool_), np.zeros(5, np.uint8)))
case("s36_float32_mean", """def kern(x):
    return x.mean(), x.sum(axis=0), np.mean(x, axis=1)
""", lambda: (R.standard_normal((5, 7)).astype(np.float32),), tol=1e-5)
case("s36_matmul_mixed", """def kern(A, x):
    return A @ x, x @ A.T.T[:x.shape[0]]
""", lambda: (R.standard_normal((4, 4)).astype(np.float32), f64(4)), tol=1e-5)
case("s36_fancy_negative", """def kern(A):
    return A[[0, -1]], A[:, [-1, 0, 1]].sum(axis=0)
""", lambda: (f64(3, 4),))
case("s36_mask_all_false_mean", """def kern(x):
    m = x > 100.0
    return x[m].sum(), x[m].shape[0]
""", lambda: (f64(6),))
case("s36_keepdims_broadcast", """def kern(A):
    return A - A.sum(axis=-1, keepdims=True), A[:, None, 0] - A[None, :, 0]
""", lambda: (f64(3, 4),))
case("s36_divmod_floats", """def kern(x, y):
    return x // y, x % y, np.fmod(x, y)
""", lambda: (np.array([5.0, -5.0, 5.0, -0.0, np.inf, 3.0]), np.array([0.0, 3.0, -3.0, 2.0, 2.0, np.inf])))
case("s36_int_pow_wraps", """def kern(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** 2 + x[i] ** 0.5
""", lambda: (np.array([3, 12, 100], np.int8), np.zeros(3)))
case("s36_argmax_2d_flat", """def kern(A):
    return np.argmax(A), np.argmin(A, axis=0), A.argmax(axis=1)
""", lambda: (np.array([[1, 5, 5], [7, 7, 0]], np.int16),))


case("s36_kind_flag_select_on_element", """def kern(x, k, b):
    t = 0.0
    for i in range(x.shape[0]):
        t = ((b[i] if x[0] else k[i]) + -2.5) if k[i] else t
    return t
""", lambda: (np.array([-2.0, np.nan, 0.0, -2.0]), np.array([2, 1, 0, 2]) * (CALL % 2), R.random(4) > 0.5))
case("s36_kind_flag_or_keeps", """def kern(x):
    m = -1
    for i in range(x.shape[0]):
        m = m or x[i]
    t = 0
    for i in range(x.shape[0]):
        t = t and x[i] or t
    return m, t
""", lambda: (np.arange(-2, 3, dtype=np.int32) * CALL,))
case("s36_split_local_choice_reads_itself", """def kern(x, k, c, o):
    t = 1
    if c > 0:
        t = x[0]
    t = x[1] if t else k[1]
    o[0] = t
    return t, (t or 1.5)
""", lambda: (np.array([-0.5, 0.0, 3.0]) + (CALL == 3), np.array([0, 2, 1]), 1 - 2 * (CALL % 2), np.zeros(1)))



def same(e, a, tol, label):
    """``a`` (the kernel's) is ``e`` (the plain function's): the same type, dtype and shape; integers,
    bools and other non-float values exactly (``assert_allclose`` compares them as float64, which
    holds 2**63 and 2**63 + 1 equal); floats within ``tol``, and with ``tol=0`` bit for bit but for
    NaN payloads (the sign of a zero too, which ``assert_allclose`` does not see)."""
    if isinstance(e, tuple):
        assert isinstance(a, tuple) and len(a) == len(e), f"{label}: {a!r} vs {e!r}"
        for k, (x, y) in enumerate(zip(e, a)):
            same(x, y, tol, f"{label}[{k}]")
        return
    if isinstance(e, np.ndarray):
        assert isinstance(a, np.ndarray) and a.dtype == e.dtype and a.shape == e.shape, \
            f"{label}: {getattr(a, 'dtype', type(a))}{getattr(a, 'shape', '')} vs {e.dtype}{e.shape}"
    else:
        assert type(a) is type(e) or (isinstance(e, (bool, np.bool_)) and isinstance(a, (bool, np.bool_))), \
            f"{label}: type {type(a).__name__} vs {type(e).__name__} ({a!r} vs {e!r})"
    x, y = np.asarray(a), np.asarray(e)
    if y.dtype.kind not in "fc":
        assert x.shape == y.shape and bool((x == y).all()), f"{label}: {a!r} vs {e!r}"
        return
    np.testing.assert_allclose(x, y, rtol=tol, atol=tol, equal_nan=True, err_msg=label)
    if tol == 0:
        for part_x, part_y in ((x.real, y.real), (x.imag, y.imag)) if y.dtype.kind == "c" else ((x, y),):
            numbers = ~np.isnan(part_y)
            np.testing.assert_array_equal(np.signbit(part_x)[numbers], np.signbit(part_y)[numbers],
                                          err_msg=f"{label}: the signs of zeros")


CALL = 0  # the call being made (run)
CALLS = 5  # (cp45) calls per kernel, each with other values: a plan's native entry comes at its 4th call


def expect(fn, args):
    """(args after the plain call, its return value, None) or (args, None, the exception's type)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return args, fn(*args), None
    except Exception as exc:  # noqa: BLE001
        return args, None, type(exc)


def run(name, src, make0, env, tol):
    def make(call):
        global R, CALL
        R = np.random.default_rng([zlib.crc32(name.encode()), call])  # (the same values again for a call)
        CALL = call  # (a case may pass other layouts, dtypes or overlaps from its 5th call on)
        return make0()
    fn = define(src)
    problems = []
    env = dict(env)
    # (cp43) a fuse mode for the case; (cp45) any kernel option: "_opt_level", "_vector_math", ...
    options = {"fuse": "smart", **{key[1:]: env.pop(key) for key in list(env) if key.startswith("_")}}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        for target in ("python", "cpu1", "cpu2"):
            t = "cpu" if target.startswith("cpu") else "python"
            if t == "cpu":
                threads.set_num_threads(int(target[3:]))
            try:
                k = polyfuse.kernel(fn, target=t, verify=True, cache=False, **options)
                for call in range(CALLS):
                    exp = expect(fn, make(call))
                    got_args = make(call)
                    try:
                        with np.errstate(all="ignore"), warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            got = k(*got_args)
                    except Exception as exc:  # noqa: BLE001
                        if exp[2] is not None and isinstance(exc, exp[2]) and not isinstance(
                                exc, polyfuse.UnsupportedError):
                            continue  # Python's own error
                        raise
                    if exp[2] is not None:
                        problems.append(f"{target} call {call}: python raised {exp[2].__name__}, kernel gave {got!r}")
                        break
                    for i, (x, y) in enumerate(zip(exp[0], got_args)):
                        if isinstance(x, np.ndarray):
                            same(x, y, tol, f"call {call} arg{i}")
                    same(exp[1], got, tol, f"call {call} return")
            except polyfuse.UnsupportedError as exc:
                problems.append(f"{target}: REFUSED {str(exc).splitlines()[0][:160]}")
                break
            except AssertionError as exc:
                problems.append(f"{target}: WRONG {str(exc)[:600]}")
            except Exception as exc:  # noqa: BLE001
                problems.append(f"{target}: {type(exc).__name__} {str(exc)[:300]}")
    finally:
        for k_, v in saved.items():
            os.environ.pop(k_, None) if v is None else os.environ.__setitem__(k_, v)
    return problems


if __name__ == "__main__":
    only = sys.argv[1:]
    with threads_forced():
        bad = 0
        for name, src, make, env, tol in CASES:
            if only and not any(o in name for o in only):
                continue
            probs = run(name, src, make, env, tol)
            print(("OK  " if not probs else "BAD ") + name, flush=True)
            for p in probs:
                print("    " + p, flush=True)
            bad += bool(probs)
        print("cases", len(CASES), "bad", bad)
