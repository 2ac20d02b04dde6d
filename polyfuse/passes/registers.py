"""Register promotion: a register tile's outputs live in a small local array across a loop.

A register tile (``polyfuse.schedule_tree.RegisterTile``) puts a few constant-trip point loops
inside a reduction loop ``k``::

    for k in ...:                      # the writes below do not depend on k
        for ii in range(i0, i0 + 4):
            for jj in range(j0, j0 + 16):
                C[ii, jj] += A[ii, k] * B[k, jj]

LLVM cannot keep ``C``'s tile in registers here: it cannot prove that rows ``ii`` and ``ii + 1``
of ``C`` (an unknown stride apart) do not overlap.  Promotion rewrites the loop to load the tile
into a local array with constant strides before ``k``, update the local array inside ``k`` and
store it back after::

    acc[0:4, 0:16] = C[i0:i0+4, j0:j0+16]
    for k in ...: (same loops)  acc[ii - i0, jj - j0] += A[ii, k] * B[k, jj]
    C[i0:i0+4, j0:j0+16] = acc[0:4, 0:16]

after which LLVM unrolls the point loops and keeps ``acc`` in vector registers.  Each value is
computed by the same operations in the same order, so results are bitwise unchanged.

It is legal when, inside ``k``: every access to a promoted array is the statement's own
``X[e]`` (the same subscripts for its read and write), ``e`` does not depend on ``k`` or on
anything ``k`` changes, the point loops' bounds do not depend on ``k``, and distinct points of
the tile address distinct elements (each point loop drives its own subscript with coefficient
+-1), so each element has exactly one slot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import count

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, Node, StmtCall, exclusive_bound
from polyfuse.model.scop import ArrayInfo, Statement

MAX_TILE_BYTES = 512  # default bytes per promoted tile: 8 AVX-512 registers


@dataclass(frozen=True)
class Promotion:
    """One promoted tile, for ``explain()``."""

    array: str
    local: str
    shape: tuple[int, ...]
    loop: str  # iterator of the loop the tile stays in registers across
    statements: tuple[str, ...]


def promote_register_tiles(program: LoopProgram, *, max_bytes: int = MAX_TILE_BYTES,
                           ) -> tuple[LoopProgram, tuple[Promotion, ...]]:
    """``program`` with every promotable register tile of at most ``max_bytes`` rewritten (see
    the module docstring)."""
    rewriter = _Rewriter(program, max_bytes)
    root = rewriter.visit(program.root)
    if not rewriter.promotions:
        return program, ()
    new = replace(program, root=root, arrays=program.arrays + tuple(rewriter.arrays),
                  statements=program.statements + tuple(rewriter.statements))
    return new, tuple(rewriter.promotions)


@dataclass(frozen=True)
class _PointLoop:
    iterator: str
    init: ir.Expr
    trip: int


class _Rewriter:
    def __init__(self, program: LoopProgram, max_bytes: int) -> None:
        self.program = program
        self.max_bytes = max_bytes
        self.arrays: list[ArrayInfo] = []
        self.statements: list[Statement] = []
        self.promotions: list[Promotion] = []
        self._names = count()
        self._taken = {a.name for a in program.arrays} | {s.name for s in program.statements}

    def visit(self, node: Node) -> Node:
        """Rewrite below ``node``; a parallel loop gets a private copy of the tiles inside it."""
        if isinstance(node, For):
            promoted = None if node.parallel else self.promote(node)
            if promoted is not None:
                return promoted
            before = len(self.arrays)
            body = self.visit(node.body)
            created = tuple(a.name for a in self.arrays[before:])
            if node.parallel and created:
                return replace(node, body=body, private=node.private + created)
            return replace(node, body=body)
        if isinstance(node, If):
            otherwise = None if node.otherwise is None else self.visit(node.otherwise)
            return replace(node, then=self.visit(node.then), otherwise=otherwise)
        if isinstance(node, Block):
            return Block(tuple(self.visit(c) for c in node.children))
        return node

    def promote(self, loop: For) -> Node | None:
        """Copy-in, the loop on local accumulators, copy-out; None when not promotable."""
        found = _point_nest(loop.body)
        if found is None:
            return None
        points, calls = found
        elements = 1
        for point in points:
            elements *= point.trip
        if not calls or elements < 2:
            return None
        if any(self.program.statement(c.statement).region is not None for c in calls):
            return None  # a loop kept as written is not rewritten
        changing = {loop.iterator} | {p.iterator for p in points}
        if any(_uses(p.init, changing) for p in points):
            return None
        outputs = self._outputs(calls, points, loop.iterator)
        if outputs is None or elements * sum(_itemsize(self.program, a) for a in outputs) > self.max_bytes:
            return None
        locals_ = {array: self._local(array, points) for array in outputs}
        relative = tuple(_minus(ir.Var(p.iterator, ir.INT), p.init) for p in points)
        new_calls = {id(call): self._retarget(call, locals_, relative) for call in calls}
        body = _unroll_outer_points(_replace_calls(loop.body, new_calls))
        writer = {self.program.statement(c.statement).array: c.statement for c in calls}
        copy_in = [self._copy(array, subscripts, locals_[array], relative, points, writer[array], into_local=True)
                   for array, subscripts in outputs.items()]
        copy_out = [self._copy(array, subscripts, locals_[array], relative, points, writer[array],
                               into_local=False) for array, subscripts in outputs.items()]
        for array, local in locals_.items():
            self.promotions.append(Promotion(array, local.name, local_shape(local), loop.iterator,
                                             tuple(sorted({c.statement for c in calls}))))
        return Block(tuple(copy_in) + (replace(loop, body=body),) + tuple(copy_out))

    def _outputs(self, calls: list[StmtCall], points, loop_var: str) -> dict[str, tuple[ir.Expr, ...]] | None:
        """Array -> its subscripts (in loop-AST iterators) for every array written in the tile."""
        outputs: dict[str, tuple[ir.Expr, ...]] = {}
        for call in calls:
            stmt = self.program.statement(call.statement)
            info = _array(self.program, stmt.array)
            if not stmt.index or info is None:
                return None
            subscripts = _bind(stmt.index, stmt, call)
            if outputs.setdefault(stmt.array, subscripts) != subscripts:
                return None
        point_vars = [p.iterator for p in points]
        for subscripts in outputs.values():
            if any(_uses(e, {loop_var}) for e in subscripts) or not _injective(subscripts, point_vars):
                return None
        for call in calls:  # every other access to an output array must be the same element
            stmt = self.program.statement(call.statement)
            for load in (e for e in ir.walk(stmt.value) if isinstance(e, ir.Load)):
                if load.array in outputs and _bind(load.index, stmt, call) != outputs[load.array]:
                    return None
                if any(isinstance(e, ir.Load) and e.array in outputs for i in load.index for e in ir.walk(i)):
                    return None
        return outputs

    def _fresh(self, stem: str) -> str:
        while True:
            name = f"_{stem}{next(self._names)}"
            if name not in self._taken:
                self._taken.add(name)
                return name

    def _local(self, array: str, points) -> ArrayInfo:
        info = _array(self.program, array)
        assert info is not None
        local = ArrayInfo(self._fresh("acc"), info.dtype, tuple(ir.int_const(p.trip) for p in points), "local",
                          register_tile=True)
        self.arrays.append(local)
        return local

    def _retarget(self, call: StmtCall, locals_: dict[str, ArrayInfo], relative) -> StmtCall:
        """The statement of ``call`` reading and writing the local tile instead."""
        stmt = self.program.statement(call.statement)
        slots = tuple(self._fresh("slot") for _ in relative)
        slot_index = tuple(ir.Var(s, ir.INT) for s in slots)

        def to_local(load: ir.Load) -> ir.Expr:
            if load.array in locals_:
                return replace(load, array=locals_[load.array].name, index=slot_index)
            return load

        # in order (no reassoc marks): the tile's sums already run side by side in registers; with
        # the marks LLVM vectorized the reduction loop itself into partial sums of every tile
        # element (NumPy C[:] = A @ B, blas=False, n = 512: 5.7 -> 19 ms)
        value = ir.in_order(ir.map_loads(stmt.value, to_local))
        new = replace(stmt, name=self._fresh(f"{stmt.name}_reg"), iterators=stmt.iterators + slots,
                      array=locals_[stmt.array].name, index=slot_index, value=value)
        self.statements.append(new)
        return StmtCall(new.name, call.args + tuple(relative))

    def _copy(self, array, subscripts, local: ArrayInfo, relative, points, statement_of: str, *,
              into_local: bool) -> Node:
        """Loops over the tile copying ``array[subscripts]`` to or from ``local``."""
        used = sorted({e.name for s in subscripts + relative for e in ir.walk(s) if isinstance(e, ir.Var)
                       and e.name not in self.program.params and not _is_argument(self.program, e.name)})
        dtype = local.dtype
        outer = ir.Load(array, subscripts, dtype)
        inner = ir.Load(local.name, relative, dtype)
        source, (target, index) = (outer, (local.name, relative)) if into_local else (inner, (array, subscripts))
        template = self.program.statement(statement_of)
        text = f"{target}[{', '.join(ir.to_python(i) for i in index)}] = {ir.to_python(source)}"
        stmt = replace(template, name=self._fresh("copy_in" if into_local else "copy_out"), iterators=tuple(used),
                       array=target, index=index, value=source, span=replace(template.span, text=text))
        self.statements.append(stmt)
        body: Node = StmtCall(stmt.name, tuple(ir.Var(v, ir.INT) for v in used))
        for point in reversed(points):
            bound = ir.BinOp("+", point.init, ir.int_const(point.trip), ir.INT, True)
            body = For(point.iterator, point.init, ir.Compare("<", ir.Var(point.iterator, ir.INT), bound), 1, body)
        return body


def local_shape(info: ArrayInfo) -> tuple[int, ...]:
    return tuple(int(e.value) for e in info.shape if isinstance(e, ir.Const))


def _point_nest(node: Node) -> tuple[list[_PointLoop], list[StmtCall]] | None:
    """The perfectly nested constant-trip, step-1 loops of ``node`` and the calls inside them."""
    points: list[_PointLoop] = []
    while isinstance(node, For):
        bound = exclusive_bound(node)
        trip = None if bound is None or node.step != 1 else _constant(_minus(_atoms(bound), _atoms(node.init)))
        if trip is None or trip < 1:
            return None
        points.append(_PointLoop(node.iterator, node.init, trip))
        node = node.body
    children = node.children if isinstance(node, Block) else (node,)
    if not points or not all(isinstance(c, StmtCall) for c in children):
        return None
    return points, list(children)  # type: ignore[arg-type]


def _unroll_outer_points(nest: Node) -> Node:
    """The point loops unrolled in the loop AST, all but the innermost (the vector loop).

    Same order of execution.  Left to LLVM, the rows of a tile may get vectorized across
    instead of along the vector loop when the inputs happen to be contiguous that way too
    (``data[k, i] * data[k, j]``), which turns every accumulator access into a shuffle."""
    if not isinstance(nest, For) or not isinstance(nest.body, For):
        return nest
    bound = exclusive_bound(nest)
    trip = _constant(_minus(bound, nest.init)) if bound is not None else None
    assert trip is not None, "point loops have constant trip counts"
    inner = _unroll_outer_points(nest.body)
    copies = []
    for offset in range(trip):
        value = ir.BinOp("+", nest.init, ir.int_const(offset), ir.INT, True)
        copies.append(_substitute_node(inner, nest.iterator, value))
    return Block(tuple(copies))


def _substitute_node(node: Node, var: str, value: ir.Expr) -> Node:
    """``node`` with iterator ``var`` replaced by ``value`` in loop bounds and call arguments."""
    def sub(e: ir.Expr) -> ir.Expr:
        return _substitute(e, {var: value})

    if isinstance(node, StmtCall):
        return StmtCall(node.statement, tuple(sub(a) for a in node.args))
    if isinstance(node, For):
        assert isinstance(node.cond, ir.Compare), "point loops have a bound"
        return replace(node, init=sub(node.init), cond=replace(node.cond, rhs=sub(node.cond.rhs)),
                       body=_substitute_node(node.body, var, value))
    if isinstance(node, Block):
        return Block(tuple(_substitute_node(c, var, value) for c in node.children))
    raise AssertionError(f"unexpected node in a point nest: {node!r}")


def _replace_calls(node: Node, new_calls: dict[int, StmtCall]) -> Node:
    if isinstance(node, StmtCall):
        return new_calls.get(id(node), node)
    if isinstance(node, For):
        return replace(node, body=_replace_calls(node.body, new_calls))
    if isinstance(node, Block):
        return Block(tuple(_replace_calls(c, new_calls) for c in node.children))
    return node


def _bind(index: tuple[ir.Expr, ...], stmt: Statement, call: StmtCall) -> tuple[ir.Expr, ...]:
    """Subscripts in terms of the loop AST's iterators (the call's arguments substituted)."""
    from polyfuse.model.scop import isl_name

    values = {isl_name(v): a for v, a in zip(stmt.iterators, call.args)}
    values.update({v: a for v, a in zip(stmt.iterators, call.args)})
    return tuple(_substitute(e, values) for e in index)


def _substitute(expr: ir.Expr, values: dict[str, ir.Expr]) -> ir.Expr:
    if isinstance(expr, ir.Var):
        return values.get(expr.name, expr)
    if isinstance(expr, ir.BinOp):
        return replace(expr, lhs=_substitute(expr.lhs, values), rhs=_substitute(expr.rhs, values))
    if isinstance(expr, ir.Unary):
        return replace(expr, operand=_substitute(expr.operand, values))
    if isinstance(expr, ir.Const):
        return expr
    return _NOT_AFFINE  # loads, selects, calls: not an index we promote


_NOT_AFFINE = ir.Var("<not affine>", ir.INT)


def _affine(expr: ir.Expr) -> dict[str | None, int] | None:
    """``expr`` as {variable: coefficient, None: constant}, or None when it is not affine (or
    holds ``_NOT_AFFINE``)."""
    if any(e is _NOT_AFFINE for e in ir.walk(expr)):
        return None
    return ir.affine_form(expr)


def _constant(expr: ir.Expr) -> int | None:
    form = _affine(expr)
    if form is None or any(k is not None and v != 0 for k, v in form.items()):
        return None
    return form.get(None, 0)


def _atoms(expr: ir.Expr) -> ir.Expr:
    """``expr`` with each non-affine part (``N % 32``) as a variable named by its text, so that a
    trip ``(N - N % 32 + 16) - (N - N % 32)`` comes out constant: isl starts the narrower
    register tiles of the columns left over by the wider ones there (schedule_tree
    ``_narrowing_schedules``)."""
    if isinstance(expr, (ir.Const, ir.Var)) or expr is _NOT_AFFINE:
        return expr
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        return replace(expr, operand=_atoms(expr.operand))
    if isinstance(expr, ir.BinOp) and expr.op in ("+", "-", "*"):
        return replace(expr, lhs=_atoms(expr.lhs), rhs=_atoms(expr.rhs))
    if any(e is _NOT_AFFINE for e in ir.walk(expr)):
        return expr
    return ir.Var(f"({ir.to_python(expr)})", ir.INT)


def _minus(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.BinOp("-", a, b, ir.INT, True)


def _uses(expr: ir.Expr, names: set[str]) -> bool:
    return any(isinstance(e, ir.Var) and (e.name in names or e is _NOT_AFFINE) for e in ir.walk(expr))


def _injective(subscripts: tuple[ir.Expr, ...], point_vars: list[str]) -> bool:
    """Each point iterator drives exactly one subscript, with coefficient +-1, alone there."""
    seen: set[str] = set()
    for expr in subscripts:
        form = _affine(expr)
        if form is None:
            return False
        driving = [v for v in point_vars if form.get(v, 0) != 0]
        if len(driving) > 1 or any(abs(form[v]) != 1 for v in driving):
            return False
        seen.update(driving)
    return seen == set(point_vars)


def _array(program: LoopProgram, name: str) -> ArrayInfo | None:
    for info in program.arrays:
        if info.name == name:
            return info
    return None


def _itemsize(program: LoopProgram, array: str) -> int:
    import numpy as np

    info = _array(program, array)
    return np.dtype(info.dtype).itemsize if info is not None else 8


def _is_argument(program: LoopProgram, name: str) -> bool:
    return any(a.name == name for a in program.arguments)


__all__ = ["MAX_TILE_BYTES", "Promotion", "promote_register_tiles"]
