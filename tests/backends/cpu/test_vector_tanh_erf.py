"""Inline tanh and erf (``vector_math=True``): tanh with one exp and one shared division (Cephes'
rational form below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1) above), erf without a division (a
polynomial in x**2 below |x| = 1, 1 - exp(-x**2) R(|x|) above).  Within their bounds of libm at
the branch edges, on subnormal, huge and negative arguments, in the vector body and in the scalar
remainder, against the undecorated function."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU, ulps_against_libm
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.options import math_loop_interleave

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")

FUNCTIONS = ("tanh", "erf")
#: docs/performance.md: the maxima measured vs libm on 9 M (tanh) and 4 M (erf) arguments
BOUNDS = {"tanh": 2, "erf": 1}


def rows(x, out):
    for i in range(x.shape[1]):
        out[0, i] = math.tanh(x[0, i])
        out[1, i] = math.erf(x[1, i])


def gelu_tanh(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + np.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))


def gelu_erf(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + math.erf(v * 0.7071067811865476))


@pytest.fixture(scope="module")
def compiled():
    return polyfuse.kernel(rows)



def _check(kernel, values: np.ndarray) -> dict[str, float]:
    """Both rows on the same values, against the undecorated function; the largest ulp of each."""
    x = np.stack([values, values])
    out, expected = np.full_like(x, np.nan), np.empty_like(x)
    kernel(x, out)
    rows(x, expected)
    return {name: float(ulps_against_libm(out[k], expected[k]).max(initial=0.0)) for k, name in enumerate(FUNCTIONS)}


def _within(found: dict[str, float]) -> bool:
    return all(found[name] <= BOUNDS[name] for name in FUNCTIONS)


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


#: the branch points (tanh 0.625, 19.06 where it rounds to 1, 22; erf 1, 2, 5.92 where it rounds
#: to 1, 6), the smallest normal and subnormal, where x**2 underflows, and where tanh's exp
#: reduction 2|x| = k ln2 + r changes k (|r| = ln2/2)
EDGES = _around([0.625, 0.5, 1.0, 2.0, 5.92, 6.0, 19.0615, 22.0, 5e-324, 2.2250738585072014e-308,
                 1.4916681462400413e-154, 1e-8, 1.4901161193847656e-08]
                + [(j + 0.5) * math.log(2.0) / 2 for j in range(1, 64, 3)])
SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, -1.7976931348623157e308]


def test_edges_specials_and_ranges_within_the_bounds(compiled):
    rng = np.random.default_rng(16)
    values = np.concatenate([EDGES, SPECIALS, rng.uniform(-25, 25, 20000), rng.uniform(0.55, 2.5, 20000),
                             10.0 ** rng.uniform(-320, 3, 20000) * rng.choice([-1.0, 1.0], 20000)])
    found = _check(compiled, values)
    assert _within(found), found


@pytest.mark.parametrize("n", [1, 3, 7, 9, 15, 17, 31, 33, 63])
def test_every_row_count_vector_body_and_remainder(compiled, n):
    """Lengths that are not multiples of the vector width (8) times the interleave (2): the
    remainder runs the same code scalar, and each element there is checked too."""
    found = _check(compiled, np.resize(np.array(EDGES + SPECIALS), n))
    assert _within(found), found


@settings(max_examples=25)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True), min_size=1, max_size=40))
def test_any_floats_within_the_bounds(compiled, values):
    found = _check(compiled, np.array(values))
    assert _within(found), found


def test_float32_within_one_ulp_of_the_rounded_double(compiled):
    with np.errstate(over="ignore"):  # 1e300 becomes inf
        values = np.array(EDGES + SPECIALS + list(np.linspace(-20, 20, 4001)), dtype=np.float32)
    x = np.stack([values, values])
    out = np.empty_like(x)
    compiled(x, out)
    for k, name in enumerate(FUNCTIONS):
        fn = getattr(math, name)
        expected = np.array([fn(v) for v in values.astype(np.float64).tolist()]).astype(np.float32)
        finite = np.isfinite(expected) & (expected != 0)
        np.testing.assert_array_equal(out[k][~finite], expected[~finite])
        assert (np.abs(out[k][finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))).max() <= 1


@pytest.mark.parametrize("chain, bound", [(gelu_tanh, 2), (gelu_erf, 1)])
def test_gelu_chains_against_the_python_function(chain, bound):
    """The GELU chains (tanh form with x**3 inline; erf form) on a non-multiple of 16: 1 + f
    cancels for negative x, so the bound is absolute, ``bound`` ulp of f times 0.5 |x|, plus the
    rounding of the products."""
    x = np.random.default_rng(3).uniform(-6, 6, 1001)
    out, expected = np.empty_like(x), np.empty_like(x)
    polyfuse.kernel(chain)(x, out)
    chain(x, expected)
    assert np.all(np.abs(out - expected) <= bound * 2.3e-16 * np.abs(x) + 2.3e-16 * np.abs(expected))


def test_vectorized_without_libm_calls(compiled):
    x = np.ones((2, 64))
    ir = compiled.inspect_llvm(x, np.empty_like(x))
    assert "<8 x double>" in ir or "<4 x double>" in ir
    for name in ("tanh", "expm1", "erf", "exp"):
        assert f"@{name}(" not in ir and f"@llvm.{name}." not in ir
    for width in (2, 4, 8, 16):  # tanh's one division per vector of the interleaved main loop
        assert sum(f"fdiv <{width} x double>" in line for line in ir.splitlines()) <= math_loop_interleave()


def test_erf_without_vector_math_is_exactly_libm():
    x = np.stack([np.linspace(-7, 7, 301)] * 2)
    out = np.empty_like(x)
    polyfuse.kernel(rows, vector_math=False)(x, out)
    np.testing.assert_array_equal(out[1], [math.erf(v) for v in x[1].tolist()])
