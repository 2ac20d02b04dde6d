"""Carried loads: values a serial row loop stored a few iterations back, kept in registers.

A sequential innermost loop that stores ``X[w(j)]`` and, a few iterations later, reads the same
element back as ``X[l(j)]`` with ``l(j) = w(j - k)`` (``k`` a small constant) loads a value it
has just stored.  jacobi-1d's two sweeps fused into one row loop (schedule/time_tiling.py,
``fused_sweeps``) are such a loop: iteration ``j`` stores ``B[j]`` and reads ``B[j - 2]``,
``B[j - 1]`` and ``B[j]`` for ``A[j - 1]``.  LLVM forwards a store to a load one iteration
later (its load PRE), not two: the vectorized loop then loads ``B[j - 2 .. j + 5]`` right after
storing ``B[j .. j + 7]``, a load the store buffer cannot forward, every vector.

``carried_loads`` finds such loads (in loops where one is at least two iterations back: LLVM
forwards the others itself, and other loops keep the code they had); the code generator (``KernelCodegen.emit_For``) keeps, for
each, a queue of ``k`` values: before the loop the values the first ``k`` iterations load
(read from memory, as those iterations would), in the loop the queue's head instead of the
load, and after each iteration the queue moves on by the value the iteration stored.  LLVM
turns the queue's slots into phis, which its vectorizer carries across vectors as fixed-order
recurrences (shuffles of registers).  The loaded and the queued value are the same bits.

It is legal when, inside the loop: ``X`` has exactly one store, unconditional (a flat body of
statement calls, no run-time subscript), whose address changes with ``j`` (so iteration
``j - k`` is the only one that writes ``X[l(j)]``); the load and the store have affine subscripts
with the same coefficients and constants that differ by ``k`` times the loop's coefficient in
every subscript; the load is not under a conditional (a select or ``and``/``or``: the preload
must read only what the loop reads anyway); and distinct arrays do not overlap (the kernel's
arguments are ``noalias``, as row tails assume).  ``POLYFUSE_CARRIED_LOADS=0`` turns it off.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, LoopProgram, StmtCall, exclusive_bound, nodes
from polyfuse.model.scop import isl_name

#: the longest distance carried (registers per carried load)
MAX_DISTANCE = 8
#: element types kept in a queue (a bool array's element is a byte in memory, a complex one two)
DTYPES = frozenset({"float64", "float32", "int64", "int32", "uint64", "uint32"})


@dataclass(frozen=True)
class Carry:
    """``load`` in statement call ``reader`` (an index into the loop's calls) reads what call
    ``source`` stored ``distance`` iterations before."""

    reader: int
    load: ir.Load
    source: int
    distance: int


def carried_loads(program: LoopProgram, loop: For) -> tuple[Carry, ...]:
    """The loads of ``loop`` that may come from a queue of stored values (see the module)."""
    if loop.step != 1 or loop.parallel or exclusive_bound(loop) is None:
        return ()
    body = list(nodes(loop.body))
    if not body or any(not isinstance(n, (Block, StmtCall)) for n in body):
        return ()
    calls = [n for n in body if isinstance(n, StmtCall)]
    statements = [program.statement(c.statement) for c in calls]
    if any(s.region is not None for s in statements):
        return ()
    dtypes = {a.name: str(a.dtype) for a in program.arrays}
    writers: dict[str, list[int]] = {}
    for k, stmt in enumerate(statements):
        writers.setdefault(stmt.array, []).append(k)
    stores: dict[str, tuple[int, list[dict]]] = {}
    for array, sites in writers.items():
        if len(sites) != 1 or dtypes.get(array) not in DTYPES:
            continue
        stmt = statements[sites[0]]
        if not stmt.index or _runtime(stmt.index) or _conditional(stmt.value):
            continue
        forms = _forms(stmt, calls[sites[0]], loop.iterator)
        if forms is not None and any(f.get(loop.iterator, 0) for f in forms):
            stores[array] = (sites[0], forms)
    if not stores:
        return ()
    found: list[Carry] = []
    for k, (stmt, call) in enumerate(zip(statements, calls)):
        if _conditional(stmt.value):
            continue
        for load in sorted({e for e in ir.walk(stmt.value) if isinstance(e, ir.Load)}, key=str):
            if load.array not in stores or not load.index or _runtime(load.index):
                continue
            writer, written = stores[load.array]
            read = _forms(_with_index(stmt, load.index), call, loop.iterator)
            distance = _distance(read, written, loop.iterator) if read is not None else None
            if distance is not None:
                found.append(Carry(k, load, writer, distance))
    if all(c.distance == 1 for c in found):
        return ()  # LLVM forwards a store to the next iteration's load itself
    return tuple(found)


def queue_ready(stmt, dtype: str) -> bool:
    """Whether the loads of ``stmt`` (writing an array of ``dtype``) can be carried at all: the
    time-tiling pass fuses sweeps into one row loop (schedule/time_tiling.py, ``fused_sweeps``)
    only where they can, since the fused loop's loads of what it just stored are slow from memory."""
    return (stmt.region is None and dtype in DTYPES and not _conditional(stmt.value)
            and not _runtime(stmt.index) and not _runtime((stmt.value,)))


def _with_index(stmt, index):
    from dataclasses import replace

    return replace(stmt, index=index)


def _runtime(index) -> bool:
    return any(isinstance(e, ir.Index) for x in index for e in ir.walk(x))


def _conditional(expr: ir.Expr) -> bool:
    """Whether ``expr`` evaluates some part only on a condition (a load there may not run)."""
    return any(isinstance(e, (ir.Select, ir.BoolOp)) for e in ir.walk(expr))


def _forms(stmt, call: StmtCall, iterator: str) -> list[dict] | None:
    """``stmt.index`` at ``call`` as affine forms ({variable: coefficient, None: constant}) in the
    loop's iterator and the names the loop does not change, or None."""
    values = {isl_name(v): arg for v, arg in zip(stmt.iterators, call.args)}
    forms = []
    for expr in stmt.index:
        form = ir.affine_form(ir.substitute(expr, values))
        if form is None:
            return None
        forms.append({k: v for k, v in form.items() if v or k is None})
    return forms


def _distance(read: list[dict], written: list[dict], iterator: str) -> int | None:
    """``k`` in 1..MAX_DISTANCE with ``read(j) = written(j - k)``, else None."""
    if len(read) != len(written):
        return None
    distance = None
    for r, w in zip(read, written):
        if {k: v for k, v in r.items() if k is not None} != {k: v for k, v in w.items() if k is not None}:
            return None
        step = w.get(iterator, 0)
        gap = w.get(None, 0) - r.get(None, 0)  # = step * k
        if step == 0:
            if gap:
                return None
            continue
        if gap % step:
            return None
        if distance is not None and gap // step != distance:
            return None
        distance = gap // step
    return distance if distance is not None and 1 <= distance <= MAX_DISTANCE else None
