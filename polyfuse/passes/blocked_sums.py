"""NumPy sums accumulated block by block, so long float reductions stay accurate.

A reduction polyfuse lowered from NumPy code (``np.sum``, ``x.mean(axis=-1)``, ``a @ b`` as
loops: ``ir.BinOp.reassoc``) is vectorized by LLVM into L partial sums, one per vector lane, each
adding ``n / L`` terms in sequence: the error grows like ``(n / L) * eps``, where NumPy's pairwise
sum grows like ``log2(n) * eps``.  For a million float32 values that was 20-30 times NumPy's error
(a float32 program whose iteration count depended on a difference of two sums stopped 7 steps
off).  This pass strip-mines the innermost loop of such a reduction::

    for k in range(lo, hi):                    for kb in range(lo, hi, B):
        acc = acc + x[k]            ->             part = -0.0
                                                   for k in range(kb, min(kb + B, hi)):
                                                       part = part + x[k]     # lanes, as before
                                                   acc = acc + part

so each lane adds ``B / L`` terms and the accumulator ``n / B`` block sums: the error grows like
``(B / L + n / B) * eps``.  It is a regrouping of the additions only, which ``reassoc`` allows;
``-0.0`` is the exact identity of ``+``, so signed zeros, NaN and infinities come
out as before.  The accumulator may be a local scalar or an array element whose index the loop
does not change; the other statements of the loop are kept in order and must not touch it.
Only the CPU target runs it (the Python backend is the reference and sums in order; GPU threads
keep their own sums).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, LoopRewrite, Node, StmtCall, exclusive_bound
from polyfuse.model.scop import ArrayInfo, Statement, isl_name
from polyfuse.options import SUM_BLOCK

#: Terms per block: each of ~32 lanes then adds ~64 in sequence, and a million terms are ~500
#: block sums.  The per-block cost (folding the lanes, one add) is a few nanoseconds against the
#: ~1 microsecond of streaming 2048 float64 values.
BLOCK = SUM_BLOCK
#: Chunks of each level summed by the next: with three levels a partial adds at most 32 values
#: in sequence up to 2048 * 32 * 32 = 2M terms, a tree of fan-in 32 (NumPy's pairwise: fan-in 2).
FAN_IN = 32
LEVELS = 3
_FLOATS = ("float32", "float64")


@dataclass(frozen=True)
class BlockedSum:
    """One reduction loop run in blocks, for ``explain()``."""

    loop: str  # iterator of the reduction loop
    statements: tuple[str, ...]  # the reductions now summed block by block
    block: int  # terms per innermost chunk
    fan_in: int  # chunks per chunk of the next level
    levels: int


def block_reductions(program: LoopProgram, *, block: int = BLOCK) -> tuple[LoopProgram, tuple[BlockedSum, ...]]:
    """``program`` with each innermost loop of NumPy float sums strip-mined into blocks of
    ``block`` iterations, each block summed apart (see the module docstring)."""
    if block < 2:
        return program, ()
    return _Blocker(program, block).run()


class _Blocker(LoopRewrite):
    def __init__(self, program: LoopProgram, block: int) -> None:
        super().__init__(program)
        self.block = block

    def rewrite(self, loop: For) -> Node | None:
        calls = _calls(loop.body)
        hi = exclusive_bound(loop)
        if calls is None or hi is None or loop.step != 1 or _short(loop.init, hi, self.block):
            return None
        found = self.reductions(calls, loop.iterator)
        if not found:
            return None
        sizes = [self.block * FAN_IN**level for level in range(LEVELS)]  # terms per level's chunk
        starts = [self.fresh(f"{loop.iterator}_b{level}") for level in range(LEVELS)]

        def var(level: int) -> ir.Var:
            return ir.Var(starts[level], ir.INT)

        def chunk_end(level: int) -> ir.Expr:
            """Where the chunk of ``level`` that starts at its iterator ends."""
            return ir.BinOp("min", ir.BinOp("+", var(level), ir.int_const(sizes[level]), ir.INT, True), hi,
                            ir.INT, True)

        # per reduction: one partial per level, folded into the next level's, the last into acc
        inits: list[list[StmtCall]] = [[] for _ in sizes]
        folds: list[list[StmtCall]] = [[] for _ in sizes]
        body: list[StmtCall] = []
        for call in calls:
            if call.statement not in found:
                body.append(call)
                continue
            stmt = self.program.statement(call.statement)
            value = stmt.value
            assert isinstance(value, ir.BinOp)
            parts = [ir.Load(self.add_array(ArrayInfo(self.fresh(f"{stmt.array}_part{level}"), value.dtype, (),
                                                      "local")).name, (), value.dtype)
                     for level in range(LEVELS)]
            identity = ir.Const(-0.0, value.dtype)  # the exact identity of +: x + -0.0 is x
            for level, part in enumerate(parts):
                inits[level].append(StmtCall(self.new(stmt, f"init{level}", (), part.array, (), identity), ()))
                if level + 1 < LEVELS:
                    fold = self.new(stmt, f"fold{level}", (), parts[level + 1].array, (),
                                    ir.BinOp(value.op, parts[level + 1], part, value.dtype))
                    folds[level].append(StmtCall(fold, ()))
            body.append(StmtCall(self.new(stmt, "part", stmt.iterators, parts[0].array, (),
                                          replace(value, lhs=parts[0])), call.args))
            accumulator = ir.Load(stmt.array, stmt.index, value.dtype)
            last = self.new(stmt, "fold", stmt.iterators, stmt.array, stmt.index,
                            ir.BinOp(value.op, accumulator, parts[-1], value.dtype))
            # at the outermost chunk's first point: the accumulator's index does not use the loop
            folds[-1].append(StmtCall(last, tuple(ir.substitute(a, {loop.iterator: var(LEVELS - 1)})
                                                  for a in call.args)))
        node: Node = replace(loop, init=var(0), cond=ir.Compare("<", ir.Var(loop.iterator, ir.INT), chunk_end(0)),
                             body=Block(tuple(body)) if len(body) > 1 else body[0])
        for level in range(LEVELS):
            outer_end = chunk_end(level + 1) if level + 1 < LEVELS else hi
            begin = var(level + 1) if level + 1 < LEVELS else loop.init
            node = For(starts[level], begin, ir.Compare("<", var(level), outer_end), sizes[level],
                       Block((*inits[level], node, *folds[level])))
        self.decisions.append(BlockedSum(loop.iterator, tuple(sorted(found)), self.block, FAN_IN, LEVELS))
        # a loop of one chunk or less runs as it was: the chunk loops cost more than they save there
        longer = ir.Compare(">", ir.BinOp("-", hi, loop.init, ir.INT, True), ir.int_const(self.block))
        return If(longer, node, loop)

    def reductions(self, calls: list[StmtCall], iterator: str) -> set[str]:
        """The calls' float ``acc = acc + term`` NumPy reductions whose accumulator no
        other statement of the loop touches and whose index the loop does not move."""
        found: set[str] = set()
        statements = [self.program.statement(c.statement) for c in calls]
        for call, stmt in zip(calls, statements):
            value = stmt.value
            if stmt.region is not None or not stmt.reassociable or not isinstance(value, ir.BinOp):
                continue
            if value.op != "+" or value.dtype not in _FLOATS:
                continue
            info = self.infos.get(stmt.array)
            if info is None or info.dtype != value.dtype or any(s is not stmt and stmt.array in _touched(s)
                                                                for s in statements):
                continue
            lhs = value.lhs
            if not (isinstance(lhs, ir.Load) and lhs.array == stmt.array and lhs.index == stmt.index):
                continue
            if any(isinstance(e, ir.Load) and e.array == stmt.array for e in ir.walk(value.rhs)):
                continue
            if any(isinstance(e, ir.Load) for i in stmt.index for e in ir.walk(i)):
                continue  # a subscript read from memory could change within the loop
            if _moves_with_loop(stmt, call, iterator):
                continue
            found.add(stmt.name)
        return found

    def new(self, stmt: Statement, suffix: str, iterators: tuple[str, ...], array: str,
            index: tuple[ir.Expr, ...], value: ir.Expr) -> str:
        text = f"{array}[{', '.join(ir.to_python(i) for i in index)}] = {ir.to_python(value)}"
        return self.add_statement(replace(stmt, name=self.fresh(f"{stmt.name}_{suffix}"), iterators=iterators,
                                          array=array, index=index, value=value,
                                          span=replace(stmt.span, text=text))).name


def _calls(body: Node) -> list[StmtCall] | None:
    """The statement calls of a loop body made of calls only (an innermost loop), else None."""
    if isinstance(body, StmtCall):
        return [body]
    if isinstance(body, Block) and body.children and all(isinstance(c, StmtCall) for c in body.children):
        return list(body.children)  # type: ignore[arg-type]
    return None


def _short(lo: ir.Expr, hi: ir.Expr, block: int) -> bool:
    """The loop runs at most ``block`` iterations whatever the sizes (constant bounds)."""
    return isinstance(lo, ir.Const) and isinstance(hi, ir.Const) and int(hi.value) - int(lo.value) <= block


def _touched(stmt: Statement) -> set[str]:
    return {stmt.array} | stmt.sources()


def _moves_with_loop(stmt: Statement, call: StmtCall, iterator: str) -> bool:
    """The accumulator's index, in the loop AST's iterators, uses ``iterator``: then each
    iteration updates its own element and there is no sum to block."""
    values = {isl_name(v): a for v, a in zip(stmt.iterators, call.args)}
    values.update(zip(stmt.iterators, call.args))
    return any(isinstance(e, ir.Var) and e.name == iterator
               for i in stmt.index for e in ir.walk(ir.substitute(i, values)))


__all__ = ["BLOCK", "BlockedSum", "block_reductions"]
