"""Consecutive parallel phases over the same rows, run block by block of rows (the flash order).

Attention (``softmax(Q @ K.T * s) @ V``) compiles to four parallel phases over the rows of ``Q``:
the scores on BLAS, the fused softmax row loop, ``P @ V`` on BLAS, the normalisation.  Run one
after another, each phase's team takes its rows, waits for the others, and the 9 MB of scores and
of ``P`` go through the caches between phases.  A *chain* runs the phases one block of rows at a
time instead (the phases' own functions, each over ``[lo, hi)``): each member of the team takes a
piece of the rows and runs every phase of the chain over each block of its piece, so the team is
woken once for the chain and a block's intermediates are still in L2 when the next phase reads
them (``BLOCK_BYTES``).

When that gives the same results: phase ``q`` after phase ``p`` in the chain now runs its rows of
an earlier block before ``p`` runs the rows of later blocks.  That changes nothing where every
array that one phase of the chain writes and another accesses is accessed by both only at the
phases' current row (axis 0 subscript = the outer iterator; a product kept whole: its result's
and its left operand's rows): iterations at different rows then touch different elements, and at
the same row they run in the original order.  Each phase is a parallel loop (its iterations
independent: isl's dependences, polyfuse.schedule), so the rows of one phase may run in any
order among the threads.  Anything else (a neighbour row ``X[i + 1]``, a whole array, a scalar
shared between phases, a loop kept as written, a program checking subscripts at run time: the
error must stop the later phases) keeps the phases apart.  ``ChainDecision`` records each
chain and why.

A triangle of a product cut by rows (``Phase.row_weights``: covariance's ``cov[i, j]`` for ``j >=
i`` on ?syrk) followed by its mirror (``cov[j, i] = cov[i, j]`` over the same triangle, tiled or
not) chains too, as the product's epilogue (``POLYFUSE_MIRROR_EPILOGUE``, ``_mirror``): the
product's pieces of the rows, then the mirror's tiles of the same pieces (on the native team,
which hands the first pieces to its members in order: each member's own rows again;
backends/cpu/parallel.py ``_run_native_chain``).  The mirror of row
``i`` reads the product's row ``i`` and writes ``C[i, i]`` (row ``i`` again) and ``C[j, i]`` for
``j > i``: the other side of the diagonal, which the product never reads or writes.  Every element
that the two phases both access is so accessed at the same row, and the row cut by the triangle's
work cuts the mirror's work the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.model import ir
from polyfuse.model import region as rg
from polyfuse.model.loop_ast import For, If, LoopProgram, StmtCall, nodes

#: The bytes a block of rows may write across the chain's phases (a half of a 2 MiB L2): the
#: block is the largest power of two of rows within it, at least ``MIN_BLOCK_ROWS``.
BLOCK_BYTES = 1 << 20
MIN_BLOCK_ROWS = 16
#: A chain with a product on BLAS takes blocks of at least this many rows: each ``?gemm`` call
#: packs its right operand anew, and smaller calls do not amortise it (CPU per call at load ~10,
#: 2 threads, bench sizes, against the phases unchained: 64-row blocks attention +3%, mlp +12%;
#: 256 rows -1% / +2%; docs/performance.md, *Phase chains*).
MIN_BLAS_BLOCK_ROWS = 256


@dataclass(frozen=True)
class ChainDecision:
    """Phases ``first`` .. ``first + length - 1`` run as one chain, or why a pair was kept apart."""

    first: int
    length: int
    rows: str
    written: tuple[str, ...]  # arrays the chain writes across its phases (their rows size the block)
    reason: str


def plan_chains(program: LoopProgram, phases, checked_at_run_time: bool, epilogue: bool = False,
                mirrors: bool = False):
    """The phases with ``chain`` set on the first phase of each chain (its length) and ``chained``
    on the others, and the decisions.  ``epilogue`` (``POLYFUSE_EPILOGUE_CHAINS``): only a
    product cut by rows followed by phases that are no product (its epilogue: a bias, an
    activation, a row softmax), each member running the chain on its whole piece of the rows
    (``Phase.chain_whole``: one ``?gemm`` call per member, as unchained, so no operand is packed
    more often; the product's result is read back by the core that wrote it, right after).
    ``mirrors`` (``POLYFUSE_MIRROR_EPILOGUE``): a triangle's product and its mirror (``_mirror``)
    as such a chain."""
    if checked_at_run_time:
        return tuple(phases), ()
    out, decisions = list(phases), []
    k = 0
    while k < len(out):
        if mirrors and k + 1 < len(out) and _mirror(program, out[k], out[k + 1]):
            out[k] = replace(out[k], chain=2, chain_arrays=(), chain_whole=True)
            out[k + 1] = replace(out[k + 1], chained=True)
            decisions.append(ChainDecision(
                k, 2, ir.to_python(out[k].stop), tuple(sorted(_accesses(program, out[k])[1])),
                f"a triangle of a product cut by rows ({out[k].row_weights}) and its mirror over the same rows "
                f"(tiles of {out[k + 1].step}): the product's pieces of the rows (cut by the triangle's work, "
                "rounded to the tiles), then the mirror's pieces of the same rows, each member's own again "
                "(the mirror of a row writes only that row and the other side of the diagonal)"))
            k += 2
            continue
        length = 1
        if not epilogue or out[k].blas_rows:
            while (k + length < len(out) and _joins(program, out[k:k + length + 1])
                   and (not epilogue or _epilogue(program, out[k:k + length + 1]))):
                length += 1
        if length > 1:
            written = tuple(sorted(set().union(*(_accesses(program, p)[1] for p in out[k:k + length]))))
            out[k] = replace(out[k], chain=length, chain_arrays=written, chain_whole=epilogue)
            for j in range(k + 1, k + length):
                out[j] = replace(out[j], chained=True)
            blocks = ("a product and its epilogue: each member runs the product on its whole piece of "
                      "the rows (one BLAS call, as unchained), then the epilogue on those rows"
                      if epilogue else
                      f"each member of the team runs all of them block by block of its rows (blocks of <= "
                      f"{BLOCK_BYTES >> 10} KiB written)")
            decisions.append(ChainDecision(
                k, length, ir.to_python(out[k].stop), written,
                f"{length} parallel phases over the same rows exchange data only at the current row "
                f"(axis 0 = the outer iterator): {blocks}"))
        k += length
    return tuple(out), tuple(decisions)


def _joins(program: LoopProgram, run) -> bool:
    """May ``run[-1]`` join the chain ``run[:-1]``?  Every array one phase of it writes and another
    accesses is accessed by both only at the current row."""
    if not all(_row_phase(p) for p in run) or run[-1].stop != run[0].stop:
        return False
    accesses = [_accesses(program, p) for p in run]
    for k, (row, written, other) in enumerate(accesses):
        for row2, written2, other2 in accesses[k + 1:]:
            meeting = (written & (row2 | other2)) | (written2 & (row | other))
            if meeting & (other | other2):
                return False
    return True


def _epilogue(program: LoopProgram, run) -> bool:
    """May ``run[-1]`` join ``run[:-1]``, a product cut by rows and its epilogue so far, as more of
    the epilogue: it is no product, and it reads at the current row an array that the chain
    writes (2mm's ``D *= beta`` beside ``tmp = alpha * A @ B`` reads nothing of it: apart)."""
    if run[-1].blas_rows:
        return False
    written = set().union(*(_accesses(program, p)[1] for p in run[:-1]))
    return bool(_accesses(program, run[-1])[0] & written)


def _mirror(program: LoopProgram, product, mirror) -> bool:
    """Is ``mirror`` the mirror of ``product``'s triangle, which each chunk of the product's rows
    may run right after those rows?  ``product``: a triangle cut by rows (``row_weights``) of
    ``C[r, c]`` (no other subscripts, the diagonal in, rows from 0); ``mirror``: a parallel loop
    over the same rows from 0 by ``step`` without private arrays, whose statements are each
    ``C[j, i] = C[i, j]`` over a domain on the product's side of the diagonal (isl), ``i`` within
    ``[t, t + step)`` at the loop's iteration ``t`` (``_rows_of_tile``)."""
    node = product.node.then if isinstance(product.node, If) else product.node
    if not (product.blas_rows and product.row_weights and isinstance(node, StmtCall) and not product.chain
            and not product.chained and not product.pair and _row_phase(replace(product, row_weights=""))):
        return False
    stmt = program.statement(node.statement)
    op = stmt.region.body[0] if stmt.region is not None and len(stmt.region.body) == 1 else None
    if not (isinstance(op, rg.Matmul) and op.triangle == product.row_weights and not op.batch and not op.offset
            and _names(op.out.index) == op.variables[:2]):
        return False
    if not (_row_phase(mirror, any_step=True) and mirror.step >= 1 and not mirror.private and not mirror.chain
            and not mirror.chained and mirror.stop == product.stop):
        return False
    loop = mirror.node
    assert isinstance(loop, For)
    calls = [n for n in nodes(loop) if isinstance(n, StmtCall)]
    return bool(calls) and all(_mirrors(program.statement(c.statement), op.out.array, op.triangle)
                               and _rows_of_tile(loop, c) for c in calls)


def _mirrors(stmt, array: str, triangle: str) -> bool:
    """``stmt`` is ``array[j, i] = array[i, j]`` with ``j >= i`` ("upper") or ``j <= i`` ("lower")
    at every point of its domain."""
    if stmt.region is not None or len(stmt.iterators) != 2 or stmt.array != array:
        return False
    i, j = stmt.iterators
    if not (_names(stmt.index) == (j, i) and isinstance(stmt.value, ir.Load) and stmt.value.array == array
            and _names(stmt.value.index) == (i, j)):
        return False
    domain = stmt.domain
    other_side = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(domain.get_space()))
    sign = 1 if triangle == "upper" else -1  # the points off the product's side: j < i, or j > i
    other_side = (other_side.set_coefficient_val(isl.dim_type.set, 0, sign)
                  .set_coefficient_val(isl.dim_type.set, 1, -sign).set_constant_val(-1))
    return domain.add_constraint(other_side).is_empty()


def _names(index) -> tuple[str | None, ...]:
    """Each subscript's variable name, None where it is not a plain variable."""
    return tuple(e.name if isinstance(e, ir.Var) else None for e in index)


def _rows_of_tile(loop: For, call: StmtCall) -> bool:
    """At iteration ``t`` of ``loop`` (from 0 by ``loop.step``), the call's first argument (its
    statement's row ``i``) lies in ``[t, t + step)``: it is ``t`` itself, or the iterator of a loop
    inside from ``t`` (or ``max(.., t)``) to at most ``t + step - 1`` (``min(.., t + c)``)."""
    t, step = loop.iterator, loop.step
    row = call.args[0] if call.args else None
    if not isinstance(row, ir.Var):
        return False
    if row.name == t:
        return True
    inner = next((n for n in nodes(loop.body) if isinstance(n, For) and n.iterator == row.name), None)
    return (inner is not None and inner.step >= 1 and _at_least(inner.init, t)
            and isinstance(inner.cond, ir.Compare) and _names((inner.cond.lhs,)) == (inner.iterator,)
            and inner.cond.op in ("<", "<=") and _at_most(inner.cond.rhs, t, step - (inner.cond.op == "<=")))


def _at_least(e: ir.Expr, t: str) -> bool:
    """``e >= t`` for every value: ``t`` itself or a ``max`` with such an arm."""
    if isinstance(e, ir.Var):
        return e.name == t
    return isinstance(e, ir.BinOp) and e.op == "max" and (_at_least(e.lhs, t) or _at_least(e.rhs, t))


def _at_most(e: ir.Expr, t: str, bound: int) -> bool:
    """``e <= t + bound`` for every value: ``t + c`` (c <= bound), ``t`` (0 <= bound) or a ``min``
    with such an arm."""
    if isinstance(e, ir.Var):
        return e.name == t and bound >= 0
    if not isinstance(e, ir.BinOp):
        return False
    if e.op == "min":
        return _at_most(e.lhs, t, bound) or _at_most(e.rhs, t, bound)
    return (e.op == "+" and isinstance(e.lhs, ir.Var) and e.lhs.name == t and isinstance(e.rhs, ir.Const)
            and isinstance(e.rhs.value, int) and e.rhs.value <= bound)


def _row_phase(phase, any_step: bool = False) -> bool:
    # a triangle cut by rows (``row_weights``) cuts its rows by work, not evenly, and may sit under
    # its nest's guard: it stays a phase of its own
    # (overlapped chunks, backends/cpu/overlap.py, recompute rows before their first: not a row phase)
    return (phase.parallel and not phase.row_weights and not phase.is_region and not phase.overlap
            and isinstance(phase.start, ir.Const)
            and phase.start.value == 0 and (phase.step == 1 or any_step) and phase.stop is not None)


def _accesses(program: LoopProgram, phase) -> tuple[set[str], set[str], set[str]]:
    """(arrays accessed at the current row, arrays written, arrays accessed some other way) by
    ``phase``, its private arrays left out (each thread has its own)."""
    row: set[str] = set()
    written: set[str] = set()
    other: set[str] = set()
    node = phase.node.then if phase.blas_rows and isinstance(phase.node, If) else phase.node  # under its guard
    if isinstance(node, StmtCall):
        stmt = program.statement(node.statement)
        assert stmt.region is not None  # (a product kept whole: phases.row_chunked)
        op = stmt.region.body[0]
        assert isinstance(op, rg.Matmul)
        written.add(op.out.array)
        if op.batch:  # a stack cut by its batch axis (phases.stack_cut): not the matrices' rows
            other.update({op.out.array, op.a.array, op.b.array}, stmt.sources())
            return row, written, other
        row.add(op.out.array)
        (row if _row_operand(op.a, op.variables[0]) else other).add(op.a.array)
        other.update(set(stmt.sources()) - {op.a.array, op.out.array})
        return row, written, other
    loop = phase.node
    assert isinstance(loop, For)
    for call in (n for n in nodes(loop) if isinstance(n, StmtCall)):
        stmt = program.statement(call.statement)
        if stmt.region is not None:
            written.update(stmt.targets)
            other.update(stmt.targets, stmt.sources())
            continue
        values = dict(zip(stmt.iterators, call.args))
        written.add(stmt.array)
        index = tuple(ir.substitute(e, values) for e in stmt.index)
        (row if _at_row(index, loop.iterator) else other).add(stmt.array)
        for load in (e for root in (stmt.value, *stmt.index) for e in ir.walk(root) if isinstance(e, ir.Load)):
            at = tuple(ir.substitute(e, values) for e in load.index)
            (row if _at_row(at, loop.iterator) else other).add(load.array)
    private = set(phase.private)
    return row - private, written - private, other - private


def _at_row(index: tuple[ir.Expr, ...], iterator: str) -> bool:
    """Axis 0 is exactly the iterator and no other axis uses it."""
    if not index or not (isinstance(index[0], ir.Var) and index[0].name == iterator):
        return False
    return not any(isinstance(e, ir.Var) and e.name == iterator for x in index[1:] for e in ir.walk(x))


def _row_operand(x: rg.Operand, row: str) -> bool:
    return len(x.index) == 2 and _at_row(x.index, row)
