"""Consecutive parallel phases over the same rows run as one chain, block by block of rows on
each member of the team (backends/cpu/chains.py, ``POLYFUSE_PHASE_CHAINS=1``).  Results against
NumPy on forced threads with small blocks (several per member), and the phases kept apart where
one reads another's output at other rows."""

from __future__ import annotations

import math

import numpy as np
import pytest

import polyfuse
from polyfuse.runtime import threads
from polyfuse.runtime.linalg_library import can_set_blas_threads

RNG = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def chains_on(monkeypatch):
    monkeypatch.setenv("POLYFUSE_PHASE_CHAINS", "1")
    monkeypatch.setenv("POLYFUSE_CHAIN_BLOCK_ROWS", "4")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")  # (the chains' products: their library's threads measured too)


def attention(Q, K, V):
    S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]))
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    return (P / P.sum(axis=-1, keepdims=True)) @ V


def mlp(x, W1, b1, W2):
    return np.maximum(x @ W1 + b1, 0.0) @ W2


def softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def reversed_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e[::-1] * e  # row i reads row n-1-i of the first loop's output


def chains(kernel, args):
    backend = kernel.compile(*args).backend
    return [(p.index, p.chain) for p in backend.artifact.phases if p.chain], backend


@pytest.mark.skipif(not can_set_blas_threads(), reason="products are chained as phases cut by rows (OpenBLAS)")
@pytest.mark.parametrize("threads_count, nq", [(2, 13), (3, 30)])
def test_attention_chain_matches_numpy(forced, threads_count, nq):
    Q, K, V = RNG.standard_normal((nq, 8)), RNG.standard_normal((11, 8)), RNG.standard_normal((11, 5))
    k = polyfuse.kernel(attention, cache=False)
    threads.set_num_threads(threads_count)
    for _ in range(3):  # the first call is the measuring (serial) one
        np.testing.assert_allclose(k(Q, K, V), attention(Q, K, V), rtol=1e-12, atol=1e-14)
    found, backend = chains(k, (Q, K, V))
    # each product cut by rows chains with the row loop after it; the per-call check of the
    # factor of `(P / P.sum(...)) @ V` (frontend/array_linalg.py, a reduction over the row sums
    # that every row of the second product waits for) ends the first chain before it
    products = [p.index for p in backend.artifact.phases if p.blas_rows]
    assert len(products) == 2 and found == [(i, 2) for i in products], backend.artifact.phases
    assert all(backend.phase_runs.get(i, 0) >= 1 for i in products), backend.phase_runs
    decisions = k.explain(Q, K, V)["phase chains"]
    assert [d["length"] for d in decisions] == [2, 2], decisions


@pytest.mark.skipif(not can_set_blas_threads(), reason="products are chained as phases cut by rows (OpenBLAS)")
def test_mlp_chain_matches_numpy(forced, monkeypatch):
    """Blocks of the model's size (at least 256 rows with BLAS: one block per member here)."""
    monkeypatch.delenv("POLYFUSE_CHAIN_BLOCK_ROWS")
    x, W1, b1, W2 = (RNG.standard_normal(s) for s in ((17, 6), (6, 9), (9,), (9, 4)))
    k = polyfuse.kernel(mlp, cache=False)
    threads.set_num_threads(2)
    for _ in range(3):
        np.testing.assert_allclose(k(x, W1, b1, W2), mlp(x, W1, b1, W2), rtol=1e-12, atol=1e-14)
    found, backend = chains(k, (x, W1, b1, W2))
    assert found == [(0, 3)] and backend.phase_runs.get(0, 0) >= 1, (found, backend.phase_runs)


def test_other_rows_keep_phases_apart(forced):
    x = RNG.standard_normal((10, 7))
    k = polyfuse.kernel(reversed_rows, cache=False)
    threads.set_num_threads(2)
    for _ in range(3):
        np.testing.assert_allclose(k(x), reversed_rows(x), rtol=1e-13)
    found, backend = chains(k, (x,))
    assert found == [] and "phase chains" not in k.explain(x).sections, backend.artifact.phases


def test_knob_off_keeps_phases_apart(forced, monkeypatch):
    monkeypatch.setenv("POLYFUSE_PHASE_CHAINS", "0")
    x = RNG.standard_normal((12, 9))
    k = polyfuse.kernel(softmax_rows, cache=False)
    threads.set_num_threads(2)
    for _ in range(3):
        np.testing.assert_allclose(k(x), softmax_rows(x), rtol=1e-13)
    assert chains(k, (x,))[0] == []
