"""Lengths as NumPy clips them (frontend/arrays.py: ``Lowering.length``): a slice that runs past an
empty or short axis has length 0, not a negative one, so ``len``/``.shape`` and a mean's count
agree with NumPy; ``np.diff``/``np.roll`` of empty axes give empty arrays.  Two slices NumPy
requires equal that are both empty by different amounts (``b[1:] = a[2:]`` of empty arrays) fall
outside what the compiled code assumes (raw extents equal, ``Lowering.assume_same_length``): such
calls run the undecorated function, which explain() says.  Compared with the undecorated function."""

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
    (shifted_store, [(1, 0), (2, 1), (3, 2), (0, 0), (0, 1), (1, 1)]),
    (sum_of_slices, [(1, 2), (3, 4), (0, 0), (1, 0), (0, 1)]),
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


@pytest.mark.parametrize("fn, lengths", [(shifted_store, (4, 2)), (sum_of_slices, (3, 2))])
def test_lengths_that_differ_and_are_not_empty_are_refused_per_call(fn, lengths):
    """NumPy raises ValueError (3 into 1; 2 against 0); polyfuse raises ArgumentError."""
    with pytest.raises(ValueError):
        fn(*_vectors(*lengths))
    with pytest.raises(polyfuse.ArgumentError):
        polyfuse.kernel(fn)(*_vectors(*lengths))


WEIGHTS = np.array([2.0, 3.0])


def shifted_scaled(x, y):
    y[1:] = x[2:] * WEIGHTS[1]
    return y


@pytest.mark.parametrize("fn", [shifted_store, shifted_scaled])
def test_slices_empty_by_different_amounts_run_the_undecorated_function(fn):
    """The kernel the user called runs it (shifted_scaled: the kernel that takes the global array
    as a parameter hands the call back); explain() gives the sizes and says what this call runs."""
    k = polyfuse.kernel(fn)
    np.testing.assert_array_equal(k(*_vectors(4, 3)), fn(*_vectors(4, 3)))
    assert k.python_calls == 0
    for lengths in [(0, 0), (0, 1), (0, 0)]:
        np.testing.assert_array_equal(k(*_vectors(*lengths)), fn(*_vectors(*lengths)))
    assert k.python_calls == 3
    section = k.explain(*_vectors(0, 0))["runs in python"]
    assert section["this call"] == "runs the undecorated function" and "x__shape0" in section["sizes"]
    assert k.explain(*_vectors(4, 3))["runs in python"]["this call"] == "runs the compiled code"
