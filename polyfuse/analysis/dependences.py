"""Dependence analysis with isl's dataflow engine (``UnionAccessInfo.compute_flow``).

Dependences are computed per array so that every relation can be reported with the array that
causes it.  Flow (RAW) dependences are value-based (last writer); anti (WAR) and output (WAW)
dependences are memory-based with writes as kills, which is enough for validity by transitivity.
Kernel-local arrays and scalars are kept apart: their false dependences can be relaxed when the
schedule keeps each live range intact (PPCG's live-range reordering).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

import islpy as isl

from polyfuse.errors import UnsupportedError
from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, Meter, current_memo, metered, per_compile
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.scop import Scop, isl_name


@dataclass(frozen=True)
class Dependence:
    """All dependences of one kind on one array, as a relation between statement instances."""

    kind: str  # "RAW" | "WAR" | "WAW"
    array: str
    local: bool
    relation: isl.UnionMap = field(compare=False, repr=False)
    #: "" when exact (value-based RAW, killed WAR); else why it is memory-based (a superset)
    approximation: str = ""

    def statement_pairs(self) -> list[tuple[str, str]]:
        pairs: list[tuple[str, str]] = []
        self.relation.foreach_map(
            lambda m: pairs.append((m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)))
        )
        return sorted(set(pairs))


@dataclass(frozen=True)
class Dependences:
    items: tuple[Dependence, ...]
    empty: isl.UnionMap = field(compare=False, repr=False)

    def union(self, kinds: tuple[str, ...] = ("RAW", "WAR", "WAW"), local: bool | None = None) -> isl.UnionMap:
        """Union of the relations of the given kinds (and locality, when not None)."""
        result = self.empty
        for dep in self.items:
            if dep.kind in kinds and (local is None or dep.local == local):
                result = result.union(dep.relation)
        return result

    def approximated(self, array: str) -> bool:
        """Is ``array``'s flow memory-based (isl's exact dataflow failed or ran out of budget)?
        Then checks of its program-order dataflow give up at once (they would too, slowly)."""
        return any(d.array == array and d.kind == "RAW" and d.approximation for d in self.items)

    def validity(self) -> isl.UnionMap:
        """What every schedule must respect, with local false dependences left out."""
        return self.union(("RAW",)).union(self.union(("WAR", "WAW"), local=False))

    def local_false(self) -> isl.UnionMap:
        return self.union(("WAR", "WAW"), local=True)

    def local_flow(self) -> isl.UnionMap:
        return self.union(("RAW",), local=True)

    def between(self, first: set[str], second: set[str]) -> list[tuple[Dependence, str, str]]:
        """Dependences from a statement in ``first`` to one in ``second``."""
        found = []
        for dep in self.items:
            for src, dst in dep.statement_pairs():
                if src in first and dst in second:
                    found.append((dep, src, dst))
        return found


def on_array(accesses: isl.UnionMap, array: str) -> isl.UnionMap:
    """The accesses of ``array`` (its maps, picked by their range's name: no isl set is parsed,
    which cost 25 times as much, 80 ms of conv_bn_relu's compile at 324 calls)."""
    result = isl.UnionMap.empty(accesses.get_space())
    for part in maps_of(accesses):
        if part.get_tuple_name(isl.dim_type.out) == array:
            result = result.union(isl.UnionMap.from_map(part))
    return result


def flow(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule, *, may: bool,
         kill: isl.UnionMap | None = None) -> isl.UnionFlow:
    info = isl.UnionAccessInfo.from_sink(sink)
    info = info.set_may_source(source) if may else info.set_must_source(source)
    if kill is not None:
        info = info.set_kill(kill)
    return info.set_schedule(schedule).compute_flow()


@dataclass(frozen=True)
class ExactFlow:
    """Value-based dataflow: each read's last writer, and the reads no write reaches."""

    must: isl.UnionMap  # source instance -> sink instance
    no_source: isl.UnionMap  # sink instance -> element, for reads of input values


def exact_flow(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule, *,
               checked: bool = True) -> ExactFlow:
    """``_exact_flow``, remembered for the rest of the compile (``per_compile``) by the text of
    its arguments (never by the isl objects: equal ones can hash differently).  The same question
    comes back within one compile: the verifier's program-order dataflow is the one
    compute_dependences computed, and contraction asks again for the schedule the verifier
    checked (heat-3d: 0.6 s of its 1.5 s of dataflow were repeats).  Not across compiles: a
    compile that found its dataflow computed by an earlier one counted fewer isl operations,
    and made other choices near its budget (jacobi-2d under ``POLYFUSE_ISL_BUDGET=13000``).

    The schedule is first restricted to the instances of ``sink`` and ``source`` (``accessing``):
    the dataflow among them depends only on their own order, and the question then reads the
    same when a rewrite changed only statements that do not touch the array (attention_rows: 21
    of 54 questions asked again by lift_accumulated_products' rounds; isl's work is smaller too)."""
    schedule = accessing(schedule, sink, source)
    key = _exact_flow_key(sink, source, schedule, checked)
    return per_compile(key, lambda: _exact_flow(sink, source, schedule, checked=checked))


def known_exact_flow(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule) -> ExactFlow | None:
    """``exact_flow(sink, source, schedule)``'s answer where this compile has it already (the
    dependence analysis asked it within its budget), else None: nothing is computed, so no
    later stage finds more in the compile's memo than it did."""
    memo = current_memo()
    if memo is None:
        return None
    return memo.get(_exact_flow_key(sink, source, accessing(schedule, sink, source), True))


def _exact_flow_key(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule, checked: bool) -> tuple:
    return ("exact flow", sink.to_str(), source.to_str(), schedule.to_str(), checked)


def accessing(schedule: isl.Schedule, *accesses: isl.UnionMap) -> isl.Schedule:
    """``schedule`` on the instances that ``accesses`` (instance -> element) hold only."""
    instances = accesses[0].domain()
    for access in accesses[1:]:
        instances = instances.union(access.domain())
    return schedule.intersect_domain(instances)


def killed_flow(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule,
                kill: isl.UnionMap) -> isl.UnionMap:
    """isl's may-dataflow from ``source`` to ``sink`` with the kills ``kill`` (the WAR relation
    of ``compute_dependences``), on the instances of the three only and remembered for the rest
    of the compile by the text of its arguments, as ``exact_flow``."""
    schedule = accessing(schedule, sink, source, kill)
    key = ("killed flow", sink.to_str(), source.to_str(), kill.to_str(), schedule.to_str())
    return per_compile(key, lambda: flow(sink, source, schedule, may=True, kill=kill).get_may_dependence())


def _exact_flow(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule, *,
                checked: bool = True) -> ExactFlow:
    """isl's value-based dataflow (every source a must-source), checked against the memory-based
    one (``checked``); raises isl.Error when they disagree.

    isl's must-source analysis gave a wrong answer on a random program with modulo subscripts in
    a negative-step loop (the last writer of ``T[3]`` was an early init, although a later
    ``T[i % 4] -= ...`` writes it): a schedule that broke the real dependence then passed both the
    scheduler and the verifier.  A correct answer names, for every element a read reads, the last
    earlier write of it, so every other earlier write of that element runs before it.  The sinks
    are tagged with the element (``[t -> e]``) so that a statement reading several elements is
    checked per element.  Callers treat the error like isl's own failures (memory-based
    dependences, no contraction, memory-order verification).

    The check costs about three plain analyses (heat-3d's time-tiled candidates: 4 s), so the
    verifier and contraction run it on program order only, where every later comparison starts;
    ``checked=False`` is the plain analysis for candidate schedules."""
    if not checked:
        plain = flow(sink, source, schedule, may=False)
        return ExactFlow(plain.get_must_dependence(), plain.get_must_no_source())
    to_instance = sink.domain_map()  # [t -> e] -> t
    timed = schedule.get_map()
    # (the times of the tagged reads and of the writes: the analysis's order, and _earlier_writes')
    read_times, write_times = to_instance.apply_range(timed), timed.intersect_domain(source.domain())
    order = read_times.union(write_times)
    to_element = sink.range_map()  # [t -> e] -> e

    def tagged(may: bool) -> isl.UnionFlow:
        info = isl.UnionAccessInfo.from_sink(to_element)
        info = info.set_may_source(source) if may else info.set_must_source(source)
        return info.set_schedule_map(order).compute_flow()

    exact = tagged(may=False)
    must = exact.get_must_dependence()  # s -> [t -> e]
    every = _earlier_writes(source, to_element, read_times, write_times, timed)
    if every is None:  # (several schedule spaces: isl's may-dataflow, which is the same relation)
        every = tagged(may=True).get_may_dependence()
    if not every.range().is_subset(must.range()):
        raise isl.Error("isl's exact dataflow gives no writer to a read that has one")
    others = every.apply_range(must.reverse()).subtract(source.domain().identity())
    if not runs_before_subset(others, timed):
        raise isl.Error("isl's exact dataflow names a writer that is not the last (checked against the memory-based one)")
    # the reads of input values are exactly those no earlier write touches (the verifier's
    # dependence-chain test relies on them as it does on the writers: polyfuse.analysis.verify)
    no_source = exact.get_must_no_source().domain()  # [t -> e]
    if not no_source.is_equal(sink.wrap().subtract(every.range())):
        raise isl.Error("isl's exact dataflow names reads of input values that are not (checked against the memory-based one)")
    return ExactFlow(must.apply_range(to_instance), no_source.unwrap())


def _earlier_writes(source: isl.UnionMap, to_element: isl.UnionMap, read_times: isl.UnionMap,
                    write_times: isl.UnionMap, timed: isl.UnionMap) -> isl.UnionMap | None:
    """``s -> [t -> e]``: every ``source`` instance ``s`` that touches the element ``e`` the sink
    instance ``t`` reads (``to_element``: ``[t -> e] -> e``) and runs strictly before it under
    ``timed`` (``read_times``: ``[t -> e]`` -> the time of ``t``; ``write_times``: ``timed`` on
    the writes; None when ``timed`` has several spaces).  isl's may-dataflow without kills is
    this relation (equal on every call of the suite's compiles); built directly it costs a third
    less (conv_bn_relu ~40 ms), and the check of the must-dataflow no longer rests on isl's
    dataflow engine alone."""
    if len({m.get_space().range().to_str() for m in maps_of(timed)}) != 1:
        return None
    before = write_times.lex_lt_union_map(read_times)
    return source.apply_range(to_element.reverse()).intersect(before)


def runs_before_subset(pairs: isl.UnionMap, timed: isl.UnionMap) -> bool:
    """``runs_before(pairs, timed)``, asked as one subset test of ``timed``'s strict order when
    ``timed`` has one schedule space (the pairs whose two instances it times; else
    ``runs_before``).  The exact dataflow's check composes with program order or a candidate
    schedule of the instances of one array, whose strict order isl builds in milliseconds, where
    ``runs_before`` composed every basic piece of ``pairs`` with its statements' times: the check's
    largest part (conv_bn_relu's WAW of the contracted ``Y``: 69 pieces, ~180 ms -> ~5 ms; over
    its 8 checks 285 -> 20 ms, attention_rows' 33: 112 -> 23).  Not for the verifier and fusion,
    which ask with whole schedules (time tiles) and find most pieces' deltas already computed:
    there this is slower (correlation 33 -> 500 ms, fdtd-2d 65 -> 184; docs/performance.md)."""
    if len({m.get_space().range().to_str() for m in maps_of(timed)}) != 1:
        return runs_before(pairs, timed)
    timed_instances = timed.domain()
    pairs = pairs.intersect_domain(timed_instances).intersect_range(timed_instances)
    return pairs.is_subset(timed.lex_lt_union_map(timed))


def runs_before(pairs: isl.UnionMap, order: isl.UnionMap) -> bool:
    """Does the first instance of every pair run strictly before the second under ``order``?"""
    for delta in piece_deltas(pairs, order):
        n = delta.dim(isl.dim_type.set)
        if not delta.intersect(_lex_nonpositive(n).align_params(delta.get_space())).is_empty():
            return False
    return True


def piece_deltas(pairs: isl.UnionMap, times: isl.UnionMap) -> Iterator[isl.Set]:
    """``times(second) - times(first)`` for the pairs of ``pairs`` (instance -> instance), one
    basic piece of ``pairs`` and one statement's ``times`` on each side at a time.

    Together they are the deltas of ``pairs.apply_domain(times).apply_range(times)`` (pairs with
    an instance outside ``times``' domain drop out, as there), but isl's composition with a
    time-tiled schedule (floors, many pieces) grows with every piece it holds at once, and a
    caller looking for one offending pair stops at the first: fdtd-2d's 29 loop checks in
    astgen took 0.47 s composed whole, 0.10 s piece by piece.

    Each piece's deltas are remembered for the rest of the compile by the text of the piece and
    of the two statements' times (``per_compile``): the verifier, the scheduler's passes and
    astgen compose the same dependence pieces with the same times again (a third of the
    compositions of fdtd-2d, heat-3d and conv_bn_relu's compiles, half of cholesky's)."""
    by_statement: dict[tuple[str, int], list[tuple[isl.Map, str]]] = {}
    for part in maps_of(times):
        by_statement.setdefault(_statement_key(part, isl.dim_type.in_), []).append((part, part.to_str()))
    for pair in maps_of(pairs):
        sources = by_statement.get(_statement_key(pair, isl.dim_type.in_), [])
        sinks = by_statement.get(_statement_key(pair, isl.dim_type.out), [])
        if not sources or not sinks:
            continue
        for piece in pair.get_basic_maps():
            text = piece.to_str()
            for source, source_text in sources:
                for sink, sink_text in sinks:
                    if source.get_space().range().is_equal(sink.get_space().range()):
                        yield per_compile(("deltas", text, source_text, sink_text),
                                          functools.partial(_deltas, piece, source, sink))


def _deltas(piece: isl.BasicMap, source: isl.Map, sink: isl.Map) -> isl.Set:
    return isl.Map.from_basic_map(piece).apply_domain(source).apply_range(sink).deltas()


def _statement_key(relation: isl.Map, side: isl.dim_type) -> tuple[str, int]:
    return relation.get_tuple_name(side), relation.dim(side)


def _lex_nonpositive(n: int) -> isl.Set:
    """{ d : d <=lex 0 } in n dimensions (parsed once per n and compile: isl takes milliseconds to
    build its disjoint form, and the verifier asks for it per candidate and array)."""
    return per_compile(("lex nonpositive", n), lambda: _make_lex_nonpositive(n))


def _make_lex_nonpositive(n: int) -> isl.Set:
    names = [f"d{i}" for i in range(n)]
    cases = [" and ".join([f"{x} = 0" for x in names[:k]] + [f"{names[k]} < 0"]) for k in range(n)]
    cases.append(" and ".join(f"{x} = 0" for x in names) or "true")
    return isl.Set(f"{{ [{', '.join(names)}] : {' or '.join(f'({c})' for c in cases)} }}")


OVER_BUDGET = "memory-based: isl's exact dataflow failed or exceeded the analysis's operation budget"


def _relation(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule, meter: Meter, *,
              must: bool, kill: isl.UnionMap | None = None) -> tuple[isl.UnionMap, str]:
    """Dependences from ``source`` to ``sink``: value-based (``must``) or killed by ``kill``, and
    "" -- or, when the memory-based superset was used instead, why.

    isl fails on some programs of strided loops with modulo subscripts ("affine expression
    involves some of the domain dimensions", isl_domain_factor_templ.c) in the must-source and
    kill analysis, and on programs with many-piece domains the exact analysis runs for minutes.
    So it spends from the analysis's operation budget (``meter``); when it fails or the budget
    is spent, every earlier access of the same element counts (memory-based dependences): a
    superset, so every decision made from them stays safe.  Later stages stay legal on their
    own: contraction and the verifier rerun the exact analysis under a budget and keep program
    order, or every conflicting pair's order, when it gives up."""
    try:
        with meter.exact():
            if must:
                return exact_flow(sink, source, schedule).must, ""
            assert kill is not None
            return killed_flow(sink, source, schedule, kill), ""
    except BudgetExceeded:
        with meter.fallback():
            return memory_based(sink, source, schedule, meter.shared("order", lambda: strict_order(schedule))), OVER_BUDGET


def memory_based(sink: isl.UnionMap, source: isl.UnionMap, schedule: isl.Schedule,
                 order: isl.UnionMap | None = None) -> isl.UnionMap:
    """Memory-based dependences: every ``source`` instance that touches an element ``sink``
    touches later (source instance -> sink instance).

    The same relation as isl's may-dataflow without kills, built directly (element pairs, then
    ``order``: ``strict_order(schedule)``, passed in when several relations share it): on
    many-piece domains isl's dataflow took 7 s where this takes 0.3.  Without one schedule
    space (no ``order``) isl's dataflow computes it."""
    order = strict_order(schedule) if order is None else order
    if order is None:
        return flow(sink, source, schedule, may=True).get_may_dependence()
    return source.apply_range(sink.reverse()).intersect(order)


def strict_order(schedule: isl.Schedule) -> isl.UnionMap | None:
    """Instance -> every instance that runs after it (None when the schedule has several spaces);
    remembered for the rest of the compile by the schedule's text (``per_compile``, as
    ``exact_flow``): the dependence analysis's memory-based fallback and the verifier ask for the
    same program order (numpy_np21's f32_rows: 0.19 s each)."""
    return per_compile(("strict order", schedule.to_str()), lambda: _strict_order(schedule))


def _strict_order(schedule: isl.Schedule) -> isl.UnionMap | None:
    timed = schedule.get_map()
    if len({m.get_space().range().to_str() for m in maps_of(timed)}) != 1:
        return None
    return timed.lex_lt_union_map(timed)


def compute_dependences(scop: Scop, schedule: isl.Schedule | None = None) -> Dependences:
    """RAW, WAR and WAW dependences of ``scop`` under ``schedule`` (default: program order).

    The exact analyses of all arrays share one isl operation budget (``options.isl_operations``),
    so the stage is bounded whatever the program; past it, the rest are memory-based."""
    return _dependences(scop, schedule if schedule is not None else scop.schedule, None)


def dependences_after_contraction(scop: Scop, kept: Dependences, schedule: isl.Schedule) -> Dependences:
    """``compute_dependences(scop, schedule)`` for the Scop that contraction made (only local
    arrays' subscripts changed) from the one ``kept`` describes in program order, where
    ``schedule`` is the verified schedule contraction assumed.  Only what can differ is computed:
    the WAR and WAW dependences of local arrays.

    - RAW, every array: the verifier accepted ``schedule`` only if each read sees the same writer
      (or none) as in program order, and contraction shrank an array only where its dataflow under
      ``schedule`` stayed that same relation (``contraction.same_dataflow``).  Memory-based RAW of
      ``kept`` (isl gave up) stays the superset it was.
    - WAR and WAW, arrays that are not local: the verifier also keeps every program-order WAW
      pair of them in order, so each element's writes keep their order, and each read stays
      between its writer and that writer's successor; every two accesses of an element (one a
      write) keep their order, and relations computed from that order are the same.
    - WAR and WAW of local arrays are computed: schedules may reorder local false dependences
      (``Dependences.validity``), and contraction makes new ones (a row reused by every row).

    conv_bn_relu: 0.21 -> 0.14 s of its contraction stage's 0.55 s.  The relations equal
    ``compute_dependences(scop, schedule)``'s on the suite's kernels (tests/analysis)."""
    return _dependences(scop, schedule, kept)


def dependences_after_rewrite(scop: Scop, kept: Dependences, arrays: frozenset[str]) -> Dependences:
    """``compute_dependences(scop)`` for a Scop made by a rewrite of the one ``kept`` describes in
    program order that changed only the accesses of ``arrays``: every other array is accessed by
    the same statement instances as before, at the same elements, in the same program order
    (a store and its reader sent through a new local: schedule/overwritten.py; a zeroing that
    accesses only ``out`` dropped and its product widened or made to write ``out``:
    loop_products.fold_zeroing; a scaling that accesses only ``out`` dropped into its product's alpha:
    loop_products.fold_scales).  An array's dependences depend on its own accesses and their
    order only, so ``kept``'s stay for the others; those of ``arrays`` are computed (in
    ``scop.arrays``' order, as compute_dependences lists them).

    correlation: the overwritten stores' stage recomputed all twelve arrays' dataflow (0.13 s of
    its 0.16 s) for the two it had changed."""
    return _dependences(scop, scop.schedule, kept, arrays)


def _dependences(scop: Scop, schedule: isl.Schedule, kept: Dependences | None,
                 renamed: frozenset[str] | None = None) -> Dependences:
    reads, writes = scop.reads(), scop.writes()
    empty = isl.UnionMap.empty(scop.context.get_space())
    items: list[Dependence] = []
    with metered(scop.context.get_ctx()) as meter:
        for info in scop.arrays:
            name = info.name
            local = info.kind == "local"
            same = [] if kept is None else [d for d in kept.items if d.array == name]
            if renamed is not None:  # (dependences_after_rewrite: every kind kept or computed)
                if name not in renamed:
                    items.extend(same)
                    continue
                same = []
            elif kept is not None and not local:
                items.extend(same)
                continue
            iname = isl_name(name)
            with meter.fallback():
                r, w = on_array(reads, iname), on_array(writes, iname)
                if w.is_empty():
                    continue
            flow_kept = kept is not None and renamed is None  # (contraction: RAW of kept)
            raw = None if flow_kept else _relation(r, w, schedule, meter, must=True)
            war = _relation(w, r, schedule, meter, must=False, kill=w)
            waw = _relation(w, w, schedule, meter, must=True)
            items.extend(d for d in same if d.kind == "RAW")
            for kind, found in (("RAW", raw), ("WAR", war), ("WAW", waw)):
                if found is None:
                    continue
                rel, approximation = found
                with meter.fallback():
                    if not rel.is_empty():
                        items.append(Dependence(kind, name, local, rel, approximation))
    return Dependences(tuple(items), empty)


def check_scalars_defined(scop: Scop) -> None:
    """A local scalar read on some path before any assignment is an error, as in Python.  The
    user's locals are checked before those the frontend made of them (a version, a kind flag:
    polyfuse.model.names), and the message names the user's local and points at a statement that
    reads it (not one that only writes its old value back: ``w = s if c else w`` of ``if c: w = s``).

    Run after ``compute_dependences`` (polyfuse/compiler.py): a scalar's unassigned reads are
    the reads of input values of its RAW analysis, which is then in the compile's memo."""
    for info, undefined in _unassigned(scop):
        statements = _statements(scop, undefined)
        reading = [stmt for stmt in statements if _reads(stmt, info.name)]
        hint = ""
        if not reading:  # only the old value a guarded write keeps: the first read after it
            hint = (f"; its assignment at line {statements[0].span.line} stands inside an if whose condition "
                    "reads data, which keeps its previous value where the condition is false, so assign it "
                    "before that if")
            readers = [stmt for stmt in _statements(scop, on_array(scop.reads(), isl_name(info.name)))
                       if _reads(stmt, info.name)]
            after = [stmt for stmt in readers if int(stmt.name[1:]) > int(statements[0].name[1:])]
            reading = after or readers
        stmt = (reading or statements)[0]
        raise UnsupportedError(
            f"local {scop.shown(info.name)!r} may be read before it is assigned (assign it on every path "
            f"before this statement){hint}", stmt.span, "use of unassigned local",
        )


def unassigned_locals(scop: Scop) -> frozenset[str]:
    """The user's names of the local scalars some read may find unassigned (the frontend can
    give them Python's UnboundLocalError: frontend/unbound_locals.py)."""
    return frozenset(scop.shown(info.name) for info, _ in _unassigned(scop))


def _unassigned(scop: Scop):
    """``(info, its reads that no write precedes)`` of each local scalar that has some, the user's
    locals first; a scalar that starts at zero (``zero_init``) is never unassigned."""
    reads, writes = scop.reads(), scop.writes()
    scalars = [info for info in scop.arrays if info.is_scalar and not info.zero_init]
    for info in sorted(scalars, key=lambda info: scop.shown(info.name) != info.name):  # (stable)
        iname = isl_name(info.name)
        r, w = on_array(reads, iname), on_array(writes, iname)
        if r.is_empty():  # (a local only written: no dataflow to ask for)
            continue
        undefined = _unassigned_reads(r, w, scop.schedule).intersect_params(scop.context)
        if not undefined.is_empty():
            yield info, undefined


def _statements(scop: Scop, accesses: isl.UnionMap) -> list:
    """The statements of ``accesses``' instances, in program order."""
    names = {m.get_tuple_name(isl.dim_type.in_) for m in maps_of(accesses)}
    return [scop.statement(name) for name in sorted(names, key=lambda n: int(n[1:]))]


def _reads(stmt, name: str) -> bool:
    """Does ``stmt`` read the local ``name`` as Python does (not only the old value a guarded
    write keeps: ``w = s if c else w`` of ``if c: w = s``)?"""
    if not _keeps_old_value(stmt, name):
        return True
    value = stmt.value
    return any(isinstance(node, ir.Load) and node.array == name for node in ir.distinct_nodes(value.cond, value.then))


def _unassigned_reads(reads: isl.UnionMap, writes: isl.UnionMap, schedule: isl.Schedule) -> isl.UnionMap:
    """The reads of one scalar (instance -> its element) that no write of it precedes.

    isl's must-source analysis fails on some programs with a scalar written in a negative-step
    loop and again under a guard with a floor division ("affine expression involves some of the
    domain dimensions", isl_domain_factor_templ.c; seed 24042 of cpu_campaign: ``acc = i`` then
    ``if i - 4 >= i // 2: acc = j`` in ``range(n + 1, 1, -2)``), as ``_relation`` says.  A
    scalar has one element, so a read has no source exactly when no write runs before it: the
    memory-based relation gives the same set without isl's dataflow engine.

    The dependence analysis's checked exact dataflow of the scalar, where the compile has it,
    names the same reads (``no_source``) and costs nothing more (a sample of 80 corpus
    compiles spent 1.6% of their CPU here).  Where it has not, the question is asked on the
    scalar's own instances (``accessing``, as ``exact_flow`` does): a read's sources depend only
    on their order, and isl's work on the whole schedule grew with every other statement (a
    108-line control_fuzz program, seed 5302 program 4: 43 scalars at 1.2 s each)."""
    known = known_exact_flow(reads, writes, schedule)
    if known is not None:
        return known.no_source
    schedule = accessing(schedule, reads, writes)
    try:
        return flow(reads, writes, schedule, may=False).get_must_no_source()
    except isl.Error:
        reached = memory_based(reads, writes, schedule).range()
        return reads.subtract_domain(reached)


def _keeps_old_value(stmt, name: str) -> bool:
    """Is ``stmt`` a guarded write of a data-dependent if (``name = v if c else name``)?"""
    value = stmt.value
    return (stmt.array == name and isinstance(value, ir.Select)
            and isinstance(value.otherwise, ir.Load) and value.otherwise.array == name)


def carries(deps: isl.UnionMap, prefix: isl.UnionMap, context: isl.Set) -> bool:
    """Does the last dimension of ``prefix`` (statement -> loop values, outermost first) carry
    any of ``deps``?  That is: do two dependent instances agree on the outer values but not on
    the last one?  Only instances in ``prefix``'s domain are considered."""
    return any(_carried_delta(delta, context) for delta in piece_deltas(deps, prefix))


def _carried_delta(delta: isl.Set, context: isl.Set) -> bool:
    """Is some distance in ``delta`` zero on every outer dimension and not on the last one?"""
    carried = _carried_distances(delta.dim(isl.dim_type.set))
    hit = delta.intersect(carried.align_params(delta.get_space()))
    return not hit.intersect_params(context.align_params(delta.get_space())).is_empty()


def _carried_distances(n: int) -> isl.Set:
    """{ d : d_0 = ... = d_(n-2) = 0 and d_(n-1) != 0 } (parsed once per n and compile)"""
    return per_compile(("carried distances", n), lambda: _make_carried_distances(n))


def _make_carried_distances(n: int) -> isl.Set:
    names = [f"d{i}" for i in range(n)]
    outer = " and ".join(f"{x} = 0" for x in names[:-1]) or "true"
    return isl.Set(f"{{ [{', '.join(names)}] : {outer} and ({names[-1]} < 0 or {names[-1]} > 0) }}")
