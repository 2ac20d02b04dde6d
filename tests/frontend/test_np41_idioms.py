"""np41's front-end forms (batch_np41 found them refused) against the undecorated function:
``np.signbit`` of arrays and ``np.nonzero`` of ``np.diff(m.astype(...))`` (zero crossings),
``v.size`` of a mask selection, ``np.maximum.accumulate(idx, out=idx)`` / ``np.cumsum(x, out=y)``
statements (forward fill), ``np.insert(expr, 0, v)`` of any 1-d expression, ``np.diag``/
``diagonal`` with an offset (one past the array: empty, as NumPy's), ``np.diag_indices``,
``np.unravel_index`` inside a returned tuple, ``+``/``*`` of boolean arrays (or, and),
``np.add.reduceat`` (multiply, maximum, minimum: NumPy's dtypes, int64 for int8 sums),
``np.bincount`` of ``np.unique``'s inverse (the group-by's sums and counts); and the
messages of what stays refused.  Python target (the lowering is the subject), the cpu target for the two that
lean on the backend (copysign of integers, a local array one longer, reduceat's casts)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse


def crossings(x, k):
    s = np.signbit(x)
    return s, np.signbit(k), np.nonzero(np.diff(s.astype(np.int8)))[0]


def wrangled(x, X):
    v = X[X > 0.5]
    n = v.size
    mask = np.isnan(x)
    idx = np.where(~mask, np.arange(x.shape[0]), 0)
    np.maximum.accumulate(idx, out=idx)
    c = np.empty_like(x)
    np.cumsum(np.nan_to_num(x), out=c)
    d = np.diff(idx)
    return n, x[idx], c, np.cumsum(np.insert(x * x, 0, 0.0)), np.insert(d, d.shape[0], -1)


def diagonals(A, a, b):
    return np.diag(A, 1), A.diagonal(-1), np.diag(A, 4), np.diag(a) + np.diag(b, 1) + np.diag(b, k=-1), \
        np.unravel_index(A.argmax(), A.shape), A[np.diag_indices(3)], (a > 0.5) * (a < 3.0) + (a == 1)


def segments(a, m, idx):
    return np.add.reduceat(a, idx), np.maximum.reduceat(a, idx), np.multiply.reduceat(m, idx)


def grouped(keys, vals):
    uk, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=vals)
    counts = np.bincount(inv)
    return uk, sums, counts, sums[counts.argmax()]


def _x():
    return np.array([0.5, np.nan, -0.0, np.nan, -2.0, 3.0, np.nan])


CASES = [
    (crossings, lambda: (np.array([1.0, -0.0, 0.0, -2.5, np.nan, -np.nan, 3.0]), np.arange(-3, 3)), ("python", "cpu")),
    (wrangled, lambda: (_x(), np.linspace(0, 1, 12).reshape(3, 4)), ("python", "cpu")),
    (diagonals, lambda: (np.arange(12.0).reshape(3, 4) % 5, np.ones(4), np.arange(3.0)), ("python",)),
    (segments, lambda: (np.array([100, -50, 7, 100, 3, 2, 1, 9, 100], np.int8), np.arange(9) % 4 > 0,
                        np.array([0, 4, 2, 8, 8])),
     ("python", "cpu")),
    (grouped, lambda: (np.array([3, 1, 3, 2, 7, 3]), np.arange(6.0)), ("python", "cpu")),
]


@pytest.mark.parametrize("fn, make, target", [(fn, make, t) for fn, make, targets in CASES for t in targets],
                         ids=lambda a: getattr(a, "__name__", a if isinstance(a, str) else ""))
def test_np41_forms_match_numpy(fn, make, target):
    assert_same_result(fn(*make()), polyfuse.kernel(fn, target=target)(*make()))


def group_sums(keys, vals):
    uk, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=vals)
    return uk, sums


def inserted_int(k, s):
    return np.insert(k * 2, 0, s)


def test_what_stays_refused_says_so():
    with pytest.raises(polyfuse.UnsupportedError, match=r"np.insert\(x, 0, v\) and np.insert\(x, len\(x\), v\)"):
        polyfuse.kernel(inserted_int, target="python")(np.arange(3, dtype=np.int8), 3)
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_np41_idioms.py:\d+: np.bincount\(\) with weights of an "
                       "empty array"):  # NumPy's is int64 there
        polyfuse.kernel(group_sums, target="python")(np.zeros(0, np.int64), np.zeros(0))
    with pytest.raises(IndexError):  # NumPy's reduceat counts no index from the end
        polyfuse.kernel(segments, target="python")(np.arange(4.0), np.ones(4, bool), np.array([-1, 2]))
