"""Matrix products written as loops run as one BLAS call (schedule/loop_products.py), moved out
of their loop nest only where the dependences allow, with the user's function's results (to
BLAS's reassociation: rtol 1e-12 in float64) and its exact bits where the loops run."""

from __future__ import annotations

import functools
import itertools
import linecache

import numpy as np
import pytest
from conftest import SYMM_LOOPS as SYMM
from conftest import rewritten_dependences_checked
from polyfuse.backends.cpu import blas

import polyfuse
from polyfuse.model.region import BLAS_MIN_WORK
from polyfuse.schedule import loop_products

pytestmark = pytest.mark.skipif(not blas.available(), reason="no BLAS library found")

GEMM = """
def k(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] *= beta
        for k in range(A.shape[1]):
            for j in range(C.shape[1]):
                C[i, j] += alpha * A[i, k] * B[k, j]
"""

TWO_MM = """
def k(alpha, beta, tmp, A, B, C, D):
    for i in range(tmp.shape[0]):
        for j in range(tmp.shape[1]):
            tmp[i, j] = 0.0
            for k in range(A.shape[1]):
                tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i in range(D.shape[0]):
        for j in range(D.shape[1]):
            D[i, j] *= beta
            for k in range(C.shape[0]):
                D[i, j] += tmp[i, k] * C[k, j]
"""


@functools.cache
def _kernel(source: str, **options):
    """The function and its kernel, one per source and options for the whole module, so a test
    that calls the same program at another size or layout reuses the variants compiled before
    (cache=False: nothing comes from the disk cache, every first compile is cold)."""
    filename = f"<test-loop-products-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"], polyfuse.kernel(namespace["k"], cache=False, **options)


def _run(source: str, *args, exact: bool = False, lifted: int | None = None, **options):
    """Run the user's function and the kernel on copies; compare every array argument."""
    fn, kernel = _kernel(source, **options)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn(*want)
    kernel(*got)
    for w, g in zip(want, got):
        if isinstance(w, np.ndarray):
            if exact:
                np.testing.assert_array_equal(g, w)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-12 if w.dtype == np.float64 else 2e-5, atol=0)
    if lifted is not None:
        assert len(kernel.explain(*args).to_dict().get("loop products", ())) == lifted
    return kernel


def _m(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed + sum(shape)).random(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_polybench_gemm_runs_as_one_call_after_the_beta_loop(dtype):
    kernel = _run(GEMM, 1.5, 1.2, _m(60, 70, dtype=dtype), _m(60, 80, dtype=dtype), _m(80, 70, dtype=dtype),
                  lifted=1)
    (decision,) = kernel.explain(1.5, 1.2, _m(60, 70), _m(60, 80), _m(80, 70))["loop products"]
    assert decision["placed"] == "after" and decision["product"].startswith("C += alpha * A @ B")


def test_two_products_of_2mm_each_one_call():
    """The zeroing of ``tmp`` goes into its product (``fold_zeroing``) although the product's
    guard holds its depth (``A.shape[1] >= 1``) and the zeroing's does not: the product is
    widened to run wherever the zeroing ran; with no column in ``A`` it writes the zeros."""
    n = 48
    kernel = _run(TWO_MM, 1.5, 1.2, _m(n, n + 2), _m(n, n + 4), _m(n + 4, n + 2), _m(n + 2, n + 6), _m(n, n + 6),
                  lifted=2)
    assert kernel.explain(1.5, 1.2, _m(n, n + 2), _m(n, n + 4), _m(n + 4, n + 2), _m(n + 2, n + 6),
                          _m(n, n + 6))["loop products"][0]["zeroed"].startswith("S0")
    _run(TWO_MM, 1.5, 1.2, _m(n, n + 2), _m(n, 0), _m(0, n + 2), _m(n + 2, n + 6), _m(n, n + 6))  # tmp = 0


@pytest.mark.parametrize("order", list(itertools.permutations("ijk")))
@pytest.mark.parametrize("layout", ["C[i, j] += A[i, k] * B[k, j]", "C[j, i] += A[k, i] * B[j, k]",
                                    "C[i, j] = C[i, j] + B[k, j] * A[i, k] * 0.5"])
def test_every_loop_order_and_operand_layout(order, layout):
    loops = {"i": "range(1, n - 1)", "j": "range(n - 3)", "k": "range(2, n)"}
    body = "".join(f"{'    ' * (d + 1)}for {v} in {loops[v]}:\n" for d, v in enumerate(order))
    source = f"def k(C, A, B):\n    n = A.shape[0]\n{body}{'    ' * 4}{layout}\n"
    n = 40
    _run(source, _m(n, n), _m(n, n), _m(n, n), lifted=1)


def test_a_reader_of_the_product_in_the_same_nest_runs_after_it():
    """D reads row i of C after the product updated it: the product moves before the nest."""
    source = """
def k(C, D, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
        for j in range(C.shape[1]):
            D[i, j] = 2.0 * C[i, j]
"""
    kernel = _run(source, _m(50, 40), _m(50, 40), _m(50, 60), _m(60, 40), lifted=1)
    (decision,) = kernel.explain(_m(50, 40), _m(50, 40), _m(50, 60), _m(60, 40))["loop products"]
    assert decision["placed"] == "before"


def test_an_initialisation_and_an_epilogue_in_the_nest_split_around_the_product():
    """C = 0 feeds the product, the bias and relu read it: zeroes, one call, the epilogue."""
    source = """
def k(C, A, B, b):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
            C[i, j] = max(C[i, j] + b[j], 0.0)
"""
    args = _m(50, 40), _m(50, 60) - 0.5, _m(60, 40), _m(40) - 0.5
    kernel = _run(source, *args, lifted=1)
    (decision,) = kernel.explain(*args)["loop products"]
    assert decision["placed"] == "between"


def test_a_chain_of_feeders_moves_before_the_product_together():
    """D feeds C's initialisation, which feeds the product: both run first."""
    source = """
def k(C, D, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            D[i, j] = 0.5 * j
            C[i, j] = D[i, j] + 1.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
"""
    kernel = _run(source, _m(30, 20), _m(30, 20), _m(30, 25), _m(25, 20), lifted=1)
    assert kernel.explain(_m(30, 20), _m(30, 20), _m(30, 25), _m(25, 20))["loop products"][0]["placed"] == "after"


def test_a_nest_that_feeds_the_product_and_reads_it_keeps_its_loops():
    """Row i + 1 of A is computed from row i of C: every product row needs the one before."""
    source = """
def k(C, A, B):
    for i in range(C.shape[0] - 1):
        for j in range(C.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
        for k in range(A.shape[1]):
            A[i + 1, k] = 0.5 * A[i + 1, k] + 0.001 * C[i, k % C.shape[1]]
"""
    _run(source, _m(30, 30), _m(30, 40), _m(40, 30), exact=True, lifted=0)


def test_alpha_written_inside_the_nest_is_not_a_constant_scale():
    source = """
def k(C, A, B):
    alpha = 1.0
    for i in range(C.shape[0]):
        alpha = alpha * 0.5
        for j in range(C.shape[1]):
            for k in range(A.shape[1]):
                C[i, j] += alpha * A[i, k] * B[k, j]
"""
    _run(source, _m(40, 40), _m(40, 40), _m(40, 40), exact=True, lifted=0)


def test_non_box_domains_and_other_shapes_keep_their_loops():
    """A triangle two diagonals off (no routine) and a product reading its own output."""
    triangle = """
def k(C, A):
    for i in range(C.shape[0]):
        for j in range(i - 1):
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * A[j, k]
"""
    _run(triangle, _m(40, 40), _m(40, 50), exact=True, lifted=0)
    own = """
def k(C, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            for k in range(C.shape[1]):
                C[i, j] += C[i, k] * B[k, j]
"""
    _run(own, _m(40, 40), _m(40, 40), exact=True, lifted=0)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_small_and_empty_products_run_the_loops_with_the_loops_bits(n):
    """Under BLAS_MIN_WORK multiply-adds the statement's own loops run: each element's sum in
    the order the user wrote, so the bits are the function's."""
    _run(GEMM, 1.5, 1.2, _m(n, n + 1), _m(n, n + 2), _m(n + 2, n + 1), exact=True, lifted=1)


def test_strided_views_run_blas_or_the_loops_by_layout():
    base = _m(80, 90)
    _run(GEMM, 1.5, 1.2, base[::2, 1::3], _m(40, 50)[:, ::2], _m(25, 30).T.copy().T, lifted=1)


def test_blas_false_keeps_the_user_s_loops_bit_for_bit():
    _run(GEMM, 1.5, 1.2, _m(60, 70), _m(60, 80), _m(80, 70), exact=True, blas=False, lifted=0)


SYRK = """
def k(alpha, beta, C, A):
    for i in range(C.shape[0]):
        for j in RANGE:
            C[i, j] *= beta
        for k in range(A.shape[1]):
            for j in RANGE:
                C[i, j] += alpha * A[i, k] * A[j, k]
"""


@pytest.mark.parametrize("triangle", ["lower", "upper"])
@pytest.mark.parametrize("c_order", ["C", "F"])
@pytest.mark.parametrize("a_order", ["C", "F"])
def test_a_triangle_of_a_times_its_transpose_runs_on_syrk(triangle, c_order, a_order):
    """PolyBench's syrk (and the upper triangle, covariance's): one ?syrk on that triangle, in any
    layout of C and A; the other triangle keeps its bits."""
    span = "range(i + 1)" if triangle == "lower" else "range(i, C.shape[0])"
    n, m = 60, 50
    C, A = np.asarray(_m(n, n), order=c_order), np.asarray(_m(n, m), order=a_order)
    kernel = _run(SYRK.replace("RANGE", span), 1.5, 1.2, C, A, lifted=1)
    (decision,) = kernel.explain(1.5, 1.2, C, A)["loop products"]
    assert decision["product"].endswith("triangle j <= i" if triangle == "lower" else "triangle j >= i")
    assert "polyfuse.blas.dsyrk" in kernel.inspect_llvm(1.5, 1.2, C, A)
    got = C.copy()
    kernel(1.5, 1.2, got, A)
    untouched = np.triu(np.ones((n, n), bool), 1) if triangle == "lower" else np.tril(np.ones((n, n), bool), -1)
    np.testing.assert_array_equal(got[untouched], C[untouched])


def test_covariance_s_upper_triangle_of_data_t_data_runs_on_syrk(monkeypatch):
    # the zeroing's and the scale's folds: only cov's dependences computed again, checked
    # against all of them computed again (where this source compiles here, not from _kernel's memo)
    checked = rewritten_dependences_checked(monkeypatch, loop_products)
    source = """
def k(cov, data):
    for i in range(cov.shape[0]):
        for j in range(i, cov.shape[0]):
            cov[i, j] = 0.0
            for k in range(data.shape[0]):
                cov[i, j] += data[k, i] * data[k, j]
            cov[i, j] /= data.shape[0] - 1.0
            cov[j, i] = cov[i, j]
"""
    kernel = _run(source, _m(50, 50), _m(60, 50) - 0.5, lifted=1)
    assert "polyfuse.blas.dsyrk" in kernel.inspect_llvm(_m(50, 50), _m(60, 50))
    # the division after the product is its alpha (POLYFUSE_BLAS_SCALE_FOLD): one pass fewer;
    # with one row of data the divisor is 0, alpha not finite: the loops sum each element and
    # divide the sum, NaN and inf where the user's function has them
    (decision,) = kernel.explain(_m(50, 50), _m(60, 50))["loop products"]
    assert decision["scaled"].startswith("S2 (line") and decision["product"].startswith("cov = (1.0 / ")
    assert all(arrays == frozenset({"cov"}) for arrays in checked)
    with np.errstate(divide="ignore", invalid="ignore"):
        _run(source, _m(50, 50), np.where(_m(1, 50) < 0.5, 0.0, _m(1, 50)))


def test_a_scaling_after_the_product_stays_where_its_factor_reads_an_array():
    """``cov[i, j] /= w[i]``: a factor per row, no alpha; and a scaling that another statement
    reads before (``d[i] = cov[i, i]``) stays too."""
    source = """
def k(cov, data, w, d):
    for i in range(cov.shape[0]):
        for j in range(cov.shape[0]):
            cov[i, j] = 0.0
            for k in range(data.shape[0]):
                cov[i, j] += data[k, i] * data[k, j]
    for i in range(cov.shape[0]):
        d[i] = cov[i, i]
    for i in range(cov.shape[0]):
        for j in range(cov.shape[0]):
            cov[i, j] *= 2.0
    for i in range(cov.shape[0]):
        for j in range(cov.shape[0]):
            cov[i, j] /= w[i]
"""
    args = (_m(40, 40), _m(50, 40), _m(40) + 0.5, _m(40))
    kernel = _run(source, *args, lifted=1)
    assert not kernel.explain(*args)["loop products"][0]["scaled"]


def test_a_triangle_of_two_different_matrices_runs_its_loops():
    """Not ``A @ A.T``: no BLAS routine writes one triangle of ``A @ B``, so the loops run, each
    element's sum in the order written."""
    source = SYRK.replace("RANGE", "range(i + 1)").replace("A[j, k]", "B[j, k]").replace("C, A)", "C, A, B)")
    _run(source, 1.5, 1.2, _m(50, 50), _m(50, 40), _m(50, 40), exact=True, lifted=1)


SYR2K = """
def k(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(A.shape[1]):
            for j in range(i + 1):
                C[i, j] += TERM
"""


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("term", ["A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]",
                                  "alpha * A[i, k] * B[j, k] + alpha * A[j, k] * B[i, k]"])
def test_syr2k_s_pair_of_products_runs_on_syr2k(order, term):
    """PolyBench's syr2k: one ?syr2k on the triangle, the other triangle's bits kept."""
    n, m = 60, 50
    C, A, B = (np.asarray(x, order=order) for x in (_m(n, n), _m(n, m), _m(n, m, seed=1)))
    kernel = _run(SYR2K.replace("TERM", term), 1.5, 1.2, C, A, B, lifted=1)
    (decision,) = kernel.explain(1.5, 1.2, C, A, B)["loop products"]
    assert "@ B.T + B @ A.T" in decision["product"] or "@ A.T + A @ B.T" in decision["product"]
    if blas.symbol("float64", "syr2k") in blas.blas_pointers():
        assert "polyfuse.blas.dsyr2k" in kernel.inspect_llvm(1.5, 1.2, C, A, B)
    got = C.copy()
    kernel(1.5, 1.2, got, A, B)
    upper = np.triu(np.ones((n, n), bool), 1)
    np.testing.assert_array_equal(got[upper], C[upper])


@pytest.mark.parametrize("term", ["A[j, k] * alpha * B[i, k] + B[j, k] * beta * A[i, k]",
                                  "A[j, k] * B[i, k] + B[j, k] * A[j, k]"])
def test_pairs_that_are_not_syr2k_keep_their_loops(term):
    _run(SYR2K.replace("TERM", term), 1.5, 1.2, _m(40, 40), _m(40, 30), _m(40, 30), exact=True, lifted=0)


def test_float32_triangles_run_on_ssyrk_and_ssyr2k():
    f32 = np.float32
    syrk_args = (f32(1.5), f32(1.2), _m(60, 60, dtype=f32), _m(60, 50, dtype=f32))
    kernel = _run(SYRK.replace("RANGE", "range(i + 1)"), *syrk_args, lifted=1)
    assert "polyfuse.blas.ssyrk" in kernel.inspect_llvm(*syrk_args)
    pair_args = (*syrk_args, _m(60, 50, dtype=f32, seed=2))
    kernel = _run(SYR2K.replace("TERM", "A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]"), *pair_args,
                  lifted=1)
    if blas.symbol("float32", "syr2k") in blas.blas_pointers():
        assert "polyfuse.blas.ssyr2k" in kernel.inspect_llvm(*pair_args)


STRICT = """
def k(alpha, C, A):
    for i in range(C.shape[0]):
        for j in RANGE:
            for k in range(A.shape[1]):
                C[i, j] += alpha * A[i, k] * A[j, k]
"""


@pytest.mark.parametrize("triangle", ["lower", "upper"])
@pytest.mark.parametrize("c_order, a_order, n, m", [("C", "C", 60, 50), ("F", "F", 41, 70), ("C", "F", 41, 70),
                                                    ("F", "C", 60, 50)])
def test_a_triangle_without_its_diagonal_runs_on_syrk_with_the_diagonal_kept(triangle, c_order, a_order, n, m):
    """``range(i)`` / ``range(i + 1, n)``: ?syrk on the triangle with its diagonal of the whole
    square, the diagonal saved before and put back after: it and the other triangle keep their bits."""
    span = "range(i)" if triangle == "lower" else "range(i + 1, C.shape[0])"
    C, A = np.asarray(_m(n, n), order=c_order), np.asarray(_m(n, m), order=a_order)
    kernel = _run(STRICT.replace("RANGE", span), 1.5, C, A, lifted=1)
    (decision,) = kernel.explain(1.5, C, A)["loop products"]
    assert decision["product"].endswith("triangle j <= i - 1" if triangle == "lower" else "triangle j >= i + 1")
    assert "polyfuse.blas.dsyrk" in kernel.inspect_llvm(1.5, C, A)
    got = C.copy()
    kernel(1.5, got, A)
    kept = ~np.tri(n, k=-1, dtype=bool) if triangle == "lower" else np.tri(n, dtype=bool)
    np.testing.assert_array_equal(got[kept], C[kept])


CORRELATION = """
def k(corr, data):
    m = corr.shape[0]
    for i in range(m - 1):
        corr[i, i] = 1.0
        for j in range(i + 1, m):
            corr[i, j] = 0.0
            for k in range(data.shape[0]):
                corr[i, j] += data[k, i] * data[k, j]
            corr[j, i] = corr[i, j]
    corr[m - 1, m - 1] = 1.0
"""


@pytest.mark.parametrize("m, n", [(1, 3), (2, 2), (3, 40), (45, 60), (70, 33)])
def test_correlation_s_strict_triangle_leaves_its_nest_and_the_rest_stays_fused(m, n):
    """Zeroes first, one call (?syrk where it pays), then the mirror copy and the diagonal; at
    every size, tiny ones (the loops, or no triangle at all: m = 1) included."""
    args = (_m(m, m), _m(n, m) - 0.5)
    kernel = _run(CORRELATION, *args)
    if m >= 3:
        (decision,) = kernel.explain(*args)["loop products"]
        assert decision["placed"] == "between" and decision["product"].endswith("triangle j >= i + 1")


def test_strict_triangles_that_are_not_a_times_a_t_run_their_loops():
    """Two matrices, or one matrix's rows against another part of it: the loops, bit for bit."""
    two = STRICT.replace("RANGE", "range(i + 1, C.shape[0])").replace("A[j, k]", "B[j, k]").replace(
        "C, A)", "C, A, B)")
    _run(two, 1.5, _m(50, 50), _m(50, 40), _m(50, 40), exact=True, lifted=1)
    shifted = STRICT.replace("RANGE", "range(i)").replace("A[j, k]", "A[j + 1, k]")
    _run(shifted, 1.5, _m(50, 50), _m(51, 40), exact=True, lifted=1)


@pytest.mark.parametrize("rows, columns", [("range(C.shape[0] - 1)", "range(1, i + 2)"),
                                           ("range(1, C.shape[0])", "range(i - 1, C.shape[0] - 1)")])
def test_a_triangle_one_line_beyond_its_diagonal_runs_its_loops(rows, columns):
    """Columns one later with ``j <= i + 1``, rows one later with ``j >= i - 1``: a constant
    offset, but not a strict triangle of the one-larger square (?syrk gave wrong sums): the loops."""
    source = STRICT.replace("for i in range(C.shape[0])", f"for i in {rows}").replace("RANGE", columns)
    assert f"for i in {rows}" in source
    _run(source, 1.5, _m(40, 40), _m(40, 30), exact=True, lifted=0)


def test_a_strict_triangle_whose_output_is_its_operand_is_refused_at_the_call():
    """One array passed as C and A: written and read through two names, refused (no BLAS call on
    aliased operands)."""
    _, kernel = _kernel(STRICT.replace("RANGE", "range(i)"))
    C = _m(40, 40)
    with pytest.raises(polyfuse.ArgumentError, match="overlap"):
        kernel(1.5, C, C)


TRMM = """
def k(alpha, A, B):
    for i in ROWS:
        for j in range(B.shape[1]):
            for k in SUM:
                B[i, j] += TERM
            B[i, j] = alpha * B[i, j]
"""
UPPER = {"ROWS": "range(B.shape[0])", "SUM": "range(i + 1, B.shape[0])", "TERM": "A[k, i] * B[k, j]"}


def _trmm(**parts):
    source = TRMM
    for key, value in {**UPPER, **parts}.items():
        source = source.replace(key, value)
    return source


@pytest.mark.parametrize("b_order, a_order, m, n", [("C", "C", 60, 50), ("F", "F", 37, 81), ("C", "F", 37, 81),
                                                    ("F", "C", 60, 50), ("C", "C", 1, 1), ("C", "C", 2, 3),
                                                    ("C", "C", 5, 0)])
def test_polybench_trmm_runs_in_place_on_trmm(b_order, a_order, m, n):
    """B += A[k, i] * B[k, j] over k > i reads the rows below before they change: ?trmm with a
    unit diagonal, then the alpha loop; tiny and empty sizes run the loops (in an order that
    reads the old rows)."""
    A, B = np.asarray(_m(m, m) / max(m, 1), order=a_order), np.asarray(_m(m, n), order=b_order)
    kernel = _run(_trmm(), 1.5, A, B, lifted=1 if m > 1 and n > 0 else None)
    if m * m * n >= 32 ** 3:
        (decision,) = kernel.explain(1.5, A, B)["loop products"]
        assert decision["placed"] == "before" and decision["product"] == (
            "B = (I + A) @ B (B__shape0 x B__shape1, unit triangle k > i)")
        if blas.symbol("float64", "trmm") in blas.blas_pointers():
            assert "polyfuse.blas.dtrmm" in kernel.inspect_llvm(1.5, A, B)


@pytest.mark.parametrize("order", ["C", "F"])
def test_trmm_from_the_lower_triangle_with_the_rows_descending_and_from_the_right(order):
    """Rows read before they change in either direction: k < i with i descending; and B @ (I + T)
    with the columns in the order that reads the old ones (j ascending, k > j)."""
    lower = _trmm(ROWS="range(B.shape[0] - 1, -1, -1)", SUM="range(i)", TERM="A[i, k] * B[k, j]")
    A, B = np.asarray(_m(50, 50) / 50, order=order), np.asarray(_m(50, 40), order=order)
    _run(lower, 1.5, A, B, lifted=1)
    right = """
def k(A, B):
    for j in range(B.shape[1]):
        for i in range(B.shape[0]):
            for k in range(j + 1, B.shape[1]):
                B[i, j] += B[i, k] * A[j, k]
"""
    A, B = np.asarray(_m(45, 45) / 45, order=order), np.asarray(_m(60, 45), order=order)
    kernel = _run(right, A, B, lifted=1)
    assert kernel.explain(A, B)["loop products"][0]["product"].startswith("B = B @ (I + A)")
    _run(right, _m(1, 1), _m(3, 1))


@pytest.mark.parametrize("parts", [
    dict(SUM="range(i + 1)"),  # the diagonal too: I + T would not be unit
    dict(ROWS="range(B.shape[0])", SUM="range(i)", TERM="A[i, k] * B[k, j]"),  # reads rows already updated
    dict(TERM="alpha * A[k, i] * B[k, j]"),  # a scale inside: (I + alpha T) is not trmm's
    dict(TERM="A[k, i] * B[k, j] * B[k, j]"),  # an extra factor
    dict(TERM="A[k, i] * B[k, j] + A[i, k]"),  # an extra term
    dict(TERM="A[k, i] * B[j, k]"),  # not B's own rows
])
def test_trmm_near_misses_keep_their_loops(parts):
    n = 40
    _run(_trmm(**parts), 1.5, _m(n, n) / n, _m(n, n), exact=True, lifted=0)


DOITGEN = """
def k(A, C4, OUT):
    acc = np.zeros((C4.shape[1],))
    for r in range(A.shape[0]):
        for q in range(A.shape[1]):
            for p in range(C4.shape[1]):
                acc[p] = 0.0
                for s in range(A.shape[2]):
                    acc[p] += A[r, q, s] * C4[s, p]
            for p in range(C4.shape[1]):
                OUT[r, q, p] = acc[p]
"""


@pytest.mark.parametrize("shape", [(6, 7, 40, 50), (3, 20, 33, 17), (1, 1, 1, 1), (2, 0, 3, 4), (5, 4, 3, 2)])
def test_a_row_product_through_a_temporary_runs_as_one_stack(shape):
    """doitgen's acc[p] = A[r, q, :] @ C4 per row: acc grows one row per (r, q), the rows are one
    stack of products (one ?gemm where the strides chain), the copy after it; tiny sizes too."""
    nr, nq, ns, npp = shape
    args = (_m(nr, nq, ns), _m(ns, npp), _m(nr, nq, npp))
    kernel = _run(DOITGEN, *args)
    if nr * nq * ns * npp >= 32 ** 3:
        (decision,) = kernel.explain(*args)["loop products"]
        assert decision["placed"] == "between" and decision["temporary"].startswith("acc grown to")
        assert "polyfuse.blas.dgemm" in kernel.inspect_llvm(*args)


def test_a_row_product_with_a_local_scale_through_its_temporary():
    source = DOITGEN.replace("    acc = np", "    w = 0.5 * C4[0, 0]\n    acc = np").replace(
        "acc[p] += A[r, q, s] * C4[s, p]", "acc[p] += w * A[r, q, s] * C4[s, p]")
    args = (_m(6, 7, 40), _m(40, 50), _m(6, 7, 50))
    assert _run(source, *args, lifted=1).explain(*args)["loop products"][0]["temporary"]


def test_polybench_doitgen_in_place_through_its_temporary():
    source = DOITGEN.replace("OUT", "A").replace("def k(A, C4, A)", "def k(A, C4)")
    A, C4 = _m(8, 9, 40), _m(40, 40) / 40
    kernel = _run(source, A, C4, lifted=1)
    assert kernel.explain(A, C4)["loop products"][0]["temporary"]
    _run(source, np.asfortranarray(A), C4[::-1], lifted=1)  # other layouts: a loop of products, or the loops


@pytest.mark.parametrize("change", [
    ("                acc[p] = 0.0\n", ""),  # acc carries its sums from one row to the next
    ("OUT[r, q, p] = acc[p]", "OUT[r, q, p] = acc[p] + acc[0]"),  # a row reads another element of acc
    ("acc[p] += A[r, q, s] * C4[s, p]", "acc[p] += A[r, q, s] * C4[s, p] + 1.0"),  # an extra term
])
def test_temporaries_that_carry_values_or_are_no_product_stay_loops(change):
    source = DOITGEN.replace(*change)
    _run(source, _m(4, 5, 30), _m(30, 20), _m(4, 5, 20), exact=True, lifted=0)


def test_a_returned_temporary_is_not_grown():
    source = DOITGEN + "    return acc\n"
    fn, kernel = _kernel(source)
    args = (_m(4, 5, 30), _m(30, 20), _m(4, 5, 20))
    np.testing.assert_array_equal(kernel(*[a.copy() for a in args]), fn(*[a.copy() for a in args]))
    assert not kernel.explain(*args).to_dict().get("loop products")


def test_a_temporary_grown_over_loops_that_start_late_and_may_be_empty():
    source = """
def k(A, C4, OUT):
    acc = np.zeros((C4.shape[1],))
    for r in range(2, A.shape[0]):
        for q in range(1, A.shape[1]):
            for p in range(C4.shape[1]):
                acc[p] = 0.0
                for s in range(A.shape[2]):
                    acc[p] += A[r, q, s] * C4[s, p]
            for p in range(C4.shape[1]):
                OUT[r, q, p] = 2.0 * acc[p]
"""
    for nr in (1, 2, 9):
        kernel = _run(source, _m(nr, 6, 40), _m(40, 50), _m(nr, 6, 50))
    assert kernel.explain(_m(9, 6, 40), _m(40, 50), _m(9, 6, 50))["loop products"][0]["temporary"]


def test_a_temporary_summed_over_a_loop_it_would_grow_by_stays_loops():
    """q is summed into acc[p] as well: growing acc by q would split the sum (the init does not
    run per q), so it stays as written."""
    source = """
def k(A, C4, OUT):
    acc = np.zeros((C4.shape[1],))
    for r in range(A.shape[0]):
        for p in range(C4.shape[1]):
            acc[p] = 0.0
            for q in range(A.shape[1]):
                for s in range(A.shape[2]):
                    acc[p] += A[r, q, s] * C4[s, p]
        for p in range(C4.shape[1]):
            OUT[r, p] = acc[p]
"""
    _run(source, _m(5, 6, 40), _m(40, 50), _m(5, 50), exact=True, lifted=0)


def test_float32_strict_triangles_trmm_and_stacks():
    f32 = np.float32
    args = (f32(1.5), _m(50, 50, dtype=f32), _m(50, 40, dtype=f32))
    assert "polyfuse.blas.ssyrk" in _run(STRICT.replace("RANGE", "range(i)"), *args, lifted=1).inspect_llvm(*args)
    args = (f32(1.5), _m(50, 50, dtype=f32) / 50, _m(50, 40, dtype=f32))
    kernel = _run(_trmm(), *args, lifted=1)
    if blas.symbol("float32", "trmm") in blas.blas_pointers():
        assert "polyfuse.blas.strmm" in kernel.inspect_llvm(*args)
    args = (_m(6, 7, 40, dtype=f32), _m(40, 50, dtype=f32), _m(6, 7, 50, dtype=f32))
    assert "polyfuse.blas.sgemm" in _run(DOITGEN.replace("np.zeros((C4.shape[1],))", "np.zeros((C4.shape[1],), "
                                                         "dtype=np.float32)"), *args, lifted=1).inspect_llvm(*args)



@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("m, n", [(50, 40), (33, 70), (1, 1), (2, 5), (4, 0)])
def test_polybench_symm_s_two_triangular_products_run_on_symm(order, m, n):
    """temp2 folds into C[i, j] beside C[k, j] += ... (which never touches C[i, j]); the two
    products read A strictly below its diagonal, as T and as T.T: one ?symm on a copy of the
    triangle (and of B where it is stored unlike C), the diagonal term stays in its loop; tiny
    sizes and a C that is no BLAS matrix run the loops."""
    A = np.asarray(_m(m, m) / max(m, 1), order=order)
    C, B = (np.asarray(x, order=order) for x in (_m(m, n), _m(m, n, seed=1)))
    kernel = _run(SYMM, 1.5, 1.2, C, A, B)
    if m == 50:  # B stored unlike C (copied for ?symm); C a view with no unit stride (the loops)
        _run(SYMM, 1.5, 1.2, C, A, np.asarray(B, order="F" if order == "C" else "C"))
        _run(SYMM, 1.5, 1.2, np.repeat(np.repeat(C, 2, 0), 2, 1)[::2, ::2], A, B)
    if m * m * n >= 32 ** 3:
        products = kernel.explain(1.5, 1.2, C, A, B)["loop products"]
        assert len(products) == 2 and all("A strictly triangular" in p["product"] for p in products)
        first, second = sorted(products, key=lambda p: p["mirror"] == "")
        assert first["mirror"] and "A read as symmetric" in first["product"] and second["placed"].startswith("with")
        if blas.symbol("float64", "symm") in blas.blas_pointers():
            assert "polyfuse.blas.dsymm" in kernel.inspect_llvm(1.5, 1.2, C, A, B)


SYMM_RIGHT = """
def k(alpha, beta, C, A, B):
    for i in range(A.shape[0]):
        for j in range(C.shape[0]):
            temp2 = 0.0
            for k in range(i):
                C[j, k] += alpha * B[j, i] * A[i, k]
                temp2 += B[j, k] * A[i, k]
            C[j, i] = beta * C[j, i] + alpha * B[j, i] * A[i, i] + alpha * temp2
"""


@pytest.mark.parametrize("order, change", [("C", None), ("F", ("B[j, k] * A[i, k]", "B[j, k] * A[k, i]"))])
def test_symm_from_the_right_and_a_product_of_the_other_triangle(order, change):
    """C = beta C + alpha B @ S (the symmetric operand on the right) is one ?symm too; where the
    second product reads the other triangle (A[k, i]: not T.T), the two stay apart."""
    m, n = 40, 36
    source = SYMM_RIGHT if change is None else SYMM_RIGHT.replace(*change)
    C, A, B = (np.asarray(x, order=order) for x in (_m(n, m), _m(m, m) / m, _m(n, m, seed=1)))
    kernel = _run(source, 1.5, 1.2, C, A, B)
    mirrors = [p["mirror"] for p in kernel.explain(1.5, 1.2, C, A, B)["loop products"]]
    assert sum(bool(x) for x in mirrors) == (1 if change is None else 0)


@pytest.mark.parametrize("change", [
    ("C[k, j] += alpha * B[i, j] * A[i, k]", "C[k + 1, j] += alpha * B[i, j] * A[i, k]"),  # touches C[i, j]
    ("C[k, j] += alpha * B[i, j] * A[i, k]", "B[i, j] += alpha * A[i, k]"),  # writes what the consumer reads
    ("temp2 += B[k, j] * A[i, k]", "temp2 += B[k, j] * A[i, k] * A[k, i]"),  # an extra factor
])
def test_symm_near_misses_stay_correct(change):
    m, n = 40, 30
    _run(SYMM.replace(*change), 1.5, 1.2, _m(m, n), _m(m, m) / m, _m(m, n, seed=1))


def test_a_product_over_a_triangle_of_a_non_square_operand_runs_its_loops_inside_the_array():
    """A[i, k] for k < i where A has fewer columns than rows: the copy reads only the triangle."""
    source = """
def k(C, A, B):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            for k in range(min(i, A.shape[1])):
                C[i, j] += A[i, k] * B[k, j]
"""
    _run(source, _m(50, 40), _m(50, 30), _m(30, 40))


GESUMMV = """
def k(alpha, beta, A, B, tmp, x, y):
    for i in range(A.shape[0]):
        tmp[i] = 0.0
        y[i] = 0.0
        for j in range(A.shape[1]):
            tmp[i] = A[i, j] * x[j] + tmp[i]
            y[i] = B[i, j] * x[j] + y[i]
        y[i] = alpha * tmp[i] + beta * y[i]
"""


def test_polybench_gesummv_runs_two_gemv_calls_between_its_loops():
    """Each matrix is read by one statement only: each product is one ?gemv writing its vector
    (the zeroings before go into them, ``fold_zeroing``, widened past the products' guard on
    ``A.shape[1] >= 1``), the combination after stays a loop."""
    args = (1.5, 1.2, _m(200, 180), _m(200, 180, seed=1), _m(200), _m(180), _m(200))  # > BLAS_MIN_WORK
    kernel = _run(GESUMMV, *args, lifted=2)
    products = [d["product"] for d in kernel.explain(*args)["loop products"]]
    assert products[0].startswith("tmp = A @ x") and products[1].startswith("y = B @ x")
    _run(GESUMMV, 1.5, 1.2, _m(200, 0), _m(200, 0), _m(200), _m(0), _m(200))  # no column: zeros
    _run(GESUMMV, *args, exact=True, blas=False, lifted=0)


@pytest.mark.parametrize("statement, order, shapes", [
    ("y[r] += A[r, c] * x[c]", "rc", ((200, 180), 180, 200)),
    ("y[r] += alpha * x[c] * A[r, c]", "cr", ((200, 180), 180, 200)),
    ("y[c] += x[r] * A[r, c]", "rc", ((200, 180), 200, 180)),  # bicg's s = A^T r
    ("y[c] = y[c] + A[r, c] * alpha * x[r]", "cr", ((200, 180), 200, 180)),
    ("y[r] += A[c, r] * x[c]", "rc", ((180, 200), 180, 200)),  # mvt's x2 = A^T y2
])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_a_matrix_times_a_vector_over_two_loops_runs_on_gemv(statement, order, shapes, layout):
    loops = {"r": "for r in range(R):", "c": "for c in range(C):"}
    source = f"""
def k(alpha, A, x, y, R, C):
    {loops[order[0]]}
        {loops[order[1]]}
            {statement}
"""
    a_shape, nx, ny = shapes
    rows, cols = (a_shape if "A[r, c]" in statement else a_shape[::-1])
    A = np.asarray(_m(*a_shape), order=layout)
    assert rows * cols >= BLAS_MIN_WORK
    _run(source, 0.5, A, _m(nx), _m(ny), rows, cols, lifted=1)


@pytest.mark.parametrize("source", [
    # atax: one row of A read by two products -- one pass over A in the loops
    """
def k(A, x, y, tmp):
    for i in range(A.shape[0]):
        tmp[i] = 0.0
        for j in range(A.shape[1]):
            tmp[i] += A[i, j] * x[j]
        for j in range(A.shape[1]):
            y[j] += A[i, j] * tmp[i]
""",
    # mvt: the two products of A in two nests (they fuse into one pass)
    """
def k(A, x, y, tmp):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            tmp[i] += A[i, j] * x[j]
    for i in range(A.shape[1]):
        for j in range(A.shape[0]):
            y[i] += A[j, i] * x[j]
""",
    # elementwise, not a product: both factors move with i
    """
def k(A, x, y, tmp):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            tmp[i] += A[i, j] * A[i, j]
""",
    # the output is an operand
    """
def k(A, x, y, tmp):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            tmp[i] += A[i, j] * tmp[j]
""",
    # a triangle (no box)
    """
def k(A, x, y, tmp):
    for i in range(A.shape[0]):
        for j in range(i):
            tmp[i] += A[i, j] * x[j]
""",
    # a matrix times a vector written as a NumPy sum (reassociable: the frontend's business)
    """
def k(A, x, y, tmp):
    for i in range(A.shape[0]):
        tmp[i] = np.sum(A[i, :] * x)
""",
])
def test_matrix_vector_near_misses_keep_their_loops_bit_for_bit(source):
    exact = "np.sum" not in source
    _run(source, _m(40, 40), _m(40), _m(40), _m(40), exact=exact, lifted=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gemv_with_offsets_strided_views_and_float32(dtype):
    """Loops that start late, an output shifted by one, strided and reversed operand views (the
    per-call layout test picks BLAS or the loops) against the user's function."""
    source = """
def k(alpha, A, x, y):
    for i in range(2, A.shape[0]):
        for j in range(1, A.shape[1]):
            y[i + 1] += alpha * A[i, j] * x[j - 1]
"""
    big = _m(500, 400, dtype=dtype)  # each product over BLAS_MIN_WORK multiply-adds
    for A in (big[:200, :190], big[::2, ::2], big[::-2, 1::2], np.asfortranarray(big[:200, :190])):
        _run(source, dtype(0.5), A, _m(A.shape[1], dtype=dtype), _m(A.shape[0] + 1, dtype=dtype), lifted=1)


ZEROED_GEMV = """
def k(alpha, A, x, tmp):
    for i in range(A.shape[0]):
        tmp[i] = 0.0
        for j in range(A.shape[0]):
            tmp[i] += alpha * A[i, j] * x[j]
"""

ZEROED_GEMM = """
def k(C, A, B, n):
    for i in range(n):
        for j in range(n):
            C[i, j] = 0.0
        for k in range(n):
            for j in range(n):
                C[i, j] += A[i, k] * B[k, j]
"""


@pytest.mark.parametrize("n", [0, 1, 7, 60])
def test_a_zeroing_of_exactly_the_product_s_elements_is_taken_over_by_it(n):
    """gesummv's ``tmp[i] = 0.0`` before ``tmp += A @ x``: the product writes (beta = 0), no
    zeroing pass; at every size (none, the loops, BLAS) the user's results."""
    args = (1.5, _m(n, n), _m(n), _m(n) + 7.0)
    kernel = _run(ZEROED_GEMV, *args, lifted=1)
    (decision,) = kernel.explain(*args)["loop products"]
    assert decision["zeroed"].startswith("S0 (line") and decision["product"].startswith("tmp = alpha * A @ x")
    gemm = _run(ZEROED_GEMM, _m(n, n) + 7.0, _m(n, n), _m(n, n), n, lifted=1)
    assert gemm.explain(_m(n, n), _m(n, n), _m(n, n), n)["loop products"][0]["zeroed"]


@pytest.mark.parametrize("change", [
    ("for j in range(n):\n            C[i, j] = 0.0", "for j in range(n + 1):\n            C[i, j] = 0.0"),  # more
    ("C[i, j] = 0.0", "C[i, j] = 1.0"),  # not a zero
    ("C[i, j] = 0.0\n", "C[i, j] = 0.0\n            D[i, j] = C[i, j] + 2.0\n"),  # its zeros read first
    ("        for k in range(n):", "        C[i, 0] = 3.0\n        for k in range(n):"),  # written between
])
def test_zeroings_that_are_not_exactly_the_product_s_start_stay(change):
    source = ZEROED_GEMM.replace("def k(C, A, B, n)", "def k(C, A, B, n, D)").replace(*change)
    n = 40
    args = (_m(n, n + 1) + 7.0, _m(n, n), _m(n, n), n, _m(n, n))
    kernel = _run(source, *args, lifted=1)
    assert not kernel.explain(*args)["loop products"][0]["zeroed"]


def test_a_zeroing_after_the_product_stays_and_the_knob_keeps_every_zeroing(monkeypatch):
    source = ZEROED_GEMM + "    for i in range(n):\n        for j in range(n):\n            C[i, j] = 0.0\n"
    n = 40
    kernel = _run(source, _m(n, n), _m(n, n), _m(n, n), n, lifted=1)
    assert kernel.explain(_m(n, n), _m(n, n), _m(n, n), n)["loop products"][0]["zeroed"].startswith("S0 ")
    monkeypatch.setenv("POLYFUSE_BLAS_BETA_ZERO", "0")
    kept = polyfuse.kernel(_kernel(ZEROED_GEMM)[0], cache=False)
    assert not kept.explain(_m(n, n), _m(n, n), _m(n, n), n)["loop products"][0]["zeroed"]


TRIANGLE_ZEROED = """
def k(cov, data):
    for i in range(cov.shape[0]):
        for j in range(i, cov.shape[0]):
            cov[i, j] = 0.0
            for k in range(data.shape[0]):
                cov[i, j] += data[k, i] * data[k, j]
"""


@pytest.mark.parametrize("source", [TRIANGLE_ZEROED, TRIANGLE_ZEROED.replace("range(i, ", "range(i + 1, ")])
@pytest.mark.parametrize("m, n", [(37, 0), (9, 3), (45, 60)])
def test_a_triangle_s_zeroing_is_taken_over_by_its_syrk(source, m, n, monkeypatch):
    """covariance's ``cov[i, j] = 0.0`` over ``j >= i`` (and correlation's ``j > i``) before its
    product: the product writes the triangle (?syrk's beta = 0; its loops zero each row first),
    widened to run where the zeroing ran (no observation: zeros); the output starts as NaN, so a
    product that still added to it would leave NaNs.  The serial run; the chunks of rows are
    tests/backends/cpu/test_blas_triangle_chunks.py's (upper, strict_upper)."""
    args = (np.full((m, m), np.nan), _m(n, m) - 0.5)
    # the widening's and the fold's dependences, where this case compiles (_kernel: one per source)
    checked = rewritten_dependences_checked(monkeypatch, loop_products)
    kernel = _run(source, *args, lifted=1)
    (decision,) = kernel.explain(*args)["loop products"]
    assert decision["zeroed"].startswith("S0 (line") and " = data @ data" in decision["product"]
    assert checked in ([], [frozenset({"cov"})] * 2)
