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
    ("z[0] ** 2.5", "constant integer exponent"),
    ("z[0] ** x[0]", "constant integer exponent"),
    ("2 ** z[0]", "complex base"),
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
