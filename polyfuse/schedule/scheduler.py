"""Choosing the schedule: fusion policy on top of isl's scheduler.

``fuse="none"`` keeps the program's loop structure.  ``"smart"`` merges adjacent loops that
exchange or share data, keeping each nest's loop order, unless the merge is illegal or loses
parallelism (polyfuse.fusion).  ``"max"`` asks isl's scheduler to schedule each connected
component as a whole, fusing whatever is legal, free to permute and skew loops.  Every
transformed schedule is verified; one that fails is never used.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace

import islpy as isl

from polyfuse.analysis.dependences import Dependences
from polyfuse.analysis.verify import schedule_violations
from polyfuse.model.isl_budget import BudgetExceeded, bounded, budget
from polyfuse.model.scop import Scop
from polyfuse.schedule.fusion import SmartFusion
from polyfuse.schedule.locality import LocalityPass
from polyfuse.schedule.tiling import TilingPass
from polyfuse.schedule.time_tiling import not_applied, time_tile, time_tiling_env

log = logging.getLogger("polyfuse")
_ISL_OPTIONS_LOCK = threading.Lock()
FUSE_MODES = ("none", "smart", "max")
TIME_TILING_BUDGET_SCALE = 10


@dataclass(frozen=True)
class ScheduleResult:
    fuse: str
    source: str  # "program order" | "isl scheduler"
    notes: tuple[str, ...]
    schedule: isl.Schedule = field(compare=False, repr=False)
    decisions: tuple = ()  # FusionDecision records, when the policy made them itself
    locality: tuple = ()  # LocalityDecision records (loop order changes)
    tiling: tuple = ()  # TileChoice records
    register_tiles: tuple = ()  # RegisterTileChoice records
    time_tiling: tuple = ()  # TimeTileDecision records
    scop: Scop | None = None  # the Scop the schedule is for, when the policy changed it


def choose_schedule(scop: Scop, deps: Dependences, *, fuse: str, tile_budget: int = 0,
                    vector_bytes: int = 0, time_tiling: bool | None = None,
                    vector_math: bool = False) -> ScheduleResult:
    """The schedule for fusion mode ``fuse``, verified against ``deps``.

    ``time_tiling`` (smart only; ``Options.time_tiling_enabled()``): time tile stencil nests.
    None infers it from ``vector_bytes`` (set only for CPU targets) until every caller passes it."""
    if fuse == "none" or not scop.statements:
        return ScheduleResult(fuse, "program order", (), schedule=scop.schedule)
    if fuse == "smart":
        locality = LocalityPass(scop, deps, tiling=bool(tile_budget), vector_bytes=vector_bytes,
                                vector_math=vector_math)
        ordered = locality.run()
        scop, deps = locality.scop, locality.deps  # scalar expansion may have grown some locals
        fusion = SmartFusion(scop, deps, tiling=bool(tile_budget), vector_bytes=vector_bytes)
        body = fusion.run(ordered)
        tiling = TilingPass(scop, deps, tile_budget, vector_bytes)
        body = tiling.run(body)
        # time-stepped stencils: skewed, wavefront-parallel time tiles (verified, else dropped)
        enabled = vector_bytes > 0 if time_tiling is None else time_tiling
        schedule, time_tiles = smart_time_tiling(scop, deps, body) if enabled else (scop.schedule_of(body), ())
        return ScheduleResult(fuse, "smart fusion of the program's loops", (), schedule,
                              tuple(fusion.decisions), tuple(locality.decisions), tuple(tiling.decisions),
                              scop=scop, register_tiles=tuple(tiling.register_decisions),
                              time_tiling=time_tiles)
    notes = []
    # first let local temporaries' live ranges be reordered; if the result does not verify,
    # treat their false dependences as hard constraints; if that fails too, keep program order
    for relax_locals in (True, False) if not deps.local_false().is_empty() else (False,):
        try:
            with bounded(scop.context.get_ctx()):
                candidate = isl_schedule(scop, deps, fuse=fuse, relax_locals=relax_locals)
                if candidate is not None and tile_budget:
                    candidate = tile_permutable_bands(candidate)
                if candidate is not None:
                    candidate = totally_ordered(candidate)
                problems = schedule_violations(scop, deps, candidate) if candidate is not None else []
        except BudgetExceeded:
            notes.append("isl's scheduler exceeded its operation budget")
            break
        if candidate is None:
            notes.append("isl found no schedule" + (" with relaxed locals" if relax_locals else ""))
            continue
        if not problems:
            return ScheduleResult(fuse, "isl scheduler", tuple(notes), schedule=candidate)
        log.info("polyfuse: isl schedule for %s rejected: %s", scop.name, "; ".join(problems))
        notes.append("isl schedule " + ("with relaxed locals " if relax_locals else "")
                     + "failed verification (" + "; ".join(problems) + ")")
    notes.append("kept program order")
    return ScheduleResult(fuse, "program order", tuple(notes), schedule=scop.schedule)


def smart_time_tiling(scop: Scop, deps: Dependences, body: tuple) -> tuple[isl.Schedule, tuple]:
    """The smart schedule of ``body``, with its stencil nests time tiled where that verifies.

    Verifying a tiled schedule (floors in the schedule) costs isl several times what a fusion
    check does, so this step gets ``TIME_TILING_BUDGET_SCALE`` times the usual budget."""
    plain = scop.schedule_of(body)
    if not time_tiling_env():
        return plain, ()
    from polyfuse.hardware import cpu_info

    limit = budget() * TIME_TILING_BUDGET_SCALE
    try:
        with bounded(scop.context.get_ctx(), limit):
            tiled, decisions = time_tile(scop, deps, body, budget=cpu_info().l2 // 2)
            problems = schedule_violations(scop, deps, tiled) if tiled is not None else []
    except BudgetExceeded:
        return plain, not_applied(scop, body, f"over the isl operation budget ({limit})")
    if tiled is None:
        return plain, decisions
    if problems:
        log.info("polyfuse: time tiling of %s rejected: %s", scop.name, "; ".join(problems))
        reason = "failed verification (" + "; ".join(problems) + ")"
        return plain, tuple(replace(d, applied=False, reason=reason) if d.applied else d for d in decisions)
    return tiled, decisions


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
    (fusing what is legal), coefficients at most 20 (as Polly) to keep the ILP fast."""
    ctx = constraints.get_ctx()
    with _ISL_OPTIONS_LOCK:
        ctx.set_schedule_serialize_sccs(0)
        ctx.set_schedule_whole_component(1)
        ctx.set_schedule_maximize_coincidence(0)
        ctx.set_schedule_outer_coincidence(0)
        ctx.set_schedule_max_coefficient(20)
        return constraints.compute_schedule()


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
