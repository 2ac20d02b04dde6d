"""Stores through index arrays computed at run time, as NumPy 2.4 runs them (frontend/
advanced_index.py: ``_in_index_order``; frontend/arrays.py: ``Lowering.buffered``):

- ``x[rows, cols] = v``, ``x[idx2d] = v``, ``x[rows, 1:] = v``: positions written in C order of
  the broadcast index (whatever the index arrays' layout), a repeated position keeping the last
  value;
- ``x[idx] += v`` (any operator, several index arrays too): Python's ``g = x[idx]`` (a copy),
  ``g += v``, ``x[idx] = g``, so a repeated index is applied once, with its last occurrence's
  value (``np.add.at`` applies each occurrence).

Every kernel is compared with the undecorated function, duplicates and negative indices
included."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse

RNG = np.random.default_rng(11)
ROWS, COLS = RNG.integers(0, 4, 12), RNG.integers(-5, 5, 12)  # duplicates, negative columns


def pair_store(x, rows, cols, v):
    x[rows, cols] = v


def grid_store(x, idx2, v):
    x[idx2] = v


def rows_and_slice(x, rows, v):
    x[rows, 1:] = v


def outer_pairs(x, rows, cols):
    x[rows[:, None], cols] = 1.5


def shifted_pairs(x, idx):
    i = np.ogrid[0:3]
    x[i + idx[i], idx] = 1.0


def add(x, idx, v):
    x[idx] += v


def pair_add(x, rows, cols, v):
    x[rows, cols] += v


def scale(x, idx):
    x[idx] *= 2.0


def reversed_subtract(x, idx, v):
    x[idx] -= v[::-1]


def reads_itself(x, idx):
    x[idx] += x[idx[::-1]]


def row_add(A, rows, B):
    A[rows] += B


def add_in_a_loop(x, idx, v, steps):
    for t in range(steps):
        x[idx] += v * t


def add_at(x, idx, v):
    np.add.at(x, idx, v)


def update_in_place(x, idx):
    x[idx] = x[idx] ** 2  # every x[idx] is read before one is written (fz25: fused, a repeat squared twice)


def power_in_place(x, idx):
    x[idx] **= 2


def floor_divide_in_place(x, idx):
    x[idx] //= 2


def into_a_view(x, idx, v):
    y = x[1:]
    y[idx] = v  # negative indices count from the view's end (fz25: y[-1] was x[0])


def add_into_a_view(x, idx, v):
    y = x[1:]
    y[idx] += v


def into_reversed_columns(A, idx):
    A[:, ::-1][:, idx] = 1.0


def product_into_pairs(X, rows, cols, A, b):
    X[rows, cols] = A @ b  # fz25: a repeated position got the sum of its rows of A @ b


def product_into_rows(X, rows, A, B):
    X[rows] = A @ B


def gathers_from_views(x, idx):
    y = x[1:]
    return y[idx] + x[::-1][idx] + x[:, None][idx, 0]


CASES = [
    (pair_store, lambda: (np.zeros((4, 5)), ROWS, COLS, RNG.random(12))),
    (pair_store, lambda: (np.zeros((4, 5)), ROWS, COLS, 2.0)),
    (grid_store, lambda: (np.zeros(6), RNG.integers(0, 6, (3, 4)), RNG.random((3, 4)))),
    (grid_store, lambda: (np.zeros(6), np.asfortranarray(RNG.integers(-6, 6, (3, 4))), RNG.random(4))),
    (rows_and_slice, lambda: (np.zeros((4, 5)), ROWS, RNG.random((12, 4)))),
    (outer_pairs, lambda: (np.zeros((4, 5)), np.array([0, 2, 2]), np.array([1, 1, 4]))),
    (shifted_pairs, lambda: (np.zeros((6, 7)), np.array([1, 1, 2]))),
    (add, lambda: (np.zeros(6), RNG.integers(0, 6, 20), RNG.random(20))),
    (add, lambda: (np.zeros(6), RNG.integers(-6, 6, 20), 1.0)),
    (add, lambda: (np.zeros(6, dtype=np.int64), RNG.integers(0, 6, 20), 3)),
    (pair_add, lambda: (np.zeros((4, 5)), ROWS, COLS, RNG.random(12))),
    (scale, lambda: (np.arange(6.0), RNG.integers(0, 6, 9))),
    (reversed_subtract, lambda: (np.arange(6.0), RNG.integers(0, 6, 9), RNG.random(9))),
    (reads_itself, lambda: (np.arange(6.0), RNG.integers(0, 6, 9))),
    (row_add, lambda: (np.zeros((4, 3)), np.array([0, 3, 0]), RNG.random((3, 3)))),
    (add_in_a_loop, lambda: (np.zeros(5), RNG.integers(0, 5, 7), RNG.random(7), 3)),
    (add_at, lambda: (np.zeros(5), RNG.integers(0, 5, 7), RNG.random(7))),
    (update_in_place, lambda: (np.arange(2.0, 7.0), np.array([0, 0, -1, 4, 1]))),
    (power_in_place, lambda: (np.arange(2.0, 7.0), np.array([0, 0, -1, 4, 1]))),
    (floor_divide_in_place, lambda: (np.arange(5, 10), np.array([0, 0, -1, 4, 1]))),
    (into_a_view, lambda: (np.arange(5.0), np.array([-1, 0, -4]), RNG.random(3))),
    (add_into_a_view, lambda: (np.arange(5.0), np.array([-1, -1, 2]), RNG.random(3))),
    (into_reversed_columns, lambda: (np.zeros((2, 5)), np.array([-1, 1]))),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, make", CASES, ids=[f"{fn.__name__}{k}" for k, (fn, _) in enumerate(CASES)])
def test_stores_through_index_arrays_as_numpy(fn, make, target):
    args = make()
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn(*expected)
    polyfuse.kernel(fn, target=target, verify=True)(*actual)
    assert actual[0].dtype == expected[0].dtype
    np.testing.assert_array_equal(actual[0], expected[0])


def test_a_buffered_add_differs_from_add_at_as_in_numpy():
    idx, v = np.array([1, 1, 1]), np.array([1.0, 2.0, 4.0])
    buffered, each = np.zeros(3), np.zeros(3)
    polyfuse.kernel(add)(buffered, idx, v)
    polyfuse.kernel(add_at)(each, idx, v)
    assert buffered[1] == 4.0 and each[1] == 7.0  # the last occurrence once; every occurrence


def test_index_errors_and_casts_as_numpy():
    with pytest.raises(IndexError):
        polyfuse.kernel(pair_store)(np.zeros((4, 5)), np.array([4]), np.array([0]), 1.0)
    with pytest.raises(polyfuse.UnsupportedError, match="float value into integer") as info:  # NumPy: UFuncTypeError
        polyfuse.kernel(add)(np.zeros(3, dtype=np.int64), np.array([1]), 0.5)
    assert "array 'x' (updated as x[idx])" in str(info.value) and "pf_" not in str(info.value)  # not the copy


def or_float(x, idx):
    x[idx] |= x[idx] * 1.5


def test_an_update_through_an_index_array_is_named_as_written():
    with pytest.raises(polyfuse.UnsupportedError, match=r"x\[idx\] \|= x\[idx\] \* 1.5 is refused") as info:
        polyfuse.kernel(or_float)(np.zeros(3, dtype=np.int64), np.array([1]))
    assert "pf_" not in str(info.value)


@pytest.mark.parametrize("idx", [np.array([-1, 0, 2, -4]), np.array([3]), np.array([-5])])
def test_gathers_from_views_wrap_and_check_against_the_view(idx):
    x = np.arange(5.0)
    try:
        expected = gathers_from_views(x, idx)
    except IndexError:
        with pytest.raises(IndexError):
            polyfuse.kernel(gathers_from_views)(x, idx)
        return
    np.testing.assert_array_equal(polyfuse.kernel(gathers_from_views)(x, idx), expected)


def test_a_store_outside_a_view_raises_as_numpy():
    with pytest.raises(IndexError):
        polyfuse.kernel(into_a_view)(np.arange(5.0), np.array([-5]), 1.0)
    with pytest.raises(IndexError):
        polyfuse.kernel(into_a_view)(np.arange(5.0), np.array([4]), 1.0)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, make", [
    (product_into_pairs, lambda: (np.zeros((3, 3)), np.array([0, 2, 2, 1]), np.array([0, 2, 2, 1]),
                                  RNG.random((4, 5)), RNG.random(5))),
    (product_into_rows, lambda: (np.zeros((3, 2)), np.array([0, 2, 2, -1]), RNG.random((4, 5)),
                                 RNG.random((5, 2))))])
def test_a_product_stored_through_index_arrays_keeps_the_last_row(fn, make, target):
    args = make()
    expected = [a.copy() for a in args]
    actual = [a.copy() for a in args]
    fn(*expected)
    polyfuse.kernel(fn, target=target, verify=True)(*actual)
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-12)  # (a sum of 5 products: BLAS's order)
