"""Contraction of kernel-local arrays, as reported by explain() and local_memory()."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.bench import suite


def _args(name: str, preset: str = "test"):
    spec = suite.get(name)
    return spec, spec.make_args(np.random.default_rng(0), **spec.sizes[preset])


def test_fused_elementwise_temporaries_become_registers():
    spec, args = _args("chain3")
    memory = polyfuse.kernel(spec.func).local_memory(*args)
    assert memory["allocated"] == {}
    assert set(memory["declared"]) == {"T1", "T2"}


def test_row_fused_attention_keeps_one_row_of_scores():
    spec, args = _args("attention_rows")
    kernel = polyfuse.kernel(spec.func, blas=False)  # the products as loops, fused by rows
    memory = kernel.local_memory(*args)
    Q, K = args[1], args[2]
    row = K.shape[0] * 8
    assert memory["allocated"] == {"S": row, "P": row}  # O(keys), not O(queries x keys)
    assert memory["declared"] == {"S": Q.shape[0] * row, "P": Q.shape[0] * row}
    contracted = {c["array"]: c for c in kernel.explain(*args)["contraction"]}
    assert contracted["S"]["after"] == "(K.shape[0],)"


@pytest.mark.parametrize("fuse", ["none", "smart"])
def test_without_fusion_nothing_can_shrink(fuse):
    spec, args = _args("chain3")
    memory = polyfuse.kernel(spec.func, fuse=fuse).local_memory(*args)
    if fuse == "none":
        assert memory["allocated"] == memory["declared"]
    else:
        assert memory["allocated"] == {}


def test_contract_false_keeps_full_arrays():
    spec, args = _args("chain3")
    memory = polyfuse.kernel(spec.func, contract=False).local_memory(*args)
    assert memory["allocated"] == memory["declared"]


UNORDERED_CONSUMER = '''
def kern(n, A, M, B):
    U = np.empty((n + 4, n + 4), dtype=np.float64)
    for i in range(n + 4):
        for j in range(n + 4):
            U[i, j] = float(i) - 0.25 * j
    for i in range(n):
        B[0] = 0.0
        if i % 2 == 0:
            M[0, 0] = A[0]
    for i in range(n):
        A[1] = A[0]
    for i in range(n):
        A[2] = (A[0] + U[i, 0])
    for i in range(0, n, 2):
        M[i, 0] = A[i]
'''


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_no_contraction_when_the_schedule_leaves_producer_and_consumer_unordered(target):
    """fuse="max" puts U[i + 1, 0]'s write and the read of U[i, 0] at one schedule time (they touched
    different elements); contracted to a scalar they would touch one slot and isl's dataflow, which
    ignores same-time instances, did not see it: A[2] came out one too large (found by random
    programs)."""
    from conftest import check_against_python, define

    fn = define(UNORDERED_CONSUMER, "kern")
    for n in (0, 1, 5, 17):
        rng = np.random.default_rng(n)
        args = (n, rng.standard_normal(n + 4), rng.standard_normal((n + 4, n + 4)), rng.standard_normal(n + 4))
        check_against_python(fn, args, target=target, fuse="max")


def diffusion(inp, coeff):
    lap = 4.0 * inp[1:-1, 1:-1] - (inp[2:, 1:-1] + inp[:-2, 1:-1] + inp[1:-1, 2:] + inp[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    return inp[2:-2, 2:-2] - coeff[2:-2, 2:-2] * (flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])


def far_apart(x):
    t = 2.0 * x[:, 1:] - x[:, :-1]
    return t[6:, :] - t[:-6, :]  # each row of t is read six rows after it was made


def whole_pass(x):
    w = 2.0 * x
    return w - w.sum()  # every element of w is made before the sum, and the sum before any read


def mirrored_rows(x):
    n, m = x.shape
    out = np.empty_like(x)
    row = np.empty_like(x)
    for i in range(n):
        for j in range(m):
            row[i, j] = 2.0 * x[i, j]
        for j in range(m):
            out[i, j] = row[i, j] + row[i, m - 1 - j]  # row's axis 0 drops, its axis 1 cannot fold
    return out


def _folds(kernel, args) -> dict[str, list]:
    return {c["array"]: c["reason"] for c in kernel.explain(*args)["contraction"]}


@functools.cache
def _diffusion(target: str, fuse: str):
    """One kernel per target and fusion mode: the shapes below share its compiled variant."""
    return polyfuse.kernel(diffusion, target=target, fuse=fuse, verify=True)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fuse", ["smart", "max"])
@pytest.mark.parametrize("shape", [(5, 5), (6, 9), (11, 7), (23, 17)])
def test_a_stencil_chain_fused_by_rows_keeps_rows_of_its_intermediates(target, fuse, shape):
    rng = np.random.default_rng(shape[0])
    args = (rng.random(shape), rng.random(shape))
    kernel = _diffusion(target, fuse)
    np.testing.assert_allclose(kernel(*args), diffusion(*args), rtol=1e-12, atol=1e-12)
    memory = kernel.local_memory(*args)
    row = (shape[1] - 2) * 8
    assert memory["allocated"]["lap"] == 2 * row  # the row being made and the one before it
    assert memory["declared"]["lap"] == (shape[0] - 2) * row
    reasons = _folds(kernel, args)
    assert all("folded to" in reasons[a] for a in ("lap", "flx", "fly")), reasons


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_no_fold_when_values_live_longer_than_the_slots(target):
    rng = np.random.default_rng(3)
    x = rng.random((13, 8))
    kernel = polyfuse.kernel(far_apart, target=target, fuse="max", verify=True)
    np.testing.assert_allclose(kernel(x), far_apart(x), rtol=1e-12, atol=1e-12)
    assert "folded" not in _folds(kernel, (x,))["t"]


@st.composite
def stencil_chains(draw):
    """A NumPy chain x -> t -> u -> result through row-shifted slices, each shift 1..5 rows (so
    some intermediates fold to 2..4 rows, some are read too late to fold)."""
    a, b = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    c = draw(st.integers(0, 2))
    src = (f"def chain(x):\n"
           f"    t = 2.0 * x[{a}:, {c}:] - x[:-{a}, :x.shape[1] - {c}]\n"
           f"    u = t[{b}:, :] + 0.5 * t[:-{b}, :]\n"
           f"    return u[1:, :] - x[{a + b + 1}:, :x.shape[1] - {c}] * u[:-1, :]\n")
    rows = draw(st.integers(a + b + 1, a + b + 9))
    return src, rows, draw(st.integers(c + 1, c + 6))


@settings(max_examples=12, deadline=None)
@given(stencil_chains(), st.sampled_from(["python", "cpu"]), st.sampled_from(["smart", "max"]))
def test_folded_intermediates_give_numpys_result(chain, target, fuse):
    from conftest import define

    src, rows, cols = chain
    fn = define(src, "chain")
    x = np.random.default_rng(rows * 31 + cols).random((rows, cols))
    kernel = polyfuse.kernel(fn, target=target, fuse=fuse, verify=True)
    np.testing.assert_allclose(kernel(x), fn(x), rtol=1e-12, atol=1e-12)


def histogram_of_bins(x):
    idx = np.clip((x * 5).astype(np.int64), 0, 4)
    counts = np.zeros(5, dtype=np.int64)
    for i in range(x.shape[0]):
        counts[idx[i]] += 1
    return counts


@pytest.mark.parametrize("fuse", ["smart", "max"])
def test_a_temporary_read_in_a_subscript_contracts_there_too(fuse):
    """Under fuse='max' ``idx`` is contracted into the loop that reads it as ``counts[idx[i]]``;
    the read inside the write's subscript must shrink with it (it was left indexing the dropped
    axis, an InternalError in the LLVM backend)."""
    x = np.random.default_rng(3).random(25) * 1.1
    got = polyfuse.kernel(histogram_of_bins, fuse=fuse)(x)
    np.testing.assert_array_equal(got, histogram_of_bins(x))


@pytest.fixture
def contraction_dependences_checked(monkeypatch):
    """Every compile's dependences after contraction (``dependences_after_contraction``: only
    local arrays' WAR and WAW computed again) compared with all of them computed again under the
    schedule; yields the names of the Scops checked."""
    from polyfuse import compiler
    from polyfuse.analysis.dependences import compute_dependences

    checked: list[str] = []
    fast = compiler.dependences_after_contraction

    def both(scop, kept, schedule):
        ours, full = fast(scop, kept, schedule), compute_dependences(scop, schedule)
        key = [(d.kind, d.array, d.local, d.approximation) for d in ours.items]
        assert key == [(d.kind, d.array, d.local, d.approximation) for d in full.items]
        assert all(a.relation.is_equal(b.relation) for a, b in zip(ours.items, full.items))
        checked.append(scop.name)
        return ours

    monkeypatch.setattr(compiler, "dependences_after_contraction", both)
    return checked


@pytest.mark.parametrize("fuse", ["smart", "max"])
def test_dependences_after_contraction_are_those_computed_again(contraction_dependences_checked, fuse):
    from conftest import define

    from polyfuse.bench.numpy_suite import PROGRAMS

    kernels = [(diffusion, (np.ones((9, 7)), np.ones((9, 7)))), (far_apart, (np.ones((13, 8)),)),
               (PROGRAMS["softmax"].func, PROGRAMS["softmax"].args("test")),
               (define(UNORDERED_CONSUMER, "kern"), (5, np.ones(9), np.ones((9, 9)), np.ones(9)))]
    spec, args = _args("chain3")
    kernels.append((spec.func, args))
    for fn, args in kernels:
        polyfuse.kernel(fn, fuse=fuse, cache=False, target="python").compile(*args)
    assert len(contraction_dependences_checked) >= 3


def test_a_fold_rejected_early_is_one_the_full_check_rejects(monkeypatch):
    """``overwritten_in_its_slot`` (the folds most arrays fail, decided from the failed drop's
    dataflow, also when lower axes were dropped since) only says no where the folded program's own dataflow check says no too, and
    lets a fold that keeps every writer through (the stencil chain's rows)."""
    from polyfuse.schedule import contraction

    seen = []
    early, fold = contraction.overwritten_in_its_slot, contraction._fold_smallest

    def checked_fold(scop, array, axis, reference, schedule, dropped=None):
        def checked(then, array, then_axis, k, last_writers):
            rejected = early(then, array, then_axis, k, last_writers)
            candidate = contraction.fold_axis(scop, array, axis, k)  # the scop of now (then: maybe fewer axes dropped)
            kept = (contraction.same_dataflow(reference, contraction.array_dataflow(candidate, array, schedule))
                    and contraction.ordered_conflicts(candidate, array, schedule))
            seen.append((array, rejected, kept))
            return rejected
        monkeypatch.setattr(contraction, "overwritten_in_its_slot", checked)
        return fold(scop, array, axis, reference, schedule, dropped)

    monkeypatch.setattr(contraction, "_fold_smallest", checked_fold)
    rng = np.random.default_rng(5)
    x = rng.random((13, 8))
    polyfuse.kernel(far_apart, target="python", fuse="max").compile(x)
    polyfuse.kernel(diffusion, target="python", fuse="max").compile(x, rng.random((13, 8)))
    polyfuse.kernel(whole_pass, target="python", fuse="max").compile(x[0])
    polyfuse.kernel(mirrored_rows, target="python", fuse="max").compile(x)
    assert not any(rejected and kept for _, rejected, kept in seen), seen
    assert ("w", True, False) in seen  # whole_pass's w: all of it made before the first read
    # mirrored_rows' row: axis 1's drop failed before axis 0 dropped; its dataflow then decides
    assert ("row", True, False) in seen
    assert any(kept and not rejected for _, rejected, kept in seen), seen  # diffusion's rows fold
