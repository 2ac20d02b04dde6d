"""np37's forms at their edges: np.pad's mirrored modes and size widths, np.add.at of (rows, cols)
pairs, np.cumsum dtype=, np.diff of array ends, the imputation idiom X[np.where(M)] = ..., tuple
locals of array elements, sliding_window_view and np.ix_; each kernel (python backend, program
order: the subject is the front end) against the undecorated function, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_checks import check_calls
from numpy.lib.stride_tricks import sliding_window_view

import polyfuse


def _check(fn, calls):
    return check_calls(fn, calls, "python")


def pads(x, k, img):
    return (np.pad(x, (2, 1), mode="reflect"), np.pad(x, 2, mode="symmetric"), np.pad(x, (1, 3), mode="wrap"),
            np.pad(x, (k, k), mode="reflect"), np.pad(img, k // 2 + 1, mode="edge"), np.pad(img, (k, 0)))


def test_pad_mirrored_modes_and_size_widths():
    rng = np.random.default_rng(0)
    k = _check(pads, [(rng.random(n), w, rng.random((n, 3))) for n in (3, 5) for w in (0, 2)])
    with pytest.raises(polyfuse.ArgumentError):  # a mirror wider than the axis: NumPy mirrors again
        k(rng.random(3), 3, rng.random((3, 3)))


def add_at_pairs(y, p, v, k):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (y, p), 1)
    w = np.zeros((k, k))
    np.add.at(w, (p, y), v)
    np.maximum.at(w, (y, y), 0.5)
    return cm, w


def test_ufunc_at_of_row_and_column_pairs_applies_each_occurrence():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 3, 9), rng.integers(-3, 3, 9)  # negative columns count from the end
    _check(add_at_pairs, [(y, p, rng.random(9), 3), (y[:0], p[:0], rng.random(0), 3)])


def running_dtypes(a):
    return np.cumsum(a, dtype=np.int64), np.cumsum(a, 0, np.int32), np.cumprod(a, dtype=np.float64)


def diff_ends(x):
    return np.diff(x, prepend=x[:2], append=1), np.diff(x, n=2, append=[0.0, 0.0])


def test_running_sums_with_dtype_and_diff_with_array_ends():
    _check(running_dtypes, [(np.arange(-3, 5, dtype=np.int32),), (np.zeros(0, dtype=np.int32),)])
    _check(diff_ends, [(np.arange(5.0) ** 2,), (np.ones(1),)])


def impute(X, fill):
    X = X.copy()
    col_mean = np.nanmean(X, axis=0)
    inds = np.where(np.isnan(X))
    X[inds] = np.take(col_mean, inds[1])
    neg = np.nonzero(X < 0)
    X[neg] = fill[neg[0]] * 2 + X[neg]
    return X


def positions_counted(X):
    inds = np.where(X > 0)
    X[inds] = 0.0
    return len(inds[0])  # another use: the tuple stays, and its refusal


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
def test_stores_through_a_where_tuple_are_masked_stores():
    rng = np.random.default_rng(2)
    X = np.where(rng.random((5, 3)) < 0.3, np.nan, rng.standard_normal((5, 3)))
    _check(impute, [(X, rng.random(5)), (X[:0], rng.random(0))])
    with pytest.raises(polyfuse.UnsupportedError, match="np.where.condition. with one argument"):
        polyfuse.kernel(positions_counted, target="python")(np.ones((2, 2)))


def columns_list(X):
    n, d = X.shape
    cols = [np.ones(n), X[:, 0], X[:, 0] * X[:, 1]]
    return np.stack(cols, axis=1)


def columns_then_written(X):
    cols = [X[:, 0], X[:, 1] * 2]
    X[0, 0] = 100.0
    return np.stack(cols, axis=1)


def test_tuple_locals_of_array_elements_where_no_array_is_written():
    _check(columns_list, [(np.arange(6.0).reshape(3, 2),)])
    with pytest.raises(polyfuse.UnsupportedError, match="an array element, which may change"):
        polyfuse.kernel(columns_then_written, target="python")(np.ones((3, 2)))


def windows(x, w, A):
    return (np.lib.stride_tricks.sliding_window_view(x, w).max(axis=1),
            sliding_window_view(A, 2, axis=0).sum(axis=2), A[np.ix_([2, 0], [1, 1, 0])])


def window_written(x):
    v = sliding_window_view(x, 2)
    v[0, 0] = 1.0
    return v


def test_sliding_windows_and_open_meshes():
    rng = np.random.default_rng(3)
    k = _check(windows, [(rng.random(6), 3, rng.random((3, 4))), (rng.random(2), 2, rng.random((3, 2)))])
    with pytest.raises(polyfuse.ArgumentError):  # a window longer than the array: NumPy's ValueError
        k(rng.random(2), 3, rng.random((3, 2)))
    with pytest.raises(polyfuse.UnsupportedError, match="read-only view"):
        polyfuse.kernel(window_written, target="python")(np.ones(4))


def comprehension_local(x):
    vals = [x[i] ** 2 for i in range(x.shape[0])]
    return np.array(vals)


def comprehension_then_written(x):
    vals = [x[i] * 2 for i in range(x.shape[0])]
    x[0] = 100.0
    return np.array(vals)


def test_a_comprehension_local_is_written_at_its_np_array():
    _check(comprehension_local, [(np.arange(4.0),), (np.ones(1),)])
    with pytest.raises(polyfuse.UnsupportedError, match="np.array.. of other than a list of scalars"):
        polyfuse.kernel(comprehension_then_written, target="python")(np.ones(3))


def reductions_where(x, m):
    return np.sum(x, where=m), np.mean(x, where=m, axis=0), x.sum(axis=1, where=m, keepdims=True), \
        np.prod(x, where=m[0]), np.mean(x.astype(np.int64), axis=1, where=m)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
def test_reductions_with_where():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4))
    m = rng.random((3, 4)) < 0.5
    m[:, 0] = False  # a column with nothing selected: NaN, as NumPy's 0/0
    _check(reductions_where, [(x, m), (x.astype(np.float32), m)])


def matrix_powers(A, B):
    return (np.linalg.matrix_power(A, 1), np.linalg.matrix_power(A, 3), np.linalg.matrix_power(A, 5),
            np.linalg.matrix_power(B, n=6))


def test_matrix_power_of_a_constant_is_numpys_products():
    rng = np.random.default_rng(5)
    _check(matrix_powers, [(rng.random((3, 3)), rng.integers(-3, 4, (2, 2)))])


def conv_windows(X, Wt):
    win = np.lib.stride_tricks.sliding_window_view(X, Wt.shape[2:], axis=(2, 3))  # n c h w r s
    return np.einsum("nchwrs,ocrs->nohw", win, Wt), sliding_window_view(X[0, 0], (2, 3)).sum(axis=(2, 3))


def test_sliding_windows_over_several_axes_as_a_convolution_writes_them():
    rng = np.random.default_rng(6)
    _check(conv_windows, [(rng.random((2, 3, 5, 6)), rng.random((4, 3, 2, 3)))])
