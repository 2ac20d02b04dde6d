"""np.linalg routines on LAPACK (frontend/array_lapack.py -> model/region.py Lapack ->
backends/cpu/lapack.py): every result against NumPy on the same inputs, on the Python target (which
calls np.linalg itself) and the CPU target (the library NumPy calls, else SciPy's cython_lapack),
in float32, float64, complex64 and complex128, with the statements around the call, in a loop, and
NumPy's errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import polyfuse
from polyfuse import UnsupportedError

TARGETS = ("python", "cpu")
DTYPES = ("float64", "float32")
RNG = np.random.default_rng(11)


@functools.cache
def _kernel(fn, target):
    """One kernel per function and target for the module: a signature seen before (another
    parametrization, a second call) reuses its variant (the python target has no disk cache)."""
    return polyfuse.kernel(fn, target=target)


def _spd(n: int, dtype: str = "float64") -> np.ndarray:
    m = RNG.standard_normal((n, n))
    return (m @ m.T + n * np.eye(n)).astype(dtype)


def _tol(dtype: str) -> dict:
    return {"rtol": 2e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-10}


def cholesky_chain(A):
    L = np.linalg.cholesky(A)
    return L @ L.T + 1


def cholesky_of_sum(A, B):
    return np.linalg.cholesky(A + B.T) * 2.0


def inverse(A):
    return np.linalg.inv(A) - A


def solve_both(A, b, B):
    x = np.linalg.solve(A, b)
    X = np.linalg.solve(A, B)
    return x + 1, X.sum(axis=0)


def determinant(A):
    return np.linalg.det(A) + 1.0


def log_determinant(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * 2, logdet + np.linalg.slogdet(A)[1] + np.linalg.slogdet(A).logabsdet


def repeated_solve(A, x):
    for t in range(3):
        x = np.linalg.solve(A, x) + t
    return x


def determinants(A, out):
    for t in range(A.shape[0]):
        out[t] = np.linalg.det(A[t] + t)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_results_match_numpy_with_the_statements_around_them(target, dtype):
    A, B = _spd(7, dtype), _spd(7, dtype)
    b, Bm = RNG.standard_normal(7).astype(dtype), RNG.standard_normal((7, 3)).astype(dtype)
    for fn, args in [(cholesky_chain, (A,)), (cholesky_of_sum, (A, B)), (inverse, (A,)),
                     (solve_both, (A, b, Bm)), (determinant, (A,)), (log_determinant, (A - 8,))]:
        got, want = _kernel(fn, target)(*args), fn(*args)
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert np.asarray(g).dtype == np.asarray(w).dtype, fn.__name__
            np.testing.assert_allclose(g, w, err_msg=fn.__name__, **_tol(dtype))


def plain_cholesky(A):
    return np.linalg.cholesky(A)


def plain_inv(A):
    return np.linalg.inv(A)


def plain_solve(A, b):
    return np.linalg.solve(A, b)


def plain_det(A):
    return np.linalg.det(A)


def _numpys_library() -> bool:
    from polyfuse.runtime.linalg_library import library
    found = library()
    return found is not None and found.name == "numpy-openblas"


def _complex(shape: tuple[int, ...], dtype: str = "complex128") -> np.ndarray:
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _hermitian(n: int, dtype: str = "complex128") -> np.ndarray:
    m = _complex((n, n))
    return (m @ m.conj().T + n * np.eye(n)).astype(dtype)


def slogdet_pair(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign, logdet


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ("complex128", "complex64"))
def test_complex_results_are_numpys(target, dtype):
    """The z routines, complex64 computed in complex128 and cast (NumPy's _commonType), a real
    operand meeting a complex one made complex; NumPy's complex slogdet scan (the sign a unit
    complex number).  With NumPy's own LAPACK (its OpenBLAS) bit for bit."""
    A, H = _complex((7, 7), dtype), _hermitian(7, dtype)
    b, B = _complex((7,), dtype), RNG.standard_normal((7, 3))
    single = {"rtol": 1e-5, "atol": 1e-5} if dtype == "complex64" else {"rtol": 1e-10, "atol": 1e-10}
    for fn, args in [(plain_cholesky, (H,)), (plain_inv, (A,)), (plain_solve, (A, b)), (plain_solve, (A, B)),
                     (plain_solve, (A.real.copy(), b)), (plain_det, (A,)), (slogdet_pair, (A,)),
                     (inverse, (A,)), (repeated_solve, (A, b))]:
        got, want = _kernel(fn, target)(*args), fn(*args)
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert np.asarray(g).dtype == np.asarray(w).dtype, fn.__name__
            if target == "python" and fn in (plain_det, slogdet_pair):
                # the Python target's sign * exp(logdet) is NumPy scalar arithmetic, not umath_linalg's
                # C: one ulp apart on some matrices (1 of 30 measured)
                np.testing.assert_allclose(g, w, rtol=1e-15, atol=0, err_msg=fn.__name__)
            elif target == "python" or _numpys_library():
                np.testing.assert_array_equal(g, w, err_msg=fn.__name__)
            else:
                np.testing.assert_allclose(g, w, err_msg=fn.__name__, **single)
    singular = np.ones((3, 3), dtype=dtype)
    assert polyfuse.kernel(plain_det, target=target)(singular) == plain_det(singular)
    assert polyfuse.kernel(slogdet_pair, target=target)(np.zeros((2, 2), dtype)) == slogdet_pair(np.zeros((2, 2), dtype))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        polyfuse.kernel(plain_inv, target=target)(singular)


def test_float32_results_are_numpys_bits():
    """NumPy runs float32 operands through the d routines and casts: so does polyfuse, and the
    cast hides the last-bit differences between SciPy's and NumPy's LAPACK builds."""
    A, b = _spd(9, "float32"), RNG.standard_normal((9, 2)).astype(np.float32)
    for fn, args in [(plain_cholesky, (A,)), (plain_inv, (A,)), (plain_solve, (A, b)), (plain_det, (A,))]:
        got = polyfuse.kernel(fn, target="cpu")(*args)
        assert np.asarray(got).dtype == np.float32
        np.testing.assert_array_equal(got, fn(*args), err_msg=fn.__name__)


@pytest.mark.skipif(not _numpys_library(), reason="bit for bit needs NumPy's own LAPACK (its bundled OpenBLAS)")
def test_float64_results_are_numpys_bits_on_numpys_own_lapack():
    A, b, B = _spd(40), RNG.standard_normal(40), RNG.standard_normal((40, 5))
    M = RNG.standard_normal((40, 40))
    for fn, args in [(plain_cholesky, (A,)), (plain_inv, (M,)), (plain_solve, (M, b)), (plain_solve, (M, B)),
                     (plain_det, (M,)), (slogdet_pair, (M,)), (least_squares, (M[:, :30], b))]:
        got, want = polyfuse.kernel(fn, target="cpu")(*args), fn(*args)
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_array_equal(g, w, err_msg=fn.__name__)


@pytest.mark.parametrize("target", TARGETS)
def test_in_loops_and_on_slices(target):
    A, x = _spd(5), RNG.standard_normal(5)
    np.testing.assert_allclose(polyfuse.kernel(repeated_solve, target=target)(A, x), repeated_solve(A, x),
                               rtol=1e-10)
    stack = np.stack([_spd(4) for _ in range(3)])
    out, want = np.zeros(3), np.zeros(3)
    polyfuse.kernel(determinants, target=target)(stack, out)
    determinants(stack, want)
    np.testing.assert_allclose(out, want, rtol=1e-10)


def refine(A, b, tol):
    x = np.zeros_like(b)
    r = b.copy()
    k = 0
    err = 1.0
    while err > tol and k < 20:
        x = x + np.linalg.solve(A, r)
        r = b - A @ x
        err = np.sqrt(np.sum(r * r))
        k += 1
    return x, k


@pytest.mark.parametrize("target", TARGETS)
def test_inside_a_while_loop(target):
    A, b = _spd(5), RNG.standard_normal(5)
    kernel = polyfuse.kernel(refine, target=target)
    (x, k), (want, k_want) = kernel(A, b, 1e-14), refine(A, b, 1e-14)
    assert k == k_want
    np.testing.assert_allclose(x, want, rtol=1e-12)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        kernel(np.zeros((5, 5)), b, 1e-14)
    (region,) = kernel.explain(A, b, 1e-14).to_dict()["kept as written"]
    assert region["why"] == "while loop (runs LAPACK dgesv for np.linalg.solve)"


def overwrite_with_inverse(A):
    A[:] = np.linalg.inv(A)


def solve_into_slice(A, b, out):
    out[1:] = np.linalg.solve(A[1:, 1:], b[1:]) * 2


def cholesky_of_transpose(A):
    return np.linalg.cholesky(A.T)


def of_empty(A):
    return np.linalg.det(A), np.linalg.inv(A), np.linalg.cholesky(A)


def solve_where_positive(A, b):
    x = b * 1.0
    if b[0] > 0:
        x = np.linalg.solve(A, b)
    return x


def leading_minors(A, out):
    for i in range(1, A.shape[0]):
        out[i] = np.linalg.det(A[:i, :i])


@pytest.mark.parametrize("target", TARGETS)
def test_views_aliasing_branches_and_growing_operands(target):
    A, b = _spd(6), RNG.standard_normal(6)
    mine, theirs = A.copy(), A.copy()
    polyfuse.kernel(overwrite_with_inverse, target=target)(mine)
    overwrite_with_inverse(theirs)
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    mine, theirs = np.zeros(6), np.zeros(6)
    polyfuse.kernel(solve_into_slice, target=target)(A, b, mine)
    solve_into_slice(A, b, theirs)
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    for M in (np.asfortranarray(A), _spd(12)[::2, ::2]):  # Fortran order, steps on both axes
        np.testing.assert_allclose(polyfuse.kernel(cholesky_of_transpose, target=target)(M), cholesky_of_transpose(M),
                                   rtol=1e-12)
    d, inv, L = polyfuse.kernel(of_empty, target=target)(np.zeros((0, 0)))
    assert d == 1.0 and inv.shape == L.shape == (0, 0)  # NumPy's det of a 0 x 0 matrix is 1
    kernel = polyfuse.kernel(solve_where_positive, target=target)
    for sign in (1.0, -1.0):
        np.testing.assert_allclose(kernel(A, sign * np.abs(b)), solve_where_positive(A, sign * np.abs(b)), rtol=1e-12)
    kernel(np.zeros((6, 6)), -np.abs(b))  # the solve does not run: no error
    with pytest.raises(np.linalg.LinAlgError):
        kernel(np.zeros((6, 6)), np.abs(b))
    mine, theirs = np.zeros(6), np.zeros(6)
    polyfuse.kernel(leading_minors, target=target)(A, mine)  # buffers of the largest minor, leading block used
    leading_minors(A, theirs)
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
def test_integer_operands_compute_in_float64_and_the_operand_is_not_modified(target):
    A = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])
    kept = A.copy()
    got = polyfuse.kernel(inverse, target=target)(A)
    assert got.dtype == np.float64 and np.array_equal(A, kept)
    np.testing.assert_allclose(got, inverse(A), rtol=1e-12)
    F = _spd(4)
    copy = F.copy()
    polyfuse.kernel(cholesky_chain, target=target)(F)
    assert np.array_equal(F, copy)


@pytest.mark.parametrize("target", TARGETS)
def test_numpy_errors(target):
    with pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"):
        _kernel(cholesky_chain, target)(-_spd(4))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        _kernel(inverse, target)(np.ones((3, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        _kernel(solve_both, target)(np.zeros((3, 3)), np.ones(3), np.ones((3, 2)))
    with pytest.raises(ValueError):  # NumPy: LinAlgError (a ValueError), not square
        _kernel(inverse, target)(np.ones((2, 3)))
    with pytest.raises(ValueError):  # NumPy: ValueError, b does not fit
        _kernel(solve_both, target)(_spd(3), np.ones(4), np.ones((3, 2)))
    assert _kernel(determinant, target)(np.ones((3, 3))) == determinant(np.ones((3, 3))) == 1.0
    assert _kernel(log_determinant, target)(np.zeros((2, 2)))[0] == 0.0  # NumPy: (0, -inf)


def least_squares(A, b):
    x, res, rank, sv = np.linalg.lstsq(A, b)
    return x + 1, rank, sv


def least_squares_columns(A, B, cut):
    return np.linalg.lstsq(A, B, rcond=cut)[0], np.linalg.lstsq(A, B, cut)[2]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(9, 4), (4, 9), (0, 3)])
def test_lstsq(target, shape):
    A, b, B = RNG.standard_normal(shape), RNG.standard_normal(shape[0]), RNG.standard_normal((shape[0], 2))
    for fn, args in [(least_squares, (A, b)), (least_squares, (A.astype(np.float32), b.astype(np.float32))),
                     (least_squares_columns, (A, B, 1e-3))]:
        got, want = _kernel(fn, target)(*args), fn(*args)
        for g, w in zip(got, want):
            assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
            assert np.shape(g) == np.shape(w)
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    deficient = np.ones((6, 3))  # rank 1: gelsd's minimum-norm solution, rank from rcond
    assert _kernel(least_squares, target)(deficient, b[:6] if shape[0] >= 6 else np.ones(6))[1] == 1


def test_explain_names_the_lapack_routine():
    report = polyfuse.kernel(cholesky_chain).explain(_spd(4, "float32")).to_dict()
    kept = [r["why"] for r in report["kept as written"]]
    assert "LAPACK dpotrf for np.linalg.cholesky" in kept  # NumPy computes float32 in double too
    report = polyfuse.kernel(solve_both).explain(_spd(3), np.ones(3), np.ones((3, 2))).to_dict()
    assert [r["why"] for r in report["kept as written"]].count("LAPACK dgesv for np.linalg.solve") == 2


def residuals(A, b):
    x, res, rank, sv = np.linalg.lstsq(A, b)
    return res


def general_eigenvalues(A):
    return np.linalg.eigvals(A)


def complex_least_squares(A, b):
    return np.linalg.lstsq(A, b)[0]


def stacked(A):
    return np.linalg.inv(A)


def into_argument(A, out):
    out[:] = np.linalg.inv(A)


def slogdet_whole(A):
    return np.linalg.slogdet(A)


@pytest.mark.parametrize("fn, args, message", [
    (slogdet_whole, (np.eye(3),), "unpack it into names first"),
    (residuals, (np.eye(3), np.ones(3)), "residuals of np.linalg.lstsq"),
    (general_eigenvalues, (np.eye(3),), r"np.linalg.eigvals\(\) is not supported"),
    (complex_least_squares, (np.eye(3, dtype=complex), np.ones(3)), r"lstsq\(\) of complex arrays"),
    (stacked, (np.ones((2, 3, 3)),), "stack of matrices"),
])
def test_refused_clearly(fn, args, message):
    with pytest.raises(UnsupportedError, match=message):
        polyfuse.kernel(fn, target="python")(*args)


def test_cuda_refuses_naming_the_call():
    with pytest.raises(UnsupportedError, match=r"LAPACK dgesv for np.linalg.inv .*target='cuda'"):
        polyfuse.kernel(into_argument, target="cuda")(_spd(3), np.zeros((3, 3)))


def test_cpu_without_scipys_lapack_refuses_naming_the_call(monkeypatch):
    from polyfuse.backends.cpu import lapack
    monkeypatch.setattr(lapack, "lapack_pointers", lambda: {})
    with pytest.raises(UnsupportedError, match=r"np.linalg.cholesky\(\) runs on LAPACK .* scipy.linalg") as info:
        polyfuse.kernel(plain_cholesky, cache=False)(np.eye(3) * 3.0 + 0.5)  # a fresh compile
    assert "return np.linalg.cholesky(A)" in str(info.value)


def test_a_cached_lapack_kernel_without_scipys_lapack_refuses(monkeypatch):
    from polyfuse.backends.cpu import lapack
    A = _spd(3)
    polyfuse.kernel(plain_det)(A)  # compiled, and stored in the disk cache
    monkeypatch.setattr(lapack, "lapack_pointers", lambda: {})
    with pytest.raises(UnsupportedError, match="LAPACK.*OpenBLAS or scipy.linalg.cython_lapack"):  # cached or not
        polyfuse.kernel(plain_det)(A)  # a new kernel object loads the cached code



# ---- qr, eigh / eigvalsh, svd (geqrf + orgqr, syevd, gesdd) ------------------------------------
def factorizations(A, S):
    Q, R = np.linalg.qr(A)
    Qc, Rc = np.linalg.qr(A, mode="complete")
    w, V = np.linalg.eigh(S)
    U, s, Vh = np.linalg.svd(A)
    Us, ss, Vhs = np.linalg.svd(A, full_matrices=False)
    return (Q, R, Qc, Rc, np.linalg.qr(A, mode="r"), w, V, np.linalg.eigvalsh(S, UPLO="U"), np.linalg.eigh(S, "U")[1],
            U, s, Vh, Us, ss, Vhs, np.linalg.svd(A, compute_uv=False), np.linalg.svdvals(A))


def _check_definitions(got, A, S):
    """The defining properties, whatever the signs: A = QR with Q orthonormal and R upper
    triangular, S V = V diag(w) with V orthonormal, A = U diag(s) Vh."""
    Q, R, Qc, Rc, _, w, V, _, _, U, s, Vh, Us, ss, Vhs = got[:15]
    tol = {"rtol": 1e-10, "atol": 1e-10}
    k = min(A.shape)
    for q, r in ((Q, R), (Qc, Rc)):
        np.testing.assert_allclose(q @ r, A, **tol)
        np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), **tol)
        assert np.array_equal(r, np.triu(r))
    np.testing.assert_allclose(S @ V, V * w, **tol)
    np.testing.assert_allclose(V.T @ V, np.eye(len(w)), **tol)
    assert np.all(np.diff(w) >= 0) and np.all(np.diff(s) <= 0)
    np.testing.assert_allclose((U[:, :k] * s) @ Vh[:k], A, **tol)
    np.testing.assert_allclose((Us * ss) @ Vhs, A, **tol)


@pytest.mark.parametrize("target", TARGETS)
def test_qr_eigh_and_svd_are_numpys(target):
    """The routines NumPy calls, on the same Fortran copies with its workspace sizes: NumPy's bits
    on NumPy's own LAPACK (the signs of Q's, V's, U's columns included), else its values within
    rounding; float32 computed in double and cast, as NumPy does.  The defining properties hold
    either way (A = QR, S V = V diag(w), A = U diag(s) Vh, orthonormal factors)."""
    S = _spd(5) - 6
    for A in (RNG.standard_normal((6, 4)), RNG.standard_normal((3, 5))):
        got, want = _kernel(factorizations, target)(A, S), factorizations(A, S)
        for position, (g, w) in enumerate(zip(got, want)):
            assert g.dtype == w.dtype and g.shape == w.shape, position
            if target == "python" or _numpys_library():
                np.testing.assert_array_equal(g, w, err_msg=str(position))
        _check_definitions(got, A, S)
    S = S.astype(np.float32)
    for g, w in zip(_kernel(spectrum, target)(S), spectrum(S)):
        assert g.dtype == w.dtype == np.float32
        np.testing.assert_array_equal(g, w)  # the cast hides the last bits of another LAPACK build


def principal_components(X, k):
    C = X.T @ X / X.shape[0]
    w, V = np.linalg.eigh(C)
    return X @ V[:, ::-1][:, :k]


def least_squares_by_qr(A, b):
    Q, R = np.linalg.qr(A)
    return np.linalg.solve(R, Q.T @ b)


def matrix_norms(A):
    return np.linalg.norm(A, 2), np.linalg.norm(A, -2), np.linalg.norm(A, "nuc"), np.linalg.svd(A)[1][0] * 2


def qr_iteration(A, tol):
    k = 0
    err = 1.0
    while err > tol and k < 200:
        Q, R = np.linalg.qr(A)
        A = R @ Q
        err = np.sqrt(np.sum(A[1:, 0] * A[1:, 0]))
        k += 1
    return A, k


def per_matrix(A, out):
    for t in range(A.shape[0]):  # a parallel loop on the cpu target: each iteration's buffers private
        U, s, Vh = np.linalg.svd(A[t])
        Q, R = np.linalg.qr(A[t] * 2.0)
        out[t] = np.linalg.eigvalsh(A[t] + A[t].T)[0] + U[0, 0] * s[0] + Vh[1, 0] + Q[1, 1] + R[0, 1]


@pytest.mark.parametrize("target", TARGETS)
def test_factorizations_with_the_code_around_them(target):
    """PCA, least squares through qr, the spectral norm and NumPy's other svd norms, a
    QR iteration in a while loop, and svd, qr and eigvalsh of slices in a loop: each call one
    statement between fused ones."""
    X, A, b = RNG.standard_normal((30, 5)), RNG.standard_normal((12, 4)), RNG.standard_normal(12)
    for fn, args in [(principal_components, (X, 2)), (least_squares_by_qr, (A, b)), (matrix_norms, (A,))]:
        got, want = _kernel(fn, target)(*args), fn(*args)
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert np.asarray(g).dtype == np.asarray(w).dtype, fn.__name__
            np.testing.assert_allclose(g, w, rtol=1e-5 if np.asarray(w).dtype == np.float32 else 1e-10,
                                       err_msg=fn.__name__)
    S = _spd(4)
    (got, k), (want, k_want) = _kernel(qr_iteration, target)(S, 1e-10), qr_iteration(S, 1e-10)
    assert k == k_want
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-9)
    stack, out, expected = RNG.standard_normal((8, 4, 4)), np.zeros(8), np.zeros(8)
    _kernel(per_matrix, target)(stack, out)
    per_matrix(stack, expected)
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def complete_factors(A):
    Q, R = np.linalg.qr(A, mode="complete")
    U, s, Vh = np.linalg.svd(A)
    return Q, R, U, s, Vh


def spectrum(S):
    return np.linalg.eigh(S)[0], np.linalg.svd(S, compute_uv=False)


@pytest.mark.parametrize("target", TARGETS)
def test_factorizations_of_empty_matrices_and_numpys_errors(target):
    for shape in ((0, 3), (3, 0)):  # NumPy's shapes; its identities where LAPACK leaves U / V^H alone
        A = np.zeros(shape)
        for g, w in zip(_kernel(complete_factors, target)(A), complete_factors(A)):
            assert g.shape == w.shape and np.array_equal(g, w)
    with pytest.raises(np.linalg.LinAlgError, match="Eigenvalues did not converge"):
        _kernel(spectrum, target)(np.full((3, 3), np.nan))


def batched_eigh(A):
    return np.linalg.eigh(A)[0]


def complex_qr(A):
    return np.linalg.qr(A)[1]


def raw_qr(A):
    return np.linalg.qr(A, mode="raw")[0]


def qr_of_mode(A, mode):
    return np.linalg.qr(A, mode)[0]


def hermitian_svd(A):
    return np.linalg.svd(A, hermitian=True)[1]


def other_triangle(A):
    return np.linalg.eigvalsh(A, UPLO="X")


def eigh_whole(A):
    return np.linalg.eigh(A)


def eigh_as_value(A):
    return np.linalg.eigh(A) + 1


@pytest.mark.parametrize("fn, args, message", [
    (batched_eigh, (np.ones((2, 3, 3)),), "stack of matrices"),
    (complex_qr, (np.eye(3, dtype=complex),), r"qr\(\) of complex arrays is not supported"),
    (raw_qr, (np.eye(3),), "mode='raw'"),
    (qr_of_mode, (np.eye(3), 1), "mode= other than a constant"),
    (hermitian_svd, (np.eye(3),), "hermitian=True"),
    (other_triangle, (np.eye(3),), "UPLO='X'"),
    (eigh_whole, (np.eye(3),), "unpack it into names first"),
    (eigh_as_value, (np.eye(3),), r"eigh\(\) as a value"),
])
def test_factorizations_refused_clearly(fn, args, message):
    with pytest.raises(UnsupportedError, match=message) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert "test_array_lapack.py:" in str(info.value)


def test_explain_names_the_factorizations():
    report = polyfuse.kernel(least_squares_by_qr).explain(np.ones((4, 2)), np.ones(4)).to_dict()
    kept = [r["why"] for r in report["kept as written"]]
    assert "LAPACK dgeqrf for np.linalg.qr" in kept and "LAPACK dgesv for np.linalg.solve" in kept
    report = polyfuse.kernel(spectrum).explain(np.eye(3)).to_dict()
    assert {r["why"] for r in report["kept as written"]} == {"LAPACK dsyevd for np.linalg.eigh",
                                                              "LAPACK dgesdd for np.linalg.svd"}
