"""Value semantics on both targets: dtypes, Python floor // and %, math.* results, negative steps,
negative numbers, and non-contiguous array arguments -- always compared with the plain function."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import check_against_python, define

import polyfuse


def elementwise(n, A, B):
    for i in range(n):
        B[i] = A[i] * 2.5 + 1.0


DTYPES = ["float32", "float64", "int32", "int64"]


def values(dtype, shape, rng):
    if dtype.startswith("int"):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_preserved(target, dtype):
    rng = np.random.default_rng(1)
    A, B = values(dtype, 7, rng), values(dtype, 7, rng)
    k = check_against_python(elementwise, (7, A, B), target=target, rtol=1e-6)
    assert k(7, A, B) is None
    assert B.dtype == np.dtype(dtype)


def test_float32_arithmetic_stays_float32(target):
    def f(n, A, B):
        for i in range(n):
            B[i] = A[i] / 3.0 + 0.1  # float32 / Python float -> float32 (NEP 50)

    A = np.linspace(-1, 1, 9).astype(np.float32)
    B = np.zeros(9, np.float32)
    expected = B.copy()
    f(9, A, expected)
    polyfuse.kernel(f, target=target)(9, A, B)
    assert np.array_equal(B, expected)  # bit-exact: computed in float32, not float64 then rounded


def test_mixed_dtypes_promote_like_numpy(target):
    def f(n, A32, B64, I32, I64, O32, O64, OI):
        for i in range(n):
            O32[i] = A32[i] * B64[i]        # float64 result stored into float32
            O64[i] = A32[i] + I64[i]        # float32 + int64 -> float64
            OI[i] = I32[i] * 3 + I64[i]     # int32 * int -> int32, + int64 -> int64

    rng = np.random.default_rng(2)
    n = 8
    args = (n, values("float32", n, rng), values("float64", n, rng), values("int32", n, rng),
            values("int64", n, rng), np.zeros(n, np.float32), np.zeros(n), np.zeros(n, np.int64))
    check_against_python(f, args, target=target, rtol=1e-6)


def test_integer_floor_division_and_modulo(target):
    def f(n, A, Q, R, Q2, R2):
        for i in range(n):
            Q[i] = A[i] // 3
            R[i] = A[i] % 3
            Q2[i] = A[i] // -4
            R2[i] = A[i] % -4

    A = np.arange(-9, 10, dtype=np.int64)
    n = len(A)
    out = [np.zeros(n, np.int64) for _ in range(4)]
    polyfuse.kernel(f, target=target)(n, A, *out)
    assert list(out[0]) == [a // 3 for a in range(-9, 10)]
    assert list(out[1]) == [a % 3 for a in range(-9, 10)]
    assert list(out[2]) == [a // -4 for a in range(-9, 10)]
    assert list(out[3]) == [a % -4 for a in range(-9, 10)]


def test_floor_division_by_integer_argument(target):
    def f(n, d, A, Q, R):
        for i in range(n):
            Q[i] = A[i] // d
            R[i] = A[i] % d

    A = np.arange(-7, 8, dtype=np.int32)
    for d in (2, -3, 5):
        check_against_python(f, (len(A), d, A, np.zeros(len(A), np.int32), np.zeros(len(A), np.int32)),
                             target=target)


def test_affine_floor_div_mod_of_negative_loop_values(target):
    def f(n, A):
        for i in range(-n, n):
            A[i + n] = float((i // 3) * 10 + i % 3)

    A = np.zeros(14)
    polyfuse.kernel(f, target=target)(7, A)
    assert list(A) == [float((i // 3) * 10 + i % 3) for i in range(-7, 7)]


def test_float_floor_div_and_mod(target):
    def f(n, A, Q, R):
        for i in range(n):
            Q[i] = A[i] // 1.5
            R[i] = A[i] % -2.5

    A = np.array([-7.25, -3.0, -1.5, -0.1, 0.1, 1.5, 3.0, 7.25])
    check_against_python(f, (8, A, np.zeros(8), np.zeros(8)), target=target)


def test_math_floor_returns_int(target):
    def f(n, A, I, F):
        for i in range(n):
            I[i] = math.floor(A[i]) // 2          # Python int floor division
            F[i] = math.floor(A[i]) / 4 + math.ceil(A[i])

    fn = define(inspect_source(f))
    A = np.array([-3.5, -2.0, -0.5, 0.0, 0.5, 2.0, 3.5])
    check_against_python(fn, (7, A, np.zeros(7, np.int64), np.zeros(7)), target=target)


def inspect_source(fn):
    import inspect
    import textwrap

    return textwrap.dedent(inspect.getsource(fn))


def test_float_to_int_store_truncates(target):
    def f(n, A, I):
        for i in range(n):
            I[i] = A[i] * 1.0

    A = np.array([-2.7, -2.5, -0.4, 0.4, 2.5, 2.7])
    check_against_python(f, (6, A, np.zeros(6, np.int64)), target=target)


def test_math_functions(target):
    def f(n, A, B):
        for i in range(n):
            x = abs(A[i]) + 0.5
            B[i, 0] = math.sqrt(x) + math.exp(-x) + math.log(x)
            B[i, 1] = np.sin(A[i]) + np.cos(A[i]) + np.tanh(A[i])
            B[i, 2] = math.pow(x, 1.5) + np.pow(x, 0.5) + x ** 2 + A[i] ** 3
            B[i, 3] = np.floor(A[i]) + np.ceil(A[i]) + np.fabs(A[i]) + min(A[i], 0.0, x) + max(A[i], 1.0)

    fn = define(inspect_source(f))
    A = np.linspace(-3, 3, 11)
    check_against_python(fn, (11, A, np.zeros((11, 4))), target=target, rtol=1e-12)


@pytest.mark.parametrize("step", [-1, -2, -3])
def test_negative_step_loops(target, step):
    def make(step):
        return define(f"""def f(n, A, B):
    for i in range(n - 1, -1, {step}):
        B[i] = A[i] + B[i + 1] if i + 1 < n else A[i]
    for i in range(n, 0, {step}):
        A[i - 1] = A[i - 1] * 2.0 + B[i - 1]
""")

    fn = make(step)
    for n in (0, 1, 5, 8):
        check_against_python(fn, (n, np.arange(n + 1.0), np.ones(n + 1)), target=target)


def test_negative_numbers_and_scalars(target):
    def f(n, a, x, A, B):
        for i in range(n):
            B[i] = -A[i] * x + a - abs(A[i] - a) + (A[i] if A[i] < -1.0 else -x)

    check_against_python(f, (6, -3, -2.5, np.linspace(-4, 4, 6), np.zeros(6)), target=target)


def test_int_scalar_argument_used_as_value(target):
    def f(n, k, A):
        for i in range(n):
            A[i] = A[i] * k + i - n

    check_against_python(f, (5, -7, np.arange(5, dtype=np.int32)), target=target)
    check_against_python(f, (5, 3, np.arange(5.0)), target=target)


# ---- non-contiguous array arguments ----------------------------------------------------------


def transpose_add(n, m, A, B, C):
    for i in range(n):
        for j in range(m):
            C[i, j] = A[i, j] + 2.0 * B[i, j]
            A[i, j] = C[i, j] - 1.0


VIEWS = {
    "strided columns": lambda base: base[:, ::2],
    "transposed": lambda base: base.T,
    "negative stride": lambda base: base[::-1, :],
    "offset block": lambda base: base[1:, 2:],
    "fortran order": lambda base: np.asfortranarray(base),
}


@pytest.mark.parametrize("view", list(VIEWS))
def test_non_contiguous_arguments(target, view):
    rng = np.random.default_rng(3)
    make = VIEWS[view]
    bases = [rng.standard_normal((8, 10)) for _ in range(3)]
    views_expected = [make(b.copy()) for b in bases]
    views_actual = [make(b.copy()) for b in bases]
    n, m = views_actual[0].shape
    transpose_add(n, m, *views_expected)
    k = polyfuse.kernel(transpose_add, target=target, verify=True)
    k(n, m, *views_actual)
    for e, a in zip(views_expected, views_actual):
        np.testing.assert_allclose(a, e, rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_1d_views_of_every_dtype(target, dtype):
    def f(n, A, B):
        for i in range(n):
            B[i] = A[i] + A[n - 1 - i]

    rng = np.random.default_rng(4)
    base_a = values(dtype, 20, rng)
    base_b = values(dtype, 20, rng)
    expected_b = base_b.copy()
    f(5, base_a[::4], expected_b[1::3])
    actual_b = base_b.copy()
    polyfuse.kernel(f, target=target)(5, base_a[::4], actual_b[1::3])
    np.testing.assert_allclose(actual_b, expected_b, rtol=1e-6)  # untouched elements stay too


def test_contiguous_and_strided_calls_share_one_kernel(target):
    k = polyfuse.kernel(transpose_add, target=target)
    rng = np.random.default_rng(5)
    a = [rng.standard_normal((4, 6)) for _ in range(3)]
    check_against_python(transpose_add, (4, 6, *a), kernel=k)
    b = [rng.standard_normal((6, 4)).T for _ in range(3)]  # copies would be contiguous: run in place
    expected = [x.copy() for x in b]
    transpose_add(4, 6, *expected)
    k(4, 6, *b)
    for e, x in zip(expected, b):
        np.testing.assert_allclose(x, e, rtol=1e-12)
    assert len(k.signatures) == 2  # C and any-stride layouts are separate variants
