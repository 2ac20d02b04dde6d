"""Forms session 24 (fe27) added or fixed, on the python target (cheap): arithmetic of one
data-sized value returned, and the length of a row selection written inline, which was a wrong
answer (``X[mask].shape[0]`` taken as ``X[i].shape[0]``, the row length) and is now the mask's
count."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def unique_doubled(x):
    u = np.unique(x)
    return u * 2


def nonzero_shifted(x):
    return np.nonzero(x > 0)[0] + 1, len(x)


def rows_selected_inline(X, t):
    return X[X[:, 0] > t].shape[0]


@pytest.mark.parametrize("func", [unique_doubled, nonzero_shifted])
def test_arithmetic_of_a_data_sized_value_is_numpys(func):
    kernel = polyfuse.kernel(func, target="python")
    for x in (np.array([3.0, 1.0, np.nan, 1.0, -2.0]), np.zeros(0), np.arange(-3, 4)):
        expected, actual = func(x.copy()), kernel(x.copy())
        for e, a in zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]:
            assert type(a) is type(e) and np.asarray(a).dtype == np.asarray(e).dtype
            np.testing.assert_array_equal(a, e)


def test_the_length_of_an_inline_row_selection_is_its_count():
    X = np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]])
    kernel = polyfuse.kernel(rows_selected_inline, target="python")
    for t in (0.0, 5.0, -5.0):
        assert kernel(X, t) == rows_selected_inline(X, t) and type(kernel(X, t)) is int
    assert kernel(X[:0], 0.0) == 0
