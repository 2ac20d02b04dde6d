"""Checks that a transformed schedule computes what the original one does.

The test is semantic, not structural: under the new schedule every read must see the same last
writer as in program order (isl dataflow, per array), reads of input values must still see no
writer, and the last write to every user-visible array element must stay last.  Together these
mean each statement instance computes the same value and the arrays end up the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import islpy as isl

from polyfuse.analysis.dependences import (
    Dependences,
    ExactFlow,
    exact_flow,
    memory_based,
    on_array,
    runs_before,
    strict_order,
)
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.scop import Scop, isl_name


def schedule_violations(scop: Scop, deps: Dependences, schedule: isl.Schedule, *,
                        exact: bool = True, first: bool = False, compare_order: bool = False) -> list[str]:
    """Human-readable descriptions of what ``schedule`` breaks (empty when it is legal).
    ``exact=False``: where the cheap sufficient tests (every conflicting pair of accesses keeps
    its order) fail, report that instead of comparing the candidate's exact dataflow with the
    program's: for candidates meant to keep the memory order (pivot blocks), whose dataflow isl
    computes slowly and without counting all of it (fz27: 42 s of ``compute_flow`` on a pivot
    nest tiled by 5, under the operation budget).  ``first``: stop at the first array whose
    check finds a problem (a candidate's refusal needs one; the arrays after it cost as much to
    check again: heat-3d's refused loop order checked B's dataflow for 41 ms after A's had
    failed).  The scheduler's candidates ask so (``options.first_violation``); the final
    verification lists them all.

    A ``schedule`` that is the scop's own program order (``program_order``) would compare program
    order with itself: every read's writer, every read of an input value and every element's
    last write are the program's by construction, so no dataflow is computed (the chain pairs,
    isl's exact dataflow of the writes, the candidate's own flow: 11% of a ``fuse="none"``
    compile of the corpus, and all of the final check of a smart schedule that changed nothing).
    What is not a tautology stays: that the dependences ``deps`` holds (computed, or rewritten
    by the stages before the schedule) run forward in that order (their write-after-write
    pairs; every one with ``exact=False``).  ``compare_order``: compare the two schedules' maps
    for that (the program's map, 0.4-1.7 ms of isl on the suite kernels: the final verification
    asks; a candidate, which is seldom the program's order, is taken for it only where it is the
    scop's schedule itself)."""
    problems: list[str] = []
    reads, writes = scop.reads(), scop.writes()
    candidate = schedule
    order = candidate.get_map()
    if not exact:  # a dependence the candidate runs backwards refuses it at once (the cheap way out)
        backwards = [f"a {dep.kind} dependence on {dep.array} runs backwards" for dep in deps.items
                     if not dep.local and not runs_before(dep.relation, order)]
        if backwards:
            return backwards
    if program_order(scop, schedule, order, compare=compare_order):  # no dataflow to compare
        return _last_writes_moved(deps, order, problems, first=first)
    total: list[bool] = []  # (``_total_order_of(scop, order)``, asked once)
    for info in scop.arrays:
        if first and problems:
            return problems
        name = isl_name(info.name)
        r, w = on_array(reads, name), on_array(writes, name)
        if w.is_empty() or r.is_empty():
            continue
        if _chains_kept_within_budget(scop, info.name, r, w, order, total):
            continue  # every conflicting pair keeps its order: each read sees the same writer
        if _memory_order_kept_within_budget(scop, info.name, r, w, order):
            continue  # (the same, pair by pair)
        if not exact:
            problems.append(f"two accesses of one element of {info.name} change order")
            continue
        try:
            if deps.approximated(info.name):
                raise BudgetExceeded("the dependence analysis gave up on this array's exact dataflow")
            with bounded(scop.context.get_ctx()):
                before = _original_flow(scop, info.name, r, w)
                after = exact_flow(r, w, candidate, checked=False)
                if not (before.must.is_equal(after.must) and before.no_source.is_equal(after.no_source)):
                    # a difference is only believed once isl's answer for the candidate passes the
                    # same per-element check as the original's (isl's must-dataflow can be wrong
                    # with modulo subscripts: it once rejected the program's own order)
                    after = exact_flow(r, w, candidate, checked=True)
        except BudgetExceeded:  # isl failed or ran out of budget: the stricter memory order
            if not _memory_order_kept(scop, info.name, r, w, order):
                problems.append(f"isl cannot compute the dataflow of {info.name} within its budget, and two "
                                "accesses of one of its elements change order")
            continue
        if not before.must.is_equal(after.must):
            problems.append(f"a read of {info.name} sees a different writer")
        if not before.no_source.is_equal(after.no_source):
            problems.append(f"a read of an input value of {info.name} now follows a write")
    return _last_writes_moved(deps, order, problems, first=first)


def program_order(scop: Scop, schedule: isl.Schedule, order: isl.UnionMap | None = None, *,
                  compare: bool = True) -> bool:
    """Does ``schedule`` (whose map is ``order``, where the caller has it) run the instances of
    ``scop`` in its program order?  Where it is the scop's schedule itself (``fuse="none"``;
    ``"max"`` where isl's scheduler is not tried), or, with ``compare``, where its map (instance
    -> time) equals the program's: a smart schedule that fused, reordered and tiled nothing (202
    of the 232 numba_* corpus kernels on cpu).  Not where the tree has a ``set`` node: its map
    orders the children as a sequence would, but they are unordered to isl's dataflow and to code
    generation (``isl_scheduler.totally_ordered``), so an equal map does not say how it runs."""
    if schedule is scop.schedule:
        return True
    if not compare or _has_set_node(schedule):
        return False
    return (schedule.get_map() if order is None else order).is_equal(scop.schedule.get_map())


def _has_set_node(schedule: isl.Schedule) -> bool:
    found: list[bool] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.set:
            found.append(True)
        return not found  # (no deeper once one is found)

    schedule.get_root().foreach_descendant_top_down(visit)
    return bool(found)


def _last_writes_moved(deps: Dependences, order: isl.UnionMap, problems: list[str], *,
                       first: bool) -> list[str]:
    """``problems`` and, after them, each array whose write-after-write dependences ``order``
    runs backwards (the last write to one of its elements changes); with ``first``, only up to
    the first problem."""
    for dep in deps.items:
        if first and problems:
            return problems
        if dep.kind == "WAW" and not dep.local and not runs_before(dep.relation, order):
            problems.append(f"the last write to {dep.array} changes")
    return problems


T = TypeVar("T")

#: The program-order dataflow of (scop, array), which every verification of a candidate schedule
#: of that scop compares with (the smart scheduler verifies dozens of candidates per kernel).
_ORIGINAL: dict[tuple[int, str], tuple[Scop, ExactFlow]] = {}


def _per_scop(table: dict, key, scop: Scop, limit: int, compute: Callable[[], T], *,
              keep_failure: bool = False) -> T:
    """``compute()``'s value for ``key`` of ``scop``, computed once while its entry stands (the
    entry keeps the Scop alive, so its id is not reused meanwhile); the table is emptied past
    ``limit`` entries.  With ``keep_failure``, None stands in the entry while ``compute`` runs:
    a computation that raises (isl giving up) is not tried again."""
    known = table.get(key)
    if known is not None and known[0] is scop:
        return known[1]
    if len(table) > limit:
        table.clear()
    if keep_failure:
        table[key] = (scop, None)
    value = compute()
    table[key] = (scop, value)
    return value


def _original_flow(scop: Scop, array: str, reads: isl.UnionMap, writes: isl.UnionMap) -> ExactFlow:
    return _per_scop(_ORIGINAL, (id(scop), array), scop, 256, lambda: exact_flow(reads, writes, scop.schedule))


def _memory_order_kept(scop: Scop, array: str, reads: isl.UnionMap, writes: isl.UnionMap,
                       order: isl.UnionMap) -> bool:
    """Every pair of accesses to one element (one a write) keeps its order: enough for legality,
    not necessary.  The fallback when isl's exact dataflow fails on an array (strided loops with
    modulo subscripts: "affine expression involves some of the domain dimensions")."""
    return runs_before(_memory_pairs(scop, array, reads, writes), order)


def _memory_order_kept_within_budget(scop: Scop, array: str, reads: isl.UnionMap, writes: isl.UnionMap,
                                     order: isl.UnionMap) -> bool:
    """The cheap sufficient test first: the program-order pairs are computed once per scop and
    array, and a candidate costs one ``runs_before``, while comparing its exact dataflow with the
    original's costs isl seconds on a time-tiled stencil (floors in the schedule; heat-3d's
    ``is_equal`` took 1.6 s).  False when it fails or isl gives up: the exact test decides."""
    try:
        with bounded(scop.context.get_ctx()):
            return _memory_order_kept(scop, array, reads, writes, order)
    except BudgetExceeded:
        return False


def _chains_kept_within_budget(scop: Scop, array: str, reads: isl.UnionMap, writes: isl.UnionMap,
                               order: isl.UnionMap, total: list[bool]) -> bool:
    """``_memory_order_kept``, decided on far fewer pairs (``_chain_pairs``): each array's
    program-order writer of every read, next writer of every write, and first writer after every
    read, instead of every two accesses of one element.  heat-3d's time-tiled candidate: 0.36 ->
    0.1 s.  False when it fails, isl gives up, or ``order`` is not one schedule space covering
    every instance of the program (the chain argument needs one total order of all of them):
    the memory-order test decides then."""
    try:
        with bounded(scop.context.get_ctx()):
            pairs = _chain_pairs(scop, array, reads, writes)
            if pairs is None:
                return False
            if not total:
                total.append(_total_order_of(scop, order))
            if not total[0]:
                return False
            return runs_before(pairs, order)
    except BudgetExceeded:
        return False


#: (scop, array) -> its chain pairs (None: isl gave up, or its dependences are memory-based).
_CHAINS: dict[tuple[int, str], tuple[Scop, isl.UnionMap | None]] = {}


def _chain_pairs(scop: Scop, array: str, reads: isl.UnionMap, writes: isl.UnionMap) -> isl.UnionMap | None:
    """Pairs of instances, in program order, whose order under a schedule implies that of every
    two accesses (one a write) of one element of ``array``:

    - RAW: the last writer of each element a read reads -> the read;
    - WAW: the last writer of each element a write writes -> the write;
    - WAR: a read -> the next writer of its writer (RAW^-1 then WAW), and a read of an input
      value -> the first writer of that element (WAW's writes without a source); less the
      pairs of one instance with itself, whose order no schedule changes.

    Why it suffices: take the accesses of one element in program order.  Two writes are joined
    by a chain of WAW pairs; a write and a later read by WAW pairs up to the read's last writer,
    then its RAW pair; a read and a later write by its WAR pair to the first write after it,
    then WAW pairs.  A schedule under which every pair's first instance runs strictly before the
    second (one lexicographic order, so it is transitive) keeps every such chain, so every two
    accesses keep their order.  Each relation comes from ``exact_flow(checked=True)``, which
    checks isl's writers and its reads without writers against the memory-based pairs.  A
    statement instance writing several elements only adds pairs (a stricter test)."""
    # (isl giving up leaves None: the memory-order test decides)
    return _per_scop(_CHAINS, (id(scop), array), scop, 256, lambda: _chains(scop, array, reads, writes),
                     keep_failure=True)


def _chains(scop: Scop, array: str, reads: isl.UnionMap, writes: isl.UnionMap) -> isl.UnionMap:
    raw = _original_flow(scop, array, reads, writes)
    waw = exact_flow(writes, writes, scop.schedule)
    war = raw.must.reverse().apply_range(waw.must)
    first = raw.no_source.apply_range(waw.no_source.reverse())  # input-value read -> first writer
    # (only these can pair an instance with itself; and isl's subtraction simplifies its operand's
    # pieces in place, which must not reach the relations the scop's Dependences hold: their text
    # is explain()'s, and isl's scheduler reads them)
    return raw.must.union(waw.must).union(war.union(first).subtract(scop.schedule.get_domain().identity()))


def _total_order_of(scop: Scop, order: isl.UnionMap) -> bool:
    """Does ``order`` (a schedule's map) give every instance of the program a time, all in
    one space?"""
    spaces = {m.get_space().range().to_str() for m in maps_of(order)}
    return len(spaces) == 1 and scop.schedule.get_domain().is_subset(order.domain())


#: The program-order memory-based pairs of (scop, array), for candidates checked in memory order.
_MEMORY: dict[tuple[int, str], tuple[Scop, isl.UnionMap]] = {}
#: The strict program order of a scop's instances: the same for every array of it (a program with
#: many arrays asked for it once per array, 0.44 s of a 1.2 s compile).
_ORDER: dict[int, tuple[Scop, isl.UnionMap | None]] = {}


def _program_order(scop: Scop) -> isl.UnionMap | None:
    return _per_scop(_ORDER, id(scop), scop, 64, lambda: strict_order(scop.schedule))


def _memory_pairs(scop: Scop, array: str, reads: isl.UnionMap, writes: isl.UnionMap) -> isl.UnionMap:
    return _per_scop(_MEMORY, (id(scop), array), scop, 256, lambda: _memory_pairs_of(scop, reads, writes))


def _memory_pairs_of(scop: Scop, reads: isl.UnionMap, writes: isl.UnionMap) -> isl.UnionMap:
    original = scop.schedule
    order = _program_order(scop)
    return (memory_based(reads, writes, original, order).union(memory_based(writes, reads, original, order))
            .union(memory_based(writes, writes, original, order)))
