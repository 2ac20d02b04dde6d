"""Choosing the schedule: fusion policy on top of isl's scheduler.

``fuse="none"`` keeps the program's loop structure.  ``"smart"`` merges adjacent loops that
exchange or share data, keeping each nest's loop order, unless the merge is illegal or loses
parallelism (polyfuse.fusion).  ``"max"`` asks isl's scheduler to schedule each connected
component as a whole, fusing whatever is legal, free to permute and skew loops.  Every
transformed schedule is verified; one that fails is never used.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

import islpy as isl

from polyfuse.analysis.dependences import Dependences
from polyfuse.analysis.verify import schedule_violations
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.isl_budget import budget as isl_budget
from polyfuse.model.isl_parts import maps_of
from polyfuse.model.scop import Scop
from polyfuse.options import first_violation
from polyfuse.schedule.fusion import SmartFusion
from polyfuse.schedule.isl_scheduler import (
    MAX_DEPENDENCE_PIECES,
    constant_bound_note,
    dependence_pieces,
    isl_schedule,
    tile_permutable_bands,
    totally_ordered,
)
from polyfuse.schedule.legality import violations
from polyfuse.schedule.locality import LocalityPass
from polyfuse.schedule.outer_parallelism import pivot_blocked, propose
from polyfuse.schedule.tiling import REGISTER_TILE_VECTORS, TilingPass
from polyfuse.schedule.time_tiling import FUSED_TILES_TEXT, not_applied, time_tile

log = logging.getLogger("polyfuse")
TIME_TILING_BUDGET_SCALE = 10
#: the most pieces (basic maps) a pivot-blocked order may have: lu's has 9, cholesky's 11; random
#: pivot nests (fz27) made 73 and 521, whose verification took 2 and 40 s of isl (``runs_before``
#: over every pair of pieces) and refused them anyway
PIVOT_MAX_PIECES = 64


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
    outer_parallelism: tuple = ()  # OuterParallelDecision records
    scop: Scop | None = None  # the Scop the schedule is for, when the policy changed it
    # the program-order dependences of ``scop`` (when set), which the schedule was verified against
    deps: Dependences | None = field(default=None, compare=False, repr=False)


def choose_schedule(scop: Scop, deps: Dependences, *, fuse: str, tile_budget: int = 0,
                    vector_bytes: int = 0, time_tiling: bool | None = None, time_tile_budget: int = 0,
                    time_tile_sizes: tuple[int, ...] = (), time_tile_whole_row: int = 0,
                    time_tile_fused_rows: int = 0, time_tile_fused_tiles: int = 0,
                    time_tile_atomic: bool = False, vector_math: bool = False,
                    parallel: bool = True, serial_fusion: bool = True,
                    chunked_sums: bool = False, pivot_block: int = 0, transpose_budget: int = 0,
                    line: int = 64, transpose_side: int = 0, register_cache_budget: int = 0,
                    register_sums: int = REGISTER_TILE_VECTORS, register_narrower: bool = True) -> ScheduleResult:
    """The schedule for fusion mode ``fuse``, verified against ``deps``.

    ``time_tiling`` (smart only; ``Options.time_tiling_enabled()``): time tile stencil nests, with
    tiles whose footprint fits ``time_tile_budget`` bytes (or ``time_tile_sizes`` where given).
    None infers it from ``vector_bytes`` (set only for CPU targets) until every caller passes it.
    ``parallel`` (smart only): reschedule nests whose parallel loops lie deep (outer parallelism);
    off when the kernel runs serially anyway.  ``serial_fusion`` (smart only): a parallel loop
    may be fused into a serial one when it only reads big arrays the other reads too, and
    (``chunked_sums``: passes/private_sums will run) when the fused loop carries only sums of
    products.  ``transpose_budget`` (smart only): bytes of cache lines a square tile of a nest that
    copies between an array and its transpose may touch (0: such nests stay untiled);
    ``transpose_side`` fixes its side.  ``register_cache_budget``: bytes of the cache tiles a
    register-tiled nest gets where it has none (0: none); ``register_sums``: the vectors of sums
    a register tile holds; ``register_narrower``: narrower tiles for the columns outside full ones."""
    if fuse == "none" or not scop.statements:
        return ScheduleResult(fuse, "program order", (), schedule=scop.schedule)
    if fuse == "smart":
        locality = LocalityPass(scop, deps, tiling=bool(tile_budget), vector_bytes=vector_bytes,
                                vector_math=vector_math, transpose=bool(transpose_budget))
        ordered = locality.run()
        scop, deps = locality.scop, locality.deps  # scalar expansion may have grown some locals
        fusion = SmartFusion(scop, deps, tiling=bool(tile_budget), vector_bytes=vector_bytes,
                             serial_fusion=serial_fusion, chunked_sums=serial_fusion and chunked_sums)
        body = fusion.run(ordered)
        tiling = TilingPass(scop, deps, tile_budget, vector_bytes, transpose_budget, line, transpose_side,
                            register_cache_budget, register_sums, register_narrower)
        body = tiling.run(body)
        # time-stepped stencils: skewed, wavefront-parallel time tiles (verified, else dropped)
        enabled = vector_bytes > 0 if time_tiling is None else time_tiling
        parts, time_tiles = (smart_time_tiling(scop, deps, body, budget=time_tile_budget, sizes=time_tile_sizes,
                                                               whole_row=time_tile_whole_row,
                                                               fused_rows=time_tile_fused_rows,
                                                               fused_tiles=time_tile_fused_tiles,
                                                               atomic_tiles=time_tile_atomic)
                             if enabled else ((None,) * len(body), ()))
        # the other nests: isl's schedule where it has shallower parallel loops (verified)
        parts, outer = (smart_outer_parallelism(scop, deps, body, parts, pivot_block=pivot_block)
                        if parallel else (parts, ()))
        return ScheduleResult(fuse, "smart fusion of the program's loops", (), sequenced(scop, body, parts),
                              tuple(fusion.decisions), tuple(locality.decisions), tuple(tiling.decisions),
                              scop=scop, deps=deps, register_tiles=tuple(tiling.register_decisions),
                              time_tiling=time_tiles, outer_parallelism=outer)
    pieces = dependence_pieces(deps)
    if pieces > MAX_DEPENDENCE_PIECES:
        note = (f"isl's scheduler not tried: {pieces} dependence pieces (more than {MAX_DEPENDENCE_PIECES}, "
                "where it runs past the operation budget); kept program order")
        return ScheduleResult(fuse, "program order", (note,), schedule=scop.schedule)
    note = constant_bound_note(deps)
    if note:
        return ScheduleResult(fuse, "program order", (note + "; kept program order",), schedule=scop.schedule)
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
                problems = schedule_violations(scop, deps, candidate, first=first_violation()) if candidate is not None else []
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


def sequenced(scop: Scop, body: tuple, parts: tuple[isl.Schedule | None, ...]) -> isl.Schedule:
    """The program's schedule: the top-level nodes of ``body`` in order, each by its transformed
    schedule in ``parts`` or, where that is None, by the smart loop tree."""
    if not any(p is not None for p in parts):
        return scop.schedule_of(body)
    pieces = [p if p is not None else scop.schedule_of((node,)) for node, p in zip(body, parts)]
    result = pieces[0]
    for piece in pieces[1:]:
        result = result.sequence(piece)
    return result


def smart_time_tiling(scop: Scop, deps: Dependences, body: tuple, *, budget: int,
                      sizes: tuple[int, ...] = (), whole_row: int = 0,
                      fused_rows: int = 0, fused_tiles: int = 0,
                      atomic_tiles: bool = False) -> tuple[tuple[isl.Schedule | None, ...], tuple]:
    """The time-tiled schedule of each node of ``body`` (None: keep the smart tree), kept only
    when the whole program's schedule with them verifies.

    Verifying a tiled schedule (floors in the schedule) costs isl several times what a fusion
    check does, so this step gets ``TIME_TILING_BUDGET_SCALE`` times the usual budget."""
    plain: tuple[isl.Schedule | None, ...] = (None,) * len(body)
    limit = isl_budget() * TIME_TILING_BUDGET_SCALE
    try:
        with bounded(scop.context.get_ctx(), limit):
            tiled, decisions = time_tile(scop, deps, body, budget=budget, fixed_sizes=sizes,
                                         whole_row=whole_row, fused_rows=fused_rows, fused_tiles=fused_tiles,
                                         atomic_tiles=atomic_tiles)
            applied = any(p is not None for p in tiled)
            problems = schedule_violations(scop, deps, sequenced(scop, body, tiled), first=first_violation()) if applied else []
            if problems and fused_tiles and any(d.rows.startswith(FUSED_TILES_TEXT) for d in decisions):
                log.info("polyfuse: fused tile sweeps of %s rejected: %s", scop.name, "; ".join(problems))
                tiled, decisions = time_tile(scop, deps, body, budget=budget, fixed_sizes=sizes,
                                             whole_row=whole_row, fused_rows=fused_rows, atomic_tiles=atomic_tiles)
                problems = schedule_violations(scop, deps, sequenced(scop, body, tiled), first=first_violation())
            if problems and fused_rows and any("fused into one row loop" in d.whole_row for d in decisions):
                log.info("polyfuse: fused rows of %s rejected: %s", scop.name, "; ".join(problems))
                tiled, decisions = time_tile(scop, deps, body, budget=budget, fixed_sizes=sizes,
                                             whole_row=whole_row, atomic_tiles=atomic_tiles)
                problems = schedule_violations(scop, deps, sequenced(scop, body, tiled), first=first_violation())
    except BudgetExceeded:
        return plain, not_applied(scop, body, f"over the isl operation budget ({limit})")
    if not applied:
        return plain, decisions
    if problems:
        log.info("polyfuse: time tiling of %s rejected: %s", scop.name, "; ".join(problems))
        reason = "failed verification (" + "; ".join(problems) + ")"
        return plain, tuple(replace(d, applied=False, reason=reason, whole_row="") if d.applied else d
                            for d in decisions)
    return tiled, decisions


def smart_outer_parallelism(scop: Scop, deps: Dependences, body: tuple, parts: tuple[isl.Schedule | None, ...],
                            *, pivot_block: int = 0) -> tuple[tuple[isl.Schedule | None, ...], tuple]:
    """``parts`` with isl's outer-parallel schedule for each untransformed nest where
    polyfuse.schedule.outer_parallelism proposes one and the whole program's schedule with it
    verifies, tiled in pivot blocks of ``pivot_block`` where that verifies too; one record per
    nest considered."""
    decisions = []
    result = list(parts)
    for index, node in enumerate(body):
        if result[index] is not None:
            continue
        try:
            with bounded(scop.context.get_ctx()):
                candidate, decision = propose(scop, deps, node)
        except BudgetExceeded:
            continue
        if decision is None:
            continue
        if candidate is not None:
            candidate = totally_ordered(candidate)
            trial = [*result[:index], candidate, *result[index + 1:]]
            problems = violations(scop, deps, sequenced(scop, body, tuple(trial)))
            if problems:
                log.info("polyfuse: outer parallelism of %s rejected: %s", scop.name, "; ".join(problems))
                decision = replace(decision, applied=False,
                                   reason="failed verification (" + "; ".join(problems) + ")")
            else:
                result = trial
                blocked = _pivot_blocked(scop, deps, body, tuple(result), index, pivot_block)
                if blocked is not None:
                    result = list(blocked[0])
                    decision = replace(decision, pivot_blocks=blocked[1])
        decisions.append(decision)
    return tuple(result), tuple(decisions)


def _pivot_blocked(scop: Scop, deps: Dependences, body: tuple, parts: tuple, index: int,
                   size: int) -> tuple[tuple, str] | None:
    """``parts`` with the outer-parallel schedule of ``body[index]`` tiled in pivot blocks
    (polyfuse.schedule.outer_parallelism.pivot_blocked) where that verifies, and the record;
    None where ``size`` is 0 or 1 (off)."""
    if size <= 1:
        return None
    try:
        with bounded(scop.context.get_ctx(), isl_budget() * TIME_TILING_BUDGET_SCALE):
            blocked, sources, why = pivot_blocked(scop, deps, parts[index], size)
            if blocked is None:
                return parts, f"not blocked: {why}"
            pieces = sum(part.n_basic_map() for part in maps_of(blocked.get_map()))
            if pieces > PIVOT_MAX_PIECES:
                return parts, (f"not blocked: the blocked order has {pieces} pieces (more than "
                               f"{PIVOT_MAX_PIECES}: too costly to verify)")
            trial = (*parts[:index], blocked, *parts[index + 1:])
            # every element keeps its accesses' order in a pivot block (that is the point): the
            # cheap memory-order test decides, not the candidate's exact dataflow (fz27: 42 s)
            problems = violations(scop, deps, sequenced(scop, body, trial), exact=False)
    except BudgetExceeded:
        return parts, "not blocked: over the isl operation budget"
    if problems:
        log.info("polyfuse: pivot blocks of %s rejected: %s", scop.name, "; ".join(problems))
        return parts, "not blocked: failed verification (" + "; ".join(problems) + ")"
    return trial, f"blocks of {size} pivots and {size} rows; source tiles {sources} first, the rest in parallel"
