"""Complex arithmetic in the LLVM backend against numpy, on random and special values.

``* / **`` (integer exponents), ``abs``, ``np.exp`` and ``np.sqrt`` agree with numpy bitwise
(numpy's division loop is Smith's algorithm; exp/sqrt are glibc's cexp/csqrt, which numpy calls,
and so are our formulas); ``np.log`` is within ``LOG_ULPS`` units in the last place of ``|log z|``
(glibc's clog uses log1p near |z| = 1) and exact on the special values.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import polyfuse

LOG_ULPS = 4
PARTS = [0.0, -0.0, 1.0, -2.5, 1e-310, 3e-160, 7e160, 1e300, -1e300, np.inf, -np.inf, np.nan]


def special(dtype) -> np.ndarray:
    values = np.array([complex(a, b) for a, b in itertools.product(PARTS, PARTS)])
    rng = np.random.default_rng(0)
    scale = np.exp(rng.uniform(-6, 6, 200))
    randoms = rng.standard_normal(200) * scale + 1j * rng.standard_normal(200) * scale[::-1]
    with np.errstate(all="ignore"):
        return np.concatenate([values, randoms]).astype(dtype)


def arithmetic(x, y, out):
    for i in range(x.shape[0]):
        out[0, i] = x[i] / y[i]
        out[1, i] = x[i] * y[i]
        out[2, i] = x[i] - y[i]
        out[3, i] = x[i] ** 5
        out[4, i] = x[i] ** -3
        out[5, i] = x[i] ** 2
        out[6, i] = abs(x[i])
        out[7, i] = np.exp(x[i])
        out[8, i] = np.sqrt(x[i])
        out[9, i] = np.log(x[i])


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    def equal(p, q):
        return (p == q) & (np.signbit(p) == np.signbit(q)) | (np.isnan(p) & np.isnan(q))
    return equal(a.real, b.real) & equal(a.imag, b.imag)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_arithmetic_and_functions_match_numpy_on_special_values(dtype):
    z = special(dtype)
    x, y = np.repeat(z, 7)[: 3 * len(z)], np.tile(z, 3)
    expected, actual = np.zeros((10, len(x)), dtype), np.zeros((10, len(x)), dtype)
    with np.errstate(all="ignore"):
        arithmetic(x, y, expected)
        polyfuse.kernel(arithmetic, target="cpu")(x, y, actual)
    for row in range(9):
        bad = ~same_bits(actual[row], expected[row])
        assert not bad.any(), (row, x[bad][:4], y[bad][:4], actual[row][bad][:4], expected[row][bad][:4])
    log, want = actual[9], expected[9]
    finite = np.isfinite(want)
    assert same_bits(log[~finite], want[~finite]).all()
    eps = np.finfo(np.zeros((), dtype).real.dtype).eps
    log, want = log[finite], want[finite]
    error = np.maximum(abs(log.real - want.real), abs(log.imag - want.imag))
    assert (error <= LOG_ULPS * eps * abs(want)).all()


def test_complex_scalar_argument_passes_both_parts():
    def scale(a, x, out):
        for i in range(x.shape[0]):
            out[i] = a * x[i] + a.imag

    x = np.array([1 + 2j, -3 + 0.5j])
    out = np.zeros(2, np.complex128)
    polyfuse.kernel(scale, target="cpu")(0.5 - 4j, x, out)
    np.testing.assert_array_equal(out, (0.5 - 4j) * x - 4.0)


def test_complex_reduction_returns_the_numpy_scalar():
    def total(z):
        s = np.complex64(0)
        for i in range(z.shape[0]):
            s += z[i] * z[i].conjugate()
        return s

    z = np.array([1 + 1j, 2 - 1j, 0.5j], np.complex64)
    result = polyfuse.kernel(total, target="cpu")(z)
    assert type(result) is np.complex64 and result == total(z)


def test_fastmath_leaves_complex_arithmetic_exact():
    def ratio(x, y, out):
        for i in range(x.shape[0]):
            out[i] = x[i] / y[i] + np.exp(x[i])

    z = special(np.complex128)[:144]
    expected, actual = np.zeros_like(z), np.zeros_like(z)
    with np.errstate(all="ignore"):
        ratio(z, z[::-1].copy(), expected)
        polyfuse.kernel(ratio, target="cpu", fastmath=True)(z, z[::-1].copy(), actual)
    assert same_bits(actual, expected).all()
