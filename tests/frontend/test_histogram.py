"""np.histogram inside kernels (frontend/arrays.py ``Lowering.histogram``): a number of bins, with
range=, weights= and density=, and bin edges as an array (``Lowering.histogram_edges``), against
the undecorated function on the same inputs (NumPy's own bin arithmetic, so counts, edges and
weighted sums are bit for bit NumPy's); npbench's azimint_hist and hist.py as written; what is
refused, and where."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.errors import ArgumentError, UnsupportedError

# the targets and fusion modes of a function compiled in consecutive tests share one lift (conftest)
pytestmark = pytest.mark.usefixtures("one_lift_per_program")

TARGETS = ("python", "cpu")


def counts(x, n):
    return np.histogram(x, n)[0]


def edges_only(x, n):
    return np.histogram(x, bins=n)[1]


def unpacked(x, n):
    h, e = np.histogram(x, n)
    return h, e


def returned(x, n):
    return np.histogram(x, n)


def default_bins(x):
    return np.histogram(x)


def ranged(x, n):
    return np.histogram(x, n, range=(-1.0, 2.5))


def ranged_ints(x, n):
    return np.histogram(x, n, (0, 10))


def weighted(x, w, n):
    return np.histogram(x, n, weights=w)


def density(x, n):
    return np.histogram(x, n, density=True)


def weighted_density(x, w, n):
    return np.histogram(x, n, range=(0.0, 1.0), density=True, weights=w)


def in_an_expression(x, n):
    return np.histogram(x, n)[0] * 2 + 1


def bins_from_a_size(x):
    nb = x.shape[0] // 3 + 1
    return np.histogram(x, nb)[0]


def in_a_loop(rows, n):
    out = np.zeros((rows.shape[0], n), dtype=np.int64)
    for i in range(rows.shape[0]):
        out[i, :] = np.histogram(rows[i, :], n)[0]
    return out


def azimint_hist(data, radius, npt):  # npbench azimint_hist, as written there
    histu = np.histogram(radius, npt)[0]
    histw = np.histogram(radius, npt, weights=data)[0]
    return histw / histu


@functools.cache
def _kernel(fn, target):
    """One kernel per function and target, so examples with a signature seen before reuse its variant."""
    return polyfuse.kernel(fn, target=target)


def _same(fn, *args, rtol=0.0):
    want = fn(*args)
    for target in TARGETS:
        got = _kernel(fn, target)(*args)
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        for g, w in pairs:
            assert g.dtype == w.dtype and g.shape == w.shape, (target, g.dtype, w.dtype)
            if rtol:
                np.testing.assert_allclose(g, w, rtol=rtol)
            else:
                np.testing.assert_array_equal(g, w)


# data with repeated values, negatives, all-equal runs and the edges themselves
values = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.5, -3.25, 1e-3, 7.0]),
                   st.floats(-100, 100, allow_nan=False, width=64))
data = st.lists(values, min_size=1, max_size=40)


@settings(max_examples=6, deadline=None)
@given(x=data, n=st.integers(1, 12), dtype=st.sampled_from(["float64", "float32", "int64", "int32", "uint8"]))
def test_counts_and_edges_match_numpy(x, n, dtype):
    a = np.abs(np.array(x)) if dtype == "uint8" else np.array(x)
    a = a.astype(dtype)
    _same(unpacked, a, n)


@settings(max_examples=4, deadline=None)
@given(x=data, n=st.integers(1, 12))
def test_a_range_drops_what_lies_outside(x, n):
    _same(ranged, np.array(x), n)
    _same(ranged_ints, np.array(x).astype(np.int64), n)


@settings(max_examples=4, deadline=None)
@given(x=data, n=st.integers(1, 9), wtype=st.sampled_from(["float64", "float32", "int64"]), seed=st.integers(0, 99))
def test_weighted_sums_match_numpy(x, n, wtype, seed):
    a = np.array(x)
    w = (np.random.default_rng(seed).random(a.shape[0]) * 10 - 3).astype(wtype)
    _same(weighted, a, w, n)


@settings(max_examples=4, deadline=None)
@given(x=data, n=st.integers(1, 12), seed=st.integers(0, 99))
def test_densities_match_numpy(x, n, seed):
    a = np.array(x)
    _same(density, a, n)
    w = np.random.default_rng(seed).random(a.shape[0])
    _same(weighted_density, np.clip(a, -0.5, 1.5), w, n, rtol=1e-12)


@pytest.mark.parametrize("value", [3.0, -2.0, 0.0])
def test_all_equal_values_widen_the_range_by_half(value):
    _same(unpacked, np.full(6, value), 4)
    _same(unpacked, np.full(5, int(value), dtype=np.int64), 3)


def test_empty_data_uses_the_range_zero_to_one():
    _same(unpacked, np.zeros(0), 5)
    _same(ranged, np.zeros(0), 3)


def test_data_of_any_rank_is_flattened():
    rng = np.random.default_rng(3)
    _same(unpacked, rng.random((4, 5)), 6)
    _same(weighted, rng.random((2, 3, 4)), rng.random((2, 3, 4)), 5)
    _same(unpacked, (rng.random((3, 7)) * 20).astype(np.int32), 4)


def test_the_forms_of_the_call():
    rng = np.random.default_rng(5)
    x = rng.normal(size=300)
    _same(counts, x, 17)
    _same(edges_only, x, 17)
    _same(returned, x, 8)
    _same(default_bins, x)
    _same(in_an_expression, x, 9)
    _same(bins_from_a_size, x)
    _same(in_a_loop, rng.random((4, 30)), 6)


def test_nan_data_with_a_range_is_dropped_as_numpy_drops_it():
    x = np.array([0.1, np.nan, 0.7, 2.0, np.nan, -0.5])
    _same(ranged, x, 5)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_data_that_is_not_finite_without_a_range_raises_value_error(target, bad):
    """NumPy raises ValueError ("autodetected range of [nan, nan] is not finite"), and so does
    the kernel (by the run-time check of asserts; the message does not show the values)."""
    x = np.array([0.1, bad, 0.7])
    with pytest.raises(ValueError, match="autodetected range"):
        unpacked(x, 3)
    with pytest.raises(ValueError, match="autodetected range of the data is not finite"):
        polyfuse.kernel(unpacked, target=target)(x, 3)
    np.testing.assert_array_equal(polyfuse.kernel(unpacked, target=target)(x[:1], 3)[0], unpacked(x[:1], 3)[0])


def four_bins(x):
    return np.histogram(x, 4)[0]


@pytest.mark.parametrize("target", TARGETS)
def test_too_many_bins_for_the_data_range_raises_value_error(target):
    """NumPy's message names the number of bins; so does the kernel's when it is a constant."""
    x = np.array([1.0, np.nextafter(1.0, 2.0)])  # one ulp wide: 4 bins cannot have distinct edges
    with pytest.raises(ValueError, match="Too many bins") as want:
        four_bins(x)
    with pytest.raises(ValueError) as got:
        polyfuse.kernel(four_bins, target=target)(x)
    assert got.value.args == want.value.args
    with pytest.raises(ValueError, match="Too many bins for data range"):
        polyfuse.kernel(counts, target=target)(x, 4)
    np.testing.assert_array_equal(polyfuse.kernel(counts, target=target)(x, 1), counts(x, 1))


def test_npbench_azimint_hist():
    rng = np.random.default_rng(7)
    data, radius = rng.random(1000), rng.random(1000)
    _same(azimint_hist, data, radius, 100)
    _same(azimint_hist, data, np.round(radius, 2), 37)  # repeated values, some on the edges


def test_bins_below_one_are_refused_per_call():
    with pytest.raises(ArgumentError):
        polyfuse.kernel(counts)(np.ones(4), 0)
    with pytest.raises((ArgumentError, UnsupportedError)):  # one edge: known at compile time (a unit axis)
        polyfuse.kernel(edges_given)(np.ones(4), np.ones(1))


def hist_py(binned_gray):  # hist.py's form: the edges as an array
    hist, bins = np.histogram(binned_gray, bins=np.arange(257), density=True)
    return hist, bins


def edges_given(x, e):
    return np.histogram(x, e)


def edges_density(x, e):
    return np.histogram(x, bins=e, density=True)[0]


def test_hist_py_with_edges_as_an_array():
    gray = (np.random.default_rng(2).random((30, 20)) * 256).astype(np.uint8)
    _same(hist_py, gray)


edge_values = st.lists(st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0]), min_size=2, max_size=8)


@settings(max_examples=5, deadline=None)
@given(x=st.lists(st.one_of(values, st.just(float("nan"))), min_size=0, max_size=30), e=edge_values,
       dtype=st.sampled_from(["float64", "float32", "int64"]))
def test_edges_as_an_array_match_numpy(x, e, dtype):
    """Repeated edges, values on the edges and outside them, NaN (dropped, as NumPy's sort puts it last)."""
    a = np.array(x, dtype=np.float64)
    a = np.nan_to_num(a).astype(dtype) if dtype == "int64" else a.astype(dtype)
    edges = np.array(sorted(e))
    _same(edges_given, a, edges)
    _same(edges_given, a, edges.astype(np.int64))
    if len(set(e)) == len(e):  # repeated edges: NumPy divides by a zero width
        _same(edges_density, a, edges, rtol=1e-12)


def two_d_edges(x):
    return np.histogram(x, np.ones((2, 2)))[0]


def edges_and_weights(x, w):
    return np.histogram(x, np.arange(4.0), weights=w)[0]


def float32_data(x):
    return np.histogram(x.astype(np.float32), 4, range=(0.0, 1.0))[0]


def computed_range(x, lo):
    return np.histogram(x, 4, range=(lo, 1.0))[0]


def backwards_range(x):
    return np.histogram(x, 4, range=(1.0, 0.0))[0]


def whole_tuple(x):
    h = np.histogram(x, 4)
    return h


def estimator(x):
    return np.histogram(x, "auto")[0]


def third_part(x):
    return np.histogram(x, 4)[2]


@pytest.mark.parametrize("fn, args", [
    (two_d_edges, (np.ones(3),)), (edges_and_weights, (np.ones(3), np.ones(3))), (float32_data, (np.ones(3),)), (computed_range, (np.ones(3), 0.0)),
    (backwards_range, (np.ones(3),)), (whole_tuple, (np.ones(3),)), (estimator, (np.ones(3),)),
    (third_part, (np.ones(3),))])
def test_other_forms_are_refused_where_they_are(fn, args):
    with pytest.raises(UnsupportedError, match="histogram") as e:
        polyfuse.kernel(fn)(*args)
    assert e.value.span is not None


@pytest.mark.parametrize("lo, hi, n", [(0.1, 0.7, 7), (-3.3, 1e3, 13), (1.0, 1.0 + 2e-15, 3), (-1e-300, 1e-300, 5)])
def test_values_on_and_next_to_the_edges(lo, hi, n):
    """Where the first bin guess is off by one, NumPy's corrections against the edges decide."""
    edges = np.linspace(lo, hi, n + 1)
    x = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
    x = x[(x >= lo) & (x <= hi)]
    _same(unpacked, x, n)
    _same(counts, np.concatenate([x, [lo, hi]]), n)


@pytest.mark.parametrize("target", TARGETS)
def test_edges_that_decrease_raise_value_error(target):
    x, edges = np.array([0.5, 1.5]), np.array([0.0, 2.0, 1.0, 3.0])
    with pytest.raises(ValueError) as want:
        edges_given(x, edges)
    with pytest.raises(ValueError) as got:
        polyfuse.kernel(edges_given, target=target)(x, edges)
    assert got.value.args == want.value.args


@pytest.mark.parametrize("lo, hi, n", [(0.1, 0.7, 7), (-3.3, 1e3, 13), (1.0, 1.0 + 1e-5, 3), (-1e-30, 1e-30, 5)])
def test_float32_data_has_float32_edges_as_in_numpy(lo, hi, n):
    """float32 data without range=: edges, bin arithmetic and corrections in float32, NumPy's
    own; values on the edges and one float32 ulp either side of them; empty data (NumPy's
    float64 linspace of 0 and 1, cast)."""
    edges = np.linspace(np.float32(lo), np.float32(hi), n + 1, dtype=np.float32)
    x = np.concatenate([edges, np.nextafter(edges, np.float32(np.inf)), np.nextafter(edges, np.float32(-np.inf))])
    _same(unpacked, x, n)
    _same(unpacked, x[(x >= edges[0]) & (x <= edges[-1])], n)
    _same(density, x, n)
    _same(unpacked, x[:0], n)


def test_all_equal_float32_values_widen_the_range_by_half_in_float32():
    _same(unpacked, np.full(5, np.float32(3.3)), 4)
