"""A branch that does not run assumes nothing (frontend/arrays.py: ``Lowering.assume_same_length``,
``_branches``): extents NumPy requires equal inside ``if a.shape[0] == b.shape[0]:`` are checked
only where the test holds, and ``t = a if c else b`` with array values is an ``if`` statement,
so the untaken branch is neither evaluated nor checked.  Compared with the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def if_statement(a, b):
    if a.shape[0] == b.shape[0]:
        c = a + b
    else:
        c = a * 2
    return c


def if_expression(a, b):
    c = a + b if a.shape[0] == b.shape[0] else a * 2
    return c


def reductions_in_branches(a, b):
    s = np.sum(a * b) if a.shape[0] == b.shape[0] else np.sum(a)
    return s


def returned_names(a, b):
    return a if a.shape[0] == b.shape[0] else b


def returned_values(a, b):
    return a + 1 if a.shape[0] == b.shape[0] else b * 2


def in_place(a, b):
    t = np.zeros(3)
    t += a if a.shape[0] == 3 else b[:3]
    return t


def scalar_choice_in_a_loop(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] if a[i] > b[i] else b[i]


SHAPES = [(3, 3), (3, 4), (5, 4)]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn", [if_statement, if_expression, reductions_in_branches, returned_names,
                                returned_values, in_place])
def test_the_branch_that_does_not_run_is_not_checked(fn, target):
    k = polyfuse.kernel(fn, target=target, verify=True)
    for n, m in SHAPES:
        a, b = np.arange(n, dtype=np.float64), np.arange(m, dtype=np.float64) + 0.5
        want, got = fn(a.copy(), b.copy()), k(a, b)
        assert type(got) is type(want) and np.shape(got) == np.shape(want), (n, m)
        np.testing.assert_array_equal(got, want)


def test_a_scalar_choice_stays_an_expression():
    a, b = np.random.default_rng(1).random((2, 6))
    expected, actual = np.zeros(6), np.zeros(6)
    scalar_choice_in_a_loop(a, b, expected)
    polyfuse.kernel(scalar_choice_in_a_loop)(a, b, actual)
    np.testing.assert_array_equal(actual, expected)


def test_the_branch_that_runs_is_still_checked():
    def k(a, b):
        return a + b if a.shape[0] > 1 else a
    with pytest.raises(polyfuse.ArgumentError):  # NumPy: ValueError (3 and 4 do not broadcast)
        polyfuse.kernel(k)(np.ones(3), np.ones(4))
    np.testing.assert_array_equal(polyfuse.kernel(k)(np.ones(1), np.ones(4)), np.ones(1))


def test_views_bound_in_both_branches_are_refused_where_read():
    def k(a, b):
        c = a[1:] if a.shape[0] > b.shape[0] else b[1:]
        return c * 2
    with pytest.raises(polyfuse.UnsupportedError, match="read outside the loop or branch"):
        polyfuse.kernel(k)(np.ones(3), np.ones(4))


def chosen_in_a_tuple(alpha, X, v):
    return (np.outer(v[1:], X[0]) if alpha > 0.5 else (X + v[None, :])), X[1, 2]


def same_extents_in_a_tuple(alpha, X, v):
    return (X * 2.0 if alpha > 0.5 else X + v[None, :]), X[1, 2]


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_tuple_item_chosen_between_arrays(target):
    """A returned tuple's ``a if c else b`` item is one array only where both branches give the
    same extents (fz25: it returned memory never written): for a test of the data, extents of the
    sizes not proven equal are required equal per call (fe32), so a call where they differ is
    refused (ArgumentError) and one where they agree gets Python's values."""
    rng = np.random.default_rng(5)
    X, v = rng.random((3, 4)), rng.random(4)
    chosen = polyfuse.kernel(chosen_in_a_tuple, target=target)
    for alpha in (0.7, 0.2):
        got, want = chosen(alpha, X, v), chosen_in_a_tuple(alpha, X, v)
        np.testing.assert_array_equal(got[0], want[0])
    with pytest.raises(polyfuse.ArgumentError, match="extents they need to be equal differ"):
        chosen(0.7, X[:2], v)
    kernel = polyfuse.kernel(same_extents_in_a_tuple, target=target)
    for alpha in (0.7, 0.2):
        got, want = kernel(alpha, X, v), same_extents_in_a_tuple(alpha, X, v)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
