"""Scalar accumulators folded into the element they feed, so loop-written products reach BLAS.

numba-style code sums into a local scalar::

    for i: for j:
        s = 0.0                              # S0, the init
        for k: s += A[i, k] * B[k, j]        # S1, the accumulation
        C[i, j] = alpha * s + beta * C[i, j] # S2, the consumer

which schedule/loop_products.py cannot see as a GEMM (the product writes a scalar).  Where the
consumer is ``C[I] = alpha * s + rest`` (``alpha`` optional, ``rest`` optional and free of
``s``) and the init is zero, the three become the form it does see::

    C[I] = rest                              # S0 (the old C[I] read before the sum, not after)
    for k: C[I] += alpha * A[i, k] * B[k, j] # S1

Legal when (1) isl's dataflow of ``s`` in program order says every read of ``s`` in the group
sees the group's own write of the same iteration ``I`` (as if ``s`` were expanded to ``T[I]``),
and no read outside the group sees a write of the group; (2) the accumulation reads nothing the
consumer writes (so moving the consumer's reads before it, and its write into it, changes no
value: only S1(I, k) runs between S0(I) and S2(I)).  Same real dtype throughout (a float64
accumulator of float32 values is kept: folding would sum in float32).

The folded statement keeps the user's sum (``Statement.summed``: ``s``'s term and the
consumer), which the product keeps (``Matmul.summed``): where BLAS runs, the sum's rounding
changes as BLAS's own reassociation does (``alpha * (A @ B) + C``); where ``alpha`` is 0 or not
finite (no BLAS), the loops sum each element into a scalar of the product's own and end with
the consumer as written, as the user did, so that an inf ``alpha`` times zero terms is no NaN
(a finite ``alpha`` at small sizes or other layouts: the loops of ``alpha`` times each term,
vectorized, reassociated as BLAS is).  A fold is kept only where loop_products then lifts the
product to one BLAS call, else the program stays as written (``blas=False`` never folds).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from polyfuse.analysis.dependences import Dependences, compute_dependences, exact_flow, on_array
from polyfuse.errors import InternalError
from polyfuse.model import ir
from polyfuse.model import region as rg
from polyfuse.model.isl_expr import condition_from_isl
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.schedule_tree import LoopNode, StmtNode, TreeNode
from polyfuse.model.scop import Scop, Statement, isl_name
from polyfuse.schedule.loop_products import ProductDecision, lift_loop_products, product_shaped

_REALS = ("float64", "float32")
_EXPANDED = "_pf_accumulator"  # the scratch name ``s`` takes in the legality check only
_SUM = "_pf_sum_"  # + the accumulation's name: the scalar its product's loops sum into


@dataclass(frozen=True)
class AccumulatorDecision:
    """One scalar accumulation and what became of it."""

    scalar: str
    line: int  # of the accumulation
    into: str  # the element it feeds, "C[i, j]"
    folded: bool
    reason: str


@dataclass(frozen=True)
class _Group:
    """The init, accumulation and consumer statements of one accumulator, adjacent in one body."""

    init: str
    accumulate: str
    consume: str
    scalar: str
    beside: tuple[str, ...] = ()  # the other statements of the accumulation's loop (symm's C[k, j] += ...)


def lift_accumulated_products(scop: Scop, deps: Dependences) -> tuple[
        Scop, Dependences, tuple[AccumulatorDecision, ...], tuple[ProductDecision, ...]]:
    """loop_products' lift after folding every accumulator that legally folds into a product it
    then lifts.  Folds whose product stays loops are undone and the rest retried (each round
    drops at least one, so this ends).  A round none of whose folded accumulations has a
    product's shape (``product_shaped``: ``s += min(...)``) refuses them all without the folded
    program's dependences, which no product would use (regression program b: 4 of its 10 s)."""
    groups = _groups(scop)
    refused: dict[str, str] = {}
    tested: set[str] = set()  # folds whose first statement tests for elements without terms
    while True:
        folded_scop, folded = scop, []
        for group in groups:
            if group.accumulate in refused:
                continue
            result = _fold(folded_scop, group, group.accumulate in tested)
            if isinstance(result, str):
                refused[group.accumulate] = result
            else:
                folded_scop = result
                folded.append(group)
        if not folded:
            lifted, lifted_deps, products = lift_loop_products(scop, deps)
            return lifted, lifted_deps, _decisions(scop, groups, [], refused), products
        if any(product_shaped(folded_scop.statement(g.accumulate), folded_scop) for g in folded):
            lifted, lifted_deps, products = lift_loop_products(folded_scop, compute_dependences(folded_scop))
            moved = {p.statement for p in products}
        else:  # (none of them can be a product: all stuck, known without the folded program's dependences)
            moved, products = set(), ()
        stuck = [g for g in folded if g.accumulate not in moved]
        zeroed = {p.statement for p in products if p.zeroed}
        bare = [g for g in folded if g not in stuck and g.accumulate not in tested
                and g.accumulate not in zeroed and _left_to_zeroing(scop, g)]
        if not stuck and not bare:
            return lifted, lifted_deps, _decisions(scop, groups, folded, refused), products
        tested |= {g.accumulate for g in bare}
        for group in stuck:
            refused[group.accumulate] = "kept as written: the product it folds into cannot run on BLAS here"


def _decisions(scop: Scop, groups: list[_Group], folded: list[_Group],
               refused: dict[str, str]) -> tuple[AccumulatorDecision, ...]:
    done = {g.accumulate for g in folded}
    result = []
    for group in groups:
        consumer = scop.statement(group.consume)
        into = f"{consumer.array}[{', '.join(ir.to_python(i) for i in consumer.index)}]"
        ok = group.accumulate in done
        reason = "folded: the product runs as one BLAS call" if ok else refused.get(group.accumulate, "")
        result.append(AccumulatorDecision(group.scalar, scop.statement(group.accumulate).span.line, into, ok, reason))
    return tuple(result)


# ---- finding the groups -----------------------------------------------------------------------

def _groups(scop: Scop) -> list[_Group]:
    """Every ``s = init; for k: s += term; X[I] = f(s)`` adjacent in one loop body."""
    found: list[_Group] = []

    def visit(body: tuple[TreeNode, ...]) -> None:
        for first, loop, last in zip(body, body[1:], body[2:]):
            group = _group_at(scop, first, loop, last)
            if group is not None:
                found.append(group)
        for node in body:
            if isinstance(node, LoopNode):
                visit(node.body)

    for node in scop.body:
        if isinstance(node, LoopNode):
            visit(node.body)
    return found


def _group_at(scop: Scop, first: TreeNode, loop: TreeNode, last: TreeNode) -> _Group | None:
    if not (isinstance(first, StmtNode) and isinstance(last, StmtNode) and isinstance(loop, LoopNode)):
        return None
    if not all(isinstance(node, StmtNode) for node in loop.body) or len(loop.members) != 1:
        return None
    init, use = scop.statement(first.name), scop.statement(last.name)
    name = init.array
    names = [node.name for node in loop.body if isinstance(node, StmtNode)]
    writers = [n for n in names if scop.statement(n).array == name]
    if len(writers) != 1:
        return None
    acc = scop.statement(writers[0])
    beside = tuple(n for n in names if n != acc.name)
    if any(_touches(scop.statement(n), name) for n in beside):
        return None
    if (init.region or acc.region or use.region or init.index or acc.array != name or use.array == name
            or not scop.array(name).is_scalar or name not in use.sources()):
        return None
    if acc.iterators[:-1] != init.iterators or use.iterators != init.iterators:
        return None
    return _Group(init.name, acc.name, use.name, name, beside)


# ---- the fold ---------------------------------------------------------------------------------

def _left_to_zeroing(scop: Scop, group: _Group) -> bool:
    """Does the fold of ``group`` (untested) leave its elements without terms to the zeroing
    that loop_products folds into the product (``C[i, j] = alpha * s``: no rest)?"""
    use = scop.statement(group.consume)
    parts = _consumer(use, group.scalar, scop.array(use.array).dtype)
    if parts is None or parts[0] is None or parts[1] is not None:
        return False
    try:
        return _no_terms(scop, scop.statement(group.accumulate), use) is not None
    except (isl.Error, InternalError):
        return True  # (the fold with the test then refuses)


def _fold(scop: Scop, group: _Group, tested: bool = False) -> Scop | str:
    """``scop`` with ``group`` folded into its consumer's element, or why not; ``tested``: the
    first statement tests for elements without terms also where the consumer has no rest."""
    init, acc, use = (scop.statement(n) for n in (group.init, group.accumulate, group.consume))
    dtype = scop.array(use.array).dtype
    if dtype not in _REALS:
        return f"kept as written: {dtype} (only float64 and float32 products run on BLAS)"
    if scop.array(group.scalar).dtype != dtype or acc.value.dtype != dtype:
        return f"kept as written: the accumulator's dtype is not {dtype}, the result's"
    if not (isinstance(init.value, ir.Const) and init.value.value == 0):
        return "kept as written: the accumulator does not start at zero"
    term = _increment(acc, group.scalar)
    if term is None:
        return "kept as written: the accumulation is not 's += term'"
    parts = _consumer(use, group.scalar, dtype)
    if parts is None:
        return "kept as written: the consumer is not 'X = alpha * s + rest'"
    alpha, rest = parts
    if not _same_iterations(init, acc, use):
        return "kept as written: the consumer runs on other iterations than the accumulator (a condition)"
    if any(isinstance(e, ir.Load) for i in use.index for e in ir.walk(i)):
        return "kept as written: the consumer's subscript reads an array"
    if use.array in acc.sources() or any(t in use.sources() for t in acc.targets if t != group.scalar):
        return f"kept as written: the accumulation reads {use.array}"
    if group.scalar in scop.returned_names():
        return "kept as written: the kernel returns the accumulator"
    if not _beside_clear(scop, use, group.beside):
        return "kept as written: a statement beside the accumulation touches the element it feeds, or writes what it reads"
    if not _dataflow_is_local(scop, group):
        return "kept as written: isl's dataflow shows the accumulator's value crossing iterations or statements"
    own = ir.Load(use.array, use.index, dtype)
    scaled = term if alpha is None else ir.BinOp("*", alpha, term, dtype)
    nothing = isl.UnionMap.empty(acc.reads.get_space())
    start = ir.Const(float(init.value.value), dtype, False)
    first = rest if rest is not None else ir.Const(0.0, dtype, False)
    # an element without terms: the consumer of the user's zero (inf * 0.0 is NaN); with no rest
    # the first statement stays a zeroing, which loop_products folds into the product, widened
    # to run where its depth is empty (its loops then write alpha * 0.0), else (``tested``) it
    # tests too; no alpha: rest + 0.0 is rest
    try:
        empty = _no_terms(scop, acc, use) if alpha is not None and (rest is not None or tested) else None
    except (isl.Error, InternalError):  # no test isl can write as an expression: keep the loops
        return "kept as written: no test for the elements without terms"
    if empty is not None:
        alone = ir.map_loads(use.value, lambda load: start if load.array == group.scalar else load)
        first = ir.Select(empty, alone, first, dtype)
    new_init = _moved(scop, use, init, first, nothing)
    operands = _drop_arrays(acc.reads, {isl_name(group.scalar)})
    # the loops, where BLAS does not run, sum as the user did: into a scalar of the product's own
    total = _SUM + acc.name
    whole = use.value  # the consumer, reading the element (which holds rest) for rest
    if rest is not None:
        assert isinstance(whole, ir.BinOp)
        whole = dataclasses.replace(whole, lhs=own if whole.lhs is rest else whole.lhs,
                                    rhs=own if whole.rhs is rest else whole.rhs)
    fresh = ir.map_loads(whole, lambda load: ir.Load(total, (), dtype) if load.array == group.scalar else load)
    new_acc = dataclasses.replace(_moved(scop, use, acc, ir.BinOp("+", own, scaled, dtype), operands),
                                  summed=rg.Summed(total, term, fresh, start))
    statements = tuple(new_init if s.name == init.name else new_acc if s.name == acc.name else s
                       for s in scop.statements if s.name != use.name)
    body = tuple(part for node in scop.body if (part := _without(node, use.name)) is not None)
    still = any(group.scalar in s.targets or group.scalar in s.sources() for s in statements)
    arrays = scop.arrays if still else tuple(a for a in scop.arrays if a.name != group.scalar)
    arrays += (dataclasses.replace(scop.array(group.scalar), name=total, zero_init=False),)
    folded = dataclasses.replace(scop, statements=statements, body=body, arrays=arrays)
    return dataclasses.replace(folded, schedule=folded.schedule_of(body))


def _no_terms(scop: Scop, acc: Statement, use: Statement) -> ir.Expr | None:
    """Where an element of the consumer's iterations has no term (``for k in range(0)``,
    ``range(i)`` at ``i = 0``), in its iterators and the parameters; None where none ever lacks
    one.  There the user's consumer reads ``s`` as it started: ``alpha * 0.0 + rest``, which the
    product never computes (it runs no iteration for it, or none at all)."""
    depth = len(use.iterators)
    summed = acc.domain.project_out(isl.dim_type.set, depth, acc.domain.dim(isl.dim_type.set) - depth)
    empty = use.domain.subtract(summed.set_tuple_name(use.name)).intersect_params(scop.context)
    if empty.is_empty():
        return None
    empty = empty.gist(use.domain.intersect_params(scop.context))
    alone = empty.move_dims(isl.dim_type.param, empty.dim(isl.dim_type.param), isl.dim_type.set, 0, depth).params()
    build = isl.AstBuild.from_context(isl.Set.universe(alone.get_space()))
    condition = condition_from_isl(build.expr_from_set(alone))
    return ir.substitute(condition, {isl_name(v): ir.Var(v, ir.INT) for v in use.iterators if isl_name(v) != v})


def _beside_clear(scop: Scop, use: Statement, beside: tuple[str, ...]) -> bool:
    """No statement beside the accumulation, in the iterations of one element, touches that
    element or writes what the consumer reads (the fold writes the element and reads the
    consumer's operands before the loop instead of after it)."""
    for name in beside:
        other = scop.statement(name)
        if tuple(other.iterators[:len(use.iterators)]) != tuple(use.iterators):
            return False
        pull = _pull_back(scop, use, other)
        touched = other.reads.union(other.writes)
        if not (touched.intersect(pull(use.writes)).is_empty() and other.writes.intersect(pull(use.reads)).is_empty()):
            return False
    return True


def _same_iterations(init: Statement, acc: Statement, use: Statement) -> bool:
    """The init and the consumer run on the same iterations, and the accumulation only on those
    (an ``if`` around one of them would make the folded writes land where none was)."""
    depth = len(use.iterators)
    summed = acc.domain.project_out(isl.dim_type.set, depth, acc.domain.dim(isl.dim_type.set) - depth)
    return (init.domain.set_tuple_name(use.name).is_equal(use.domain)
            and summed.set_tuple_name(use.name).is_subset(use.domain))


def _increment(acc: Statement, scalar: str) -> ir.Expr | None:
    """``term`` of ``s = s + term`` (either side), when ``term`` does not read ``s``."""
    value, own = acc.value, ir.Load(scalar, (), acc.value.dtype)
    if not isinstance(value, ir.BinOp) or value.op != "+" or value.reassoc:
        return None
    term = value.rhs if value.lhs == own else value.lhs if value.rhs == own else None
    return None if term is None or _reads(term, scalar) else term


def _consumer(use: Statement, scalar: str, dtype: str) -> tuple[ir.Expr | None, ir.Expr | None] | None:
    """(alpha, rest) of ``use.value == alpha * s + rest`` (rest: that subexpression of it);
    each None where absent."""
    whole = value = use.value
    rest: ir.Expr | None = None
    if isinstance(whole, ir.BinOp) and whole.op == "+" and whole.dtype == dtype:
        if _reads(whole.lhs, scalar) and not _reads(whole.rhs, scalar):
            value, rest = whole.lhs, whole.rhs
        elif _reads(whole.rhs, scalar) and not _reads(whole.lhs, scalar):
            value, rest = whole.rhs, whole.lhs
    factors = _factors(value, dtype)
    own = ir.Load(scalar, (), dtype)
    if factors is None or factors.count(own) != 1 or sum(_reads(f, scalar) for f in factors) != 1:
        return None
    others = [f for f in factors if f != own]
    alpha = None
    for factor in others:
        alpha = factor if alpha is None else ir.BinOp("*", alpha, factor, dtype)
    return alpha, rest


def _factors(expr: ir.Expr, dtype: str) -> list[ir.Expr] | None:
    if isinstance(expr, ir.BinOp) and expr.op == "*" and expr.dtype == dtype and not expr.reassoc:
        left, right = _factors(expr.lhs, dtype), _factors(expr.rhs, dtype)
        return None if left is None or right is None else left + right
    return [expr] if expr.dtype == dtype else None


def _reads(expr: ir.Expr, name: str) -> bool:
    return any(isinstance(e, ir.Load) and e.array == name for e in ir.walk(expr))


def _dataflow_is_local(scop: Scop, group: _Group) -> bool:
    """Every read of ``s`` in the group sees the group's write of its own iteration and no read
    outside it sees one of the group: the dataflow of ``s`` equals that of ``s`` expanded to
    ``T[I]`` over the group (as schedule/expansion.py checks), in program order."""
    name = isl_name(group.scalar)
    members = [scop.statement(n) for n in (group.init, group.accumulate, group.consume)]
    inside = isl.UnionSet.empty(scop.context.get_space())
    for stmt in members:
        inside = inside.union(isl.UnionSet.from_set(stmt.domain))
    reads, writes = on_array(scop.reads(), name), on_array(scop.writes(), name)
    try:
        before = exact_flow(reads, writes, scop.schedule, checked=True)
        after = exact_flow(_expanded(scop, members, reads, group), _expanded(scop, members, writes, group),
                           scop.schedule, checked=True)
    except isl.Error:
        return False  # unknown dataflow: dependent
    ours = before.must.intersect_range(inside)
    outside_from_group = before.must.intersect_domain(inside).subtract(ours)
    return (ours.is_equal(after.must) and outside_from_group.is_empty()
            and before.no_source.intersect_domain(inside).is_empty() and after.no_source.is_empty())


def _expanded(scop: Scop, members: list[Statement], accesses: isl.UnionMap, group: _Group) -> isl.UnionMap:
    """The group's accesses of ``s`` as accesses of ``T[I]`` (I: the init's iterators)."""
    outer = ", ".join(isl_name(v) for v in members[0].iterators)
    result = isl.UnionMap.empty(accesses.get_space())
    for stmt in members:
        mine = accesses.intersect_domain(isl.UnionSet.from_set(stmt.domain))
        if mine.is_empty():
            continue
        iters = ", ".join(isl_name(v) for v in stmt.iterators)
        access = isl.Map(f"{scop.prefix} -> {{ {stmt.name}[{iters}] -> {_EXPANDED}[{outer}] }}")
        result = result.union(isl.UnionMap.from_map(access.intersect_domain(stmt.domain)))
    return result


def _moved(scop: Scop, use: Statement, target: Statement, value: ir.Expr, reads: isl.UnionMap) -> Statement:
    """``target`` (the init or the accumulation) rewritten to write ``use``'s element with
    ``value``: ``use``'s write pulled back over ``target``'s domain (whose iterators extend
    ``use``'s), reading ``reads`` (already over ``target``'s domain) and, for each array
    ``value`` loads that ``use`` loaded, ``use``'s reads of it pulled back."""
    pull = _pull_back(scop, use, target)
    writes = pull(use.writes)
    reads = reads.union(pull(_only_arrays(use.reads, _loaded(value))))
    return dataclasses.replace(target, array=use.array, index=use.index, value=value, reads=reads, writes=writes)


def _pull_back(scop: Scop, use: Statement, target: Statement):
    outer = ", ".join(isl_name(v) for v in use.iterators)
    inner = ", ".join(isl_name(v) for v in target.iterators)
    back = isl.UnionMap(f"{scop.prefix} -> {{ {target.name}[{inner}] -> {use.name}[{outer}] }}").intersect_domain(
        isl.UnionSet.from_set(target.domain))

    def pull(accesses: isl.UnionMap) -> isl.UnionMap:
        return back.apply_range(accesses.intersect_domain(isl.UnionSet.from_set(use.domain)))

    return pull


def _loaded(expr: ir.Expr) -> set[str]:
    return {isl_name(e.array) for e in ir.walk(expr) if isinstance(e, ir.Load)}


def _drop_arrays(accesses: isl.UnionMap, names: set[str]) -> isl.UnionMap:
    result = isl.UnionMap.empty(accesses.get_space())
    for access in maps_of(accesses):
        if access.get_tuple_name(isl.dim_type.out) not in names:
            result = result.union(isl.UnionMap.from_map(access))
    return result


def _only_arrays(accesses: isl.UnionMap, names: set[str]) -> isl.UnionMap:
    result = isl.UnionMap.empty(accesses.get_space())
    for access in maps_of(accesses):
        if access.get_tuple_name(isl.dim_type.out) in names:
            result = result.union(isl.UnionMap.from_map(access))
    return result


def _without(node: TreeNode, name: str) -> TreeNode | None:
    """``node`` without statement ``name``."""
    if isinstance(node, StmtNode):
        return None if node.name == name else node
    body = tuple(kept for child in node.body if (kept := _without(child, name)) is not None)
    if not body:
        return None
    members = tuple(dataclasses.replace(m, statements=tuple(s for s in m.statements if s != name))
                    for m in node.members)
    return dataclasses.replace(node, members=tuple(m for m in members if m.statements), body=body)


def _touches(stmt: Statement, name: str) -> bool:
    return name == stmt.array or name in stmt.targets or name in stmt.sources()
