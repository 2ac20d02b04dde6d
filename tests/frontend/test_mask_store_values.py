"""``x[mask] = value``: a masked read ``a[mask]`` in the value is read unmasked (``a``) only where
the value is computed element by element from it (operators, ufuncs, ``np.where``, ``astype``):
NumPy pairs the selected elements in order there.  A scan, a reduction, a reorder or a subscript
of the selection (``np.cumsum(x[m])``, ``x[m].mean()``, ``x[m][::-1]``) depends on which elements
are selected: refused (fz25: ``np.cumsum(x[m])`` was ``np.cumsum(x)`` where ``m`` holds)."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def scaled(x, m):
    x[m] = np.sqrt(np.abs(x[m])) + np.where(x[m] > 1, x[m], 0.0)


def cast(x, m):
    x[m] = np.maximum(x[m], 0.5).astype(np.float64) * 2 - abs(x[m])


def scan(x, m):
    x[m] = np.cumsum(x[m])


def centred(x, m):
    x[m] = x[m] - x[m].mean()


def sorted_in(x, m):
    x[m] += np.sort(x[m])


X = np.array([0.5, -1.0, 2.0, 3.0, -0.5, 4.0])


@pytest.mark.parametrize("fn", [scaled, cast])
def test_element_by_element_values_as_numpy(fn):
    expected, actual = X.copy(), X.copy()
    fn(expected, expected > 0)
    polyfuse.kernel(fn)(actual, actual > 0)
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("fn", [scan, centred, sorted_in])
def test_values_of_the_selection_as_a_whole_are_refused(fn):
    with pytest.raises(polyfuse.UnsupportedError, match="other than element by element"):
        polyfuse.kernel(fn)(X.copy(), X > 0)
