"""Inline tanh (``vector_math=True``): one exp and one shared division (Cephes' rational form
below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1) above).  Within 2 ulp of libm at the branch edges, on
subnormal, huge and negative arguments, in the vector body and in the scalar remainder, against
the undecorated function."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")

BOUND = 2  # docs/performance.md: measured maximum 2.0 ulp vs libm on 4.6 M arguments


def tanh_rows(x, out):
    for i in range(x.shape[0]):
        out[i] = math.tanh(x[i])


def gelu(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + np.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))


@pytest.fixture(scope="module")
def compiled():
    return polyfuse.kernel(tanh_rows)


def _ulps(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """ulp of the expected value; where that is 0, infinite or NaN, exactly libm's (zero signs too)."""
    finite = np.isfinite(expected) & (expected != 0)
    np.testing.assert_array_equal(actual[~finite], expected[~finite])
    zero = expected == 0
    np.testing.assert_array_equal(np.signbit(actual[zero]), np.signbit(expected[zero]))
    ulps = np.zeros(expected.shape)
    ulps[finite] = np.abs(actual[finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))
    return ulps


def _check(kernel, x: np.ndarray) -> float:
    """The kernel against the undecorated function on the same ``x``; the largest ulp."""
    out, expected = np.full_like(x, np.nan), np.empty_like(x)
    kernel(x, out)
    tanh_rows(x, expected)
    return float(_ulps(out, expected).max(initial=0.0))


def _around(points, steps: int = 3) -> list[float]:
    """Each point, its ``steps`` neighbours on either side, and the negatives of all."""
    found = []
    for p in points:
        v = w = p
        found.append(p)
        for _ in range(steps):
            v, w = np.nextafter(v, math.inf), np.nextafter(w, -math.inf)
            found += [float(v), float(w)]
    return found + [-v for v in found]


EDGES = _around([0.625, 0.5, 1.0, 19.0615, 22.0, 5e-324, 2.2250738585072014e-308, 1e-8, 1.4901161193847656e-08])
SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, -1.7976931348623157e308]


def test_edges_specials_and_ranges_within_the_bound(compiled):
    rng = np.random.default_rng(16)
    x = np.concatenate([EDGES, SPECIALS, rng.uniform(-25, 25, 20000), rng.uniform(0.55, 0.7, 20000),
                        10.0 ** rng.uniform(-320, 3, 20000) * rng.choice([-1.0, 1.0], 20000)])
    assert _check(compiled, x) <= BOUND


@pytest.mark.parametrize("n", [1, 3, 7, 9, 15, 17, 31, 33, 63])
def test_every_row_count_vector_body_and_remainder(compiled, n):
    """Lengths that are not multiples of the vector width (8) times the interleave (2): the
    remainder runs the same code scalar, and each element there is checked too."""
    x = np.resize(np.array(EDGES + SPECIALS), n)
    assert _check(compiled, x) <= BOUND


@settings(max_examples=25)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True), min_size=1, max_size=40))
def test_any_floats_within_the_bound(compiled, values):
    assert _check(compiled, np.array(values)) <= BOUND


def test_float32_within_one_ulp_of_the_rounded_double(compiled):
    with np.errstate(over="ignore"):  # 1e300 becomes inf
        x = np.array(EDGES + SPECIALS + list(np.linspace(-20, 20, 4001)), dtype=np.float32)
    out = np.empty_like(x)
    compiled(x, out)
    with np.errstate(over="ignore"):
        expected = np.array([math.tanh(v) for v in x.astype(np.float64).tolist()]).astype(np.float32)
    finite = np.isfinite(expected) & (expected != 0)
    np.testing.assert_array_equal(out[~finite], expected[~finite])
    assert (np.abs(out[finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))).max() <= 1


def test_gelu_chain_against_the_python_function():
    """The chain of the GELU benchmark (x**3 inline, tanh inline) on a non-multiple of 16:
    1 + tanh cancels for negative x, so the bound is absolute, 2 ulp of tanh times 0.5 |x|."""
    x = np.random.default_rng(3).uniform(-6, 6, 1001)
    out, expected = np.empty_like(x), np.empty_like(x)
    polyfuse.kernel(gelu)(x, out)
    gelu(x, expected)
    assert np.all(np.abs(out - expected) <= 4.5e-16 * np.abs(x) + 2.3e-16 * np.abs(expected))


def test_one_division_and_no_libm_call_in_the_vector_loop(compiled):
    x = np.ones(64)
    ir = compiled.inspect_llvm(x, np.empty_like(x))
    assert "<8 x double>" in ir or "<4 x double>" in ir
    assert "@tanh(" not in ir and "@llvm.tanh" not in ir and "@expm1(" not in ir
    for width in (2, 4, 8, 16):  # one per vector (the main loop is interleaved twice)
        assert sum(f"fdiv <{width} x double>" in line for line in ir.splitlines()) <= 2
