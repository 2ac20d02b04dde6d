"""Scheduling: fusion modes, reasons, and the verifier on hand-made illegal schedules."""

from __future__ import annotations

import inspect

import islpy as isl
import numpy as np
import pytest
from conftest import check_against_python, corpus_kernel
from polyfuse.frontend import lift

import polyfuse
from polyfuse.analysis.dependences import compute_dependences
from polyfuse.analysis.verify import schedule_violations
from polyfuse.runtime.signature import argument_of
from polyfuse.schedule.scheduler import choose_schedule


def scop_of(fn, *values):
    names = list(inspect.signature(fn).parameters)
    return lift(fn, tuple(argument_of(n, v) for n, v in zip(names, values)))


def two_maps(n, A, B, C):
    for i in range(n):
        B[i] = A[i] * 2.0
    for i in range(n):
        C[i] = B[i] + 1.0


def shifted(n, A, B, C):
    for i in range(n):
        B[i] = A[i] * 2.0
    for i in range(n):
        C[i] = B[n - 1 - i] + 1.0  # reads in reverse: no common outer loop order fuses both


def args3(n=6):
    return (n, np.arange(float(n)), np.zeros(n), np.zeros(n))


@pytest.mark.parametrize("fuse, nests", [("none", 2), ("smart", 1), ("max", 1)])
def test_fusion_modes_on_producer_consumer(fuse, nests):
    k = polyfuse.kernel(two_maps, target="python", fuse=fuse, verify=True)
    e = k.explain(*args3())
    assert e.fused_loop_nests() == nests
    (d,) = e["fusion"]
    assert d["first"] == ["S0"] or tuple(d["first"]) == ("S0",)
    assert d["fused"] == (nests == 1)
    assert any("RAW on B" in dep for dep in d["dependences"])
    check_against_python(two_maps, args3(), fuse=fuse)


def test_none_keeps_program_order():
    scop = scop_of(two_maps, *args3())
    deps = compute_dependences(scop)
    result = choose_schedule(scop, deps, fuse="none")
    assert result.source == "program order"
    assert result.schedule.get_map().is_equal(scop.schedule.get_map())
    e = polyfuse.kernel(two_maps, target="python", fuse="none").explain(*args3())
    assert e["fusion"][0]["reason"] == "fuse='none' keeps the original loop structure"
    code = e["loop code"]
    assert code.index("S0") < code.index("S1")


@pytest.mark.parametrize("fuse", ["smart", "max"])
def test_unfusable_pair_names_the_blocking_dependence(fuse):
    k = polyfuse.kernel(shifted, target="python", fuse=fuse, verify=True)
    e = k.explain(*args3())
    (d,) = e["fusion"]
    if not d["fused"]:
        assert "RAW on B: S0 -> S1" in d["dependences"]
        assert "B" in d["reason"] or "parallel" in d["reason"], d["reason"]
    check_against_python(shifted, args3(), fuse=fuse)


def test_independent_nests_reason():
    def indep(n, A, B, C, D):
        for i in range(n):
            B[i] = A[i]
        for i in range(n):
            D[i] = C[i]

    k = polyfuse.kernel(indep, target="python", fuse="smart", verify=True)
    e = k.explain(4, np.ones(4), np.zeros(4), np.ones(4), np.zeros(4))
    (d,) = e["fusion"]
    assert d["dependences"] == [] or d["dependences"] == ()
    if not d["fused"]:
        assert "no dependence" in d["reason"] or "no data" in d["reason"], d["reason"]


def test_explain_sections():
    k = polyfuse.kernel(two_maps, target="python", fuse="smart", verify=True)
    e = k.explain(*args3())
    data = e.to_dict()
    for section in ("options", "statements", "dependences", "fusion", "schedule", "parallel loops",
                    "loop code", "compile seconds"):
        assert section in data
        assert f"== {section} ==" in str(e)
    assert all(v >= 0 for v in e["compile seconds"].values())
    assert all(isinstance(loop["parallel"], bool) for loop in e["parallel loops"])
    assert any(loop["parallel"] for loop in e["parallel loops"])  # an elementwise loop is parallel


def test_reduction_loop_is_not_parallel():
    def rowsum(n, A, out):
        for i in range(n):
            for j in range(n):
                out[0] += A[i, j]

    e = polyfuse.kernel(rowsum, target="python").explain(3, np.ones((3, 3)), np.zeros(1))
    assert e["parallel loops"]
    assert not any(loop["parallel"] for loop in e["parallel loops"])


# ---- the verifier ----------------------------------------------------------------------------


def prefix_sum(n, A):
    for i in range(1, n):
        A[i] = A[i - 1] + A[i]


def test_verifier_accepts_program_order():
    scop = scop_of(prefix_sum, 6, np.zeros(6))
    deps = compute_dependences(scop)
    assert schedule_violations(scop, deps, scop.schedule) == []


def test_verifier_flags_reversed_loop_with_carried_raw():
    scop = scop_of(prefix_sum, 6, np.zeros(6))
    deps = compute_dependences(scop)
    reversed_ = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff("[n, A__shape0] -> [{ S0[i] -> [(-i)] }]"))
    # the hand-made schedule really is the reversal (compare by meaning)
    expected = isl.UnionMap("[n, A__shape0] -> { S0[i] -> [-i] }").intersect_domain(scop.domain())
    assert reversed_.get_map().intersect_domain(scop.domain()).is_equal(expected)
    problems = schedule_violations(scop, deps, reversed_)
    assert problems
    assert any("A" in p for p in problems)


def test_verifier_falls_back_to_memory_order_when_isl_dataflow_fails(monkeypatch):
    """isl's exact dataflow fails on some strided programs (found by random programs under
    verify=True, where it became an InternalError): the verifier then requires every two accesses
    of one element to keep their order, which program order does and the reversal does not."""
    import polyfuse.analysis.verify as verify

    def failing(sink, source, schedule):
        raise isl.Error("affine expression involves some of the domain dimensions")

    scop = scop_of(prefix_sum, 6, np.zeros(6))
    deps = compute_dependences(scop)
    monkeypatch.setattr(verify, "exact_flow", failing)
    monkeypatch.setattr(verify, "_ORIGINAL", {})
    assert schedule_violations(scop, deps, scop.schedule) == []
    reversed_ = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff("[n, A__shape0] -> [{ S0[i] -> [(-i)] }]"))
    assert any("cannot compute the dataflow of A" in p for p in schedule_violations(scop, deps, reversed_))


def through_temp(A, B):
    T = np.empty(1)
    for i in range(A.shape[0]):
        T[0] = A[i]
        B[i] = T[0] * 2.0


def test_verifier_accepts_a_schedule_that_keeps_the_dataflow_but_not_the_memory_order():
    """The cheap test (every conflicting pair keeps its order) fails on the reversed loop, since
    T[0] is rewritten by every iteration; the exact dataflow test then decides, and each read of
    T still sees its own iteration's write."""
    import polyfuse.analysis.verify as verify

    scop = scop_of(through_temp, np.arange(5.0), np.zeros(5))
    deps = compute_dependences(scop)
    reversed_ = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(isl.MultiUnionPwAff(
        "[A__shape0, B__shape0] -> [{ S0[i] -> [(-i)]; S1[i] -> [(-i)] }, { S0[i] -> [(0)]; S1[i] -> [(1)] }]"))
    assert not verify._memory_order_kept(scop, "T", scop.reads(), scop.writes(), reversed_.get_map())
    assert schedule_violations(scop, deps, reversed_) == []


def test_verifier_flags_swapped_statements():
    scop = scop_of(two_maps, *args3())
    deps = compute_dependences(scop)
    dom = scop.domain()
    s0 = dom.intersect(isl.UnionSet("[n, A__shape0, B__shape0, C__shape0] -> { S0[i] }"))
    s1 = dom.intersect(isl.UnionSet("[n, A__shape0, B__shape0, C__shape0] -> { S1[i] }"))
    swapped = isl.Schedule.from_domain(s1).sequence(isl.Schedule.from_domain(s0))
    problems = schedule_violations(scop, deps, swapped)
    assert problems and any("B" in p for p in problems)
    # and program order (S0 then S1) is fine
    ordered = isl.Schedule.from_domain(s0).sequence(isl.Schedule.from_domain(s1))
    assert schedule_violations(scop, deps, ordered) == []


def test_verifier_flags_changed_last_writer():
    def twice(n, A):
        for i in range(n):
            A[i] = 1.0
        for i in range(n):
            A[i] = 2.0

    scop = scop_of(twice, 4, np.zeros(4))
    deps = compute_dependences(scop)
    dom = scop.domain()
    s0 = dom.intersect(isl.UnionSet("[n, A__shape0] -> { S0[i] }"))
    s1 = dom.intersect(isl.UnionSet("[n, A__shape0] -> { S1[i] }"))
    swapped = isl.Schedule.from_domain(s1).sequence(isl.Schedule.from_domain(s0))
    assert any("last write" in p for p in schedule_violations(scop, deps, swapped))


def test_verifier_compares_no_dataflow_for_program_order(monkeypatch):
    """Program order (the scop's schedule, or with ``compare_order`` an equal map) compared with
    itself computes no dataflow; a write-after-write dependence that runs backwards in it is
    still found (the dependences are checked, not the order)."""
    import dataclasses

    import polyfuse.analysis.verify as verify

    def twice(n, A):
        for i in range(n):
            A[i] = 1.0
        for i in range(n):
            A[i] = A[i] + 2.0

    def no_dataflow(*args, **kwargs):
        raise AssertionError("dataflow computed")

    scop = scop_of(twice, 4, np.zeros(4))
    deps = compute_dependences(scop)
    monkeypatch.setattr(verify, "exact_flow", no_dataflow)
    monkeypatch.setattr(verify, "_memory_order_kept", no_dataflow)
    assert schedule_violations(scop, deps, scop.schedule) == []
    assert schedule_violations(scop, deps, scop.schedule.copy(), compare_order=True) == []
    broken = dataclasses.replace(deps, items=tuple(dataclasses.replace(d, relation=d.relation.reverse())
                                                   if d.kind == "WAW" else d for d in deps.items))
    assert any("last write to A" in p for p in schedule_violations(scop, broken, scop.schedule))
    with pytest.raises(AssertionError, match="dataflow computed"):  # another schedule object: compared
        schedule_violations(scop, deps, scop.schedule.copy())
    # a set node's map reads as a sequence's, but its parts are unordered: not program order

    def two(A):
        A[0] = 1.0
        A[0] = A[0] + 2.0

    scop = scop_of(two, np.zeros(2))
    parts = [isl.Schedule.from_domain(scop.domain().intersect(isl.UnionSet(f"[A__shape0] -> {{ S{k}[] }}")))
             for k in (0, 1)]
    assert verify.program_order(scop, parts[0].sequence(parts[1]))
    assert parts[0].set(parts[1]).get_map().is_equal(scop.schedule.get_map())
    assert not verify.program_order(scop, parts[0].set(parts[1]))


@pytest.mark.parametrize("fuse", ["none", "smart", "max"])
def test_chosen_schedules_verify(fuse):
    for fn, values in ((prefix_sum, (6, np.zeros(6))), (two_maps, args3()), (shifted, args3())):
        scop = scop_of(fn, *values)
        deps = compute_dependences(scop)
        assert schedule_violations(scop, deps, choose_schedule(scop, deps, fuse=fuse).schedule) == []


# Regressions found by large random-program runs: isl's scheduler left independent parts in a
# ``set`` node, which dataflow checks treat as unordered while code generation picks an order.
SET_NODE_SCALAR = '''def kern(n, A):
    s = 0.0
    for i in range(n):
        s += 1.0
        A[0] = s
    for i in range(n, 0, -3):
        s = 1.0
'''
SET_NODE_CONTRACTION = '''def kern(n, A, M):
    T = np.zeros((n + 4,))
    M[1, 1] = T[0]
    for i in range(n - 1, -1, -1):
        T[i + 1] = A[i]
'''


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("source, args", [
    (SET_NODE_SCALAR, (9, np.zeros(13))),
    (SET_NODE_CONTRACTION, (1, np.arange(1.0, 6.0), np.zeros((5, 5)))),
])
def test_max_fusion_keeps_the_order_it_verified(source, args, target):
    from conftest import check_against_python, define

    check_against_python(define(source, "kern"), args, target=target, fuse="max")


# fe41's corpus kernel: a 256-entry table loop, then a loop over the data reading all of it (isl's
# scheduler ran for minutes on its dependences under fuse="max")
crc32_table_driven = corpus_kernel("batch_fe41", "crc32_table_driven")


def test_max_fusion_skips_isl_on_large_constant_bounds():
    data = np.arange(7, dtype=np.uint8)
    k = polyfuse.kernel(crc32_table_driven, target="python", fuse="max")
    assert k(data) == crc32_table_driven(data)
    schedule = k.explain(data).to_dict()["schedule"]
    assert schedule["source"] == "program order"
    assert any("constant 255" in note for note in schedule["notes"])
