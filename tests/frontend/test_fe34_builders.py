"""fe34's front-end forms against the undecorated function: ``np.broadcast_to`` as a view read
later (after a write into its source), ``np.ascontiguousarray`` / ``np.asfortranarray`` (with
``dtype=``), ``np.nanargmax`` / ``np.nanargmin`` (NumPy's ValueError for an all-NaN slice),
``np.vander``, ``np.lexsort``, ``(expr).dtype`` as a dtype and in ``==``, ``x[idx]`` and ``X[idx,
j]`` of ``idx = np.where(c)[0]``, ``Z[rows] += v``, ``np.histogram2d``, ``np.unique(x,
return_counts=True)``; and the variants refused with an UnsupportedError.  Three small kernels,
so three compiles."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse


def shaped(X, x, a, k):
    idx = np.where(x > 0)[0]  # positions as an index array: the mask x > 0, computed here
    a[idx] += 1
    mu = X.mean(axis=0)
    M = np.broadcast_to(mu, X.shape)
    B = np.broadcast_to(x[:, None], (x.shape[0], 3))
    Y = np.ascontiguousarray(X.T)
    F = np.asfortranarray(X)
    c = np.ascontiguousarray(a, dtype=np.float32)
    c[0] = 0.5
    out = np.zeros(x.shape[0], dtype=(x * a).dtype)
    out[:] = x * a
    Z = X * 1.0
    Z[x > 0.5] += 1.0  # a mask of Z's rows
    x[0] = 7.0  # B is a view of x: it sees the write
    return (X - M, B.sum(axis=1), Y + 1.0, F.T @ F, c, out, a.astype((c + a).dtype),
            np.vander(x, 3), np.vander(a, k, increasing=True), np.lexsort((a, x)), x[idx], X[idx, 1], Z,
            (x * a).dtype == np.float64, c.dtype != a.dtype)


def counted(x, y, k):
    H, xe, ye = np.histogram2d(x, y, bins=k)
    inside = np.histogram2d(x, y, 3, range=[[-1.0, 1.0], [0.0, 2.0]])[0]
    return H, xe, ye, inside


def picks(x, X, t):
    vals, counts = np.unique(x, return_counts=True)  # NaN counted once, as NumPy's equal_nan
    best = np.nanargmax(x) if t > 0 else -1  # only where it runs: an all-NaN x raises nothing otherwise
    if t > 0:
        worst = np.nanargmin(x)
    else:
        worst = -1
    return best, worst, np.nanargmax(X, axis=1), np.nanargmin(X, axis=0, keepdims=True), x[best], vals, counts


def _same_as_python(want, got):
    assert_same_result(want, got, scalar_rtol=1e-12, array_rtol=1e-12)


def test_fe34_forms_as_python():
    rng = np.random.default_rng(5)
    X, x = rng.standard_normal((4, 3)), rng.standard_normal(4)
    a = rng.integers(-3, 4, 4).astype(np.int16)
    # views, formulas and loops of forms the lowering has, and run-time checks: the loop program does
    # not depend on the target (the python backend compiles it in half the time; batch_fe34 runs cpu)
    run = polyfuse.kernel(shaped, target="python")
    for k in (0, 4):
        want_x, got_x, want_a, got_a = x.copy(), x.copy(), a.copy(), a.copy()
        _same_as_python(shaped(X, want_x, want_a, k), run(X, got_x, got_a, k))
        np.testing.assert_array_equal(got_x, want_x)
        np.testing.assert_array_equal(got_a, want_a)
    with pytest.raises(ValueError):  # negative N: NumPy's ValueError
        run(X, x.copy(), a.copy(), -1)
    count = polyfuse.kernel(counted, target="python")
    y = np.array([0.5, np.nan, 1.5, 2.0])
    _same_as_python(counted(x, np.zeros(4), 2), count(x, np.zeros(4), 2))  # one value: edges widened by 0.5
    _same_as_python(counted(x, np.nan_to_num(y), 3), count(x, np.nan_to_num(y), 3))
    with pytest.raises(ValueError):  # NaN data without range=: NumPy's ValueError
        count(x, y, 2)
    pick = polyfuse.kernel(picks, target="python")
    v = np.array([np.nan, -np.inf, 2.0, np.nan, 2.0])
    M = np.array([[np.nan, 1.0, 3.0], [-1.0, np.nan, -1.0]])
    _same_as_python(picks(v, M, 1), pick(v, M, 1))
    W = M[:, 1:].copy()  # (C order, no axis of extent 1: no new signature to compile)
    _same_as_python(picks(v[1:3], W, 1), pick(v[1:3], W, 1))
    _same_as_python(picks(np.full(3, np.nan), M, -2), pick(np.full(3, np.nan), M, -2))
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        pick(np.full(3, np.nan), M, 1)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        pick(v, np.array([[np.nan, 1.0], [np.nan, np.nan]]), -1)  # (a row of X)


def broadcast_written(x):
    b = np.broadcast_to(x, (2, x.shape[0]))
    c = b
    r = c[0]  # a view of a view of it
    r[0] = 1.0
    return b


def contiguous_written(x):
    y = np.ascontiguousarray(x)
    y[0] = 1.0
    return y


def vander_of_matrix(X):
    return np.vander(X)


def histogram2d_inline(x, y):
    return np.histogram2d(x, y)[0].sum()


def broadcast_fewer_axes(X):
    return np.broadcast_to(X, (X.shape[1],))


@pytest.mark.parametrize("fn, args, match", [
    (broadcast_written, (np.ones(3),), "read-only view"),
    (contiguous_written, (np.ones(3),), "memory layout"),
    (vander_of_matrix, (np.ones((2, 2)),), "1-d array"),
    (broadcast_fewer_axes, (np.ones((2, 2)),), "at least the array's axes"),
    (histogram2d_inline, (np.ones(2), np.ones(2)), r"np\.histogram2d\(x, y, bins=k\) is supported as"),
])
def test_fe34_variants_refused(fn, args, match):
    with pytest.raises(polyfuse.UnsupportedError, match=match):
        polyfuse.kernel(fn, target="cpu")(*args)
