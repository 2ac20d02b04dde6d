"""Contraction of kernel-local arrays: fused intermediates shrink to rows, tiles or scalars.

A dimension of a local array can be dropped when, under the final schedule, every read still
sees the same writer as in the original program: then no value lives across that dimension's
iterations and one slot serves them all.  This is checked exactly with isl's dataflow analysis
on the contracted accesses, one dimension at a time; a fully contracted array becomes a scalar,
which the backends keep in a register.

A dimension that cannot be dropped may still be *folded* (Halide's storage folding): stored at
``index % k`` in ``k`` slots when every value is read within ``k`` iterations of the loop that
writes it -- a stencil chain fused along rows (``lap`` made at row ``i`` and read at rows ``i``
and ``i + 1``) keeps two rows instead of the whole array.  The same exact dataflow check decides,
for ``k`` in :data:`FOLDS`, smallest first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl
import numpy as np

from polyfuse.analysis.dependences import Dependences, exact_flow, on_array
from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.scop import ArrayInfo, Scop, Statement, isl_name


@dataclass(frozen=True)
class ContractionDecision:
    array: str
    shape_before: tuple[str, ...]  # extents as isl text
    shape_after: tuple[str, ...]
    dropped_axes: tuple[int, ...]
    itemsize: int
    folded_axes: tuple[tuple[int, int], ...] = ()  # (axis, slots): index i stored at i % slots

    @property
    def reason(self) -> str:
        parts = []
        if self.dropped_axes:
            parts.append(f"axes {list(self.dropped_axes)} dropped: each value is consumed in the iteration "
                         "that produced it")
        for axis, slots in self.folded_axes:
            parts.append(f"axis {axis} folded to {slots} slots: each value is consumed within {slots} "
                         "iterations of the loop that produced it")
        return "; ".join(parts) or "kept: values live across iterations of every axis"


def contract(scop: Scop, deps: Dependences, schedule: isl.Schedule) -> tuple[Scop, tuple[ContractionDecision, ...]]:
    """``scop`` with every local array shrunk as far as ``schedule`` allows."""
    decisions = []
    for info in scop.arrays:
        if info.kind != "local" or info.is_scalar:
            continue
        dropped: list[int] = []
        folded: list[tuple[int, int]] = []
        if _indexed_at_run_time(scop, info.name):
            decisions.append(ContractionDecision(info.name, info.extent_texts, info.extent_texts, (),
                                                 _itemsize(info.dtype)))
            continue
        try:
            with bounded(scop.context.get_ctx()):
                reference = array_dataflow(scop, info.name, scop.schedule, checked=True)
                kept: dict[int, tuple[Scop, isl.UnionMap]] = {}  # axis -> (scop then, its line's last writers)
                for axis in reversed(range(info.rank)):
                    candidate = drop_axis(scop, info.name, axis)
                    flow = array_dataflow(candidate, info.name, schedule)
                    if same_dataflow(reference, flow) and ordered_conflicts(candidate, info.name, schedule):
                        scop = candidate
                        dropped.append(axis)
                    else:
                        kept[axis] = (scop, flow[0])
                for axis in (a for a in range(info.rank) if a not in dropped):
                    # the failed drop's dataflow describes the scop of then, where ``axis`` was
                    # still the axis's index (only higher axes were dropped before it)
                    then, last_writers = kept[axis]
                    scop, slots = _fold_smallest(scop, info.name, axis - sum(d < axis for d in dropped),
                                                 reference, schedule, (then, axis, last_writers))
                    if slots:
                        folded.append((axis, slots))
        except BudgetExceeded:
            pass  # isl could not compute this array's dataflow (in budget): keep what we have
        after = scop.array(info.name)
        decisions.append(ContractionDecision(info.name, info.extent_texts, after.extent_texts,
                                             tuple(sorted(dropped)), _itemsize(info.dtype), tuple(folded)))
    return scop, tuple(decisions)


#: Folded extents tried, smallest first: a value live across k iterations of an axis needs k slots.
FOLDS = (2, 3, 4)


def _fold_smallest(scop: Scop, array: str, axis: int, reference, schedule: isl.Schedule,
                   dropped: tuple[Scop, int, isl.UnionMap] | None = None) -> tuple[Scop, int]:
    """``scop`` with ``array``'s axis ``axis`` folded to the fewest slots (``index % k``) that keep
    every read's writer under ``schedule``, and that number (0: unchanged).  ``dropped``: an
    earlier scop, the axis's index there and its dataflow with that axis dropped (``drop_axis``;
    writer -> reader), when known: a scop on the way to this one, whose dataflow under
    ``schedule`` was ``reference``'s too, and from which this one differs by axes dropped or
    folded (each keeping that dataflow).  A slot of that scop's array then lies in one slot of
    this one's folded array, so a read whose slot another write overwrote there
    (``overwritten_in_its_slot``) has it overwritten here too (conv_bn_relu's ``Y``: its ``j``
    axis was tried before ``b``, ``k`` and ``i`` were dropped: ~40 ms of a fold it fails)."""
    def keeps(candidate: Scop) -> bool:
        return (same_dataflow(reference, array_dataflow(candidate, array, schedule))
                and ordered_conflicts(candidate, array, schedule))

    # the most slots first: where that fails, so do fewer (a value live across k iterations is
    # overwritten in k - 1 slots too), and most arrays fail it (a whole pass between writer and reader)
    if dropped is not None and overwritten_in_its_slot(dropped[0], array, dropped[1], max(FOLDS), dropped[2]):
        return scop, 0
    if not keeps(fold_axis(scop, array, axis, max(FOLDS))):
        return scop, 0
    for k in FOLDS:
        candidate = fold_axis(scop, array, axis, k)
        if k == max(FOLDS) or keeps(candidate):
            return candidate, k
    return scop, 0


def overwritten_in_its_slot(scop: Scop, array: str, axis: int, k: int, last_writers: isl.UnionMap) -> bool:
    """Whether folding ``array``'s axis ``axis`` to ``k`` slots surely changes a read's writer,
    decided from ``last_writers`` (the dataflow with the axis dropped: each read's last writer
    of any element of its line along the axis) instead of the folded program's own dataflow,
    which most folds fail (a whole pass between writer and reader: contraction's folds were
    ~12% of the corpus tests' time).

    If a read ``R`` of element ``x`` has as its line's last writer ``W1`` an instance that writes
    another element ``x1`` of ``x``'s slot (``x1 = x (mod k)`` on the axis, the rest equal),
    then ``W1`` runs after ``x``'s own last writer (it is the last write of the whole line before
    ``R``) and before ``R``, into the slot ``R`` reads: folded, ``R`` reads ``W1``'s value, so
    the folded dataflow differs (``same_dataflow`` fails) or the two writes share a time
    (``ordered_conflicts`` fails).  Only a sufficient test: False says nothing.  Statements whose
    instances write several elements of the array are left to the full check."""
    name = isl_name(array)
    writes, reads = on_array(scop.writes(), name), on_array(scop.reads(), name)
    if not writes.is_single_valued():
        return False
    dims = [f"x{d}" for d in range(scop.array(array).rank)]
    other = dims[:axis] + [f"y{axis}"] + dims[axis + 1:]
    same_slot = isl.UnionMap(f"{scop.prefix} -> {{ {name}[{', '.join(dims)}] -> {name}[{', '.join(other)}] : "
                             f"exists (e : y{axis} = x{axis} + {k}e) and y{axis} != x{axis} }}")
    written = last_writers.reverse().apply_range(writes)  # read -> element its line's last writer wrote
    return not written.intersect(reads.apply_range(same_slot)).is_empty()


def fold_axis(scop: Scop, array: str, axis: int, k: int) -> Scop:
    """``scop`` with axis ``axis`` of local ``array`` folded to ``k`` slots: index ``i`` -> ``i % k``."""
    info = scop.array(array)
    name = isl_name(array)
    dims = [f"x{d}" for d in range(info.rank)]
    folded = dims[:axis] + [f"({dims[axis]}) mod {k}"] + dims[axis + 1:]
    fold = isl.UnionMap(f"{scop.prefix} -> {{ {name}[{', '.join(dims)}] -> {name}[{', '.join(folded)}] }}")

    def index_of(index: tuple[ir.Expr, ...]) -> tuple[ir.Expr, ...]:
        slot = ir.BinOp("%", index[axis], ir.int_const(k), "int64")
        return index[:axis] + (slot,) + index[axis + 1:]

    def fold_load(load: ir.Load) -> ir.Expr:
        return replace(load, index=index_of(load.index)) if load.array == array else load

    statements = tuple(replace(
        stmt,
        index=tuple(ir.map_loads(i, fold_load) for i in (index_of(stmt.index) if stmt.array == array
                                                           else stmt.index)),
        value=ir.map_loads(stmt.value, fold_load),
        reads=_apply(stmt.reads, array, fold),
        writes=_apply(stmt.writes, array, fold),
    ) for stmt in scop.statements)
    shrunk = replace(info, shape=info.shape[:axis] + (ir.int_const(k),) + info.shape[axis + 1:],
                     extent_texts=info.extent_texts[:axis] + (str(k),) + info.extent_texts[axis + 1:])
    arrays = tuple(shrunk if a.name == array else a for a in scop.arrays)
    return replace(scop, statements=statements, arrays=arrays)


def _indexed_at_run_time(scop: Scop, array: str) -> bool:
    """Is ``array`` accessed with a subscript computed at run time (ir.Index)?  Its access
    relations then cover whole axes, which says nothing about which element each instance
    touches, so its storage is kept.  So is that of an array a loop kept as written uses."""
    for stmt in scop.statements:
        if stmt.region is not None and (array in stmt.region.uses() or array in stmt.region.writes):
            return True
        for node in ir.distinct_nodes(stmt.value, *stmt.index):
            if isinstance(node, ir.Index) and node.array == array:
                return True
    return False


def _itemsize(dtype: str) -> int:
    return np.dtype(dtype).itemsize


def array_dataflow(scop: Scop, array: str, schedule: isl.Schedule, *,
                   checked: bool = False) -> tuple[isl.UnionMap, isl.UnionMap]:
    """``array``'s last writer per read and its reads of input values under ``schedule``
    (``checked``: against the memory-based dataflow too, for program order; see exact_flow)."""
    name = isl_name(array)
    reads, writes = on_array(scop.reads(), name), on_array(scop.writes(), name)
    result = exact_flow(reads, writes, schedule, checked=checked)
    return result.must, result.no_source


def ordered_conflicts(scop: Scop, array: str, schedule: isl.Schedule) -> bool:
    """Every two instances that touch one element of ``array`` (one of them writing) run at
    different times of ``schedule``.

    isl's dataflow ignores instances that share a schedule time (neither is before the other),
    but the AST generator still puts them in some order.  A schedule may leave a producer and a
    consumer unordered when they touch different elements, and contracting the array would make
    them touch the same slot: the dataflow check alone would pass, the generated loops would read
    the wrong value (found by random programs under fuse="max")."""
    name = isl_name(array)
    writes = on_array(scop.writes(), name)
    touches = writes.union(on_array(scop.reads(), name))
    conflicts = writes.apply_range(touches.reverse())
    timed = schedule.get_map()
    same_time = timed.apply_range(timed.reverse())
    identity = scop.domain().identity()
    return conflicts.intersect(same_time).subtract(identity).is_empty()


def same_dataflow(a: tuple[isl.UnionMap, isl.UnionMap], b: tuple[isl.UnionMap, isl.UnionMap]) -> bool:
    """Same writer for every read, and the same reads (by instance) see no writer at all."""
    return a[0].is_equal(b[0]) and a[1].domain().is_equal(b[1].domain())


def drop_axis(scop: Scop, array: str, axis: int) -> Scop:
    """``scop`` with axis ``axis`` of local ``array`` removed from its shape and every access."""
    info = scop.array(array)
    projection = _projection(scop, info, axis)
    statements = tuple(_drop_in_statement(s, array, axis, projection) for s in scop.statements)
    shrunk = replace(
        info,
        shape=info.shape[:axis] + info.shape[axis + 1:],
        extent_texts=info.extent_texts[:axis] + info.extent_texts[axis + 1:],
    )
    arrays = tuple(shrunk if a.name == array else a for a in scop.arrays)
    return replace(scop, statements=statements, arrays=arrays)


def _projection(scop: Scop, info: ArrayInfo, axis: int) -> isl.UnionMap:
    name = isl_name(info.name)
    dims = [f"x{d}" for d in range(info.rank)]
    kept = dims[:axis] + dims[axis + 1:]
    return isl.UnionMap(f"{scop.prefix} -> {{ {name}[{', '.join(dims)}] -> {name}[{', '.join(kept)}] }}")


def _drop_in_statement(stmt: Statement, array: str, axis: int, projection: isl.UnionMap) -> Statement:
    def shrink(load: ir.Load) -> ir.Expr:
        if load.array != array:
            return load
        return replace(load, index=load.index[:axis] + load.index[axis + 1:])

    index = stmt.index[:axis] + stmt.index[axis + 1:] if stmt.array == array else stmt.index
    return replace(
        stmt,
        index=tuple(ir.map_loads(i, shrink) for i in index),  # counts[idx[i]]: idx read in a subscript
        value=ir.map_loads(stmt.value, shrink),
        reads=_apply(stmt.reads, array, projection),
        writes=_apply(stmt.writes, array, projection),
    )


def _apply(accesses: isl.UnionMap, array: str, projection: isl.UnionMap) -> isl.UnionMap:
    """Accesses with those to ``array`` sent through ``projection``, the others untouched."""
    name = isl_name(array)
    touched = on_array(accesses, name)
    return accesses.subtract(touched).union(touched.apply_range(projection))
