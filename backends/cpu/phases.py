"""Splitting a loop program into phases that a runtime can run one after another.

Each top-level node of the loop AST is a phase.  A phase whose outer loop is parallel can be
cut into chunks of iterations run on several threads, provided every local it must privatise
is used by no other phase (so no value has to flow out of a private copy).  Local scalars that
live across phases are kept in memory shared by the phases; the others become registers.

A phase whose outer loop is sequential but which contains parallel loops (a time-stepped stencil,
a k-outer factorisation) can run as one *parallel region* (OpenMP's SPMD style): every thread runs
the whole phase, computes the sequential loop control itself, takes its share of the iterations
of each outermost parallel loop and waits at a barrier after it; statements outside the parallel loops
("serial sections") run on thread 0 only, followed by a barrier.  ``RegionDecision`` records
whether a phase may run so and why; whether it does, for given sizes, is measured at run time
(``REGION_MIN_SECONDS_PER_BARRIER``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.backends.cpu.blas import blas_pointers, symbol
from polyfuse.backends.cpu.overlap import overlap_plan

from polyfuse.model import ir
from polyfuse.model import region as rg
from polyfuse.model.loop_ast import (
    Block,
    For,
    If,
    LoopProgram,
    Node,
    StmtCall,
    arrays_used,
    exclusive_bound,
    nodes,
    statements_in,
    top_level,
)
from polyfuse.options import (
    blas_plain_library,
    blas_row_chunks,
    blas_row_chunks_gemv,
    blas_row_chunks_guarded,
    blas_stack_chunks,
    epilogue_chains,
    join_phases,
    mirror_epilogues,
    overlap_rows,
    phase_chains,
    product_pairs,
    triangle_chunks,
)
from polyfuse.runtime.linalg_library import can_set_blas_threads

#: A region runs on several threads only once a serial run of it, at the same sizes, measured at
#: least this much work per barrier.  A barrier costs ~0.1-1 us when every thread has a core and
#: several us when a thread has to be woken after sched_yield (a shared machine), so 20 us keeps
#: the synchronisation under a few per cent of the work.  lu at n=900 (one barrier per row update,
#: ~0.2 us of work) stays serial; jacobi-2d at n=1300 (~1 ms per barrier) goes parallel.
REGION_MIN_SECONDS_PER_BARRIER = 2e-5


@dataclass(frozen=True)
class RegionDecision:
    """Whether a phase with a sequential outer loop may run as one parallel region, and why."""

    phase: int
    region: bool
    parallel_loops: tuple[str, ...]  # outermost parallel loop on each path: "_t1 (depth 1)"
    serial_sections: int  # groups of statements outside parallel loops, run by thread 0
    barriers: int  # barriers in the code: one after each parallel loop and serial section
    reason: str


@dataclass(frozen=True)
class Phase:
    """One top-level node; ``parallel`` phases run their outer loop in chunks."""

    index: int
    node: Node
    parallel: bool
    private: tuple[str, ...] = ()  # local arrays each thread needs its own copy of
    start: ir.Expr | None = None  # first value of the outer iterator
    stop: ir.Expr | None = None  # exclusive bound of the outer iterator
    step: int = 1
    region: RegionDecision | None = None  # set when the phase contains parallel loops below a sequential one
    blas_rows: bool = False  # a product cut by rows (``row_chunked``): its team runs BLAS on one thread
    chain: int = 0  # on the first phase of a chain (backends/cpu/chains.py): its phase count
    chained: bool = False  # a later phase of a chain: the chain's first phase runs it
    chain_arrays: tuple[str, ...] = ()  # on the first phase: the arrays the chain writes (size its blocks)
    # on the first phase: a product and its epilogue (``POLYFUSE_EPILOGUE_CHAINS``): each member
    # runs the chain on its whole piece of the rows, one block (one ``?gemm`` call, as unchained)
    chain_whole: bool = False
    # with ``blas_rows``, a triangle's rows (``row_weights``): "upper" (row r's work ~ rows - r),
    # "lower" (~ r + 1); "": every row the same work
    row_weights: str = ""
    # with ``blas_rows``: the library's own threads are a third mode the runtime measures (a site
    # that ran on them before it was cut: a product under its nest's guard, a matrix times a vector)
    library: bool = False
    # with ``library``: a plain product (NumPy's ``x @ W``, ``POLYFUSE_BLAS_PLAIN_LIBRARY``) whose
    # modes are measured only on more than one polyfuse thread (``library_here``): on one it runs
    # as is, ``ROW_GEMM`` over all its rows, as NumPy's ``A @ B`` on the library's threads
    plain: bool = False
    # with ``library``: runs at once with the next phase, another such product that shares no
    # array with it, where the call runs its products on polyfuse's rows (``pair_products``)
    pair: bool = False
    # a sequential loop run in overlapped chunks (backends/cpu/overlap.py): the iterations each
    # chunk recomputes before its first one (``private``: the arrays it keeps its own copy of)
    overlap: int = 0

    @property
    def is_region(self) -> bool:
        return self.region is not None and self.region.region


def plan_phases(program: LoopProgram) -> tuple[Phase, ...]:
    """One phase per top-level node, then consecutive serial phases joined (``join_serial``),
    runs of parallel and serial phases as one region (``join_regions``, off by default), then
    consecutive parallel phases over the same rows chained (backends/cpu/chains.py)."""
    return phase_plan(program)[0]


def phase_plan(program: LoopProgram) -> tuple[tuple[Phase, ...], tuple]:
    """``plan_phases`` and ``chain_decisions`` from one planning: the backend keeps both in its
    artifact, so that explain() reads them instead of planning the phases twice more."""
    phases, chains = plan_chains(program, join_regions(program, join_serial(program, _phases(program))))
    return pair_products(program, phases), chains


def pair_products(program: LoopProgram, phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
    """With ``POLYFUSE_BLAS_PAIRS`` (default on): mark each product cut by rows whose library's threads are a
    candidate (``library``) that the next phase, another such product, may run beside
    (``Phase.pair``): neither writes what the other reads or writes (3mm's ``E = A @ B`` and
    ``F = C @ D``; the arguments the kernel writes overlap no other, ``runtime.variant``), their
    guards and bounds read nothing either writes, and neither is part of a chain or has private
    locals.  The runtime runs such a pair at once, one product per thread on one BLAS thread
    each, where the call runs its products on polyfuse's rows (``parallel.run_pair``)."""
    if not product_pairs():
        return phases
    out = list(phases)
    k = 0
    while k + 1 < len(out):
        if _independent_products(program, out[k], out[k + 1]):
            out[k] = replace(out[k], pair=True)
            k += 2
        else:
            k += 1
    return tuple(out)


def _independent_products(program: LoopProgram, first: Phase, second: Phase) -> bool:
    def accesses(phase: Phase) -> tuple[set[str], set[str]] | None:
        if not (phase.library and phase.blas_rows) or phase.chain or phase.chained or phase.private:
            return None
        stmts = [program.statement(name) for name in statements_in(phase.node)]
        if not stmts or any(stmt.region is None for stmt in stmts):
            return None
        writes = {name for stmt in stmts for name in stmt.targets}
        reads = {name for stmt in stmts for name in stmt.sources()} | _control_names(phase.node)
        return writes, reads

    a, b = accesses(first), accesses(second)
    if a is None or b is None:
        return False
    return not (a[0] & (b[0] | b[1]) or b[0] & a[1])


def _control_names(node: Node) -> set[str]:
    """The names (arrays, scalars, arguments) the loop bounds and guards under ``node`` read."""
    exprs: list[ir.Expr] = []
    for n in nodes(node):
        if isinstance(n, For):
            exprs += [n.init, n.cond]
        elif isinstance(n, If):
            exprs.append(n.cond)
    names: set[str] = set()
    for e in ir.distinct_nodes(*exprs):
        if isinstance(e, ir.Load):
            names.add(e.array)
        elif isinstance(e, ir.Var):
            names.add(e.name)
    return names


def chain_decisions(program: LoopProgram) -> tuple:
    """The chains ``plan_phases`` makes, as records (explain())."""
    return phase_plan(program)[1]


def join_regions(program: LoopProgram, phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
    """With ``POLYFUSE_JOIN_PHASES=1``: each run of consecutive phases that are plain parallel
    loops (chunks of their outer loop, only scalars private) or plain serial phases, holding two
    parallel ones or more, as one parallel region (``plan_region`` of their nodes in a ``Block``):
    the team starts once per call, not once per parallel phase (each start wakes the pool through
    Python, ~30 us on this VM), and waits at a barrier after each loop; thread 0 runs the serial
    statements between them.  Which thread runs a chunk never changes a value (the chunks of a
    NumPy sum write their own partial, added in order after the loop), so the results are the
    phases' own.  Kept apart when the program checks anything at run time (as ``join_serial``)."""
    if not join_phases() or _phases_kept_apart(program):
        return phases
    shared = shared_scalars(program)
    infos = {a.name: a for a in program.arrays}
    joined: list[Phase] = []
    run: list[Phase] = []

    def flush() -> None:
        if sum(p.parallel for p in run) >= 2:
            node = Block(tuple(child for p in run for child in top_level(p.node)))
            decision = plan_region(program, run[0].index, node, shared)
            if decision.region:
                joined.append(Phase(run[0].index, node, False, region=decision))
                return
        joined.extend(run)

    for phase in phases:
        parallel = (phase.parallel and not (phase.blas_rows or phase.overlap or phase.chain or phase.chained)
                    and all(infos[name].is_scalar for name in phase.private))
        if parallel or _plain(phase):
            run.append(phase)
            continue
        flush()
        run = []
        joined.append(phase)
    flush()
    return tuple(_renumbered(k, phase) for k, phase in enumerate(joined))


def plan_chains(program: LoopProgram, phases: tuple[Phase, ...]):
    """``phases`` with their chains marked, and the chain decisions: every chain with
    ``POLYFUSE_PHASE_CHAINS=1``; else a product cut by rows and its epilogue with
    ``POLYFUSE_EPILOGUE_CHAINS`` (default on); else none.  A triangle's product and its mirror
    with ``POLYFUSE_MIRROR_EPILOGUE`` (default on) and either of those."""
    from polyfuse.backends.cpu.chains import plan_chains as chains

    if not (phase_chains() or epilogue_chains()):
        return phases, ()
    return chains(program, phases, _phases_kept_apart(program), epilogue=not phase_chains(),
                  mirrors=mirror_epilogues())


def join_serial(program: LoopProgram, phases: list[Phase]) -> tuple[Phase, ...]:
    """Consecutive plain serial phases (no chunks, no region) as one phase: the runtime runs
    phases one after another anyway, so one machine-code function running their nodes in the
    same order computes the same, at one foreign call instead of one per node (three scalar
    assignments cost three ctypes calls, ~1.5 us each, where the work is a few ns).  Kept apart
    when the program checks anything at run time (subscripts computed at run time, asserts):
    the runtime raises the recorded error after the phase that found it, so no later node may
    have run (``_phases_kept_apart``)."""
    if _phases_kept_apart(program):
        return tuple(phases)
    joined: list[Phase] = []
    for phase in phases:
        if _plain(phase) and joined and _plain(joined[-1]):
            children = top_level(joined[-1].node) + top_level(phase.node)
            joined[-1] = Phase(joined[-1].index, Block(children), False)
        else:
            joined.append(phase)
    return tuple(_renumbered(k, phase) for k, phase in enumerate(joined))


def _plain(phase: Phase) -> bool:
    return not phase.parallel and phase.region is None


def _renumbered(index: int, phase: Phase) -> Phase:
    region = phase.region if phase.region is None else replace(phase.region, phase=index)
    return replace(phase, index=index, region=region)


def statement_roots(stmt) -> list[ir.Expr]:
    """Every expression the statement computes: its value, its subscripts and, for a statement
    kept as written, its region's expressions."""
    roots = [stmt.value, *stmt.index]
    if stmt.region is not None:
        roots += list(rg.expressions(stmt.region.body))
    return roots


def rerunnable_checks(program: LoopProgram, node) -> bool:
    """May the nest ``node`` run first with its run-time checks (ir.Check) or-ed into one flag,
    and where one failed run again as written (POLYFUSE_VECTOR_CHECKS)?  Only where it holds
    such checks and running it twice computes the same: its statements read nothing they write
    (no scalar carried from one iteration to the next, no array updated in place), none is kept
    as written (a region's locals), and no subscript is checked where it runs (a bad one skips
    its access, ir.Index)."""
    stmts = [program.statement(name) for name in statements_in(node)]
    if not stmts or any(stmt.region is not None for stmt in stmts):
        return False
    checked = [e for stmt in stmts for e in ir.distinct_nodes(*statement_roots(stmt)) if isinstance(e, ir.Index)]
    if not checked or not all(isinstance(e, ir.Check) for e in checked):
        return False
    written = {name for stmt in stmts for name in stmt.targets}
    return not written & set().union(*(stmt.sources() for stmt in stmts))


def _phases_kept_apart(program: LoopProgram) -> bool:
    """Must the phases stay apart for the program's run-time checks?  The runtime raises a
    recorded error after the phase that found it, so no later phase may have changed what the
    caller sees: kept apart where a subscript is checked where it runs (a bad one skips its
    access, and a later phase could read what it left), or where a statement holds a value check
    (ir.Check: an assert, OverflowError, ZeroDivisionError) and some statement writes an argument
    array.  Value checks in a program that writes only its own arrays (kernel-local ones and
    the results it returns, which the caller sees only if no error is raised) leave later phases
    free to run before the error is raised: attention's ``1.0 / math.sqrt(Q.shape[1])`` (a
    ZeroDivisionError check where the width is 0) kept its products from chaining with their
    row loops (NumPy attention 5.5 -> 6.1 ms at e935032)."""
    checks = [node for stmt in program.statements for node in ir.distinct_nodes(*statement_roots(stmt))
              if isinstance(node, ir.Index)]
    if not checks:
        return False
    if not all(isinstance(node, ir.Check) for node in checks):
        return True
    kinds = {a.name: a.kind for a in program.arrays}
    return any(kinds.get(name, "arg") == "arg" for stmt in program.statements for name in stmt.targets)


def _phases(program: LoopProgram) -> list[Phase]:
    parts = top_level(program.root)
    used = [arrays_used(program, node) for node in parts]
    shared = shared_scalars(program)
    phases = []
    for index, node in enumerate(parts):
        others = set().union(*(u for k, u in enumerate(used) if k != index))
        rows = row_chunked(program, node)
        if rows is not None:
            site = library_mode(program, node)
            plain = not site and blas_plain_library() and _kept_product(program, node) is not None
            phases.append(Phase(index, node, True, (), ir.int_const(0), rows, 1, blas_rows=True,
                                row_weights=row_weights(program, node), library=site or plain, plain=plain))
            continue
        phase = _phase(index, node, others)
        if not phase.parallel and overlap_rows() and (plan := overlap_plan(program, node, _params_only)):
            assert isinstance(node, For)
            decision = RegionDecision(index, False, (), 0, 0, plan.reason)
            phases.append(Phase(index, node, True, plan.private, node.init, exclusive_bound(node), 1,
                                region=decision, overlap=plan.depth))
            continue
        if not (isinstance(node, For) and node.parallel) and has_parallel_loop(node):
            phase = Phase(index, node, False, region=plan_region(program, index, node, shared))
        phases.append(phase)
    return phases


def row_chunked(program: LoopProgram, node: Node) -> ir.Expr | None:
    """The row count of a matrix product kept whole (``x @ W``) that runs as a parallel phase
    cut by rows, None for any other node.  Each chunk calls BLAS on its rows on one thread (the
    team's caller puts the library on one thread for the whole team run,
    ``linalg_library.blas_on_one_thread``; so does the serial run the runtime measures it against,
    on all rows, while a run on one polyfuse thread or at sizes too small for threads keeps the
    library's threads): polyfuse's pool then holds every thread of the kernel.  With OpenBLAS's
    own threads, its workers spin for a while after each product and took a core from the
    parallel loops around it (attention: 10.7 ms on 2 threads against 5.6 ms for its three
    parts run alone, docs/performance.md).  A matrix times a vector (``A @ x``: ``?gemv`` on
    each chunk's rows) is cut the same way with ``POLYFUSE_BLAS_ROW_CHUNKS_GEMV`` (default on),
    its library's threads kept as a candidate the runtime measures (``library_mode``: its call
    is short, and OpenBLAS's spinning workers may beat the pool's wake-up); a vector times a
    matrix (one row) is not cut.  Plain
    products (no stack, in-place or triangular-operand form; not an array times itself: NumPy
    runs ``A.T @ A`` on ``?syrk``, and so does the serial run, for its bits), and one triangle of
    an array times itself written as loops (covariance's ``cov[i, j] += data[k, i] * data[k, j]``
    for ``j >= i``: ``?syrk`` on the chunk's diagonal block, ``?gemm`` on the rest of its rows,
    the rows cut so that each chunk has the same work, ``row_weights``; syr2k's pair of two arrays
    the same way, ``?syr2k`` on the block and two ``?gemm`` on the rest).  The node is the product's
    statement, or for a triangle also that statement under an ``if`` of the parameters alone (the
    nest's guard ``m >= 1 and n >= 1``; a plain product under its guard, suite gemm's, with
    ``POLYFUSE_BLAS_ROW_CHUNKS_GUARDED`` (default on), again measured against the library's
    threads, which reach 98% of its matmul at LARGE on a quiet machine); so is symm's symmetric
    product (``Matmul.mirror`` with the triangular operand on the right: out's rows are the
    general operand's), each chunk a ``?symm`` of its rows."""
    if not can_set_blas_threads() or not blas_row_chunks():
        return None
    op = _kept_product(program, node)
    if op is None:
        return None
    plain = not (op.batch or op.triangle or op.pair or op.offset or op.in_place or op.triangular
                 or op.a.array == op.b.array)  # A.T @ A: NumPy's ?syrk on all rows
    # a strict triangle (correlation's ``range(i + 1, m)``) as the rows of one a row larger
    strict_ok = op.offset == 0 or op.offset == (1 if op.triangle == "upper" else -1)
    # (a pair, syr2k's ``a[r] . b[c] + b[r] . a[c]``: ?syr2k on the block, two ?gemm on the rest)
    triangle = (bool(op.triangle) and strict_ok and not (op.batch or op.in_place or op.triangular)
                and (op.a.array == op.b.array or (op.pair and symbol(op.dtype, "syr2k") in blas_pointers()))
                and triangle_chunks())
    # a symmetric product ``out += alpha * G @ (T + T.T)`` (``Matmul.mirror``, symm's ?symm):
    # out's rows are G's rows alone, each chunk one ?symm of its rows (its own copy of the
    # triangle); under its nest's guard, its library's threads measured too
    symmetric = op.mirror is not None and op.triangular == "b" and not isinstance(node, StmtCall)
    stack = stack_cut(op)
    if stack:
        return op.batch[0][1] if _params_only(op.batch[0][1]) else None
    one_row = isinstance(op.rows, ir.Const) and op.rows.value == 1
    vector = _is_one(op.cols) and not blas_row_chunks_gemv()
    if not (plain or triangle or symmetric) or one_row or vector or not _params_only(op.rows):
        return None
    if (plain or symmetric) and not isinstance(node, StmtCall) and not _is_one(op.cols) \
            and not blas_row_chunks_guarded():
        # a plain matrix product under its nest's guard is cut with the knob (its library's threads
        # measured too: ``library_mode``); a matrix times a vector with the gemv knob
        return None
    return op.rows


def stack_cut(op: rg.Matmul) -> bool:
    """Is ``op`` a stack of products (``op.batch``) that ``row_chunked`` cuts by its outermost
    batch axis (``POLYFUSE_BLAS_STACK_CHUNKS``)?  Each chunk runs the products of its part of the
    stack (backends/cpu/blas.py ``MatmulEmitter.stack`` over a window of that axis): one
    ``?gemm`` of its rows where the strides chain, else its products one by one.  Not a stack of
    one-row or one-column products (a ``?gemv`` each where the strides do not chain), nor the
    triangle, pair, in-place or triangular forms."""
    return (bool(op.batch) and blas_stack_chunks() and op.a.array != op.b.array
            and not (op.triangle or op.pair or op.offset or op.in_place or op.triangular)
            and not (_is_one(op.rows) or _is_one(op.cols)))


def library_mode(program: LoopProgram, node: Node) -> bool:
    """For a product ``row_chunked`` cuts: is it a site that would run whole on the library's
    threads without the cut (a plain product under its nest's guard, a matrix times a vector, a
    stack of products cut by its batch axis: ``POLYFUSE_BLAS_ROW_CHUNKS_GUARDED``, ``..._GEMV``,
    ``POLYFUSE_BLAS_STACK_CHUNKS``)?  (Any other, NumPy's ``x @ W``, is ``Phase.plain`` with
    ``POLYFUSE_BLAS_PLAIN_LIBRARY``: the rows need the team's helper woken on the other core, where
    OpenBLAS's workers may already spin; gemm's and mlp's NumPy programs ran 0.57-0.89x NumPy on
    the rows under load, ~1.0x with the library's threads measured too.)  There the runtime measures the
    library's threads too, beside the rows on polyfuse's threads and one BLAS thread serially
    (backends/cpu/parallel.py ``BlasTimes``): OpenBLAS's threads reach 98% of its matmul on a
    quiet machine but collapse under load once its pool went idle (gesummv LARGE: 45.5 ms on its
    two threads against 1.22 ms on one), and only a measurement tells which case holds.  So is
    one triangle of an array times itself under its nest's guard (covariance's, correlation's):
    its library mode is NumPy's ``?syrk`` of all rows on the library's threads (the call of the
    serial run, which puts the library on one thread), against each chunk's ``?syrk`` and
    ``?gemm`` on the team."""
    op = _kept_product(program, node)
    if op is None:
        return False
    return bool(op.batch) or _is_one(op.cols) or not isinstance(node, StmtCall)


def library_here(phase: Phase, workers: int) -> bool:
    """Are ``phase``'s BLAS modes measured (``Phase.library``) on ``workers`` polyfuse threads?
    A plain product (``Phase.plain``) on one polyfuse thread is not: it runs as is, as NumPy's
    ``A @ B`` does, on the library's threads (``ROW_GEMM``'s ``?gemm``, or the register tiles
    where the product is small or the library on one thread), NumPy's bits; measured between the
    library and one BLAS thread it ran its first call on one BLAS thread, other bits than
    NumPy's, one core where NumPy uses two."""
    return phase.library and (workers > 1 or not phase.plain)


def _is_one(expr: ir.Expr) -> bool:
    return isinstance(expr, ir.Const) and expr.value == 1


def row_weights(program: LoopProgram, node: Node) -> str:
    """For a product ``row_chunked`` cuts: its triangle ("upper", "lower"), whose rows carry
    unequal work, else ""."""
    op = _kept_product(program, node)
    return op.triangle if op is not None else ""


def _kept_product(program: LoopProgram, node: Node) -> rg.Matmul | None:
    """The product of a statement kept whole that is ``node`` (or the only thing run by an ``if``
    of the parameters that is ``node``), else None."""
    if isinstance(node, If) and node.otherwise is None and _params_only(node.cond) and not any(
            isinstance(e, (ir.Load, ir.Index)) for e in ir.walk(node.cond)):
        node = node.then
    if not isinstance(node, StmtCall):
        return None
    region = program.statement(node.statement).region
    if region is None or len(region.body) != 1 or not isinstance(region.body[0], rg.Matmul):
        return None
    return region.body[0]


def _phase(index: int, node: Node, used_elsewhere: set[str]) -> Phase:
    if not (isinstance(node, For) and node.parallel):
        return Phase(index, node, False)
    stop = exclusive_bound(node)
    if stop is None or used_elsewhere & set(node.private) or not _params_only(node.init, stop):
        return Phase(index, node, False)
    return Phase(index, node, True, node.private, node.init, stop, node.step)


def _params_only(*exprs: ir.Expr) -> bool:
    return all(not (isinstance(e, ir.Var) and e.name.startswith("_t")) for x in exprs for e in ir.walk(x))


def shared_scalars(program: LoopProgram) -> set[str]:
    """Local scalars used by more than one phase: they must live in memory, not registers."""
    scalars = {a.name for a in program.arrays if a.is_scalar}
    seen: dict[str, int] = {}
    for node in top_level(program.root):
        for name in arrays_used(program, node) & scalars:
            seen[name] = seen.get(name, 0) + 1
    return {name for name, count in seen.items() if count > 1}


# ---- parallel regions --------------------------------------------------------------------------

def has_parallel_loop(node: Node) -> bool:
    return any(isinstance(n, For) and n.parallel for n in nodes(node))


def region_level(node: Node) -> int:
    """The fewest sequential loops around any outermost parallel loop of the phase.

    Only parallel loops at this level are cut among the threads; a sequential loop at it runs
    whole on thread 0 (a serial section), because the parallel loops inside it would need a
    barrier per iteration of it (lu's tiled edge loops: one per k, ~16 operations each)."""

    def levels(n: Node, depth: int):
        if isinstance(n, For):
            yield from [depth] if n.parallel else levels(n.body, depth + 1)
        elif isinstance(n, If):
            yield from levels(n.then, depth)
            if n.otherwise is not None:
                yield from levels(n.otherwise, depth)
        elif isinstance(n, Block):
            for child in n.children:
                yield from levels(child, depth)

    return min(levels(node, 0), default=0)


def region_role(node: Node, depth: int, level: int) -> str:
    """How a region runs ``node`` (``depth`` sequential loops around it): "parallel" (cut among the
    threads, then a barrier), "serial" (thread 0, then a barrier) or "control" (every thread)."""
    if isinstance(node, For) and node.parallel:
        return "parallel"
    if not has_parallel_loop(node) or (isinstance(node, For) and depth >= level):
        return "serial"
    return "control"


def region_groups(children: tuple[Node, ...], depth: int, level: int) -> list[tuple[Node, ...]]:
    """Children of a block as the region runs them: consecutive serial children together (one
    serial section, one barrier), every other child alone."""
    groups: list[tuple[Node, ...]] = []
    for child in children:
        serial = region_role(child, depth, level) == "serial"
        if serial and groups and region_role(groups[-1][0], depth, level) == "serial":
            groups[-1] += (child,)
        else:
            groups.append((child,))
    return groups


def region_parts(node: Node, depth: int, level: int):
    """Yield ``("parallel", loop, depth)`` for each loop cut among the threads and
    ``("serial", nodes, depth)`` for each serial section, in program order."""
    role = region_role(node, depth, level)
    if role == "parallel":
        yield "parallel", node, depth
    elif role == "serial":
        yield "serial", (node,), depth
    elif isinstance(node, For):
        yield from region_parts(node.body, depth + 1, level)
    elif isinstance(node, If):
        yield from region_parts(node.then, depth, level)
        if node.otherwise is not None:
            yield from region_parts(node.otherwise, depth, level)
    elif isinstance(node, Block):
        for group in region_groups(node.children, depth, level):
            if len(group) == 1:
                yield from region_parts(group[0], depth, level)
            else:
                yield "serial", group, depth


def plan_region(program: LoopProgram, index: int, node: Node, shared: set[str]) -> RegionDecision:
    """Decide whether phase ``node`` may run as a parallel region (see the module docstring)."""
    parts = list(region_parts(node, 0, region_level(node)))
    loops = [part for kind, part, _ in parts if kind == "parallel"]
    serial = [part for kind, part, _ in parts if kind == "serial"]
    names = tuple(f"{part.iterator} (depth {depth})" for kind, part, depth in parts if kind == "parallel")

    def decision(region: bool, reason: str) -> RegionDecision:
        return RegionDecision(index, region, names, len(serial), len(parts), reason)

    problem = _region_problem(program, loops, serial, shared)
    if problem:
        return decision(False, problem)
    where = f"sequential loop {node.iterator}" if isinstance(node, For) else "a sequential phase"
    serial_text = f"; thread 0 runs {len(serial)} serial section(s), each followed by a barrier" if serial else ""
    return decision(True, (
        f"{len(loops)} parallel loop(s) inside {where}: the threads share out each one's iterations, "
        f"then wait at a barrier{serial_text}; on more than one thread only when a serial run measured "
        f">= {REGION_MIN_SECONDS_PER_BARRIER * 1e6:.0f} us of work per barrier, and while the team is "
        "measured faster than one thread"))


def _region_problem(program: LoopProgram, loops: list[For], serial: list[tuple[Node, ...]],
                    shared: set[str]) -> str | None:
    """Why the region could give other results than the serial code (None: it cannot)."""
    for loop in loops:
        if exclusive_bound(loop) is None:
            return f"loop {loop.iterator} has no simple upper bound to cut into chunks"
    infos = {a.name: a for a in program.arrays}
    for loop in loops:
        for name in loop.private:
            if not infos[name].is_scalar or name in shared:
                return (f"loop {loop.iterator} privatises {name!r}, which lives in memory; per-thread copies "
                        "would need a proof that no value flows into them from an earlier sequential iteration")
    registers = {a.name for a in program.arrays if a.is_scalar and a.name not in shared}
    units: dict[str, set[int]] = {}  # local scalar in a register -> parts using it (-1: serial sections)
    for unit, part in [(k, (loop,)) for k, loop in enumerate(loops)] + [(-1, group) for group in serial]:
        for child in part:
            for name in arrays_used(program, child) & registers:
                units.setdefault(name, set()).add(unit)
    loaded: dict[str, frozenset[str]] = {}  # statement -> the arrays its value loads
    for name, used_by in sorted(units.items()):
        if len(used_by) > 1:
            return f"local scalar {name!r} is used by more than one part of the region (each thread has its own)"
        (unit,) = used_by
        if unit >= 0 and _writes(program, loops[unit], name) and not (
                name in loops[unit].private and _written_before_read(program, loops[unit].body, name, False, loaded)):
            return (f"local scalar {name!r} in loop {loops[unit].iterator} may carry a value from an earlier "
                    "iteration of an enclosing sequential loop into another thread")
    return None


def _writes(program: LoopProgram, node: Node, name: str) -> bool:
    return any(name in program.statement(s).targets for s in statements_in(node))


def _written_before_read(program: LoopProgram, node: Node, name: str, defined: bool,
                         loaded: dict[str, frozenset[str]] | None = None) -> bool:
    """Every read of scalar ``name`` in ``node`` follows a write of it by an earlier statement of
    the same block or of an enclosing block (within one iteration of the parallel loop).
    ``loaded``: the arrays each statement's value loads, by statement, filled as they are walked
    (a region with many private scalars asks this of one loop for each: cholesky's 32 packed rows)."""
    if isinstance(node, StmtCall):
        stmt = program.statement(node.statement)
        if stmt.region is not None:  # a loop kept as written: reads what it may write, unless private
            return defined or name not in stmt.sources()
        if defined:
            return True
        if loaded is None:
            loaded = {}
        reads = loaded.get(node.statement)
        if reads is None:
            reads = loaded[node.statement] = frozenset(e.array for e in ir.walk(stmt.value) if isinstance(e, ir.Load))
        return name not in reads
    if isinstance(node, For):
        return _written_before_read(program, node.body, name, defined, loaded)
    if isinstance(node, If):
        branches = (node.then,) if node.otherwise is None else (node.then, node.otherwise)
        return all(_written_before_read(program, b, name, defined, loaded) for b in branches)
    for child in node.children:
        if not _written_before_read(program, child, name, defined, loaded):
            return False
        defined = defined or (isinstance(child, StmtCall) and program.statement(child.statement).array == name
                              and program.statement(child.statement).region is None)
    return True
