"""A statement after ``if <sizes>: return v`` runs only where the test fails: the rest of the
block goes into the ``else`` branch (frontend/early_return.py), so the test bounds its domain and
its size checks do not run where Python never reaches it (an empty array returns the default
instead of raising ArgumentError)."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError


def spread(x):
    if x.shape[0] == 0:
        return 0
    return x[2] - x[0]


def best_inner(x):
    n = x.shape[0]
    if n < 3:
        return 0.0
    best = x[1]
    for i in range(1, n - 1):
        if x[i] > best:
            best = x[i]
    return best


def max_or_default(x):
    if len(x) == 0:
        return -1.0
    m = x[0]
    for v in x:
        if v > m:
            m = v
    return m


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (spread, (np.zeros(0),)), (spread, (np.arange(4.0),)),
    (best_inner, (np.zeros(0),)), (best_inner, (np.array([1.0, 5.0, 2.0, 7.0]),)),
    (max_or_default, (np.zeros(0),)), (max_or_default, (np.array([1.0, 5.0, 2.0]),)),
])
def test_unreached_statements_check_nothing(func, args, target):
    expected = func(*args)
    got = polyfuse.kernel(func, target=target)(*args)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)


def test_a_reached_statement_still_checks():
    with pytest.raises(ArgumentError, match="out-of-bounds"):
        polyfuse.kernel(spread)(np.ones(2))  # Python: IndexError


def fill_unless_equal(img, new):
    out = img.copy()
    if out[0, 0] == new:
        return out
    for i in range(out.shape[0]):
        if out[i, 0] == img[0, 0]:
            out[i, 0] = new
    return out


def first_negative_cleared(x):
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            x[i] = 0.0
            return x
    return x


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (fill_unless_equal, (np.array([[1, 2], [1, 3]]), 1)), (fill_unless_equal, (np.array([[1, 2], [1, 3]]), 5)),
    (first_negative_cleared, (np.array([1.0, -2.0, -3.0]),)), (first_negative_cleared, (np.ones(2),)),
])
def test_one_array_returned_early_and_at_the_end(func, args, target):
    """Every return gives back one name that nothing binds again after the first early return:
    the returns leave, and the end returns that name (no result local, which an array cannot be)."""
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = func(*want)
    result = polyfuse.kernel(func, target=target)(*got)
    np.testing.assert_array_equal(result, expected)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def lagged_sum(x, y, lag):
    if x.shape[0] < 3 or lag > 5:
        return lag
    t = x[3:] + x[:x.shape[0] - 3]  # NumPy's extents agree only where this runs
    y[:t.shape[0]] = t
    return t.sum()


def paired_sum(x, y):
    if x.shape[0] != y.shape[0]:
        return 0.0
    return (x + y).sum()


def paired_or_first(x, y):
    if x.shape[0] == y.shape[0]:
        s = (x + y).sum()
    else:
        s = x[0] + y[0]
    return s


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (lagged_sum, (np.arange(2.0), np.ones(4), 1)), (lagged_sum, (np.arange(5.0), np.ones(4), 9)),
    (lagged_sum, (np.arange(5.0), np.ones(4), 1)),
    (paired_sum, (np.arange(2.0), np.ones(4))), (paired_sum, (np.arange(4.0), np.ones(4))),
    (paired_or_first, (np.arange(2.0), np.ones(4))), (paired_or_first, (np.arange(4.0), np.ones(4))),
])
def test_numpy_statements_check_their_extents_only_where_they_run(func, args, target):
    """The extents a NumPy statement requires equal (or a slice bound not negative) are checked
    per call only where the ifs of sizes around it let it run (frontend/arrays.py ``assume``):
    Python returns before the statement that would raise."""
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = func(*want)
    result = polyfuse.kernel(func, target=target)(*got)
    np.testing.assert_allclose(result, expected, rtol=1e-12)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def sum_if_asked(x, y, n):
    if n > 0:
        return (x + y).sum()
    return 0.0


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_reached_numpy_statement_still_checks_its_extents(target):
    kernel = polyfuse.kernel(sum_if_asked, target=target)
    assert kernel(np.ones(3), np.ones(4), 0) == sum_if_asked(np.ones(3), np.ones(4), 0) == 0.0
    with pytest.raises(ValueError):
        sum_if_asked(np.ones(3), np.ones(4), 1)
    with pytest.raises(ArgumentError, match="extents"):
        kernel(np.ones(3), np.ones(4), 1)
    assert kernel(np.ones(4), np.ones(4), 1) == 8.0
