"""polyfuse/passes/blocked_sums.py: long NumPy sums in chunks of lanes, chunks of chunks, ...

Checked: every term is added exactly once at every length around the chunk boundaries (sums of
integer-valued floats are exact in any order, so the result must be the exact integer), with
loop bounds that do not start at 0 and in parallel row loops; products in NumPy's index order;
NaN, inf and zeros as NumPy gives them; long float32 sums about as accurate as NumPy's pairwise
sum (they were 8.5 eps off at 3 million terms before); user loops and the Python target keep
their order.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.passes.blocked_sums import BLOCK, FAN_IN

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")


def total(x):
    return np.sum(x)


def window(x, lo, hi):
    return np.sum(x[lo:hi])


def rows(X):
    return X.sum(axis=-1)


def product(x):
    return np.prod(x)


def dot(a, b):
    return a @ b


def user_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


KERNELS = {f.__name__: polyfuse.kernel(f) for f in (total, window, rows, product, dot)}
LENGTHS = [BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 7, BLOCK * FAN_IN - 1, BLOCK * FAN_IN + 1,
           BLOCK * FAN_IN * FAN_IN + 5]


def _integers(n: int, dtype, seed: int = 0) -> np.ndarray:
    """Integer values whose sums stay exact in ``dtype`` (below 2**24 for float32)."""
    return np.random.default_rng(seed).integers(-3, 4, n).astype(dtype)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_term_is_added_once_at_the_chunk_boundaries(n, dtype):
    x = _integers(n, dtype, n)
    assert KERNELS["total"](x) == np.sum(x.astype(np.int64))
    assert KERNELS["dot"](x, x) == int(np.sum(x.astype(np.int64) ** 2))


@settings(max_examples=25, deadline=None)
@given(lo=st.integers(0, 3 * BLOCK), length=st.integers(0, 5 * BLOCK + 3))
def test_a_window_that_does_not_start_at_zero_counts_each_term_once(lo, length):
    x = _integers(lo + length + 11, np.float64, lo)
    got = KERNELS["window"](x, lo, lo + length)
    assert got == np.sum(x[lo:lo + length].astype(np.int64))


def test_parallel_rows_each_keep_their_own_partial_sums():
    X = _integers(64 * (2 * BLOCK + 13), np.float64).reshape(64, -1)
    kernel = polyfuse.kernel(rows)
    np.testing.assert_array_equal(kernel(X), X.astype(np.int64).sum(axis=-1))
    blocked = kernel.explain(X)["blocked sums"]
    assert blocked and any(loop["parallel"] and loop["private"] for loop in kernel.explain(X)["parallel loops"])


def test_products_keep_numpys_index_order():
    """Regrouped into lanes, 2.0, 0.5, 2.0, ... overflowed (each lane multiplied only 2.0s);
    NumPy's multiply.reduce multiplies in index order, and so does polyfuse: bit for bit."""
    x = np.where(np.arange(3 * BLOCK + 5) % 2 == 0, 2.0, 0.5)
    assert KERNELS["product"](x) == np.prod(x) == 2.0
    y = np.random.default_rng(2).uniform(0.5, 1.5, 5 * BLOCK)
    assert KERNELS["product"](y) == np.prod(y)
    assert not polyfuse.kernel(product).explain(x)["blocked sums"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_inf_and_zeros_as_numpy_gives_them(dtype):
    n = 3 * BLOCK + 1
    rng = np.random.default_rng(1)
    with np.errstate(invalid="ignore", over="ignore"):
        for specials in ([np.nan], [np.inf], [-np.inf], [np.inf, -np.inf]):
            x = rng.random(n).astype(dtype)
            x[rng.choice(n, len(specials), replace=False)] = specials
            np.testing.assert_equal(KERNELS["total"](x), np.sum(x))
        big = np.full(n, np.finfo(dtype).max / 4, dtype)
        assert KERNELS["total"](big) == np.sum(big) == np.inf
    for zero in (0.0, -0.0):
        z = np.full(n, zero, dtype)
        got, want = KERNELS["total"](z), np.sum(z)
        assert got == want == 0 and math.copysign(1, got) == math.copysign(1, want)


def test_long_float32_sums_are_about_as_accurate_as_numpys():
    """3 million positive float32 values: 1.4 eps of the sum here (NumPy 0.3); 8.5 eps when the
    vector lanes summed all terms (one level)."""
    eps = float(np.finfo(np.float32).eps)
    rng = np.random.default_rng(5)
    for _ in range(2):
        x = rng.random(3_000_000, dtype=np.float32)
        exact = math.fsum(x.astype(np.float64).tolist())
        error = abs(float(KERNELS["total"](x)) - exact) / (eps * exact)
        numpy_error = abs(float(np.sum(x)) - exact) / (eps * exact)
        assert error <= max(3.0, 4 * numpy_error), (error, numpy_error)


def test_only_numpy_reductions_on_the_cpu_target_are_blocked():
    x = np.ones(3 * BLOCK)
    assert polyfuse.kernel(total).explain(x)["blocked sums"]
    assert not polyfuse.kernel(user_sum).explain(x)["blocked sums"]
    assert not polyfuse.kernel(total, target="python").explain(x)["blocked sums"]
    assert polyfuse.kernel(user_sum)(x) == user_sum(x)


def test_the_environment_switch_turns_it_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_BLOCKED_SUMS", "0")
    kernel = polyfuse.kernel(total, cache=False)
    x = np.ones(3 * BLOCK)
    assert not kernel.explain(x)["blocked sums"] and kernel(x) == 3 * BLOCK
