"""scipy.sparse CSR (and CSC) matrices as kernel arguments (runtime/sparse.py, frontend/sparse.py,
frontend/array_sparse.py), against the undecorated function on the same matrices.

The products run scipy's own loops in scipy's order, so results are compared bit for bit.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sp

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

# the targets and fusion modes of a function compiled in consecutive tests share one lift (conftest)
pytestmark = pytest.mark.usefixtures("one_lift_per_program")

TARGETS = ("python", "cpu")


@functools.cache
def _kernel(fn, target):
    """One kernel per function and target for the whole module: a signature seen before reuses
    its compiled variant instead of compiling again (the python target has no disk cache)."""
    return polyfuse.kernel(fn, target=target, verify=True)


def _random_csr(rng, shape, density, dtype, index_dtype, messy=False, array=False):
    """A random CSR matrix; ``messy``: unsorted indices within rows and duplicate entries (which
    scipy's products add up), built from the raw arrays as third-party code may."""
    rows, cols = shape
    if not messy:
        m = sp.random(rows, cols, density=density, format="csr", dtype=dtype, random_state=rng)
    else:
        counts = rng.integers(0, 4, size=rows) if cols else np.zeros(rows, dtype=np.int64)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(index_dtype)
        indices = rng.integers(0, max(cols, 1), size=int(indptr[-1])).astype(index_dtype)
        data = (rng.random(indices.size) * 2 - 1).astype(dtype)
        m = sp.csr_matrix((data, indices, indptr), shape=shape)
    m = sp.csr_array(m) if array else m
    m.indices, m.indptr = m.indices.astype(index_dtype), m.indptr.astype(index_dtype)  # scipy picks int32 if it can
    assert m.indices.dtype == index_dtype
    return m


def _same(fn, *args, targets=TARGETS):
    """The kernel returns what ``fn`` does: same type, dtype, shape and bits."""
    for target in targets:
        expected = fn(*args)
        actual = _kernel(fn, target)(*args)
        pairs = list(zip(expected, actual)) if isinstance(expected, tuple) else [(expected, actual)]
        for e, a in pairs:
            assert type(a) is type(e), (target, type(a), type(e))
            assert np.asarray(a).dtype == np.asarray(e).dtype, (target, np.asarray(a).dtype)
            assert np.asarray(a).shape == np.asarray(e).shape, target
            np.testing.assert_array_equal(a, e, err_msg=target)


def matvec(A, x):
    return A @ x


def rmatvec(A, x):
    return A.T @ x


def vecmat(x, A):
    return x @ A


def dot(A, x):
    return A.dot(x)


def transposed_dot(A, x):
    return A.T.dot(x)


def residual(A, x, b):
    return b - A @ x


SHAPES = [(1, 1), (7, 5), (5, 7), (20, 30), (0, 3), (3, 0)]
CASES = [(shape, density) for shape in SHAPES for density in (0.0, 0.15, 0.6)]


@pytest.mark.parametrize("shape, density", CASES)
@pytest.mark.parametrize("dtype, index_dtype", [(np.float64, np.int32), (np.float32, np.int64)])
def test_products_with_a_vector(shape, density, dtype, index_dtype):
    rng = np.random.default_rng(hash((shape, density)) % 2**32)
    A = _random_csr(rng, shape, density, dtype, index_dtype)
    x, z = rng.random(shape[1]).astype(dtype), rng.random(shape[0]).astype(dtype)
    _same(matvec, A, x)
    _same(rmatvec, A, z)
    _same(vecmat, z, A)
    _same(dot, A, x)


@pytest.mark.parametrize("shape", [(6, 4), (9, 9), (1, 5)])
def test_unsorted_indices_and_duplicates_are_summed_as_scipy_does(shape):
    rng = np.random.default_rng(3)
    for array in (False, True):
        A = _random_csr(rng, shape, 0.0, np.float64, np.int32, messy=True, array=array)
        assert not A.has_canonical_format or A.nnz == 0
        x, z = rng.random(shape[1]), rng.random(shape[0])
        _same(matvec, A, x)
        _same(rmatvec, A, z)
        _same(transposed_dot, A, z)


def test_products_with_a_matrix():
    rng = np.random.default_rng(4)
    A = _random_csr(rng, (8, 6), 0.3, np.float64, np.int32)
    _same(matvec, A, rng.random((6, 3)))
    _same(rmatvec, A, rng.random((8, 2)))
    _same(vecmat, rng.random((4, 8)), A)
    _same(dot, A, rng.random((6, 1)))


def test_csc_matrices_are_read_as_the_transpose_they_store():
    rng = np.random.default_rng(5)
    A = _random_csr(rng, (9, 7), 0.3, np.float64, np.int32, messy=True).tocsc()
    _same(matvec, A, rng.random(7))
    _same(rmatvec, A, rng.random(9))
    _same(matvec, A, rng.random((7, 2)))


def test_mixed_dtypes_follow_scipy():
    rng = np.random.default_rng(6)
    A32 = _random_csr(rng, (10, 8), 0.3, np.float32, np.int32)
    _same(matvec, A32, rng.random(8))  # float32 data, float64 vector: float64
    Aint = sp.csr_matrix((rng.integers(-5, 5, size=(10, 8)) * (rng.random((10, 8)) < 0.3)).astype(np.int64))
    _same(matvec, Aint, rng.integers(-3, 3, size=8))
    _same(matvec, Aint, rng.random(8).astype(np.float32))


def test_a_product_inside_an_expression_and_of_an_expression():
    rng = np.random.default_rng(7)
    A = _random_csr(rng, (12, 12), 0.3, np.float64, np.int32)
    x, b = rng.random(12), rng.random(12)
    _same(residual, A, x, b)

    def of_expression(A, x, b):
        return A @ (2.0 * x + b)
    _same(of_expression, A, x, b)


def test_attributes():
    def attributes(A, x):
        n, m = A.shape
        y = np.zeros(A.shape[0] + m, dtype=A.dtype)
        y[:n] = A @ x
        y[n:] = A.shape[-1] * x
        return y, A.nnz, A.ndim, A.shape[1]
    rng = np.random.default_rng(8)
    A = _random_csr(rng, (6, 4), 0.4, np.float32, np.int64)
    _same(attributes, A, rng.random(4).astype(np.float32))


def scaled(alpha, A, x):
    return alpha * A @ x, (A * 0.5).dot(x), 3 * A.T @ (A @ x)


def test_scaled_matrices():
    rng = np.random.default_rng(11)
    for dtype in (np.float32, np.float64):
        A = _random_csr(rng, (9, 6), 0.4, dtype, np.int32, messy=True)
        x = rng.random(6).astype(dtype)
        _same(scaled, 1.5, A, x)
        _same(scaled, np.float64(1.5), A, x)


def spmm(alpha, beta, C, A, B):
    C[:] = alpha * A @ B + beta * C


def spmm_forms(C, D, A, B):
    C[:] = D + A @ B
    D[:] = A @ B - 2.0 * D
    C[:] = 2 * C - A @ (0.5 * B)
    return C, D


@pytest.mark.parametrize("shapes", [((8, 6), (6, 7)), ((5, 1), (1, 4)), ((6, 6), (6, 6))])
@pytest.mark.parametrize("array", [False, True])
def test_sparse_times_sparse_plus_dense_is_scipy_bit_for_bit(shapes, array):
    """npbench spmm: C[:] = alpha * A @ B + beta * C.  scipy adds only the nonzero sums to the
    dense matrix (so a -0.0 in it stays where the product has no entry); the tests check signs."""
    rng = np.random.default_rng(12)
    (n, k), (_, m) = shapes
    for density in (0.0, 0.3, 0.8):
        A = _random_csr(rng, (n, k), density, np.float64, np.int32, messy=True, array=array)
        B = _random_csr(rng, (k, m), density, np.float64, np.int64, messy=True, array=array)
        C = rng.random((n, m)) - 0.5
        C[0, 0] = -0.0
        for target in TARGETS:
            for alpha, beta in ((0.8, 0.3), (np.float32(2.0), np.float32(-1.0))):
                expected, actual = C.copy(), C.copy()
                spmm(alpha, beta, expected, A, B)
                _kernel(spmm, target)(alpha, beta, actual, A, B)
                np.testing.assert_array_equal(actual, expected)
                assert (np.signbit(actual) == np.signbit(expected)).all()


def test_sparse_times_sparse_forms():
    rng = np.random.default_rng(13)
    A = _random_csr(rng, (7, 5), 0.4, np.float32, np.int32)
    B = _random_csr(rng, (5, 6), 0.4, np.float64, np.int32)
    for target in TARGETS:
        C, D = rng.random((7, 6)).astype(np.float32), rng.random((7, 6))
        expected = spmm_forms(C.copy(), D.copy(), A, B)
        actual = polyfuse.kernel(spmm_forms, target=target, verify=True)(C.copy(), D.copy(), A, B)
        for e, a in zip(expected, actual):
            assert e.dtype == a.dtype
            np.testing.assert_array_equal(a, e)


def _rows_of(M):
    return M.shape[0]


def _residual(M, v, b):
    return b[:_rows_of(M)] - M @ v


def through_helpers(A, x, b):
    return _residual(A, x, b)


def test_helpers_taking_the_matrix_are_inlined():
    rng = np.random.default_rng(14)
    A = _random_csr(rng, (6, 5), 0.5, np.float64, np.int32)
    _same(through_helpers, A, rng.random(5), rng.random(8))


def power_iteration(A, x, steps):
    v = x.copy()
    for _ in range(steps):
        y = A @ v
        v[:] = y / np.sqrt(y @ y)
    return v


def test_a_product_in_a_loop():
    rng = np.random.default_rng(9)
    A = _random_csr(rng, (15, 15), 0.3, np.float64, np.int32)
    x = rng.random(15)
    _same(power_iteration, A, x, 5, targets=("cpu",))  # y @ y on NumPy's own ?dot: NumPy's bits
    # the Python target sums y @ y in index order, which NumPy's ddot need not (OpenBLAS 0.3.31)
    np.testing.assert_allclose(polyfuse.kernel(power_iteration, target="python")(A, x, 5),
                               power_iteration(A, x, 5), rtol=1e-14)


def test_a_new_format_or_dtype_is_a_new_variant():
    kernel = polyfuse.kernel(matvec, target="python")
    rng = np.random.default_rng(10)
    A = _random_csr(rng, (5, 5), 0.5, np.float64, np.int32)
    x = rng.random(5)
    kernel(A, x)
    kernel(A.tocsc(), x)
    kernel(_random_csr(rng, (5, 5), 0.5, np.float64, np.int64), x)
    kernel(_random_csr(rng, (3, 5), 0.5, np.float64, np.int32), x)  # other sizes: the same variant
    assert len(kernel.signatures) == 3
    assert any("A__csc_data" in s for s in kernel.signatures)


# ---- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["coo", "lil", "dok", "bsr", "dia"])
def test_other_formats_are_an_argument_error_naming_the_formats_that_work(fmt):
    A = sp.random(4, 4, density=0.5, format=fmt, random_state=0)
    with pytest.raises(ArgumentError, match=r"csr and csc formats.*tocsr"):
        polyfuse.kernel(matvec, target="python")(A, np.ones(4))


@pytest.mark.parametrize("target", TARGETS)
def test_a_shape_mismatch_is_a_value_error(target):
    A = sp.random(4, 5, density=0.5, format="csr", random_state=0)
    with pytest.raises(ValueError):
        A @ np.ones(4)  # scipy: dimension mismatch
    with pytest.raises(ValueError):
        polyfuse.kernel(matvec, target=target)(A, np.ones(4))
    with pytest.raises(ValueError):
        polyfuse.kernel(rmatvec, target=target)(A, np.ones(5))


@pytest.mark.parametrize("target", TARGETS)
def test_indices_out_of_range_raise_index_error_rather_than_read_outside(target):
    A = sp.random(6, 5, density=0.5, format="csr", random_state=0)
    bad = sp.csr_matrix((A.data, A.indices.copy(), A.indptr), shape=A.shape)
    bad.indices[2] = 50
    with pytest.raises(IndexError):
        polyfuse.kernel(matvec, target=target)(bad, np.ones(5))
    with pytest.raises(IndexError):
        polyfuse.kernel(rmatvec, target=target)(bad, np.ones(6))
    past = sp.csr_matrix((A.data, A.indices, A.indptr.copy()), shape=A.shape)
    past.indptr[-1] = A.nnz + 10
    with pytest.raises(IndexError):
        polyfuse.kernel(matvec, target=target)(past, np.ones(5))


def test_malformed_parts_are_an_argument_error():
    A = sp.random(4, 4, density=0.5, format="csr", random_state=0)
    A.indptr = A.indptr[:-1]
    with pytest.raises(ArgumentError, match="indptr"):
        polyfuse.kernel(matvec, target="python")(A, np.ones(4))


def elementwise(A, x):
    return (A + A) @ x


def times_array(A, x):
    return (A * x) @ x


def bound_sum(A, x):
    S = A @ A + np.ones((4, 4))
    return S @ x


def transposed_pair(A, x):
    C = np.zeros((4, 4))
    C[:] = A.T @ A + C
    return C @ x


def indexed(A, x):
    return A[0] @ x


def densified(A, x):
    return A.toarray() @ x


def sparse_times_sparse(A, x):
    return (A @ A) @ x


def times_scalar(A, x):
    return A @ 2.0


@pytest.mark.parametrize("fn, construct", [(elementwise, "A + A"), (indexed, "A[0]"), (densified, "A.toarray"),
                                           (sparse_times_sparse, "A @ A"), (times_scalar, "A @ 2.0"),
                                           (times_array, "A * x"), (bound_sum, "A @ A + np.ones"),
                                           (transposed_pair, "A.T @ A")])
def test_other_uses_are_refused_at_their_location(fn, construct):
    A = sp.random(4, 4, density=0.5, format="csr", random_state=0)
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(A, np.ones(4))
    error = info.value
    assert error.span is not None and error.span.filename.endswith("test_sparse.py")
    line = error.span.text.strip()
    assert construct in line, line
    assert "sparse" in str(error)
