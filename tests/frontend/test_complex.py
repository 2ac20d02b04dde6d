"""complex64/complex128 in kernels: NEP 50 typing against the undecorated function, and the
located refusals of what Python, numpy or numba do not define (or polyfuse does not compute)."""

from __future__ import annotations

import cmath
import linecache
import math
import re
from itertools import count

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

_serial = count()


def make_kernel(body: str, params: str = "z, w, x"):
    """``def k(params): return <body>`` read from a registered fake file."""
    name = f"c{next(_serial)}"
    source = f"def {name}({params}):\n    return {body}\n"
    filename = f"<complex-{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np, "math": math, "cmath": cmath}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def _args():
    z64 = np.array([1.5 - 2j, -0.25 + 0.5j], np.complex64)
    w128 = np.array([0.5 + 1j, 3 - 4j], np.complex128)
    x32 = np.array([2.5, -1.0], np.float32)
    return z64, w128, x32


# each expression is typed as numpy 2 types it: complex64 with a Python float stays complex64,
# with a float64 value it widens, a Python complex is weak, .real of complex64 is float32 ...
TYPED = [
    "z[0] * 0.5", "z[0] + w[1]", "z[0] * x[1]", "z[0] + 1j", "w[1] / z[0]", "x[0] * 1j", "x[0] + 2j * 3.0",
    "z[0].real", "z[0].imag * 2", "w[1].conjugate()", "z[0].conj()", "abs(z[0])", "np.abs(w[1])", "np.angle(z[0])",
    "np.real(w[1]) + np.imag(z[0])", "np.conj(z[0])", "np.exp(z[0])", "np.sqrt(w[1])", "np.log(z[0] * 2)",
    "cmath.exp(z[0])", "cmath.sqrt(x[0])", "cmath.phase(w[1])", "complex(x[0], x[1])", "complex(x[0])",
    "np.complex64(w[1])", "np.complex128(x[0])", "z[0] ** 3", "w[1] ** -2", "-z[0]", "1 if z[0] == z[1] else 0",
    "1 if w[0] != 0.5 + 1j else 2", "1 if z[0] else 0", "np.int8(bool(z[0]))", "1j * 1j", "(z[0] if x[0] > 0 else z[1] * 2)", "np.square(z[1])",
    "x[0].real", "x[0].imag",
]


@pytest.mark.parametrize("body", TYPED)
def test_types_and_values_match_the_undecorated_function(body):
    fn = make_kernel(body)
    expected = fn(*_args())
    actual = polyfuse.kernel(fn, target="python")(*_args())
    assert type(actual) is type(expected), body
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


POWERS = [
    "z[0] ** 2.5", "w[1] ** x[0]", "2 ** z[0]", "x[0] ** w[1]", "z[0] ** w[1]", "np.power(w[1], 0.3)",
    "np.power(z[1], x[1])", "w[1] ** 0", "complex(x[0], x[1]) ** 2.5", "(1.5 + 2j) ** (0.5 + 1j)",
    "(w[1] * 0) ** (0.5 - 1j)", "(w[1] * 0) ** -1.5", "(z[0] * 0) ** 0.0",
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("body", POWERS)
def test_complex_powers_of_any_exponent(body, target):
    """numpy's npy_cpow (cexp(b * clog(a)) past its special cases), CPython's polar form for two
    Python numbers (frontend/complex_power.py): the type, and the value to a few ulp."""
    fn = make_kernel(body)
    with np.errstate(all="ignore"):
        expected = fn(*_args())
        actual = polyfuse.kernel(fn, target=target)(*_args())
    assert type(actual) is type(expected), body
    np.testing.assert_allclose(actual, expected, rtol=2e-6 if np.asarray(expected).dtype == np.complex64 else 1e-14)


def test_complex_scalar_arguments_keep_their_kind():
    fn = make_kernel("a * z[0] + b", "a, b, z")
    z = np.array([1 + 1j], np.complex64)
    for a, b in ((2 - 1j, 0.5), (np.complex64(1j), 1j), (2.0, np.complex128(3j))):
        expected, actual = fn(a, b, z), polyfuse.kernel(fn, target="python")(a, b, z)
        assert type(actual) is type(expected) and actual == expected


def test_complex_locals_widen_like_numba():
    src = "def k(z):\n    s = 0.0\n    for i in range(z.shape[0]):\n        s += z[i]\n    return s\n"
    linecache.cache["<complex-widen>"] = (len(src), None, src.splitlines(True), "<complex-widen>")
    ns: dict = {}
    exec(compile(src, "<complex-widen>", "exec"), ns)
    z = np.array([1 + 2j, 3 - 1j])
    assert polyfuse.kernel(ns["k"], target="python")(z) == ns["k"](z)


REFUSED = [
    ("z[0] < w[0]", "ordering comparison of complex"),
    ("z[0] // 2", "operator '//' of complex"),
    ("z[0] % 2", "operator '%' of complex"),
    ("float(z[0])", "of a complex value"),
    ("np.float64(w[0])", "of a complex value"),
    ("np.sin(z[0])", "not supported for complex values"),
    ("np.isnan(z[0])", "not supported for complex values"),
    ("math.sqrt(z[0])", "use cmath or np functions"),
    ("max(z[0], w[0])", "max() of complex values"),
    ("complex(z[0], 1.0)", "write re + im * 1j"),
]


@pytest.mark.parametrize("body, message", REFUSED)
def test_unsupported_complex_operations_are_refused_with_their_line(body, message):
    fn = make_kernel(body)
    with pytest.raises(UnsupportedError, match=rf"<complex-c\d+>:2:.*{re.escape(message)}"):
        polyfuse.kernel(fn, target="python")(*_args())


def test_storing_complex_into_a_real_array_is_refused():
    src = "def k(z, out):\n    for i in range(z.shape[0]):\n        out[i] = z[i]\n"
    linecache.cache["<complex-store>"] = (len(src), None, src.splitlines(True), "<complex-store>")
    ns: dict = {}
    exec(compile(src, "<complex-store>", "exec"), ns)
    with pytest.raises(UnsupportedError, match=r"<complex-store>:3:.*complex value into 'out' of dtype float64"):
        polyfuse.kernel(ns["k"])(np.ones(2, np.complex128), np.zeros(2))


def test_complex256_arrays_are_refused_by_the_signature():
    fn = make_kernel("z[0]", "z")
    if not hasattr(np, "clongdouble") or np.dtype(np.clongdouble).itemsize == 16:
        pytest.skip("no extended-precision complex here")
    with pytest.raises(ArgumentError, match="supported array dtypes are .*complex128"):
        polyfuse.kernel(fn)(np.ones(2, np.clongdouble))


# ---- magnitudes: an array's as NumPy's array loop computes it, a scalar's as hypot ------------
def _magnitudes(dtype, n: int = 20_000) -> np.ndarray:
    """Random complex values over the whole exponent range, with the special values first."""
    rng = np.random.default_rng(7)
    span = 300 if dtype == np.complex128 else 35
    z = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 10.0 ** rng.uniform(-span, span, n)).astype(dtype)
    inf, nan = math.inf, math.nan
    specials = [0, -0.0 - 0.0j, complex(inf, 0), complex(-inf, 1), complex(nan, 0), complex(inf, nan),
                complex(nan, -inf), complex(1, nan), complex(5e-324, 5e-324), complex(1e308, 1e308), 3 + 4j]
    with np.errstate(over="ignore"):
        z[:len(specials)] = np.array(specials, np.complex128).astype(dtype)
    return z


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint64 if a.dtype == np.float64 else np.uint32)


@pytest.mark.parametrize("target", ["cpu", "python"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("body", ["np.abs(z)", "abs(z)", "np.absolute(z[::2])", "np.abs(z) < 2.0"])
def test_the_magnitude_of_a_complex_array_is_numpys_bit_for_bit(body, dtype, target):
    """NumPy's array loop is ``larger * sqrt(fma(r, r, 1))`` on SIMD machines, where libm's hypot
    (a scalar's abs) differs in the last bit for about a third of these values."""
    z = _magnitudes(dtype, 20_000 if target == "cpu" else 2_000)
    fn = make_kernel(body, "z")
    expected = fn(z)
    got = polyfuse.kernel(fn, target=target)(z)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype == np.bool_:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_array_equal(_bits(got), _bits(expected))


def test_the_magnitude_of_a_complex_element_in_a_loop_is_pythons_hypot():
    linecache.cache["<complex-loop-abs>"] = (0, None, [
        "def loop_abs(z, out):\n", "    for i in range(z.shape[0]):\n", "        out[i] = abs(z[i])\n"],
        "<complex-loop-abs>")
    namespace: dict = {}
    exec(compile("".join(linecache.cache["<complex-loop-abs>"][2]), "<complex-loop-abs>", "exec"), namespace)
    z = _magnitudes(np.complex128, 5_000)
    expected, got = np.empty(z.shape), np.empty(z.shape)
    namespace["loop_abs"](z, expected)
    polyfuse.kernel(namespace["loop_abs"])(z, got)
    np.testing.assert_array_equal(_bits(got), _bits(expected))
    assert all(got[k] == math.hypot(z[k].real, z[k].imag) or math.isnan(got[k]) for k in range(0, 5_000, 97))
