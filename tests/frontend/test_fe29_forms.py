"""Session 25's false refusals and one wrong answer (fe29), each against the undecorated function:

- a read inside a data-dependent branch that only some sizes keep in bounds is checked where it
  runs (IndexError as Python), not refused per call (``frontend/expressions.py: index_item``);
- (a loop in a kernel without parameters keeps its loop, ``model/schedule_tree.py: band_of``:
  tests/corpus/numba_fe29's bisection;)
- ``np.bincount`` of a computed array, ``np.triu_indices`` / ``np.tril_indices``, ``u[0]`` and
  ``u.sum()`` of ``np.unique`` (and of ``np.where(c)[0]``: tests/corpus/numba_fe29),
  ``np.empty_like`` of a helper's result.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def _same(expected, actual):
    assert type(actual) is type(expected), (expected, actual)
    if isinstance(expected, tuple):
        for e, a in zip(expected, actual, strict=True):
            _same(e, a)
        return
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))
    assert np.asarray(actual).dtype == np.asarray(expected).dtype


def _check(func, calls, target="python"):
    kernel = polyfuse.kernel(func, target=target)
    for args in calls:
        try:
            expected = func(*args)
        except IndexError:
            with pytest.raises(IndexError):
                kernel(*args)
            continue
        _same(expected, kernel(*args))


def branch_fixed_index(x, d):
    s = x[0]
    if d > 0:
        s += x[5]
    return s


def statement_else(x, d):
    if x.shape[0] > 3 and d > 0:
        v = x[3]
    else:
        v = -1.0
    return v


def guarded_next(x):
    c = 0
    for i in range(x.shape[0]):
        if x[i] > 0 and x[i + 1] > 0:  # Python reads past the end only where x[-1] > 0
            c += 1
    return c


def next_if_negative(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i + 1] if x[i] < 0 else x[i]
    return s


def test_data_guarded_reads_are_checked_where_they_run():
    target = "cpu"  # the branches a run-time subscript needs (the python target: tests/corpus/numba_fe29)
    x3, x8 = np.arange(3.0), np.arange(8.0) - 2
    _check(branch_fixed_index, [(x3, -1.0), (x8, 1.0), (x3, 1.0)], target)
    _check(statement_else, [(x3, 1.0), (x8, 1.0), (x8, -1.0)], target)
    _check(guarded_next, [(np.array([1.0, -1, 2, -3]),), (np.array([1.0, -1, 2, 3]),)], target)
    _check(next_if_negative, [(np.array([1.0, -1, 2, 3]),), (np.array([1.0, 2, -3]),)], target)


def counts_of_computed(x, w):
    b = (x * 4).astype(np.int64)
    return np.bincount(b, weights=w), np.bincount(b // 2 + 1, minlength=3)


def pairs(D, k):
    i, j = np.triu_indices(D.shape[0], 1)
    lower = np.tril_indices(D.shape[0], k, D.shape[1])
    B = D.copy()
    B[lower] = 0.0
    return D[i, j].sum(), B, lower[1], D[np.triu_indices(D.shape[0])]


def unique_ends(x):
    u = np.unique(x)
    return u[0], u[-1], u.sum(), u.max(), len(u)


def ranks(x):
    order = np.argsort(x, kind="stable")
    r = np.empty_like(order)
    for i in range(x.shape[0]):
        r[order[i]] = i
    return r


def test_data_sized_values():
    x = np.array([0.1, 0.9, 0.5, 0.3, 0.7])
    _check(counts_of_computed, [(x, np.arange(5.0)), (x[:3] * 2, np.ones(3))])
    D = np.arange(20.0).reshape(4, 5)
    _check(pairs, [(D, 0), (D, -1), (D[:2, :3], 1), (D[:0, :0], 0)])
    _check(unique_ends, [(np.array([3.0, 1, 2, 1, 3]),), (np.array([2.5, 2.5]),), (np.zeros(0),)])
    _check(ranks, [(x,), (x[:0],)])
