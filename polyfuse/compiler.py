"""The whole pipeline, one line per stage.

Each stage's output is kept in an ordered ``Stages`` record with its time, so ``explain()`` and
``inspect_llvm()`` only read from it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from polyfuse.analysis.dependences import check_scalars_defined, compute_dependences
from polyfuse.analysis.verify import schedule_violations
from polyfuse.errors import VerificationError
from polyfuse.frontend import lift
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.scop import Argument
from polyfuse.options import Options
from polyfuse.passes.astgen import build_loop_program
from polyfuse.passes.interleave import interleave_reductions
from polyfuse.passes.lanes import split_minmax_reductions
from polyfuse.passes.registers import promote_register_tiles
from polyfuse.schedule.contraction import contract
from polyfuse.schedule.fusion import report
from polyfuse.schedule.scheduler import choose_schedule
from polyfuse.schedule.tiling import REGISTER_TILE_VECTORS


@dataclass
class Stages:
    """Outputs of the pipeline stages, in order, with the seconds each took."""

    outputs: OrderedDict = field(default_factory=OrderedDict)
    seconds: OrderedDict = field(default_factory=OrderedDict)

    def run(self, name: str, fn, *args, **kwargs) -> Any:
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        self.seconds[name] = time.perf_counter() - start
        self.outputs[name] = result
        return result

    def __getitem__(self, name: str) -> Any:
        return self.outputs[name]

    def total_seconds(self) -> float:
        return sum(self.seconds.values())


def compile_loop_program(fn, arguments: tuple[Argument, ...], options: Options) -> Stages:
    """Python function + signature -> verified, scheduled loop AST (target independent)."""
    stages = Stages()
    # the frontend rejects unsupported code, then builds domains, accesses and program order
    scop = stages.run("lift", lift, fn, arguments)
    stages.run("check locals", check_scalars_defined, scop)
    # dependences decide what every later transformation may do
    deps = stages.run("dependences", compute_dependences, scop)
    # fusion policy on top of isl's scheduler; results that fail verification are discarded
    sched = stages.run("schedule", choose_schedule, scop, deps, fuse=options.fuse,
                       tile_budget=options.tile_budget(), vector_bytes=options.register_tile_bytes(),
                       vector_math=options.target == "cpu" and (options.vector_math or options.fastmath),
                       time_tiling=options.time_tiling_enabled())
    if sched.scop is not None and sched.scop is not scop:
        scop = sched.scop  # scalars expanded so loops could be reordered
        deps = compute_dependences(scop)
    if options.verify:
        stages.run("verify", _verify, scop, deps, sched.schedule)
    # intermediates that fusion made short-lived shrink (to rows, tiles or registers)
    if options.contract:
        scop, deps, _ = stages.run("contraction", _contract, scop, deps, sched.schedule)
    # isl generates the loops; dependences mark which of them are parallel
    program = stages.run("loop ast", build_loop_program, scop, sched.schedule, deps)
    # register tiles keep their outputs in a small local array across the reduction loop
    if options.register_tile_bytes():
        program, _ = stages.run("register promotion", promote_register_tiles, program,
                                max_bytes=REGISTER_TILE_VECTORS * options.register_tile_bytes())
        stages.outputs["loop ast"] = program
    # max/min reductions run in SIMD lanes (exact: a zero result reruns the loop in order)
    if options.minmax_lane_bytes():
        program, _ = stages.run("minmax lanes", split_minmax_reductions, program,
                                vector_bytes=options.minmax_lane_bytes())
        stages.outputs["loop ast"] = program
    # several iterations of a parallel loop side by side: float reductions overlap their latency
    if options.interleave_copies():
        program, _ = stages.run("interleave", interleave_reductions, program, copies=options.interleave_copies())
        stages.outputs["loop ast"] = program
    stages.run("fusion report", _fusion_report, scop, deps, program, sched)
    stages.outputs["final scop"] = scop  # after contraction: what the runtime allocates and checks
    return stages


def _contract(scop, deps, schedule):
    """Contracted Scop and its dependences under ``schedule`` (contracted storage is only valid
    in the new order).  If recomputing them is over isl's budget, nothing is contracted."""
    contracted, decisions = contract(scop, deps, schedule)
    if not any(d.dropped_axes for d in decisions):
        return scop, deps, decisions
    try:
        with bounded(scop.context.get_ctx()):
            return contracted, compute_dependences(contracted, schedule), decisions
    except BudgetExceeded:
        return scop, deps, ()


def _verify(scop, deps, schedule) -> str:
    problems = schedule_violations(scop, deps, schedule)
    if problems:
        raise VerificationError(f"schedule of {scop.name} is illegal: {'; '.join(problems)}")
    return "every dependence respected"


def _fusion_report(scop, deps, program, sched):
    return sched.decisions if sched.fuse == "smart" else report(scop, deps, program, fuse=sched.fuse)
