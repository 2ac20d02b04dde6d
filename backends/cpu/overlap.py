"""Overlapped row chunks: a sequential row loop that carries values only through rows of small
kernel-local arrays, run on several threads with the rows each chunk needs computed again.

Stencil chains fused by rows (hdiff: ``lap``, then ``flx`` and ``fly`` from shifted rows of
``lap``, then the output; ``schedule/fusion.py`` ``folds_intermediates``) keep their
intermediates in a few rows each (contraction's folded axis: row ``r`` lives at ``r % k``), so
the fused row loop is sequential: row ``t`` reads rows made one or two iterations before.  Its
inner loops are parallel, but a parallel region would wait at a barrier per row (a few us of work
each: hdiff stayed on one thread).  Halide and PolyMage's overlapped tiling instead give each
thread a block of rows ``[lo, hi)`` and let it first recompute, for ``depth`` rows before ``lo``
(the *warm-up*), only the statements that write the folded arrays, into its own copy of them:
after ``depth`` iterations every value a row ``>= lo`` reads is one the thread made itself.

``overlap_plan`` decides, on the loop AST, whether a sequential loop may run so, and with what
warm-up.  What must hold (else None, and the loop runs as before):

* the loop counts up by 1 between bounds of the parameters alone; no ``if`` and no inner loop
  bound depends on it, and each statement's call uses it once, as the iterator plus a constant
  (every statement runs on the same inner points at every iteration);
* every statement is plain (no loop kept as written, no subscript checked at run time), its
  subscripts read no array (an address never comes from a value), and it converts no value
  (``Cast``): a warm-up computes from rows that no one wrote yet, which is harmless only for
  arithmetic on floats;
* each array the loop writes is either *private*: kernel-local, float, of rank >= 1 (its copies
  cost ``k`` rows, about ``k`` iterations' work), written by one statement of the loop at row
  ``(i + c) % k`` of an axis of constant extent ``k``, its other subscripts free of ``i``, where
  the statement's iterator ``i`` is the loop's plus a constant (a
  folded axis; contraction proved with isl's dataflow that each read still sees its writer, so a
  row is read at most ``k`` iterations after it is made) -- or *shared*: written at an index
  that holds the loop's iterator plus a constant on some axis (distinct iterations write distinct
  elements), and read by no statement of the loop;
* no private array's value flows back into its own writer (no recurrence through the rows).

``depth`` is then the longest chain of private arrays from a statement back to the rows nothing in
the loop writes, each array counting its ``k``: hdiff's ``lap`` (2) -> ``flx`` (2) -> output is
4 (the exact need is 2; a few extra rows per chunk cost nothing measurable).

The runtime (backends/cpu/parallel.py ``_run_overlapped``) gives every chunk but the last its own
copy of the private arrays, copied from the shared ones before the team starts (values the
phases before left in them, read by rows the loop never overwrites); the last chunk works in the
shared arrays, so the phases after see them as the serial loop leaves them.  The code of a chunk
(backends/cpu/llvm.py ``KernelCodegen.emit_chunk``) runs the warm-up rows with the shared writes
left out, then its own rows as written: the same operations in the same order for every value it
stores, so results are bit for bit those of the serial loop, on any number of threads.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyfuse.model import ir
from polyfuse.model.loop_ast import For, If, LoopProgram, Node, StmtCall, exclusive_bound, nodes
from polyfuse.model.scop import isl_name


@dataclass(frozen=True)
class OverlapPlan:
    """How a sequential loop runs in overlapped chunks."""

    depth: int  # warm-up iterations before each chunk's first row
    private: tuple[str, ...]  # the arrays each chunk (but the last) keeps its own copy of
    reason: str


def overlap_plan(program: LoopProgram, loop: Node, params_only) -> OverlapPlan | None:
    """The plan for running ``loop`` in overlapped chunks, or None (see the module docstring).
    ``params_only(*exprs)``: do the expressions use no loop iterator?"""
    if not isinstance(loop, For) or loop.parallel or loop.step != 1:
        return None
    stop = exclusive_bound(loop)
    if stop is None or not params_only(loop.init, stop) or _depends_on(loop.body, loop.iterator):
        return None
    calls = [n for n in nodes(loop.body) if isinstance(n, StmtCall)]
    stmts = {c.statement: program.statement(c.statement) for c in calls}
    if not calls or len(stmts) != len(calls) or not all(map(_plain, stmts.values())) or not all(
            _one_row(c, loop.iterator) for c in calls):
        return None
    infos = {a.name: a for a in program.arrays}
    rows = {c.statement: _row_axis(c, stmts[c.statement], loop.iterator) for c in calls}
    writers = {s.array: name for name, s in stmts.items()}
    if len(writers) != len(stmts):
        return None  # an array written by two statements of the loop
    read = {name: _reads(s) for name, s in stmts.items()}
    private: dict[str, int] = {}  # array -> its slots k
    for array, name in writers.items():
        slots = _folded_slots(stmts[name], infos[array], rows[name])
        if slots:
            private[array] = slots
        elif (row := rows[name]) is None or any(array in r for r in read.values()) or not any(
                _offset(i, row) is not None for i in stmts[name].index):
            return None  # a shared array: distinct iterations must write distinct elements
    if not private:
        return None
    depth = _longest_chain(read, writers, private)
    if depth is None:
        return None
    names = tuple(sorted(private))
    return OverlapPlan(depth, names, (
        f"sequential loop {loop.iterator} carries values only through rows of {', '.join(names)} "
        f"(each row read at most {max(private.values())} iterations after it is made): the threads "
        f"take blocks of its iterations, each first recomputing {depth} earlier iterations' rows of "
        "them in its own copy (overlapped chunks); the same operations for every stored value"))


def _depends_on(node: Node, iterator: str) -> bool:
    """Does an ``if`` condition or an inner loop bound inside ``node`` use ``iterator``?"""
    for n in nodes(node):
        exprs = [n.cond] if isinstance(n, If) else [n.init, n.cond] if isinstance(n, For) else []
        if any(_uses(x, iterator) for x in exprs):
            return True
    return False


def _uses(expr: ir.Expr, name: str) -> bool:
    return any(isinstance(e, ir.Var) and e.name == name for e in ir.walk(expr))


def _one_row(call: StmtCall, iterator: str) -> bool:
    """Does the call use the loop's iterator in one argument only, as the iterator plus a
    constant?  (Every iteration then runs its statement on the same points of the other axes: a
    skewed one could leave a folded row's element unwritten for a while, read later than ``k``
    iterations after it was made.)"""
    using = [arg for arg in call.args if _uses(arg, iterator)]
    return len(using) == 1 and _offset(using[0], iterator) is not None


def _plain(stmt) -> bool:
    """A statement a warm-up may run on rows nobody wrote yet: arithmetic only."""
    if stmt.region is not None or not stmt.index:
        return False
    for root in (stmt.value, *stmt.index):
        for e in ir.walk(root):
            if isinstance(e, (ir.Index, ir.Cast)):
                return False
            if isinstance(e, ir.Load) and any(isinstance(x, ir.Load) for i in e.index for x in ir.walk(i)):
                return False
    return not any(isinstance(x, ir.Load) for i in stmt.index for x in ir.walk(i))


def _reads(stmt) -> set[str]:
    return {e.array for e in ir.walk(stmt.value) if isinstance(e, ir.Load)}


def _offset(expr: ir.Expr, name: str) -> int | None:
    """``c`` when ``expr`` is ``Var(name) + c`` (or ``- c``, or the variable alone)."""
    if isinstance(expr, ir.Var):
        return 0 if expr.name == name else None
    if isinstance(expr, ir.BinOp) and expr.op in "+-" and isinstance(expr.rhs, ir.Const) \
            and isinstance(expr.rhs.value, int) and not isinstance(expr.rhs.value, bool):
        inner = _offset(expr.lhs, name)
        if inner is not None:
            return inner + (expr.rhs.value if expr.op == "+" else -expr.rhs.value)
    return None


def _row_axis(call: StmtCall, stmt, iterator: str) -> str | None:
    """The statement iterator that is the loop's iterator plus a constant in this call, if any
    (with isl's names: the statement's expressions use ``isl_name`` of its iterators)."""
    for name, arg in zip(stmt.iterators, call.args):
        if _offset(arg, iterator) is not None:
            return isl_name(name)
    return None


def _folded_slots(stmt, info, row: str | None) -> int:
    """``k`` when ``stmt`` writes a private candidate at ``(row + c) % k`` on an axis of extent
    ``k`` (a folded axis), else 0."""
    if row is None or info.kind != "local" or info.rank < 1 or not info.dtype.startswith("float"):
        return 0
    for axis, index in enumerate(stmt.index):
        extent = info.shape[axis]
        others = stmt.index[:axis] + stmt.index[axis + 1:]
        if (isinstance(extent, ir.Const) and type(extent.value) is int and isinstance(index, ir.BinOp)
                and index.op == "%" and index.rhs == ir.int_const(extent.value)
                and _offset(index.lhs, row) is not None and not any(_uses(i, row) for i in others)):
            return extent.value  # (each row's elements at the same places of the other axes)
    return 0


def _longest_chain(read: dict[str, set[str]], writers: dict[str, str], private: dict[str, int]) -> int | None:
    """The longest sum of slots along chains of private arrays into any statement; None when a
    private array's value reaches its own writer."""
    depth: dict[str, int] = {}
    active: set[str] = set()

    def of(statement: str) -> int | None:
        if statement in depth:
            return depth[statement]
        if statement in active:
            return None
        active.add(statement)
        best = 0
        for array in read[statement] & private.keys():
            inner = of(writers[array])
            if inner is None:
                return None
            best = max(best, private[array] + inner)
        active.discard(statement)
        depth[statement] = best
        return best

    results = [of(s) for s in read]
    known = [r for r in results if r is not None]
    return None if len(known) < len(results) else max(known, default=0)


