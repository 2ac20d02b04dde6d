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
