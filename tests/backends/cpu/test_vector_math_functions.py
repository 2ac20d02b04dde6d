"""Inline tanh, expm1, log1p, exp2, log2, log10, sin, cos and x**2..4 (``vector_math=True``, the
default on target="cpu"): within the ulp bounds docs/performance.md states, measured against
Python's math module (libm), special values exactly as libm, and the loops vectorize.

One kernel evaluates all eight functions (one row each), so the module compiles twice (float64 and
float32), not sixteen times."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import HAS_CPU, ulps_against_libm

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")

FUNCTIONS = ("tanh", "expm1", "log1p", "exp2", "log2", "log10", "sin", "cos")
#: the bounds docs/performance.md states: the maxima measured on 3.6 M arguments per function
#: (glibc's tanh and log10 are themselves up to 2.1 and 1.6 ulp from the exact value)
BOUNDS = {"tanh": 2, "expm1": 1, "log1p": 2, "exp2": 1, "log2": 1, "log10": 2, "sin": 1, "cos": 1}


def eight(x, out):
    for i in range(x.shape[1]):
        out[0, i] = np.tanh(x[0, i])
        out[1, i] = np.expm1(x[1, i])
        out[2, i] = np.log1p(x[2, i])
        out[3, i] = np.exp2(x[3, i])
        out[4, i] = np.log2(x[4, i])
        out[5, i] = np.log10(x[5, i])
        out[6, i] = np.sin(x[6, i])
        out[7, i] = np.cos(x[7, i])


def powers(x, out):
    for i in range(x.shape[0]):
        out[0, i] = x[i] ** 2
        out[1, i] = x[i] ** 3
        out[2, i] = x[i] ** 4


EDGES = {
    "tanh": [0.0, -0.0, 5e-324, -1e-300, 1e-9, 0.5493, 0.55, 1.0, -1.0, 19.06, 22.0, 22.1, -30.0, 1e300],
    "expm1": [0.0, -0.0, 5e-324, 1e-300, -1e-20, 0.3466, 0.6931, 1.0, -1.0, 1.04, -1.04, 36.7, -37.0,
              -45.0, -46.0, 709.78, 709.782712893384, 709.79, -800.0],
    "log1p": [0.0, -0.0, 5e-324, -1e-300, 1e-17, -0.2929, 0.4142, 1.0, -0.5, -1.0, -1.5, 1e300,
              1.7976931348623157e308, -0.9999999999999999],
    "exp2": [0.0, -0.0, 1.0, -1.0, 0.5, 1023.0, 1023.9999, 1024.0, 1100.0, -1022.0, -1074.0, -1074.5,
             -1075.0, -1075.5, -1100.0, 5e-324],
    "log2": [1.0, 2.0, 0.5, 5e-324, 1e-310, 2.2250738585072014e-308, 1.7976931348623157e308, 3.0,
             np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0), 0.0, -0.0, -1.0],
    "log10": [1.0, 10.0, 100.0, 1000.0, 1e-300, 1e300, 5e-324, 2.0, 0.1, 0.0, -0.0, -1.0],
    "sin": [0.0, -0.0, 5e-324, 1e-300, math.pi, math.pi / 2, -math.pi / 4, 1e5, 999999.0, 1e6, -1e6,
            1000001.0, 1e22, 1e300, 1.7976931348623157e308],
}
EDGES["cos"] = EDGES["sin"]
SPECIALS = [math.inf, -math.inf, math.nan]


def _arguments(name: str, rng, n: int) -> np.ndarray:
    """Random arguments over the whole finite range, the function's busy range and its edges."""
    u = rng.uniform
    wide = 10.0 ** u(-300, 300, n) * rng.choice([-1.0, 1.0], n)
    busy = {"tanh": u(-25, 25, n), "expm1": u(-50, 710, n), "log1p": u(-1, 3, n),
            "exp2": u(-1080, 1025, n), "log2": 2.0 ** u(-1074, 1024, n), "log10": 2.0 ** u(-1074, 1024, n),
            "sin": u(-2e6, 2e6, n), "cos": u(-2e6, 2e6, n)}[name]
    near = {"tanh": u(-1.2, 1.2, n), "expm1": u(-1.2, 1.2, n), "log1p": u(-1e-6, 1e-6, n),
            "exp2": u(-1, 1, n), "log2": u(0.5, 2, n), "log10": u(0.5, 2, n),
            "sin": u(-10, 10, n), "cos": u(-10, 10, n)}[name]
    if name in ("sin", "cos"):  # next to multiples of pi/2, where the reduction cancels
        near[: n // 4] = np.round(near[: n // 4] * 2 / math.pi) * (math.pi / 2) \
            + u(-1e-9, 1e-9, n // 4)
        near[n // 4: n // 2] = rng.integers(-600000, 600000, n // 4) * (math.pi / 2)
    return np.concatenate([wide, busy, near, EDGES[name], SPECIALS])


def _libm(name: str, x: np.ndarray) -> np.ndarray:
    fn = getattr(math, name)
    out = np.empty(x.shape)
    for i, v in enumerate(x.tolist()):
        try:
            out[i] = fn(v)
        except OverflowError:
            out[i] = math.inf
        except ValueError:  # math raises where libm returns NaN or -inf
            out[i] = -math.inf if v == (-1.0 if name == "log1p" else 0.0) else math.nan
    return out



def _stack(rows) -> np.ndarray:
    """One row per function, padded with 1.0."""
    x = np.ones((len(rows), max(len(r) for r in rows)))
    for k, row in enumerate(rows):
        x[k, :len(row)] = row
    return x


@pytest.fixture(scope="module")
def float64_run():
    rng = np.random.default_rng(7)
    rows = [_arguments(name, rng, 12000) for name in FUNCTIONS]
    x = _stack(rows)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        polyfuse.kernel(eight)(x, out)
    return {name: (rows[k], out[k, :len(rows[k])]) for k, name in enumerate(FUNCTIONS)}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float64_within_the_stated_bound_of_libm(float64_run, name):
    x, actual = float64_run[name]
    ulps = ulps_against_libm(actual, _libm(name, x))
    assert ulps.max() <= BOUNDS[name], (x[np.argmax(ulps)], ulps.max())


def test_float32_within_one_ulp_of_the_rounded_double():
    """float32 goes through float64: the result is libm's double, rounded (or 1 ulp off where
    the double lies next to a float32 rounding boundary)."""
    rng = np.random.default_rng(8)
    with np.errstate(over="ignore"):
        x = _stack([_arguments(name, rng, 2000) for name in FUNCTIONS]).astype(np.float32)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        polyfuse.kernel(eight)(x, out)
    for k, name in enumerate(FUNCTIONS):
        with np.errstate(all="ignore"):
            expected = _libm(name, x[k].astype(np.float64)).astype(np.float32)
        finite = np.isfinite(expected) & (expected != 0)
        np.testing.assert_array_equal(out[k][~finite], expected[~finite])
        ulps = np.abs(out[k][finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))
        assert ulps.max() <= 1, name


def _pow(v: float, n: int) -> float:
    try:
        return math.pow(v, n)
    except OverflowError:
        return math.copysign(math.inf, v) if n % 2 else math.inf


def test_small_integer_powers_within_one_ulp_of_libm_pow():
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.uniform(-10, 10, 5000), 10.0 ** rng.uniform(-120, 120, 5000),
                        [0.0, -0.0, 1e-200, -1e155, 1e200, 1.7976931348623157e308, *SPECIALS]])
    out = np.empty((3, x.size))
    with np.errstate(all="ignore"):
        polyfuse.kernel(powers)(x, out)
        for k, n in enumerate((2, 3, 4)):
            expected = np.array([_pow(v, n) for v in x.tolist()])
            assert ulps_against_libm(out[k], expected).max() <= 1, n


def test_small_integer_powers_next_to_overflow_as_libm_pow():
    """Where x*x is finite but x**3 or x**4 overflows by far, the error term of x*x times x (or
    x*x) is itself infinite, of either sign: it is dropped, so the power is +-inf with x's sign
    (x**3) or +inf (x**4), as libm's pow; next to the overflow thresholds the power is within 1 ulp."""
    rng = np.random.default_rng(10)
    edges = [t * (1.0 + d) for t in (1.7976931348623157e308 ** (1 / 3), 1.7976931348623157e308 ** 0.25)
             for d in np.linspace(-4e-15, 4e-15, 41)]
    huge = 10.0 ** rng.uniform(77.2, 154.1, 2000)  # x*x finite, x**3 or x**4 beyond DBL_MAX
    x = np.concatenate([edges, huge, -np.asarray(edges), -huge])
    out = np.empty((3, x.size))
    with np.errstate(all="ignore"):
        polyfuse.kernel(powers)(x, out)
        for k, n in enumerate((2, 3, 4)):
            expected = np.array([_pow(v, n) for v in x.tolist()])
            assert ulps_against_libm(out[k], expected).max() <= 1, n


def test_small_integer_powers_correctly_rounded_up_to_where_the_error_term_is_dropped():
    """The error term is dropped only from x*x = 2**683 (x**3) or 2**513 (x**4) on, float32 2**86
    and 2**65, where the power is infinite anyway: just below, x**3 and x**4 are the exact power
    rounded once (x*x and its error are exact), in float32 too."""
    steps = np.arange(-40, 41)
    for dtype, limits in ((np.float64, (2.0 ** 683, 2.0 ** 513)), (np.float32, (2.0 ** 86, 2.0 ** 65))):
        finfo = np.finfo(dtype)
        for k, (n, limit) in enumerate(zip((3, 4), limits)):
            centre = np.sqrt(limit)
            x = np.concatenate([centre * (1.0 + steps * float(finfo.eps)), finfo.max ** (1.0 / n) * (1.0 + steps * float(finfo.eps))])
            x = np.concatenate([x, -x]).astype(dtype)
            out = np.empty((3, x.size), dtype)
            with np.errstate(all="ignore"):
                polyfuse.kernel(powers)(x, out)
                expected = [_rounded_power(v, n, dtype) for v in x.tolist()]
            for v, got, rounded in zip(x.tolist(), out[k + 1].tolist(), expected):
                assert got == rounded or (dtype is np.float32 and abs(got - rounded) <= abs(rounded) * 2.0 ** -23), (dtype, n, v)


def _rounded_power(v: float, n: int, dtype) -> float:
    """v**n rounded once to float64 (float32: through float64, so within an ulp), inf beyond the range."""
    exact = Fraction(v) ** n
    try:
        rounded = float(dtype(float(exact))) if dtype is np.float32 else float(exact)
    except OverflowError:
        return math.copysign(math.inf, v) if n % 2 else math.inf
    return math.copysign(math.inf, rounded) if abs(rounded) > float(np.finfo(dtype).max) else rounded


def test_the_loop_vectorizes_without_libm_calls():
    x = np.ones((len(FUNCTIONS), 64))
    ir = polyfuse.kernel(eight).inspect_llvm(x, np.empty_like(x))
    assert "<8 x double>" in ir or "<4 x double>" in ir
    for name in ("llvm.tanh", "expm1", "log1p", "llvm.exp2", "llvm.log2", "llvm.log10"):
        assert f"@{name}" not in ir
    # sin and cos call libm only through the fallback's vector variant, outside the domain
    assert "@polyfuse.vm.fallback.sin.v" in ir and "@polyfuse.vm.fallback.cos.v" in ir


def test_vector_math_off_is_exactly_libm():
    x = np.tile(np.linspace(0.01, 0.99, 500), (len(FUNCTIONS), 1))
    out = np.empty_like(x)
    polyfuse.kernel(eight, vector_math=False)(x, out)
    for k, name in enumerate(FUNCTIONS):
        np.testing.assert_array_equal(out[k], _libm(name, x[k]))


def sigmoid(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 / (1.0 + np.exp(-x[i]))


@pytest.mark.parametrize("n", [5, 13, 1003])
def test_sigmoid_is_vector_exp_and_a_division(n):
    """1 / (1 + exp(-x)) needs no rule of its own: the inline exp and one division vectorize, and
    the result stays within 2 ulp of the Python function's (exp's 1 ulp, moved through 1 + e
    and the quotient), the scalar remainder of a length that is not a multiple of 16 too."""
    rng = np.random.default_rng(n)
    x = np.concatenate([rng.uniform(-40, 40, n), [0.0, -0.0, 700.0, -710.0, -746.0, 800.0, *SPECIALS]])
    out, expected = np.empty_like(x), np.empty_like(x)
    kernel = polyfuse.kernel(sigmoid)
    with np.errstate(all="ignore"):
        kernel(x, out)
        sigmoid(x, expected)
    assert ulps_against_libm(out, expected).max() <= 2
    ir = kernel.inspect_llvm(x, out)
    assert "fdiv <8 x double>" in ir or "fdiv <4 x double>" in ir
    assert "@exp(" not in ir and "@llvm.exp." not in ir
