"""A boolean-mask selection used after the statement that binds it (frontend/selection_loops.py):
iterated, read in a branch, guarded by its length; left alone (refused) where something writes
the array it selects from after the binding."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def iterated(x):
    p = x[(x > 0) & ~np.isnan(x)]
    s = 0.0
    for v in p:
        s += v * v
    return s / p.size if p.size else 0.0


def stopped(x, t):
    p = x[x > t]
    k = 0
    for v in p:
        if v > 2 * t:
            break
        k += 1
    return k


def length_and_stats(x):
    p = x[x > 0.2]
    n = len(p)
    s = p.sum()
    m = p.max() if n > 0 else 0.0
    return n, s, m


def per_row(X, t):
    out = np.zeros(X.shape[0])
    for i in range(X.shape[0]):
        row = X[i]
        p = row[row > t]
        if len(p) > 0:
            out[i] = p.mean() + p.min()
    return out


def first_later(x):
    p = x[x > 0.5]
    c = len(p)
    if c > 0:
        return p[0] + c
    return -1.0


def guarded_extreme(x):
    p = x[x > 0]
    return p.max() if p.size > 0 else 0.0


def paired(x, y):
    m = (x > 0) & ~np.isnan(y)
    return (x[m] * np.abs(y[m]) - 1.0).sum() if m.any() else 0.0


def gini_impurity(y):
    g = 1.0
    for c in np.unique(y):
        p = (y == c).mean()
        g -= p * p
    return g


def class_mean_sum(X, y):
    classes = np.unique(y)
    s = 0.0
    for c in classes:
        s += X[y == c].mean()
    return s, len(classes)


def _same(got, want):
    assert type(got) is type(want)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, w, rtol=1e-12, equal_nan=True)


def masked_stats_or_nan(x, m):
    """Two reductions after an early return of NaNs guarded by the size (fe52's masked_mean_std_np:
    the early return's rewrite puts them in the else branch, after other statements)."""
    v = x[m]
    if v.size == 0:
        return np.nan, np.nan
    return v.mean(), v.std()


RNG = np.random.default_rng(26)
CASES = [(iterated, (np.where(RNG.random(9) < 0.3, np.nan, RNG.standard_normal(9)),)), (iterated, (-np.ones(3),)),
         (stopped, (RNG.standard_normal(12), 0.3)), (stopped, (np.zeros(0), 0.3)),
         (length_and_stats, (RNG.random(9),)), (length_and_stats, (np.zeros(3),)),
         (per_row, (RNG.random((5, 4)), 0.5)),
         (first_later, (RNG.random(9),)), (first_later, (RNG.random(2) * 0.1,)),
         (guarded_extreme, (RNG.standard_normal(7),)), (guarded_extreme, (np.zeros(0),)),
         (paired, (RNG.standard_normal(9), np.where(RNG.random(9) < 0.3, np.nan, RNG.random(9)))),
         (paired, (-np.ones(3), np.ones(3))),
         (gini_impurity, (np.array([2.0, np.nan, 1.0, 2.0, np.nan, 0.5]),)),
         (class_mean_sum, (RNG.random(12), RNG.integers(0, 3, 12))),
         (masked_stats_or_nan, (RNG.random(7), RNG.random(7) < 0.5)), (masked_stats_or_nan, (RNG.random(3), np.zeros(3, bool)))]


KERNELS = {fn: polyfuse.kernel(fn, target="python", verify=True) for fn, _ in CASES}


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_selection_used_later_matches_python(fn, args):
    _same(KERNELS[fn](*args), fn(*args))


def written_after(x):
    p = x[x > 0]
    x[0] = 100.0
    s = p.sum()
    return s, p.max() if len(p) else 0.0


def base_written_after(a):
    v = a[1:]
    p = v[v > 0]
    a[1] = 100.0  # changes v[0]: p keeps the values it selected
    return len(p), p.sum()


def mask_written_after(x):
    m = x > 0
    p = x[m]
    m[0] = True  # the mask's array changes: p keeps what it selected
    return len(p), p.sum()


def alias_written_after(x):
    p = x[x > 0]
    y = x
    y[0] = 100.0  # writes x through another name
    return len(p), p.sum()


@pytest.mark.parametrize("fn", [written_after, base_written_after, mask_written_after, alias_written_after])
def test_selection_of_an_array_written_later_is_refused(fn):
    """Reading x[mask] again at a later use would see the write (p would change): refused."""
    with pytest.raises(polyfuse.UnsupportedError, match="boolean-mask selection"):
        polyfuse.kernel(fn, target="python")(np.array([1.0, 2.0, -3.0, 4.0]))
