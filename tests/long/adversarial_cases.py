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


def same(e, a, tol, label):
    if isinstance(e, tuple):
        assert isinstance(a, tuple) and len(a) == len(e), f"{label}: {a!r} vs {e!r}"
        for k, (x, y) in enumerate(zip(e, a)):
            same(x, y, tol, f"{label}[{k}]")
        return
    if isinstance(e, np.ndarray):
        assert isinstance(a, np.ndarray) and a.dtype == e.dtype and a.shape == e.shape, \
            f"{label}: {getattr(a, 'dtype', type(a))}{getattr(a, 'shape', '')} vs {e.dtype}{e.shape}"
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol, equal_nan=True, err_msg=label)
        return
    assert type(a) is type(e) or (isinstance(e, (bool, np.bool_)) and isinstance(a, (bool, np.bool_))), \
        f"{label}: type {type(a).__name__} vs {type(e).__name__} ({a!r} vs {e!r})"
    np.testing.assert_allclose(np.asarray(a, complex), np.asarray(e, complex), rtol=tol, atol=tol,
                               equal_nan=True, err_msg=label)


def run(name, src, make0, env, tol):
    def make():
        global R
        R = np.random.default_rng(zlib.crc32(name.encode()))
        return make0()
    fn = define(src)
    problems = []
    env = dict(env)
    fuse = env.pop("_fuse", "smart")  # (cp43) a fuse mode for the case
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        args = make()
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = fn(*args)
            exp = (args, expected, None)
        except Exception as exc:  # noqa: BLE001
            exp = (args, None, type(exc))
        for target in ("python", "cpu1", "cpu2"):
            t = "cpu" if target.startswith("cpu") else "python"
            if t == "cpu":
                threads.set_num_threads(int(target[3:]))
            try:
                k = polyfuse.kernel(fn, target=t, verify=True, cache=False, fuse=fuse)
                for call in (1, 2):
                    got_args = make()
                    with np.errstate(all="ignore"), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        got = k(*got_args)
                    if exp[2] is not None:
                        problems.append(f"{target}: python raised {exp[2].__name__}, kernel gave {got!r}")
                        break
                    for i, (x, y) in enumerate(zip(exp[0], got_args)):
                        if isinstance(x, np.ndarray):
                            same(x, y, tol, f"arg{i}")
                    same(exp[1], got, tol, "return")
            except polyfuse.UnsupportedError as exc:
                problems.append(f"{target}: REFUSED {str(exc).splitlines()[0][:160]}")
                break
            except AssertionError as exc:
                problems.append(f"{target}: WRONG {str(exc)[:600]}")
            except Exception as exc:  # noqa: BLE001
                if exp[2] is not None and isinstance(exc, exp[2]):
                    continue
                problems.append(f"{target}: {type(exc).__name__} {str(exc)[:300]} (python: {exp[2]})")
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
