"""Per-step dispatch of multi-operand einsums: GEMM-shaped steps on BLAS, the other steps in
fused loop stages; results against numpy.einsum, the recorded choices, out=/dtype=, errors."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from conftest import einsum_compiled
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.tensor.einsum import einsum, einsum_path

pe = importlib.import_module("polyfuse.tensor.einsum")
einsum_plan = importlib.import_module("polyfuse.tensor.einsum_plan")
einsum_staging = importlib.import_module("polyfuse.tensor.einsum_staging")


def _close(result, expected, rtol=1e-9):
    expected = np.asarray(expected)
    assert np.shape(result) == expected.shape and np.asarray(result).dtype == expected.dtype
    scale = float(np.abs(expected).max()) if expected.size else 1.0
    np.testing.assert_allclose(result, expected, rtol=rtol, atol=rtol * scale)


def _ops(seed, *shapes, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def test_chain_steps_are_chosen_per_step():
    ops = _ops(0, (300, 64), (300,), (300, 48), (300,))
    info = einsum_path("ki,k,kj,k->ij", *ops)
    assert len(info.choices) == 3
    assert "[fused loops, stage 0]" in info.choices[0] and "[fused loops, stage 0]" in info.choices[1]
    assert "[BLAS, stage 1]" in info.choices[2] and "K 300" in info.choices[2]
    assert "1 of 3 pairwise steps on BLAS" in info.dispatch
    assert "dispatch 2:" in str(info) and "BLAS steps + fused loops" in str(info)
    head = pe.explain("ki,k,kj,k->ij", *ops).to_dict()["einsum"]
    assert "BLAS" in head["dispatch 2"] and head["runs"].startswith("BLAS steps + fused loops")
    _close(einsum("ki,k,kj,k->ij", *ops), np.einsum("ki,k,kj,k->ij", *ops))
    plan = einsum_plan._plan("ki,k,kj,k->ij", tuple(ops), None, None, True, "cpu", "smart")
    assert plan.stages[0].labels == ("k", "i")  # the loop stage writes in its inputs' order
    off = einsum_path("ki,k,kj,k->ij", *ops, blas=False)
    assert off.choices == [] and off.dispatch is None
    _close(einsum("ki,k,kj,k->ij", *ops, blas=False), np.einsum("ki,k,kj,k->ij", *ops))


@pytest.mark.parametrize("subscripts,shapes", [
    ("ab,bc,cd,de->ae", [(60, 70), (70, 30), (30, 50), (50, 20)]),  # every step on BLAS
    ("ia,iajb,jbkc,kc->", [(20, 4), (20, 4, 20, 4), (20, 4, 20, 4), (20, 4)]),  # GEMVs, a scalar
    ("bij,bjk,bk->bi", [(4, 40, 30), (4, 30, 20), (4, 20)]),  # a batched GEMM, then loops
    ("ij,jk,k->i", [(80, 60), (60, 50), (50,)]),
    ("...ij,jk,kl->...il", [(3, 30, 40), (40, 20), (20, 30)]),
])
def test_staged_calls_match_numpy(subscripts, shapes):
    ops = _ops(1, *shapes)
    expected = np.einsum(subscripts, *ops, optimize=True)
    _close(einsum(subscripts, *ops), expected)
    out = np.empty(np.shape(expected))
    if out.ndim:
        assert einsum(subscripts, *ops, out=out) is out
        _close(out, expected)
    ops32 = [op.astype(np.float32) for op in ops]
    _close(einsum(subscripts, *ops32), np.einsum(subscripts, *ops32, optimize=True), rtol=1e-4)
    _close(einsum(subscripts, *ops32, dtype=np.float64),
           np.einsum(subscripts, *ops32, dtype=np.float64, optimize=True))


def test_staged_out_aliasing_an_operand():
    a, b, c = _ops(2, (60, 60), (60, 60), (60, 60))
    expected = np.einsum("ij,jk,kl->il", a, b, c)
    assert einsum_path("ij,jk,kl->il", a, b, c).choices
    einsum("ij,jk,kl->il", a, b, c, out=a)
    _close(a, expected)


def test_staged_errors_are_argument_errors():
    a, b, c = _ops(3, (60, 60), (60, 60), (60, 60))
    with pytest.raises(polyfuse.ArgumentError, match="out has shape"):
        einsum("ij,jk,kl->il", a, b, c, out=np.empty((60, 61)))
    with pytest.raises(polyfuse.ArgumentError, match="position"):
        einsum("ij,jk,kl->il", a, b, c[:5])


@st.composite
def chains(draw):
    """Random multi-operand einsums over labels of sizes 3 (loops) and 20-40 (BLAS-worthy)."""
    labels = "abcdef"
    sizes = {c: draw(st.sampled_from([3, 20, 33])) for c in labels}
    nops = draw(st.integers(2, 4))
    terms = [draw(st.lists(st.sampled_from(labels), min_size=1, max_size=3, unique=True)) for _ in range(nops)]
    used = sorted({c for t in terms for c in t})
    output = draw(st.lists(st.sampled_from(used), max_size=3, unique=True))
    transposed = draw(st.lists(st.booleans(), min_size=nops, max_size=nops))
    subscripts = ",".join("".join(t) for t in terms) + "->" + "".join(output)
    return subscripts, [tuple(sizes[c] for c in t) for t in terms], transposed


@settings(max_examples=11, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=chains(), seed=st.integers(0, 3))
def test_random_chains_match_numpy(problem, seed):
    subscripts, shapes, transposed = problem
    ops = _ops(seed, *shapes)
    # transposed views: the BLAS steps must accept any layout
    ops = [np.ascontiguousarray(op.T).T if flip and op.ndim > 1 else op for op, flip in zip(ops, transposed)]
    expected = np.einsum(subscripts, *ops, optimize=True)
    with einsum_compiled() as ran:  # compile (and dispatch) small calls too, never numpy.einsum
        _close(einsum(subscripts, *ops), expected)
        info = einsum_path(subscripts, *ops)
    assert len(ran) == 1 and ran[0] != "numpy", ran
    event("BLAS steps + fused loops" if info.choices else f"one {ran[0]} plan")
    if info.choices:
        assert len(info.choices) == len(info.path) - 1
        assert any("[BLAS" in c for c in info.choices)


def test_blas_results_are_laid_out_for_their_reader():
    """Each BLAS step picks which operand is A so that the next step views its result as a
    matrix: the tensor contraction below needs no transpose and returns C-contiguous."""
    ops = _ops(4, (12, 12), (12, 12), (12, 12, 12, 12), (12, 12), (12, 12))
    info = einsum_path("ea,fb,abcd,gc,hd->efgh", *ops)
    assert [c.split("[")[1].split(",")[0] for c in info.choices] == ["BLAS"] * 4
    result = einsum("ea,fb,abcd,gc,hd->efgh", *ops)
    assert result.flags.c_contiguous
    _close(result, np.einsum("ea,fb,abcd,gc,hd->efgh", *ops, optimize=True))


def test_staged_intermediates_are_reused_and_never_returned():
    """The second call takes the first call's buffer, with other inputs: a stale intermediate
    (a step that skipped writing part of it) would show in its result."""
    ops = _ops(5, (300, 64), (300,), (300, 48), (300,))
    other = _ops(6, (300, 64), (300,), (300, 48), (300,))
    plan = einsum_plan._plan("ki,k,kj,k->ij", tuple(ops), None, None, True, "cpu", "smart")
    assert plan.kind == "staged" and plan.layout == (((300, 64), np.dtype(np.float64)),)
    pe.clear_workspaces()
    first = einsum("ki,k,kj,k->ij", *ops)
    kept = einsum_staging._workspace._free[plan.layout][0][0]
    second = einsum("ki,k,kj,k->ij", *other)
    [[again]] = einsum_staging._workspace._free[plan.layout]
    assert again is kept  # the same buffer, taken and given back
    assert pe.workspace_bytes() >= kept.nbytes
    for result in (first, second):
        assert not np.shares_memory(result, kept)
    _close(second, np.einsum("ki,k,kj,k->ij", *other))
    _close(first, np.einsum("ki,k,kj,k->ij", *ops))  # untouched by the second call
    pe.clear_workspaces()
    assert einsum_staging._workspace.nbytes() == 0


def test_matrix_vector_steps_prefer_row_wise_orders():
    """A chain of matrix-vector BLAS steps is ordered so that each sums the matrix's last axes
    (same FLOPs as opt_einsum's order); an explicit path is kept as given."""
    ops = _ops(6, (20, 4), (20, 4, 20, 4), (20, 4, 20, 4), (20, 4))
    info = einsum_path("ia,iajb,jbkc,kc->", *ops)
    assert [c.split("  ")[0] for c in info.choices] == ["jbkc,kc->jb", "iajb,jb->ia", "ia,ia->"]
    _close(einsum("ia,iajb,jbkc,kc->", *ops), np.einsum("ia,iajb,jbkc,kc->", *ops))
    given = ["einsum_path", (0, 1), (0, 1), (0, 1)]
    kept = einsum_path("ia,iajb,jbkc,kc->", *ops, optimize=given)
    assert kept.choices[0].startswith("ia,iajb->jb")
    _close(einsum("ia,iajb,jbkc,kc->", *ops, optimize=given), np.einsum("ia,iajb,jbkc,kc->", *ops))
    plan = einsum_plan._plan("ia,iajb,jbkc,kc->", tuple(ops), None, None, True, "cpu", "smart")
    reference = einsum_plan._plan("ia,iajb,jbkc,kc->", tuple(ops), None, None, True, "cpu", "smart", blas=False)
    assert plan.path.flops <= reference.path.flops
