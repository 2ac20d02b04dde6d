"""np.argsort, np.sort(axis=), np.median(axis=), np.quantile/np.percentile, np.isin and ufunc.at
(frontend/builtin_helpers.py, frontend/desugar.py: BuiltinHelpers): where NumPy's own result is
not fixed by the data (np.argsort's default sort of ties) or the shape depends on the data, the
kernel raises instead of answering differently.  The programs that compile are in
tests/corpus/numpy_np21.py; here: ties, edge values, and the refusals with their lines."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def argsort_default(x):
    return np.argsort(x)


def argsort_stable(x):
    return np.argsort(x, kind="stable")


def argsort_rows_default(A):
    return np.argsort(A, axis=1)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_argsort_of_ties_raises_unless_stable(target):
    """NumPy's default sort orders equal values in no set order (introsort, SIMD sorts): the
    kernel computes the stable order and raises where two values tie; kind='stable' is exact."""
    x = np.array([3, 1, 2, 1, 0, 3])
    with pytest.raises(AssertionError, match="kind='stable'"):
        polyfuse.kernel(argsort_default, target=target)(x)
    with pytest.raises(AssertionError, match="kind='stable'"):
        polyfuse.kernel(argsort_rows_default, target=target)(np.array([[1.0, 2.0], [np.nan, np.nan]]))
    np.testing.assert_array_equal(polyfuse.kernel(argsort_stable, target=target)(x), argsort_stable(x))
    y = np.array([0.5, np.nan, -2.0, np.inf, 1.0])
    got = polyfuse.kernel(argsort_default, target=target)(y)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argsort(y))


def percentile_of(x, q):
    return np.percentile(x, q)


def quantile_edges(x):
    return np.quantile(x, 0.0), np.quantile(x, 0.5), np.quantile(x, 1.0)


#: One kernel for every case: the float64 cases share its variant (one compile, not four: a
#: compile for the python target is not kept in the disk cache, and a second compile of the same
#: signature makes the same code)
QUANTILE_EDGES = polyfuse.kernel(quantile_edges, target="python")


@pytest.mark.parametrize("x", [np.array([1.0, np.inf, 2.0]), np.array([-np.inf, np.inf]),
                               np.array([4.0, np.nan, 1.0]), np.arange(7, dtype=np.float32),
                               np.array([5, 3, 9, 1], dtype=np.int32), np.array([2.5])])
def test_quantiles_are_numpys_at_the_edges(x):
    """NumPy's lerp (two formulas split at gamma 0.5), its index past the end (-1), NaN last."""
    with np.errstate(all="ignore"):
        want = quantile_edges(x)
        got = QUANTILE_EDGES(x)
    for g, w in zip(got, want):
        assert type(g) is type(w)
        np.testing.assert_array_equal(g, w)


def test_a_percentile_out_of_range_raises():
    kernel = polyfuse.kernel(percentile_of, target="python")
    assert kernel(np.arange(5.0), 40.0) == np.percentile(np.arange(5.0), 40.0)
    with pytest.raises(AssertionError, match=r"Percentiles must be in the range \[0, 100\]"):
        kernel(np.arange(5.0), 101.0)


def quantile_constant_out_of_range(x):
    return np.quantile(x, 1.5)


def quantile_int(x):
    return np.quantile(x, 1)


def percentile_cube_axis(T):
    return np.percentile(T, 50, axis=2)


def bincount_labels(y):
    return np.bincount(np.repeat(y, 2), minlength=4)  # of an argument or arithmetic of arguments is supported


def unique_values(x):
    return np.unique(x, return_counts=True)  # np.unique(x) of a 1-d x is supported (data_sized.py)


def positive_values(x):
    return x[np.cumsum(x) > 0]  # x[x > 0] is supported (data_sized.py); a mask of a cumsum is not


def add_at_bool_index(acc, mask, v):
    np.add.at(acc, mask, v)
    return acc


def add_at_float_into_int(acc, idx, v):
    np.add.at(acc, idx, v)
    return acc


def sort_cube(T):
    return np.sort(T, axis=-1)


V = np.arange(6.0) - 2
I6 = np.arange(6)


@pytest.mark.parametrize("fn, args, message", [
    (quantile_constant_out_of_range, (V,), r"np\.quantile\(\) of 1\.5: NumPy raises ValueError"),
    (quantile_int, (V,), r"quantile\(\) is not supported: .*and a float q"),
    (percentile_cube_axis, (np.ones((3, 2, 2)),), r"percentile\(\) is not supported: .*axis=None or of a 2-d array"),
    (bincount_labels, (I6,), r"bincount\(\) is not supported: .*never writes"),
    (unique_values, (V,), r"unique\(\) is not supported: its result has a data-dependent shape"),
    (positive_values, (V,), r"a boolean-mask selection returned .*data-dependent shape"),
    (add_at_bool_index, (np.zeros(6), V > 0, 1.0), r"np\.add\.at\(\) here is not supported .*boolean"),
    (sort_cube, (np.ones((2, 2, 2, 2)),), r"sort\(\) is not supported: .*of a 1-d or 2-d array"),
], ids=lambda a: getattr(a, "__name__", ""))
def test_refusals_name_the_line_and_the_construct(fn, args, message):
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_sorted_orders.py:\d+:\d+: " + message) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert info.value.span is not None and info.value.span.line == fn.__code__.co_firstlineno + 1
    assert "builtin_helpers.py" not in str(info.value)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8])
def test_add_at_of_floats_into_an_int_array_truncates_each_update_as_numpy(dtype):
    """``np.add.at`` casts each ``acc[i] + v`` back to the int dtype, one update at a time
    (repeated indices included): NumPy does, and so does polyfuse (it was refused before)."""
    acc, idx, v = np.arange(6, dtype=dtype), np.array([0, 1, 1, 3, 5, 5, 5]), np.linspace(0.4, 2.9, 7)
    want = acc.copy()
    np.add.at(want, idx, v)
    got = polyfuse.kernel(add_at_float_into_int, target="python")(acc.copy(), idx, v)
    assert got.dtype == want.dtype and np.array_equal(got, want)
