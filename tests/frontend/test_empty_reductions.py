"""np.argmax/argmin and np.max/min without initial= of no elements raise ValueError in NumPy; a
kernel must not return the first element (or position 0) there: a size that may be 0 is assumed
non-zero and checked per call (a ValueError), an extent that may be 0 at some iteration is checked
where the statement runs (ValueError with NumPy's message, only where Python evaluates it)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse


def whole_argmax(x):
    return np.argmax(x)


def whole_min(x):
    return x.min()


def rows_argmin(A):
    return np.argmin(A, axis=1)


def rows_max(A):
    return np.max(A, axis=1)


def prefix_argmax(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for k in range(x.shape[0]):
        out[k] = np.argmax(x[:k])
    return out


def prefix_max(x):
    out = np.zeros(x.shape[0])
    for k in range(x.shape[0]):
        out[k] = np.max(x[:k])
    return out


def prefix_argmax_from_1(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for k in range(1, x.shape[0]):
        out[k] = np.argmax(x[:k])
    return out


def prefix_max_initial(x):
    out = np.zeros(x.shape[0])
    for k in range(x.shape[0]):
        out[k] = np.max(x[:k], initial=-1.0)
    return out


@pytest.mark.parametrize("fn, shape", [(whole_argmax, (0,)), (whole_min, (0,)), (rows_argmin, (3, 0)),
                                       (rows_max, (2, 0))])
def test_empty_argument_raises_value_error_like_numpy(fn, shape):
    x = np.empty(shape)
    with pytest.raises(ValueError):
        fn(x)
    with pytest.raises(ValueError):
        polyfuse.kernel(fn)(x)


def prefix_max_guarded(x):
    out = np.zeros(x.shape[0])
    for k in range(x.shape[0]):
        if k > 0:
            out[k] = np.max(x[:k])
    return out


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, message", [(prefix_argmax, "argmax of an empty sequence"),
                                         (prefix_max, "reduction operation maximum which has no identity")])
def test_slice_empty_at_some_iteration_raises_numpys_value_error(fn, message, target):
    x = np.array([1.0, 3.0, 2.0])
    with pytest.raises(ValueError, match=message):
        fn(x)
    with pytest.raises(ValueError, match=message):
        polyfuse.kernel(fn, target=target)(x)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_slice_guarded_against_empty_matches_python(target):
    x = np.array([1.0, 3.0, 2.0, 5.0])
    kernel = polyfuse.kernel(prefix_max_guarded, target=target)
    np.testing.assert_array_equal(kernel(x), kernel.py_func(x))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_nonempty_slices_and_initial_match_python(n, seed):
    x = np.random.default_rng(seed).random(n)
    for fn in (prefix_argmax_from_1, prefix_max_initial, whole_argmax, rows_argmin):
        arg = x.reshape(1, n) if fn is rows_argmin else x
        kernel = polyfuse.kernel(fn)
        np.testing.assert_array_equal(kernel(arg), kernel.py_func(arg))
