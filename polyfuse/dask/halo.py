"""Halos from the access relations: how deep each chunk's ghost zone must be, per side.

Takes the lifted Scop, its dependences (polyfuse.analysis.dependences), the call's sizes and
the chunk boundaries of one split cut (polyfuse.dask.cuts: the array axes one loop dimension
moves, each array along its own axis; "the axis" below); returns an ``AxisHalo`` record, or raises
UnsupportedError naming the statement or the dependence that forbids the chunking.

A chunk runs the compiled kernel on its block plus a ghost zone, in the block's own coordinates
(the kernel sees smaller arrays).  That gives exactly the whole-array kernel's values on the
chunk when, checked here with isl:

1. every statement is *shift covariant* along the axis: one of its loop iterators moves every
   access to a chunked array along the axis with it and leaves every other access alone, and
   its value uses neither that iterator nor the axis's extent (``covariant_iterator``);
2. the statement instances the chunk's values depend on (its writes and, transitively, their
   flow dependences: isl's exact dataflow) all run in the block's kernel, and the block's
   kernel runs nothing the whole-array kernel does not (``check_chunk``);
3. every element those instances read lies in the block: this fixes the ghost depth, per
   array and side (``chunk_needs``);
4. no statement depends, through the flow closure, on an earlier iteration of its moving loop
   within one iteration of the loops around it: that recurrence would make each chunk need all
   the chunks before it (``_refuse_carried`` names the dependence);
5. every block, in the final chunking, runs the same iterations of its other loops and accesses
   the same elements as the whole-array kernel, with the block's own extents
   (polyfuse.dask.blocks: an extent in a subscript or a bound is refused there, named).

A returned reduction (polyfuse.dask.reduce; a kernel may return several) starts from its
chunk's own updates instead of the written elements, leaves the accumulator's chain out of the
closure, and checks that each block runs every update its chunk owns (``_check_partials``);
where a block also runs its neighbours' (the update's loop runs over the ghost zone), the record
says ``guarded`` and the block runs the updates on its own chunk only (polyfuse.dask.guard).

Everything is evaluated at the call's sizes, chunk by chunk, so boundary chunks follow the
kernel's own bounds and uneven chunks are exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from polyfuse.dask.cuts import Cut, shift_map
from polyfuse.dask.problem import (
    Problem,
    block_span,
    cut_params,
    fixed,
    free_names,
    local_sizes,
    moving_arrays,
    refusal,
)
from polyfuse.errors import UnsupportedError
from polyfuse.model.scop import Statement, isl_name


@dataclass(frozen=True)
class ArrayNeed:
    """The ghost depth one array's reads need on each side (the most over all chunks)."""

    array: str
    left: int
    right: int
    reach: int = 0  # how far right of the chunk the reads end (negative: before its end)


@dataclass(frozen=True)
class AxisHalo:
    """The decision for one split axis: the exchanged depth on each side and why.

    ``left``/``right`` are the most any chunk needs, from the reads (``needs``) or from the
    kernel's loop bounds (a loop that starts later than its reads reach needs a deeper block).
    """

    axis: int  # of the cut's first array (the reference written array when there is one)
    left: int
    right: int
    needs: tuple[ArrayNeed, ...]
    iterators: tuple[tuple[str, str], ...]  # (statement, loop iterator that moves with the axis)
    closure_exact: bool = True  # isl's transitive closure of the flow was exact (else a superset)
    members: tuple[tuple[str, int], ...] = ()  # every (array argument, axis) cut with it
    guarded: bool = False  # a block runs more reduction updates than its chunk owns: it runs the
    # kernel with the update restricted to the chunk (polyfuse.dask.guard)


# ---- small isl helpers -----------------------------------------------------------------------

def pairs_where(ctx: isl.Context, n_in: int, n_out: int, condition: str) -> isl.Map:
    """``{ [x0, ...] -> [y0, ...] : condition }`` (unnamed tuples)."""
    xs = ", ".join(f"x{i}" for i in range(n_in))
    ys = ", ".join(f"y{i}" for i in range(n_out))
    return isl.Map.read_from_str(ctx, f"{{ [{xs}] -> [{ys}] : {condition} }}")


def _coordinate_range(points: isl.Set, pos: int) -> tuple[int, int] | None:
    """The least and greatest value of coordinate ``pos`` over ``points`` (None: empty)."""
    if points.is_empty():
        return None
    n = points.dim(isl.dim_type.set)
    line = points.project_out(isl.dim_type.set, pos + 1, n - pos - 1).project_out(isl.dim_type.set, 0, pos)
    line = line.project_out(isl.dim_type.param, 0, line.dim(isl.dim_type.param))
    low, high = line.lexmin().sample_point(), line.lexmax().sample_point()
    return (low.get_coordinate_val(isl.dim_type.set, 0).to_python(),
            high.get_coordinate_val(isl.dim_type.set, 0).to_python())


def _sets_by_name(union: isl.UnionSet) -> dict[str, isl.Set]:
    found: dict[str, isl.Set] = {}
    union.foreach_set(lambda s: found.__setitem__(s.get_tuple_name(), s))
    return found


# ---- 1. which iterator moves with the axis ---------------------------------------------------

def covariant_iterator(problem: Problem, stmt: Statement, cut: Cut, moving: dict[str, int]) -> int | None:
    """The position of ``stmt``'s iterator that moves with ``axis``, or None when the
    statement touches no array that moves (it runs the same in every block).

    Raises UnsupportedError when no iterator keeps every access covariant."""
    if stmt.region is not None:
        raise refusal(stmt, cut, "opaque statements (calls, while loops) cannot be cut into chunks yet")
    accesses = stmt.reads.union(stmt.writes)
    arrays = _accessed(accesses)
    if not any(a in moving for a in arrays):
        return None
    ctx = problem.ctx()
    first = cut.position(stmt.name)
    order = ([first] if first is not None else []) + [p for p in range(len(stmt.iterators)) if p != first]
    for pos in order:
        if _is_covariant(ctx, stmt, accesses, arrays, moving, pos) and not _uses(stmt, pos, problem, cut):
            return pos
    raise refusal(stmt, cut, "no loop of the statement moves its accesses along the axis by the "
                  "same amount (or its value uses the loop index or the axis's extent)")


def _accessed(accesses: isl.UnionMap) -> dict[str, int]:
    found: dict[str, int] = {}
    accesses.foreach_map(lambda m: found.__setitem__(m.get_tuple_name(isl.dim_type.out), m.dim(isl.dim_type.out)))
    return found


def _is_covariant(ctx, stmt: Statement, accesses: isl.UnionMap, arrays: dict[str, int],
                  moving: dict[str, int], pos: int) -> bool:
    """Moving iterator ``pos`` by one moves each access to a ``moving`` array by one along
    its axis and leaves the others: compared where both the access and its move are defined."""
    domain_shift = shift_map(ctx, stmt.name, len(stmt.iterators), pos, 1)
    range_shift = isl.UnionMap.empty(accesses.get_space())
    for array, rank in arrays.items():
        range_shift = range_shift.union(shift_map(ctx, array, rank, moving.get(array), 1))
    moved = accesses.apply_domain(domain_shift).apply_range(range_shift)
    return accesses.intersect_domain(moved.domain()).is_equal(moved.intersect_domain(accesses.domain()))


def _uses(stmt: Statement, pos: int, problem: Problem, cut: Cut) -> bool:
    """Does the value use the iterator itself, or the axis's extent, outside a subscript?"""
    banned = {isl_name(stmt.iterators[pos]), stmt.iterators[pos]}
    banned |= set(cut_params(problem, cut))
    return bool(banned & set(free_names(stmt.value)))


def align(problem: Problem, cut: Cut) -> dict[str, int | None]:
    """Per statement, the iterator position that moves with the cut (see covariant_iterator);
    statements that touch only non-moving arrays take the cut's loop around them, if any.
    Cached per problem and cut."""
    key = ("align", cut.members)
    if key not in problem._cache:
        problem._cache[key] = _align(problem, cut)
    return problem._cache[key]


def _align(problem: Problem, cut: Cut) -> dict[str, int | None]:
    moving = moving_arrays(problem, cut)
    found: dict[str, int | None] = {}
    for stmt in problem.scop.statements:
        touches = any(a in moving for a in _accessed(stmt.reads.union(stmt.writes)))
        if touches:
            found[stmt.name] = covariant_iterator(problem, stmt, cut, moving)
    for stmt in problem.scop.statements:
        if stmt.name not in found:
            # scalar temporaries inside the chunked loop follow it (checked by check_chunk);
            # a statement outside the cut's loops runs the same in every block
            pos = cut.position(stmt.name)
            fits = pos is not None and pos < len(stmt.iterators) and not _uses(stmt, pos, problem, cut)
            found[stmt.name] = pos if fits else None
    return found


# ---- 2./3. one chunk: what it needs, and that its block computes it --------------------------

@dataclass(frozen=True)
class ChunkNeeds:
    """What the chunk ``[lo, hi)`` needs: depth per array and side, and its needed instances."""

    lo: int
    hi: int
    arrays: tuple[ArrayNeed, ...]
    instances: isl.UnionSet = field(compare=False, repr=False)


def flow_closure(problem: Problem, summed: tuple[str, ...] = ()) -> tuple[isl.UnionMap, bool]:
    """The transitive flow dependences at the call's sizes (cached per problem); a reduction's
    accumulator is left out, and so are the ``summed`` arrays (the partials and their
    combination stand for their chains)."""
    key = ("closure", summed)
    if key not in problem._cache:
        raw = isl.UnionMap.empty(problem.scop.context.get_space())
        skip = set(summed) | {problem.scop.statement(r).array for r in problem.reductions}
        for dep in problem.deps.items:
            if dep.kind == "RAW" and dep.array not in skip:  # the accumulator's chain: partials replace it
                raw = raw.union(dep.relation)
        raw = fixed(raw, problem.env)
        closure, exact = raw.transitive_closure() if not raw.is_empty() else (raw, True)
        problem._cache[key] = (closure, bool(exact))
    return problem._cache[key]


def chunk_needs(problem: Problem, cut: Cut, lo: int, hi: int, last: bool = False) -> ChunkNeeds:
    """The instances whose values reach the chunk ``[lo, hi)`` of the written arrays (or, for
    a reduction, the chunk's own updates), and the elements of each chunked array they read
    (in global coordinates).  The ``last`` chunk owns everything from ``lo`` on: an array
    longer than the reference has its extra elements there."""
    env = problem.env
    direct = _writers(problem, cut, lo, hi, last)
    for update in problem.reductions:
        direct = direct.union(owned_updates(problem, cut, update, lo, hi, last))
    summed = problem.summed_along(cut)
    for stmt in _adders(problem, summed):
        direct = direct.union(_owned(problem, cut, stmt, lo, hi, last))
    closure, _ = flow_closure(problem, summed)
    needed = direct.union(closure.intersect_range(direct).domain())
    reads = fixed(problem.scop.reads(), env).intersect_domain(needed).range()
    by_name = _sets_by_name(reads)
    arrays = []
    for name, axis in cut.members:
        if name not in problem.chunked:
            continue
        span = _coordinate_range(by_name[name], axis) if name in by_name else None
        if span is not None:
            arrays.append(ArrayNeed(name, max(0, lo - span[0]), max(0, span[1] - (hi - 1)), span[1] - (hi - 1)))
    return ChunkNeeds(lo, hi, tuple(arrays), needed)


def _writers(problem: Problem, cut: Cut, lo: int, hi: int, last: bool = False) -> isl.UnionSet:
    """The instances that write the chunk's elements of the written arrays (each is cut along
    the cut's axis of it: polyfuse.dask.plan refuses a split that leaves one out)."""
    owned = isl.UnionSet.empty(problem.scop.context.get_space())
    summed = problem.summed_along(cut)
    for name in problem.written:
        if name in summed:
            continue  # not moved by the cut: each chunk adds its own updates (chunk_needs)
        axis = cut.axis_of(name)
        assert axis is not None
        xs = [f"a{i}" for i in range(problem.scop.array(name).rank)]
        owned = owned.union(isl.UnionSet.read_from_str(
            problem.ctx(), f"{{ {name}[{', '.join(xs)}] : {lo} <= a{axis}{'' if last else f' < {hi}'} }}"))
    return fixed(problem.scop.writes(), problem.env).intersect_range(owned).domain()


def owned_updates(problem: Problem, cut: Cut, update: str, lo: int, hi: int, last: bool = False) -> isl.UnionSet:
    """A reduction's ``update`` instances whose moving loop lies in ``[lo, hi)``: each chunk
    owns its own, so the chunks' partial results cover every update once."""
    return _owned(problem, cut, problem.scop.statement(update), lo, hi, last)


def _adders(problem: Problem, summed: tuple[str, ...]) -> list[Statement]:
    """The statements that add to the ``summed`` arrays."""
    return [s for s in problem.scop.statements if s.array in summed]


def _owned(problem: Problem, cut: Cut, stmt: Statement, lo: int, hi: int, last: bool) -> isl.UnionSet:
    """The instances of an update statement whose moving loop lies in the chunk."""
    pos = align(problem, cut)[stmt.name]
    if pos is None:
        raise refusal(stmt, cut, "the reduction's update does not move with the axis: every block would run the "
                      "same updates (none of its loops indexes an array along the axis or runs over its extent, "
                      "or its value uses the loop index), and the partials would count them once per block")
    xs = ", ".join(f"x{i}" for i in range(len(stmt.iterators)))
    upper = "" if last else f" < {hi}"
    box = isl.Set.read_from_str(problem.ctx(), f"{{ {stmt.name}[{xs}] : {lo} <= x{pos}{upper} }}")
    return isl.UnionSet.from_set(fixed(stmt.domain, problem.env).intersect(box.align_params(stmt.domain.get_space())))


def local_instances(problem: Problem, cut: Cut, alignment: dict[str, int | None],
                    start: int, length: int) -> isl.UnionSet:
    """What the kernel runs on the block ``[start, start + length)`` (of the reference array;
    every other array's block is as much longer as the array is), in global coordinates."""
    local = local_sizes(problem, cut, length)
    ctx = problem.ctx()
    result = isl.UnionSet.empty(problem.scop.context.get_space())
    for stmt in problem.scop.statements:
        runs = isl.UnionSet.from_set(fixed(stmt.domain, local))
        shift = shift_map(ctx, stmt.name, len(stmt.iterators), alignment[stmt.name], start)
        result = result.union(runs.apply(shift))
    return result


def whole_instances(problem: Problem) -> isl.UnionSet:
    return fixed(problem.scop.domain(), problem.env)


def missing_sides(problem: Problem, alignment: dict[str, int | None], missing: isl.UnionSet,
                  lo: int, hi: int) -> tuple[int, int]:
    """How much further each side of the block must reach to run the ``missing`` instances."""
    left = right = 0
    for name, points in _sets_by_name(missing).items():
        pos = alignment[name]
        span = _coordinate_range(points, pos) if pos is not None else None
        if span is None:
            continue
        left = max(left, lo - span[0])
        right = max(right, span[1] - (hi - 1))
    return left, right


def inner_sides(alignment: dict[str, int | None], missing: isl.UnionSet, lo: int, hi: int) -> tuple[int, int]:
    """Which sides of the block to grow by one for ``missing`` instances that lie inside it but
    that its kernel does not run: a loop such as ``range(1, n - 1)`` leaves out a band at each
    edge of every block, so an instance near an edge needs the block to reach one further."""
    left = right = 0
    middle = (lo + hi) / 2
    for name, points in _sets_by_name(missing).items():
        pos = alignment[name]
        span = _coordinate_range(points, pos) if pos is not None else None
        if span is None:
            continue
        left = max(left, int(span[0] < middle))
        right = max(right, int(span[1] >= middle))
    return left, right


def _plain(points: isl.UnionSet) -> isl.UnionSet:
    """Parameters dropped (they are fixed): sets from different parameter spaces compare."""
    return points.project_out_all_params()


def check_chunk(problem: Problem, cut: Cut, alignment: dict[str, int | None], needs: ChunkNeeds,
                start: int, length: int, whole: isl.UnionSet) -> isl.UnionSet:
    """The needed instances the block's kernel would not run (empty: the block computes the
    chunk).  Raises UnsupportedError when the block's kernel runs something the whole-array
    kernel does not: its bounds are not the same relative to every block."""
    local = _plain(local_instances(problem, cut, alignment, start, length))
    extra = local.subtract(_plain(whole))
    if not extra.is_empty():
        name = next(iter(_sets_by_name(extra)))
        raise refusal(problem.scop.statement(name), cut,
                      "its loop bounds do not move with the chunk (a block would run iterations "
                      "the whole-array kernel does not)")
    return _plain(needs.instances).subtract(local)


def halo_for_axis(problem: Problem, cut: Cut, chunks: tuple[int, ...], *, final: bool = True) -> AxisHalo:
    """The ghost depth of the cut for these chunk sizes (see the module docstring).  ``final``:
    these are the chunks the graph runs, so every block's accesses are checked too (a chunking
    about to be merged, polyfuse.dask.plan._fit_chunks, needs only the depth)."""
    from polyfuse.dask.blocks import check_accesses, check_bounds, check_values

    alignment = align(problem, cut)
    whole = whole_instances(problem)
    _refuse_carried(problem, cut, alignment)
    bounds = _chunk_bounds(chunks)
    for index in range(len(bounds)):
        check_bounds(problem, cut, alignment, *_block(bounds, index, 0, 0))
    per_chunk = [chunk_needs(problem, cut, lo, hi, k == len(bounds) - 1) for k, (lo, hi) in enumerate(bounds)]
    left = max((a.left for c in per_chunk for a in c.arrays), default=0)
    # an array longer along the axis than the reference has that much more in every block
    right = max((a.reach - problem.offset(a.array, cut.axis_of(a.array) or 0) for c in per_chunk for a in c.arrays),
                default=0)
    right = max(right, 0)
    for _ in range(64):  # the loop bounds may need a deeper block than the reads
        grow_left = grow_right = 0
        for index, needs in enumerate(per_chunk):
            start, length = _block(bounds, index, left, right)
            missing = check_chunk(problem, cut, alignment, needs, start, length, whole)
            if not missing.is_empty():
                more = missing_sides(problem, alignment, missing, start, start + length)
                if not any(more):  # inside the block, in the band its loop bounds leave out at an edge
                    more = inner_sides(alignment, missing, start, start + length)
                if not any(more):
                    name = next(iter(_sets_by_name(missing)))
                    raise refusal(problem.scop.statement(name), cut,
                                  "a block would not run every instance its chunk needs, however deep its "
                                  "ghost zone (its loop bounds do not move with the block)")
                grow_left, grow_right = max(grow_left, more[0]), max(grow_right, more[1])
        if not grow_left and not grow_right:
            break
        left, right = left + grow_left, right + grow_right
    else:
        raise UnsupportedError(f"cannot find a ghost depth for {cut.label}: the blocks never run "
                               "every instance the chunk needs")
    if final and len(bounds) > 1:
        check_values(problem, cut)
        for index in range(len(bounds)):
            check_accesses(problem, cut, alignment, *_block(bounds, index, left, right))
    guarded = False
    for update in problem.reductions:  # any() would stop at the first guarded one
        guarded = _check_partials(problem, cut, alignment, update, bounds, per_chunk, left, right) or guarded
    for stmt in _adders(problem, problem.summed_along(cut)):
        _check_sums(problem, cut, alignment, stmt, bounds, left, right)
    iterators = tuple((s.name, s.iterators[p]) for s in problem.scop.statements
                      if (p := alignment[s.name]) is not None)
    exact = flow_closure(problem, problem.summed_along(cut))[1]  # the closure the needs came from
    return AxisHalo(cut.axis, left, right, _most(per_chunk), iterators, exact, cut.members, guarded)


def _check_partials(problem: Problem, cut: Cut, alignment: dict[str, int | None], name: str, bounds, per_chunk,
                    left: int, right: int) -> bool:
    """Each block runs every instance of the reduction's update ``name`` its chunk owns; True
    when some block also runs updates its neighbours own (in its ghost zone: a reduction after or
    inside a time loop, or reading with an offset): the block must then run the update on its
    chunk only (polyfuse.dask.guard), so that no update is counted twice."""
    extra = False
    for index, needs in enumerate(per_chunk):
        start, length = _block(bounds, index, left, right)
        local = _plain(local_instances(problem, cut, alignment, start, length))
        runs = _sets_by_name(local).get(name)
        owned = _sets_by_name(_plain(owned_updates(problem, cut, name, needs.lo, needs.hi,
                                                   index == len(bounds) - 1))).get(name)
        if owned is None:
            extra = extra or runs is not None
            continue
        if runs is None or not owned.is_subset(runs):
            raise refusal(problem.scop.statement(name), cut,
                          "a block would not run every update of the reduction its chunk owns "
                          "(its loop bounds and its reads' ghost zone disagree)")
        extra = extra or not runs.is_equal(owned)
    return extra


def _check_sums(problem: Problem, cut: Cut, alignment: dict[str, int | None], stmt: Statement, bounds,
                left: int, right: int) -> None:
    """Each block runs exactly the updates of a summed array its chunk owns: the partials then
    add up every update once."""
    for index, (lo, hi) in enumerate(bounds):
        start, length = _block(bounds, index, left, right)
        runs = _sets_by_name(_plain(local_instances(problem, cut, alignment, start, length))).get(stmt.name)
        owned = _sets_by_name(_plain(_owned(problem, cut, stmt, lo, hi, index == len(bounds) - 1))).get(stmt.name)
        if (runs is None) != (owned is None) or (runs is not None and owned is not None and not runs.is_equal(owned)):
            raise refusal(stmt, cut, f"a block would not add exactly its own chunk's updates to {stmt.array} "
                          "(its loop also runs over the ghost zone), so the partial sums would not add up")


def _chunk_bounds(chunks: tuple[int, ...]) -> list[tuple[int, int]]:
    bounds, lo = [], 0
    for size in chunks:
        bounds.append((lo, lo + size))
        lo += size
    return bounds


def _block(bounds: list[tuple[int, int]], index: int, left: int, right: int) -> tuple[int, int]:
    """The block of chunk ``index`` with its ghost zones (problem.block_span, as the graph cuts
    it): its start and length."""
    start, end = block_span(tuple(hi - lo for lo, hi in bounds), index, left, right)
    return start, end - start


def _most(per_chunk: list[ChunkNeeds]) -> tuple[ArrayNeed, ...]:
    most: dict[str, tuple[int, int]] = {}
    for chunk in per_chunk:
        for need in chunk.arrays:
            old = most.get(need.array, (0, 0))
            most[need.array] = (max(old[0], need.left), max(old[1], need.right))
    return tuple(ArrayNeed(name, lr[0], lr[1]) for name, lr in sorted(most.items()))


def _refuse_carried(problem: Problem, cut: Cut, alignment: dict[str, int | None]) -> None:
    """A statement whose value depends (through any chain of flow dependences, at these sizes)
    on an earlier iteration of the loop that moves with the axis, in the same iteration of every
    loop around it, makes that loop a recurrence: each chunk would need every chunk before it.
    A loop around it (a time loop) carrying the chain is fine: the ghost zone covers it."""
    closure, _ = flow_closure(problem, problem.summed_along(cut))
    cyclic = []
    for m in _maps_of(closure):
        name = m.get_tuple_name(isl.dim_type.in_)
        pos = alignment.get(name)
        if name != m.get_tuple_name(isl.dim_type.out) or pos is None:
            continue
        outer = " and ".join([f"x{i} = y{i}" for i in range(pos)] + ["true"])
        plain = m.reset_tuple_id(isl.dim_type.in_).reset_tuple_id(isl.dim_type.out)
        for step in (f"x{pos} < y{pos}", f"x{pos} > y{pos}"):
            pairs = pairs_where(m.get_ctx(), m.dim(isl.dim_type.in_), m.dim(isl.dim_type.out), f"{outer} and {step}")
            if not plain.intersect(pairs.align_params(plain.get_space())).is_empty():
                cyclic.append(name)
                break
    if not cyclic:
        return
    carried = [text for text, src, dst in carried_dependences(problem, alignment) if {src, dst} & set(cyclic)]
    named = "; ".join(carried) if carried else f"a chain of flow dependences through {', '.join(cyclic)}"
    raise UnsupportedError(
        f"cannot split {cut.label} into chunks: {named} is carried along it, so every chunk "
        f"needs the chunks before it (the ghost zone would grow to the array's end); keep axis "
        f"{cut.axis} of {cut.array} in one chunk, e.g. {cut.array}.rechunk({{{cut.axis}: -1}})"
    )


def _maps_of(union: isl.UnionMap) -> list[isl.Map]:
    found: list[isl.Map] = []
    union.foreach_map(found.append)
    return found


def carried_dependences(problem: Problem, alignment: dict[str, int | None]) -> list[tuple[str, str, str]]:
    """The flow dependences whose source and sink differ along the aligned iterators: their
    description, source and sink."""
    found = []
    for dep in problem.deps.items:
        if dep.kind != "RAW":
            continue
        for src, dst in dep.statement_pairs():
            if _moves(dep.relation, src, dst, alignment):
                first, second = problem.scop.statement(src), problem.scop.statement(dst)
                found.append((f"the flow dependence RAW on {dep.array}: {src} -> {dst} "
                              f"({first.source_line!r} line {first.span.line} -> "
                              f"{second.source_line!r} line {second.span.line})", src, dst))
    return found


def _moves(relation: isl.UnionMap, src: str, dst: str, alignment: dict[str, int | None]) -> bool:
    p, q = alignment.get(src), alignment.get(dst)
    if p is None or q is None:
        return False
    pairs: list[isl.Map] = []
    relation.foreach_map(lambda m: pairs.append(m) if (
        m.get_tuple_name(isl.dim_type.in_) == src and m.get_tuple_name(isl.dim_type.out) == dst) else None)
    for m in pairs:
        same = pairs_where(m.get_ctx(), m.dim(isl.dim_type.in_), m.dim(isl.dim_type.out), f"x{p} = y{q}")
        plain = m.reset_tuple_id(isl.dim_type.in_).reset_tuple_id(isl.dim_type.out)
        if not plain.subtract(same.align_params(plain.get_space())).is_empty():
            return True
    return False
