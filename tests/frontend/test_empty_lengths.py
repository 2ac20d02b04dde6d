"""Lengths as NumPy clips them (frontend/arrays.py: ``_same_length``, ``Lowering.length``): a slice
that runs past an empty or short axis has length 0, not a negative one, so a store of nothing,
``len``/``.shape`` and a mean's count agree with NumPy; ``np.diff``/``np.roll`` of empty axes give
empty arrays.  Each kernel is compared with the undecorated function on the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def shifted_store(x, y):
    y[1:] = x[2:]
    return y


def sum_of_slices(x, y):
    return x[1:] + y[2:]


def slice_length(x):
    c = x[1:] * 2
    return len(c) + x[2:].shape[0]


def slice_mean(x):
    return np.mean(x[2:])


def diffs(x):
    return np.diff(x)


def second_diff_sum(x):
    return np.diff(x, n=2).sum()


def rolled(x):
    return np.roll(x, 2)


def diff_store(x, y):
    y[1:] = np.diff(x)
    return y


def _vectors(*lengths):
    return tuple(np.arange(float(n)) ** 2 for n in lengths)


CASES = [
    (shifted_store, [(0, 0), (1, 0), (0, 1), (3, 2)]),
    (sum_of_slices, [(0, 0), (1, 0), (0, 2), (3, 4)]),
    (slice_length, [(0,), (1,), (4,)]),
    (slice_mean, [(0,), (1,), (2,), (5,)]),
    (diffs, [(0,), (1,), (4,)]),
    (second_diff_sum, [(0,), (1,), (2,), (5,)]),
    (rolled, [(0,), (2,), (5,)]),
    (diff_store, [(0, 0), (1, 1), (3, 3)]),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, lengths", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_empty_and_short_axes_as_numpy(fn, lengths, target):
    k = polyfuse.kernel(fn, target=target, verify=True)
    for n in lengths:
        with np.errstate(all="ignore"):
            want = fn(*_vectors(*n))
            got = k(*_vectors(*n))
        assert np.shape(got) == np.shape(want), n
        np.testing.assert_array_equal(got, want, err_msg=str(n))


def test_a_roll_of_a_constant_extent_is_mod_its_length():
    x = np.arange(1.0)  # the unit axis is a constant of the signature: roll by 2 is roll by 0
    assert np.array_equal(polyfuse.kernel(rolled)(x), rolled(x))


def test_lengths_that_differ_and_are_not_empty_are_still_refused():
    with pytest.raises(polyfuse.ArgumentError):
        polyfuse.kernel(shifted_store)(*_vectors(4, 2))  # NumPy: ValueError (3 into 1)
