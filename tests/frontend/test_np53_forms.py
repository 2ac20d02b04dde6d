"""np53's forms (tests/corpus/batch_np53.py's refusals, made general): elementwise arithmetic of
the positions ``np.nonzero(c)[0]`` (and of ``np.unique(x)``) bound to a name, their returned
``np.diff``; ``np.add.at`` & co.
at index arrays selected by a mask (frontend/masked_scatter.py); np.sort, np.argsort and
np.median of a 3-d array along any axis; the refusals that stay, at the construct.  Each kernel
(python backend: the subject is the front end) against the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse
from polyfuse import UnsupportedError


def shifted_positions(flag, s):
    idx = np.nonzero(flag)[0]
    k = idx * 2.5 + s
    first = np.flatnonzero(flag)
    return k, len(idx), first + 1


def scaled_unique(x):
    u = np.unique(x)
    v = u * 2 + len(u)
    return v


def test_arithmetic_of_positions_bound_to_a_name():
    """The arithmetic runs over the whole compaction buffer; the call returns its first count."""
    k = polyfuse.kernel(shifted_positions, target="python")
    for flag in (np.zeros(0, bool), np.array([False, False]), np.array([True, False, True, True]), np.ones(3, bool)):
        assert_same_result(shifted_positions(flag, 3), k(flag, 3))
    u = polyfuse.kernel(scaled_unique, target="python")
    for x in (np.zeros(0, np.int64), np.array([3, 1, 3, 2])):
        assert_same_result(scaled_unique(x), u(x))


def gaps_between_events(flag, x):
    idx = np.nonzero(flag)[0]
    return np.diff(idx), np.diff(np.unique(x)), np.diff(np.flatnonzero(x > 1))


def test_differences_of_positions_returned():
    """np.diff of the whole buffer; the call returns its first max(count - 1, 0) elements."""
    k = polyfuse.kernel(gaps_between_events, target="python")
    for flag in (np.zeros(0, bool), np.array([True]), np.array([False, True, True, False, True])):
        x = np.arange(flag.shape[0], dtype=np.float64) % 3
        assert_same_result(gaps_between_events(flag, x), k(flag, x))


def centred_positions(flag):
    idx = np.nonzero(flag)[0]
    k = idx - idx.mean()  # (the mean of the first count elements: not taken as arithmetic here)
    return k


def test_arithmetic_of_positions_reading_a_reduction_is_refused_at_it():
    with pytest.raises(UnsupportedError, match="elementwise arithmetic of 'idx'"):
        polyfuse.kernel(centred_positions, target="python")(np.array([True, False, True]))


def masked_add_at(n, idx, vals):
    out = np.zeros(n)
    ok = (idx >= 0) & (idx < n)
    np.add.at(out, idx[ok], vals[ok])
    np.maximum.at(out, idx[ok & (vals > 1)], 1.5)
    return out


def masked_pairs_at(x, y, xedges, yedges):
    ix = np.searchsorted(xedges, x, side="right") - 1
    iy = np.searchsorted(yedges, y, side="right") - 1
    ok = (ix >= 0) & (ix < xedges.shape[0] - 1) & (iy >= 0) & (iy < len(yedges) - 1)
    H = np.zeros((xedges.shape[0] - 1, yedges.shape[0] - 1), dtype=np.int64)
    np.add.at(H, (ix[ok], iy[ok]), 1)
    return H


def test_ufunc_at_of_masked_index_arrays():
    """Out-of-range indices the mask drops are never read; a repeated index applies each time."""
    rng = np.random.default_rng(11)
    k = polyfuse.kernel(masked_add_at, target="python")
    for n in (0, 1, 12):
        args = (4, rng.integers(-3, 7, n), 2 * rng.standard_normal(n))
        assert_same_result(masked_add_at(*args), k(*args))
    pairs = polyfuse.kernel(masked_pairs_at, target="python")
    for n in (0, 15):
        args = (rng.random(n), rng.random(n), np.linspace(0.1, 0.9, 4), np.linspace(0.0, 0.8, 3))
        assert_same_result(masked_pairs_at(*args), pairs(*args))


def masked_values_at(out, idx, vals):
    np.subtract.at(out, idx[idx >= 0], vals[idx >= 0])


def test_ufunc_at_mask_of_another_length_raises_index_error():
    k = polyfuse.kernel(masked_values_at, target="python")
    idx = np.array([0, -1, 0])
    out, expected = np.zeros(4), np.zeros(4)
    masked_values_at(expected, idx, np.array([1.0, 2.0, 3.0]))
    k(out, idx, np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, expected)
    for call in (masked_values_at, k):  # the mask selects from vals of another length: NumPy's IndexError
        with pytest.raises(IndexError):
            call(np.zeros(4), idx, np.array([1.0, 2.0, 3.0, 4.0]))


def gathered_add_at(out, idx, sel):
    np.add.at(out, idx[sel], 1.0)  # sel an integer array: a gather, not a mask


def test_ufunc_at_of_gathered_indices_stays_refused():
    with pytest.raises(UnsupportedError, match=r"np\.add\.at\(\)"):
        polyfuse.kernel(gathered_add_at, target="python")(np.zeros(3), np.array([0, 2]), np.array([1, 1]))


def orders_of_three_axes(a, b, c, x):
    s = np.stack([a, b, c])
    return (np.sort(s, axis=0)[1], np.argsort(x, axis=0, kind="stable"), np.sort(x, axis=1),
            np.median(x, axis=-1), np.median(x, axis=1), np.argsort(x, axis=2, kind="stable"))


def test_orders_of_a_three_axis_array_along_each_axis():
    rng = np.random.default_rng(3)
    k = polyfuse.kernel(orders_of_three_axes, target="python")
    for shape in ((3, 4, 5), (1, 1, 2)):
        planes = [rng.random(shape[1:]) for _ in range(3)]
        x = rng.integers(0, 3, shape).astype(np.float64)  # (ties: the stable order's)
        assert_same_result(orders_of_three_axes(*planes, x), k(*planes, x))


def selection_slices(x):
    p = x[x > 0]
    n = len(p)
    return p[1:] - p[:-1], n


def test_slice_of_a_selection_is_refused_at_it():
    with pytest.raises(UnsupportedError, match=r"'p' holds a boolean-mask selection .*p\[1:\] is not supported"):
        polyfuse.kernel(selection_slices, target="python")(np.array([1.0, -1.0, 2.0]))
