"""NumPy matrix products kept whole for BLAS (frontend/array_linalg.py -> model/region.py Matmul):
which products are kept, how they are lifted, and that the Python target (which runs the
statement as its loops) agrees with NumPy.  The LLVM backend's BLAS calls are tested in
tests/backends/cpu/test_blas.py."""

from __future__ import annotations

import linecache

import numpy as np
import pytest

import polyfuse
from polyfuse.model.region import MATMUL_CALL
from polyfuse.options import Options

RNG = np.random.default_rng(3)


def _kernel(source: str, **options):
    filename = f"<test-blas-products-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"], polyfuse.kernel(namespace["k"], **options)


def _matmuls(kernel, *args) -> list[dict]:
    """explain()'s records of the products kept whole."""
    report = kernel.explain(*args)
    kept = report.to_dict().get("kept as written", [])
    return [r for r in kept if r["why"].startswith("matrix product")]


def test_a_whole_array_product_is_one_statement():
    fn, kernel = _kernel("def k(A, B):\n    return A @ B\n", target="python")
    A = RNG.random((5, 4))
    (product,) = _matmuls(kernel, A, A.T.copy())
    assert product["may read"] == ["A", "B"] and len(product["may write"]) == 1
    _, loops = _kernel("def k(A, B):\n    return A @ B\n", target="python", blas=False)
    assert _matmuls(loops, A, A.T.copy()) == []


@pytest.mark.parametrize("expr, kept", [
    ("A @ B", True), ("x @ A", True), ("np.einsum('ij,kj->ik', A, B)", True),
    ("np.dot(A, x)", False), ("A[:, 1:] @ x[1:]", False),  # a dot per row of A: polyfuse's row loops
    ("A.T @ x", True),                      # sums down A's columns: ?gemv
    ("2.0 * A @ x", False), ("x @ (A * B)", False),  # a computed matrix times a vector: fused loops
    ("2.0 * A @ x[:, None]", False),        # a matrix with one column is a vector
    ("2.0 * A @ B", True),                  # a matrix product: BLAS on A and B, the scale applied after
    ("x @ x", True),                       # two plain vectors: BLAS ?dot, NumPy's own call
    ("(2.0 * x) @ x", False),              # a computed vector: a reduction the scheduler fuses
    ("np.outer(x, x)", False),              # nothing summed
    ("np.einsum('ij,ij->i', A, A)", False),  # a label in both operands and the output
    ("Z @ Z", False),                       # known to be too small for a library call
])
def test_which_products_are_kept_whole(monkeypatch, expr, kept):
    monkeypatch.setenv("POLYFUSE_GEMV_ROW_LOOPS", "1")  # (off by default: the row loops' choices)
    _, kernel = _kernel(f"def k(A, B, x):\n    Z = np.ones((4, 4))\n    return {expr}\n", target="python")
    A, B, x = RNG.random((6, 6)), RNG.random((6, 6)), RNG.random(6)
    assert bool(_matmuls(kernel, A, B, x)) == kept


@pytest.mark.parametrize("expr", ["A @ x", "np.dot(A, x)", "A.T @ x", "x @ A"])
def test_matrix_vector_products_on_gemv_without_the_row_loops(monkeypatch, expr):
    """``POLYFUSE_GEMV_ROW_LOOPS=0`` (the default) keeps every plain matrix-vector product on ``?gemv``."""
    monkeypatch.setenv("POLYFUSE_GEMV_ROW_LOOPS", "0")
    _, kernel = _kernel(f"def k(A, B, x):\n    return {expr}\n", target="python")
    assert _matmuls(kernel, RNG.random((6, 6)), RNG.random((6, 6)), RNG.random(6))


def test_a_fortran_ordered_matrix_times_a_vector_stays_on_gemv(monkeypatch):
    """The row loops need C-contiguous rows (part of the call signature): a Fortran-ordered ``A``
    gets a variant with ``?gemv``, which reads it as stored."""
    monkeypatch.setenv("POLYFUSE_GEMV_ROW_LOOPS", "1")
    fn, kernel = _kernel("def k(A, B, x):\n    return A @ x\n", target="python")
    A, B, x = RNG.random((6, 6)), RNG.random((6, 6)), RNG.random(6)
    assert not _matmuls(kernel, A, B, x)
    assert _matmuls(kernel, np.asfortranarray(A), B, x)
    np.testing.assert_allclose(kernel(np.asfortranarray(A), B, x), A @ x, rtol=1e-12)


def test_matrix_vector_row_loops_match_numpy_on_two_threads(monkeypatch, forced):
    """``A @ x`` as polyfuse's row loops (8 rows side by side, each summed in blocks), fused with
    the rest of gesummv and run on a forced team of 2, against NumPy; ``A.T @ x`` stays on
    ``?gemv`` beside it.  Rows not a multiple of 8, a row longer than one block of the sums."""
    from polyfuse.runtime import threads

    monkeypatch.setenv("POLYFUSE_GEMV_ROW_LOOPS", "1")
    source = "def k(A, B, x, a, b):\n    return a * np.dot(A, x) + b * (B @ x), A.T @ (A @ x)\n"
    fn, kernel = _kernel(source)
    A, B, x = RNG.standard_normal((203, 2100)), RNG.standard_normal((203, 2100)), RNG.standard_normal(2100)
    threads.set_num_threads(2)
    for _ in range(3):
        for got, want in zip(kernel(A, B, x, 1.5, 0.5), fn(A, B, x, 1.5, 0.5)):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    assert len(_matmuls(kernel, A, B, x, 1.5, 0.5)) == 1  # A.T @ (A @ x) only
    assert sum(kernel.compile(A, B, x, 1.5, 0.5).backend.phase_runs.values()) >= 1  # the team ran


def test_products_match_numpy_on_the_python_target():
    sources = [
        "def k(A, B, x):\n    return A @ B + 1.0, A.T @ x\n",
        "def k(A, B, x):\n    C = np.zeros_like(A)\n    C[1:, ::2] = A[1:, :] @ B[:, ::2]\n    return C\n",
        "def k(A, B, x):\n    for t in range(3):\n        x[:] = np.tanh(A @ x)\n    return x\n",
        "def k(A, B, x):\n    s = x[0]\n    if s > 0.5:\n        B[:, :] = A @ A\n    return B\n",
    ]
    for source in sources:
        fn, kernel = _kernel(source, target="python")
        args = [RNG.random((6, 6)), RNG.random((6, 6)), RNG.random(6)]
        want = fn(*[a.copy() for a in args])
        got = kernel(*[a.copy() for a in args])
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_accesses_are_exact_rectangles():
    """The statement reads only the slices it multiplies, so a write to the rest of A before
    it is no dependence of the product's result, and bounds are proven per call."""
    fn, kernel = _kernel("def k(A, B, x):\n    return A[2:, 1:] @ B[1:, :3]\n", target="python")
    A, B = RNG.random((7, 6)), RNG.random((6, 6))
    report = kernel.explain(A, B, RNG.random(3))
    (statement,) = [s for s in report["statements"] if "A[" in s["reads"]]
    assert "2 <= " in statement["reads"] or "o0 >= 2" in statement["reads"] or ">= 2" in statement["reads"]
    np.testing.assert_allclose(kernel(A, B, RNG.random(3)), fn(A, B, None))


def test_cuda_keeps_products_as_loops_and_the_name_is_reserved():
    assert Options(target="cpu").blas_products() and Options(target="python").blas_products()
    assert not Options(target="cuda").blas_products() and not Options(blas=False).blas_products()
    _, kernel = _kernel(f"def k(A, B, x):\n    {MATMUL_CALL} = 1\n    return A\n")
    with pytest.raises(polyfuse.UnsupportedError, match="reserved"):
        kernel(RNG.random((2, 2)), RNG.random((2, 2)), RNG.random(2))



@pytest.mark.parametrize("setting", ["1", "0"])
def test_a_product_plus_a_term_is_summed_by_blas(monkeypatch, setting):
    """``POLYFUSE_PRODUCT_SUMS`` (default on): a name bound to a matrix product kept whole plus a
    term of its shape and dtype (gemm's ``a * A @ B + b * C``, a row broadcast on the left, a
    difference) stores the term first and adds the product to it: the product's record reads
    its own output (``?gemm``'s beta = 1).  ``C - A @ B`` and a sum inside a larger expression
    keep the product's temporary.  NumPy's values on the Python target (the loops) and the CPU
    (BLAS); 0: every product written, then the sums."""
    monkeypatch.setenv("POLYFUSE_PRODUCT_SUMS", setting)
    source = ("def k(A, B, C, a, b):\n    D = C[0] + A @ B\n"
              "    return a * A @ B + b * C, D, A @ B - C.T, C - A @ B, np.maximum(A @ B + C, 0.0)\n")
    A, B, C = RNG.standard_normal((40, 36)), RNG.standard_normal((36, 40)), RNG.standard_normal((40, 40))
    for target in ("python", "cpu") if setting == "1" else ("cpu",):
        fn, kernel = _kernel(source, target=target, cache=False)
        for _ in range(2):
            for got, want in zip(kernel(A, B, C, 1.5, -0.5), fn(A, B, C, 1.5, -0.5)):
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        products = _matmuls(kernel, A, B, C, 1.5, -0.5)
        assert len(products) == 5
        folded = [p for p in products if p["may write"][0] in p["may read"]]
        assert len(folded) == (3 if setting == "1" else 0), products
