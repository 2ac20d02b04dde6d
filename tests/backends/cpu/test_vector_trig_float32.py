"""float32 sin and cos (``vector_math``): a one-piece reduction and shorter polynomials in float64
(backends/cpu/vector_math.py ``_trig(narrow=True)``), within 1 ulp of libm's double rounded to
float32 on every range: the floats nearest to multiples of pi/2 (the worst cancellation), up to
the reduction's domain and past it (libm), infinities and NaN."""

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
