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


def row_counts(L, flag):
    M = L - 1
    s = 0
    if flag > 0:  # M[2] of a 2-row L in the branch that does not run: no IndexError
        s = np.bincount(M[2]).sum()
    return s + np.bincount(M[-1], minlength=3)


def nearest_counts(X, C):
    lab = np.argmin(np.linalg.norm(X[:, None, :] - C[None, :, :], axis=2), axis=1)
    return np.bincount(lab)


def ring_means(img):
    h, w = img.shape
    yy, xx = np.indices((h, w))
    r = np.sqrt((xx - w // 2) ** 2 + (yy - h // 2) ** 2).astype(np.int64)
    return np.bincount(r.ravel(), weights=img.ravel()) / np.maximum(np.bincount(r.ravel()), 1)


def test_bincount_of_a_row_a_norms_argmin_and_indices():
    """``x`` a matrix's row (its IndexError, an axis too short, the kernel's own where the read
    runs) or the argmin of np.linalg.norm of arguments: the call computes them for the length."""
    rows, nearest = polyfuse.kernel(row_counts, target="python"), polyfuse.kernel(nearest_counts, target="python")
    L = np.array([[1, 2], [3, 1]])
    for args in ((L, 0), (np.vstack([L, [4, 6]]), 1), (np.array([[1, 1]], np.int32), 0)):
        assert_same_result(row_counts(*args), rows(*args))
    with pytest.raises(polyfuse.ArgumentError, match="out-of-bounds"):  # Python's IndexError at M[2]
        rows(L, 1)
    X = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 3.0], [np.nan, 0.0]])
    for C in (np.array([[0.5, 0.5], [0.5, 0.5], [2.0, 2.0]]), np.array([[9.0, 9.0]])):
        assert_same_result(nearest_counts(X, C), nearest(X, C))
    rings = polyfuse.kernel(ring_means, target="python")  # through h, w = img.shape and np.indices
    for img in (np.arange(12.0).reshape(3, 4), np.zeros((0, 2))):
        assert_same_result(ring_means(img), rings(img))


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
