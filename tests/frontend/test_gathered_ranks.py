"""A gather through a 1-d index array (``w[idx]``) is a 1-d value where frontend/desugar.py tells
ranks before the lowering (``_kind``), so NumPy helpers take their 1-d form on it and on locals
bound to it (``cw = np.cumsum(w[order])``, then ``np.searchsorted(cw, ...)``): a weighted median
as users write it.  Compared with the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse

RNG = np.random.default_rng(4)


def weighted_median(x, w):
    order = np.argsort(x)
    cw = np.cumsum(w[order])
    k = np.searchsorted(cw, 0.5 * cw[-1])
    return x[order[k]]


def interp_gathered(x, idx, xp, fp):
    return np.interp(x[idx], xp, fp)


def searchsorted_gathered(a, x, idx):
    return np.searchsorted(a, x[idx], side="right")


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (weighted_median, (RNG.random(15), RNG.random(15))),
    (interp_gathered, (RNG.random(8) * 2, RNG.integers(0, 8, 5), np.linspace(0, 2, 6), RNG.random(6))),
    (searchsorted_gathered, (np.sort(RNG.random(9)), RNG.random(7), RNG.integers(-7, 7, 4))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_gathers_are_one_dimensional_for_the_helpers(fn, args, target):
    want = fn(*args)
    got = polyfuse.kernel(fn, target=target, verify=True)(*args)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)
