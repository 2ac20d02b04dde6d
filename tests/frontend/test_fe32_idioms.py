"""fe32's front-end forms against the undecorated function (cpu target, threads on): a scalar
``np.nan_to_num`` and its in-place ``copy=False`` statement, ``a if c else b`` of arrays inside an
expression, temporaries bound in both branches of an ``if`` on the data, index lists
(``X[:, [0, 2]]``), ``np.finfo``/``np.iinfo`` constants, ``reversed(range())``, ``max(x)`` /
``min(x)`` of a 1-d array, ``np.cov(x, y)``, ``raise ValueError("...")``, ``while`` tests with
array values, ``np.select``, ``np.unravel_index``, ``np.ediff1d`` and ``max``/``min`` of booleans,
``gy, gx = np.gradient(f)``; and the variants
refused with an UnsupportedError.  Four small kernels, so four compiles."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse


def chosen(X, Y, alpha):
    Z = np.abs((X + 1) if alpha > 0.5 else Y[::-1]) * 2
    if alpha > 0.5:
        W = X * 2
    else:
        W = Y - 1
    sums = np.zeros(2)
    for i in range(2):
        if X[i, 0] > 0:  # read only in its branches: two arrays, extents 3 and 4 (never required equal)
            t = X[0] * 2
            sums[i] = t.sum()
        else:
            t = Y[:, 0] * 3
            sums[i] = t.sum()
    return Z, W + 1, X[:, [0, 2]], X[[1, 0]], sums, (X > 0).max(axis=0), np.min(X > -1.0)


def scalars(v, alpha, k):
    s = 0.0
    for i in reversed(range(v.shape[0])):
        s = s * 0.5 + np.nan_to_num(v[i] / alpha, nan=1.0, posinf=2.0)
    for j in reversed(range(1, v.shape[0], 2)):
        s = s * 0.25 + v[j]
    eps = np.finfo(np.float32).eps
    big = np.iinfo(np.int16).max
    y = np.abs(v[::2])
    steps = 0
    while (y > alpha).any() and steps < 20:  # a test with array values: computed before each iteration
        y = y * 0.5
        steps += 1
    picked = np.select([v < 0, v > 1], [-v, 2.5], default=alpha)
    row, col = np.unravel_index(k, (2, 4))
    either = (np.abs(v[2:]).sum() if alpha > 0.5 else v[0]) * 2  # scalars of arrays: the sum only where it runs
    return s, max(v), min(v), eps * 2, big - k, np.nan_to_num(k), y, steps, picked, row, col, either


def rewritten(X, Y):
    gy, gx = np.gradient(X)
    return np.cov(X[:, 0], Y[:, 1]), np.cov(X[:, 1], y=Y[:, 2], ddof=0), np.ediff1d(X), gx - gy


def checked(x, t):
    if t < 0:
        raise ValueError("t must not be negative")
    for i in range(x.shape[0]):
        if x[i] > t:
            raise IndexError("too large")
    np.nan_to_num(x, copy=False, nan=-1.0)
    return x


def _same_as_python(want, got):
    assert_same_result(want, got, scalar_rtol=1e-12, array_rtol=1e-12)


def test_fe32_forms_as_python():
    rng = np.random.default_rng(3)
    X, Y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    v = np.array([1.0, np.nan, -2.0, np.inf, 0.5])
    choose, scalar = polyfuse.kernel(chosen, target="cpu"), polyfuse.kernel(scalars, target="cpu")
    for alpha in (0.0, 0.3, 1.0):
        _same_as_python(chosen(X, Y, alpha), choose(X, Y, alpha))
        with np.errstate(all="ignore"):
            _same_as_python(scalars(v, alpha, 7), scalar(v, alpha, 7))
    with pytest.raises(polyfuse.ArgumentError):  # Z's branches, W's two arrays: extents required equal
        choose(X, Y[:3], 0.3)
    # np.cov(x, y) is np.cov(np.stack((x, y))), np.ediff1d a difference of ravels: rewrites before the loop program, which does not
    # depend on the target (the python backend compiles it in a third of the time)
    _same_as_python(rewritten(X, Y), polyfuse.kernel(rewritten, target="python")(X, Y))
    run = polyfuse.kernel(checked, target="cpu")
    x = np.array([0.5, np.nan, 2.0])
    got = run(x.copy(), 3.0)
    np.testing.assert_array_equal(got, checked(x.copy(), 3.0))
    with pytest.raises(ValueError, match="t must not be negative"):
        run(x.copy(), -1.0)
    with pytest.raises(IndexError, match="too large"):
        run(x.copy(), 1.0)


def raises_other(x):
    if x[0] < 0:
        raise RuntimeError("negative")
    return x


def choice_of_dtypes(x, alpha):
    return (x if alpha > 0.5 else x.astype(np.float32)) * 2


def index_list_of_names(x, i):
    return x[[0, i]]


def max_of_matrix(X):
    return max(X)


def select_of_numbers(x):
    return np.select([x], [x])


@pytest.mark.parametrize("fn, args, match", [
    (raises_other, (np.ones(3),), "raise statement"),
    (choice_of_dtypes, (np.ones(3), 0.7), "'a if c else b' of float64 of rank 1 and float32 of rank 1"),
    (index_list_of_names, (np.ones(3), 1), "index list"),
    (max_of_matrix, (np.ones((2, 2)),), "max"),
    (select_of_numbers, (np.ones(2),), "not boolean"),
])
def test_fe32_variants_refused(fn, args, match):
    with pytest.raises(polyfuse.UnsupportedError, match=match):
        polyfuse.kernel(fn, target="cpu")(*args)
