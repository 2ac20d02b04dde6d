"""Inline ``np.arctan2`` (``vector_math=True``, the default on target="cpu"): within 2 ulp of libm
(the bound docs/performance.md states), C99's special values exactly as libm (signed zeros
too), float32 within one ulp of libm's rounded double, and the loop vectorizes (no libm call)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")

SPECIALS = [0.0, -0.0, 5e-324, -5e-324, 1.0, -1.0, 2.5, -2.5, 1e308, -1e308, math.inf, -math.inf, math.nan]


def angle(y, x):
    return np.arctan2(y, x)


def _arguments(rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Quotients over the whole range, both signs, each reduction interval, and every pair of
    special values."""
    sign = lambda: rng.choice([-1.0, 1.0], n)  # noqa: E731
    wide_y, wide_x = 10.0 ** rng.uniform(-300, 300, n) * sign(), 10.0 ** rng.uniform(-300, 300, n) * sign()
    ratio = rng.uniform(0, 3, n) * sign()  # y/x around 7/16, 11/16, 19/16, 39/16
    near_x = rng.uniform(-2, 2, n)
    pairs_y = np.repeat(SPECIALS, len(SPECIALS))
    pairs_x = np.tile(SPECIALS, len(SPECIALS))
    return (np.concatenate([wide_y, ratio * near_x, pairs_y]), np.concatenate([wide_x, near_x, pairs_x]))


def _libm(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.array([math.atan2(a, b) for a, b in zip(y.tolist(), x.tolist())])


def test_float64_within_two_ulp_of_libm_and_special_values_exactly():
    y, x = _arguments(np.random.default_rng(11), 20000)
    actual, expected = polyfuse.kernel(angle)(y, x), _libm(y, x)
    exact = ~np.isfinite(expected) | (expected == 0) | ~np.isfinite(y) | ~np.isfinite(x) | (y == 0) | (x == 0)
    np.testing.assert_array_equal(actual[exact], expected[exact])
    np.testing.assert_array_equal(np.signbit(actual[exact]), np.signbit(expected[exact]))
    ulps = np.abs(actual - expected)[~exact] / np.spacing(np.abs(expected[~exact]))
    assert ulps.max() <= 2, ulps.max()


def test_float32_within_one_ulp_of_the_rounded_double():
    y, x = _arguments(np.random.default_rng(12), 4000)
    with np.errstate(over="ignore"):
        y32, x32 = y.astype(np.float32), x.astype(np.float32)
    actual = polyfuse.kernel(angle)(y32, x32)
    assert actual.dtype == np.float32
    expected = _libm(y32.astype(np.float64), x32.astype(np.float64)).astype(np.float32)
    finite = np.isfinite(expected) & (expected != 0)
    np.testing.assert_array_equal(actual[~finite], expected[~finite])
    steps = np.abs(actual[finite].astype(np.float64) - expected[finite]) / np.spacing(np.abs(expected[finite]))
    assert steps.max() <= 1


def test_the_loop_has_no_libm_call_and_vector_math_false_keeps_it():
    y, x = np.linspace(-1, 1, 64), np.linspace(2, -2, 64)
    assert "@atan2" not in polyfuse.kernel(angle).inspect_llvm(y, x)
    kept = polyfuse.kernel(angle, vector_math=False)
    assert "@atan2" in kept.inspect_llvm(y, x)
    np.testing.assert_array_equal(kept(y, x), _libm(y, x))
