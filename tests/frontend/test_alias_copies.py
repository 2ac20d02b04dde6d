"""``p = r`` of a kernel-local array nothing writes in place binds a copy (frontend/arrays.py
``_copyable_aliases``), so both names may be bound again in a loop; against the undecorated
function, and the view semantics kept wherever an in-place write could tell the difference."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import polyfuse
from polyfuse import UnsupportedError

TARGETS = ("python", "cpu")


def cg(A, x, b, max_iter=100, tol=np.float64(1e-6)):  # noqa: B008 - npbench sp_cg, as written there
    r = b - A @ x
    p = r
    rsold = r @ r
    for i in range(max_iter):
        Ap = A @ p
        alpha = rsold / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rsnew = r @ r
        if np.sqrt(rsnew) < tol:
            break
        p = r + (rsnew / rsold) * p
        rsold = rsnew
    return x


def minres(A, b, x, max_iter=100, tol=1e-6):  # npbench sp_minres, as written there
    r = b - A @ x
    p = r
    for _ in range(max_iter):
        Ap = A @ p
        alpha = (r @ r) / (p @ Ap)
        x = x + alpha * p
        r_new = r - alpha * Ap
        if np.linalg.norm(r_new) < tol:
            break
        beta = (r_new @ r_new) / (r @ r)
        p = r_new + beta * p
        r = r_new
    return x


def _system(n, rng):
    m = sp.random(n, n, density=0.2, format="csr", random_state=rng)
    return (m + m.T + sp.eye(n, format="csr") * n * 0.5).tocsr(), rng.random(n)


@pytest.mark.parametrize("target", TARGETS)
def test_krylov_solvers_with_aliases_rebound_in_the_loop(target):
    """A well-conditioned system: the dense dot products sum in another order than NumPy's
    BLAS (docs/subset.md), which such an iteration does not amplify."""
    rng = np.random.default_rng(0)
    A, b = _system(30, rng)
    cg_kernel, minres_kernel = polyfuse.kernel(cg, target=target), polyfuse.kernel(minres, target=target)
    for iters in (1, 5, 100):  # one variant each serves every count
        x0 = rng.random(30)
        np.testing.assert_allclose(cg_kernel(A, x0, b, iters), cg(A, x0, b, iters), rtol=1e-9)
        np.testing.assert_allclose(minres_kernel(A, b, x0, iters), minres(A, b, x0, iters), rtol=1e-9)


def alias_then_write(x):
    r = x * 2.0
    p = r
    r[0] = -1.0
    return p


def alias_rebound_after_write(x, n):
    r = x * 2.0
    p = r
    p[1] = 5.0
    for _ in range(n):
        r = r * 2.0
    return p, r


@pytest.mark.parametrize("target", TARGETS)
def test_an_alias_written_in_place_stays_a_view(target):
    x = np.arange(4.0)
    np.testing.assert_array_equal(polyfuse.kernel(alias_then_write, target=target)(x), alias_then_write(x))


def test_rebinding_a_name_an_in_place_written_alias_sees_is_still_refused():
    with pytest.raises(UnsupportedError, match="view of it"):
        polyfuse.kernel(alias_rebound_after_write, target="python")(np.arange(4.0), 2)
