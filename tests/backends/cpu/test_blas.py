"""Matrix products kept whole (model/region.py Matmul) on the LLVM backend: BLAS where the
layout allows, the loops elsewhere, against NumPy on the same inputs.

Sizes are above ``BLAS_MIN_WORK`` so the BLAS branch is the one that runs where the layout test
passes; slices with steps, transposes, reversed views, Fortran-ordered and sliced arguments
cover both branches.  BLAS blocks the sum differently from the loops and from NumPy's own
call, so float64 results are compared at rtol 1e-10 and float32 at 1e-4.
"""

from __future__ import annotations

import linecache

import numpy as np
import pytest
from conftest import SYMM_LOOPS
from hypothesis import given, settings
from hypothesis import strategies as st
from polyfuse.backends.cpu import blas

import polyfuse
from polyfuse.model.region import BLAS_MIN_WORK

pytestmark = pytest.mark.skipif(not blas.available(), reason="SciPy's BLAS is not installed")

RNG = np.random.default_rng(7)
N = 48  # 48**3 multiply-adds > BLAS_MIN_WORK


def _kernel(source: str, name: str = "k", **options):
    filename = f"<test-blas-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name], polyfuse.kernel(namespace[name], **options)


def _check(source: str, *args, rtol: float = 1e-10, **options) -> None:
    fn, kernel = _kernel(source, **options)
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]
    want, got = fn(*want_args), kernel(*got_args)
    if want is not None:
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    for w, g in zip(want_args, got_args):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _m(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def test_the_sizes_here_are_above_the_blas_threshold():
    assert N ** 3 >= BLAS_MIN_WORK


@pytest.mark.parametrize("expr", [
    "A @ B", "A.T @ B", "A @ B.T", "A.T @ B.T",                 # transposes: BLAS's trans flags
    "A[::2] @ B", "A[1:-1, 2:] @ B[2:, ::1]",                   # row steps, offsets: leading dimensions
    "A[:, ::2] @ B[::2]",                                       # no unit-stride axis: the loops
    "A[::-1] @ B", "A @ B[:, ::-1]",                            # reversed: the loops
    "np.dot(A, B)", "np.matmul(A.T, B)", "np.einsum('ik,jk->ij', A, B)", "np.inner(A, B)",
    "(2.0 * A) @ np.maximum(B, 0.0)",                           # computed operands stored first
])
def test_matrix_products_match_numpy(expr):
    _check(f"def k(A, B):\n    return {expr}\n", _m(N, N), _m(N, N))


@pytest.mark.parametrize("expr", ["A @ x", "x @ A", "A.T @ x", "A[:, 3] @ A", "A @ A[5]",
                                  "A[::2, ::3] @ x[::3]", "x[::-1] @ A", "A.T @ (A @ x)"])
def test_matrix_vector_products_match_numpy(expr):
    _check(f"def k(A, x):\n    return {expr}\n", _m(N * 2, N * 2), _m(N * 2))


@pytest.mark.parametrize("target", ["C[:, :]", "C[1:-1, :]", "C.T[:, :]", "C[:, ::2]", "C[::-1, :]"])
def test_products_stored_into_views_of_an_argument(target):
    A, B, C = _m(N, N), _m(N, N), np.zeros((N, N))
    rows, cols = eval(target, {"C": C}).shape  # noqa: S307 - the test's own parameter
    _check(f"def k(A, B, C):\n    {target} = A[:{rows}, :] @ B[:, :{cols}]\n", A, B, C)


def test_arguments_with_any_layout():
    A = np.asfortranarray(_m(N, N))
    B = _m(N * 2, N * 3)[::2, ::3]  # strided argument: no unit-stride axis
    C = _m(N, N * 2)[:, ::2]  # unit-stride rows only after the step: the loops or a leading dimension
    _check("def k(A, B):\n    return A @ B\n", A, B)
    _check("def k(A, B):\n    return A @ B\n", A, C)
    _check("def k(A, B):\n    return A @ B\n", C.T, A)


def test_float32_products_and_mixed_dtypes():
    _check("def k(A, B):\n    return A @ B\n", _m(N, N, dtype=np.float32), _m(N, N, dtype=np.float32), rtol=1e-4)
    _check("def k(A, B):\n    return A @ B\n", _m(N, N, dtype=np.float32), _m(N, N))  # promoted: loops


def test_products_inside_loops_branches_and_parallel_loops():
    recurrent = ("def k(W, H):\n    for t in range(H.shape[0] - 1):\n"
                 "        H[t + 1, :] = np.tanh(W @ H[t, :])\n")
    _check(recurrent, _m(N * 2, N * 2) / N, _m(5, N * 2))
    batched = ("def k(X, W, out):\n    for b in range(X.shape[0]):\n"
               "        out[b, :, :] = X[b] @ W\n")
    _check(batched, _m(4, N, N), _m(N, N), np.zeros((4, N, N)))
    guarded = "def k(A, B, C, s):\n    if s > 0.0:\n        C[:, :] = A @ B\n"
    for s in (1.0, -1.0):
        _check(guarded, _m(N, N), _m(N, N), np.zeros((N, N)), s)


def test_an_mlp_and_attention_chain():
    mlp = "def k(x, W1, b1, W2):\n    return np.maximum(x @ W1 + b1, 0.0) @ W2\n"
    _check(mlp, _m(N * 2, N), _m(N, N * 2), _m(N * 2), _m(N * 2, N))
    attention = ("def k(Q, K, V):\n    S = Q @ K.T / np.sqrt(Q.shape[1])\n"
                 "    P = np.exp(S - S.max(axis=1, keepdims=True))\n"
                 "    return (P / P.sum(axis=1, keepdims=True)) @ V\n")
    _check(attention, _m(N, N), _m(N, N), _m(N, N))


def test_the_call_is_in_the_code_and_blas_false_keeps_loops():
    src = "def k(A, B):\n    return A @ B\n"
    A = _m(N, N)
    _, with_blas = _kernel(src)
    _, without = _kernel(src, blas=False)
    assert "polyfuse.blas.dgemm" in with_blas.inspect_llvm(A, A)
    assert "polyfuse.blas" not in without.inspect_llvm(A, A)
    np.testing.assert_allclose(with_blas(A, A), without(A, A), rtol=1e-10)


# ---- few columns, many rows: ?gemm with m = the rows into a column-major buffer ----------------
_NARROW = blas.NARROW_MIN_ROWS  # rows and depth at the thresholds: the narrow way runs


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("expr, cols", [
    ("A @ B", 8), ("A @ B", blas.NARROW_MAX_COLS), ("A @ B", blas.NARROW_MAX_COLS + 1),  # the limit, and past it
    ("A @ B.T", 5), ("A.T @ B", 3), ("A.T @ B.T", 4), ("2.5 * A @ B", 7), ("(A @ B)[:, ::2]", 6),
    ("A[1:] @ B", 2), ("A[:-1] @ B", 1)])
def test_products_with_few_columns(expr, cols, dtype):
    """A row-major float64 result with few columns comes from ``?dgemm`` with m = its rows into a
    padded column-major buffer, copied into the result (blas.py ``ROW_GEMM``): as NumPy's call
    within BLAS's tolerance, whatever the operands' layouts; NumPy's call past the limits and
    for float32."""
    n = _NARROW + 1
    A = _m(n, n, dtype=dtype)
    B = _m(cols, n, dtype=dtype) if "B.T" in expr else _m(n, cols, dtype=dtype)
    _check(f"def k(A, B):\n    return {expr}\n", A, B, rtol=1e-4 if dtype == np.float32 else 1e-10)


def test_few_columns_into_a_slice_of_a_wider_array_and_the_knob(monkeypatch):
    """The buffer is copied into rows ``ldo`` apart (a view of a wider array), and nothing else of
    it is written; ``POLYFUSE_NARROW_GEMM=0`` emits NumPy's call only (not ``ROW_GEMM``)."""
    src = "def k(A, B, C):\n    C[:, 3:19] = A @ B\n"
    args = (_m(_NARROW, _NARROW), _m(_NARROW, 16), _m(_NARROW, 40))
    _check(src, *args)
    _check("def k(A, B, C):\n    C[:, 3:19] += A @ B\n", *args)  # beta = 1: ROW_GEMM makes NumPy's call
    _, kernel = _kernel(src)
    assert blas.ROW_GEMM in kernel.inspect_llvm(*args)
    monkeypatch.setenv("POLYFUSE_NARROW_GEMM", "0")
    _, kernel = _kernel(src, cache=False)
    assert blas.ROW_GEMM not in kernel.inspect_llvm(*args)
    _check(src, *args, cache=False)


def test_row_gemm_only_in_the_kernels_that_call_it():
    """``ROW_GEMM`` gets machine code in a kernel whose function calls it, and in no other (a
    float32 product calls ``?sgemm``): no process-wide compile on the first BLAS kernel."""
    rng = np.random.default_rng(15)  # (not the module's RNG: the later tests' data stay as they were)
    for dtype, calls in ((np.float32, False), (np.float64, True)):
        args = (rng.standard_normal((_NARROW, _NARROW)).astype(dtype), rng.standard_normal((_NARROW, 8)).astype(dtype))
        _check("def k(A, B):\n    return A @ B\n", *args, rtol=1e-4 if dtype == np.float32 else 1e-10)
        _, kernel = _kernel("def k(A, B):\n    return A @ B\n", cache=False)
        kernel(*args)
        backend = kernel.compile(*args).backend
        assert (blas.ROW_GEMM_MODULE in backend.generated + list(dict(backend.artifact.objects))) == calls


_SLICES = st.sampled_from([":", "::2", "1:", ":-1", "::-1", "2:-3:3"])


@settings(max_examples=8, deadline=None)
@given(rows=_SLICES, depth=_SLICES, cols=_SLICES, ta=st.booleans(), tb=st.booleans(),
       dtype=st.sampled_from([np.float64, np.float32]))
def test_random_views_of_both_operands(rows, depth, cols, ta, tb, dtype):
    """A[rows, depth] @ B[depth, cols] with either operand stored transposed; the depth slice
    is the same on both sides so the shapes agree."""
    a = f"A.T[{rows}, {depth}]" if ta else f"A[{rows}, {depth}]"
    b = f"B.T[{depth}, {cols}]" if tb else f"B[{depth}, {cols}]"
    _check(f"def k(A, B):\n    return {a} @ {b}\n", _m(N, N, dtype=dtype), _m(N, N, dtype=dtype),
           rtol=1e-4 if dtype == np.float32 else 1e-10)


# ---- a matrix times its own transpose: BLAS ?syrk, as NumPy calls it ------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("body, layout", [("A.T @ A", "C"), ("A @ A.T", "C"), ("A.T @ A", "F"), ("A @ A.T", "F"),
                                          ("np.dot(A.T, A) + 1.0", "C"), ("A[2:, 1:-1].T @ A[2:, 1:-1]", "C")])
def test_a_matrix_times_its_transpose_runs_on_syrk_as_numpy(body, layout, dtype):
    """NumPy's matmul and dot run ``A.T @ A`` (one operand the other transposed, at one address)
    as ?syrk into the upper triangle, then copy it to the lower one: the kernel decides the same
    per call, so the result is symmetric and NumPy's bits where the library is NumPy's own."""
    from polyfuse.runtime.linalg_library import library
    fn, kernel = _kernel(f"def k(A):\n    return {body}\n")
    A = np.asarray(_m(70, 50, dtype=dtype), order=layout)
    want, got = fn(A), kernel(A)
    assert got.dtype == want.dtype and np.array_equal(got, got.T)
    if library().name == "numpy-openblas":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == np.float32 else 1e-10)
    assert "polyfuse.blas." + ("d" if dtype == np.float64 else "s") + "syrk" in kernel.inspect_llvm(A)


def test_syrk_only_for_one_array_and_not_for_accumulated_loop_products():
    """Two arrays with equal values are a ?gemm (NumPy's test is the address); a product written
    as loops that adds into C (beta = 1) keeps ?gemm, since mirroring a triangle would lose C's
    other half."""
    src = "def k(A, B):\n    return A.T @ B\n"
    A = _m(70, 50)
    _check(src, A, A.copy())
    _check(src, A, A)
    loops = ("def k(A, C):\n    for i in range(C.shape[0]):\n        for j in range(C.shape[1]):\n"
             "            for s in range(A.shape[0]):\n                C[i, j] += A[s, i] * A[s, j]\n")
    _check(loops, A, _m(50, 50))


# ---- dot products of vectors: BLAS ?dot, as NumPy calls it ------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 7, 100, 1000, 4097, 100_003])
@pytest.mark.parametrize("body", ["x @ y", "np.dot(x, y) + 1.0", "np.inner(x, y)", "np.linalg.norm(x)",
                                  "x[::3] @ y[::3]", "x[::-1] @ y"])
def test_dot_products_of_plain_vectors_are_numpys_bit_for_bit(body, n, dtype):
    """NumPy runs them on BLAS ?dot at every length (``sum = 0; sum += ?dot``), a reversed vector
    in a loop in index order; polyfuse does the same, so the bits agree (the vector partial sums
    of a loop differed in the last bits at most of these lengths)."""
    fn, kernel = _kernel(f"def k(x, y):\n    return {body}\n")
    x, y = _m(n, dtype=dtype), _m(n, dtype=dtype)
    want, got = fn(x, y), kernel(x, y)
    assert type(got) is type(want) and got == want, (got, want)


def test_signed_zeros_and_empty_vectors_as_numpy():
    fn, kernel = _kernel("def k(x, y):\n    return x @ y\n")
    negative = np.array([-0.0, -0.0]), np.array([1.0, 2.0])
    assert np.signbit(fn(*negative)) == np.signbit(kernel(*negative)) == False  # noqa: E712
    assert kernel(np.zeros(0), np.zeros(0)) == fn(np.zeros(0), np.zeros(0)) == 0.0


def test_dot_products_inside_a_loop_kept_as_written():
    """An iterative solver's loop with a break is kept as written; its dot products are BLAS
    calls inside it (a region Matmul), so the iterates follow NumPy's closely."""
    source = ("def k(A, b, iters):\n    x = np.zeros_like(b)\n    r = b.copy()\n    p = r.copy()\n"
              "    rs = r @ r\n    for i in range(iters):\n        Ap = A @ p\n        alpha = rs / (p @ Ap)\n"
              "        x = x + alpha * p\n        r = r - alpha * Ap\n        new = r @ r\n"
              "        if np.sqrt(new) < 1e-10:\n            break\n        p = r + (new / rs) * p\n"
              "        rs = new\n    return x\n")
    fn, kernel = _kernel(source)
    M = _m(60, 60)
    A = M @ M.T + 60 * np.eye(60)
    b = _m(60)
    want, got = fn(A, b, 25), kernel(A, b, 25)
    # 25 iterations amplify a last-bit difference: a component near zero then differs in more
    # of its own bits, so the bound is relative to the iterate's size too
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    assert "kept as written" in kernel.explain(A, b, 25).to_dict()


@pytest.mark.parametrize("expr", [
    "X @ W", "X @ W.T", "X[:, ::2] @ W", "X[:, :, :-1] @ W[:-1]",  # strides chain: one gemm for the stack
    "X[::2] @ W", "np.transpose(X, (1, 0, 2)) @ W", "X[:, ::-1] @ W",  # they do not: one product per matrix
    "W @ X", "W.T @ X[1:]",                                          # the stack on the right
    "np.reshape(np.reshape(X, (3, 4, N // 2, N)) @ W, (12, N // 2, N))[::2]",  # 4-d, doitgen's reshapes
])
@pytest.mark.parametrize("target", ["cpu", "python"])
def test_stacks_of_matrices_times_one_matrix(expr, target):
    _check(f"def k(X, W, N):\n    return {expr}\n", _m(6, N, N), _m(N, N), N, target=target)


def test_a_stack_written_back_into_its_own_argument():
    doitgen = ("def k(NR, NQ, NP, A, C4):\n"
               "    A[:] = np.reshape(np.reshape(A, (NR, NQ, 1, NP)) @ C4, (NR, NQ, NP))\n")
    _check(doitgen, 4, 5, N, _m(4, 5, N), _m(N, N))
    _, kernel = _kernel(doitgen)
    assert "polyfuse.blas.dgemm" in kernel.inspect_llvm(4, 5, N, _m(4, 5, N), _m(N, N))


@pytest.mark.parametrize("expr", ["A @ A.T", "A.T @ A", "A[::2] @ A[::2].T", "A[:, 1:] @ A[:, 1:].T",
                                  "np.dot(A, A.T)", "np.cov(A)", "np.cov(A.T)", "A @ A[::-1].T", "A @ A[1:].T"])
def test_symmetric_products_run_on_syrk_and_match_numpy(expr):
    """``A @ A.T`` (same address, transposed strides) is ?syrk with its lower triangle mirrored;
    the near misses (a reversed or shifted copy) are gemm or loops."""
    _check(f"def k(A):\n    return {expr}\n", _m(N + 5, N))
    fn, kernel = _kernel(f"def k(A):\n    return {expr}\n")
    got = kernel(_m(N + 5, N))
    if expr in ("A @ A.T", "np.cov(A)"):
        assert np.array_equal(got, got.T)  # one triangle, mirrored: exactly symmetric, as NumPy's


def test_a_symmetric_product_stored_into_a_transposed_view():
    A, C = _m(N, N + 3), np.zeros((N, N))
    _check("def k(A, C):\n    C.T[:, :] = A @ A.T\n", A, C)
    assert "polyfuse.blas.dsyrk" in _kernel("def k(A, C):\n    C.T[:, :] = A @ A.T\n")[1].inspect_llvm(A, C)


def test_a_stack_inside_a_loop_kept_as_written():
    kept = ("def k(X, W, out, n):\n    for i in range(n):\n        if out[0, 0, 0] > 1e9:\n            break\n"
            "        out[:, :, :] = X[:, ::2] @ W + out\n")
    _check(kept, _m(3, N, N), _m(N, N), np.zeros((3, N // 2, N)), 3)


TRMM_IN_PLACE = """
def k(A, B):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            for k in range(i + 1, B.shape[0]):
                B[i, j] += A[k, i] * B[k, j]
"""

def _with(x, value, every=37):
    x = x.copy()
    x.flat[::every] = value
    return x


@pytest.mark.parametrize("source, calls", [
    # ?symm / ?trmm on copies of a strict triangle with zeros around it: 0 * inf is NaN where the
    # loops multiply nothing (B's infs, A's zeros), and alpha = 0 returns at once in BLAS
    (SYMM_LOOPS, [(1.5, 1.2, _m(N, N - 4), _with(_m(N, N), 0.0, 5), _with(_m(N, N - 4), -np.inf)),
                  (0.0, 1.2, _m(N, N - 4), _with(_m(N, N), np.inf, 3), _m(N, N - 4))]),
    (TRMM_IN_PLACE, [(_m(N, N), _with(_m(N, N - 4), np.nan))]),  # OpenBLAS pads T's other triangle
], ids=["symm", "trmm in place"])
def test_products_from_loops_keep_the_loops_infs_and_nans(source, calls):
    """Products written as loops that meet an inf or a NaN (or a scale BLAS treats specially) run
    their loops: NaN and inf exactly where the function has them (fz29's probes: the symm and
    trmm products gave NaN for finite results, alpha = 0 finite for NaN)."""
    fn, kernel = _kernel(source, target="cpu")
    for args in calls:
        want, got = ([a.copy() if isinstance(a, np.ndarray) else a for a in args] for _ in range(2))
        with np.errstate(all="ignore"):
            fn(*want)
            kernel(*got)
        for w, g in zip(want, got):
            if isinstance(w, np.ndarray):
                np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)  # (NaN where NaN, inf where inf)
