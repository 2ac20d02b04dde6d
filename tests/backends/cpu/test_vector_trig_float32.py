"""float32 sin, cos and arctan2 (``vector_math``), in float64 with less work than the float64
forms: a one-piece reduction and shorter polynomials (``_trig(narrow=True)``), one quotient in
[0, 1] for arctan2 (``_vm_atan2_narrow``).  Within 1 ulp of libm's double rounded to float32 on
every range: the floats nearest to multiples of pi/2 (the worst cancellation), up to the
reduction's domain and past it (libm), |y| ~ |x|, subnormals, infinities, NaN, signed zeros."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")


def sines(x):
    return np.sin(x)


def cosines(x):
    return np.cos(x)


def _near_multiples_of_half_pi(count: int) -> np.ndarray:
    """The float32 nearest to k pi/2 and its two neighbours, k up to ~6e5 (|x| <= 1e6)."""
    k = np.unique(np.geomspace(1, 6.3e5, count).astype(np.int64))
    nearest = (k * (np.pi / 2)).astype(np.float32)
    return np.concatenate([nearest, np.nextafter(nearest, np.float32(0)), np.nextafter(nearest, np.float32(2e6))])


def _arguments() -> np.ndarray:
    rng = np.random.default_rng(7)
    parts = [rng.uniform(-4.0, 4.0, 4000), rng.uniform(-1e6, 1e6, 4000), -_near_multiples_of_half_pi(3000),
             _near_multiples_of_half_pi(3000), [0.0, -0.0, 1e-30, -1e-40, 9.9e5, 1e6, 1.0000001e6, 3e7, -1e20,
                                                np.inf, -np.inf, np.nan]]
    return np.concatenate([np.asarray(p, dtype=np.float32) for p in parts])


@pytest.mark.parametrize("fn, ref", [(sines, np.sin), (cosines, np.cos)], ids=["sin", "cos"])
def test_float32_trig_within_one_ulp_of_the_rounded_double(fn, ref):
    x = _arguments()
    actual = polyfuse.kernel(fn)(x)
    assert actual.dtype == np.float32
    with np.errstate(invalid="ignore"):  # sin(inf) is NaN
        expected = ref(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    finite = ~np.isnan(expected)
    ulps = np.abs(actual[finite].astype(np.float64) - expected[finite]) / np.spacing(np.abs(expected[finite]))
    assert ulps.max() <= 1
    np.testing.assert_array_equal(np.signbit(actual[x == 0]), np.signbit(expected[x == 0]))


def test_float32_trig_vectorizes():
    x = np.ones(64, dtype=np.float32)
    ir = polyfuse.kernel(sines).inspect_llvm(x)
    assert "polyfuse.vm.fallback.sin.v" in ir  # the libm fallback's vector variant: the loop is SIMD


def angles(y, x):
    return np.arctan2(y, x)


def _atan2_arguments() -> tuple[np.ndarray, np.ndarray]:
    """Both signs; |y| ~ |x| (where the quotient swaps), ratios across float32's range,
    subnormals, and every pair of float32 special values."""
    rng = np.random.default_rng(9)
    sign = lambda n: rng.choice([-1.0, 1.0], n)  # noqa: E731
    x = rng.uniform(0.1, 10.0, 4000) * sign(4000)
    near = x * (1.0 + rng.uniform(-1e-6, 1e-6, 4000)) * sign(4000)
    wide_y = 10.0 ** rng.uniform(-44, 38, 4000) * sign(4000)
    wide_x = 10.0 ** rng.uniform(-44, 38, 4000) * sign(4000)
    specials = np.array([0.0, -0.0, 1e-45, -1e-45, 1.0, -1.0, 3.4e38, -3.4e38, np.inf, -np.inf, np.nan])
    ys = np.concatenate([near, wide_y, np.repeat(specials, len(specials))])
    xs = np.concatenate([x, wide_x, np.tile(specials, len(specials))])
    return ys.astype(np.float32), xs.astype(np.float32)


def test_float32_atan2_within_one_ulp_of_the_rounded_double_and_signed_zeros():
    y, x = _atan2_arguments()
    actual = polyfuse.kernel(angles)(y, x)
    assert actual.dtype == np.float32
    expected = np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    exact = (expected == 0) | np.isinf(y) | np.isinf(x)
    np.testing.assert_array_equal(actual[exact], expected[exact])
    np.testing.assert_array_equal(np.signbit(actual[exact]), np.signbit(expected[exact]))
    rest = ~exact & ~np.isnan(expected)
    ulps = np.abs(actual[rest].astype(np.float64) - expected[rest]) / np.spacing(np.abs(expected[rest]))
    assert ulps.max() <= 1
