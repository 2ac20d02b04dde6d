"""Returned values whose length depends on the data (frontend/data_sized.py): np.nonzero(m)[0],
np.where(m)[0], np.flatnonzero, m.nonzero()[0], x[mask], np.extract and np.unique, each a
compaction loop into a buffer plus a count.  Compared with NumPy on several inputs (empty and
size 1 among them): values, dtype and shape."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse


def nonzero_above(x, t):
    return np.nonzero(x > t)[0]


def where_negative(x):
    return np.where(x < 0.0)[0]


def nonzero_plain(x):
    return np.nonzero(x)[0]


def method_nonzero(x):
    return (x > 0).nonzero()[0]


def flat_positions(A):
    return np.flatnonzero(A > 0.5)


def mask_values(x, lo, hi):
    return x[(x > lo) & (x < hi)]


def mask_rows(X, y, c):
    return X[y == c]


def mask_elements(A):
    return A[A > 0.0]


def mask_not_nan(x):
    return x[~np.isnan(x)]


def above_mean(x):
    return x[x > x.mean()], np.nonzero(np.abs(x - np.max(x)) > 0.5)[0]


def extracted(x):
    return np.extract(x > 0, x)


def uniques(x):
    return np.unique(x)


def both(x, t):
    idx = np.nonzero(x > t)[0]
    s = x.sum()
    kept = x[x > t]
    return idx, kept, s


def outliers(x, k):
    mu = x.mean()
    sd = x.std()
    return np.nonzero(np.abs(x - mu) > k * sd)[0]


def complete_rows(X):
    ok = ~np.isnan(X).any(axis=1)
    return X[ok]


def primes(x):
    n = x.shape[0]
    sieve = np.ones(n, dtype=np.bool_)
    for i in range(min(n, 2)):
        sieve[i] = False
    for i in range(2, n):
        if sieve[i]:
            for j in range(2 * i, n, i):
                sieve[j] = False
    return np.nonzero(sieve)[0]


def _v(n):
    return np.random.default_rng(n).standard_normal(n)


def _ints(n):
    return np.random.default_rng(n).integers(-2, 3, n)


def _nan(n):
    x = _v(n)
    x[::3] = np.nan
    return x


CASES = [
    (nonzero_above, lambda n: (_v(n), 0.3)),
    (where_negative, lambda n: (_v(n),)),
    (nonzero_plain, lambda n: (_ints(n),)),
    (nonzero_plain, lambda n: (_nan(n),)),
    (method_nonzero, lambda n: (_ints(n).astype(np.int32),)),
    (flat_positions, lambda n: (_v(2 * n).reshape(n, 2),)),
    (mask_values, lambda n: (_v(n), -0.5, 1.0)),
    (mask_values, lambda n: (_v(n).astype(np.float32), -0.5, 1.0)),
    (mask_rows, lambda n: (_v(3 * n).reshape(n, 3), _ints(n), 1)),
    (mask_elements, lambda n: (_v(4 * n).reshape(n, 4),)),
    (mask_not_nan, lambda n: (_nan(n),)),
    (extracted, lambda n: (_ints(n),)),
    (above_mean, lambda n: (_v(n + 1),)),
    (uniques, lambda n: (_ints(n),)),
    (uniques, lambda n: (np.round(_nan(n)),)),
    (uniques, lambda n: (_ints(n) > 0,)),
    (both, lambda n: (_v(n), 0.0)),
    (outliers, lambda n: (_v(n + 1), 1.0)),
    (complete_rows, lambda n: (np.where(np.arange(3 * n).reshape(n, 3) % 4 == 1, np.nan, 1.0),)),
    (primes, lambda n: (np.zeros(3 * n),)),
]


@pytest.mark.parametrize("target, fuse", [("python", "none"), ("cpu", "smart")])
@pytest.mark.parametrize("func, make", CASES, ids=[f"{c[0].__name__}{k}" for k, c in enumerate(CASES)])
def test_matches_numpy(func, make, target, fuse):
    kernel = polyfuse.kernel(func, target=target, fuse=fuse, verify=True)
    for n in (0, 1, 2, 10):
        args = make(n)
        assert_same_result(func(*args), kernel(*args), scalar_rtol=1e-12)


def nonzero_rows(A):
    return np.nonzero(A)[0]


def nonzero_tuple(x):
    return np.nonzero(x)


def unique_rows(A):
    return np.unique(A)


def fancy_ints(x, idx):
    return x[idx]


@pytest.mark.parametrize("func, args", [
    (nonzero_rows, (np.eye(3),)),  # the row of each nonzero element: not a mask over one axis
    (nonzero_tuple, (np.ones(3),)),
    (unique_rows, (np.eye(3),)),
])
def test_other_forms_stay_refused(func, args):
    with pytest.raises(polyfuse.UnsupportedError, match="data-dependent shape|sort"):
        polyfuse.kernel(func, target="python")(*args)


def test_an_integer_index_array_is_not_a_mask():
    """x[idx] with integer idx is a gather (its length is idx's), never a compaction."""
    x, idx = np.arange(5.0), np.array([4, 0, 0])
    np.testing.assert_array_equal(polyfuse.kernel(fancy_ints, target="python")(x, idx), x[idx])


def test_a_mask_of_another_length_raises():
    """NumPy raises IndexError; the kernel's size check raises AssertionError before running."""
    with pytest.raises((AssertionError, IndexError)):
        polyfuse.kernel(mask_rows, target="python")(np.ones((3, 2)), np.ones(4, dtype=np.int64), 1)


def count_distinct(x):
    s = np.sort(x)
    t = 0
    for i in range(s.shape[0]):
        if i == 0 or s[i] != s[i - 1]:
            t += 1
    return t


def first_gap(x):
    s = np.sort(x)
    i = 1
    while i < s.shape[0] and s[i] - s[i - 1] < 1.0:
        i += 1
    return i


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, x", [(count_distinct, np.array([3, 1, 3, 2])), (count_distinct, np.zeros(0)),
                                     (first_gap, np.array([0.5, 3.0, 0.2, 1.1])), (first_gap, np.ones(1))],
                         ids=lambda a: getattr(a, "__name__", ""))
def test_and_or_tests_read_a_sorted_local(func, x, target):
    """An if/while test with and/or is kept as written (Python may skip a part); its reads of a
    local the lowering made (np.sort's result) are that array's elements."""
    assert polyfuse.kernel(func, target=target)(x) == func(x)
