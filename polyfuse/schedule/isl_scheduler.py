"""polyfuse's wrapper around isl's scheduler (``ScheduleConstraints.compute_schedule``) and the
schedule-tree edits made on its result: fixed order of ``set`` children, tiling of permutable bands.

Used by ``fuse="max"`` (polyfuse.schedule.scheduler) and by time tiling's skewed bands.  isl's
scheduler options live on the shared context, so they are set under one lock per call.
"""

from __future__ import annotations

import threading

import islpy as isl

from polyfuse.analysis.dependences import Dependences
from polyfuse.model.scop import Scop

_ISL_OPTIONS_LOCK = threading.Lock()

#: isl's scheduler is not tried on more dependence pieces (basic maps) than this: its ILP
#: (Farkas multipliers per piece) hardly counts against isl's operation budget, and ran for
#: minutes on 200 pieces (regression c_compile_time_fuse_max); the suite's kernels have < 50.
MAX_DEPENDENCE_PIECES = 128

#: Nor on parametric programs whose dependences bound an iterator by a constant above this:
#: isl's band ILP then spends minutes without counting operations (so the operation budget
#: does not stop it).  fe41's crc32_table_driven (a 256-entry table loop, then a loop over the
#: data that reads all of it): 0.03-0.3 s with every bound <= 16 in place of 255, > 60 s from 17
#: on (also with POLYFUSE_ISL_BUDGET=100000), 0.13 s with the parameter replaced by a constant.
#: The suite's kernels bound their loops by parameters (largest constant 1-2).
MAX_DEPENDENCE_CONSTANT = 16


def dependence_pieces(deps: Dependences) -> int:
    """How many basic maps all of ``deps`` together are made of (what isl's scheduler works on)."""
    return pieces(deps.union())


def pieces(relation: isl.UnionMap) -> int:
    count = 0

    def add(part: isl.Map) -> None:
        nonlocal count
        count += part.n_basic_map()

    relation.foreach_map(add)
    return count


def largest_constant(relation: isl.UnionMap) -> int:
    """The largest absolute constant term of a constraint of ``relation`` (its pieces' bounds)."""
    largest = 0

    def constraint(c: isl.Constraint) -> None:
        nonlocal largest
        largest = max(largest, abs(c.get_constant_val().to_python()))

    relation.foreach_map(lambda part: part.foreach_basic_map(lambda b: b.foreach_constraint(constraint)))
    return largest


def constant_bound_note(deps: Dependences) -> str:
    """Why isl's scheduler is not tried on ``deps`` (MAX_DEPENDENCE_CONSTANT); "" where it is."""
    union = deps.union()
    if not union.dim(isl.dim_type.param):
        return ""
    largest = largest_constant(union)
    if largest <= MAX_DEPENDENCE_CONSTANT:
        return ""
    return (f"isl's scheduler not tried: a dependence of this parametric program bounds an iterator by "
            f"the constant {largest} (more than {MAX_DEPENDENCE_CONSTANT}, where its ILP runs for minutes "
            "without counting operations)")


def isl_schedule(scop: Scop, deps: Dependences, *, fuse: str, relax_locals: bool) -> isl.Schedule | None:
    """Run isl's scheduler; with ``relax_locals`` local false dependences are conditional."""
    validity = deps.validity()
    if not relax_locals:
        validity = validity.union(deps.local_false())
    constraints = (
        isl.ScheduleConstraints.on_domain(scop.domain())
        .set_context(scop.context)
        .set_validity(validity)
        .set_coincidence(validity.union(deps.local_false()))
        .set_proximity(deps.union())
    )
    if relax_locals:
        constraints = constraints.set_conditional_validity(deps.local_flow(), deps.local_false())
    return compute_whole_components(constraints)


def compute_whole_components(constraints: isl.ScheduleConstraints) -> isl.Schedule | None:
    """isl's scheduler with polyfuse's options: each connected component scheduled as a whole
    (fusing what is legal), coefficients at most 20 (as Polly) to keep the ILP fast.  None when
    isl finds no schedule or the dependences have too many pieces to try."""
    if pieces(constraints.get_proximity()) > MAX_DEPENDENCE_PIECES:
        return None  # see MAX_DEPENDENCE_PIECES: callers keep what they had
    ctx = constraints.get_ctx()
    with _ISL_OPTIONS_LOCK:
        ctx.set_schedule_serialize_sccs(0)
        ctx.set_schedule_whole_component(1)
        ctx.set_schedule_maximize_coincidence(0)
        ctx.set_schedule_outer_coincidence(0)
        ctx.set_schedule_max_coefficient(20)
        return constraints.compute_schedule()


def compute_outer_parallel(constraints: isl.ScheduleConstraints) -> isl.Schedule | None:
    """isl's scheduler asked for outer coincidence (PPCG's option for GPUs): each band's outer
    member parallel where splitting the component or permuting its loops makes it so; components
    scheduled one SCC at a time (not whole).  None as in ``compute_whole_components``."""
    if pieces(constraints.get_proximity()) > MAX_DEPENDENCE_PIECES:
        return None
    ctx = constraints.get_ctx()
    with _ISL_OPTIONS_LOCK:
        ctx.set_schedule_serialize_sccs(0)
        ctx.set_schedule_whole_component(0)
        ctx.set_schedule_maximize_coincidence(0)
        ctx.set_schedule_outer_coincidence(1)
        ctx.set_schedule_max_coefficient(20)
        try:
            return constraints.compute_schedule()
        finally:
            ctx.set_schedule_outer_coincidence(0)


def totally_ordered(schedule: isl.Schedule) -> isl.Schedule:
    """The same schedule with every ``set`` node's children put in a fixed order.

    isl's scheduler may leave independent parts in a ``set`` node (any order allowed).  Dataflow
    analysis treats those parts as unordered while code generation picks an order, so a check on
    the tree could pass while the generated code runs a write before a read it must follow.  One
    band built from the flattened schedule map fixes the order; we verify and generate from it.
    """
    flat = schedule.get_map()
    band = isl.MultiUnionPwAff.from_union_map(flat)
    return isl.Schedule.from_domain(schedule.get_domain()).insert_partial_schedule(band)


ISL_BAND_TILE = (16, 64, 256)  # outermost (often time, after skewing), middle, innermost members


def tile_permutable_bands(schedule: isl.Schedule) -> isl.Schedule:
    """Tile every permutable band of two or more members that isl's scheduler produced.

    After skewing, a stencil's time loop and space loops form one permutable band, so this is
    time tiling: a tile advances several time steps while its data stays in cache."""
    schedule.get_ctx().set_tile_shift_point_loops(0)

    def tile(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.band or not node.band_get_permutable():
            return node
        members = node.band_n_member()
        if members < 2:
            return node
        sizes = isl.MultiVal.zero(node.band_get_space())
        for position in range(members):
            which = 0 if position == 0 else (2 if position == members - 1 else 1)
            sizes = sizes.set_val(position, isl.Val(ISL_BAND_TILE[which]))
        return node.band_tile(sizes)

    return schedule.map_schedule_node_bottom_up(tile)
