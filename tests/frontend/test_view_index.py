"""An element of an array the NumPy lowering names (``order = np.argsort(x)``) used as a
subscript inside another subscript (``x[order[i]]``, ``ranks[order[i]] = i``): the subscript is
read as that array's element (frontend/arrays.py: ``index``)."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def sorted_by_order(x):
    order = np.argsort(x, kind="stable")
    s = np.empty_like(x)
    for i in range(len(x)):
        s[i] = x[order[i]]
    return s


def ranks(x):
    order = np.argsort(x, kind="stable")
    r = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        r[order[i]] = i
    return r


def through_a_slice(x, idx):
    head = idx[1:]
    s = 0.0
    for i in range(head.shape[0]):
        s += x[head[i]]
    return s


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (sorted_by_order, (np.array([3.0, -1.0, 2.0, 2.0, 0.5]),)),
    (ranks, (np.array([3.0, -1.0, 2.0, 2.0, 0.5]),)),
    (through_a_slice, (np.arange(5.0), np.array([4, 3, 0, 3]))),
])
def test_element_of_a_named_array_as_subscript(func, args, target):
    expected = func(*args)
    got = polyfuse.kernel(func, target=target)(*args)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)
