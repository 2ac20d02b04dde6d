"""Matrix products kept whole, cut by rows among polyfuse's threads (backends/cpu/phases.py,
``row_chunked``): each chunk calls BLAS on its rows on one thread, or runs the loops over them
where BLAS does not take the layout.  Results against NumPy on forced threads."""

from __future__ import annotations

import math

import numpy as np
import pytest

import polyfuse
from polyfuse.model.loop_ast import StmtCall
from polyfuse.runtime import threads
from polyfuse.runtime.linalg_library import thread_count_setter

pytestmark = pytest.mark.skipif(not thread_count_setter(), reason="NumPy's OpenBLAS with a per-thread count")
RNG = np.random.default_rng(3)


def attention(Q, K, V):
    S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]))
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    return (P / P.sum(axis=-1, keepdims=True)) @ V


def accumulate(A, B, C):
    C += A @ B


def strided(A, B):
    return A[::2] @ B  # not a BLAS layout: each chunk runs the loops over its rows


def chunked_phases(kernel, args):
    backend = kernel.compile(*args).backend
    return [p.index for p in backend.artifact.phases if p.parallel and isinstance(p.node, StmtCall)], backend


@pytest.mark.parametrize("threads_count, nq, nk, d", [(2, 13, 11, 8), (3, 97, 90, 40)])
def test_attention_on_row_chunks_matches_numpy(forced, threads_count, nq, nk, d):
    """Small sizes run the loops over each chunk's rows, the larger ones BLAS on each chunk
    (work over BLAS_MIN_WORK also at 97 / 3 rows)."""
    Q, K, V = (RNG.standard_normal(shape) for shape in ((nq, d), (nk, d), (nk, 5 * d)))
    k = polyfuse.kernel(attention)
    threads.set_num_threads(threads_count)
    for _ in range(3):  # the first call is the measuring (serial) one
        np.testing.assert_allclose(k(Q, K, V), attention(Q, K, V), rtol=1e-12, atol=1e-14)
    chunked, backend = chunked_phases(k, (Q, K, V))
    assert len(chunked) == 2, backend.artifact.phases
    assert [r["rows"] for r in k.explain(Q, K, V)["row-chunked products"]] == ["Q.shape[0]"] * 2
    assert all(backend.phase_runs.get(i, 0) >= 1 for i in chunked), backend.phase_runs


def test_accumulating_product_and_strided_rows_on_chunks(forced):
    A, B, C = RNG.standard_normal((9, 6)), RNG.standard_normal((6, 7)), RNG.standard_normal((9, 7))
    threads.set_num_threads(2)
    k = polyfuse.kernel(accumulate)
    for _ in range(3):
        out = C.copy()
        k(A, B, out)
        np.testing.assert_allclose(out, C + A @ B, rtol=1e-12, atol=1e-14)
    A2 = RNG.standard_normal((18, 6))
    s = polyfuse.kernel(strided)
    for _ in range(3):
        np.testing.assert_allclose(s(A2, B), A2[::2] @ B, rtol=1e-12, atol=1e-14)
    for kernel, args in ((k, (A, B, C)), (s, (A2, B))):
        chunked, backend = chunked_phases(kernel, args)
        assert chunked and all(backend.phase_runs.get(i, 0) >= 1 for i in chunked), backend.phase_runs


def test_the_knob_leaves_products_to_the_library(monkeypatch):
    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS", "0")
    Q, K, V = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    k = polyfuse.kernel(attention, cache=False)
    np.testing.assert_allclose(k(Q, K, V), attention(Q, K, V), rtol=1e-12, atol=1e-14)
    assert chunked_phases(k, (Q, K, V))[0] == []
    assert "row-chunked products" not in k.explain(Q, K, V).to_dict()
