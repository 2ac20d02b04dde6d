"""np40's forms: a tuple nested in the returned tuple (``return a, np.divmod(x, y)``, ``return
(m, s), x``: NumPy's nesting kept), ``E.shape`` of any array value the lowering knows (a
temporary, a view, ``np.vstack(...).shape[0]``, returned alone or in the tuple: Python ints), a
ufunc with ``dtype=`` of scalar operands; each kernel against the undecorated function (python
and cpu targets)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyfuse


def _same(got, expected):
    assert type(got) is type(expected)
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-6)
        assert np.asarray(got).dtype == np.asarray(expected).dtype


def nested_returns(x, y, a, b):
    m = x.mean()
    Y = x[:, None] * y[None, :]
    return ((m, x.std()), x[1:], np.divmod(x, y)), Y.shape, (x * 2).shape, np.vstack((Y, Y)).shape[0], \
        np.add(a, b, dtype=np.float32), np.multiply(b, 3, dtype=np.float32), np.sqrt(2.0, dtype=np.float32)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_nested_returned_tuples_shapes_and_scalar_ufunc_dtypes(target):
    k = polyfuse.kernel(nested_returns, target=target)
    for n in (5, 1):
        x, y = np.arange(1.0, n + 1), np.full(n, 2.0)
        got, expected = k(x, y, 2, 3.5), nested_returns(x, y, 2, 3.5)
        _same(got, expected)
        assert n == 1 or np.shares_memory(got[0][1], x)  # a view of an argument nested in the tuple stays the view


def unique_of_expressions(x):
    u, inv = np.unique(np.round(x, 1), return_inverse=True)
    v, idx, c = np.unique(x[1:] * 2, return_index=True, return_counts=True)
    return u, inv, v, idx, c


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_unique_with_keywords_of_an_expression(target):
    k = polyfuse.kernel(unique_of_expressions, target=target)
    for x in (np.random.default_rng(0).random(9), np.array([0.3, np.nan, 0.31, 0.3])):
        _same(k(x.copy()), unique_of_expressions(x))


def tile_means(img, t):
    h, w = img.shape
    return img[:h // t * t, :w // t * t].reshape(h // t, t, w // t, t).mean(axis=(1, 3)), \
        img.reshape(h // 2, -1).sum(axis=1)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_reshape_by_extents_divided_by_an_argument(target):
    k = polyfuse.kernel(tile_means, target=target)
    for shape, t in (((6, 9), 2), ((4, 5), 3)):
        img = np.arange(float(np.prod(shape))).reshape(shape)
        _same(k(img, t), tile_means(img, t))
    with pytest.raises(ValueError, match=r"cannot reshape array of size 15 into shape \(2,newaxis\)"):
        k(np.ones((5, 3)), 2)  # h // 2 * 2 != h: NumPy's ValueError


def nan_medians(X, x):
    return X - np.nanmedian(X, axis=0), np.nanmedian(x)


@pytest.mark.parametrize("target, dtype", [("python", np.float32), ("python", np.int32), ("cpu", np.float64)])
def test_nanmedian_with_axis_is_the_median_of_the_numbers(target, dtype):
    k = polyfuse.kernel(nan_medians, target=target)
    rng = np.random.default_rng(5)
    for shape in ((4, 3), (5, 2)):
        X, x = rng.standard_normal(shape) * 5, rng.standard_normal(shape[0] + 1)
        if dtype != np.int32:
            X[rng.random(shape) < 0.4] = np.nan
            X[:, 0], x[1:] = np.nan, np.nan  # a column of NaN only (NumPy: NaN), one number in x
        X, x = X.astype(dtype), x.astype(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's All-NaN slice
            _same(k(X, x), nan_medians(X, x))


def binned_counts(x, edges):
    i = np.searchsorted(edges, x) - 1
    i = np.clip(i, 0, edges.shape[0] - 2)
    return i, np.bincount(i, minlength=edges.shape[0] - 1)


def binned_counts_written(x, edges):
    i = np.searchsorted(edges, x) - 1
    i = np.clip(i, 0, edges.shape[0] - 2)
    i[0] = 0  # written in place: the call cannot compute the length from x
    return np.bincount(i)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_bincount_of_a_local_bound_again_at_the_top_level(target):
    k = polyfuse.kernel(binned_counts, target=target)
    rng = np.random.default_rng(6)
    for n in (9, 1):
        x, edges = rng.random(n) * 1.4 - 0.2, np.linspace(0.0, 1.0, 5)
        _same(k(x, edges), binned_counts(x, edges))
    if target == "python":
        with pytest.raises(polyfuse.UnsupportedError, match="bincount"):
            polyfuse.kernel(binned_counts_written, target=target)(np.ones(3), np.linspace(0.0, 1.0, 3))


def none_then_array(x, k):
    result = None
    for i in range(k):
        result = x.copy()
    return result


def test_none_then_an_array_says_what_it_is():
    with pytest.raises(polyfuse.UnsupportedError, match=r"'result' is bound to None \(line \d+\) and to an array "
                                                        "here") as err:
        polyfuse.kernel(none_then_array, target="python")(np.ones(3), 2)
    assert "test_np40_forms.py:" in str(err.value).splitlines()[0]
