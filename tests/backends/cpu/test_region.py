"""The LLVM rules for loops kept as written (backends/cpu/region.py), against the undecorated
function: break/continue in nested loops, the checked-once copy of a range loop whose variable
is a subscript (and the checked copy it falls back to), and a loop inside a data-dependent if."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="the LLVM backend is not available")


def same_as_python(fn, *args):
    expected = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    fn(*expected)
    actual = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    polyfuse.kernel(fn, target="cpu", verify=True)(*actual)
    for e, a in zip(expected, actual):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(a, e)


def row_sums(lo, hi, data, y):
    for i in range(y.shape[0]):
        for k in range(lo[i], hi[i]):
            y[i] += data[k]


def test_rows_inside_the_array_take_the_copy_checked_before_the_loop():
    data = np.arange(1.0, 9.0)
    same_as_python(row_sums, np.array([0, 2, 5]), np.array([2, 5, 8]), data, np.zeros(3))


def test_negative_starts_wrap_as_in_python():
    data = np.arange(1.0, 9.0)  # range(-3, 2) reads data[-3], data[-2], data[-1], data[0], data[1]
    same_as_python(row_sums, np.array([-3, 0, 6]), np.array([2, 1, 8]), data, np.zeros(3))


def test_a_row_past_the_end_raises_index_error():
    with pytest.raises(IndexError, match="out of bounds"):
        polyfuse.kernel(row_sums, target="cpu")(np.array([0, 6]), np.array([2, 9]), np.ones(8), np.zeros(2))


def nested_jumps(A, out):
    for i in range(A.shape[0]):
        total = 0.0
        for j in range(A.shape[1]):
            if A[i, j] < 0.0:
                continue
            k = 0
            while True:
                k += 1
                if k > 3 or A[i, j] * k > 2.0:
                    break
            total += A[i, j] * k
            if total > 5.0:
                break
        out[i] = total


def test_break_and_continue_leave_the_innermost_loop():
    rng = np.random.default_rng(3)
    same_as_python(nested_jumps, rng.standard_normal((7, 6)), np.zeros(7))


def guarded_loop(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            j = 0
            while j < x[i] * 4.0:
                out[i] += 1.0
                j += 1


def test_a_loop_inside_a_data_dependent_if_runs_only_where_it_holds():
    same_as_python(guarded_loop, np.array([0.1, 0.9, 0.6, 0.2, 1.7]), np.zeros(5))
