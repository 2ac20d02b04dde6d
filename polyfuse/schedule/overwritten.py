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
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.analysis.dependences import Dependences, dependences_after_rewrite, exact_flow, on_array
from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.scop import Scop, Statement, isl_name

SUFFIX = "__kept"


@dataclass(frozen=True)
class OverwrittenStore:
    """One store sent through a local: ``store`` wrote ``array``, ``reader`` reads it back from
    ``local`` and overwrites the element."""

    array: str
    store: str
    reader: str
    local: str
    reason: str


def forward_overwritten(scop: Scop, deps: Dependences) -> tuple[Scop, Dependences, tuple[OverwrittenStore, ...]]:
    """``scop`` with every overwritten store sent through a local (see the module's text), its
    dependences (those of the arrays it rewrote recomputed) and what was done."""
    done: list[OverwrittenStore] = []
    for name in [s.name for s in scop.statements]:
        store = scop.statement(name)  # as the rewrites so far left it (S6 of S5 -> S6 -> S7 reads a local)
        reader = _overwriting_reader(scop, store)
        if reader is None:
            continue
        local = _fresh_name(scop, store.array)
        scop = _through_local(scop, store, reader, local)
        done.append(OverwrittenStore(store.array, store.name, reader.name, local,
                                     f"every value {store.name} stores is read back only by {reader.name}, "
                                     f"which overwrites the element (isl's dataflow on {store.array}): "
                                     f"{store.array} is written once per element"))
    if not done:
        return scop, deps, ()
    # only the dependences of the arrays whose accesses moved are computed anew
    renamed = frozenset(name for d in done for name in (d.array, d.local))
    return scop, dependences_after_rewrite(scop, deps, renamed), tuple(done)


def _overwriting_reader(scop: Scop, store: Statement) -> Statement | None:
    """The statement that alone reads back and overwrites every value ``store`` writes, if any."""
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
        try:  # an optional rewrite: within the compile's isl budget and deadline, else not taken
            with bounded(scop.context.get_ctx()):
                if _flows_only_to(scop, store, reader):
                    return reader
        except BudgetExceeded:
            return None
    return None


def _index_arrays(stmt: Statement) -> set[str]:
    return {e.array for i in stmt.index for e in ir.walk(i) if isinstance(e, ir.Load)}


def _reads_only_at(stmt: Statement, array: str, index: tuple[ir.Expr, ...]) -> bool:
    loads = [e for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.array == array]
    return bool(loads) and all(e.index == index for e in loads)


def _flows_only_to(scop: Scop, store: Statement, reader: Statement) -> bool:
    """isl, program order: every instance of ``store`` has its value read, by ``reader`` only, and
    every read of the array by ``reader`` has its last writer in ``store``."""
    name = isl_name(store.array)
    try:
        flow = exact_flow(on_array(scop.reads(), name), on_array(scop.writes(), name), scop.schedule)
    except isl.Error:
        return False
    store_domain = isl.UnionSet.from_set(store.domain)
    reader_domain = isl.UnionSet.from_set(reader.domain)
    from_store = flow.must.intersect_domain(store_domain)  # store instance -> reading instance
    into_reader = flow.must.intersect_range(reader_domain)
    return bool(from_store.domain().is_equal(store_domain.intersect_params(scop.context))
                and from_store.range().is_subset(reader_domain)
                and into_reader.domain().is_subset(store_domain)
                and into_reader.range().is_equal(reader_domain.intersect_params(scop.context))
                and flow.no_source.intersect_domain(reader_domain).is_empty())


def _fresh_name(scop: Scop, array: str) -> str:
    taken = {a.name for a in scop.arrays}
    name, k = f"{array}{SUFFIX}", 1
    while name in taken:
        name, k = f"{array}{SUFFIX}{k}", k + 1
    return name


def _through_local(scop: Scop, store: Statement, reader: Statement, local: str) -> Scop:
    info = scop.array(store.array)
    kept = replace(info, name=local, kind="local", zero_init=False)
    old, new = isl_name(store.array), isl_name(local)

    def load(e: ir.Load) -> ir.Expr:
        return replace(e, array=local) if e.array == store.array else e

    statements = tuple(
        replace(s, array=local, writes=_renamed(s.writes, old, new)) if s.name == store.name
        else replace(s, value=ir.map_loads(s.value, load), reads=_renamed(s.reads, old, new)) if s.name == reader.name
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
