"""Loop nests over whole rows of C-ordered arrays run as one flat loop (cpu target).

NumPy code on images and point clouds has short last axes (``X[1:-1, 1:-1]`` of an
``(N, N, 3)`` array): the innermost loop runs 3 times, too few to vectorize, and a max/min
reduction pays its lanes' setup per row.  When two nested loops ``u`` (outer) and ``v``
(inner, from 0) reach every array they touch as ``A[..., u + c, 0, ..., 0, v]`` and ``v``'s trip
count is the product of the extents of ``A``'s axes after ``u``'s, then in a C-ordered ``A`` the
element of ``(u, v)`` is the element at ``v' = (u - u0) * trips(v) + v`` with ``u`` held at its
first value ``u0``::

    for u in range(u0, hu):                  for w in range(max(hu - u0, 0) * max(hv, 0)):
        for v in range(hv):           ->         S(u0, w)          # A[u0 + c, w] is A[u, v]
            S(u, v)

The flat loop visits the same elements in the same order (lexicographic ``(u, v)`` order is
``w`` order), so every dependence and every result is unchanged; it is parallel when both loops
were.  Only the LLVM backend runs it: it computes addresses from the strides of the extents, so
``A[u0 + c, w]`` past the row is the next row's element.  The Python backend (the reference)
indexes axis by axis and keeps the nest.  Nested pairs coalesce from the inside out
(``out[t0, t1, t2]`` over a whole array becomes one loop).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.model import ir
from polyfuse.model.loop_ast import (
    Block,
    For,
    LoopProgram,
    LoopRewrite,
    Node,
    StmtCall,
    calls_only,
    exclusive_bound,
)
from polyfuse.model.scop import isl_affine_text, isl_name


@dataclass(frozen=True)
class Coalesced:
    """Two nested loops run as one flat loop, for ``explain()``."""

    loops: tuple[str, str]  # outer, inner iterator
    into: str  # the flat loop's iterator
    statements: tuple[str, ...]


def coalesce_rows(program: LoopProgram) -> tuple[LoopProgram, tuple[Coalesced, ...]]:
    """``program`` with every pair of nested loops that walks whole rows of C-ordered arrays run
    as one loop (see the module docstring); the decisions."""
    return _Coalescer(program).run()


class _Coalescer(LoopRewrite):
    def __init__(self, program: LoopProgram) -> None:
        super().__init__(program)
        self.c_ordered = {a.name for a in program.arguments if a.kind == "array" and a.layout == "C"}
        self.c_ordered |= {a.name for a in program.arrays
                           if a.kind in ("local", "result") and a.shape and not a.register_tile}
        self.factors: dict[str, tuple[ir.Expr, ...]] = {}  # flat loop -> the trip counts it runs

    def rewrite(self, loop: For) -> Node:
        """Inside out: the loops below are merged first, so a nest of three becomes one loop."""
        inner = replace(loop, body=self.visit(loop.body))
        return self.merge(inner) or inner

    def merge(self, outer: For) -> For | None:
        inner = _only_loop(outer.body)
        if inner is None or outer.step != 1 or inner.step != 1 or inner.init != ir.int_const(0):
            return None
        if outer.parallel and not inner.parallel:  # the flat loop would lose the outer parallelism
            return None
        hu, hv = exclusive_bound(outer), exclusive_bound(inner)
        if hu is None or hv is None or _uses(hv, outer.iterator) or _uses(outer.init, inner.iterator):
            return None
        calls = calls_only(inner.body)
        trip_u = hu if outer.init == ir.int_const(0) else ir.BinOp("-", hu, outer.init, ir.INT, True)
        factors = (trip_u,) + self.factors.get(inner.iterator, (hv,))
        if calls is None or not all(self.walks_rows(c, outer.iterator, inner.iterator, factors[1:]) for c in calls):
            return None
        flat = self.fresh(f"{outer.iterator}{inner.iterator}")
        values = {outer.iterator: outer.init, inner.iterator: ir.Var(flat, ir.INT)}
        body = _substitute_calls(inner.body, values)
        trips = _product([ir.BinOp("max", f, ir.int_const(0), ir.INT, True) for f in factors])
        self.factors[flat] = factors
        self.decisions.append(Coalesced((outer.iterator, inner.iterator), flat, tuple(c.statement for c in calls)))
        return For(flat, ir.int_const(0), ir.Compare("<", ir.Var(flat, ir.INT), trips), 1, body,
                   parallel=outer.parallel and inner.parallel, private=outer.private + inner.private,
                   why_parallel=outer.why_parallel)

    def walks_rows(self, call: StmtCall, u: str, v: str, v_factors: tuple[ir.Expr, ...]) -> bool:
        """Whether every access of ``call``'s statement reaches its array at ``[..., u + c, 0, ..,
        v]`` (``v``'s trips the extents of the axes after ``u``'s), or uses neither, and its value
        reads ``u`` and ``v`` nowhere else."""
        stmt = self.program.statement(call.statement)
        if stmt.region is not None:
            return False
        names = {isl_name(i): a for i, a in zip(stmt.iterators, call.args)}
        value = ir.substitute(stmt.value, names)
        if any(isinstance(e, ir.Index) for e in ir.walk(value)) \
                or any(isinstance(e, ir.Index) for i in stmt.index for e in ir.walk(i)):
            return False
        accesses = [(stmt.array, tuple(ir.substitute(i, names) for i in stmt.index))]
        accesses += [(e.array, e.index) for e in ir.walk(value) if isinstance(e, ir.Load)]
        known = stmt.domain.params()  # extents of arrays the statement matched (b's shape is a's)
        if not all(self.row_access(array, index, u, v, v_factors, known) for array, index in accesses):
            return False
        rest = ir.map_loads(value, lambda load: ir.int_const(0))  # the value outside its subscripts
        return not (_uses(rest, u) or _uses(rest, v))

    def row_access(self, array: str, index: tuple[ir.Expr, ...], u: str, v: str,
                   v_factors: tuple[ir.Expr, ...], known: isl.Set) -> bool:
        coefficients = [(ir.linear_coefficient(i, u), ir.linear_coefficient(i, v)) for i in index]
        if any(cu is None or cv is None for cu, cv in coefficients):
            return False
        at_u = [d for d, (cu, _) in enumerate(coefficients) if cu]
        at_v = [d for d, (_, cv) in enumerate(coefficients) if cv]
        if not at_u and not at_v:
            return True
        if len(at_u) != 1 or len(at_v) != 1 or array not in self.c_ordered:
            return False
        d, e = at_u[0], at_v[0]
        if d >= e or coefficients[d][0] != 1 or index[e] != ir.Var(v, ir.INT):
            return False
        if any(index[k] != ir.int_const(0) for k in range(d + 1, e)):
            return False
        shape = self.infos[array].shape[d + 1:e + 1]
        return len(shape) == len(v_factors) and all(_same_extent(x, t, known) for x, t in zip(shape, v_factors))


def _only_loop(node: Node) -> For | None:
    if isinstance(node, Block) and len(node.children) == 1:
        node = node.children[0]
    return node if isinstance(node, For) else None


def _substitute_calls(node: Node, values: dict[str, ir.Expr]) -> Node:
    if isinstance(node, StmtCall):
        return replace(node, args=tuple(ir.substitute(a, values) for a in node.args))
    assert isinstance(node, Block), "calls_only() checked the body"
    return Block(tuple(_substitute_calls(c, values) for c in node.children))


def _uses(expr: ir.Expr, name: str) -> bool:
    return any(isinstance(e, ir.Var) and e.name == name for e in ir.walk(expr))


def _same_extent(extent: ir.Expr, trips: ir.Expr, known: isl.Set) -> bool:
    """Whether an axis's extent equals a loop's trip count wherever the statement runs
    (``known``: its parameters there; ``max(0, n - 2)`` is ``n - 2``, ``b.shape[0]`` may be
    ``a.shape[0]``)."""
    if extent == trips:
        return True
    a, b = isl_affine_text(extent), isl_affine_text(trips)
    if a is None or b is None:
        return False
    space = known.get_space()
    params = [str(space.get_dim_name(isl.dim_type.param, i)) for i in range(space.dim(isl.dim_type.param))]
    if not {e.name for x in (extent, trips) for e in ir.walk(x) if isinstance(e, ir.Var)} <= set(params):
        return False
    try:
        differ = isl.Set.read_from_str(known.get_ctx(), f"[{', '.join(params)}] -> {{ : {a} != {b} }}")
        return differ.intersect(known).is_empty()
    except isl.Error:  # a form isl does not read: not proven equal
        return False



def _product(factors: list[ir.Expr]) -> ir.Expr:
    result = factors[0]
    for f in factors[1:]:
        result = ir.BinOp("*", result, f, ir.INT, True)
    return result


__all__ = ["Coalesced", "coalesce_rows"]
