"""LLVM rules for the body of an opaque region (model/region.py): code kept as written.

One ``emit_<Op>`` per operation.  Loops keep a (continue, break) target pair on a stack; a
``break``/``continue`` branches there and the rest of its block is emitted into a fresh block
nothing jumps to.  Every loop of a region also stops once a run-time subscript has failed
(the module's index-error flag is set): Python would have raised there, and a loop reading the
placeholder value might otherwise never end.  The IndexError is raised after the call, as for
any statement.
"""

from __future__ import annotations

from llvmlite import ir as ll
from polyfuse.backends.cpu.blas import MatmulEmitter
from polyfuse.backends.cpu.lapack import LapackEmitter
from polyfuse.backends.cpu.llvm_exprs import INDEX_ERROR, has_index

from polyfuse.model import ir
from polyfuse.model import region as rg

_I64 = ll.IntType(64)


class RegionEmitter:
    """Emits region operations with the builder, values and arrays of a ``KernelCodegen``."""

    def __init__(self, cg, span=None) -> None:
        self.cg = cg
        self.span = span  # the statement's, for errors
        self.loops: list[tuple[ll.Block, ll.Block]] = []  # (continue target, break target)

    @property
    def b(self) -> ll.IRBuilder:
        return self.cg.builder

    def emit(self, body: tuple[rg.Op, ...]) -> None:
        for op in body:
            getattr(self, f"emit_{type(op).__name__}")(op)

    def running(self, cond):
        """``cond`` and no run-time subscript has failed yet."""
        flag = self.b.load(self.cg.error_global(INDEX_ERROR))
        return self.b.and_(cond, self.b.icmp_signed("==", flag, ll.Constant(_I64, 0)))

    def emit_Assign(self, op: rg.Assign) -> None:
        exprs = self.cg.exprs
        value = exprs.emit(op.value)
        if has_index(op.index):  # never a store outside the array
            address, ok = exprs.checked_address(op.array, op.index)
            with self.b.if_then(ok):
                exprs.store_element(value, address, True)
        else:
            exprs.store_element(value, exprs._address(op.array, op.index), bool(op.index))

    def emit_While(self, op: rg.While) -> None:
        fn = self.cg.function
        header, body, done = (fn.append_basic_block(f"while.{part}") for part in ("header", "body", "done"))
        self.b.branch(header)
        self.b.position_at_end(header)
        self.b.cbranch(self.running(self.cg.exprs.emit(op.cond)), body, done)
        self.b.position_at_end(body)
        self.loop_body(op.body, header, done)
        self.b.position_at_end(done)

    def emit_ForRange(self, op: rg.ForRange) -> None:
        """``range(start, stop, step)``: bounds evaluated once, as Python does.  Subscripts that
        are the loop variable itself (``data[k]`` in a CSR row) are checked once, before the
        loop: when ``0 <= start`` and ``stop <= extent`` of each such axis, a copy of the loop
        without their per-iteration checks runs (numba-speed CSR rows), else the checked one."""
        exprs = self.cg.exprs
        stop, start = exprs.emit(op.stop), exprs.emit(op.start)
        extents = _own_extents(op)
        if not extents:
            self.range_loop(op, start, stop)
            return
        inside = self.b.icmp_signed(">=", start, ll.Constant(_I64, 0))
        for extent in extents:
            inside = self.b.and_(inside, self.b.icmp_signed("<=", stop, exprs.emit(extent)))
        with self.b.if_else(inside) as (fast, checked):
            with fast:
                self.range_loop(rg.ForRange(op.var, op.start, op.stop, op.step, _unchecked(op.body, op.var)),
                                start, stop)
            with checked:
                self.range_loop(op, start, stop)

    def range_loop(self, op: rg.ForRange, start, stop) -> None:
        fn = self.cg.function
        counter = self.cg.alloca_builder.alloca(_I64, name=op.var)
        self.b.store(start, counter)
        header, body, latch, done = (fn.append_basic_block(f"{op.var}.{part}")
                                     for part in ("header", "body", "next", "done"))
        self.b.branch(header)
        self.b.position_at_end(header)
        current = self.b.load(counter)
        more = self.b.icmp_signed("<" if op.step > 0 else ">", current, stop)
        self.b.cbranch(self.running(more), body, done)
        self.b.position_at_end(body)
        saved = self.cg.values.get(op.var)
        self.cg.values[op.var] = current
        self.loop_body(op.body, latch, done)
        self.b.position_at_end(latch)
        self.b.store(self.b.add(current, ll.Constant(_I64, op.step)), counter)
        self.b.branch(header)
        self.b.position_at_end(done)
        self.cg._restore(op.var, saved)

    def loop_body(self, body: tuple[rg.Op, ...], next_: ll.Block, done: ll.Block) -> None:
        self.loops.append((next_, done))
        self.emit(body)
        self.loops.pop()
        if not self.b.block.is_terminated:
            self.b.branch(next_)

    def emit_Matmul(self, op: rg.Matmul) -> None:
        MatmulEmitter(self).emit(op)

    def emit_Lapack(self, op: rg.Lapack) -> None:
        LapackEmitter(self).emit(op)

    def emit_IfElse(self, op: rg.IfElse) -> None:
        fn = self.cg.function
        cond = self.cg.exprs.emit(op.cond)
        then, merge = fn.append_basic_block("if.then"), fn.append_basic_block("if.end")
        otherwise = fn.append_basic_block("if.else") if op.otherwise else merge
        self.b.cbranch(cond, then, otherwise)
        for block, ops in ((then, op.then), (otherwise, op.otherwise)):
            if block is merge:
                continue
            self.b.position_at_end(block)
            self.emit(ops)
            if not self.b.block.is_terminated:
                self.b.branch(merge)
        self.b.position_at_end(merge)

    def jump(self, target: ll.Block, what: str) -> None:
        self.b.branch(target)
        self.b.position_at_end(self.cg.function.append_basic_block(f"after.{what}"))

    def emit_Break(self, op: rg.Break) -> None:
        self.jump(self.loops[-1][1], "break")

    def emit_Continue(self, op: rg.Continue) -> None:
        self.jump(self.loops[-1][0], "continue")


def _own_extents(op: rg.ForRange) -> list:
    """The extents of the axes ``op``'s body indexes with its variable alone (ascending loops)."""
    if op.step <= 0:
        return []
    found: list = []
    for node in ir.distinct_nodes(*rg.expressions(op.body)):
        if isinstance(node, ir.Index) and node.operand == ir.Var(op.var, ir.INT) and node.extent not in found:
            found.append(node.extent)
    return found


def _unchecked(body: tuple[rg.Op, ...], var: str) -> tuple[rg.Op, ...]:
    """``body`` with each subscript that is ``var`` alone used directly (checked before the loop).
    A node shared by several others stays shared (``rewritten``: ir.by_node)."""
    rewritten: dict[int, tuple[ir.Expr, ir.Expr]] = {}

    def expr(e: ir.Expr) -> ir.Expr:
        return ir.by_node(rewritten, e, rewrite)

    def rewrite(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Index) and e.operand == ir.Var(var, ir.INT):
            return e.operand
        return ir.map_children(e, expr)

    def op(o: rg.Op) -> rg.Op:
        if isinstance(o, rg.Assign):
            return rg.Assign(o.array, tuple(expr(i) for i in o.index), expr(o.value))
        if isinstance(o, rg.While):
            return rg.While(expr(o.cond), _unchecked(o.body, var))
        if isinstance(o, rg.ForRange):
            return rg.ForRange(o.var, expr(o.start), expr(o.stop), o.step, _unchecked(o.body, var))
        if isinstance(o, rg.IfElse):
            return rg.IfElse(expr(o.cond), _unchecked(o.then, var), _unchecked(o.otherwise, var))
        return o

    return tuple(op(o) for o in body)
