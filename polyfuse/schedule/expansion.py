"""Scalar expansion: give a local scalar one slot per iteration of a loop.

``acc = 0; for k: acc += A[i, k] * B[k, j]; C[i, j] = acc`` inside a ``j`` loop cannot be
distributed (every ``j`` iteration reuses ``acc``), which blocks moving ``j`` innermost.  With
``acc`` expanded to ``acc[j]`` the loop distributes and the update walks ``B`` by rows.
Expansion is kept only if every read still sees the same writer (isl dataflow in program order),
and contraction later shrinks the array again where the final schedule allows.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from polyfuse.model import ir
from polyfuse.model.isl_expr import expr_from_isl
from polyfuse.model.schedule_tree import LoopNode
from polyfuse.model.scop import Scop, Statement, isl_name
from polyfuse.schedule.contraction import array_dataflow, same_dataflow


def scalars_only_in(scop: Scop, node: LoopNode) -> list[str]:
    """Local scalars every access of which is inside ``node``."""
    inside = set(node.statements)
    found = []
    for info in scop.arrays:
        if not info.is_scalar:
            continue
        users = {s.name for s in scop.statements if _touches(s, info.name)}
        if users and users <= inside:
            found.append(info.name)
    return found


def _touches(stmt, name: str) -> bool:
    return name in stmt.targets or name in stmt.sources()


def expand(scop: Scop, name: str, node: LoopNode) -> Scop | None:
    """``scop`` with scalar ``name`` indexed by ``node``'s loop, or None when not possible."""
    if any(s.region is not None and _touches(s, name) for s in scop.statements):
        return None  # a loop kept as written is not rewritten
    var = node.members[0].var
    bounds = _bounds(scop, node, var)
    if bounds is None:
        return None
    low, high = bounds  # IR expressions in the parameters
    extent = ir.BinOp("+", ir.BinOp("-", high, low, ir.INT, True), ir.int_const(1), ir.INT, True)
    # an empty loop (high < low) gives a negative extent: no element is used then, and the shape is 0
    extent = ir.BinOp("max", extent, ir.int_const(0), ir.INT, True)
    try:
        low_text, extent_text = isl_text(low), isl_text(extent)
    except ValueError:
        return None
    index = (ir.BinOp("-", ir.Var(var, ir.INT), low, ir.INT, True),)
    statements = tuple(_expand_statement(scop, s, name, var, index, low_text) for s in scop.statements)
    info = scop.array(name)
    grown = replace(info, shape=(extent,), extent_texts=(extent_text,))
    expanded = replace(scop, statements=statements, arrays=tuple(grown if a.name == name else a for a in scop.arrays))
    try:
        before = array_dataflow(scop, name, scop.schedule, checked=True)
        after = array_dataflow(expanded, name, scop.schedule)
    except isl.Error:
        return None  # isl could not compute the dataflow: not sure, so no expansion
    return expanded if same_dataflow(before, after) else None


def _bounds(scop: Scop, node: LoopNode, var: str) -> tuple[ir.Expr, ir.Expr] | None:
    places = []
    for name in node.statements:
        stmt = scop.statement(name)
        names = [isl_name(v) for v in stmt.iterators]
        if var not in names:
            return None
        places.append((stmt, names.index(var)))
    found = loop_extremes(places)
    if found is None:
        return None
    build = isl.AstBuild.from_context(scop.context)
    low, high = found
    return expr_from_isl(build.expr_from_pw_aff(low)), expr_from_isl(build.expr_from_pw_aff(high))


def loop_extremes(places: list[tuple[Statement, int]]) -> tuple[isl.PwAff, isl.PwAff] | None:
    """The least and greatest value of one loop over the statements it runs (``places``: each
    statement with the loop's position among its iterators), as single-piece isl expressions of
    the parameters; None when the loop runs no iteration or a bound has several pieces."""
    values = None
    for stmt, at in places:
        n = stmt.domain.dim(isl.dim_type.set)
        alone = stmt.domain.project_out(isl.dim_type.set, at + 1, n - at - 1).project_out(isl.dim_type.set, 0, at)
        alone = alone.reset_tuple_id()
        values = alone if values is None else values.union(alone)
    if values is None or values.is_empty():
        return None
    low, high = values.dim_min(0), values.dim_max(0)
    if low.n_piece() != 1 or high.n_piece() != 1:
        return None
    return low, high


def _expand_statement(scop: Scop, stmt, name: str, var: str, index, low_text: str):
    if not _touches(stmt, name):
        return stmt

    def grow(load: ir.Load) -> ir.Expr:
        return replace(load, index=index) if load.array == name else load

    iters = ", ".join(isl_name(v) for v in stmt.iterators)
    access = isl.UnionMap.from_map(
        isl.Map(f"{scop.prefix} -> {{ {stmt.name}[{iters}] -> {isl_name(name)}[({var}) - ({low_text})] }}")
        .intersect_domain(stmt.domain))

    def swap(accesses: isl.UnionMap) -> isl.UnionMap:
        target = isl.UnionSet(f"{scop.prefix} -> {{ {isl_name(name)}[] }}")
        if accesses.intersect_range(target).is_empty():
            return accesses
        return accesses.subtract_range(target).union(access)

    return replace(
        stmt,
        index=index if stmt.array == name else stmt.index,
        value=ir.map_loads(stmt.value, grow),
        reads=swap(stmt.reads),
        writes=swap(stmt.writes),
    )


def isl_text(expr: ir.Expr) -> str:
    """An integer IR expression in isl syntax (ValueError for what isl cannot say affinely)."""
    if isinstance(expr, ir.Const):
        return f"({int(expr.value)})"
    if isinstance(expr, ir.Var):
        return expr.name
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        return f"(-{isl_text(expr.operand)})"
    if isinstance(expr, ir.BinOp):
        a, b = isl_text(expr.lhs), isl_text(expr.rhs)
        if expr.op in ("+", "-", "*"):
            return f"({a} {expr.op} {b})"
        if expr.op in ("min", "max"):
            return f"{expr.op}({a}, {b})"
        if expr.op == "//" and isinstance(expr.rhs, ir.Const):
            return f"floor({a}/{int(expr.rhs.value)})"
        if expr.op == "%" and isinstance(expr.rhs, ir.Const):
            return f"({a} mod {int(expr.rhs.value)})"
    raise ValueError(f"not expressible in isl: {ir.to_python(expr)}")
