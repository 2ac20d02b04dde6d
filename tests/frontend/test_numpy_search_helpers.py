"""np.interp and np.searchsorted (frontend/builtin_helpers.py, frontend/desugar.py:
BuiltinHelpers): NumPy's C algorithms written as inlined helpers, a binary search per value,
for a scalar or a 1-d ``x`` (``v``) over a sorted 1-d table; the results are NumPy's bits."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import polyfuse

# the targets and fusion modes of a function compiled in consecutive tests share one lift (conftest)
pytestmark = pytest.mark.usefixtures("one_lift_per_program")


@functools.cache
def _kernel(fn, target):
    """One kernel per function and target for the module: cases of a signature seen before run on
    its variant (a python-target compile is not kept in the disk cache, and compiling the same
    signature again makes the same code).  The refusals below make their own kernels."""
    return polyfuse.kernel(fn, target=target)


def interp_vector(x, xp, fp):
    return np.interp(x, xp, fp)


def interp_ends(x, xp, fp):
    return np.interp(x, xp, fp, left=-1.0, right=5)


def interp_scalar(t, ts, vs):
    return np.interp(t, ts, vs) * 2


def interp_in_loop(ts, vs, out):
    for i in range(out.shape[0]):
        out[i] = np.interp(i * 0.1, ts, vs)
    return out


def interp_parts(x, xp, fp):
    return np.interp(x[1], xp, fp) + np.interp(x[1:], xp, fp).sum()


def search_left(a, v):
    return np.searchsorted(a, v)


def search_right(a, v):  # (a join of vectors has rank 1: batch_fe50's KS statistic, fe50)
    return np.searchsorted(a, np.concatenate([v, a]), side="right")


def search_scalars(a, t):
    return np.searchsorted(a, t), np.searchsorted(a, 0.5, "right")


def bin_of(edges, x):
    return np.clip(np.searchsorted(edges, x) - 1, 0, edges.shape[0] - 2)


_rng = np.random.default_rng(8)
XP = np.sort(_rng.random(8))
FP = _rng.standard_normal(8)
X = np.concatenate([_rng.random(20) * 1.4 - 0.2, XP, [np.nan]])
SORTED = np.array([0.0, 1.0, 1.0, 2.0, 4.0, 4.0, np.nan])
KEYS = np.array([0.0, 1.0, 1.5, 4.0, np.nan, -1.0, 9.0])

CASES = [
    (interp_vector, (X, XP, FP)), (interp_vector, (X.astype(np.float32), XP, FP.astype(np.float32))),
    (interp_vector, (np.arange(5), np.array([0.0, 2.0, 4.0]), np.array([1.0, 2.0, 0.0]))),
    (interp_vector, (X, XP[:1], FP[:1])),  # one knot: NumPy's own rule (NaN gives fp[0])
    (interp_vector, (np.zeros(0), XP, FP)), (interp_vector, (X, np.array([0.0, 0.0, 1.0]), np.array([1.0, 2.0, np.inf]))),
    (interp_ends, (X, XP, FP)), (interp_scalar, (0.3, XP, FP)), (interp_scalar, (np.nan, XP, FP)),
    (interp_scalar, (2, np.arange(4.0), np.arange(4))), (interp_in_loop, (np.linspace(0, 1, 5), FP[:5], np.zeros(12))),
    (interp_parts, (X, XP, FP)),
    (search_left, (SORTED, KEYS)), (search_right, (SORTED, KEYS)), (search_left, (np.arange(5), np.array([2, 7, -1]))),
    (search_left, (np.arange(5), np.array([2.5, 1.0]))), (search_left, (np.zeros(0), np.array([1.0]))),
    (search_scalars, (SORTED, 1.0)), (search_scalars, (np.arange(5), 3)), (bin_of, (np.linspace(0, 1, 6), _rng.random(10))),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", CASES, ids=lambda a: getattr(a, "__name__", ""))
def test_search_helpers_are_numpys(fn, args, target):
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = _kernel(fn, target)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def interp_periodic(x, xp, fp):
    return np.interp(x, xp, fp, period=1.0)


def test_interp_with_period_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="interp"):
        polyfuse.kernel(interp_periodic, target="python")(X, XP, FP)


def polyval(p, x):
    return np.polyval(p, x)


def residual(p, x, y):
    return y - np.polyval(p, x[1:])


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (polyval, (np.array([1.0, -2.0, 3.0]), np.linspace(-2, 2, 7))), (polyval, (np.array([2, 3]), np.arange(4))),
    (polyval, (np.array([1.5, 2.0]), np.ones(3, np.float32))), (polyval, (np.array([1.0]), np.array([np.inf, 1.0]))),
    (residual, (np.array([1.0, -2.0, 3.0]), np.linspace(0, 1, 7), np.ones(6))),
], ids=lambda a: getattr(a, "__name__", ""))
def test_polyval_is_numpys_horner_loop(fn, args, target):
    """``y = zeros_like(x)``, then ``y = y * x + pv`` per coefficient: NumPy's dtype and bits
    (``0 * inf`` is NaN there too)."""
    got, want = _kernel(fn, target)(*args), fn(*args)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def polyval_at_two(p):
    return np.polyval(p, 2)


def polyval_per_element(p, x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.polyval(p, x[i])
    return out


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (polyval, (np.array([1.0, -2.0, 3.0]), 1.5)), (polyval, (np.array([1, 2, 3]), 2)),
    (polyval, (np.array([1, 2, 3]), 2.5)), (polyval, (np.array([1.0, 2.0], np.float32), 0.5)),
    (polyval, (np.array([1.0, 2.0], np.float32), np.float32(0.5))), (polyval, (np.array([1.0, 2.0]), np.inf)),
    (polyval, (np.array([3.0]), -2.0)), (polyval_at_two, (np.array([1, 2, 3], np.int32),)),
    (polyval_per_element, (np.array([1.0, 2.0], np.float32), np.linspace(0, 1, 4, dtype=np.float32))),
], ids=lambda a: getattr(a, "__name__", ""))
def test_polyval_of_a_scalar_is_numpys(fn, args, target):
    """NumPy makes a scalar ``x`` an array first (a Python float is float64, so float32
    coefficients at 0.5 give np.float64), then the same Horner loop: its type and bits."""
    got, want = _kernel(fn, target)(*args), fn(*args)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype


def test_polyval_of_no_coefficients_is_refused_at_the_call():
    with pytest.raises(polyfuse.ArgumentError):
        polyfuse.kernel(polyval, target="python")(np.zeros(0), np.ones(2))


def sort(x):
    return np.sort(x)


def median(x):
    return np.median(x)


def top_three(x):
    return np.sort(x[1:])[-3:].sum()


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, x", [
    (sort, _rng.random(50)), (sort, np.array([3, 1, 2, 1])), (sort, np.array([np.nan, 1.0, -np.inf, 0.5, np.nan])),
    (sort, np.zeros(0)), (sort, _rng.random(100).astype(np.float32)), (sort, np.array([True, False, True])),
    (median, _rng.random(51)), (median, _rng.random(50)), (median, np.array([3, 1, 2, 1])),
    (median, np.array([1.0, np.nan, 2.0])), (median, _rng.random(10).astype(np.float32)), (median, np.ones(1)),
    (top_three, _rng.random(12)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_sort_and_median_are_numpys(fn, x, target):
    """A heap sort of a copy, NaN last as NumPy sorts; the median NumPy's mean of the middle one or
    two (NaN where any is NaN)."""
    got, want = _kernel(fn, target)(x), fn(x)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def median_of_expression(x):
    return np.median(np.abs(x - 1.0))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_median_of_an_expression_is_the_median_of_its_value(target):
    """A 1-d array expression passed to np.median (fe21; it was refused): the helper's argument
    is computed into a local first, as a pure helper's is."""
    x = np.array([0.5, 3.0, np.nan, -2.0, 1.5])
    for v in (x, x[[0, 1, 3, 4]], np.arange(4, dtype=np.int32)):
        got, want = _kernel(median_of_expression, target)(v), median_of_expression(v)
        assert type(got) is type(want)
        np.testing.assert_array_equal(got, want)


def test_median_of_an_expression_is_numpys():
    """An expression whose rank the front end tells goes to the helper as a local computed once."""
    x = np.array([3.0, -1.0, 0.5, 2.0, 7.0])
    got = _kernel(median_of_expression, "python")(x)
    assert type(got) is np.float64 and got == median_of_expression(x)


def median_absolute_deviation(x):
    med = np.median(x)
    dev = np.abs(x - med)
    return np.median(dev) * 1.4826


def resample_grid(y, n):
    t = np.linspace(0.0, 1.0, y.shape[0])
    tn = np.linspace(0.0, 1.0, n)
    return np.interp(tn, t, y)


def bins_of_sorted_edges(x, edges):
    e = np.sort(edges)
    return np.searchsorted(e, x)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (median_absolute_deviation, (_rng.random(21),)), (median_absolute_deviation, (np.arange(10),)),
    (resample_grid, (_rng.random(7), 13)), (bins_of_sorted_edges, (_rng.random(10), _rng.random(4))),
], ids=lambda a: getattr(a, "__name__", ""))
def test_locals_bound_once_to_vectors_and_scalars(fn, args, target):
    """A local bound once to a value whose rank the front end tells (np.linspace, np.sort of an
    argument, arithmetic and ufuncs of vectors and full reductions) takes the helpers too."""
    got, want = _kernel(fn, target)(*args), fn(*args)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def digitize_vector(x, bins):
    return np.digitize(x, bins)


def digitize_right(x, bins):
    return np.digitize(x, bins, right=True)


def digitize_scalar(t, bins):
    return np.digitize(t, bins)


def digitize_in_loop(x, bins, out):
    for i in range(x.shape[0]):
        out[np.digitize(x[i], bins)] += x[i]
    return out


INCREASING = np.array([-1.0, 0.0, 0.0, 1.0])
POINTS = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, np.nan])


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (digitize_vector, (POINTS, INCREASING)), (digitize_vector, (POINTS, INCREASING[::-1].copy())),
    (digitize_right, (POINTS, INCREASING)), (digitize_right, (POINTS, INCREASING[::-1].copy())),
    (digitize_vector, (POINTS, np.zeros(0))), (digitize_vector, (POINTS, np.ones(3))),
    (digitize_right, (np.arange(6), np.array([1, 3, 3]))),
    (digitize_scalar, (0.0, INCREASING)), (digitize_scalar, (0.0, INCREASING[::-1].copy())),
    (digitize_in_loop, (POINTS[:7], INCREASING[::-1].copy(), np.zeros(5))),
])
def test_digitize_is_numpys(fn, args, target):
    """NumPy's _monotonicity (increasing, decreasing: the reversed bins) and its searchsorted
    side ('right' by default, 'left' for right=True), NaN last."""
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = fn(*args)
    got = _kernel(fn, target)(*got_args)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)


def test_digitize_of_bins_neither_increasing_nor_decreasing_raises_numpys_value_error():
    with pytest.raises(ValueError, match="bins must be monotonically increasing or decreasing"):
        polyfuse.kernel(digitize_vector)(POINTS, np.array([1.0, 1.0, 0.0, 2.0]))
