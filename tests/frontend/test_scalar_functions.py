"""np.* / math.* scalar functions, casts and the integer dtypes, against the undecorated function.

Inputs include NaN, +-inf, +-0 and subnormals.  The python target must agree bitwise (it runs the
same numpy calls).  The cpu target calls libm where numpy does and LLVM instructions for the
exact operations (+ - * /, sqrt, floor, comparisons, max/min rules, casts), which are bitwise
equal; numpy's own AVX-512 loops for the transcendental functions (exp, log, sin, cos, tanh,
arcsin, ..., float32 and float64) may differ from libm in the last place, so those are checked to
within ``ULPS`` units in the last place (special values, NaN positions and signs exactly).
"""

from __future__ import annotations

import functools
import linecache
import math
from itertools import count

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

ULPS = 2
_serial = count()

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -2.2e-308, 1e-300, 0.5, -0.5, 1.0, -1.0, 2.0,
           -3.75, 0.999, 1.001, 10.0, -10.0, 100.0, 700.0, -745.0, 1e300]


def make_kernel(body: str, params: str = "A, B"):
    """A kernel from source text, registered in linecache so polyfuse can read it."""
    name = f"k{next(_serial)}"
    source = f"def {name}({params}):\n    for i in range(A.shape[0]):\n        {body}\n"
    filename = f"<scalars-{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np, "math": math}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def values(dtype) -> np.ndarray:
    rng = np.random.default_rng(0)
    mixed = np.concatenate([SPECIAL, rng.standard_normal(24) * 4, rng.uniform(-1, 1, 8)])
    with np.errstate(all="ignore"):
        return mixed.astype(dtype)


@functools.cache
def _kernel(func, target):
    """One kernel per function and target: a test that runs it again (another output compared)
    reuses the compiled variant instead of compiling the same signature again."""
    return polyfuse.kernel(func, target=target, verify=True)


def run_both(func, target, args, out_index=1):
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"):
        func(*expected)
        _kernel(func, target)(*actual)
    return expected[out_index], actual[out_index]


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ints = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(ints).astype(np.float64), b.view(ints).astype(np.float64)
    # map the sign-magnitude bit patterns onto a monotonic integer line
    ia = np.where(ia < 0, -(ia - np.iinfo(ints).min), ia)
    ib = np.where(ib < 0, -(ib - np.iinfo(ints).min), ib)
    return np.abs(ia - ib)


def assert_close(expected: np.ndarray, actual: np.ndarray, exact: bool, any_zero_sign=None) -> None:
    """``any_zero_sign`` marks results whose zero sign numpy leaves open (see below)."""
    assert actual.dtype == expected.dtype
    if any_zero_sign is not None:
        actual = np.where(any_zero_sign & (actual == 0), expected, actual)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(actual), nan)
    e, a = expected[~nan], actual[~nan]
    if exact or e.dtype.kind != "f":
        np.testing.assert_array_equal(a, e)
        if e.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(a), np.signbit(e))
        return
    special = ~np.isfinite(e) | (e == 0)
    np.testing.assert_array_equal(a[special], e[special])
    assert ulp_distance(e[~special], a[~special]).max(initial=0) <= ULPS


# functions that numpy computes with its own SIMD code on this kind of machine (not libm)
SIMD = {"exp", "log", "sin", "cos", "tan", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
        "arctanh", "sinh", "cosh", "log1p", "expm1", "log2", "log10", "exp2", "cbrt", "arctan2",
        "power", "logaddexp", "hypot"}
UNARY = ["sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "floor", "ceil", "fabs", "trunc", "rint",
         "log1p", "expm1", "log2", "log10", "exp2", "sinh", "cosh", "arcsin", "arccos", "arctan",
         "arcsinh", "arccosh", "arctanh", "cbrt", "sign", "abs", "absolute", "negative", "square",
         "reciprocal", "deg2rad", "rad2deg", "radians", "degrees", "positive"]
BINARY = ["maximum", "minimum", "fmax", "fmin", "arctan2", "hypot", "power", "copysign", "fmod",
          "logaddexp", "logaddexp2"]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", UNARY)
def test_np_unary(name, dtype, target):
    k = make_kernel(f"B[i] = np.{name}(A[i])")
    A = values(dtype)
    expected, actual = run_both(k, target, (A, np.zeros_like(A)))
    assert_close(expected, actual, exact=target == "python" or name not in SIMD)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", BINARY)
def test_np_binary_on_every_pair(name, dtype, target):
    k = make_kernel(f"C[i] = np.{name}(A[i], B[i])", "A, B, C")
    pool = values(dtype)[:24]
    A, B = (np.ascontiguousarray(g.ravel()) for g in np.meshgrid(pool, pool))
    expected, actual = run_both(k, target, (A, B, np.zeros_like(A)), out_index=2)
    # max/min of 0.0 and -0.0: numpy's scalar and array loops disagree on the sign (float32 fmax
    # gives -0.0 for scalars, 0.0 for arrays); IEEE allows either, and so does polyfuse
    zeros = (A == 0) & (B == 0) if name in ("maximum", "minimum", "fmax", "fmin") else None
    assert_close(expected, actual, exact=target == "python" or name not in SIMD, any_zero_sign=zeros)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_np_predicates_into_bool_and_float_arrays(name, target):
    k = make_kernel(f"B[i] = np.{name}(A[i])\n        C[i] = np.{name}(A[i]) + 0.5", "A, B, C")
    A = values("float64")
    expected, actual = run_both(k, target, (A, np.zeros(A.size, bool), np.zeros(A.size)))
    np.testing.assert_array_equal(actual, expected)
    expected, actual = run_both(k, target, (A, np.zeros(A.size, bool), np.zeros(A.size)), out_index=2)
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_np_where_on_scalars_evaluates_both_values(target):
    k = make_kernel("B[i] = np.where(A[i] > 0, A[i], 0.1 * A[i])")
    A = values("float32")
    expected, actual = run_both(k, target, (A, np.zeros_like(A)))
    assert_close(expected, actual, exact=True)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "sin", "tanh", "floor", "ceil", "trunc", "log1p",
                                  "expm1", "log2", "log10", "sinh", "cosh", "atan", "asinh", "erf", "erfc", "gamma", "lgamma",
                                  "tan", "cbrt", "exp2",
                                  "fabs", "degrees", "radians", "isnan", "isinf", "isfinite"])
def test_math_unary_on_its_domain(name, target):
    """math.* raises in Python outside its domain (math.log(-1)), so only valid inputs here."""
    k = make_kernel(f"B[i] = math.{name}(A[i])")
    A = np.array([0.25, 0.5, 1.5, 3.0, 7.25, 20.0, 1e-300, 5e-324])
    if name == "gamma":
        A = A[:6]  # gamma(1e-300) overflows: OverflowError in Python
    expected, actual = run_both(k, target, (A, np.zeros_like(A)))
    assert_close(expected, actual, exact=target == "python" or name in ("sqrt", "floor", "ceil", "trunc"))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("name", ["atan2", "hypot", "copysign", "fmod", "pow"])
def test_math_binary(name, target):
    k = make_kernel(f"C[i] = math.{name}(A[i], B[i])", "A, B, C")
    A = np.array([0.5, -1.5, 3.0, 0.0, -0.0, 2.0, 1e-310])
    B = np.array([2.0, 3.0, -0.5, 1.0, 2.0, 0.5, 4.0])
    expected, actual = run_both(k, target, (A, B, np.zeros_like(A)), out_index=2)
    assert_close(expected, actual, exact=target == "python" or name in ("copysign", "fmod"))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_math_floor_gives_a_python_int(target):
    """math.floor/ceil/trunc return Python ints: with an int8 array they stay int8 (weak)."""
    k = make_kernel("C[i] = B[i] + math.floor(A[i]) * 3 + math.trunc(A[i]) - math.ceil(A[i])", "A, B, C")
    A = np.array([0.5, -1.5, 30.25, -7.75, 41.0])
    B = np.array([100, -100, 120, 5, 127], np.int8)
    expected, actual = run_both(k, target, (A, B, np.zeros(5, np.int64)), out_index=2)
    np.testing.assert_array_equal(actual, expected)


CASTS = ["int", "bool", "float", "np.float32", "np.float64", "np.int8", "np.int16", "np.int32",
         "np.int64", "np.uint8", "np.uint16", "np.uint32", "np.uint64", "np.bool_"]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("cast", CASTS)
def test_casts_of_floats_truncate_toward_zero(cast, target):
    """In range a truncation; outside the integer dtype (NaN, the infinities, beyond) the value
    NumPy's cast gives on x86-64 (backends/cpu/llvm_exprs.py float_to_int), where LLVM's fptosi /
    fptoui gave poison (uint64 of NaN: 2**64 - 1 on the cpu target, 2**63 in NumPy)."""
    k = make_kernel(f"B[i] = {cast}(A[i]) + 0.25")
    A = np.array([0.0, -0.0, 0.75, -0.75, 1.5, -1.5, 100.9, -100.9, 127.0, 3.0e5 if "8" not in cast else 9.0])
    if "uint" in cast:
        A = np.abs(A)
    if cast.startswith(("np.int", "np.uint")):  # outside the dtype: NumPy's scalar cast on x86-64 (ov47)
        A = np.concatenate([A, [np.nan, np.inf, -np.inf, 300.0, -1.5, 1e19, -1e19, 5e9, -5e9, 2.0**63, 2.0**64]])
    expected, actual = run_both(k, target, (A, np.zeros_like(A)))
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("cast", [c for c in CASTS if c.startswith("np.")])
def test_casts_of_int64_wrap(cast, target):
    k = make_kernel(f"B[i] = {cast}(A[i]) * 1.0")
    A = np.array([0, -1, 127, 128, 255, 256, -129, 70000, -70000, 2**33 + 5, -(2**40)], np.int64)
    expected, actual = run_both(k, target, (A, np.zeros(A.size)))
    np.testing.assert_array_equal(actual, expected)


INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def int_values(dtype, rng_seed=0):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(rng_seed)
    picks = [info.min, info.max, 0, 1, 2, 3, 7, info.max - 1, info.min + 1]
    if info.min < 0:
        picks += [-1, -2, -3, -7]
    return np.concatenate([np.array(picks, dtype=object).astype(dtype),
                           rng.integers(info.min, info.max, 20, dtype=dtype, endpoint=True)])


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_dtypes_arithmetic_wraps_like_numpy(dtype, target):
    """Every operator in the array's own dtype (numpy wraps on overflow; // and % floor, by 0 give 0)."""
    k = make_kernel("C[i] = A[i] + B[i]\n        D[i] = A[i] * B[i] - A[i]\n"
                    "        E[i] = A[i] // B[i]\n        F[i] = A[i] % B[i]\n"
                    "        G[i] = (A[i] < B[i]) + 2 * (A[i] == B[i]) + 4 * (A[i] >= 1)\n"
                    "        H[i] = np.maximum(A[i], B[i]) - np.minimum(A[i], B[i]) + abs(A[i]) + np.sign(A[i])\n"
                    "        J[i] = A[i] / B[i] + A[i] * 0.5\n        K[i] = -A[i] + 3",
                    "A, B, C, D, E, F, G, H, J, K")
    A, B = int_values(dtype, 0), int_values(dtype, 1)[::-1].copy()
    outs = [np.zeros_like(A) for _ in range(4)] + [np.zeros(A.size, np.int64), np.zeros_like(A),
                                                  np.zeros(A.size), np.zeros_like(A)]
    for index in range(2, 10):
        expected, actual = run_both(k, target, (A, B, *outs), out_index=index)
        np.testing.assert_array_equal(actual, expected, err_msg=f"output {index}")


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_mixed_dtypes_promote_as_numpy(target):
    """int8 * uint8 -> int16, int32 + uint32 -> int64, uint64 + int64 -> float64, float32 + int16 -> float32."""
    k = make_kernel("R[i] = A[i] * B[i] + C[i] * 0\n        S[i] = (C[i] + D[i]) * 1.0\n"
                    "        T[i] = E[i] + F[i]\n        U[i] = G[i] + A[i] * A[i]",
                    "A, B, C, D, E, F, G, R, S, T, U")
    n = 6
    A = np.array([100, -100, 127, -128, 5, 0], np.int8)
    B = np.array([200, 255, 3, 7, 9, 0], np.uint8)
    C = np.array([2**31 - 1, -(2**31), 5, -1, 0, 7], np.int32)
    D = np.array([2**32 - 1, 5, 7, 0, 1, 2], np.uint32)
    E = np.array([2**63 + 1, 5, 7, 0, 1, 2], np.uint64)
    F = np.array([-5, 5, -(2**62), 0, 1, 2], np.int64)
    G = np.array([0.5, 1.5, -2.5, 1e7, 3.0, 0.0], np.float32)
    args = (A, B, C, D, E, F, G, np.zeros(n, np.int64), np.zeros(n), np.zeros(n), np.zeros(n, np.float32))
    for index in (7, 8, 9, 10):
        expected, actual = run_both(k, target, args, out_index=index)
        np.testing.assert_array_equal(actual, expected, err_msg=f"output {index}")


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_bool_arrays_in_and_out(target):
    k = make_kernel("B[i] = A[i] > 0.5 or M[i]\n        C[i] = M[i] * 2.0 + (not M[i])", "A, M, B, C")
    A = np.linspace(0, 1, 11)
    M = np.arange(11) % 3 == 0
    for index in (2, 3):
        expected, actual = run_both(k, target, (A, M, np.zeros(11, bool), np.zeros(11)), out_index=index)
        np.testing.assert_array_equal(actual, expected)


def test_float32_constants_stay_float32():
    k = make_kernel("B[i] = A[i] * np.float32(0.1) + np.float32(1e-3)")
    A = np.linspace(-1, 1, 9, dtype=np.float32)
    expected, actual = run_both(k, "cpu", (A, np.zeros_like(A)))
    assert_close(expected, actual, exact=True)


def python_division(a, b, k, y):
    for i in range(y.shape[0]):
        y[i] = a / (b - i) + a % (b - i) + 1.0 / (1.0 + math.exp(a - i))
        y[i] += (i + 3) // (k - i) + divmod(7, i - k)[1] + int(a * b) // (i + 1)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_python_float_into_a_numpy_integer_raises_where_numpy_raises(target):
    """``np.uint8(v)`` of a Python float converts through its Python int (NaN ValueError, outside
    the dtype OverflowError with NumPy's words), where a NumPy float is cast (the test above)."""
    k = make_kernel("B[i] = np.uint8(float(A[i])) + np.int32(float(A[i]) * 0.5) + 0.25")

    def outcome(fn, A):
        B = np.zeros_like(A)
        try:
            fn(A, B)
        except (OverflowError, ValueError) as error:
            return type(error), str(error).splitlines()[0]
        return B.tolist()

    for v in (7.9, 255.9, 300.0, -1.0, np.nan, np.inf, 1e19, 5e9):
        A = np.array([1.5, v])
        assert outcome(_kernel(k, target), A) == outcome(k, A), v


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_python_number_divided_by_zero_raises_as_in_python(target):
    """Two Python numbers (a float argument, a loop variable, math.exp's float): ``/`` by zero, and
    a float's ``%``, raise ZeroDivisionError with Python's message, where NumPy numbers give inf
    (frontend/scalars.py division_checked); ``1.0 + math.exp(...)`` is never 0 (no check).  So do
    two Python ints' ``//``, ``%`` and ``divmod`` (ov50; ``i + 1`` is never 0: isl, no check), and
    ``int(v)`` of a NaN (ValueError) or an infinity (OverflowError)."""
    k = polyfuse.kernel(python_division, target=target)
    for b, n in ((2.5, 9), (-1.0, 9), (3.0, 9), (2.5, 2), (math.nan, 9), (math.inf, 9)):
        got, want = np.zeros(4), np.zeros(4)
        try:
            python_division(1.0, b, n, want)
        except (ZeroDivisionError, ValueError, OverflowError) as error:
            with pytest.raises(type(error), match=f"^{error}\n") as info:
                k(1.0, b, n, got)
            line = "y[i] = a / (b - i)" if b == 3.0 else "y[i] += (i + 3) // (k - i)"
            assert line in str(info.value), (b, n)
            continue
        k(1.0, b, n, got)
        np.testing.assert_array_equal(got, want)


def mean_of_local(x, n, w):
    s = 0
    for k in range(n):
        s += x[k]  # an np.float64 once the loop runs
    return s / w


def rms_windows(x, w, out):  # (tests/corpus batch_fe43.rms_windows's loops)
    for f in range(out.shape[0]):
        s = 0
        for k in range(w):
            s += x[f + k] ** 2
        out[f] = math.sqrt(s / w)


def floor_of_local(x, n, z):
    s = 0.0
    for k in range(n):
        s += x[k]
    s //= z
    return s


def modulo_of_local(x, n, z):
    t = 0
    for k in range(n):
        t += x[k]
    return t % z


def int_local_divided(c, n, w):
    s = 0
    for k in range(n):
        s += c[k]
    return s // w + divmod(s, w)[1]


def power_of_local(x, n, a, y):
    s = 0.0
    for k in range(n):
        s += x[k]
    for i in range(y.shape[0]):
        y[i] = a ** (1.0 - i) + s ** -1.5


def running_ratio(x, z, y):
    s = 0
    for i in range(y.shape[0]):
        s += x[i]
        y[i] = s / z  # NumPy's inf for z == 0.0: s was assigned in this iteration


def complex_local_divided(x, n, z):
    """``s / z`` of ``s = 1j``, Python's complex unless an ``x[k] > 2`` made it NumPy's: Python's
    ZeroDivisionError for ``z`` 0.0, 0j and np.float64(0.0) (``complex.__truediv__`` takes a float
    subclass), NumPy's inf/nan for np.float32(0.0) or NumPy's ``s`` (cx53: NumPy's nan+infj)."""
    s = 1j
    for k in range(n):
        if x[k] > 2.0:
            s = x[k] * 1j
    return s / z


def complex_local_powered(x, n, z):
    """``s ** z`` of ``s = 0j``, as ``complex_local_divided``: Python's ZeroDivisionError for 0
    to a negative or complex power where Python's complex computes it (cx53: nan+nanj)."""
    s = 0j
    for k in range(n):
        if x[k] > 2.0:
            s = x[k] * 1j
    return s ** z


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, calls", [
    (mean_of_local, [(4, 0, 0), (4, 2, 0), (4, 0, 3), (4, 3, 2)]),
    (complex_local_divided, [(4, 0, 0.0), (4, 2, 0j), (4, 0, np.float64(0.0)), (4, 3, np.float64(0.0)),
                             (4, 0, np.float32(0.0)), (4, 0, np.float64(2.0))]),
    (complex_local_powered, [(4, 0, -1.0), (4, 0, 1j), (4, 0, np.float64(-1.0)), (4, 3, 1j),
                             (4, 3, np.float64(0.5)), (4, 0, 0.5), (4, 0, 0j)]),
    (rms_windows, [(6, 0, 3), (6, 2, 3)]),
    (floor_of_local, [(4, 0, 0.0), (4, 2, 0.0), (4, 2, -0.0), (4, 3, 1.5)]),
    (modulo_of_local, [(4, 0, 0.0), (4, 0, 0), (4, 2, 0), (4, 3, 1.5)]),
    (int_local_divided, [(4, 0, 0), (4, 3, 0), (4, 3, 2)]),
    (power_of_local, [(4, 2, 0.0, 3), (4, 0, 2.0, 2), (4, 2, 2.0, 2), (4, 2, 0.0, 1)]),
    (running_ratio, [(4, 0.0, 3), (4, 2.0, 3)]),
])
def test_a_local_that_may_hold_a_python_number_divided_by_zero(fn, calls, target):
    """``s = 0`` then ``s += x[k]`` in a loop: ``s`` is Python's int where no iteration ran, and
    Python's ``s / w``, ``//``, ``%``, divmod and ``s ** -1.5`` by 0 then raise ZeroDivisionError
    (also Python floats' ``0.0 ** -1.0``); NumPy's inf, NaN or 0 where it ran (the local's kind
    flag, frontend/scalars.py kind_checked; set in place where the loop that assigns the local
    divides it: ``running_ratio``).  It gave NaN for ``h(x, 0)`` (zd53)."""
    k = polyfuse.kernel(fn, target=target, verify=True)

    def outcome(function, size, *rest):
        data = np.arange(1.0, size + 1) if fn is not int_local_divided else np.arange(1, size + 1)
        args = [data, *rest[:-1], np.ones(rest[-1])] if fn in (rms_windows, power_of_local, running_ratio) else [data, *rest]
        try:
            with np.errstate(all="ignore"):
                value = function(*args)
        except ZeroDivisionError as error:
            return "ZeroDivisionError", str(error).splitlines()[0]
        return repr(value), type(value), [a.tolist() for a in args[-1:] if isinstance(a, np.ndarray)]

    for call in calls:
        assert outcome(k, *call) == outcome(fn, *call), call


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op", ["//", "%"])
def test_float_floordiv_and_mod_on_every_pair(op, dtype, target):
    """numpy's npy_divmod: ``inf // 1.5`` is NaN (the fmod is NaN), not ``floor(inf / 1.5)``."""
    k = make_kernel(f"C[i] = A[i] {op} B[i]", "A, B, C")
    pool = values(dtype)[:24]
    A, B = (np.ascontiguousarray(g.ravel()) for g in np.meshgrid(pool, pool))
    expected, actual = run_both(k, target, (A, B, np.zeros_like(A)), out_index=2)
    assert_close(expected, actual, exact=True)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_float32_constant_keeps_its_rounding_in_float64_arithmetic(target):
    """``np.float32(0.1)`` is 0.10000000149011612: it keeps that value where it meets float64 or
    int32 values (whose product numpy computes in float64) and where it is stored as float64."""
    k = make_kernel("B[i] = np.float32(0.1) * A[i]\n        C[i] = np.float32(1e-3)\n"
                    "        D[i] = N[i] * np.float32(16777217)", "A, N, B, C, D")
    args = (np.linspace(-3, 3, 7), np.arange(7, dtype=np.int32) - 3, np.zeros(7), np.zeros(7), np.zeros(7))
    for index in (2, 3, 4):
        expected, actual = run_both(k, target, args, out_index=index)
        np.testing.assert_array_equal(actual, expected)


# ---- what is refused --------------------------------------------------------------------------

def _error(body: str, args, exc=UnsupportedError) -> str:
    k = polyfuse.kernel(make_kernel(body), target="python")
    with pytest.raises(exc) as info:
        k(*args)
    return str(info.value)


def test_function_giving_float16_is_refused():
    message = _error("B[i] = np.sqrt(A[i])", (np.arange(4, dtype=np.int8), np.zeros(4)))
    assert "float16" in message and "np.sqrt" in message and "k" in message


def test_integer_reciprocal_is_refused():
    message = _error("B[i] = np.reciprocal(A[i])", (np.arange(4), np.zeros(4)))
    assert "1.0 / x" in message


def test_unknown_numpy_function_is_refused_with_its_name():
    message = _error("B[i] = np.frexp(A[i])", (np.ones(4), np.zeros(4)))
    assert "np.frexp" in message


def test_wrong_number_of_arguments():
    message = _error("B[i] = np.arctan2(A[i])", (np.ones(4), np.zeros(4)))
    assert "2 argument" in message


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble])
def test_unsupported_array_dtypes_name_the_dtype(dtype):
    k = polyfuse.kernel(make_kernel("B[i] = A[i]"), target="python")
    with pytest.raises(ArgumentError, match=np.dtype(dtype).name):
        k(np.ones(4, dtype), np.zeros(4))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_module_constants(target):
    k = make_kernel("B[i] = np.minimum(A[i] * np.pi, np.inf) if A[i] > -math.inf else np.nan + math.e")
    A = values("float64")
    expected, actual = run_both(k, target, (A, np.zeros_like(A)))
    assert_close(expected, actual, exact=True)


def test_module_attribute_that_is_not_a_float_constant_is_refused():
    message = _error("B[i] = np.newaxis", (np.ones(4), np.zeros(4)))
    assert "np.newaxis" in message


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_numpy_bools_add_as_or_python_bools_as_ints(target):
    """np.bool_ + np.bool_ is logical or (numpy), True + True is 2 (Python); np.bool_ + 1 is int64."""
    k = make_kernel("B[i] = (A[i] > 0) + (A[i] > 1) + 0.5\n        C[i] = M[i] * M[i] + M[i]\n"
                    "        D[i] = (i > 2) + (i > 3) + (M[i] + 1) * E[i]", "A, M, B, C, D, E")
    A = np.linspace(-1, 3, 9)
    M = np.arange(9) % 2 == 0
    E = np.full(9, 100, np.int8)
    args = (A, M, np.zeros(9), np.zeros(9, bool), np.zeros(9), E)
    for index in (2, 3, 4):
        expected, actual = run_both(k, target, args, out_index=index)
        np.testing.assert_array_equal(actual, expected)


def test_numpy_bool_subtraction_is_refused():
    message = _error("B[i] = (A[i] > 0) - (A[i] > 1)", (np.ones(4), np.zeros(4)))
    assert "numpy bools" in message


def test_cuda_renders_the_scalar_functions():
    """target="cuda" (numba's simulator here; a real GPU with POLYFUSE_TEST_GPU=1): the helpers
    for the numpy rules, small unsigned dtypes and casts.  GPU math is compared to 1e-13."""
    k = make_kernel("B[i] = np.maximum(A[i], 0.25) + np.fmin(A[i], 1.0) + np.sign(A[i]) + np.rint(A[i] * 3)"
                    " + np.trunc(A[i] * 2.5) + np.power(np.abs(A[i]), 0.5) + np.logaddexp(A[i], 1.0)"
                    " + np.cbrt(A[i]) + np.exp2(A[i]) + np.arctan2(A[i], 2.0) + math.log1p(abs(A[i])) + 1.0 / (s + 1)"
                    " + (i + 7) // (s + 2) + int(A[i] * 3)"
                    "\n        C[i] = np.uint8(D[i] * 3) + np.fmod(D[i], np.uint8(7)) + np.int8(A[i] * 10) + s"
                    "\n        E[i] = np.isfinite(A[i]) and not np.isnan(A[i])", "A, B, C, D, E, s")
    A = np.array([0.5, -1.25, 2.5, 0.0, -0.0, 3.75, -2.5, 1.5])
    D = np.arange(8, dtype=np.uint8) * 40
    # s, a Python int, meets int16: the OverflowError check (frontend.scalars.range_checked) runs
    # on the device, which records it in an error cell the host reads (backends/cuda/exprs._Check)
    args = (A, np.zeros(8), np.zeros(8, np.uint8), D, np.zeros(8, bool), 3)
    for index in (1, 2, 4):
        expected, actual = run_both(k, "cuda", args, out_index=index)
        assert actual.dtype == expected.dtype
        np.testing.assert_allclose(actual, expected, rtol=1e-13)
    with pytest.raises(OverflowError, match="Python integer 40000 out of bounds for int16"):
        _kernel(k, "cuda")(*args[:5], 40000)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):  # two Python numbers (ov47)
        _kernel(k, "cuda")(*args[:5], -1)
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):  # two Python ints (ov50)
        _kernel(k, "cuda")(*args[:5], -2)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("scalar", [0.1, np.float32(0.1), np.float64(0.1), 3, np.int8(3), np.int64(3), np.uint16(3)])
def test_numpy_scalar_arguments_keep_their_dtype(scalar, target):
    """np.float64(0.1) * float32 is float64 but 0.1 * float32 is float32 (NEP 50); the same for ints."""
    k = make_kernel("B[i] = A[i] * s + A[i]\n        C[i] = D[i] * s * 100", "A, s, B, C, D")
    A = np.linspace(-1, 1, 7, dtype=np.float32)
    D = np.arange(7, dtype=np.int8) * 3 - 9
    args = (A, scalar, np.zeros(7), np.zeros(7), D)
    expected, actual = [list(args), list(args)]
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"):
        k(*expected)
        polyfuse.kernel(k, target=target)(*actual)
    for index in (2, 3):
        np.testing.assert_array_equal(actual[index], expected[index])


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_])
def test_bool_arguments_are_typed_as_numpy_types_them(flag, target):
    """A Python bool is weak (``True + True`` is 2, ``float32 * True`` float32); a numpy bool is
    strong (``b[i] + np.True_`` is an or, ``np.True_ + 1`` an int64); both as conditions."""
    body = ("B[i] = A[i] * f + (f + f) + (not f) * 10.0 + (A[i] if f else -A[i])"
            "\n        C[i] = b[i] + f"
            "\n        D[i] = (f + 1) * 100 + f * i")
    k = make_kernel(body, "A, b, f, B, C, D")
    A = np.linspace(-1, 1, 6, dtype=np.float32)
    b = np.array([True, False, True, False, False, True])
    for index in (3, 4, 5):
        args = (A, b, flag, np.zeros(6, np.float32), np.zeros(6, np.int64), np.zeros(6))
        expected, actual = run_both_scalars(k, target, args, index)
        np.testing.assert_array_equal(actual, expected)


def test_bool_arguments_do_not_index_or_meet_numpy_bools_where_numpy_refuses():
    for body, words in [("B[i] = A[f]", "'f' is a bool value; only integers"),  # x[True]: a new axis
                        ("B[i] = (A[i] > 0) - f", "operator '-'")]:  # numpy's boolean subtract: a TypeError
        with pytest.raises(UnsupportedError, match=words):
            polyfuse.kernel(make_kernel(body, "A, B, f"), target="python")(np.ones(4), np.zeros(4), np.True_)


def test_unsupported_numpy_scalar_argument():
    k = polyfuse.kernel(make_kernel("B[i] = A[i] * s", "A, s, B"), target="python")
    with pytest.raises(ArgumentError, match="float16"):
        k(np.ones(3), np.float16(1), np.zeros(3))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", ["uint8", "uint64"])  # uint64: no integer dtype holds -5 and 2**64 - 1
def test_small_ints_compare_with_python_ints_by_value(target, dtype):
    k = make_kernel("B[i] = (A[i] < n) + 2 * (A[i] > -1) + 4 * (A[i] == 300) + 8 * (A[i] >= m) + 16 * (m < A[i])",
                    "A, n, m, B")
    A = np.array([0, 1, 44, 200, 255], dtype)
    expected, actual = run_both_scalars(k, target, (A, 300, -5, np.zeros(5, np.int64)), 3)
    np.testing.assert_array_equal(actual, expected)


def _add_python_int(A, s):
    return A + s


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "int8"])
def test_python_int_outside_the_dtype_raises_overflow(dtype, target):
    """NumPy 2 raises OverflowError where a Python int that is not a constant (an argument, the
    array form; a local computed from one, the loop form) does not fit the integer dtype it meets;
    values just inside the range compute as NumPy does."""
    info = np.iinfo(dtype)
    A = np.array([0, 1, 2, 100], dtype)
    array = polyfuse.kernel(_add_python_int, target=target)
    # min() compares by value and returns A[i] where s * s * 4 + 1 is beyond int32 (it wrapped)
    loop = make_kernel("C[i] = min(A[i], s * s * 4 + 1)\n        k = s * 2\n        B[i] = A[i] + k", "A, s, B, C")
    with np.errstate(over="ignore"):
        for s in (int(info.max), int(info.min)):
            np.testing.assert_array_equal(array(A, s), A + s)
            for index in (2, 3):
                expected, actual = run_both_scalars(loop, target, (A, s // 2, np.zeros(4, dtype), A * 0), index)
                np.testing.assert_array_equal(actual, expected)
    for s in (int(info.max) + 1, int(info.min) - 1):
        with pytest.raises(OverflowError):
            array(A, s)
        with pytest.raises(OverflowError):  # s // 2 fits, k = s // 2 * 2 does not
            polyfuse.kernel(loop, target=target)(A, s // 2 + (s > 0), np.zeros(4, dtype), A * 0)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_loop_variables_and_sizes_meeting_a_small_dtype_are_checked(target):
    """A loop variable or a size is a Python int too: ``A_int8[i] + i`` raises NumPy's OverflowError
    from ``i = 128`` (cpu wrapped before); the error names the value and the source line."""
    k = make_kernel("B[i] = A[i] + i + A.shape[0] * 0", "A, B")
    A = np.ones(128, np.int8)
    expected, actual = run_both(k, target, (A, np.zeros(128, np.int8)))
    np.testing.assert_array_equal(actual, expected)
    with pytest.raises(OverflowError) as info:
        _kernel(k, target)(np.ones(129, np.int8), np.zeros(129, np.int8))
    first, *rest = str(info.value).splitlines()
    assert first == "Python integer 128 out of bounds for int8" and "B[i] = A[i] + i" in "\n".join(rest)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_python_ints_that_max_and_min_pick_are_checked_where_they_meet_the_dtype(target):
    """max()/min() of an int8 element and a Python int give the Python int where it wins, which
    raises where it then meets int8 (m + 1 stored; min(x, s) * 2): both targets wrapped."""
    k = make_kernel("m = max(A[i], i)\n        B[i] = m + 1\n        C[i] = min(A[i], s) * 2", "A, B, C, s")
    A = np.ones(200, np.int8)
    for n, s, raises in ((120, 5, False), (120, -200, True), (200, 5, True)):
        args = (A[:n], np.zeros(n, np.int8), np.zeros(n, np.int8), s)
        if raises:
            with pytest.raises(OverflowError):
                _kernel(k, target)(*args)
            continue
        for index in (1, 2):
            expected, actual = run_both_scalars(k, target, args, index)
            np.testing.assert_array_equal(actual, expected)


def _python_ints_where_and_select(x, y, s):
    return np.where(x > 1, y, s), np.where(x > 1, y, 256), np.where(x > 1, y, -1), np.select([x > 1], [y], s)


def _python_ints_maximum_and_mask(x, y, s):
    z = np.maximum(y, s)
    y[x > 2] = s
    return z


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_python_ints_in_array_calls_as_numpy_2(target):
    """np.where and np.select's default wrap a Python int into a narrower integer dtype (NumPy
    casts its int64 array: the python target raised); np.maximum and a mask store of one that
    does not fit raise OverflowError (cpu wrapped)."""
    x, y = np.arange(6), np.arange(6, dtype=np.uint8)
    where = polyfuse.kernel(_python_ints_where_and_select, target=target)
    for s in (300, -1, 7):
        for got, want in zip(where(x, y, s), _python_ints_where_and_select(x, y, s)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    mask = polyfuse.kernel(_python_ints_maximum_and_mask, target=target)
    np.testing.assert_array_equal(mask(x, y.copy(), 3), np.maximum(y, 3))
    for s in (256, -1):
        with pytest.raises(OverflowError, match=f"Python integer {s} out of bounds for uint8"):
            mask(x, y.copy(), s)


def run_both_scalars(func, target, args, index):
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    func(*expected)
    polyfuse.kernel(func, target=target)(*actual)
    return expected[index], actual[index]


@pytest.mark.parametrize("body, value", [("B[i] = A[i] + 300", 300), ("B[i] = A[i] - -1", -1),
                                         ("A[i] = 1000", 1000), ("A[i] = -1", -1),
                                         ("B[i] = np.fmax(A[i], -3)", -3), ("B[i] = np.fmin(A[i], 300)", 300)])
def test_out_of_range_int_literal_is_refused(body, value):
    args = (np.ones(4, np.uint8), np.zeros(4))
    with pytest.raises(OverflowError):  # what numpy does with them
        make_kernel(body)(*args)
    message = _error(body, args)
    assert f"Python integer {value} is out of bounds for uint8" in message and "OverflowError" in message


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_casts_of_constants_compute_in_the_cast_dtype(target):
    k = make_kernel("B[i] = np.uint8(200) + 100 + A[i] * 0\n        C[i] = np.float32(0.1) * 3.0 + np.int8(-3.7)",
                    "A, B, C")
    args = (np.ones(3), np.zeros(3), np.zeros(3))
    for index in (1, 2):
        expected, actual = run_both(k, target, args, out_index=index)
        np.testing.assert_array_equal(actual, expected)


def test_cast_of_an_out_of_range_literal_is_refused():
    message = _error("B[i] = np.uint8(300) + A[i]", (np.ones(4), np.zeros(4)))
    assert "300 is out of bounds for uint8" in message


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_small_dtype_local_arrays(target):
    source = ("def k_local(A, B):\n    T = np.zeros(A.shape[0], dtype=np.uint8)\n    M = np.empty(A.shape[0], dtype=np.bool)\n"
              "    for i in range(A.shape[0]):\n        T[i] = A[i] * 3\n        M[i] = A[i] > 100\n"
              "    for i in range(A.shape[0]):\n        B[i] = T[i] + M[i]\n")
    filename = "<scalars-k_local>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    A = np.array([0, 50, 90, 101, 255], np.uint8)
    expected, actual = run_both(namespace["k_local"], target, (A, np.zeros(5, np.int16)))
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("sign", ["-", "+"])
def test_negating_a_numpy_bool_is_refused(sign):
    """NumPy has no negative or positive loop of bools: ``+np.True_`` raises too."""
    message = _error(f"B[i] = {sign}(A[i] > 0)", (np.ones(4), np.zeros(4)))
    assert "numpy bool" in message and f"{sign}(A[i] > 0)" in message


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_unary_plus_of_a_python_bool_is_an_int(target):
    """Python's ``+True`` is the int 1, as ``-True`` is -1 (not the bool itself)."""
    def k(A):
        t = A.shape[0] > 1
        return +t, -t, +(A.shape[0] > 5)

    got = polyfuse.kernel(k, target=target)(np.ones(4))
    assert got == k(np.ones(4)) and [type(x) for x in got] == [int, int, int]
