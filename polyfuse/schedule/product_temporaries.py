"""A temporary that one product fills row by row, grown so the rows become one stack of products.

PolyBench's doitgen computes each row of ``A`` through a kernel-local vector::

    for r: for q:
        for p: acc[p] = 0.0; for s: acc[p] += A[r, q, s] * C4[s, p]   # S0, S1
        for p: A[r, q, p] = acc[p]                                   # S2

S1 is a product of one row (``acc = A[r, q, :] @ C4``) per iteration of ``r`` and ``q``: as it
stands, a matrix-vector product too small for a library call.  Giving ``acc`` one row per
iteration of the loops its product's operand uses and it does not (``acc[r, q, p]``) makes S1 a
stack of products that schedule/loop_products.py lifts to one ``?gemm`` of all the rows (NumPy's
``A[:] = A @ C4`` does the same through its own temporary), with S0 before it and S2 after.

Legal when ``acc`` is a kernel-local array (not returned), every statement touching it runs
inside those loops, and isl's dataflow of ``acc`` in program order is unchanged by the growth
(each read sees the write it saw: no value crosses an iteration of the grown loops), as
schedule/expansion.py checks for scalars.  The temporary then holds every row at once (the size
of the operand's rows), so a growth is kept only where the product then lifts
(loop_products.lift_loop_products decides).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from polyfuse.model import ir
from polyfuse.model.isl_expr import expr_from_isl
from polyfuse.model.scop import Scop, Statement, isl_name
from polyfuse.schedule.contraction import array_dataflow, same_dataflow
from polyfuse.schedule.expansion import isl_text, loop_extremes


@dataclass(frozen=True)
class Growth:
    """``array`` given one leading axis per loop of ``loops`` (outermost first) for ``statement``."""

    array: str
    statement: str
    loops: tuple[str, ...]

    def describe(self, scop: Scop) -> str:
        info = scop.array(self.array)
        shape = " x ".join(ir.to_python(e) for e in info.shape)
        return f"{self.array} grown to {shape} (a row per iteration of {', '.join(self.loops)})"


def candidates(scop: Scop, match) -> list[Growth]:
    """The growths that could turn a statement into a stack of products: ``t[I] += a * b`` into
    a local ``t`` whose operand ``a`` (or ``b``) uses loops ``t``'s subscripts do not, besides
    the one both operands sum over.  ``match(stmt)`` is loop_products' own test of what
    ``out += a * b`` is (None: not one), run on the statement as if grown."""
    found = []
    for stmt in scop.statements:
        if stmt.region is not None or not stmt.index or len(stmt.iterators) < 3:
            continue
        info = scop.array(stmt.array)
        if info.kind != "local" or not info.shape or stmt.array in scop.returned_names():
            continue
        used = {e.name for i in stmt.index for e in ir.walk(i) if isinstance(e, ir.Var)}
        loads = [e for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.array != stmt.array and e.index]
        by_operand = [{v.name for i in x.index for v in ir.walk(i) if isinstance(v, ir.Var)} for x in loads]
        summed = set.intersection(*by_operand) if len(by_operand) == 2 else set()
        missing = tuple(v for v in stmt.iterators if v not in used and v not in summed
                        and any(v in uses for uses in by_operand))
        if not missing or len(summed) != 1:
            continue
        growth = Growth(stmt.array, stmt.name, missing)
        grown = grow(scop, growth)
        if grown is not None and match(grown.statement(stmt.name), grown) is not None:
            found.append(growth)
    return found


def grow(scop: Scop, growth: Growth) -> Scop | None:
    """``scop`` with ``growth`` made, or None where it changes the dataflow (or cannot be said)."""
    users = [s for s in scop.statements if growth.array in s.targets or growth.array in s.sources()]
    if any(s.region is not None or not set(growth.loops) <= set(s.iterators) for s in users):
        return None
    extents = [_range(users, var, scop) for var in growth.loops]
    if any(e is None for e in extents):
        return None
    info = scop.array(growth.array)
    lows = [e[0] for e in extents if e is not None]
    sizes = [e[1] for e in extents if e is not None]
    try:
        texts = [isl_text(size) for size in sizes]
        low_texts = [isl_text(low) for low in lows]
    except ValueError:
        return None
    lead = tuple(ir.BinOp("-", ir.Var(v, ir.INT), low, ir.INT, True) if low != ir.int_const(0) else ir.Var(v, ir.INT)
                 for v, low in zip(growth.loops, lows))
    lead_texts = [f"({v}) - ({low})" for v, low in zip(growth.loops, low_texts)]
    grown_info = dataclasses.replace(info, shape=(*sizes, *info.shape), extent_texts=(*texts, *info.extent_texts))
    try:
        statements = tuple(_grown(scop, s, growth.array, lead, lead_texts) if s in users else s
                           for s in scop.statements)
    except ValueError:
        return None
    grown = dataclasses.replace(scop, statements=statements,
                                arrays=tuple(grown_info if a.name == growth.array else a for a in scop.arrays))
    try:
        before = array_dataflow(scop, growth.array, scop.schedule, checked=True)
        after = array_dataflow(grown, growth.array, scop.schedule)
    except isl.Error:
        return None  # unknown dataflow: not grown
    if not same_dataflow(before, after):
        return None
    if info.zero_init and after[1].is_empty():  # every read sees a write: np.zeros' zeroes unused
        grown = dataclasses.replace(grown, arrays=tuple(dataclasses.replace(a, zero_init=False)
                                                        if a.name == growth.array else a for a in grown.arrays))
    return grown


def _range(users: list[Statement], var: str, scop: Scop) -> tuple[ir.Expr, ir.Expr] | None:
    """(first value, extent) of loop ``var`` over every statement in ``users``."""
    found = loop_extremes([(stmt, list(stmt.iterators).index(var)) for stmt in users])
    if found is None:
        return None
    low, high = found
    build = isl.AstBuild.from_context(scop.context)
    extent = high.sub(low).add_constant_val(isl.Val.one(high.get_ctx()))
    # sizes for which the loops run no iteration may make the extent negative: 0 then, as expansion.py
    size = ir.BinOp("max", expr_from_isl(build.expr_from_pw_aff(extent)), ir.int_const(0), ir.INT, True)
    return expr_from_isl(build.expr_from_pw_aff(low)), size


def _grown(scop: Scop, stmt: Statement, array: str, lead: tuple[ir.Expr, ...], lead_texts: list[str]) -> Statement:
    """``stmt`` with every subscript of ``array`` led by ``lead`` (its loops' positions)."""

    def longer(load: ir.Load) -> ir.Expr:
        return dataclasses.replace(load, index=(*lead, *load.index)) if load.array == array else load

    name = isl_name(array)
    iters = ", ".join(isl_name(v) for v in stmt.iterators)
    texts = [*lead_texts, *(isl_text(i) for i in _subscripts(stmt, array))]
    access = isl.UnionMap.from_map(isl.Map(f"{scop.prefix} -> {{ {stmt.name}[{iters}] -> {name}[{', '.join(texts)}] }}")
                                   .intersect_domain(stmt.domain))

    def swap(accesses: isl.UnionMap) -> isl.UnionMap:
        rank = ", ".join(f"e{d}" for d in range(len(texts) - len(lead)))
        mine = accesses.intersect_range(isl.UnionSet(f"{scop.prefix} -> {{ {name}[{rank}] }}"))
        return accesses if mine.is_empty() else accesses.subtract(mine).union(access)

    return dataclasses.replace(stmt, index=(*lead, *stmt.index) if stmt.array == array else stmt.index,
                               value=ir.map_loads(stmt.value, longer), reads=swap(stmt.reads), writes=swap(stmt.writes))


def _subscripts(stmt: Statement, array: str) -> tuple[ir.Expr, ...]:
    """The one subscript ``stmt`` uses for ``array`` (ValueError: several)."""
    found = {e.index for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.array == array}
    if stmt.array == array:
        found.add(stmt.index)
    if len(found) != 1:
        raise ValueError(f"{array} accessed at several subscripts")
    return found.pop()


