"""np52's forms (tests/corpus/batch_np52.py's refusals, made general): np.gradient(f, x) of 1-d
coordinates; the rank of a reduction with
``keepdims=True`` (and ``ddof=`` of std/var) told before lowering, so np.take_along_axis of a
log-softmax lowers; np.bincount of an argument that a ufunc.at loop reads element by element (a
binding ``e = x[i]``: a view only of a 2-d ``x``, and unwritten either way); each kernel (python
backend: the subject is the front end) against the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse
from polyfuse import UnsupportedError


def xent_keepdims(logits, y):
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    w = logits / logits.std(axis=0, ddof=1, keepdims=True)
    return -np.take_along_axis(logp, y[:, None], axis=1).mean(), np.take_along_axis(w, y[:, None], axis=1)


def max_at_then_counts(labels, vals, k):
    out = np.full(k, -np.inf)
    np.maximum.at(out, labels, vals)
    return out, np.bincount(labels, minlength=k)


def counts_through_written_view(x):
    v = x[1:]
    v[0] = 7  # writes x[1]: the call cannot count x before the kernel runs
    return np.bincount(x)


def test_take_along_axis_of_keepdims_reductions():
    rng = np.random.default_rng(5)
    k = polyfuse.kernel(xent_keepdims, target="python")
    for n in (1, 5):
        args = (rng.standard_normal((n, 4)), rng.integers(0, 4, n))
        with np.errstate(all="ignore"):  # (std with ddof=1 of one row: nan, as NumPy's)
            assert_same_result(xent_keepdims(*args), k(*args))


def test_bincount_of_indices_a_ufunc_at_reads():
    k = polyfuse.kernel(max_at_then_counts, target="python")
    for labels, vals in ((np.array([0, 3, 3, 1]), np.array([0.5, -1.0, 2.0, 0.25])), (np.zeros(0, np.int64), np.zeros(0))):
        assert_same_result(max_at_then_counts(labels, vals, 5), k(labels, vals, 5))


def test_bincount_through_a_written_view_stays_refused():
    with pytest.raises(UnsupportedError, match="bincount"):
        polyfuse.kernel(counts_through_written_view, target="python")(np.array([0, 1, 2]))


def gradients_on_coordinates(y, x, F):
    return np.gradient(y, x), np.gradient(F, x, axis=0, edge_order=2)


def test_gradient_of_coordinates_is_numpys():
    """np.gradient(f, x): NumPy's uneven-spacing formulas, or its uniform ones where every np.diff(x)
    equals the first (the same bits either way); the result in f's float dtype."""
    rng = np.random.default_rng(7)
    k = polyfuse.kernel(gradients_on_coordinates, target="python")
    for x in (np.cumsum(rng.random(5) + 0.1), np.linspace(0.0, 1.0, 3)):
        args = (rng.standard_normal(x.shape[0]).astype(np.float32), x, rng.standard_normal((x.shape[0], 2)))
        assert_same_result(gradients_on_coordinates(*args), k(*args))


def shared_coordinates(F, x):
    gy, gx = np.gradient(F, x)  # NumPy's TypeError: one array of coordinates for two axes
    return gy + gx


def test_one_array_of_coordinates_for_every_axis_is_refused():
    with pytest.raises(UnsupportedError, match="one array of coordinates"):
        polyfuse.kernel(shared_coordinates, target="python")(np.ones((3, 3)), np.arange(3.0))


def group_sums_at_changes(keys, vals):
    k = np.sort(keys)
    starts = np.concatenate(([0], np.nonzero(np.diff(k))[0] + 1))  # a length read from the data
    return np.add.reduceat(vals, starts)


def test_reduceat_refusal_names_the_operand():
    with pytest.raises(UnsupportedError, match="starts is not a 1-d integer array argument"):
        polyfuse.kernel(group_sums_at_changes, target="python")(np.array([1, 1, 2]), np.ones(3))
