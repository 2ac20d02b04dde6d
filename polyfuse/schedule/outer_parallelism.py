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
from polyfuse.model.isl_parts import maps_of, sets_of
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
    isl_depth: int = -1  # the same in the best candidate schedule (-1: none found)
    reason: str = ""
    pivot_blocks: str = ""  # whether the applied schedule was tiled in pivot blocks (pivot_blocked)


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
    if dim >= piece.dim(isl.dim_type.out):
        return "-"
    return _project(piece, dim).range().remove_divs().to_str()


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
    if dim >= piece.dim(isl.dim_type.out):
        return True
    return _project(piece, dim).range().is_singleton()


def _prefix(flat: isl.UnionMap, dim: int) -> isl.UnionMap:
    """statement -> the schedule's dimensions 0..dim."""
    result = isl.UnionMap.empty(flat.get_space())
    for piece in maps_of(flat):
        n = piece.dim(isl.dim_type.out)
        result = result.union(isl.UnionMap.from_map(piece.project_out(isl.dim_type.out, dim + 1, n - dim - 1)))
    return result


def strided_accesses(scop: Scop, schedule: isl.Schedule, depth: int | None = None) -> int:
    """How many accesses walk memory with a stride in their statement's innermost loop of
    ``schedule`` (neither the same element nor the next or previous one of the last axis); with
    ``depth``, only those of statements with that many iterators (a nest's deepest statements do
    the most work: a stride in a shallower one costs a lower power of the extents).

    The cost side of the trade: isl's schedule of floyd-warshall (a skewed ``i + j`` loop) or
    cholesky (the update walking a column) has parallel loops further out but strided inner
    loops, and measured 1.2-3.5x slower on one thread; lu's reads ``A[k, j]`` along a row instead
    of down a column.  A candidate with more strided accesses than the smart order is refused."""
    count = 0
    for piece in maps_of(schedule.get_map()):
        stmt = scop.statement(piece.get_tuple_name(isl.dim_type.in_))
        if depth is not None and len(stmt.iterators) != depth:
            continue
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
    step = _rewritten(piece, {dim: f"c{dim} + 1"}).apply_range(piece.reverse())
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
    """A schedule for the top-level ``node`` with shallower parallel loops than the smart order
    (not yet verified), and the record; (None, None) for nests of one loop level or whose every
    statement already has its outermost loop parallel.

    The candidates: isl's schedule of the nest asked for outer coincidence, and the smart order
    with an inner loop level interchanged with the outer loop (``interchanged_schedules``).  A
    candidate is refused when it makes a vectorized innermost loop sequential, or walks more
    accesses with a stride in the innermost loops of the nest's deepest statements (the ones
    doing the most work: ``strided_accesses``); of the rest, the one with the shallowest
    parallel loops wins, then the fewer strided accesses, then isl's."""
    if not isinstance(node, LoopNode) or not node.body or not node.statements:
        return None, None
    stmts = node.statements
    validity = deps.validity().union(deps.local_false())
    smart_schedule = scop.schedule_of((node,))
    smart = parallel_depths(smart_schedule, validity, scop.context)
    worst = max(smart.values(), default=0)  # no instances (an empty domain): nothing to gain
    if worst == 0:
        return None, None
    var = node.members[0].var
    candidates: list[tuple[str, isl.Schedule]] = []
    found_by_isl = nest_schedule(scop, deps, stmts)
    if found_by_isl is not None:
        candidates.append(("isl's schedule of the nest (outer coincidence)", found_by_isl))
    candidates += [("the nest with an inner loop level interchanged with its outer loop", c)
                   for c in interchanged_schedules(scop, smart_schedule, validity)]
    if not candidates:
        return None, OuterParallelDecision(var, stmts, False, worst, reason="isl's scheduler found no schedule")
    vectorized = innermost_parallel(smart_schedule, validity, scop.context)
    deepest = max(len(scop.statement(name).iterators) for name in stmts)
    before = strided_accesses(scop, smart_schedule)
    before_deep = strided_accesses(scop, smart_schedule, depth=deepest)
    best: tuple | None = None
    refusals: list[tuple[int, str]] = []
    for order, (what, candidate) in enumerate(candidates):
        found = max(parallel_depths(candidate, validity, scop.context).values(), default=worst)
        if found >= worst:
            refusals.append((found, f"{what} has no shallower parallel loop"))
            continue
        lost = vectorized - innermost_parallel(candidate, validity, scop.context)
        if lost:
            refusals.append((found, f"{what} makes the innermost loop of {', '.join(sorted(lost))} "
                             "sequential where the smart order's is parallel (vectorized)"))
            continue
        after_deep = strided_accesses(scop, candidate, depth=deepest)
        if after_deep > before_deep:
            refusals.append((found, f"{what} walks {after_deep} access(es) of its {deepest}-deep statements with a "
                             f"stride in an innermost loop where the smart order walks {before_deep}"))
            continue
        after = strided_accesses(scop, candidate)
        key = (found, after, order)
        if best is None or key < best[0]:
            best = (key, what, candidate)
    if best is None:
        found = min(depth for depth, _ in refusals)
        return None, OuterParallelDecision(var, stmts, False, worst, found, reason="; ".join(r for _, r in refusals))
    (found, after, _), what, candidate = best
    return candidate, OuterParallelDecision(
        var, stmts, True, worst, found,
        reason=f"{what} puts a parallel loop {worst - found} level(s) further out: {found} sequential loop(s) "
        f"around it instead of {worst}; {after} strided access(es) in innermost loops, {before} before")

def interchanged_schedules(scop: Scop, schedule: isl.Schedule, validity: isl.UnionMap) -> list[isl.Schedule]:
    """The nest's ``schedule`` with one inner loop level ``d`` moved outermost (swapped with the
    outer loop), for each loop level; the statements without a loop at ``d`` keep their outer
    loop, and the parts directly inside the new outer loop are put back in an order the
    dependences within one of its iterations allow (their written order where they allow it).

    isl's scheduler does not find these: asked for outer coincidence it takes the first band's
    members in the order its cost function prefers (cholesky's right-looking update, walking a
    column in the innermost loop), and a band inserted above an isl-scheduled inside repeats the
    outer loop as a trivially parallel member.  The interchange keeps every statement's inner
    loop order (cholesky's left-looking form: ``for j: for i > j (parallel): for k < j``).
    Candidates only: legality is the verifier's (a candidate whose new outer loop runs some
    dependence backwards is dropped here already)."""
    flat = schedule.get_map()
    pieces = {p.get_tuple_name(isl.dim_type.in_): p for p in maps_of(flat)}
    width = _width(flat)
    if width < 3 or not all(_fixed(p, 1) for p in pieces.values()):
        return []  # one loop level, or a band of several loops at the top (a perfect nest's
        # interchange is isl's outer-coincidence candidate already)
    result = []
    for level in range(2, width):
        movers = [name for name, piece in pieces.items() if not _fixed(piece, level)]
        if not movers:
            continue
        swapped = {name: _rewritten(piece, {0: f"c{level}", level: "c0"}) if name in movers else piece
                   for name, piece in pieces.items()}
        outer = _union(_project(piece, 0) for piece in swapped.values())
        if not _never_backwards(validity, outer, scop.context):
            continue
        positions = _reordered_positions(swapped, validity, outer)
        if positions is None:
            continue
        placed = [_rewritten(piece, {1: str(positions[name])}) for name, piece in swapped.items()]
        band = isl.MultiUnionPwAff.from_union_map(_union(placed))
        result.append(isl.Schedule.from_domain(schedule.get_domain()).insert_partial_schedule(band))
    return result


def _rewritten(piece: isl.Map, changes: dict[int, str]) -> isl.Map:
    """``piece`` with its schedule dimensions rewritten: dimension ``d`` becomes ``changes[d]``
    (isl text over the old dimensions ``c0, c1, ...``), the others stay."""
    names = [f"c{k}" for k in range(piece.dim(isl.dim_type.out))]
    out = [changes.get(k, name) for k, name in enumerate(names)]
    rewrite = isl.Map.read_from_str(piece.get_ctx(), f"{{ [{', '.join(names)}] -> [{', '.join(out)}] }}")
    return piece.apply_range(rewrite.align_params(piece.get_space()))


def _project(piece: isl.Map, dim: int) -> isl.Map:
    n = piece.dim(isl.dim_type.out)
    return piece.project_out(isl.dim_type.out, dim + 1, n - dim - 1).project_out(isl.dim_type.out, 0, dim)


def _union(maps) -> isl.UnionMap:
    result = None
    for piece in maps:
        here = isl.UnionMap.from_map(piece)
        result = here if result is None else result.union(here)
    assert result is not None
    return result


def _never_backwards(validity: isl.UnionMap, outer: isl.UnionMap, context: isl.Set) -> bool:
    """Does every dependence go forward or stay put on the one-dimensional schedule ``outer``?"""
    backwards = [False]

    def check(delta: isl.Set) -> None:
        negative = isl.Set.read_from_str(delta.get_ctx(), "{ [x] : x < 0 }").align_params(delta.get_space())
        if not delta.intersect(negative).intersect_params(context.align_params(delta.get_space())).is_empty():
            backwards[0] = True

    validity.apply_domain(outer).apply_range(outer).deltas().foreach_set(check)
    return not backwards[0]


def _reordered_positions(pieces: dict[str, isl.Map], validity: isl.UnionMap, outer: isl.UnionMap) -> dict[str, int] | None:
    """Statement -> its new position directly inside the outer loop: the parts (the statements
    sharing a position) in an order that runs every dependence between two parts within one
    outer iteration forwards, the written order among parts the dependences leave free; None
    when they form a cycle (no order of whole parts is legal)."""
    found = {name: _constant_at(piece, 1) for name, piece in pieces.items()}
    part = {name: p for name, p in found.items() if p is not None}
    if len(part) != len(found):
        return None
    parts = sorted(set(part.values()))
    same = outer.apply_range(outer.reverse())
    within = validity.intersect(same)
    edges: set[tuple[int, int]] = set()
    for dep in maps_of(within):
        if dep.is_empty():
            continue
        a, b = part[dep.get_tuple_name(isl.dim_type.in_)], part[dep.get_tuple_name(isl.dim_type.out)]
        if a != b:
            edges.add((a, b))
    order: list[int] = []
    pending = list(parts)
    while pending:
        ready = [p for p in pending if not any(b == p and a in pending for a, b in edges)]
        if not ready:
            return None
        order.append(ready[0])
        pending.remove(ready[0])
    return {name: order.index(p) for name, p in part.items()}


def _constant_at(piece: isl.Map, dim: int) -> int | None:
    """The one integer value a statement takes at schedule dimension ``dim`` (None if it takes
    several, or one that depends on a parameter)."""
    values = _project(piece, dim).range()
    values = values.project_out(isl.dim_type.param, 0, values.dim(isl.dim_type.param))
    if values.is_empty() or not values.is_singleton():
        return None
    point = values.sample_point()
    return int(point.get_coordinate_val(isl.dim_type.set, 0).to_python())


# ---------------------------------------------------------------------------------------------
# pivot blocks: the sequential loop and the parallel loop under it tiled together

def pivot_blocked(scop: Scop, deps: Dependences, schedule: isl.Schedule, size: int) -> tuple[isl.Schedule | None, str, str]:
    """``schedule`` (a nest's flat outer-parallel schedule ``S -> [c0, ...]``: ``c0`` a
    sequential loop of every statement, ``cd`` the first loop below it, parallel) with ``c0``
    and ``cd`` tiled by ``size``: ``for a: (source tiles) (the other tiles, b parallel)`` with
    ``a = floor(c0 / size)``, ``b = floor(cd / size)`` (``floor(c0 / size)`` for a statement
    with no loop at ``d``: it is aligned with the pivot, as cholesky's square root of
    ``A[j, j]``), then the points in the old order.  The *source tiles* of a block ``a`` are
    those holding an instance that an instance of another tile of ``a`` depends on (lu's and
    cholesky's diagonal tile, which computes the block's pivot rows); the others depend on each
    other only through them, so they run in parallel after them: two barriers per block instead
    of one per pivot.

    Why: the right-looking update (and cholesky's left-looking one) streams the whole trailing
    matrix once per pivot (lu at n = 2000: up to 32 MB per step, from L3 or memory); in blocks,
    each row of a tile takes ``size`` pivots' updates while it stays in L2.  Each element keeps
    its updates in the same order (the points keep their order within a tile).  The caller
    verifies.  Returns (schedule or None, the source tiles as isl text, why not)."""
    flat = schedule.get_map()
    pieces = list(maps_of(flat))
    if any(_fixed(p, 0) for p in pieces):
        return None, "", "the outer schedule dimension is not a loop of every statement"
    looping = [d for d in range(1, _width(flat)) if any(not _fixed(p, d) for p in pieces)]
    if not looping:
        return None, "", "no loop below the outer one"
    dim = looping[0]
    validity = deps.validity().union(deps.local_false())
    domain = schedule.get_domain()
    within = validity.intersect_domain(domain).intersect_range(domain)
    if not carries(within, _prefix(flat, 0), scop.context):
        return None, "", "the outer loop carries no dependence"
    inner = _domain_of({p.get_tuple_name(isl.dim_type.in_): p for p in pieces},
                       [p.get_tuple_name(isl.dim_type.in_) for p in pieces if not _fixed(p, dim)])
    if carries(within.intersect_domain(inner).intersect_range(inner), _prefix(flat, dim), scop.context):
        return None, "", "the loop below the outer one is not parallel"
    outer = f"floor(c0 / {size})"
    tile_of = {p.get_tuple_name(isl.dim_type.in_): f"floor(c{dim} / {size})" if not _fixed(p, dim) else outer
               for p in pieces}
    tiles = _union(_rewritten_to(p, [outer, tile_of[p.get_tuple_name(isl.dim_type.in_)]]) for p in pieces)
    across = within.apply_domain(tiles).apply_range(tiles)
    same_block = isl.Map.read_from_str(flat.get_ctx(), "{ [a, b] -> [a, d] : d != b }")
    sources = across.intersect(isl.UnionMap.from_map(same_block.align_params(across.get_space()))).domain()
    first = tiles.intersect_range(sources).domain()
    rest = domain.subtract(first)
    blocks = _union(_rewritten_to(p, [outer]) for p in pieces)
    points = _union(_rewritten_to(p, [tile_of[p.get_tuple_name(isl.dim_type.in_)],
                                      *(f"c{k}" for k in range(p.dim(isl.dim_type.out)))]) for p in pieces)
    tree = isl.Schedule.from_domain(domain).insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(blocks))
    leaf = tree.get_root().child(0).child(0)
    parts = [part for part in (first, rest) if not part.is_empty()]
    filters = isl.UnionSetList.alloc(flat.get_ctx(), len(parts))
    for part in parts:
        filters = filters.add(part)
    node = leaf.insert_sequence(filters)
    for k, part in enumerate(parts):
        node = node.child(k).child(0).insert_partial_schedule(
            isl.MultiUnionPwAff.from_union_map(points.intersect_domain(part))).parent().parent()
    found = [s.coalesce().to_str() for s in sets_of(sources)]
    return node.get_schedule(), "; ".join(found), ""


def _rewritten_to(piece: isl.Map, out: list[str]) -> isl.Map:
    """``piece`` followed by ``[c0, c1, ...] -> [out...]`` (isl text over the old dimensions)."""
    names = [f"c{k}" for k in range(piece.dim(isl.dim_type.out))]
    rewrite = isl.Map.read_from_str(piece.get_ctx(), f"{{ [{', '.join(names)}] -> [{', '.join(out)}] }}")
    return piece.apply_range(rewrite.align_params(piece.get_space()))
