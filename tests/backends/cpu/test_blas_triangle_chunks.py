"""One triangle of an array times itself, written as loops, cut by rows among polyfuse's threads
(backends/cpu/phases.py ``row_chunked``, blas.py ``triangle_rows``): each chunk runs ``?syrk`` on
its block on the diagonal and ``?gemm`` on the rest of its rows, or the triangle's loops over its
rows; the rows cut so that the chunks hold the same number of elements
(parallel.py ``chunk_bounds``).  Results against the plain functions on forced threads."""

from __future__ import annotations

import numpy as np
import pytest
from polyfuse.backends.cpu.parallel import chunk_bounds

import polyfuse
from polyfuse.runtime import threads
from polyfuse.runtime.linalg_library import can_set_blas_threads

pytestmark = pytest.mark.skipif(not can_set_blas_threads(),
                                reason="needs NumPy's bundled OpenBLAS, whose (process-wide) thread count polyfuse sets")
RNG = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def chunks_on(monkeypatch):
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS", "1")
    monkeypatch.delenv("POLYFUSE_BLAS_TRIANGLE_CHUNKS", raising=False)
    # a triangle under its nest's guard is a site whose library's threads are measured too
    # (phases.py ``library_mode``): its rows on the team, always, here
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")


def upper(m, n, data, cov):
    """covariance's product: the upper triangle with its diagonal."""
    for i in range(m):
        for j in range(i, m):
            cov[i, j] = 0.0
            for k in range(n):
                cov[i, j] += data[k, i] * data[k, j]


def lower(m, n, alpha, A, C):
    """syrk's: the lower triangle with its diagonal, scaled."""
    for i in range(m):
        for k in range(n):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]


def strict_upper(m, n, data, corr):
    """correlation's: above the diagonal (columns one after the rows)."""
    for i in range(m - 1):
        for j in range(i + 1, m):
            corr[i, j] = 0.0
            for k in range(n):
                corr[i, j] += data[k, i] * data[k, j]


def strict_lower(m, n, A, C):
    """below the diagonal (rows one after the columns)."""
    for i in range(1, m):
        for k in range(n):
            for j in range(i):
                C[i, j] += A[i, k] * A[j, k]


def _args(function, m, n, strided):
    """Fresh arguments each call (a strided operand stays a view of a larger array)."""
    parent = RNG.standard_normal((n, 2 * m) if function in (upper, strict_upper) else (m, 2 * n))
    square = RNG.standard_normal((m, m))

    def fresh():
        operand = parent.copy()[:, ::2] if strided else np.ascontiguousarray(parent[:, ::2])
        return (m, n, 1.5, operand, square.copy()) if function is lower else (m, n, operand, square.copy())

    return fresh


@pytest.mark.parametrize("function, weights", [(upper, "upper"), (lower, "lower"), (strict_upper, "upper"),
                                               (strict_lower, "lower")])
@pytest.mark.parametrize("threads_count, m, n, strided", [(2, 150, 90, False), (3, 131, 70, False),
                                                          (2, 11, 9, False), (2, 60, 40, True)])
def test_triangle_rows_on_chunks_match_the_loops(forced, function, weights, threads_count, m, n, strided):
    """BLAS on each chunk (150 and 131 rows: every chunk over BLAS_MIN_WORK), the loops over each
    chunk's rows (11 rows; a strided operand, no BLAS layout); the other triangle (and the
    diagonal of a strict one) as it was."""
    fresh = _args(function, m, n, strided)
    base = fresh()
    k = polyfuse.kernel(function, cache=False)
    threads.set_num_threads(threads_count)
    expected = fresh()
    function(*expected)
    for _ in range(3):  # the first call is the measuring (serial) one
        got = fresh()
        k(*got)
        np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-12, atol=1e-12)
    backend = k.compile(*base).backend
    chunked = [p for p in backend.artifact.phases if p.blas_rows]
    assert [p.row_weights for p in chunked] == [weights], backend.artifact.phases
    assert backend.phase_runs.get(chunked[0].index, 0) >= 1, backend.phase_runs
    (record,) = k.explain(*base).to_dict()["row-chunked products"]
    assert f"its {weights} triangle" in record["why"]


def pair_lower(n, m, alpha, C, A, B):
    """syr2k's: the lower triangle of alpha * (A B^T + B A^T), added."""
    for i in range(n):
        for k in range(m):
            for j in range(i + 1):
                C[i, j] += A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]


def pair_upper(n, m, C, A, B):
    """The upper triangle of A B^T + B A^T, written fresh (a product that does not accumulate)."""
    for i in range(n):
        for j in range(i, n):
            C[i, j] = 0.0
            for k in range(m):
                C[i, j] += A[i, k] * B[j, k] + B[i, k] * A[j, k]


@pytest.mark.parametrize("function, threads_count, n, m, layout", [(pair_lower, 2, 150, 90, "rows"),
                                                                   (pair_upper, 3, 131, 70, "columns"),
                                                                   (pair_lower, 2, 60, 40, "mixed")])
def test_pair_triangle_rows_on_chunks_match_the_loops(forced, function, threads_count, n, m, layout):
    """syr2k's pair cut by rows: ?syr2k on each chunk's block and two ?gemm on the rest of its
    rows (row-major and column-major operands), the loops where the operands are stored unlike
    (?syr2k takes both one way); the other triangle as it was."""
    a, b, square = RNG.standard_normal((n, m)), RNG.standard_normal((n, m)), RNG.standard_normal((n, n))
    if layout == "columns":
        a, b = np.asfortranarray(a), np.asfortranarray(b)
    elif layout == "mixed":
        b = np.asfortranarray(b)
    head = (n, m, 1.5) if function is pair_lower else (n, m)
    k = polyfuse.kernel(function, cache=False)
    threads.set_num_threads(threads_count)
    expected = square.copy()
    function(*head, expected, a, b)
    for _ in range(3):  # the first call is the measuring (serial) one
        got = square.copy()
        k(*head, got, a, b)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    backend = k.compile(*head, square, a, b).backend
    (chunked,) = [p for p in backend.artifact.phases if p.blas_rows]
    assert backend.phase_runs.get(chunked.index, 0) >= 1, backend.phase_runs


def test_a_triangle_on_the_librarys_threads(monkeypatch, forced):
    """A triangle under its nest's guard is a site of three modes; the library's (one call of all
    its rows on OpenBLAS's threads: a strict one, correlation's, the triangle one row larger with
    its diagonal kept) gives the loops' triangle, the rest untouched."""
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "library")
    function = strict_upper
    fresh = _args(function, 150, 90, False)
    base, expected = fresh(), fresh()
    k = polyfuse.kernel(function, cache=False)
    threads.set_num_threads(2)
    function(*expected)
    for _ in range(2):  # (the first call is the measuring one, on one BLAS thread)
        got = fresh()
        k(*got)
        np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-12, atol=1e-12)
    backend = k.compile(*base).backend
    (chunked,) = [p for p in backend.artifact.phases if p.blas_rows]
    assert chunked.library and backend.blas_modes[chunked.index] == "library"


def test_the_knob_keeps_the_triangle_whole(monkeypatch, forced):
    monkeypatch.setenv("POLYFUSE_BLAS_TRIANGLE_CHUNKS", "0")
    fresh = _args(upper, 40, 30, False)
    base, got, expected = fresh(), fresh(), fresh()
    k = polyfuse.kernel(upper, cache=False)
    threads.set_num_threads(2)
    k(*got)
    upper(*expected)
    np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-12, atol=1e-12)
    assert not [p for p in k.compile(*base).backend.artifact.phases if p.blas_rows]


@pytest.mark.parametrize("count, pieces", [(600, 2), (1199, 3), (7, 4), (1, 2), (0, 2)])
def test_chunk_bounds_share_the_triangle(count, pieces):
    """Each piece of a triangle's rows holds about 1/pieces of its elements (within one row)."""
    for weights, row in (("upper", lambda r: count - r), ("lower", lambda r: r + 1)):
        cuts = chunk_bounds(count, pieces, weights)
        assert cuts[0] == 0 and cuts[-1] == count and cuts == sorted(cuts)
        total = count * (count + 1) / 2
        for k in range(pieces):
            held = sum(row(r) for r in range(cuts[k], cuts[k + 1]))
            assert abs(held - total / pieces) <= count, (weights, cuts)
    assert chunk_bounds(10, 3) == [0, 3, 6, 10]


def test_float32_triangle_on_chunks(forced):
    """``?ssyrk`` and ``?sgemm`` on the chunks."""
    data, cov = RNG.standard_normal((90, 150)).astype(np.float32), RNG.standard_normal((150, 150)).astype(np.float32)
    k = polyfuse.kernel(upper, cache=False)
    threads.set_num_threads(2)
    expected = cov.copy()
    upper(150, 90, data, expected)
    for _ in range(3):
        got = cov.copy()
        k(150, 90, data, got)
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-5)
    backend = k.compile(150, 90, data, cov).backend
    (chunked,) = [p for p in backend.artifact.phases if p.blas_rows]
    assert backend.phase_runs.get(chunked.index, 0) >= 1, backend.phase_runs
    assert "polyfuse.blas.sgemm" in k.inspect_llvm(150, 90, data, cov)


def test_a_triangle_stays_out_of_phase_chains(monkeypatch, forced):
    """With phase chains on (backends/cpu/chains.py), a triangle cut by rows (its rows cut by work,
    under its nest's guard) stays a phase of its own, and still runs on the chunks."""
    monkeypatch.setenv("POLYFUSE_PHASE_CHAINS", "1")
    fresh = _args(upper, 150, 90, False)
    base, got, expected = fresh(), fresh(), fresh()
    k = polyfuse.kernel(upper, cache=False)
    threads.set_num_threads(2)
    upper(*expected)
    for _ in range(3):
        got = fresh()
        k(*got)
        np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-12, atol=1e-12)
    phases = k.compile(*base).backend.artifact.phases
    assert [p.row_weights for p in phases if p.blas_rows] == ["upper"]
    assert not any(p.chain or p.chained for p in phases if p.row_weights)


def mirrored_upper(m, n, data, cov):
    """covariance's product and mirror: the upper triangle, then each element to its transpose."""
    for i in range(m):
        for j in range(i, m):
            cov[i, j] = 0.0
            for k in range(n):
                cov[i, j] += data[k, i] * data[k, j]
            cov[j, i] = cov[i, j]


def mirrored_lower(m, n, A, C):
    """The lower triangle (added to), then mirrored above the diagonal."""
    for i in range(m):
        for k in range(n):
            for j in range(i + 1):
                C[i, j] += A[i, k] * A[j, k]
    for i in range(m):
        for j in range(i + 1):
            C[j, i] = C[i, j]


def mirrored_strict(m, n, data, corr):
    """correlation's: above the diagonal, then mirrored (the product one row larger on ?syrk)."""
    for i in range(m - 1):
        for j in range(i + 1, m):
            corr[i, j] = 0.0
            for k in range(n):
                corr[i, j] += data[k, i] * data[k, j]
            corr[j, i] = corr[i, j]


@pytest.mark.parametrize("function, threads_count, m, n, chained", [
    (mirrored_upper, 2, 150, 90, True), (mirrored_lower, 3, 131, 70, True), (mirrored_strict, 2, 70, 40, False)])
def test_mirror_as_the_triangles_epilogue(monkeypatch, forced, function, threads_count, m, n, chained):
    """A triangle cut by rows and its mirror (backends/cpu/chains.py ``_mirror``,
    ``POLYFUSE_MIRROR_EPILOGUE``): one chain, each member's rows, then their mirror (the cut a
    multiple of the mirror's tiles); a strict triangle (on ?syrk one row larger) keeps them apart."""
    monkeypatch.setenv("POLYFUSE_MIRROR_EPILOGUE", "1")
    fresh = _args(upper if function is not mirrored_lower else lower, m, n, False)
    base = fresh()
    base = base if function is not mirrored_lower else (m, n, *base[3:])
    k = polyfuse.kernel(function, cache=False)
    threads.set_num_threads(threads_count)
    for _ in range(3):  # the first call is the measuring (serial) one
        got, expected = list(base), list(base)
        got[-1], expected[-1] = base[-1].copy(), base[-1].copy()
        function(*expected)
        k(*got)
        np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-12, atol=1e-12)
    backend = k.compile(*base).backend
    (product,) = [p for p in backend.artifact.phases if p.blas_rows]
    assert (product.chain == 2) is chained, backend.artifact.phases
    assert backend.phase_runs.get(product.index, 0) >= 1, backend.phase_runs
