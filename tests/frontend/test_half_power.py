"""``x ** 0.5`` as NumPy computes it: an array to one float exponent takes NumPy's power loop,
whose exponent 0.5 is sqrt (``(-0.0) -> -0.0``, ``-inf -> nan``), exactly; an element in a
parallel loop is C's pow (``-0.0 -> 0.0``, ``-inf -> inf``), through sqrt there
(backends/cpu/llvm_exprs.py: ``half_power``), within 1 ulp of libm's pow, which is not always
correctly rounded."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse

SPECIAL = [-0.0, 0.0, np.inf, -np.inf, np.nan, -1.0, 1e-310, 4.0, 2.0, 0.25]
X = np.concatenate([SPECIAL, np.random.default_rng(3).random(500) * 100])


def array_half(x):
    return x ** 0.5


def array_power(x, p):
    return x ** p + np.power(x, 0.5)


def loop_half(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** 0.5


def _same_bits(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)
    number = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(actual[number]), np.signbit(expected[number]))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_array_to_the_half_is_numpys_sqrt(target, dtype):
    x = X.astype(dtype)
    with np.errstate(all="ignore"):
        _same_bits(polyfuse.kernel(array_half, target=target)(x), array_half(x))
        # the exponent known only at run time: 0.5 still takes sqrt (other exponents: the vector
        # pow, within an ulp or so of libm's, is another matter)
        _same_bits(polyfuse.kernel(array_power, target=target)(x, 0.5), array_power(x, 0.5))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_element_to_the_half_in_a_parallel_loop_is_cs_pow(dtype):
    x = X.astype(dtype)
    expected, actual = np.zeros_like(x), np.zeros_like(x)
    with np.errstate(all="ignore"):
        loop_half(x, expected)
        polyfuse.kernel(loop_half, target="cpu")(x, actual)
    special = slice(0, len(SPECIAL))
    _same_bits(actual[special], expected[special])  # -0.0 -> 0.0, -inf -> inf as pow, not sqrt
    ulps = np.abs(actual[special.stop:].view(f"i{x.itemsize}") - expected[special.stop:].view(f"i{x.itemsize}"))
    assert ulps.max() <= 1
