"""Max and min reductions split into vector lanes, with exactly Python's result.

``m = max(m, x[j])`` over ``j`` is one chain of compare-and-select: LLVM does not vectorize it
(reordering could change which of two equal values wins) and each step waits for the previous one.
This pass rewrites such a loop on the loop AST::

    lanes[0:W] = m                            # W = two SIMD registers of elements
    for jb in range(lo, hi - W + 1, W):       # full groups, lanes side by side (vectorized)
        for l in range(W): lanes[l] = max(lanes[l], x[jb + l])
    v = lanes[0]; v = max(v, lanes[1]); ...   # combine in lane order
    for j in range(tail, hi): v = max(v, x[j])
    if v == 0.0:                              # +0.0 and -0.0 tie: only here can the order matter
        for j in range(lo, hi): m = max(m, x[j])   # the original loop
    else:
        m = v

Why the result is Python's, bit for bit: ``max(a, b)`` keeps ``a`` unless ``b > a``.  Every lane
starts from ``m``, so a NaN ``m`` stays NaN in every lane and through the combine, as it does in
the original loop; a NaN element never wins a ``>`` and is skipped in both.  Otherwise the result
is the largest value, and equal values are the same bits except for the zeros, whose sign depends
on which came first: a zero result reruns the original loop.  ``x`` is evaluated again there,
which is safe because the loop contains nothing but the reduction (``x`` reads nothing it writes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, LoopRewrite, Node, StmtCall, exclusive_bound
from polyfuse.model.scop import ArrayInfo, Statement

_FLOATS = ("float32", "float64")


@dataclass(frozen=True)
class LaneSplit:
    """One max/min reduction loop run in lanes, for ``explain()``."""

    loop: str  # iterator of the reduction loop
    statement: str
    op: str  # "max" | "min"
    accumulator: str
    lanes: int


def split_minmax_reductions(program: LoopProgram, *, vector_bytes: int,
                            ) -> tuple[LoopProgram, tuple[LaneSplit, ...]]:
    """``program`` with every innermost ``acc = max(acc, x)`` / ``min`` loop over a float local
    run in lanes of two SIMD registers (see the module docstring)."""
    if vector_bytes <= 0:
        return program, ()
    return _Splitter(program, vector_bytes).run()


class _Splitter(LoopRewrite):
    def __init__(self, program: LoopProgram, vector_bytes: int) -> None:
        super().__init__(program)
        self.vector_bytes = vector_bytes

    def rewrite(self, loop: For) -> Node | None:
        found = self.reduction(loop)
        if found is None:
            return None
        call, stmt, op, operand = found
        info = self.infos[stmt.array]
        width = max(2, 2 * self.vector_bytes // (4 if info.dtype == "float32" else 8))
        hi, lo = exclusive_bound(loop), loop.init
        assert hi is not None, "reduction() checked the bound"
        lanes = self.local(f"{stmt.array}_lanes", info.dtype, (ir.int_const(width),))
        combined = self.local(f"{stmt.array}_lanes_max" if op == "max" else f"{stmt.array}_lanes_min",
                              info.dtype, ())
        lane, group, rest = (self.fresh(f"{loop.iterator}_{s}") for s in ("lane", "group", "rest"))
        lane_var, group_var = ir.Var(lane, ir.INT), ir.Var(group, ir.INT)
        slot = self.fresh("_lane")
        slot_var = ir.Var(slot, ir.INT)
        dtype = info.dtype

        def load(array: str, *index: ir.Expr) -> ir.Load:
            return ir.Load(array, tuple(index), dtype)

        def new(name: str, iterators: tuple[str, ...], array: str, index: tuple[ir.Expr, ...],
                value: ir.Expr) -> str:
            text = f"{array}[{', '.join(ir.to_python(i) for i in index)}] = {ir.to_python(value)}"
            return self.add_statement(replace(stmt, name=self.fresh(f"{stmt.name}_{name}"), iterators=iterators,
                                              array=array, index=index, value=value,
                                              span=replace(stmt.span, text=text))).name

        def loop_over(iterator: str, start: ir.Expr, stop: ir.Expr, body: Node, step: int = 1) -> For:
            return For(iterator, start, ir.Compare("<", ir.Var(iterator, ir.INT), stop), step, body)

        def args_at(position: ir.Expr) -> tuple[ir.Expr, ...]:
            return tuple(ir.substitute(a, {loop.iterator: position}) for a in call.args)

        fill = new("fill", (slot,), lanes.name, (slot_var,), load(stmt.array))
        update = new("lanes", stmt.iterators + (slot,), lanes.name, (slot_var,),
                     ir.BinOp(op, load(lanes.name, slot_var), operand, dtype))
        first = new("combine0", (), combined.name, (), load(lanes.name, ir.int_const(0)))
        combine = new("combine", (slot,), combined.name, (),
                      ir.BinOp(op, load(combined.name), load(lanes.name, slot_var), dtype))
        tail = new("tail", stmt.iterators, combined.name, (), ir.BinOp(op, load(combined.name), operand, dtype))
        store = new("store", (), stmt.array, (), load(combined.name))

        groups_end = ir.BinOp("+", lo, ir.BinOp("*", ir.BinOp("//", ir.BinOp(
            "max", ir.BinOp("-", hi, lo, ir.INT, True), ir.int_const(0), ir.INT, True), ir.int_const(width),
            ir.INT, True), ir.int_const(width), ir.INT, True), ir.INT, True)
        width_c = ir.int_const(width)
        in_group = ir.BinOp("+", group_var, lane_var, ir.INT, True)
        body = Block((
            loop_over(lane, ir.int_const(0), width_c, StmtCall(fill, (lane_var,))),
            loop_over(group, lo, groups_end,
                      loop_over(lane, ir.int_const(0), width_c, StmtCall(update, args_at(in_group) + (lane_var,))),
                      step=width),
            StmtCall(first, ()),
            loop_over(lane, ir.int_const(1), width_c, StmtCall(combine, (lane_var,))),
            loop_over(rest, groups_end, hi, StmtCall(tail, args_at(ir.Var(rest, ir.INT)))),
            If(ir.Compare("==", load(combined.name), ir.Const(0.0, dtype, weak=True)), loop,
               StmtCall(store, ())),
        ))
        self.decisions.append(LaneSplit(loop.iterator, stmt.name, op, stmt.array, width))
        return body

    def reduction(self, loop: For) -> tuple[StmtCall, Statement, str, ir.Expr] | None:
        """``(call, statement, op, x)`` when ``loop`` is ``for j: acc = max(acc, x)`` (or min)
        with a float local scalar ``acc`` that ``x`` does not read; else None."""
        call = loop.body.children[0] if isinstance(loop.body, Block) and len(loop.body.children) == 1 else loop.body
        if not isinstance(call, StmtCall) or loop.step != 1 or exclusive_bound(loop) is None:
            return None
        stmt = self.program.statement(call.statement)
        info = self.infos.get(stmt.array)
        if info is None or not info.is_scalar or info.dtype not in _FLOATS:
            return None
        value = stmt.value
        if not (isinstance(value, ir.BinOp) and value.op in ("max", "min") and value.dtype == info.dtype
                and isinstance(value.lhs, ir.Load) and value.lhs.array == stmt.array and not value.lhs.index):
            return None
        if any(isinstance(e, ir.Load) and e.array == stmt.array for e in ir.walk(value.rhs)):
            return None
        return call, stmt, value.op, value.rhs

    def local(self, stem: str, dtype: str, shape: tuple[ir.Expr, ...]) -> ArrayInfo:
        return self.add_array(ArrayInfo(self.fresh(stem), dtype, shape, "local", register_tile=bool(shape)))


__all__ = ["LaneSplit", "split_minmax_reductions"]
