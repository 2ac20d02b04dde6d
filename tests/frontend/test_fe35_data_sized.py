"""fe35's front-end forms against the undecorated function: ``np.unique`` with
``return_index=`` / ``return_inverse=`` / ``return_counts=`` (NaN grouped once), ``argmax`` /
``argmin`` of an array of np.unique's length (the mode's ``vals[np.argmax(counts)]``),
``r, c = np.nonzero(M)`` of a 2-d ``M`` (returned: appended positions; indexed: flat positions),
``np.vander(x, N).shape``, ``np.insert`` at either end, ``np.diagflat``, ``np.median`` of a
loop's slice (the median filter), ``np.roll`` by an integer argument, a double buffer ``cur = nxt``
in a loop whose elements are read into scalars (``c = cur[i]``: no view); and the variants refused with an UnsupportedError.  Three small
kernels, so three compiles."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse


def grouped(x, w):
    u, first, inv, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    vals, where = np.unique(w, return_inverse=True)
    mode = u[np.argmax(counts)]  # the first of the most frequent
    rare = counts.argmin()
    roots = np.empty(w.shape[0], dtype=np.int64)  # a local filled in a loop: its rank from its binding
    for i in range(w.shape[0]):
        roots[i] = w[i] // 2
    return u, first, inv, counts, mode, rare, vals, where, np.vander(x, 3).shape[1], np.vander(w).shape, \
        len(np.unique(roots))


def pairs(M, W):
    r, c = np.nonzero(M > 0.5)  # returned: the positions appended in C order
    rows, cols = np.where(W)  # indexed: the flat positions
    total = np.float64(0.0)  # (0.0 would stay a Python float where nothing is selected)
    for k in range(len(rows)):
        total += W[rows[k], cols[k]] * (cols[k] - rows[k])
    return r, c, total, rows.size


def filtered(x, k, A, s):
    c = np.cumsum(np.insert(x, 0, 0.0))  # the moving average's leading zero
    out = x.copy()
    for i in range(1, len(x) - 1):
        out[i] = np.median(x[i - 1:i + 2])  # a slice of 3 in a loop: no slice in the helper
    cur = x.copy()
    for _ in range(2):  # a double buffer: cur's elements are read into scalars, never viewed
        nxt = np.zeros_like(cur)
        for i in range(len(cur)):
            left = cur[i]
            nxt[i] = left + cur[(i + 1) % len(cur)]
        cur = nxt
    return (cur, (c[2:] - c[:-2]) / 2, np.insert(k, len(k), -3), out, A - np.diagflat(np.diag(A)), np.median(k[:4]),
            np.roll(x, s), np.roll(A, s, axis=1))


def _same_as_python(want, got):
    assert_same_result(want, got, scalar_rtol=1e-12, array_rtol=1e-12)


def test_fe35_forms_as_python():
    group = polyfuse.kernel(grouped, target="python")
    x = np.array([2.0, np.nan, -1.0, 2.0, np.nan, 0.0, -0.0, 2.0])
    w = np.array([3, 1, 3, 3, 0, 1])
    for a, b in ((x, w), (x[:2], w[:0]),  # (no extent 1: an axis of extent 1 is another signature)
                 (np.array([np.nan, 5.0, np.nan]), w[::-1].copy())):
        _same_as_python(grouped(a, b), group(a, b))
    with pytest.raises(ValueError):  # argmax of nothing: NumPy's ValueError
        group(x[:0], w)
    pair = polyfuse.kernel(pairs, target="python")
    rng = np.random.default_rng(3)
    M, W = rng.random((4, 3)), np.where(rng.random((4, 3)) < 0.5, 0.0, rng.standard_normal((4, 3)))
    W[0, 0] = np.nan  # nonzero, as Python's truth
    for a, b in ((M, W), (np.zeros((2, 3)), np.zeros((2, 3))), (M[:0], W[:0])):
        _same_as_python(pairs(a, b), pair(np.ascontiguousarray(a), np.ascontiguousarray(b)))
    run = polyfuse.kernel(filtered, target="python")
    k = np.array([2**62, 2**62 + 1, -5, 7, 1], dtype=np.int64)  # mean of the middle two in float64
    for a in (rng.standard_normal(6), np.array([1.0, np.nan, 2.0, -0.0, 0.0]), rng.standard_normal(2)):
        for s in (-7, 2):  # (one compile: s is an argument)
            _same_as_python(filtered(a, k, M[:3], s), run(a, k, M[:3].copy(), s))


def eig_of(A):
    w, v = np.linalg.eig(A)
    return w


def rebound_viewed(x):
    cur = x.copy()
    t = 0.0
    for _ in range(3):
        head = cur[:2]  # a view: it would see cur's new values
        cur = cur + 1.0
        t += head.sum()
    return t


def pair_of_vector(x):
    r, c = np.nonzero(x)
    return r


@pytest.mark.parametrize("fn, args, match", [
    (eig_of, (np.eye(2),), r"np\.linalg\.eig\(\) is not supported"),
    (pair_of_vector, (np.ones(3),), r"nonzero\(\) is not supported"),
    (rebound_viewed, (np.ones(3),), "another name is bound to a view of it"),
])
def test_fe35_variants_refused(fn, args, match):
    with pytest.raises(polyfuse.UnsupportedError, match=match):
        polyfuse.kernel(fn, target="cpu")(*args)
