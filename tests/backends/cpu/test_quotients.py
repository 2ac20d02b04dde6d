"""Exact rounded quotients by reciprocals (backends/cpu/quotients.py): ``np.rint(x / s)`` with a
loop-invariant ``s`` computed as ``rint(x * (1 / s))`` where a test proves it equal, the division
elsewhere.  Every result must be NumPy's, bit for bit (signs of zeros and NaNs included)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse
from polyfuse.bench.numpy_suite import quantize_int8

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def rounded(x, s):
    return np.rint(x / s)


def in_place(x, s):
    for i in range(x.shape[0]):
        x[i] = np.rint(x[i] / s)


def elementwise(x, y):
    return np.rint(x / y)


def near_halves(s: float) -> np.ndarray:
    """Dividends within an ulp of (k + 1/2) s, where x * (1 / s) and x / s round apart."""
    halves = (np.arange(-300, 300) + 0.5) * s
    return np.concatenate([halves, np.nextafter(halves, np.inf), np.nextafter(halves, -np.inf)])


def inputs(s: float) -> np.ndarray:
    rng = np.random.default_rng(3)
    special = [0.0, -0.0, 0.49999999999999994, -0.5, 2.5, 1e-310, -1e-310, 1e300, -1e300, np.inf, -np.inf,
               np.nan, 2.0 ** 52 + 1, 2.0 ** 49 + 0.5, 5e-324]
    x = np.concatenate([rng.standard_normal(1500) * 3.0, near_halves(s), np.array(special) * s, special])
    return rng.permutation(x)


@pytest.mark.parametrize("s", [0.02, -0.3, 7.0, 1e-300, 2.0 ** -1022, 1e-320, 2.0 ** 1021, 3e307, np.inf, 0.0])
def test_rint_of_a_quotient_is_numpys_bit_for_bit(s):
    with np.errstate(all="ignore"):
        x = inputs(s if np.isfinite(s) and s != 0 else 1.0)
        expected = rounded(x, s)
        got = polyfuse.kernel(rounded)(x, s)
    assert got.tobytes() == expected.tobytes(), np.flatnonzero(got.view(np.int64) != expected.view(np.int64))[:5]


def test_quotients_that_round_apart_from_the_product_by_a_few_ulps_are_numpys():
    """Dividends a few ulps from (k + 1/2) s where rint(x * (1 / s)) differs from rint(x / s),
    hundreds of them with the product not itself a half-integer (a test without its slack of
    2**-50 |q| lets those through)."""
    s = 0.07
    base = (np.arange(-3000, 3000) + 0.5) * s
    x = np.concatenate([base + d * np.spacing(base) for d in range(-5, 6)])
    apart = np.rint(x / s) != np.rint(x * (1 / s))
    assert np.count_nonzero(apart & (np.abs(x * (1 / s) - np.rint(x * (1 / s))) < 0.5)) > 100
    np.testing.assert_array_equal(polyfuse.kernel(rounded)(x, s), rounded(x, s))


def test_quantize_int8_keeps_numpys_bits_near_half_integers_and_its_loop_is_blocked():
    x = np.random.default_rng(4).permutation(np.concatenate([near_halves(0.02), np.linspace(-3, 3, 2000)]))
    kernel = polyfuse.kernel(quantize_int8)
    np.testing.assert_array_equal(kernel(x, 0.02), quantize_int8(x, 0.02))
    assert "blocks.header" in kernel.inspect_llvm(x, 0.02, optimized=False)
    (record,) = kernel.explain(x, 0.02)["exact quotients"]
    assert record["divisors"] == ["scale"]


@pytest.mark.parametrize("func, args", [
    (in_place, (np.linspace(-5, 5, 700), 0.3)),  # reads what it writes: a block may not run twice
    (elementwise, (np.linspace(-5, 5, 700), np.linspace(0.1, 2, 700))),  # the divisor varies
])
def test_no_blocks_where_the_rule_does_not_hold(func, args):
    kernel = polyfuse.kernel(func)
    assert "blocks.header" not in kernel.inspect_llvm(*args, optimized=False)
    assert "exact quotients" not in dict(kernel.explain(*args).sections)
    expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected, got = func(*expected_args), kernel(*got_args)
    if expected is None:
        np.testing.assert_array_equal(got_args[0], expected_args[0])
    else:
        np.testing.assert_array_equal(got, expected)


def test_the_blocks_inside_chunks_of_a_parallel_loop_on_2_and_3_threads(forced):
    from polyfuse.runtime import threads

    x = np.random.default_rng(5).permutation(np.concatenate([near_halves(0.07), np.linspace(-9, 9, 3001)]))
    kernel = polyfuse.kernel(rounded)
    expected = rounded(x, 0.07)
    for count in (2, 3):
        threads.set_num_threads(count)
        for _ in range(2):  # (the first call at a size runs serially, measured)
            assert kernel(x, 0.07).tobytes() == expected.tobytes()
    assert sum(kernel.compile(x, 0.07).backend.phase_runs.values()) >= 2
