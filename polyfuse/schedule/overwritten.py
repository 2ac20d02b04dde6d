"""Overwritten stores: a value stored to an array only for a later statement that reads it back
and overwrites the same element goes through a kernel-local array instead.

Takes the program-order Scop and its dependences, before scheduling; gives a Scop in which each
such store writes a new local of the array's shape and dtype (so each value is rounded to the
array's dtype as before), the later statement reads that local, and the array itself is written
once per element.  Contraction then shrinks the local to what one iteration needs (a row or a
scalar), and the array, never read any more, can take non-temporal stores (backends/cpu/streams.py):
NumPy-style row softmax (``out[i, j] = e`` ... ``out[i, j] = out[i, j] / s``) wrote each element of
``out`` twice, reading its lines from memory first, and now writes it once.

Before::

    for i: for j: out[i, j] = exp(X[i, j] - m)
           for j: out[i, j] = out[i, j] / s

After::

    for i: for j: out__kept[i, j] = exp(X[i, j] - m)
           for j: out[i, j] = out__kept[i, j] / s

Legal when isl's value-based dataflow on the array in program order shows that every value the
first statement stores is read, and only by the second, which reads the array nowhere else (every
element it reads there having its last writer in the first statement) and at the subscript it
writes: every stored value is then overwritten and the array's final contents are unchanged.

With ``companions=True``, statements of the store's loops that read a stored value in its own
iteration, and nothing else of the array (``out[i, j] = exp(...); s += out[i, j]``, numba-style
softmax), read it from the local too: every value is then still overwritten, read back only from
the local.  Where the store stores a local scalar (``e = exp(X[i, j] - m); out[i, j] = e; s += e``), the
scalar's statement writes the local itself and its readers read the local (``forward=True``)::

    for i: for j: out__kept[i, j] = exp(X[i, j] - m)
                  s += out__kept[i, j]
           for j: out[i, j] = out__kept[i, j] / s

Without this the scheduler expands ``e`` into a row of its own (so that ``exp`` runs in a loop
that vectorizes) and copies it into ``out__kept``'s row: two rows stored per row of ``out``.
Legal when the scalar has that one writer, in the store's loops (the same iterators and
domain), has the store's dtype (each value is rounded once either way), every read of it (isl's
dataflow in program order) finds its value written in the same iteration, and the store writes
a different element of the local in each iteration: every reader then finds in the local
the value it found in the scalar, and the local holds what the store put there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.analysis.dependences import (
    Dependences,
    ExactFlow,
    dependences_after_rewrite,
    exact_flow,
    on_array,
)
from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, bounded, current_memo
from polyfuse.model.scop import Scop, Statement, isl_name
from polyfuse.schedule.loop_products import restricted_to

SUFFIX = "__kept"


@dataclass(frozen=True)
class OverwrittenStore:
    """One store sent through a local: ``store`` wrote ``array``, ``reader`` reads it back from
    ``local`` and overwrites the element.  ``scalar``: the local scalar whose statement now
    writes ``local`` itself (``store``, its copy, dropped), or ""."""

    array: str
    store: str
    reader: str
    local: str
    reason: str
    scalar: str = ""


def forward_overwritten(scop: Scop, deps: Dependences, *, forward: bool = True, companions: bool = False,
                        ) -> tuple[Scop, Dependences, tuple[OverwrittenStore, ...]]:
    """``scop`` with every overwritten store sent through a local (see the module's text; with
    ``companions``, its other readers in its iteration reading the local too; with ``forward``, a
    stored local scalar's statement writing the local), its dependences (those of the arrays it
    rewrote recomputed) and what was done."""
    done: list[OverwrittenStore] = []
    for name in [s.name for s in scop.statements]:
        if name not in {s.name for s in scop.statements}:
            continue  # a copy dropped by an earlier scalar's rewrite
        store = scop.statement(name)  # as the rewrites so far left it (S6 of S5 -> S6 -> S7 reads a local)
        found = _overwriting_reader(scop, store, companions=companions)
        if found is None:
            continue
        reader, others = found
        local = _fresh_name(scop, store.array)
        scop = _through_local(scop, store, (reader, *others), local)
        reason = (f"every value {store.name} stores is read back by {reader.name}, which overwrites "
                  f"the element (isl's dataflow on {store.array}): {store.array} is written once per element")
        if others:
            reason += (f"; {', '.join(c.name for c in others)} read the stored values in their own "
                       f"iteration: from {local} too")
        scalar = _stored_scalar(scop, scop.statement(store.name)) if forward else None
        if scalar is not None:
            scop = _scalar_into_local(scop, scop.statement(store.name), scalar)
            reason += (f"; {scalar.name} writes {local} itself and its readers read it there "
                       f"(each reads the value set in its own iteration): {store.name}'s copy dropped")
        done.append(OverwrittenStore(store.array, store.name, reader.name, local, reason,
                                     scalar.array if scalar is not None else ""))
    if not done:
        return scop, deps, ()
    # only the dependences of the arrays whose accesses moved are computed anew
    renamed = frozenset(name for d in done for name in (d.array, d.local, d.scalar) if name)
    return scop, dependences_after_rewrite(scop, deps, renamed), tuple(done)


def _overwriting_reader(scop: Scop, store: Statement, *, companions: bool = False,
                        ) -> tuple[Statement, tuple[Statement, ...]] | None:
    """The statement that reads back and overwrites every value ``store`` writes, and the others
    that read them (``companions``: statements of the same loops that read only ``store``'s
    values, at its subscript, in its iteration; none without), if any."""
    if store.region is not None or store.summed is not None or not store.index or _index_arrays(store):
        return None  # (a subscript that reads an array is no exact access: not here)
    info = scop.array(store.array)
    if info.kind == "local" or any(store.array in _index_arrays(s) for s in scop.statements):
        return None
    readers = [s for s in scop.statements if s.name != store.name and store.array in s.sources()]
    # the same top-level nest and index: contraction can then shrink the local to what one
    # iteration of the shared loops needs (a full-size local would cost what it saves)
    # and the reader's loops are the store's: a reader in a deeper loop accumulates into the
    # element (``C[i, j] = 0`` then ``C[i, j] += A[i, k] * B[k, j]``: a product the loop-products
    # stage takes over, with its zeroing, where the k loop runs once)
    depth = store.domain.dim(isl.dim_type.set)
    candidates = [s for s in readers if s.region is None and s.summed is None and s.array == store.array
                  and s.nest == store.nest and s.index == store.index and _reads_only_at(s, store.array, s.index)
                  and s.domain.dim(isl.dim_type.set) == depth]
    for reader in candidates:
        others = tuple(s for s in readers if s.name != reader.name and companions and _companion(s, store))
        try:  # an optional rewrite: within the compile's isl budget and deadline, else not taken
            with bounded(scop.context.get_ctx()):
                found = _flows_only_to(scop, store, reader, others)
                if found is not None:
                    return reader, found
        except BudgetExceeded:
            return None
    return None


def _companion(stmt: Statement, store: Statement) -> bool:
    """Could ``stmt`` read ``store``'s values from its local: an assignment of another array in
    ``store``'s loops that reads the array only at ``store``'s subscript (``s += out[i, j]``)."""
    return (stmt.region is None and stmt.summed is None and stmt.array != store.array
            and stmt.nest == store.nest and stmt.iterators == store.iterators
            and stmt.domain.dim(isl.dim_type.set) == store.domain.dim(isl.dim_type.set)
            and store.array not in _index_arrays(stmt) and _reads_only_at(stmt, store.array, store.index))


def _index_arrays(stmt: Statement) -> set[str]:
    return {e.array for i in stmt.index for e in ir.walk(i) if isinstance(e, ir.Load)}


def _reads_only_at(stmt: Statement, array: str, index: tuple[ir.Expr, ...]) -> bool:
    loads = [e for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.array == array]
    return bool(loads) and all(e.index == index for e in loads)


def _flows_only_to(scop: Scop, store: Statement, reader: Statement, companions: tuple[Statement, ...] = (),
                   ) -> tuple[Statement, ...] | None:
    """isl, program order: every instance of ``store`` has its value read by ``reader``, and
    otherwise only by those of ``companions`` that read nothing else of the array, each in its own
    iteration; every read of the array by ``reader`` has its last writer in ``store``.  Those
    companions (the ones that read a value of ``store``), or None."""
    flow = _program_order_flow(scop, isl_name(store.array))
    if flow is None:
        return None
    store_domain = isl.UnionSet.from_set(store.domain)
    reader_domain = isl.UnionSet.from_set(reader.domain)
    from_store = flow.must.intersect_domain(store_domain)  # store instance -> reading instance
    into_reader = flow.must.intersect_range(reader_domain)
    readers, found = reader_domain, []
    for companion in companions:
        domain = isl.UnionSet.from_set(companion.domain)
        if from_store.intersect_range(domain).is_empty():
            continue  # reads none of store's values: stays as it is
        if not (flow.must.intersect_range(domain).is_subset(_same_iteration(store, companion))
                and flow.no_source.intersect_domain(domain).is_empty()):
            return None
        readers = readers.union(domain)
        found.append(companion)
    if not (from_store.intersect_range(reader_domain).domain().is_equal(store_domain.intersect_params(scop.context))
            and from_store.range().is_subset(readers)
            and into_reader.domain().is_subset(store_domain)
            and into_reader.range().is_equal(reader_domain.intersect_params(scop.context))
            and flow.no_source.intersect_domain(reader_domain).is_empty()):
        return None
    return tuple(found)


def _program_order_flow(scop: Scop, name: str) -> ExactFlow | None:
    """isl's checked value-based dataflow of the array ``name`` in program order, or None where
    isl fails (the exact dataflow's check, or the operation budget of the caller's ``bounded``
    block running out).  A failure is remembered for the rest of the compile by the question's
    text: every store of the array with a candidate reader asks the same question, each in a
    block of its own that has the same operations to spend (a fresh outermost block) or fewer
    (what is left of an outer one), so it fails again after the same work.  (A success is kept
    by ``exact_flow`` itself.)  tests/end_to_end/regressions/g_compile_time_fuse_max's ``U``: six
    candidate pairs each ran isl out of its budget after 1.4 s, 8.5 of the compile's 13 s."""
    reads, writes = on_array(scop.reads(), name), on_array(scop.writes(), name)
    memo = current_memo()
    key = ("overwritten: no program-order flow", reads.to_str(), writes.to_str(), scop.schedule.to_str())
    if memo is not None and key in memo:
        return None
    try:
        return exact_flow(reads, writes, scop.schedule)
    except isl.Error:
        if memo is not None:
            memo[key] = True
        return None


def _same_iteration(writer: Statement, reader: Statement) -> isl.UnionMap:
    """``writer[x] -> reader[x]`` over ``reader``'s domain (the two share their iterators)."""
    same = isl.Map.identity(reader.domain.get_space().map_from_set()).intersect_domain(reader.domain)
    return isl.UnionMap.from_map(same.set_tuple_name(isl.dim_type.in_, writer.name))


def _fresh_name(scop: Scop, array: str) -> str:
    taken = {a.name for a in scop.arrays}
    name, k = f"{array}{SUFFIX}", 1
    while name in taken:
        name, k = f"{array}{SUFFIX}{k}", k + 1
    return name


def _through_local(scop: Scop, store: Statement, readers: tuple[Statement, ...], local: str) -> Scop:
    info = scop.array(store.array)
    kept = replace(info, name=local, kind="local", zero_init=False)
    old, new = isl_name(store.array), isl_name(local)

    def load(e: ir.Load) -> ir.Expr:
        return replace(e, array=local) if e.array == store.array else e

    statements = tuple(
        replace(s, array=local, writes=_renamed(s.writes, old, new)) if s.name == store.name
        else replace(s, value=ir.map_loads(s.value, load), reads=_renamed(s.reads, old, new))
        if s.name in {r.name for r in readers}
        else s
        for s in scop.statements)
    return replace(scop, statements=statements, arrays=(*scop.arrays, kept))


def _renamed(accesses: isl.UnionMap, old: str, new: str) -> isl.UnionMap:
    result = isl.UnionMap.empty(accesses.get_space())
    for part in _maps(accesses):
        if part.get_tuple_name(isl.dim_type.out) == old:
            part = part.set_tuple_name(isl.dim_type.out, new)
        result = result.union(isl.UnionMap.from_map(part))
    return result


def _maps(accesses: isl.UnionMap) -> list[isl.Map]:
    found: list[isl.Map] = []
    accesses.foreach_map(found.append)
    return found


def _stored_scalar(scop: Scop, store: Statement) -> Statement | None:
    """The statement that sets the local scalar ``store`` (now writing a local) stores, where it can
    write that local instead (the module's text), else None."""
    value = store.value
    if not (isinstance(value, ir.Load) and not value.index):
        return None
    info = scop.array(value.array)
    if not info.is_scalar or info.dtype != scop.array(store.array).dtype:
        return None
    writers = [s for s in scop.statements if value.array in s.targets]
    readers = [s for s in scop.statements if value.array in s.sources()]
    if len(writers) != 1 or any(value.array in _index_arrays(s) for s in readers):
        return None
    writer = writers[0]
    depth = store.domain.dim(isl.dim_type.set)
    if any(s.region is not None or s.summed is not None or s.nest != store.nest or s.iterators != store.iterators
           or s.domain.dim(isl.dim_type.set) != depth for s in (writer, *readers)):
        return None
    try:  # an optional rewrite: within the compile's isl budget and deadline, else not taken
        with bounded(scop.context.get_ctx()):
            if not writer.domain.set_tuple_name(store.name).is_equal(store.domain):
                return None
            if not store.writes.is_injective() or not _read_in_own_iteration(scop, writer, readers):
                return None
    except (BudgetExceeded, isl.Error):
        return None
    return writer


def _read_in_own_iteration(scop: Scop, writer: Statement, readers: list[Statement]) -> bool:
    """isl, program order: every read of ``writer``'s scalar by ``readers`` has its value from
    ``writer`` in the same iteration (the same values of the shared iterators)."""
    name = isl_name(writer.array)
    flow = exact_flow(on_array(scop.reads(), name), on_array(scop.writes(), name), scop.schedule)
    for reader in readers:
        domain = isl.UnionSet.from_set(reader.domain)
        into = flow.must.intersect_range(domain)  # writer instance -> reading instance
        if not (into.is_subset(_same_iteration(writer, reader))
                and into.range().is_equal(domain.intersect_params(scop.context))
                and flow.no_source.intersect_domain(domain).is_empty()):
            return False
    return True


def _scalar_into_local(scop: Scop, store: Statement, writer: Statement) -> Scop:
    """``scop`` with ``writer`` writing ``store``'s element of its local, ``writer``'s scalar read
    there by every reader, and ``store`` (the copy) dropped."""
    scalar, local = writer.array, store.array
    old = isl_name(scalar)

    def access(statement: str) -> isl.UnionMap:  # store's element, by ``statement``'s instances
        return isl.UnionMap.from_map(_maps(store.writes)[0].set_tuple_name(isl.dim_type.in_, statement))

    def load(e: ir.Load) -> ir.Expr:
        return replace(e, array=local, index=store.index) if e.array == scalar else e

    def rewritten(s: Statement) -> Statement:
        if s.name == writer.name:
            s = replace(s, array=local, index=store.index, writes=access(s.name))
        if scalar in s.sources():
            reads = isl.UnionMap.empty(s.reads.get_space())
            for part in _maps(s.reads):
                if part.get_tuple_name(isl.dim_type.out) != old:
                    reads = reads.union(isl.UnionMap.from_map(part))
            s = replace(s, value=ir.map_loads(s.value, load), reads=reads.union(access(s.name)))
        return s

    statements = tuple(rewritten(s) for s in scop.statements if s.name != store.name)
    others = {s.name for s in statements}
    body = tuple(part for node in scop.body if (part := restricted_to(node, others)) is not None)
    changed = replace(scop, statements=statements, body=body)
    return replace(changed, schedule=changed.schedule_of(changed.body))
