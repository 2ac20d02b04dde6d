"""Slices whose bounds are read from integer arrays (frontend/arrays.py ``runtime_slice``):
NumPy's rules applied when the statement runs, against the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

TARGETS = ("python", "cpu")


def spmv(A_row, A_col, A_val, x):  # npbench's spmv, as written there
    y = np.empty(A_row.size - 1, A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i]:A_row[i + 1]]
        vals = A_val[A_row[i]:A_row[i + 1]]
        y[i] = vals @ x[cols]
    return y


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("index_dtype", [np.uint32, np.int32, np.int64])
def test_spmv_with_slices_of_the_csr_arrays(target, index_dtype):
    rng = np.random.default_rng(0)
    kernel = polyfuse.kernel(spmv, target=target, verify=True)
    for shape, density in (((40, 30), 0.1), ((7, 9), 0.0), ((12, 5), 0.7)):
        m = sp.random(*shape, density=density, format="csr", random_state=rng)
        args = (m.indptr.astype(index_dtype), m.indices.astype(index_dtype), m.data, rng.random(shape[1]))
        # a dot product sums in another order than NumPy's BLAS (docs/subset.md: reductions)
        np.testing.assert_allclose(kernel(*args), spmv(*args), rtol=1e-12, atol=1e-15)


def sums(a, lo, hi):
    out = np.zeros((lo.shape[0], 4), dtype=a.dtype)
    for i in range(lo.shape[0]):
        out[i, 0] = np.sum(a[lo[i]:hi[i]])
        out[i, 1] = np.sum(a[lo[i]:])
        out[i, 2] = np.sum(a[:hi[i]])
        out[i, 3] = np.sum(a[lo[i]:hi[i]:3])
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_negative_bounds_count_from_the_end_and_bounds_clip(target):
    """Integer sums are exact in any order, so they show which elements each slice took."""
    rng = np.random.default_rng(1)
    a = rng.integers(-1000, 1000, size=10)
    lo, hi = rng.integers(-14, 14, size=200), rng.integers(-14, 14, size=200)
    np.testing.assert_array_equal(polyfuse.kernel(sums, target=target, verify=True)(a, lo, hi), sums(a, lo, hi))


def test_slices_of_arrays_of_other_lengths_must_have_equal_lengths():
    """NumPy would accept A_val longer than A_col where every slice fits both; polyfuse checks
    the sizes equal per call (a refusal, never a wrong result)."""
    m = sp.random(6, 5, density=0.5, format="csr", random_state=0)
    with pytest.raises(ArgumentError):
        polyfuse.kernel(spmv, target="python")(m.indptr, m.indices, np.append(m.data, 1.0), np.ones(5))


def reversed_slice(a, lo):
    out = np.zeros(lo.shape[0])
    for i in range(lo.shape[0]):
        out[i] = np.sum(a[lo[i]::-1])
    return out


def test_a_negative_step_with_a_bound_read_from_an_array_is_refused():
    with pytest.raises(UnsupportedError, match="slice bound"):
        polyfuse.kernel(reversed_slice, target="python")(np.ones(5), np.array([1, 2]))


def stored_slice(A_row, A_col):
    t = A_col[A_row[0]:A_row[1]] * 2.0
    return np.sum(t)


def test_a_temporary_of_such_a_slice_is_refused_at_its_statement():
    with pytest.raises(UnsupportedError, match="extent depends on array values") as info:
        polyfuse.kernel(stored_slice, target="python")(np.array([0, 2]), np.arange(3.0))
    assert "A_col[A_row[0]:A_row[1]] * 2.0" in info.value.span.text
