"""np39's forms: NumPy's window functions (np.hanning/hamming/blackman/bartlett of a size),
np.logical_xor.reduce (the parity of the true elements, a bool), np.nanvar/np.nanstd (axis=,
ddof=, keepdims=; float32 kept), and the refusals that name what to write instead (np.append of
a growing array, an np.* call of an array with keywords it does not know); each kernel (python
backend: the subject is the front end) against the undecorated function."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from kernel_checks import check_calls

import polyfuse


def windows(x, m):
    w = np.hanning(x.shape[0])
    return x * w, np.hamming(m), np.blackman(x.shape[0]), np.bartlett(m)


def test_window_functions_are_numpys_formula():
    check_calls(windows, [(np.arange(float(n)), m) for n, m in ((0, 1), (1, 0), (2, 5), (7, 4))], "python")


def xor_reductions(a, x, m):
    return (np.logical_xor.reduce(a), np.logical_xor.reduce(x, axis=1), np.logical_xor.reduce(m, axis=0),
            np.logical_xor.reduce(a[:0]))


def test_logical_xor_reduce_is_the_parity_of_the_true_elements():
    rng = np.random.default_rng(0)
    check_calls(xor_reductions, [(rng.random(5) < 0.5, rng.integers(-2, 3, (3, 4)).astype(np.int16),
                                  np.where(rng.random((4, 2)) < 0.3, np.nan, rng.integers(0, 2, (4, 2))))
                                 for _ in range(2)], "python")


def nan_spreads(X):
    return np.nanvar(X), np.nanstd(X, axis=1, ddof=1, keepdims=True), np.nanvar(X, 0, ddof=2)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_nanvar_nanstd_follow_numpys_steps(dtype):
    rng = np.random.default_rng(1)
    k = polyfuse.kernel(nan_spreads, target="python", fuse="none")
    for shape in ((4, 3), (1, 2)):  # a column or row of one, two: ddof=1 and 2 give NaN
        data = rng.standard_normal(shape) * 4
        X = (np.where(rng.random(shape) < 0.3, np.nan, data) if dtype != np.int32 else data).astype(dtype)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            expected, got = nan_spreads(X), k(X)
        for g, e in zip(got, expected):
            assert type(g) is type(e) and np.shape(g) == np.shape(e)
            np.testing.assert_allclose(g, e, rtol=1e-6 if dtype == np.float32 else 1e-12)


def append_loop(x, k):
    out = np.zeros(0)
    for i in range(k):
        out = np.append(out, x[i])
    return out


def nan_median_axis(X):
    return X - np.nanpercentile(X, 50, axis=0)


def kaiser_window(x):
    return x * np.kaiser(x.shape[0], 3.0)


@pytest.mark.parametrize("fn, words", [(append_loop, "collect the values in a list"),
                                       (kaiser_window, "unsupported construct: call to np.kaiser;"),
                                       (nan_median_axis, r"np.nanpercentile\(\) of an array is not supported \(with "
                                                         "keyword arguments axis=")])
def test_refusals_say_what_is_not_supported(fn, words):
    with pytest.raises(polyfuse.UnsupportedError, match=words) as err:
        polyfuse.kernel(fn, target="python")(*{nan_median_axis: (np.ones((3, 3)),), kaiser_window: (np.ones(3),)}.get(
            fn, (np.ones(3), 2)))
    assert "test_np39_forms.py:" in str(err.value).splitlines()[0]


def kmeans_update(X, C):
    lab = np.argmin(((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2), axis=1)
    sums = np.zeros_like(C)
    np.add.at(sums, lab, X)
    counts = np.zeros(C.shape[0], dtype=np.int64)
    np.add.at(counts, lab, 1)
    top = np.full(C.shape[0], -np.inf)
    np.maximum.at(top, lab, X[:, 0] * 2.0)
    return sums, counts, top, np.bincount(lab, minlength=C.shape[0])  # its length computed by the call


def test_ufunc_at_of_a_local_index_array_is_numpys_loop():
    rng = np.random.default_rng(2)
    check_calls(kmeans_update, [(rng.standard_normal((n, 2)), rng.standard_normal((3, 2))) for n in (7, 1, 0)],
                "python")


def float_index_at(X, C):
    lab = X[:, 0] * 2
    sums = np.zeros_like(C)
    np.add.at(sums, lab, X)
    return sums


def test_ufunc_at_of_a_local_float_index_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="is a float64 value; only integers"):
        polyfuse.kernel(float_index_at, target="python")(np.ones((3, 2)), np.ones((2, 2)))


def dtypes_shapes_divmod(x, y, A):
    q, r = np.divmod(x, y)
    return (np.add(x, y, dtype=np.float32), np.multiply(x, 2, dtype=np.float64), np.sqrt(x, dtype=np.float32),
            q, r, np.divmod(A, 0.7)[1], A.shape, x.shape)


def test_ufunc_dtype_divmod_and_returned_shapes():
    rng = np.random.default_rng(3)
    check_calls(dtypes_shapes_divmod, [(rng.integers(-9, 9, 5), rng.integers(1, 4, 5) * rng.choice([-1, 1], 5),
                                        rng.standard_normal((2, 3)) * 3) for _ in range(2)], "python")


def ufunc_float_into_int(x):
    return np.add(x, 2.5, dtype=np.int64)


def test_ufunc_dtype_that_numpy_cannot_cast_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match=r"np.add\(\) with dtype=int64 of an operand of float64"):
        polyfuse.kernel(ufunc_float_into_int, target="python")(np.arange(3))



def quartiles_crossings(X, x):
    q1, q3 = np.percentile(X, [25, 75], axis=0)
    s = np.sign(x)
    return q3 - q1, np.nonzero(s[:-1] * s[1:] < 0)[0]


def test_quantile_lists_per_axis_and_nonzero_of_a_local_slice():
    rng = np.random.default_rng(4)
    k = polyfuse.kernel(quartiles_crossings, target="python", fuse="none")
    for X, x in ((rng.standard_normal((5, 3)), rng.standard_normal(9)), (rng.standard_normal((1, 2)), np.ones(1))):
        for got, expected in zip(k(X, x), quartiles_crossings(X, x)):
            assert got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, rtol=1e-12)
