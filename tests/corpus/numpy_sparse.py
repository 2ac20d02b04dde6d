"""NumPy programs that take scipy.sparse CSR matrices, as npbench's sparse solvers do (sp_cg,
sp_bicg): Krylov iterations whose only sparse operations are products with dense vectors, a
sparse-times-sparse update of a dense matrix (spmm), and a CSR product written with slices of
the raw arrays whose bounds are read from indptr (spmv).
Written for this corpus in the forms the dense frontend takes (vectors updated in place in the
loop), not copied."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from corpus_case import Case


def conjugate_gradient(A, b, x0, iters):
    x = x0.copy()
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(iters):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x[:] = x + alpha * p
        r[:] = r - alpha * Ap
        rs_new = r @ r
        p[:] = r + (rs_new / rs) * p
        rs = rs_new
    return x, np.sqrt(rs)


def biconjugate_step(A, b, x, shadow):
    r = b - A @ x
    w = A.T @ shadow
    v = shadow @ A
    n, m = A.shape
    return r @ r / n, w @ v / m, A.nnz


def scaled_product_update(alpha, beta, C, A, B):
    C[:] = alpha * A @ B + beta * C


def rows_by_slices(indptr, indices, values, x):
    y = np.empty(indptr.size - 1, values.dtype)
    for i in range(indptr.size - 1):
        cols = indices[indptr[i]:indptr[i + 1]]
        y[i] = values[indptr[i]:indptr[i + 1]] @ x[cols]
    return y


def _csr_parts(r, shape, density):
    m = sp.random(*shape, density=density, format="csr", random_state=r)
    return np.uint32(m.indptr), np.uint32(m.indices), m.data, r.random(shape[1])


def _spd(r, n, density, index_dtype=np.int32):
    """A random symmetric positive definite CSR matrix (diagonally dominant)."""
    m = sp.random(n, n, density=density, format="csr", random_state=r)
    m = (m + m.T + sp.eye(n, format="csr") * (2 * n * density + 1)).tocsr()
    m.indices, m.indptr = m.indices.astype(index_dtype), m.indptr.astype(index_dtype)
    return m


CASES = [
    Case("conjugate_gradient", conjugate_gradient, lambda r: (_spd(r, 30, 0.1), r.random(30), np.zeros(30), 8),
         rtol=1e-12),
    Case("conjugate_gradient_int64_indices", conjugate_gradient,
         lambda r: (_spd(r, 12, 0.3, np.int64), r.random(12), r.random(12), 4), rtol=1e-12),
    Case("scaled_product_update", scaled_product_update,
         lambda r: (0.8, 0.3, r.random((9, 8)), sp.random(9, 6, density=0.3, format="csr", random_state=r),
                    sp.random(6, 8, density=0.3, format="csr", random_state=r))),
    Case("rows_by_slices", rows_by_slices, lambda r: _csr_parts(r, (20, 15), 0.2)),
    Case("biconjugate_step", biconjugate_step,
         lambda r: (sp.random(9, 7, density=0.3, format="csr", random_state=r), r.random(9), r.random(7), r.random(9))),
]
