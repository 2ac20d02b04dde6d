"""polyfuse.schedule.fusion: when a parallel loop may be fused into a serial one (rides_along,
chunks_sums, folds_intermediates)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python

import polyfuse

ALTHOUGH = "although the fused loop carries a dependence"
LOSES = "fusing would lose outer parallelism"


def mvt(x1, x2, y1, y2, A):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x1[i] += A[i, j] * y1[j]
    for i in range(A.shape[1]):
        for j in range(A.shape[0]):
            x2[i] += A[j, i] * y2[j]


def mvt_transposed_first(x1, x2, y1, y2, A):
    for i in range(A.shape[1]):
        for j in range(A.shape[0]):
            x2[i] += A[j, i] * y2[j]
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x1[i] += -A[i, j] * y1[j] - y1[j]  # the later loop rides along


def mvt_divides(x1, x2, y1, y2, A):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x1[i] += A[i, j] / y1[j]  # a division: not bandwidth-bound work
    for i in range(A.shape[1]):
        for j in range(A.shape[0]):
            x2[i] += A[j, i] * y2[j]


def two_matrices(x1, x2, y1, y2, A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x1[i] += A[i, j] * y1[j]
    for i in range(B.shape[1]):
        for j in range(B.shape[0]):
            x2[i] += B[j, i] * y1[j]  # shares y1 only: A is not read twice


def update_then_transposed(x1, x2, y1, y2, A):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] += y2[i] * y1[j]  # writes A: fused, the writes stay and parallelism is lost
    for i in range(A.shape[1]):
        for j in range(A.shape[0]):
            x2[i] += A[j, i] * y2[j]


def update_then_plain_sum(x1, x2, y1, y2, A):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] += y2[i] * y1[j]
    for i in range(A.shape[1]):
        for j in range(A.shape[0]):
            x2[i] += A[j, i]  # no product: private sums keep a plain sum's order, so no chunks


def mvt_args(n, m, rng=None):
    rng = rng or np.random.default_rng(0)
    return (rng.random(n), rng.random(m), rng.random(m), rng.random(n), rng.random((n, m)))


def outer_decision(kernel, args):
    decisions = kernel.explain(*args)["fusion"]
    return next(d for d in decisions if d["depth"] == 0)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("n, m", [(7, 7), (5, 9), (9, 5), (12, 3)])
def test_a_parallel_loop_rides_along_when_it_streams_the_shared_matrix(target, n, m):
    args = mvt_args(n, m)
    # blas=False: one fused nest (blas=True also has it in chunks with partial sums of x2,
    # passes.private_sums: the chunks, the adding of the partials and the loop as written)
    k = check_against_python(mvt, args, target=target,
                             kernel=polyfuse.kernel(mvt, target=target, verify=True, blas=False))
    d = outer_decision(k, args)
    assert d["fused"], d["reason"]
    assert ALTHOUGH in d["reason"] and "reads A" in d["reason"]
    assert k.explain(*args).fused_loop_nests() == 1 or n != m  # rectangles leave a rest loop


def test_the_later_loop_may_ride_along():
    args = mvt_args(6, 8)
    k = check_against_python(mvt_transposed_first, args, target="cpu")
    d = outer_decision(k, args)
    assert d["fused"] and "the later loop" in d["reason"], d["reason"]


def test_no_ride_along_for_work_beyond_loads_and_plus_minus_times():
    args = mvt_args(6, 6)
    k = check_against_python(mvt_divides, args)
    d = outer_decision(k, args)
    assert not d["fused"] and LOSES in d["reason"]


def test_no_ride_along_when_the_other_loop_does_not_read_the_big_array():
    rng = np.random.default_rng(1)
    args = (*mvt_args(6, 6, rng), rng.random((6, 6)))
    k = check_against_python(two_matrices, args)
    d = outer_decision(k, args)
    assert not d["fused"] and LOSES in d["reason"]


def test_no_ride_along_when_the_parallel_loop_writes_the_big_array():
    args = mvt_args(6, 6)
    k = check_against_python(update_then_transposed, args)
    d = outer_decision(k, args)
    assert not d["fused"] and LOSES in d["reason"] and "writes A" in d["reason"], d["reason"]


@pytest.mark.parametrize("n, m", [(70, 66), (9, 5)])
def test_a_parallel_loop_writing_the_big_array_fuses_when_the_sums_run_in_chunks(n, m):
    # gemver: A += u v^T, then x += A^T y; cpu with blas=True: the fused row loop carries only x,
    # a sum of products, which passes/private_sums runs in chunks (from 64 rows), so it stays parallel
    args = mvt_args(n, m)
    k = check_against_python(update_then_transposed, args, target="cpu")
    d = outer_decision(k, args)
    assert d["fused"] and ALTHOUGH in d["reason"] and "sums of products x2" in d["reason"], d["reason"]
    assert any(p["applied"] for p in k.explain(*args)["private sums"])


def test_no_chunked_fusion_for_a_plain_sum():
    args = mvt_args(70, 66)
    k = check_against_python(update_then_plain_sum, args, target="cpu")
    d = outer_decision(k, args)
    assert not d["fused"] and LOSES in d["reason"], d["reason"]


def test_no_chunked_fusion_without_blas():
    args = mvt_args(70, 66)
    k = check_against_python(update_then_transposed, args, target="cpu",
                             kernel=polyfuse.kernel(update_then_transposed, verify=True, blas=False))
    d = outer_decision(k, args)
    assert not d["fused"] and "writes A" in d["reason"], d["reason"]


def test_the_knob_turns_it_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_SERIAL_FUSION", "0")
    args = mvt_args(6, 6)
    k = check_against_python(mvt, args)
    d = outer_decision(k, args)
    assert not d["fused"] and LOSES in d["reason"]


def diffusion(inp, coeff):
    lap = 4.0 * inp[1:-1, 1:-1] - (inp[2:, 1:-1] + inp[:-2, 1:-1] + inp[1:-1, 2:] + inp[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    return inp[2:-2, 2:-2] - coeff[2:-2, 2:-2] * (flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])


def smoothed_exp(x):
    e = np.exp(x[1:-1, :])  # exp: compute-bound, worth two threads
    return e[1:, :] + e[:-1, :]


def diffusion_args(rng=None):
    rng = rng or np.random.default_rng(0)
    return rng.random((9, 11)), rng.random((9, 11))


def test_loops_that_exchange_only_local_rows_fuse_and_their_intermediates_fold():
    args = diffusion_args()
    k = polyfuse.kernel(diffusion)
    np.testing.assert_allclose(k(*args), diffusion(*args), rtol=1e-12)
    outer = [d for d in k.explain(*args)["fusion"] if d["depth"] == 0]
    assert outer and all(d["fused"] and ALTHOUGH in d["reason"] and "folds" in d["reason"] for d in outer), outer


def test_inner_loops_stay_parallel_for_the_vectorizer():
    args = diffusion_args()
    inner = [d for d in polyfuse.kernel(diffusion).explain(*args)["fusion"] if d["depth"] == 1]
    assert not any(d["fused"] and "folds" in d["reason"] for d in inner), inner


def test_no_row_fusion_for_work_beyond_loads_and_plus_minus_times():
    x = np.random.default_rng(2).random((8, 5))
    k = polyfuse.kernel(smoothed_exp)
    np.testing.assert_allclose(k(x), smoothed_exp(x), rtol=1e-12)
    d = outer_decision(k, (x,))
    assert not d["fused"] and LOSES in d["reason"], d["reason"]


def test_the_knob_turns_row_fusion_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_SERIAL_FUSION", "0")
    args = diffusion_args()
    d = outer_decision(polyfuse.kernel(diffusion), args)
    assert not d["fused"] and LOSES in d["reason"]


def test_a_merge_that_reverses_a_flow_is_rejected_early_naming_the_pair():
    """conv_bn_relu's two illegal candidates (``Y = 0`` then ``Y += ...``) are rejected by
    ``reverses_a_flow`` without the dataflow comparison, and their reason is text made then (no
    deferred verifier run left for explain() or the disk cache's stored explanation to pay)."""
    import pickle

    from polyfuse.bench import suite

    spec = suite.get("conv_bn_relu")
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    kernel = polyfuse.kernel(spec.func, cache=False)
    decisions = kernel.compile(*args).stages["schedule"].decisions
    early = [d for d in decisions if not d.fused and "would no longer follow" in d.reason]
    assert [(d.first, d.second) for d in early] == [(("S0",), ("S1",)), (("S1",), ("S2",))]
    assert all(type(d.reason) is str for d in decisions)
    assert early[0].reason == "illegal: a read of Y in S1 would no longer follow the write in S0 it reads"
    assert pickle.loads(pickle.dumps(early[1])).reason == early[1].reason
    texts = {(tuple(d["first"]), tuple(d["second"])): d["reason"] for d in kernel.explain(*args)["fusion"]}
    assert texts[("S0",), ("S1",)] == early[0].reason


def test_a_merge_rejected_early_is_one_the_verifier_rejects(monkeypatch):
    """``reverses_a_flow`` is a sufficient test of illegality: on random programs, every merge it
    rejects has problems in the verifier's full check."""
    from conftest import define
    from hypothesis import given, settings
    from program_gen import COMMON, programs

    from polyfuse.analysis.verify import schedule_violations
    from polyfuse.schedule import fusion

    early = fusion.SmartFusion.reverses_a_flow
    seen: list[bool] = []

    def checked(self, prev, node, schedule):
        found = early(self, prev, node, schedule)
        if found:
            assert schedule_violations(self.scop, self.deps, schedule)
        seen.append(found)
        return found

    monkeypatch.setattr(fusion.SmartFusion, "reverses_a_flow", checked)

    @settings(max_examples=25, database=None, **COMMON)
    @given(prog=programs())
    def compile_one(prog):
        fn = define(prog.source, "kern")
        polyfuse.kernel(fn, target="python", cache=False).compile(*prog.make_args(np.random.default_rng(0), 5))

    compile_one()
    assert seen  # (merges were tried)
