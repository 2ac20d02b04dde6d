"""A loop variable whose name is also a local's (``for j in range(m)`` and, later, ``j =
indices[k]``) gets a fresh name where no read of the local can see the loop's last value
(frontend/loop_names.py); otherwise the kernel is refused as before."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import UnsupportedError


def csr_to_csc(indptr, indices, data, n_cols):
    n_rows = indptr.shape[0] - 1
    nnz = indices.shape[0]
    colptr = np.zeros(n_cols + 1, dtype=np.int64)
    for k in range(nnz):
        colptr[indices[k] + 1] += 1
    for j in range(n_cols):
        colptr[j + 1] += colptr[j]
    pos = colptr[:-1].copy()
    rowind = np.empty(nnz, dtype=np.int64)
    vals = np.empty(nnz)
    for i in range(n_rows):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            p = pos[j]
            rowind[p] = i
            vals[p] = data[k]
            pos[j] = p + 1
    return colptr, rowind, vals


def local_first(a, idx):
    i = idx[0]
    t = a[i]
    for i in range(a.shape[0]):
        a[i] += t
    s = 0.0
    for k in range(idx.shape[0]):
        i = idx[k]
        s += a[i]
    return s


def read_after_loop(a):
    i = 0
    for i in range(a.shape[0]):
        a[i] += 1.0
    return a[i]


def read_in_next_iteration(a, idx):
    j = 0
    s = 0.0
    for k in range(idx.shape[0]):
        s += a[j]
        for j in range(2):
            a[j] += 1.0
    return s


def _csr(rng):
    A = np.where(rng.random((5, 7)) < 0.4, rng.standard_normal((5, 7)), 0.0)
    indptr = np.concatenate([[0], np.cumsum((A != 0).sum(1))]).astype(np.int64)
    return indptr, np.nonzero(A)[1].astype(np.int64), A[A != 0], 7


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, make", [
    (csr_to_csc, _csr),
    (local_first, lambda rng: (rng.standard_normal(6), rng.integers(0, 6, 9))),
    (read_after_loop, lambda rng: (np.zeros(4),)),  # Python returns a[3]: the loop's last value
    (read_in_next_iteration, lambda rng: (np.zeros(4), np.arange(3))),  # the second iteration reads j == 1
])
def test_renamed_loop_matches_python(func, make, target):
    args = make(np.random.default_rng(3))
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = func(*args)
    got = polyfuse.kernel(func, target=target)(*copies)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        assert type(g) is type(e)
        np.testing.assert_array_equal(g, e)
    for a, c in zip(args, copies):
        np.testing.assert_array_equal(c, a)


def read_maybe_unbound(a, n):
    for i in range(n):
        a[i] += 1.0
    return a[i] if a[0] > 1.5 else 0.0  # n <= 0 with a[0] > 1.5: UnboundLocalError in Python


def test_a_read_that_may_see_no_binding_is_refused():
    with pytest.raises(UnsupportedError, match="may be read before it is assigned"):
        polyfuse.kernel(read_maybe_unbound)(np.zeros(4), 2)
