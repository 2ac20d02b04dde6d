"""np.nansum, np.nanmean, np.nanmax, np.nanmin and np.trapezoid (of a matrix along an axis too, np41)
(frontend/array_formulas.py):
NumPy's own formulas, so the results are NumPy's (dtype, shape, values; float sums within the
documented reduction-order tolerance)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyfuse


def nans(x):
    return np.nansum(x), np.nanmean(x), np.nanmax(x), np.nanmin(x)


def nans_axis(X):
    return np.nansum(X, axis=0), np.nanmean(X, axis=1), np.nanmax(X, axis=1, keepdims=True), np.nanmin(X, 0)


def trapezoid_x(y, x):
    return np.trapezoid(y, x)


def trapezoid_dx(y):
    return np.trapezoid(y, dx=0.5), np.trapezoid(y)


def trapezoid_axes(Y, x):
    return np.trapezoid(Y), np.trapezoid(Y, x[:Y.shape[0]], axis=0), np.trapezoid(Y, Y * Y, axis=0)


def _vector():
    x = np.random.default_rng(5).standard_normal(10)
    x[[2, 5]] = np.nan
    return x


def _matrix():
    X = np.random.default_rng(6).standard_normal((4, 3))
    X[1, :] = np.nan  # an all-NaN row: nanmean and nanmax give NaN
    X[0, 1] = np.nan
    return X


CASES = [
    (nans, (_vector(),)), (nans, (_vector().astype(np.float32),)), (nans, (np.arange(5),)),
    (nans, (np.array([np.nan, np.nan]),)),
    (nans_axis, (_matrix(),)), (nans_axis, (_matrix().astype(np.float32),)), (nans_axis, (np.arange(6).reshape(2, 3),)),
    (trapezoid_x, (np.arange(10.0) ** 0.5, np.linspace(0, 1, 10))), (trapezoid_x, (np.arange(5), np.arange(5.0) ** 2)),
    (trapezoid_x, (np.ones(3, np.float32), np.arange(3, dtype=np.float32))), (trapezoid_x, (np.ones(1), np.ones(1))),
    (trapezoid_dx, (np.arange(10.0) ** 0.5,)), (trapezoid_dx, (np.arange(4),)), (trapezoid_dx, (np.zeros(0),)),
    (trapezoid_axes, (np.random.default_rng(7).standard_normal((3, 4)), np.linspace(0, 1, 5))),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", CASES, ids=lambda a: getattr(a, "__name__", ""))
def test_formulas_give_numpys_results(fn, args, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns of all-NaN slices
        want = fn(*args)
        got = polyfuse.kernel(fn, target=target)(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-5 if np.asarray(w).dtype == np.float32 else 1e-12)


def test_a_trapezoid_along_an_axis_not_told_is_refused():
    def rows(Y, k):
        return np.trapezoid(Y, axis=k)
    with pytest.raises(polyfuse.UnsupportedError, match=r"np.trapezoid\(\) axis= must be a constant"):
        polyfuse.kernel(rows, target="python")(np.ones((2, 3)), 0)


def pad_constant(a):
    return np.pad(a, 1)


def pad_pairs(a):
    return np.pad(a, ((1, 2), (0, 3)), constant_values=7)


def pad_vector(x):
    return np.pad(x, (2, 1), "constant", constant_values=1.5)


def pad_edge_blur(img):
    p = np.pad(img, 1, mode="edge")
    return (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] + p[1:-1, 1:-1]) / 5


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, a", [
    (pad_constant, np.arange(9.0).reshape(3, 3)), (pad_constant, np.arange(4, dtype=np.int8)),
    (pad_constant, np.ones((2, 2), bool)), (pad_pairs, np.arange(6).reshape(2, 3)), (pad_pairs, np.zeros((0, 2))),
    (pad_vector, np.arange(3)), (pad_vector, np.arange(3, dtype=np.float32)),
    (pad_edge_blur, np.arange(30.0).reshape(5, 6) ** 0.5), (pad_edge_blur, np.ones((1, 1), np.float32)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_pad_is_numpys(fn, a, target):
    """np.pad with constant widths: the constant cast to the array's dtype (1.5 into int64 is 1)."""
    got, want = polyfuse.kernel(fn, target=target)(a), fn(a)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_pad_refusals():
    def median(a):
        return np.pad(a, 1, mode="median")

    def by_argument_per_axis(a, k):
        return np.pad(a, ((k, k), (1, 1)))

    with pytest.raises(polyfuse.UnsupportedError, match="mode must be"):
        polyfuse.kernel(median, target="python")(np.ones(3))
    with pytest.raises(polyfuse.UnsupportedError, match="pad_width must be"):
        polyfuse.kernel(by_argument_per_axis, target="python")(np.ones((3, 2)), 1)
    with pytest.raises((polyfuse.ArgumentError, ValueError)):  # NumPy: can't extend an empty axis
        polyfuse.kernel(pad_edge_blur, target="python")(np.ones((0, 2)))


def gradient_1d(f):
    return np.gradient(f)


def gradient_spaced(f, h):
    return np.gradient(f, h)


def gradient_axes(F):
    return np.gradient(F, 0.5, axis=1) + np.gradient(F, axis=0)


def gradient_order2(F):
    return np.gradient(F, 2, axis=1, edge_order=2)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (gradient_1d, (np.arange(10.0) ** 1.5,)), (gradient_1d, (np.arange(5) ** 2,)),
    (gradient_1d, (np.arange(4, dtype=np.float32) ** 2,)), (gradient_1d, (np.array([1.0, 4.0]),)),
    (gradient_spaced, (np.arange(6.0) ** 2, 0.1)), (gradient_spaced, (np.arange(5) ** 3, 2.0)),
    (gradient_axes, (np.arange(20.0).reshape(4, 5) ** 1.5,)), (gradient_axes, (np.arange(12).reshape(3, 4) ** 2,)),
    (gradient_axes, (np.arange(6, dtype=np.float32).reshape(3, 2),)),
    (gradient_order2, (np.arange(15).reshape(3, 5) ** 3,)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_gradient_is_numpys(fn, args, target):
    """NumPy's uniform-spacing differences: central inside, one-sided at the ends (of first or second
    order); integers in float64."""
    got, want = polyfuse.kernel(fn, target=target)(*args), fn(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def gradient_of_matrix(F):
    return np.gradient(F)


def test_gradient_refusals():
    with pytest.raises(polyfuse.UnsupportedError, match="a list of arrays"):
        polyfuse.kernel(gradient_of_matrix, target="python")(np.ones((3, 3)))


def fill_copy(A):
    B = A.copy()
    np.fill_diagonal(B, 0)
    return B


def fill_in_place(A, v):
    np.fill_diagonal(A, v)
    return A


def fill_through_alias(A):
    B = A
    np.fill_diagonal(B, -1)  # writes A: B is A, never a copy
    return A


def nearest_other(X):
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    return D.min(axis=1)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (fill_copy, (np.arange(16.0).reshape(4, 4),)), (fill_copy, (np.arange(10.0).reshape(2, 5),)),
    (fill_copy, (np.arange(10.0).reshape(5, 2),)), (fill_copy, (np.zeros((0, 3)),)),
    (fill_in_place, (np.arange(9).reshape(3, 3), 2.7)), (fill_in_place, (np.zeros((2, 2), bool), 1.0)),
    (fill_in_place, (np.ones((2, 3), np.float32), 1.5)),
    (fill_through_alias, (np.arange(9.0).reshape(3, 3),)),
    (nearest_other, (np.arange(10.0).reshape(5, 2) ** 1.5,)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_fill_diagonal_is_numpys(fn, args, target):
    """The main diagonal of a 2-d array, ``min`` of its extents long; the value cast as NumPy's
    flat assignment casts it (2.7 into int64 is 2)."""
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = polyfuse.kernel(fn, target=target)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def fill_cube(A):
    np.fill_diagonal(A, 1)
    return A


def test_fill_diagonal_of_a_cube_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="np.fill_diagonal"):
        polyfuse.kernel(fill_cube, target="python")(np.zeros((2, 2, 2)))


def swapped(A):
    return np.swapaxes(A, 0, 1) + np.moveaxis(A, 0, -1)


def moved(A):
    return np.moveaxis(A, -1, 0) * 2


def rotations(A):
    return np.rot90(A), np.rot90(A, 2), np.rot90(A, -1), np.rot90(A, 4)


def at_least(x):
    return np.atleast_2d(x).T, np.atleast_3d(x) * 2, np.atleast_1d(x) + 1


def counts(m):
    return np.count_nonzero(m, axis=0), np.count_nonzero(m, 1, keepdims=True), np.count_nonzero(m)


def logical_reductions(a):
    return np.logical_or.reduce(a, axis=0), np.logical_and.reduce(a), np.logical_or.reduce(a, axis=1, keepdims=True)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, a", [
    (swapped, np.arange(8.0).reshape(2, 2, 2)), (moved, np.arange(24.0).reshape(2, 3, 4)),
    (rotations, np.arange(6.0).reshape(2, 3)), (rotations, np.arange(24).reshape(2, 3, 4)),
    (at_least, np.arange(3.0)), (at_least, np.arange(6.0).reshape(2, 3)),
    (counts, np.arange(12).reshape(3, 4) % 3 == 0), (counts, np.arange(6).reshape(2, 3) % 2),
    (logical_reductions, np.arange(12).reshape(3, 4) % 3 == 0), (logical_reductions, np.arange(6.0).reshape(3, 2) % 2),
], ids=lambda a: getattr(a, "__name__", ""))
def test_axis_views_and_counts_are_numpys(fn, a, target):
    got, want = polyfuse.kernel(fn, target=target)(a), fn(a)
    for g, w in zip(got, want):
        assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def take_flat(x, idx):
    return np.take(x, idx)


def take_columns(A, idx):
    return np.take(A, idx, axis=1)


def cross(a, b):
    return np.cross(a, b)


def kron(a, b):
    return np.kron(a, b)


def tensordot_one(A, B):
    return np.tensordot(A, B, axes=1)


def tensordot_two(A, B):
    return np.tensordot(A, B)


def heaviside(x):
    return np.heaviside(x, 0.5)


_R = np.random.default_rng(9)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (take_flat, (_R.random(5), np.array([0, 4, -2]))), (take_flat, (np.arange(5), np.array([[1, 2], [3, 0]]))),
    (take_columns, (_R.random((3, 4)), np.array([3, 0]))),
    (cross, (_R.random(3), _R.random(3))), (cross, (_R.random((4, 3)), _R.random((4, 3)))),
    (cross, (np.arange(3), np.arange(3, 6))), (cross, (_R.random(3).astype(np.float32), _R.random(3))),
    (kron, (_R.random(2), _R.random(3))), (kron, (np.arange(3), np.arange(2))),
    (tensordot_one, (_R.random((2, 3)), _R.random((3, 4)))), (tensordot_one, (_R.random((2, 3, 4)), _R.random((4, 2)))),
    (tensordot_two, (_R.random((2, 3, 4)), _R.random((3, 4, 5)))),
    (heaviside, (np.array([-1.0, 0.0, 2.0, np.nan]),)), (heaviside, (np.array([-1.0, 0.0, 2.0], np.float32),)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_rewritten_calls_are_numpys(fn, args, target):
    """np.take, np.cross (NumPy's a_i * b_j - a_j * b_i), np.kron of vectors, np.tensordot with an
    integer axes= (an einsum; BLAS sums in another order: rtol), np.heaviside of floats."""
    got, want = polyfuse.kernel(fn, target=target)(*args), fn(*args)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_cross_product_of_two_vectors_is_refused_per_call():
    """NumPy also takes 2-vectors (a scalar z component); polyfuse assumes 3 and checks it."""
    with pytest.raises(polyfuse.ArgumentError):
        polyfuse.kernel(cross, target="python")(np.ones(2), np.ones(2))
