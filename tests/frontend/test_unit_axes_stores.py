"""Stores of values with leading axes of extent 1 (cp36): NumPy drops them for an array target
(``B[i, :] = C[i:i + 1, None, ::-1][0]``, ``B[1:, :] = C[None, 1:, :]``), and refuses an array
for one element (``out[i] = A[i]`` of an ``(n, 1)`` ``A``: *setting an array element with a
sequence*). Both once crashed the lowering (StopIteration in ``frontend/arrays.py: _indexer``,
an ``InternalError``) where the extents are specialised to 1 at the call."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def row_through_unit_axes(B, C):
    for i in range(B.shape[0]):
        B[i, :] = C[i:i + 1, None, ::-1][0] + 1.0


def rows_under_a_new_axis(B, C):
    B[1:, :] = C[None, 1:, :] - 1.0


def element_from_a_row(A, out, n):
    for i in range(n):
        out[i] = A[i] * 2.0 + n


@pytest.mark.parametrize("fn", [row_through_unit_axes, rows_under_a_new_axis])
def test_leading_unit_axes_are_dropped_as_numpy_drops_them(fn):
    C = np.arange(12.0).reshape(4, 3)
    expected, actual = np.zeros((4, 3)), np.zeros((4, 3))
    fn(expected, C)
    polyfuse.kernel(fn, verify=True)(actual, C)
    np.testing.assert_array_equal(actual, expected)


def test_an_array_of_one_element_into_an_element_is_refused_as_numpy_refuses_it():
    A = np.ones((6, 1))
    with pytest.raises(ValueError, match="sequence"):
        element_from_a_row(A, np.zeros(6), 4)
    with pytest.raises(polyfuse.UnsupportedError, match="rank 1, to a target of rank 0"):
        polyfuse.kernel(element_from_a_row)(A, np.zeros(6), 4)
