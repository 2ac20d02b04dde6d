"""``np.bincount(x, weights=None, minlength=0)`` of a 1-d integer array argument the kernel never
writes: the call computes the result's length from ``x`` before anything runs (NumPy's
ValueErrors for negative values and ``minlength``), the kernel counts by a run-time subscripted
``+=`` (frontend/arrays.py: ``bincount``)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse
from polyfuse import UnsupportedError


def counts(x):
    return np.bincount(x)


def counts_at_least(x, k):
    return np.bincount(x, minlength=k)


def weighted_share(labels, w, k):
    sums = np.bincount(labels, weights=w, minlength=k)
    return sums / w.sum()


def classes_seen(y):
    c = np.bincount(y, None, 2)
    seen = 0
    for i in range(c.shape[0]):
        if c[i] > 0:
            seen += 1
    return seen, c.argmax()


def counts_of_written(x):
    x[0] = 3
    return np.bincount(x)


def counts_of_floats(x):
    return np.bincount(x)


DATA = [np.array([0, 1, 1, 5]), np.array([2, 2]), np.zeros(0, np.int64), np.array([1, 0, 1], np.int32),
        np.array([True, False, True]), np.array([3, 3, 0], np.uint8)]


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_counts_match_numpy(target):
    kernels = [polyfuse.kernel(f, target=target) for f in (counts, counts_at_least)]
    for x in DATA:  # one kernel, calls of one shape with other values too: the length is per call
        assert_same_result(counts(x), kernels[0](x))
        assert_same_result(counts_at_least(x, 4), kernels[1](x, 4))
    for x in (np.array([0, 1]), np.array([0, 9])):
        assert_same_result(counts(x), kernels[0](x))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (weighted_share, (np.array([0, 3, 3, 1]), np.array([0.5, 1.0, 2.0, 0.25]), 6)),
    (weighted_share, (np.array([0, 3, 3]), np.array([1, 2, 3]), 2)),
    (classes_seen, (np.array([0, 1, 1, 4]),)), (classes_seen, (np.zeros(0, np.int64),)),
])
def test_bincount_inside_the_kernel(func, args, target):
    assert_same_result(func(*args), polyfuse.kernel(func, target=target)(*args))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_empty_data_with_weights_gives_float_zeros(target):
    """NumPy returns int64 zeros for an empty ``x`` before it reads the weights; the kernel's
    result keeps the weighted sums' float64 for every call (docs/subset.md): equal values."""
    x, w = np.zeros(0, np.int64), np.zeros(0)
    want = _weighted_counts(x, w, 3)
    got = polyfuse.kernel(_weighted_counts, target=target)(x, w, 3)
    assert want.dtype == np.int64 and got.dtype == np.float64
    np.testing.assert_array_equal(got, want)


def _weighted_counts(x, w, k):
    return np.bincount(x, weights=w, minlength=k)


@pytest.mark.parametrize("func, args, message", [
    (counts, (np.array([1, -1]),), "no negative elements"),
    (counts_at_least, (np.array([1]), -1), "'minlength' must not be negative"),
    (weighted_share, (np.array([0, 1]), np.ones(3), 1), None),
])
def test_numpys_value_errors(func, args, message):
    with pytest.raises(ValueError, match=message):
        func(*args)
    with pytest.raises(ValueError, match=message):
        polyfuse.kernel(func)(*args)


@pytest.mark.parametrize("func, args", [(counts_of_written, (np.array([0, 1]),)),
                                        (counts_of_floats, (np.array([0.0, 1.0]),))])
def test_refused_where_the_length_is_not_the_calls(func, args):
    with pytest.raises(UnsupportedError, match="bincount"):
        polyfuse.kernel(func)(*args)
