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

A sum that no parallel loop encloses (a full reduction, ``x.mean()``), with bounds fixed for
the call, is also cut across the thread team: its chunks of ``block * FAN_IN`` terms become the
iterations of a parallel loop, each summing its terms (in the two inner levels above) into its
own element of a small local array, and a serial loop then adds those partials in chunk order,
``FAN_IN`` at a time, into the accumulator::

    for c in range(nchunks):                   # parallel: any thread, any number of threads
        part1 = -0.0
        for kb in range(lo + c * B * F, min(lo + (c + 1) * B * F, hi), B):
            part0 = -0.0
            for k in range(kb, min(kb + B, hi)):
                part0 = part0 + x[k]
            part1 = part1 + part0
        parts[c] = part1
    for g in range(0, nchunks, F):             # serial: chunk order
        part2 = -0.0
        for c in range(g, min(g + F, nchunks)):
            part2 = part2 + parts[c]
        acc = acc + part2

Every addition is the one the serial blocked loop makes, in the same tree, so the result is
bitwise the same on 1, 2 or 3 threads, and the same as before the cut.  At the top of the
program the two loops are two phases of their own (the chunks a parallel phase), with no test of
the length around them: behind one, the whole was a parallel region, compiled twice (mean_std's
backend took 290 ms instead of 170); a sum of one chunk or less then pays for the chunk loops, a
few nanoseconds.  Loops the user wrote carry no ``reassoc`` mark and are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, Node, StmtCall, exclusive_bound
from polyfuse.model.scop import ArrayInfo, Statement, isl_name
from polyfuse.options import SUM_BLOCK
from polyfuse.passes.team_rewrite import TeamRewrite

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
    # chunks of block * fan_in terms run on the thread team, their partials added in chunk order
    threads: bool = False


def block_reductions(program: LoopProgram, *, block: int = BLOCK) -> tuple[LoopProgram, tuple[BlockedSum, ...]]:
    """``program`` with each innermost loop of NumPy float sums strip-mined into blocks of
    ``block`` iterations, each block summed apart (see the module docstring)."""
    if block < 2:
        return program, ()
    return _Blocker(program, block).run()


class _Blocker(TeamRewrite):
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
        if self.splittable(loop, hi, calls, found):
            return self.split(loop, hi, calls)
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

    def splittable(self, loop: For, hi: ir.Expr, calls: list[StmtCall], found: set[str]) -> bool:
        """The loop may run its chunks on the thread team: no parallel loop encloses it (its
        threads are taken), it holds nothing but the sums (their chunks are then independent:
        each reads no accumulator and writes only its own partials), and its bounds use no loop
        iterator (the partials' array is sized once per call)."""
        if self.parallel_depth or len(found) != len(calls):
            return False
        return not (self.moves(loop.init) or self.moves(hi))

    def split(self, loop: For, hi: ir.Expr, calls: list[StmtCall]) -> Node:
        """``loop`` as chunks on the thread team and their partials added in chunk order (the
        module docstring's second form): the additions of ``blocked``, in the same tree."""
        block, span = self.block, self.block * FAN_IN
        lo = loop.init
        chunk, inner, group, fold = (self.fresh(f"{loop.iterator}_{s}") for s in ("c", "b0", "g", "c2"))

        def var(name: str) -> ir.Expr:
            return ir.Var(name, ir.INT)

        def add(a: ir.Expr, b: ir.Expr) -> ir.Expr:
            return ir.BinOp("+", a, b, ir.INT, True)

        def least(a: ir.Expr, b: ir.Expr) -> ir.Expr:
            return ir.BinOp("min", a, b, ir.INT, True)

        length = ir.BinOp("max", ir.BinOp("-", hi, lo, ir.INT, True), ir.int_const(0), ir.INT, True)
        count = ir.BinOp("//", add(length, ir.int_const(span - 1)), ir.int_const(span), ir.INT, True)
        start = add(lo, ir.BinOp("*", var(chunk), ir.int_const(span), ir.INT, True))  # chunk c's first term
        inits0, inits1, folds0, stores, inits2, gathers, finals, body = [], [], [], [], [], [], [], []
        private: list[str] = []
        for call in calls:
            stmt = self.program.statement(call.statement)
            value = stmt.value
            assert isinstance(value, ir.BinOp)
            dtype = value.dtype
            part0, part1, part2 = (self.scalar(f"{stmt.array}_part{level}", dtype) for level in range(LEVELS))
            parts = self.add_array(ArrayInfo(self.fresh(f"{stmt.array}_parts"), dtype, (count,), "local")).name
            private += [part0.array, part1.array]
            identity = ir.Const(-0.0, dtype)  # the exact identity of +: x + -0.0 is x
            inits0.append(self.call(stmt, "init0", part0, identity))
            inits1.append(self.call(stmt, "init1", part1, identity))
            inits2.append(self.call(stmt, "init2", part2, identity))
            body.append(StmtCall(self.new(stmt, "part", stmt.iterators, part0.array, (), replace(value, lhs=part0)),
                                 call.args))
            folds0.append(self.call(stmt, "fold0", part1, ir.BinOp(value.op, part1, part0, dtype)))
            stores.append(StmtCall(self.new(stmt, "store1", (chunk,), parts, (var(chunk),), part1), (var(chunk),)))
            gathers.append(StmtCall(self.new(stmt, "fold1", (fold,), part2.array, (),
                                             ir.BinOp(value.op, part2, ir.Load(parts, (var(fold),), dtype), dtype)),
                                    (var(fold),)))
            accumulator = ir.Load(stmt.array, stmt.index, dtype)
            last = self.new(stmt, "fold", stmt.iterators, stmt.array, stmt.index,
                            ir.BinOp(value.op, accumulator, part2, dtype))
            # the accumulator's index does not use the loop: any of its points will do
            finals.append(StmtCall(last, tuple(ir.substitute(a, {loop.iterator: lo}) for a in call.args)))
        terms = replace(loop, init=var(inner), body=Block(tuple(body)) if len(body) > 1 else body[0],
                        cond=ir.Compare("<", var(loop.iterator), least(add(var(inner), ir.int_const(block)), hi)))
        blocks = For(inner, start, ir.Compare("<", var(inner), least(add(start, ir.int_const(span)), hi)), block,
                     Block((*inits0, terms, *folds0)))
        chunks = For(chunk, ir.int_const(0), ir.Compare("<", var(chunk), count), 1,
                     Block((*inits1, blocks, *stores)), parallel=True, private=tuple(private),
                     why_parallel="chunks of a NumPy sum (reassociable): each adds its own terms into its own "
                                  "partial; the partials are added in chunk order after the loop")
        in_order = For(fold, var(group), ir.Compare("<", var(fold), least(add(var(group), ir.int_const(FAN_IN)),
                                                                          count)), 1,
                       Block(tuple(gathers)) if len(gathers) > 1 else gathers[0])
        groups = For(group, ir.int_const(0), ir.Compare("<", var(group), count), FAN_IN,
                     Block((*inits2, in_order, *finals)))
        self.decisions.append(BlockedSum(loop.iterator, tuple(sorted(c.statement for c in calls)), block, FAN_IN,
                                         LEVELS, threads=True))
        if self.loop_depth == 1:  # at the top: its own phases, the chunks a parallel one
            return self.at_top((chunks, groups))
        longer = ir.Compare(">", ir.BinOp("-", hi, lo, ir.INT, True), ir.int_const(block))
        return If(longer, Block((chunks, groups)), loop)

    def scalar(self, stem: str, dtype: str) -> ir.Load:
        return ir.Load(self.add_array(ArrayInfo(self.fresh(stem), dtype, (), "local")).name, (), dtype)

    def call(self, stmt: Statement, suffix: str, target: ir.Load, value: ir.Expr) -> StmtCall:
        """A statement ``target = value`` of no iterator, derived from ``stmt``."""
        return StmtCall(self.new(stmt, suffix, (), target.array, (), value), ())

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
