"""Checks that a transformed schedule computes what the original one does.

The test is semantic, not structural: under the new schedule every read must see the same last
writer as in program order (isl dataflow, per array), reads of input values must still see no
writer, and the last write to every user-visible array element must stay last.  Together these
mean each statement instance computes the same value and the arrays end up the same.
"""

from __future__ import annotations

import islpy as isl

from polyfuse.dependences import Dependences, flow, on_array
from polyfuse.scop import Scop, isl_name


def schedule_violations(scop: Scop, deps: Dependences, schedule: isl.Schedule) -> list[str]:
    """Human-readable descriptions of what ``schedule`` breaks (empty when it is legal)."""
    problems = []
    reads, writes = scop.reads(), scop.writes()
    original, candidate = scop.schedule, schedule
    order = candidate.get_map()
    for info in scop.arrays:
        name = isl_name(info.name)
        r, w = on_array(reads, name), on_array(writes, name)
        if w.is_empty() or r.is_empty():
            continue
        try:
            before = flow(r, w, original, may=False)
            after = flow(r, w, candidate, may=False)
        except isl.Error:
            if not _memory_order_kept(r, w, original, order):
                problems.append(f"isl cannot compute the dataflow of {info.name}, and two accesses of one of "
                                "its elements change order")
            continue
        if not before.get_must_dependence().is_equal(after.get_must_dependence()):
            problems.append(f"a read of {info.name} sees a different writer")
        if not before.get_must_no_source().is_equal(after.get_must_no_source()):
            problems.append(f"a read of an input value of {info.name} now follows a write")
    for dep in deps.items:
        if dep.kind == "WAW" and not dep.local and not _respects(dep.relation, order):
            problems.append(f"the last write to {dep.array} changes")
    return problems


def _memory_order_kept(reads: isl.UnionMap, writes: isl.UnionMap, original: isl.Schedule,
                       order: isl.UnionMap) -> bool:
    """Every pair of accesses to one element (one a write) keeps its order: enough for legality,
    not necessary.  The fallback when isl's exact dataflow fails on an array (strided loops with
    modulo subscripts: "affine expression involves some of the domain dimensions")."""
    pairs = (flow(reads, writes, original, may=True).get_may_dependence()
             .union(flow(writes, reads, original, may=True).get_may_dependence())
             .union(flow(writes, writes, original, may=True).get_may_dependence()))
    return _respects(pairs, order)


def _respects(relation: isl.UnionMap, order: isl.UnionMap) -> bool:
    """Is every source scheduled strictly before its sink?"""
    times = relation.apply_domain(order).apply_range(order)
    ok = []

    def check(delta: isl.Set) -> None:
        n = delta.dim(isl.dim_type.set)
        ok.append(delta.intersect(_lex_nonpositive(n).align_params(delta.get_space())).is_empty())

    times.deltas().foreach_set(check)
    return all(ok)


def _lex_nonpositive(n: int) -> isl.Set:
    names = [f"d{i}" for i in range(n)]
    cases = [" and ".join([f"{x} = 0" for x in names[:k]] + [f"{names[k]} < 0"]) for k in range(n)]
    cases.append(" and ".join(f"{x} = 0" for x in names) or "true")
    return isl.Set(f"{{ [{', '.join(names)}] : {' or '.join(f'({c})' for c in cases)} }}")
