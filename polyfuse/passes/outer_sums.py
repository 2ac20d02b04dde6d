"""NumPy axis sums whose reduction loop runs outside the parallel loop, in blocks of rows.

Column sums (``X.mean(axis=0)``, ``(xc * xc).sum(axis=0)``) come out of the scheduler as the
rows outermost, carrying every accumulator, and the columns inside, parallel::

    for i in range(lo, hi):                    # sequential: acc[j] is carried
        for j in range(a, b):                  # parallel, streams a row
            acc[j] = acc[j] + X[i, j]

On threads that is a barrier per row, a few microseconds of work each: too little, so it ran on
one thread.  The sums are NumPy's (``ir.BinOp.reassoc``: the order of the additions is free), so
this pass cuts the rows into blocks of ``ROWS``, sums each block into its own row of partials,
the blocks in a parallel loop, and then adds the blocks' partials to the accumulators in block
order::

    for c in range(nblocks):                   # parallel: any thread, any number of threads
        for j in range(a, b):
            parts[c, j - a] = -0.0
        for i in range(lo + c * ROWS, min(lo + (c + 1) * ROWS, hi)):
            for j in range(a, b):
                parts[c, j - a] = parts[c, j - a] + X[i, j]
    for c in range(nblocks):                   # sequential: block order
        for j in range(a, b):
            acc[j] = acc[j] + parts[c, j - a]

Each thread streams whole rows, and the grouping depends on ``ROWS`` alone, never on the thread
count: the result is bitwise the same on 1, 2 or 3 threads.  ``-0.0`` is the exact identity of
``+``, so zeros, NaN and infinities come out as in NumPy.  Only loops at the top of the program
(no parallel loop around them) whose bounds are fixed for the call, holding nothing but such
sums, are cut.  Loops the user writes carry no ``reassoc`` mark and are never touched.  The CPU
target only.

At the top of the program the two loops replace the original outright and become two phases of
their own, the blocks a parallel phase: kept behind a run-time test with the original loop as
the other branch, the whole was a parallel region, compiled twice (region and serial function),
and standardize_cols's backend took 650 ms instead of 375 (330 uncut).  The price: at most
``ROWS`` rows make one block, so a short column sum (2 rows of a million columns) runs on one
thread and writes and reads one row of partials more.  Inside a sequential loop the original
stays, behind a run-time test, for ``ROWS`` rows or fewer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, Node, StmtCall, exclusive_bound
from polyfuse.model.scop import ArrayInfo, Statement, isl_name
from polyfuse.passes.team_rewrite import TeamRewrite

#: Rows per block: the partials add 2 / ROWS of the reads' traffic (3% here), and 1500 rows
#: make 24 blocks to share out.
ROWS = 64
_FLOATS = ("float32", "float64")


@dataclass(frozen=True)
class OuterSum:
    """One reduction loop around a parallel loop, now summed in blocks of rows, for ``explain()``."""

    loop: str  # the reduction loop (rows)
    inner: str  # the parallel loop inside it (columns)
    statements: tuple[str, ...]
    rows: int  # rows per block


def block_outer_sums(program: LoopProgram, *, rows: int = ROWS) -> tuple[LoopProgram, tuple[OuterSum, ...]]:
    """``program`` with each top-level NumPy column sum run in blocks of ``rows`` rows on the
    thread team (see the module docstring)."""
    if rows < 2:
        return program, ()
    return _Splitter(program, rows).run()


class _Splitter(TeamRewrite):
    def __init__(self, program: LoopProgram, rows: int) -> None:
        super().__init__(program)
        self.rows = rows

    def rewrite(self, loop: For) -> Node | None:
        inner = _only_loop(loop.body)
        if self.parallel_depth or loop.parallel or inner is None or not inner.parallel:
            return None
        hi, end = exclusive_bound(loop), exclusive_bound(inner)
        calls = _calls(inner.body)
        if hi is None or end is None or calls is None or loop.step != 1 or inner.step != 1:
            return None
        if any(self.moves(bound) for bound in (loop.init, hi, inner.init, end)):
            return None
        if _at_most(loop.init, hi, self.rows) or not all(self.column_sum(c, loop, inner) for c in calls):
            return None
        return self.split(loop, hi, inner, end, calls)

    def column_sum(self, call: StmtCall, loop: For, inner: For) -> bool:
        """``acc[f(j)] = acc[f(j)] + term`` (a NumPy float sum) whose element moves with the
        inner loop and not with the reduction loop, and whose term reads no accumulator."""
        stmt = self.program.statement(call.statement)
        value = stmt.value
        if stmt.region is not None or not stmt.reassociable or not isinstance(value, ir.BinOp):
            return False
        info = self.infos.get(stmt.array)
        if value.op != "+" or value.dtype not in _FLOATS or info is None or info.dtype != value.dtype:
            return False
        if value.lhs != ir.Load(stmt.array, stmt.index, value.dtype):
            return False
        if any(isinstance(e, ir.Load) and (e.array == stmt.array or e.array in self.written(inner))
               for e in ir.walk(value.rhs)):
            return False
        if any(isinstance(e, ir.Load) for i in stmt.index for e in ir.walk(i)):
            return False  # a subscript read from memory
        used = _iterators_of_index(stmt, call)
        return inner.iterator in used and loop.iterator not in used

    def written(self, inner: For) -> set[str]:
        return {self.program.statement(c.statement).array for c in _calls(inner.body) or ()}

    def split(self, loop: For, hi: ir.Expr, inner: For, end: ir.Expr, calls: list[StmtCall]) -> Node:
        rows, lo, start = self.rows, loop.init, inner.init
        block, blocks_fold = self.fresh(f"{loop.iterator}_blk"), self.fresh(f"{loop.iterator}_blk")
        count = _div_up(_non_negative(_minus(hi, lo)), rows)
        width = _non_negative(_minus(end, start))
        first_row = _plus(lo, ir.BinOp("*", _var(block), ir.int_const(rows), ir.INT, True))
        inits, parts_body, folds = [], [], []
        for call in calls:
            stmt = self.program.statement(call.statement)
            value = stmt.value
            assert isinstance(value, ir.BinOp)
            parts = self.add_array(ArrayInfo(self.fresh(f"{stmt.array}_rows"), value.dtype, (count, width),
                                             "local")).name
            # the new statements name the block and the column by iterators of their own
            b, j = self.fresh("pf_blk"), self.fresh("pf_col")
            slot = ir.Load(parts, (_var(b), _minus(_var(j), start)), value.dtype)
            extra = (b, j)
            inits.append(StmtCall(self.new(stmt, "rows_init", extra, slot, ir.Const(-0.0, value.dtype)),
                                  (_var(block), _var(inner.iterator))))
            parts_body.append(StmtCall(self.new(stmt, "rows_part", (*stmt.iterators, *extra), slot,
                                                replace(value, lhs=slot)),
                                       (*call.args, _var(block), _var(inner.iterator))))
            accumulator = ir.Load(stmt.array, stmt.index, value.dtype)
            fold = self.new(stmt, "rows_fold", (*stmt.iterators, *extra), accumulator,
                            ir.BinOp(value.op, accumulator, slot, value.dtype))
            # the accumulator's element does not move with the rows: any row will do
            args = tuple(ir.substitute(a, {loop.iterator: lo}) for a in call.args)
            folds.append(StmtCall(fold, (*args, _var(blocks_fold), _var(inner.iterator))))

        def columns(body: list[StmtCall], parallel: bool) -> For:
            return replace(inner, body=Block(tuple(body)) if len(body) > 1 else body[0], parallel=parallel,
                           private=())

        rows_loop = replace(loop, init=first_row, body=columns(parts_body, True),
                            cond=ir.Compare("<", _var(loop.iterator),
                                            _least(_plus(first_row, ir.int_const(rows)), hi)))
        blocks = For(block, ir.int_const(0), ir.Compare("<", _var(block), count), 1,
                     Block((columns(inits, True), rows_loop)), parallel=True,
                     why_parallel="blocks of rows of a NumPy sum (reassociable): each sums its rows into its "
                                  "own row of partials; the blocks are added in block order after the loop")
        fold_loop = replace(inner, body=Block(tuple(folds)) if len(folds) > 1 else folds[0], parallel=False,
                            private=())
        in_order = For(blocks_fold, ir.int_const(0), ir.Compare("<", _var(blocks_fold), count), 1, fold_loop)
        self.decisions.append(OuterSum(loop.iterator, inner.iterator,
                                       tuple(sorted(c.statement for c in calls)), rows))
        if self.loop_depth == 1:  # at the top: two phases, the blocks a parallel one (see above)
            return self.at_top((blocks, in_order))
        longer = ir.Compare(">", _minus(hi, lo), ir.int_const(rows))
        return If(longer, Block((blocks, in_order)), loop)

    def new(self, stmt: Statement, suffix: str, iterators: tuple[str, ...], target: ir.Load,
            value: ir.Expr) -> str:
        text = f"{target.array}[{', '.join(ir.to_python(i) for i in target.index)}] = {ir.to_python(value)}"
        return self.add_statement(replace(stmt, name=self.fresh(f"{stmt.name}_{suffix}"), iterators=iterators,
                                          array=target.array, index=target.index, value=value,
                                          span=replace(stmt.span, text=text))).name


def _guarded(loop: For, guard: ir.Expr) -> For:
    """``loop`` running only where ``guard`` holds (its bound is its start otherwise)."""
    bound = exclusive_bound(loop)
    assert bound is not None
    stop = ir.Select(guard, bound, loop.init, ir.INT, True)
    return replace(loop, cond=ir.Compare("<", ir.Var(loop.iterator, ir.INT), stop))


def _only_loop(body: Node) -> For | None:
    if isinstance(body, Block) and len(body.children) == 1:
        body = body.children[0]
    return body if isinstance(body, For) else None


def _calls(body: Node) -> list[StmtCall] | None:
    """The statement calls of a loop body made of calls only, else None."""
    if isinstance(body, StmtCall):
        return [body]
    if isinstance(body, Block) and body.children and all(isinstance(c, StmtCall) for c in body.children):
        return list(body.children)  # type: ignore[arg-type]
    return None


def _iterators_of_index(stmt: Statement, call: StmtCall) -> set[str]:
    """The loop-AST iterators the accumulator's subscript uses at this call."""
    values = {isl_name(v): a for v, a in zip(stmt.iterators, call.args)}
    values.update(zip(stmt.iterators, call.args))
    return {e.name for i in stmt.index for e in ir.walk(ir.substitute(i, values)) if isinstance(e, ir.Var)}


def _at_most(lo: ir.Expr, hi: ir.Expr, rows: int) -> bool:
    """The loop runs at most ``rows`` iterations whatever the sizes (constant bounds)."""
    return isinstance(lo, ir.Const) and isinstance(hi, ir.Const) and int(hi.value) - int(lo.value) <= rows


def _var(name: str) -> ir.Expr:
    return ir.Var(name, ir.INT)


def _plus(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.BinOp("+", a, b, ir.INT, True)


def _minus(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.BinOp("-", a, b, ir.INT, True)


def _least(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.BinOp("min", a, b, ir.INT, True)


def _non_negative(a: ir.Expr) -> ir.Expr:
    return ir.BinOp("max", a, ir.int_const(0), ir.INT, True)


def _div_up(a: ir.Expr, b: int) -> ir.Expr:
    return ir.BinOp("//", _plus(a, ir.int_const(b - 1)), ir.int_const(b), ir.INT, True)


__all__ = ["ROWS", "OuterSum", "block_outer_sums"]
