"""NumPy programs that take scipy.sparse CSR matrices, as npbench's sparse solvers do (sp_cg,
sp_bicg): Krylov iterations whose only sparse operations are products with dense vectors.
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
    Case("biconjugate_step", biconjugate_step,
         lambda r: (sp.random(9, 7, density=0.3, format="csr", random_state=r), r.random(9), r.random(7), r.random(9))),
]
