"""Refusals and edge cases of session 18's numba forms (tests/corpus/numba_fe19.py has the
kernels that compile): each refusal names the construct at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import UnsupportedError


def collect(x):
    res = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            res.append(x[i])
    res.pop()  # ERR
    return np.array(res)


def round_python_float(x, t):
    return round(t * 2.0, 3) + x[0]  # ERR


def local_read_outside(x, y):
    for i in range(x.shape[0]):
        if x[i] > 0:
            t = x[i]
        y[i] = t if x[i] > -1.0 else 0.0  # ERR: read outside the branch, where Python may skip it


def _bump(counts, k):
    for _ in range(2):
        counts[k] += 1
    return counts[k]


def bump_read_outside(counts, ks):
    s = 0
    for i in range(ks.shape[0]):
        s += counts[0] + _bump(counts, ks[i])  # ERR: the statement reads what the helper writes
    return s


COEF = np.array([0.25, 0.5, 0.25])


def global_array(x, out):
    for i in range(out.shape[0]):
        COEF[i % 3] = x[i]  # ERR: a write of a global array (reads are frozen constants)


def byte_table_written(x):
    t = np.frombuffer(b"abcd", dtype=np.uint8)
    for i in range(x.shape[0]):
        t[i % 4] = x[i]  # ERR: NumPy's array of a bytes object is read-only (ValueError)
    return t


def byte_table_sliced(x):
    t = np.frombuffer(b"abcd", dtype=np.uint8)
    v = t[1:]  # ERR: a view of the read-only table
    return v[0] + x[0]


def _clear(t, i):
    t[i] = 0  # ERR: a write of the read-only table, in a helper


def byte_table_cleared(x):
    t = np.frombuffer(b"abcd", dtype=np.uint8)
    _clear(t, 1)
    return t[1] + x[0]


def byte_table_ragged(x):
    t = np.frombuffer(b"abc", dtype=np.int16)  # ERR: NumPy raises ValueError (3 bytes, 2-byte items)
    return t[0] + x[0]


@pytest.mark.parametrize("fn, args, words", [
    (byte_table_written, (np.ones(3, np.uint8),), "np.frombuffer of a bytes constant, a read-only array"),
    (byte_table_sliced, (np.ones(3, np.uint8),), "np.frombuffer of a bytes constant, a read-only array"),
    (byte_table_ragged, (np.ones(3, np.uint8),), "np.frombuffer raises ValueError here"),
    (byte_table_cleared, (np.ones(3, np.uint8),), "'t' is np.frombuffer of a bytes constant"),
    (global_array, (np.ones(4), np.zeros(3)), "'COEF' is a global NumPy array, which the kernel reads as a constant"),
    (bump_read_outside, (np.zeros(3, np.int64), np.array([1, 2])), "helper _bump() returns a value"),
    (collect, (np.ones(3),), "list 'res' used here"),
    (round_python_float, (np.ones(3), 1.5), "round(x, ndigits) of a Python float"),
    (local_read_outside, (np.ones(3), np.zeros(3)), "local 't' may be read before it is assigned"),
])
def test_refused_at_the_line(fn, args, words):
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert words in str(info.value)
    assert f"{__file__}:" in str(info.value)


def strided(x, k, out):
    for i in range(0, x.shape[0], k):
        out[i] = x[i] * 2


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_zero_range_step_raises_where_python_does(target):
    """Python raises ValueError; the loop over the count asserts (frontend/range_steps.py)."""
    with pytest.raises(AssertionError, match="range\\(\\) arg 3 must not be zero"):
        polyfuse.kernel(strided, target=target)(np.ones(4), 0, np.zeros(4))
    got, want = np.zeros(7), np.zeros(7)
    polyfuse.kernel(strided, target=target)(np.arange(7.0), 3, got)
    strided(np.arange(7.0), 3, want)
    np.testing.assert_array_equal(got, want)


def weak_bool_result(x, t):
    found = False
    for i in range(x.shape[0]):
        if x[i] > t:
            found = i
    return found


def test_a_python_bool_literal_is_weak():
    """``r = False`` then ``r = i``: a Python int, as Python returns (NEP 50: a Python bool is weak)."""
    x = np.arange(5.0)
    got = polyfuse.kernel(weak_bool_result, target="python")(x, 2.0)
    assert type(got) is int and got == weak_bool_result(x, 2.0)


def where_bools(x, b1, b2):
    return np.where(x > 0, b1, b2), np.where(x > 0, True, False)


def where_bool_count(x):
    s = 0
    for i in range(x.shape[0]):
        s += np.where(x[i] > 0, True, False)  # a numpy bool: the sum is np.int64
    return s


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_np_where_of_bools_is_a_numpy_bool(target):
    """NumPy's np.where of two bools (arrays or Python bools) is a bool array, not int64."""
    x = np.array([1.0, -1.0, 2.0])
    b1 = np.array([True, False, True])
    got, want = polyfuse.kernel(where_bools, target=target)(x, b1, ~b1), where_bools(x, b1, ~b1)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    got_count = polyfuse.kernel(where_bool_count, target=target)(x)
    assert type(got_count) is type(where_bool_count(x)) and got_count == where_bool_count(x)


def rank_and_last(A):
    return len(A.shape) * 10 + A.shape[-1]


def test_len_of_a_shape_is_the_rank():
    A = np.zeros((3, 4, 5))
    assert polyfuse.kernel(rank_and_last, target="python")(A) == rank_and_last(A) == 35
