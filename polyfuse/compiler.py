"""The whole pipeline, one line per stage: the only place that knows the pass order.

Each stage's output is kept in an ordered ``Stages`` record (polyfuse.model.stages) with its
time, so ``explain()``, ``inspect_llvm()`` and the runtime only read from it.  Options reach the
passes as arguments from here; no pass reads the environment.
"""

from __future__ import annotations

from dataclasses import replace

from polyfuse import lift_memo
from polyfuse.analysis.bounds import BoundsChecker
from polyfuse.analysis.dependences import (
    check_scalars_defined,
    compute_dependences,
    dependences_after_contraction,
    unassigned_locals,
)
from polyfuse.analysis.prange import prange_claims
from polyfuse.analysis.verify import schedule_violations
from polyfuse.errors import UnsupportedError, VerificationError
from polyfuse.frontend import lift
from polyfuse.frontend.source import AST_LOCK
from polyfuse.model.isl_budget import BudgetExceeded, Deadline, bounded, compile_memo
from polyfuse.model.scop import Argument
from polyfuse.model.stages import Stages
from polyfuse.options import (
    DEFAULT_COMPILE_BLOCKS,
    Options,
    compile_operations,
    compile_seconds,
    machine,
    one_thread_tiles,
    overwritten_companions,
    overwritten_forward,
    overwritten_stores,
    packed_rest_loops,
    packed_rows,
    pivot_block,
    pivot_rows,
    time_tile_sizes,
    transpose_tile_side,
)
from polyfuse.passes.astgen import build_loop_program
from polyfuse.passes.blocked_sums import block_reductions
from polyfuse.passes.coalesce import coalesce_rows
from polyfuse.passes.fusion_report import report
from polyfuse.passes.interleave import interleave_reductions
from polyfuse.passes.lanes import split_minmax_reductions
from polyfuse.passes.noop_versions import version_noop_writes
from polyfuse.passes.outer_sums import block_outer_sums
from polyfuse.passes.packed_rows import pack_rows
from polyfuse.passes.pivot_rows import block_pivot_rows
from polyfuse.passes.private_sums import privatize_sums
from polyfuse.passes.registers import promote_register_tiles
from polyfuse.passes.serial import serial_loops
from polyfuse.passes.tile_walks import tile_walk
from polyfuse.schedule.accumulators import lift_accumulated_products
from polyfuse.schedule.contraction import contract
from polyfuse.schedule.overwritten import forward_overwritten
from polyfuse.schedule.scheduler import choose_schedule

__all__ = ["Stages", "compile_kernel", "compile_loop_program"]


def compile_kernel(fn, arguments: tuple[Argument, ...], options: Options) -> Stages:
    """Python function + signature -> every stage, down to the backend's runnable kernel and the
    call-time bounds proof (``stages["backend"]``, ``stages["bounds"]``)."""
    stages = compile_loop_program(fn, arguments, options)
    # the loop AST becomes code for the target (backends never see isl)
    stages.run("backend", backend_for(options.target), stages["loop ast"], options)
    # per axis, the parameter values for which every access stays inside its array
    stages.run("bounds", BoundsChecker, stages["final scop"], stages.outputs.get("uncontracted scop"))
    return stages


#: One lift at a time, and no other thread parsing meanwhile (frontend/source.py's AST_LOCK: CPython
#: 3.11's AST converter keeps its recursion depth per interpreter; the frontend is pure Python,
#: which the GIL serialises anyway, so the lock costs no parallelism).
FRONTEND_LOCK = AST_LOCK


def compile_loop_program(fn, arguments: tuple[Argument, ...], options: Options) -> Stages:
    """Python function + signature -> verified, scheduled loop AST (target independent)."""
    # isl objects the analyses share are kept for this compile only, so that it counts the
    # same isl operations (and makes the same choices) whatever compiled before it
    with compile_memo():
        stages = _compile_loop_program(fn, arguments, options)
    if _kept_whole(stages):  # a local of the overwritten stores was not shrunk: compile without them
        with compile_memo():
            stages = _compile_loop_program(fn, arguments, options, overwritten=False)
    return stages


def _kept_whole(stages: Stages) -> bool:
    """A local that ``forward_overwritten`` made keeps its whole shape after contraction."""
    shrunk = {d.array for d in stages.decisions("contraction") if d.dropped_axes or d.folded_axes}
    return any(d.local not in shrunk for d in stages.decisions("overwritten stores"))


def _compile_loop_program(fn, arguments: tuple[Argument, ...], options: Options, *,
                          overwritten: bool = True) -> Stages:
    stages = Stages()
    # the front half reads the function: lift, dependences, scalar check (or an earlier
    # variant's, for the same function and signature: they depend on no other option)
    scop, deps, deadline = _front_half(stages, fn, arguments, options)
    # whether each loop written with prange has independent iterations: a claim about the loops
    # as written, so before products leave them
    if scop.prange_loops:
        stages.run("prange claims", prange_claims, scop, deps)
    # a value stored only to be read back and overwritten goes through a local: the array is
    # written once (before the products and the schedule, which then see the local as any other;
    # only where contraction will shrink the local: a full-size one costs what it saves)
    if overwritten and options.target == "cpu" and options.contract and overwritten_stores():
        scop, deps, forwarded = stages.run("overwritten stores", forward_overwritten, scop, deps,
                                           forward=overwritten_forward(), companions=overwritten_companions())
        stages.records["overwritten stores"] = forwarded
    if options.blas and options.target == "cpu":  # C[i, j] += A[i, k] * B[k, j] loops: one BLAS call
        # numba-style `s = 0; for k: s += a * b; C[i, j] = alpha * s + ...` folded into C first
        scop, deps, accumulators, products = stages.run("loop products", lift_accumulated_products, scop, deps)
        stages.records["accumulators"] = accumulators
        stages.records["loop products"] = products
    # fusion policy on top of isl's scheduler; results that fail verification are discarded
    with deadline.active():
        sched = stages.run("schedule", choose_schedule, scop, deps, fuse=options.fuse,
                           tile_budget=options.tile_budget(), vector_bytes=options.register_tile_bytes(),
                           vector_math=options.target == "cpu" and (options.vector_math or options.fastmath),
                           time_tiling=options.time_tiling_enabled(), time_tile_budget=options.time_tile_budget(),
                           time_tile_sizes=time_tile_sizes(),
                           time_tile_whole_row=options.time_tile_whole_row(),
                           time_tile_fused_rows=options.time_tile_fused_rows(),
                           time_tile_fused_tiles=options.time_tile_fused_tiles(),
                           time_tile_atomic=options.time_tile_atomic(), parallel=options.outer_parallelism_enabled(),
                           pivot_block=pivot_block(), transpose_budget=options.transpose_tile_budget(),
                           line=machine().line, transpose_side=transpose_tile_side(),
                           register_cache_budget=options.register_cache_budget(),
                           register_sums=options.register_sums(),
                           register_narrower=options.register_narrower_tiles(),
                           serial_fusion=options.serial_fusion_enabled(), chunked_sums=options.private_sums())
        if sched.scop is not None and sched.scop is not scop:
            # scalars expanded so loops could be reordered: the dependences the scheduler
            # computed for the expanded program (and verified the schedule against)
            scop = sched.scop
            deps = sched.deps if sched.deps is not None else compute_dependences(scop)
    if options.verify:
        stages.run("verify", _verify, scop, deps, sched.schedule)
    with deadline.active():
        # intermediates that fusion made short-lived shrink (to rows, tiles or registers)
        if options.contract:
            stages.outputs["uncontracted scop"] = scop  # the bounds check keeps its accesses
            scop, deps = stages.run("contraction", _contract, stages, scop, deps, sched.schedule)
        # isl generates the loops; dependences mark which of them are parallel
        program = stages.run("loop ast", build_loop_program, scop, sched.schedule, deps,
                             carried=options.private_sums())
        program = replace(program, time_tiled=frozenset(s for d in sched.time_tiling if d.applied
                                                        for s in d.statements),
                          whole_row=frozenset(s for d in sched.time_tiling if d.applied and d.whole_row
                                              for s in d.statements),
                          one_thread_tiles=frozenset((s, d.one_thread_order) for d in sched.time_tiling
                                                     if d.applied and d.one_thread_order and one_thread_tiles()
                                                     for s in d.statements))
        # ... whose two tile loops isl bounds tightly in that order
        program = replace(program, tile_walks=_tile_walks(program, sched.time_tiling, scop))
        # a pivot loop whose rows read only themselves and the pivot row (Floyd-Warshall) runs in
        # blocks of pivots: the block's rows, then each other row across the block (rows in L1)
        if options.target != "cuda" and pivot_rows() > 1:
            program = stages.run_loop_pass("pivot rows", block_pivot_rows, program, block=pivot_rows())
        # a serial loop whose shared writes usually store what is already there (Floyd-Warshall's
        # pivot) runs, per iteration, a version without its dependences within one iteration
        # when a check finds every such write a no-op (isl builds it: before the loop-AST passes)
        if options.noop_versions_enabled():
            program = stages.run_loop_pass("noop versions", version_noop_writes, program, scop=scop,
                                           schedule=sched.schedule, deps=deps)
    # a sequential loop carried only by += updates runs in chunks with partial sums (blas=True:
    # it reassociates them as BLAS would); first, so the later passes see the chunks' row loops
    if options.private_sums():
        program = stages.run_loop_pass("private sums", privatize_sums, program,
                                       lane_bytes=options.interleave_lane_bytes())
    # register tiles keep their outputs in a small local array across the reduction loop
    if options.register_tile_bytes():
        program = stages.run_loop_pass("register promotion", promote_register_tiles, program,
                                       max_bytes=options.register_sums() * options.register_tile_bytes())
    # loops over whole rows of C-ordered arrays run as one loop (short last axes: (N, N, 3));
    # before the lanes and interleaving, which work on the innermost loop it makes
    if options.coalesce_rows():
        program = stages.run_loop_pass("coalesce", coalesce_rows, program)
    # max/min reductions run in SIMD lanes (exact: a zero result reruns the loop in order)
    if options.minmax_lane_bytes():
        program = stages.run_loop_pass("minmax lanes", split_minmax_reductions, program,
                                       vector_bytes=options.minmax_lane_bytes())
    # a parallel loop of dot products down strided rows (cholesky's update): W rows at once from
    # a transposed copy, their accumulators in registers; before the interleaving
    if options.target != "cuda" and packed_rows() > 1:
        program = stages.run_loop_pass("packed rows", pack_rows, program, rows=packed_rows(),
                                       rest_loops=packed_rest_loops())
    # several iterations of a parallel loop side by side: float reductions overlap their latency
    if options.interleave_copies() or options.interleave_lane_bytes():
        program = stages.run_loop_pass("interleave", interleave_reductions, program,
                                       copies=options.interleave_copies(),
                                       vector_bytes=options.interleave_lane_bytes())
    # NumPy float sums in blocks: each block's vector lanes, then the block sums (accuracy)
    if options.reduction_block():
        program = stages.run_loop_pass("blocked sums", block_reductions, program, block=options.reduction_block())
        # ... and column sums (rows outside a parallel loop) in blocks of rows on the thread team
        program = stages.run_loop_pass("outer sums", block_outer_sums, program)
    # parallel=False (numba's option): the same loops, all on the calling thread
    if not options.parallel and options.target != "cuda":
        program = stages.run_loop_pass("serial", serial_loops, program)
    stages.run("fusion report", _fusion_report, scop, deps, program, sched)
    stages.outputs["final scop"] = scop  # after contraction: what the runtime allocates and checks
    return stages


def _front_half(stages: Stages, fn, arguments: tuple[Argument, ...], options: Options):
    """``(scop, dependences, deadline)``: the stages that read the function itself, run or taken
    from an earlier compile of the same function, signature and knobs (polyfuse/lift_memo.py)."""
    found = lift_memo.lookup(fn, arguments, blas=options.blas_products())
    kept = lift_memo.find(found) if found is not None else None
    if kept is not None:
        _check_target(kept.outputs[0], options)
        deadline = _deadline()
        kept.restore(stages, deadline)
        return stages["lift"], stages["dependences"], deadline
    # the frontend rejects unsupported code, then builds domains, accesses and program order
    with FRONTEND_LOCK:
        scop = stages.run("lift", lift, fn, arguments, blas=options.blas_products())
    _check_target(scop, options)
    deadline = stages.outputs["deadline"] = _deadline()
    # dependences decide what every later transformation may do
    with deadline.active():
        deps = stages.run("dependences", compute_dependences, scop)
    # every local scalar assigned before it is read: after the dependences, whose dataflow of
    # each scalar already names its reads of no assignment.  Those some read may find unassigned
    # (q = c[i] under an if in a loop, then return q): lifted again with a flag each assignment
    # sets and Python's UnboundLocalError where such a read finds it unset
    # (frontend/unbound_locals.py); what that does not cover is refused at the read
    unbound = stages.run("check locals", unassigned_locals, scop)
    if unbound:
        scop, deps = _lift_unbound(stages, fn, arguments, options, deadline, unbound, (scop, deps))
        check_scalars_defined(scop)
    if found is not None:
        lift_memo.keep(found, stages, deadline)
    return scop, deps, deadline


def _lift_unbound(stages: Stages, fn, arguments: tuple[Argument, ...], options: Options, deadline: Deadline,
                  unbound: frozenset[str], lifted: tuple):
    """``(scop, dependences)`` of ``fn`` lifted with Python's UnboundLocalError for ``unbound``
    (frontend/unbound_locals.py); ``lifted`` (the first lift's, which the local check then
    refuses at the read) where that lift refuses something the first did not."""
    try:
        with FRONTEND_LOCK:
            scop = lift(fn, arguments, blas=options.blas_products(), unbound=unbound)
        with deadline.active():
            deps = compute_dependences(scop)
    except UnsupportedError:
        return lifted
    stages.outputs["lift"], stages.outputs["dependences"] = scop, deps
    return scop, deps


def _deadline() -> Deadline:
    """Optional isl work (exact dependences, every transformation's checks) starts only within the
    compile's budget (counted isl work; a wall-clock safety net); past it each keeps its legal
    fallback (the verifier is not optional)."""
    return Deadline(compile_seconds(), compile_operations(), DEFAULT_COMPILE_BLOCKS)


def _check_target(scop, options: Options) -> None:
    if options.target == "cuda" and scop.returns is not None:
        raise UnsupportedError("target='cuda' kernels cannot return values yet; write the results into "
                               "array arguments (or use target='cpu')", scop.returns_span, "return of a value")


def backend_for(target: str):
    """``(loop program, options) -> runnable kernel`` for ``target`` (imported on first use:
    the CUDA backend needs numba.cuda)."""
    if target == "python":
        from polyfuse.backends.python import compile_python

        return lambda program, options: compile_python(program)
    if target == "cuda":
        from polyfuse.backends.cuda.codegen import compile_cuda

        return compile_cuda
    from polyfuse.backends.cpu.llvm import compile_llvm

    return compile_llvm


def _contract(stages: Stages, scop, deps, schedule):
    """Contracted Scop and its dependences under ``schedule`` (contracted storage is only valid
    in the new order).  If recomputing them is over isl's budget, nothing is contracted."""
    contracted, decisions = contract(scop, deps, schedule)
    stages.records["contraction"] = tuple(decisions)
    if not any(d.dropped_axes or d.folded_axes for d in decisions):
        return scop, deps
    try:
        with bounded(scop.context.get_ctx()):
            return contracted, dependences_after_contraction(contracted, deps, schedule)
    except BudgetExceeded:
        stages.records["contraction"] = ()
        return scop, deps


def _tile_walks(program, decisions, scop) -> tuple:
    """The tight tile loops of each nest that a team of one thread runs in another order.  A nest
    whose walk is over isl's budget gets none (the backend then walks a box around its tiles)."""
    walks = []
    for d in decisions:
        if d.applied and d.one_thread_order and program.one_thread_tiles:
            try:
                with bounded(scop.context.get_ctx()):
                    walks.append(tile_walk(frozenset(d.statements), d.one_thread_order, d.tiles, scop.context))
            except BudgetExceeded:
                continue
    return tuple(w for w in walks if w is not None)


def _verify(scop, deps, schedule) -> str:
    problems = schedule_violations(scop, deps, schedule, compare_order=True)
    if problems:
        raise VerificationError(f"schedule of {scop.name} is illegal: {'; '.join(problems)}")
    return "every dependence respected"


def _fusion_report(scop, deps, program, sched):
    return sched.decisions if sched.fuse == "smart" else report(scop, deps, program, fuse=sched.fuse)
