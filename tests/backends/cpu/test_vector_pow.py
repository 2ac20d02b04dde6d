"""Inline ``x ** y`` / ``np.power`` / ``math.pow`` of two floats (``vector_math=True``): x**y as
exp(y log x) with log x in two parts for 0 < x < inf and finite y, libm's pow for the other lanes
(C99's special values, negative x) through the vectorizable fallback.  Within 1 ulp of libm
(numpy's scalar ``**`` is libm's pow), special values exactly libm's, in the vector body and in
the scalar remainder, against the undecorated function."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conftest import HAS_CPU, ulps_against_libm
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")

BOUND = 1  # docs/performance.md: the maximum measured vs libm on 14 M pairs
#: np.power of numpy scalars runs numpy's own SIMD loop (within 1 ulp of libm, as ours): 2 apart
ROW_BOUNDS = (BOUND, BOUND + 1, BOUND)


def powers(x, y, out):
    for i in range(x.shape[0]):
        out[0, i] = x[i] ** y[i]
        out[1, i] = np.power(x[i], y[i])
        out[2, i] = math.pow(abs(x[i]) + 1.0, y[i])


@pytest.fixture(scope="module")
def compiled():
    return polyfuse.kernel(powers)



def _python(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The undecorated function; math.pow raises where libm returns inf or NaN."""
    out = np.empty((3, x.size))
    with np.errstate(all="ignore"):
        for i in range(x.size):
            out[0, i] = x[i] ** y[i]
            out[1, i] = np.power(x[i], y[i])
            try:
                out[2, i] = math.pow(abs(x[i]) + 1.0, y[i])
            except OverflowError:
                out[2, i] = math.inf
    return out


def _check(kernel, x, y) -> bool:
    """Each row within its bound of the undecorated function (special values exactly)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    out = np.full((3, x.size), np.nan)
    with np.errstate(all="ignore"):
        kernel(x, y, out)
    expected = _python(x, y)
    return all(ulps_against_libm(out[k], expected[k]).max(initial=0.0) <= ROW_BOUNDS[k] for k in range(3))


SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5, 1e300, -1e300, 5e-324,
           -5e-324, 1e-310, math.inf, -math.inf, math.nan, 0.9999999999999999, 1.0000000000000002,
           1e16, 9007199254740993.0, -9007199254740991.0]
GRID_X, GRID_Y = (list(v) for v in zip(*itertools.product(SPECIAL, SPECIAL)))


def test_every_pair_of_special_values_as_libm(compiled):
    assert _check(compiled, GRID_X, GRID_Y)


def test_ranges_within_one_ulp(compiled):
    rng = np.random.default_rng(15)
    n = 3000
    log_x = rng.uniform(-1074, 1024, n) * math.log(2)  # x over the whole range, y so that x**y
    wide_y = np.where(log_x != 0, rng.uniform(-745, 709, n) / log_x, 1.0)  # spans it too
    near_one = 1 + rng.uniform(-1e-6, 1e-6, n)
    x = np.concatenate([rng.uniform(0, 10, n), np.exp(log_x), near_one, -rng.uniform(0, 20, n),
                        -rng.uniform(0, 20, n), 10.0 ** rng.uniform(-323.5, -308, n)])
    y = np.concatenate([rng.uniform(-20, 20, n), wide_y, rng.uniform(-7e8, 7e8, n),
                        np.round(rng.uniform(-50, 50, n)), rng.uniform(-5, 5, n), rng.uniform(-1.2, 1.2, n)])
    assert _check(compiled, x, y)


def test_results_next_to_overflow_and_underflow(compiled):
    rng = np.random.default_rng(16)
    x = rng.uniform(1.5, 3, 4000)
    edge = np.where(rng.random(4000) < 0.5, 709.78, -745.1)
    assert _check(compiled, x, edge / np.log(x) * (1 + rng.uniform(-1e-12, 1e-12, 4000)))


@pytest.mark.parametrize("n", [1, 3, 7, 9, 15, 17, 31, 33])
def test_every_row_count_vector_body_and_remainder(compiled, n):
    start = 37 * n % len(GRID_X)
    x, y = np.resize(np.roll(GRID_X, start), n), np.resize(np.roll(GRID_Y, start), n)
    assert _check(compiled, x, y)


@settings(max_examples=25)
@given(st.lists(st.tuples(st.floats(allow_subnormal=True), st.floats(allow_subnormal=True)), min_size=1,
                max_size=40))
def test_any_floats_within_the_bound(compiled, pairs):
    x, y = zip(*pairs)
    assert _check(compiled, x, y)


def float_power(x, y, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** y[i]


def test_float32_within_one_ulp_of_the_rounded_double():
    rng = np.random.default_rng(17)
    with np.errstate(over="ignore"):  # 1e300 becomes inf
        x = np.concatenate([rng.uniform(0, 10, 3000), -rng.uniform(0, 10, 300), SPECIAL]).astype(np.float32)
        y = np.concatenate([rng.uniform(-30, 30, 3000), np.round(rng.uniform(-20, 20, 300)), SPECIAL[::-1]])
        y = y.astype(np.float32)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        polyfuse.kernel(float_power)(x, y, out)
        expected = np.array([np.float64(a) ** np.float64(b) for a, b in zip(x, y)]).astype(np.float32)
    finite = np.isfinite(expected) & (expected != 0)
    np.testing.assert_array_equal(out[~finite], expected[~finite])
    assert (np.abs(out[finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))).max() <= 1


def test_vectorized_without_libm_calls(compiled):
    x = np.ones(64)
    ir = compiled.inspect_llvm(x, x, np.empty((3, 64)))
    assert "<8 x double>" in ir or "<4 x double>" in ir
    assert "@llvm.pow." not in ir and "@powf(" not in ir
    # libm's pow only through the fallback's vector variant, for lanes outside 0 < x < inf, |y| < inf
    assert "@polyfuse.vm.fallback.pow.v" in ir


def test_vector_math_off_is_exactly_libm():
    x, y = np.array(GRID_X), np.array(GRID_Y)
    out = np.empty((3, x.size))
    with np.errstate(all="ignore"):
        polyfuse.kernel(powers, vector_math=False)(x, y, out)
    expected = _python(x, y)
    np.testing.assert_array_equal(out[[0, 2]], expected[[0, 2]])
    assert ulps_against_libm(out[1], expected[1]).max() <= 1  # numpy's SIMD np.power vs libm


def constant_exponents(x, out):
    for i in range(x.shape[0]):
        out[0, i] = x[i] ** -1.5
        out[1, i] = np.power(x[i], 2.5)


def test_constant_exponents_keep_the_fallback_intact():
    """A constant y is propagated by LLVM into what it can see: the libm fallback's signature must
    survive that (it is kept "used"), or its vector variants no longer match it."""
    x = np.concatenate([np.random.default_rng(18).uniform(-3, 3, 37), SPECIAL])
    out = np.empty((2, x.size))
    kernel = polyfuse.kernel(constant_exponents)
    with np.errstate(all="ignore"):
        kernel(x, out)
        expected = np.array([[v ** -1.5 for v in x], [np.power(v, 2.5) for v in x]])
    assert ulps_against_libm(out[0], expected[0]).max() <= BOUND and ulps_against_libm(out[1], expected[1]).max() <= BOUND + 1
    assert "@polyfuse.vm.fallback.pow.v" in kernel.inspect_llvm(x, out)


def powers_and_their_sum(x, y, out):
    s = 0.0
    for i in range(x.shape[0]):
        t = x[i] ** y[i]
        out[i] = t
        s += t
    return s


def test_pow_is_split_from_a_reduction_loop_so_it_vectorizes():
    """``t = x ** y; out = t; s += t``: the power goes into its own parallel loop (as exp does
    in softmax), inline there, and the sum follows in the original order."""
    rng = np.random.default_rng(21)
    x, y = rng.uniform(0.1, 3, 1003), rng.uniform(-4, 4, 1003)
    out, expected = np.empty_like(x), np.empty_like(x)
    kernel = polyfuse.kernel(powers_and_their_sum)
    total = kernel(x, y, out)
    expected_total = powers_and_their_sum(x, y, expected)
    assert ulps_against_libm(out, expected).max() <= 1
    assert abs(total - expected_total) <= 1e-15 * np.abs(expected).sum()
    ir = kernel.inspect_llvm(x, y, out)
    assert "@llvm.pow." not in ir and ("<8 x double>" in ir or "<4 x double>" in ir)
    assert "# parallel" in kernel.explain(x, y, out)["loop code"]
