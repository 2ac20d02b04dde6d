"""Slice stores of a constant with a step computed at run time (frontend/range_steps.py:
strided_store): a sieve's ``is_p[i * i::i] = False`` is the loop it means."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def sieve(n):
    is_p = np.ones(n, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, n):
        if is_p[i]:
            is_p[i * i::i] = False
    return is_p


def strided_fill(x, a, b, s):
    x[a:b:s] = -1.5


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_sieve_with_strided_stores_matches(target):
    kernel = polyfuse.kernel(sieve, target=target)  # one variant serves every n
    for n in (2, 3, 30, 31):
        np.testing.assert_array_equal(kernel(n), sieve(n))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_strided_fill_takes_pythons_elements_or_refuses(target):
    k = polyfuse.kernel(strided_fill, target=target)
    for a, b, s in ((0, 10, 3), (2, 100, 4), (7, 3, 2), (9, 10, 1), (12, 20, 2)):
        got, want = np.zeros(10), np.zeros(10)
        k(got, a, b, s)
        strided_fill(want, a, b, s)
        np.testing.assert_array_equal(got, want)
    for a, b, s in ((0, 10, -2), (-3, 10, 2), (0, 0, 0)):  # Python walks backwards, counts from the end, raises
        with pytest.raises(AssertionError, match="slice step computed at run time must be positive"):
            k(np.zeros(10), a, b, s)


def store_each(x, v):
    for i in range(x.shape[0]):
        x[i] = v


@pytest.mark.parametrize("value", [np.int64(368), np.int64(-200), np.int64(5)])
def test_an_integer_store_out_of_range_wraps_on_every_target(value):
    """A NumPy integer stored into one element of a narrower dtype wraps on both targets, as
    numba's ``njit`` stores it and NumPy's array casts give it (``np.array(v).astype(np.int8)``);
    NumPy 2.4's own scalar assignment raises OverflowError into a signed dtype and wraps into an
    unsigned one (docs/subset.md).  The python target wrapped a computed value but raised for an
    argument (a Python int at run time) before its casts went through the operand's own dtype."""
    for dtype in (np.int8, np.uint8):
        wrapped = np.full(3, np.array(value).astype(dtype))
        for target in ("python", "cpu"):
            got = np.zeros(3, dtype)
            polyfuse.kernel(store_each, target=target)(got, value)
            np.testing.assert_array_equal(got, wrapped)
        reference = np.zeros(3, dtype)
        if dtype == np.int8 and not -128 <= int(value) <= 127:
            with pytest.raises(OverflowError, match=f"Python integer {int(value)} out of bounds for int8"):
                store_each(reference, value)  # NumPy's scalar assignment into a signed dtype
        else:
            store_each(reference, value)
            np.testing.assert_array_equal(reference, wrapped)
