"""Outer parallelism for imperfect nests whose smart schedule has it only deep inside, or not at all.

The smart schedule keeps each nest's loop order.  A factorisation written row by row (PolyBench's
lu and cholesky: ``for i: for j < i: for k < j: A[i, j] -= A[i, k] * A[k, j]``) then has no
parallel loop, or only one inside two sequential loops (lu's row update: a barrier per ``(i, j)``,
~n operations of work each, too little for a team).  Rescheduled with the pivot loop outermost
(the right-looking form: ``for k: for i > k: for j > k: A[i, j] -= A[i, k] * A[k, j]``), the two
loops below ``k`` are parallel: one barrier per ``k`` and ~n**2 operations per barrier.

isl's scheduler finds that form when it is asked for outer coincidence (as PPCG asks for GPUs):
each band's first member parallel where possible, splitting the nest's statements into separate
loops when that is what keeps a loop parallel (cholesky's column division before its update).

The pass takes: the Scop, its dependences and the smart loop tree (after fusion and tiling).
For each top-level nest that is not time tiled, it compares how deep the outermost parallel loop
of every statement lies (the number of sequential loops around it; a statement without one
counts as its loop depth plus one) in the smart order and in isl's schedule of the nest alone,
and proposes isl's where the worst statement's depth is smaller.  The caller verifies the whole
program's schedule with the candidate; a candidate that fails is never used.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polyfuse.analysis.dependences import Dependences, carries
from polyfuse.model import ir
from polyfuse.model.ir import linear_coefficient
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.schedule_tree import LoopNode, TreeNode
from polyfuse.model.scop import Scop
from polyfuse.schedule.isl_scheduler import compute_outer_parallel


@dataclass(frozen=True)
class OuterParallelDecision:
    """What the pass did with one top-level loop nest, and why (depths count sequential loops)."""

    loop: str  # the nest's outer loop variable
    statements: tuple[str, ...]
    applied: bool
    smart_depth: int  # the worst statement's outermost parallel loop in the smart order
    isl_depth: int = -1  # the same in isl's schedule of the nest (-1: none found)
    reason: str = ""


def parallel_depths(schedule: isl.Schedule, deps: isl.UnionMap, context: isl.Set) -> dict[str, int]:
    """For each statement: how many sequential loops enclose its outermost parallel loop in
    ``schedule`` (its loop count plus one when no loop of it is parallel).

    Works on the flat schedule map, where sequence positions are dimensions too: a dimension is
    a loop of a statement when the statement takes more than one value there.  The statements in
    that same loop are those with the same sequence positions before it and a loop there too; the
    loop is parallel when no dependence among them agrees on the dimensions before it and differs
    on it (then it is parallel for all of them, as the loop AST will mark it)."""
    flat = schedule.get_map()
    pieces = {p.get_tuple_name(isl.dim_type.in_): p for p in maps_of(flat)}
    fixed = {name: {d: _value(p, d) for d in range(_width(flat)) if _fixed(p, d)} for name, p in pieces.items()}
    depths: dict[str, int] = {}
    for name, piece in pieces.items():
        loops = 0
        depths[name] = -1
        for dim in range(piece.dim(isl.dim_type.out)):
            if dim in fixed[name]:
                continue
            peers = [other for other in pieces if dim not in fixed[other] and all(
                fixed[other].get(e) == v for e, v in fixed[name].items() if e < dim)]
            inside = _domain_of(pieces, peers)
            within = deps.intersect_domain(inside).intersect_range(inside)
            if not carries(within, _prefix(flat, dim), context):
                depths[name] = loops
                break
            loops += 1
        if depths[name] < 0:
            depths[name] = loops + 1
    return depths


def innermost_parallel(schedule: isl.Schedule, deps: isl.UnionMap, context: isl.Set) -> set[str]:
    """The statements whose innermost loop in ``schedule`` carries no dependence (among the
    statements sharing that loop): the loop LLVM vectorizes.  A candidate that turns such a loop
    sequential trades SIMD for threads (mandelbrot's per-pixel time loop moved innermost ran 6x
    slower on two cores than the vectorized pixel loop)."""
    flat = schedule.get_map()
    pieces = {p.get_tuple_name(isl.dim_type.in_): p for p in maps_of(flat)}
    fixed = {name: {d: _value(p, d) for d in range(_width(flat)) if _fixed(p, d)} for name, p in pieces.items()}
    found: set[str] = set()
    for name, piece in pieces.items():
        loops = [d for d in range(piece.dim(isl.dim_type.out)) if d not in fixed[name]]
        if not loops:
            continue
        dim = loops[-1]
        peers = [other for other in pieces if dim not in fixed[other] and all(
            fixed[other].get(e) == v for e, v in fixed[name].items() if e < dim)]
        inside = _domain_of(pieces, peers)
        if not carries(deps.intersect_domain(inside).intersect_range(inside), _prefix(flat, dim), context):
            found.add(name)
    return found


def _value(piece: isl.Map, dim: int) -> str:
    """The one value a statement takes at schedule dimension ``dim`` (as text: it may name a
    parameter), for comparing sequence positions."""
    n = piece.dim(isl.dim_type.out)
    if dim >= n:
        return "-"
    return piece.project_out(isl.dim_type.out, dim + 1, n - dim - 1).project_out(
        isl.dim_type.out, 0, dim).range().remove_divs().to_str()


def _domain_of(pieces: dict[str, isl.Map], names: list[str]) -> isl.UnionSet:
    result = None
    for name in names:
        here = isl.UnionSet.from_set(pieces[name].domain())
        result = here if result is None else result.union(here)
    assert result is not None
    return result


def _width(flat: isl.UnionMap) -> int:
    return max((m.dim(isl.dim_type.out) for m in maps_of(flat)), default=0)


def _fixed(piece: isl.Map, dim: int) -> bool:
    """Does the statement take one value only at schedule dimension ``dim`` (not a loop of it)?"""
    n = piece.dim(isl.dim_type.out)
    if dim >= n:
        return True
    values = piece.project_out(isl.dim_type.out, dim + 1, n - dim - 1).project_out(
        isl.dim_type.out, 0, dim).range()
    return values.is_singleton()


def _prefix(flat: isl.UnionMap, dim: int) -> isl.UnionMap:
    """statement -> the schedule's dimensions 0..dim."""
    result = isl.UnionMap.empty(flat.get_space())
    for piece in maps_of(flat):
        n = piece.dim(isl.dim_type.out)
        result = result.union(isl.UnionMap.from_map(piece.project_out(isl.dim_type.out, dim + 1, n - dim - 1)))
    return result


def strided_accesses(scop: Scop, schedule: isl.Schedule) -> int:
    """How many accesses walk memory with a stride in their statement's innermost loop of
    ``schedule`` (neither the same element nor the next or previous one of the last axis).

    The cost side of the trade: isl's schedule of floyd-warshall (a skewed ``i + j`` loop) or
    cholesky (the update walking a column) has parallel loops further out but strided inner
    loops, and measured 1.2-3.5x slower on one thread; lu's reads ``A[k, j]`` along a row instead
    of down a column.  A candidate with more strided accesses than the smart order is refused."""
    count = 0
    for piece in maps_of(schedule.get_map()):
        stmt = scop.statement(piece.get_tuple_name(isl.dim_type.in_))
        loops = [d for d in range(piece.dim(isl.dim_type.out)) if not _fixed(piece, d)]
        if not loops:
            continue
        move = _iterator_step(piece, loops[-1])
        indices = [index for index in (stmt.index, *_read_indices(stmt)) if index]
        count += sum(move is None or not _near(index, stmt.iterators, move) for index in indices)
    return count


def _iterator_step(piece: isl.Map, dim: int) -> tuple[int, ...] | None:
    """How the statement's iterators change from one iteration of the schedule's loop ``dim`` to
    the next (None when that is not one constant vector, or the loop never takes a step)."""
    n = piece.dim(isl.dim_type.out)
    cs, ds = [f"c{k}" for k in range(n)], [f"c{k}" if k != dim else f"c{k} + 1" for k in range(n)]
    unit = isl.Map.read_from_str(piece.get_ctx(), f"{{ [{', '.join(cs)}] -> [{', '.join(ds)}] }}")
    step = piece.apply_range(unit.align_params(piece.get_space())).apply_range(piece.reverse())
    moves = step.deltas()
    moves = moves.project_out(isl.dim_type.param, 0, moves.dim(isl.dim_type.param))
    if moves.is_empty() or not moves.is_singleton():
        return None
    point = moves.sample_point()
    return tuple(int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
                 for k in range(moves.dim(isl.dim_type.set)))


def _read_indices(stmt) -> list[tuple[ir.Expr, ...]]:
    return [e.index for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.index]


def _near(index: tuple[ir.Expr, ...], iterators: tuple[str, ...], move: tuple[int, ...]) -> bool:
    """Does the element ``index`` names stay, or move by one along the last axis only?"""
    shifts = []
    for expr in index:
        coefficients = [linear_coefficient(expr, var) for var in iterators]
        if any(c is None for c in coefficients):
            return False
        shifts.append(sum(c * m for c, m in zip(coefficients, move) if c is not None))
    return all(d == 0 for d in shifts[:-1]) and abs(shifts[-1]) <= 1


def nest_schedule(scop: Scop, deps: Dependences, stmts: tuple[str, ...]) -> isl.Schedule | None:
    """isl's schedule of the nest's statements alone, asking for outer coincidence (PPCG's option):
    each band's outer member parallel where a split or permutation makes it so.  None when isl
    finds none or the dependences have too many pieces for its ILP."""
    domain = _domain(scop, stmts)
    validity = deps.validity().union(deps.local_false()).intersect_domain(domain).intersect_range(domain)
    proximity = deps.union().intersect_domain(domain).intersect_range(domain)
    constraints = (
        isl.ScheduleConstraints.on_domain(domain).set_context(scop.context)
        .set_validity(validity).set_coincidence(validity).set_proximity(proximity)
    )
    return compute_outer_parallel(constraints)


def _domain(scop: Scop, stmts: tuple[str, ...]) -> isl.UnionSet:
    result = isl.UnionSet.empty(scop.context.get_space())
    for name in stmts:
        result = result.union(isl.UnionSet.from_set(scop.statement(name).domain))
    return result


def propose(scop: Scop, deps: Dependences, node: TreeNode) -> tuple[isl.Schedule | None, OuterParallelDecision | None]:
    """isl's schedule for the top-level ``node`` when it has shallower parallel loops than the
    smart order (not yet verified), and the record; (None, None) for nests of one loop level or
    whose every statement already has its outermost loop parallel."""
    if not isinstance(node, LoopNode) or not node.body or not node.statements:
        return None, None
    stmts = node.statements
    validity = deps.validity().union(deps.local_false())
    smart = parallel_depths(scop.schedule_of((node,)), validity, scop.context)
    worst = max(smart.values(), default=0)  # no instances (an empty domain): nothing to gain
    if worst == 0:
        return None, None
    var = node.members[0].var
    candidate = nest_schedule(scop, deps, stmts)
    if candidate is None:
        return None, OuterParallelDecision(var, stmts, False, worst, reason="isl's scheduler found no schedule")
    found = max(parallel_depths(candidate, validity, scop.context).values(), default=worst)
    if found >= worst:
        return None, OuterParallelDecision(
            var, stmts, False, worst, found, reason="isl's schedule has no shallower parallel loop")
    lost = innermost_parallel(scop.schedule_of((node,)), validity, scop.context) - innermost_parallel(
        candidate, validity, scop.context)
    if lost:
        return None, OuterParallelDecision(
            var, stmts, False, worst, found, reason=f"isl's schedule makes the innermost loop of {', '.join(sorted(lost))} "
            "sequential where the smart order's is parallel (vectorized)")
    before, after = strided_accesses(scop, scop.schedule_of((node,))), strided_accesses(scop, candidate)
    if after > before:
        return None, OuterParallelDecision(
            var, stmts, False, worst, found, reason=f"isl's schedule walks {after} access(es) with a stride in "
            f"an innermost loop where the smart order walks {before}")
    return candidate, OuterParallelDecision(
        var, stmts, True, worst, found,
        reason=f"isl's schedule of the nest (outer coincidence) puts a parallel loop {worst - found} "
        f"level(s) further out: {found} sequential loop(s) around it instead of {worst}; "
        f"{after} strided access(es) in innermost loops, {before} before")
