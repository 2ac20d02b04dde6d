"""polyfuse.lanes: max/min reductions in SIMD lanes, with exactly Python's result.

Python's ``max(m, x)`` keeps ``m`` unless ``x > m``: NaN handling and the sign of a zero result
depend on the order, so the tests feed NaN, infinities and both zeros and compare bit for bit
(sign of zero included) with the plain function, on both backends."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from conftest import HAS_CPU
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse

TARGETS = ["python"] + (["cpu"] if HAS_CPU else [])
SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 2.5, -2.5]


def row_max(X, M):
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(X.shape[1]):
            m = max(m, X[i, j])
        M[i] = m


def row_min_of_shifted(X, M):
    for i in range(X.shape[0]):
        m = 1e30
        for j in range(1, X.shape[1]):
            m = min(m, X[i, j] - X[i, 0])
        M[i] = m


def max_first_argument_is_element(X, M):
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(X.shape[1]):
            m = max(X[i, j], m)  # keeps X[i, j] unless m > X[i, j]: other ties, other NaNs
        M[i] = m


def max_and_sum(X, M):
    for i in range(X.shape[0]):
        m = X[i, 0]
        s = 0.0
        for j in range(X.shape[1]):
            m = max(m, X[i, j])
            s += X[i, j]
        M[i] = m + s


def int_max(X, M):
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(X.shape[1]):
            m = max(m, X[i, j])
        M[i] = m


def row_nan_max(X, M):
    for i in range(X.shape[0]):
        m = X[i, 0]
        for j in range(X.shape[1]):
            m = m if (m >= X[i, j] or m != m) else X[i, j]  # NumPy's maximum: the first NaN wins
        M[i] = m


def shift_by_max(x):
    return x - x.max(axis=-1, keepdims=True)


def shift_by_min(x):
    return x - x.min(axis=1, keepdims=True)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values, NaN where NaN, and the same sign on every zero (a NaN's sign means nothing)."""
    numbers = ~np.isnan(a)
    return bool(np.array_equal(a, b, equal_nan=True)
                and np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers])))


def run_both(fn, X, target, out_dtype=None, kernel=None):
    k = kernel or polyfuse.kernel(fn, target=target, verify=True)
    expected, actual = np.empty(X.shape[0], out_dtype or X.dtype), np.empty(X.shape[0], out_dtype or X.dtype)
    with np.errstate(all="ignore"):
        fn(X, expected)
    k(X, actual)
    return k, expected, actual


@functools.cache
def _shared_kernel(fn, target):
    """One kernel per function and target for the examples of a property test: an example whose
    signature (dtype, unit axes) an earlier one had calls that variant again, as a user's kernel
    does, instead of compiling it anew (or loading it from the disk cache) per example."""
    return polyfuse.kernel(fn, target=target, verify=True)


def splits(k, X, out) -> list[dict]:
    return k.explain(X, out)["minmax lanes"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, op", [(row_max, "max"), (row_min_of_shifted, "min")])
def test_split_and_exact_on_random_rows(target, fn, op):
    X = np.random.default_rng(0).standard_normal((7, 53))
    k, expected, actual = run_both(fn, X, target)
    assert same_bits(expected, actual)
    (record,) = splits(k, X, actual)
    assert record["op"] == op and record["accumulator"] == "m" and record["lanes"] >= 2


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 45), data=st.data(),
       dtype=st.sampled_from([np.float64, np.float32]))
def test_special_values_bit_for_bit(target, rows, cols, data, dtype):
    values = data.draw(st.lists(st.sampled_from(SPECIAL), min_size=rows * cols, max_size=rows * cols))
    X = np.array(values, dtype=dtype).reshape(rows, cols)
    for fn in (row_max, row_min_of_shifted):
        _, expected, actual = run_both(fn, X, target, kernel=_shared_kernel(fn, target))
        assert same_bits(expected, actual), (fn.__name__, X, expected, actual)


@pytest.mark.parametrize("target", TARGETS)
def test_zero_maximum_keeps_the_sign_python_gives(target):
    # -0.0 first in order but in a later lane than +0.0: the lanes alone would answer +0.0
    X = np.full((1, 40), -1.0)
    X[0, 17], X[0, 32] = -0.0, 0.0
    _, expected, actual = run_both(row_max, X, target)
    assert np.signbit(expected[0]) and same_bits(expected, actual)


@pytest.mark.skipif(not HAS_CPU, reason="needs the cpu target")
def test_rerun_loop_generated_plainly(monkeypatch):
    # the exact rerun is a rare path: its loops (one per interleaved row, and the rest rows') get
    # LLVM's unrolling and vectorizing off
    X, M = np.ones((2, 20)), np.empty(2)

    def hinted() -> int:
        return polyfuse.kernel(row_max).inspect_llvm(X, M, optimized=False).count('"llvm.loop.unroll.disable"')

    rare = hinted()
    monkeypatch.setenv("POLYFUSE_RARE_LOOPS", "0")
    assert rare > hinted()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", [max_first_argument_is_element, max_and_sum])
def test_left_alone_when_not_the_exact_pattern(target, fn):
    X = np.random.default_rng(1).choice(SPECIAL, size=(3, 37))
    k, expected, actual = run_both(fn, X, target)
    assert same_bits(expected, actual)
    assert splits(k, X, actual) == []


def test_integer_max_left_to_llvm():
    X = np.arange(60, dtype=np.int64).reshape(3, 20)
    k, expected, actual = run_both(int_max, X, TARGETS[-1])
    assert np.array_equal(expected, actual) and splits(k, X, actual) == []


def test_off_by_environment(monkeypatch):
    monkeypatch.setenv("POLYFUSE_MINMAX_LANES", "0")
    X = np.ones((2, 20))
    k, _, actual = run_both(row_max, X, TARGETS[-1])
    assert splits(k, X, actual) == []


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, op", [(shift_by_max, "max"), (shift_by_min, "min")])
def test_numpy_reductions_split_and_bit_for_bit(target, fn, op):
    X = np.random.default_rng(2).choice(SPECIAL, size=(40, 37))
    X[:8] = np.random.default_rng(3).standard_normal((8, 37))  # rows without NaN use the lanes' result
    k = polyfuse.kernel(fn, target=target, verify=True)
    with np.errstate(all="ignore"):
        expected, actual = fn(X), k(X)
    assert same_bits(expected, actual)
    (record,) = k.explain(X)["minmax lanes"]
    assert record["op"] == op and record["lanes"] >= 2


@pytest.mark.parametrize("target", TARGETS)
def test_nan_form_keeps_the_first_nan(target):
    # two NaNs with different bits: the first in order sits in the last lane of a group, the
    # other in lane 0 of the next, so the lanes combined in lane order alone would give the second
    first, second = (np.array([bits], np.uint64).view(np.float64)[0]
                     for bits in (0x7FF8000000000001, 0x7FF8000000000002))
    X = np.full((2, 40), -1.0)
    X[:, 15], X[:, 16] = first, second
    k, expected, actual = run_both(row_nan_max, X, target)
    assert [r["op"] for r in splits(k, X, actual)] == ["max"]
    assert np.array_equal(expected.view(np.uint64), actual.view(np.uint64))
    assert expected.view(np.uint64)[0] == 0x7FF8000000000001


def column_max_in_place(X, M):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            M[j] = max(M[j], X[i, j])  # the inner loop moves the accumulator: no reduction over j


def row_max_reading_the_output(X, M):
    for i in range(X.shape[0]):
        M[i] = X[i, 0]
        for j in range(X.shape[1]):
            M[i] = max(M[i], X[i, j] - M[0])  # reads what it writes: left alone


def returned_max(x):
    return x.max(axis=1)


def returned_min(x):
    return np.min(x, axis=-1, keepdims=True)


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 45), data=st.data())
def test_a_returned_reduction_splits_bit_for_bit(target, rows, cols, data):
    # no -0.0: which signed zero NumPy's own max returns on a tie is its implementation's choice
    values = data.draw(st.lists(st.sampled_from([v for v in SPECIAL if not (v == 0 and np.signbit(v))]),
                                min_size=rows * cols, max_size=rows * cols))
    X = np.array(values).reshape(rows, cols)
    k = polyfuse.kernel(returned_max, target=target, verify=True)
    with np.errstate(all="ignore"):
        assert same_bits(returned_max(X), k(X)), X


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", [column_max_in_place, row_max_reading_the_output])
def test_an_element_accumulator_left_alone_when_it_moves_or_is_read(target, fn):
    X = np.random.default_rng(4).choice(SPECIAL, size=(3, 37))
    k = polyfuse.kernel(fn, target=target, verify=True)
    expected, actual = np.full(37, -5.0), np.full(37, -5.0)
    with np.errstate(all="ignore"):
        fn(X, expected)
    k(X, actual)
    assert same_bits(expected, actual)
    assert k.explain(X, actual)["minmax lanes"] == []


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, op", [(returned_max, "max"), (returned_min, "min")])
def test_returned_numpy_reductions_split_and_bit_for_bit(target, fn, op):
    X = np.random.default_rng(5).choice(SPECIAL, size=(30, 41))
    X[:8] = np.random.default_rng(6).standard_normal((8, 41))
    k = polyfuse.kernel(fn, target=target, verify=True)
    with np.errstate(all="ignore"):
        expected, actual = fn(X), k(X)
    assert same_bits(expected, actual)
    (record,) = k.explain(X)["minmax lanes"]
    assert record["op"] == op and record["lanes"] >= 2
