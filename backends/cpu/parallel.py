"""Running a parallel phase or a parallel region on the thread pool.

Parallel phase: the outer loop's iterations are cut into contiguous pieces (``PIECES_PER_THREAD``
per thread) that the threads take from a shared counter, the calling thread among them.
Threads get their own copies of the locals the phase privatises.

Parallel region (``polyfuse.phases``): one call of the region function per thread, all at once
(``threads.run_team``), synchronised by barriers in the generated code on a small block of
memory allocated here per call.

Both decide the same way.  The first call at given sizes runs serially and is timed (a region's
serial run also counts its barriers); the phase goes parallel at those sizes when that run took
at least ``MIN_PARALLEL_SECONDS`` (a region: also enough work per barrier), and stays parallel
while the team's recent runs are faster than the serial ones (``RegionTimes``: on a machine
shared with other jobs they may not be, and a serial run slowed down by another job only makes
the team look better until the next serial run; a later serial run under ``MIN_PARALLEL_SECONDS``
puts the sizes with those measured too small, the first one having paid for cold caches).  Sizes
measured too small for threads run the
serial function at once, without asking for the thread count (reading it costs about a
microsecond, more than such a phase's whole run).  On one thread nothing changes: the phase's
ordinary serial function runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from polyfuse.backends.cpu import native_team
from polyfuse.backends.cpu.chains import BLOCK_BYTES, MIN_BLAS_BLOCK_ROWS, MIN_BLOCK_ROWS
from polyfuse.backends.cpu.phases import REGION_MIN_SECONDS_PER_BARRIER, library_here

from polyfuse.options import (
    blas_call_mode,
    blas_fair_trials,
    blas_pair_balance,
    blas_prior,
    blas_quick_checks,
    blas_quiet_checks,
    blas_ready_rows,
    blas_robust_choice,
    blas_settled_trials,
    blas_spin_seconds,
    blas_threads,
    blas_warm_trials,
    native_pairs,
)
from polyfuse.options import chain_block_rows as chain_block_rows_knob
from polyfuse.options import native_team as native_team_knob
from polyfuse.runtime import threads
from polyfuse.runtime.linalg_library import blas_on_one_thread, thread_count_functions
from polyfuse.runtime.variant import allocate, evaluate_int, local_shape

# A phase faster than this serially is not worth waking threads for.  Waking the pool for a
# two-chunk phase costs about 30 us on a 2-core VM shared with other jobs (35 us per call of a
# 64-element add forced onto 2 threads, against 4 us serially; benchmarks/call_overhead.py prints
# it): with the work halved at best, threads pay from about 60 us; the margin is for the noise.
MIN_PARALLEL_SECONDS = 2e-4


def trip_count(phase, values: dict[str, Any]) -> int:
    """Iterations of a parallel phase's outer loop for these sizes."""
    start, stop = evaluate_int(phase.start, values), evaluate_int(phase.stop, values)
    return max(0, -(-(stop - start) // phase.step))


def run_parallel(kernel, compiled, args: list, values: dict[str, Any], count: int | None = None) -> None:
    """Run a parallel phase (``count``: its trip count when the caller knows it, ``values`` then
    only needs the sizes) serially or in one chunk per thread, as measured at this trip count."""
    phase = compiled.phase
    if count is None:
        count = trip_count(phase, values)
    if count <= 1 or (phase.index, count) in kernel.serial_sizes:
        compiled.function(*args, 0, count)
        return
    workers = min(threads.get_num_threads(), count)
    if library_here(phase, workers):  # (on one polyfuse thread too, but for a plain product)
        run_blas_site(kernel, compiled, args, values, count, workers)
        return
    if phase.overlap:  # (each overlapped chunk at least a few times its warm-up)
        workers = min(workers, count // (OVERLAP_MIN_FACTOR * phase.overlap))
    if workers <= 1:
        compiled.function(*args, 0, count)
        return
    key = (phase.index, workers, count)
    times = kernel.phase_times.get(key)
    if times is None:
        _remember(kernel, kernel.phase_times, key, (phase.index, count), _measure_chunks(compiled, args, count))
        return
    serial = _serial_function(compiled)
    team = _run_overlapped if phase.overlap else _run_chunks
    if _timed(times, lambda: team(kernel, compiled, args, values, count, workers),
              lambda: serial(*args, 0, count), demoted=lambda: kernel.serial_sizes.add((phase.index, count)),
              prepare=lambda: _ready_team(kernel, compiled, workers)):
        kernel.phase_runs[phase.index] = kernel.phase_runs.get(phase.index, 0) + 1


def run_blas_site(kernel, compiled, args: list, values: dict[str, Any], count: int, workers: int) -> None:
    """Run a product cut by rows whose library's threads are a candidate (``Phase.library``) in
    the mode ``BlasTimes`` chooses at this trip count: one call on the library's threads, the rows
    on the team with one BLAS thread each (not on one polyfuse thread, where "rows" forced means
    one BLAS thread), or one call on one BLAS thread.  The first call runs
    on one BLAS thread and is timed, as any parallel phase's (``_measure_chunks``): sizes too
    small for threads then go to the library, as before the cut."""
    phase = compiled.phase
    key = ("blas", phase.index, workers, count)
    times = kernel.phase_times.get(key)
    if times is None:
        first = _measure_chunks(compiled, args, count)
        _remember(kernel, kernel.phase_times, key, (phase.index, count),
                  _first_blas_times(first.worth_threads, first.serial, workers))
        return
    modes = {"library": lambda: compiled.function(*args, 0, count),
             "rows": lambda: _run_chunks(kernel, compiled, args, values, count, workers),
             "serial": lambda: _serial_function(compiled)(*args, 0, count)}
    mode = _site_mode(kernel, times)
    if mode == "rows" and not times.runs.get("rows"):
        _ready_team(kernel, compiled, workers)  # (its first run is timed)
    began = time.perf_counter()
    modes[mode]()
    times.record(mode, time.perf_counter() - began, began)
    kernel.blas_modes[phase.index] = mode
    if mode == "rows":
        kernel.phase_runs[phase.index] = kernel.phase_runs.get(phase.index, 0) + 1


def run_pair(kernel, first, second, args: list, values: dict[str, Any]) -> bool:
    """Run two products that share no array (``first.phase.pair``: backends/cpu/phases.py
    ``pair_products``) at once on two threads with NumPy's OpenBLAS on one thread (the register
    tiles, or ``?gemm`` on the calling thread): the first run each product whole on its own
    thread, later runs cut so that both threads get the same share of the products' CPU time per
    row measured in those runs (``pair_members``; ``POLYFUSE_BLAS_PAIR_BALANCE``), where the call runs its products on
    polyfuse's rows (``run_call``'s "rows" mode, which the call's measurement then times with the
    pair in it) and both were measured worth threads at these sizes.  False, having run nothing,
    where that does not hold: the caller runs each phase as usual."""
    workers = threads.get_num_threads()
    if kernel.call_blas_mode != "rows" or workers < 2:
        return False
    runs = []
    for compiled in (first, second):
        count = trip_count(compiled.phase, values)
        times = kernel.phase_times.get(("blas", compiled.phase.index, min(workers, count), count))
        if (count <= 1 or (compiled.phase.index, count) in kernel.serial_sizes
                or not isinstance(times, BlasTimes) or not times.worth_threads):
            return False
        row = kernel.phase_times.get(("pair row", compiled.phase.index, count))
        runs.append((compiled, count, 0.0 if row is None or compiled.phase.row_weights else row * count))
    members = pair_members(runs) if blas_pair_balance() else [[(c, 0, n)] for c, n, _ in runs]
    measured = ("pair runs", first.phase.index, runs[0][1], runs[1][1])
    if kernel.phase_times.get(measured, 0) >= PAIR_TIMED_RUNS and _native_pair(kernel, first, second, members, args):
        return True
    spent: list[list[tuple[Any, int, float]]] = [[], []]

    def member(k: int) -> None:
        for compiled, lo, hi in members[k]:
            began = time.thread_time()
            compiled.function(*args, lo, hi)
            spent[k].append((compiled, hi - lo, time.thread_time() - began))

    with blas_on_one_thread():
        threads.run_team(member, 2, lambda: None)
    for compiled, rows, seconds in spent[0] + spent[1]:
        key = ("pair row", compiled.phase.index, runs[0][1] if compiled is first else runs[1][1])
        if rows > 0:  # (the least CPU time per row seen: other jobs' load only adds to it)
            kernel.phase_times[key] = min(kernel.phase_times.get(key, math.inf), seconds / rows)
    _count_pair_run(kernel, first, second)
    kernel.phase_times[measured] = kernel.phase_times.get(measured, 0) + 1
    return True


def _count_pair_run(kernel, first, second) -> None:
    for compiled in (first, second):
        index = compiled.phase.index
        kernel.blas_modes[index] = "pair"
        kernel.phase_runs[index] = kernel.phase_runs.get(index, 0) + 1  # (on the team)


#: A pair's first runs on the Python pool (``run_pair``), each member's thread CPU time per row
#: measured (the balanced cut's input, the least seen counting); later runs on the native team
#: (``POLYFUSE_NATIVE_PAIRS``), whose members are not timed, the cut as those runs left it.
PAIR_TIMED_RUNS = 1


def _native_pair(kernel, first, second, members: list[list[tuple[Any, int, int]]], args: list) -> bool:
    """Run a pair's members (``pair_members``) on the native team (once ``PAIR_TIMED_RUNS`` runs
    measured the cut: ``run_pair`` decides): the members' first pieces first (piece 0 to
    whichever member takes first, piece 1 to the other), then the rest of the pieces to whichever
    member is free, so that the balanced cut's first member runs the larger product's first rows
    and then the smaller product while the second runs the rest of the larger one (as on the
    pool).  False, having run nothing, where the knob is off or the team cannot take it."""
    if not (NATIVE_TEAM and native_pairs()):
        return False
    order = [member[0] for member in members if member] + [p for member in members for p in member[1:]]
    pieces = [(compiled, lo, hi) for compiled, lo, hi in order if hi > lo]
    targets = [getattr(compiled, "address", None) for compiled, _, _ in pieces]
    if not pieces or not all(type(t) is int for t in targets):
        return False
    bounds = [edge for _, lo, hi in pieces for edge in (lo, hi)]
    frames = _team_frames(kernel)
    with blas_on_one_thread():
        ran = frames.ok and native_team.run(frames, 0, [args] * len(pieces), bounds, 1, targets=targets)
    if ran:
        _count_pair_run(kernel, first, second)
    return ran


def pair_members(runs: list[tuple[Any, int, float]]) -> list[list[tuple[Any, int, int]]]:
    """The two members' row ranges for a pair of products given as (phase, rows, seconds on one
    thread), as lists of (phase, first row, end row): the product that takes less time whole on
    one member, after the first rows of the other, and the rest of the other on the second
    member, cut where both members' shares of the time are equal (3mm at LARGE: ``E`` 720M
    multiply-adds, ``F`` 1188M; each product whole on its own thread left one idle for two fifths
    of the pair).  Both members start on the larger product's rows, so that its packed panels
    are packed while both read them.  Where a time is not known yet (0: ``run_pair`` measures
    each product's CPU time per row in the pair's runs), each product whole on its own member."""
    if any(seconds <= 0 for _, _, seconds in runs):
        return [[(phase, 0, rows)] for phase, rows, _ in runs]
    (small, n_small, t_small), (big, n_big, t_big) = sorted(runs, key=lambda run: run[2])
    cut = min(n_big, max(0, round(n_big * (t_big - t_small) / (2 * t_big))))
    first = [(big, 0, cut)] if cut else []
    return [first + [(small, 0, n_small)], [(big, cut, n_big)]]


def _first_blas_times(worth_threads: bool, serial: list[float], workers: int) -> BlasTimes:
    """The first measurement of a product (``run_blas_site``) or of whole calls (``run_call``):
    its serial runs and the modes it may take on ``workers`` threads, ``POLYFUSE_BLAS_THREADS``
    where that names one of them, else one BLAS thread."""
    candidates = BLAS_MODES if workers > 1 else ("library", "serial")
    forced = blas_threads()
    forced = forced if forced == "measure" or forced in candidates else "serial"
    return _blas_times(worth_threads, serial, forced, candidates, workers)


def _blas_times(worth_threads: bool, serial: list[float], forced: str,
                candidates: tuple[str, ...] | None = None, workers: int = 1) -> BlasTimes:
    """A new ``BlasTimes``, its trials fair (``POLYFUSE_BLAS_FAIR_TRIALS``) or as before."""
    candidates = candidates or BLAS_MODES
    if blas_fair_trials():
        spin = _library_spin()
        return BlasTimes(worth_threads, {"serial": serial}, forced, candidates, spin=spin,
                         recheck_trials=True, quick=blas_quick_checks(), robust=blas_robust_choice(),
                         prior=prior_holds(serial[0], workers, spin), warm_first=blas_warm_trials(),
                         quiet_checks=blas_quiet_checks(), settled=blas_settled_trials())
    return BlasTimes(worth_threads, {"serial": serial}, forced, candidates, trials=UNFAIR_BLAS_TRIALS, quick=False,
                     robust=False)


def prior_holds(first: float, workers: int, spin: float) -> bool:
    """Whether the cost model expects the threaded modes to beat one BLAS thread
    (``BlasTimes.prior``, ``POLYFUSE_BLAS_PRIOR``): the first run on one thread took
    ``PRIOR_MIN_SECONDS`` or more, and there are threads to run it on (``workers`` of polyfuse's
    for the rows, OpenBLAS's own where ``spin``: more than one of them)."""
    return blas_prior() and first >= PRIOR_MIN_SECONDS and (workers > 1 or spin > 0)


def _library_spin() -> float:
    """``BlasTimes.spin``: how long OpenBLAS's workers spin after a call on its threads, 0 where
    it runs on one thread (no workers)."""
    functions = thread_count_functions()
    return 0.0 if functions is not None and functions[0]() <= 1 else blas_spin_seconds()


def _site_mode(kernel, times: BlasTimes) -> str:
    """The mode of one product's run: the call's (``run_call``) where one is set and the product
    was measured worth threads, else the product's own choice."""
    mode = kernel.call_blas_mode
    if mode is not None and mode in times.modes and times.worth_threads and times.forced == "measure":
        return mode
    return times.choose(time.perf_counter())


def run_call(kernel, sizes: tuple, body: Callable[[], None]) -> None:
    """Run one kernel call (``body``) with products cut by rows whose library's threads are a
    candidate (``Phase.library``) in one BLAS mode for them all: the mode ``BlasTimes`` chooses
    for whole calls at these sizes and thread count (key ``("blas call", threads, sizes)``),
    each product run in it (``_site_mode``; a product measured too small for threads keeps the
    library's).  Why: each product choosing its own mode mixed OpenBLAS's threads with
    polyfuse's rows or one BLAS thread within one call, and after a call on its threads
    OpenBLAS's workers spin beside the team's next rows (about 5 ms of CPU on 3mm's 7 ms, a
    cost no product's own measurement sees; docs/performance.md).  Timing whole calls counts
    that cost, and the other phases' time in each mode, against the mode that causes it.  The
    first call at given sizes runs as before (each product's first run on one BLAS thread, as
    it measures itself) and is the first "serial" run.  ``POLYFUSE_BLAS_CALL_MODE=0``: each
    product chooses alone.  (One kernel called from several Python threads at once may run a
    product in another call's mode: slower at worst, never another result.)"""
    if not blas_call_mode() or kernel.call_blas_mode is not None:
        body()
        return
    workers = threads.get_num_threads()
    key = ("blas call", workers, sizes)
    times = kernel.phase_times.get(key)
    if times is None:
        began = time.perf_counter()
        body()
        seconds = time.perf_counter() - began
        if len(kernel.phase_times) >= MAX_REGION_SIZES:
            _forget(kernel, kernel.phase_times)
        kernel.phase_times[key] = _first_blas_times(seconds >= MIN_PARALLEL_SECONDS, [seconds], workers)
        return
    mode = times.choose(time.perf_counter())
    if mode == "rows" and not times.runs.get("rows") and blas_ready_rows():
        _ready_rows(kernel, workers)  # (its first run is timed)
    kernel.call_blas_mode = mode
    once = _one_time_seconds(kernel) if times.warm_first else 0.0
    began = time.perf_counter()
    try:
        body()
    finally:
        kernel.call_blas_mode = None
    seconds = time.perf_counter() - began
    if times.warm_first:  # (``POLYFUSE_BLAS_WARM_TRIALS``)
        seconds = max(0.0, seconds - (_one_time_seconds(kernel) - once))
    times.record(mode, seconds, began)


def _one_time_seconds(kernel) -> float:
    """Seconds a kernel's calls spent so far on work done once: functions optimised and generated
    on first use (``build_seconds``) and the native team made ready for a phase's first team run
    (``ready_seconds``).  ``run_call`` takes what a timed call spent so off its time: the BLAS call
    mode's second serial run paid for the other phases' first team runs (the team's code and
    helpers) and their lazy builds, 20-37 ms against 6.5 (covariance at the bench size, boosted,
    load 10), one of the three runs that judge one BLAS thread."""
    return getattr(kernel, "build_seconds", 0.0) + getattr(kernel, "ready_seconds", 0.0)


def _ready_rows(kernel, workers: int) -> None:
    """Before a call's first run on the rows is timed (``run_call``): what that run would pay for
    once, done untimed, as ``run_blas_site`` does for a product's own first run on the rows
    (``_ready_team``): each product's row function generated, the native team's code, trampoline
    and helpers, and for a pair of products (``Phase.pair``) the pool's second thread started.
    Otherwise the call's first run on the rows, one of its trials, paid for them (3mm at the bench
    size: 26.6 ms against 7.8 on one BLAS thread and 4.8 on the library's threads, load 8.5), cut
    the rows' trials short (a best run over twice another mode's) and left the rows to the checks,
    which run beside OpenBLAS's spinning workers.  A chained phase after such a product (a
    triangle's mirror, ``chains._mirror``) runs on the team with it: its address too."""
    for compiled in getattr(kernel, "phases", ()):
        if compiled.phase.library or compiled.phase.chained:
            _ready_team(kernel, compiled, workers)
    if any(compiled.phase.pair for compiled in getattr(kernel, "phases", ())):
        threads.run_team(lambda k: None, workers, lambda: None)


def run_chain(kernel, chain: list, args: list, values: dict[str, Any], count: int | None = None) -> None:
    """Run a chain of phases (backends/cpu/chains.py; ``chain``: its compiled phases, the first
    one carrying ``chain``): on the team, each member runs every phase block by block of its
    piece of the rows, or serially the same way, as measured at this trip count; at sizes
    measured too small for threads, and on one thread, each phase as on its own.  A chain with a
    product whose library's threads are a candidate (``Phase.library``) runs in the mode
    ``BlasTimes`` chooses (``_run_chain_modes``): the chain on the team ("rows"), serially on
    one BLAS thread ("serial"), or its phases one after another, the products on the library's
    threads ("library")."""
    head = chain[0].phase
    if count is None:
        count = trip_count(head, values)
    workers = min(threads.get_num_threads(), count)
    if count <= 1 or (head.index, count) in kernel.serial_sizes or workers <= 1:
        for compiled in chain:
            run_parallel(kernel, compiled, args, values, _own_count(compiled.phase, count, values))
        return
    blas = any(c.phase.blas_rows for c in chain)
    block = chain_block_rows(kernel, head, values, count, blas)

    def serial() -> None:
        with blas_on_one_thread() if blas else contextlib.nullcontext():
            _run_blocks(chain, args, 0, count, block)

    if any(c.phase.library for c in chain):
        _run_chain_modes(kernel, chain, args, values, count, workers, block, serial)
        return
    key = ("chain", head.index, workers, count)
    times = kernel.phase_times.get(key)
    if times is None:
        seconds = _first_serial_seconds(chain, serial)
        _remember(kernel, kernel.phase_times, key, (head.index, count),
                  RegionTimes(seconds >= MIN_PARALLEL_SECONDS, [seconds]))
        return
    if _timed(times, lambda: _run_chain_team(kernel, chain, args, values, count, workers, block, blas), serial,
              demoted=lambda: kernel.serial_sizes.add((head.index, count))):
        for compiled in chain:  # (each phase of the chain ran on the team)
            index = compiled.phase.index
            kernel.phase_runs[index] = kernel.phase_runs.get(index, 0) + 1


def _first_serial_seconds(chain: list, serial: Callable[[], None]) -> float:
    """Seconds of a chain's first, serial run (its machine code generated first, not timed): the
    first measurement of both the team choice and the BLAS modes."""
    for compiled in chain:
        compiled.ready(region=False)
    began = time.perf_counter()
    serial()
    return time.perf_counter() - began


def _run_chain_modes(kernel, chain: list, args: list, values: dict[str, Any], count: int, workers: int,
                     block: int, serial: Callable[[], None]) -> None:
    """``run_blas_site`` for a chain holding such a product: the first call runs the chain
    serially on one BLAS thread and is timed; then the three modes as ``BlasTimes`` chooses.
    "library": each phase on its own, a product on the library's threads in one call (what the
    products did before they were cut), the other phases as measured (``run_parallel``)."""
    head = chain[0].phase
    key = ("blas", head.index, workers, count)
    times = kernel.phase_times.get(key)
    if times is None:
        seconds = _first_serial_seconds(chain, serial)
        forced = blas_threads()
        _remember(kernel, kernel.phase_times, key, (head.index, count),
                  _blas_times(seconds >= MIN_PARALLEL_SECONDS, [seconds], forced, workers=workers))
        return

    def library() -> None:
        for compiled in chain:
            if compiled.phase.library:
                compiled.function(*args, 0, count)
            else:
                run_parallel(kernel, compiled, args, values, _own_count(compiled.phase, count, values))

    modes = {"library": library, "serial": serial,
             "rows": lambda: _run_chain_team(kernel, chain, args, values, count, workers, block, True)}
    mode = _site_mode(kernel, times)
    began = time.perf_counter()
    modes[mode]()
    times.record(mode, time.perf_counter() - began, began)
    kernel.blas_modes[head.index] = mode
    if mode == "rows":
        for compiled in chain:
            index = compiled.phase.index
            kernel.phase_runs[index] = kernel.phase_runs.get(index, 0) + 1


def chain_block_rows(kernel, head, values: dict[str, Any], count: int, blas: bool) -> int:
    """Rows per block of a chain: the most (a power of two, at least ``MIN_BLOCK_ROWS``, with a
    product on BLAS at least ``MIN_BLAS_BLOCK_ROWS``) whose rows of the kernel-local arrays the
    chain writes fit in ``BLOCK_BYTES``."""
    if head.chain_whole:  # a product and its epilogue: one block per member (``POLYFUSE_EPILOGUE_CHAINS``)
        return count
    fixed = chain_block_rows_knob()
    if fixed:
        return max(1, min(count, fixed))
    row_bytes = 0
    for name in head.chain_arrays:
        info = kernel.locals.get(name)
        if info is not None and not info.is_scalar:
            shape = local_shape(info, values)
            row_bytes += int(np.prod(shape[1:], dtype=np.int64)) * np.dtype(info.dtype).itemsize
    if row_bytes == 0:
        return count
    rows = max(MIN_BLAS_BLOCK_ROWS if blas else MIN_BLOCK_ROWS, BLOCK_BYTES // row_bytes)
    return min(count, 1 << (rows.bit_length() - 1))


def _run_blocks(chain: list, args: list, first: int, last: int, block: int) -> None:
    """Rows ``first:last`` of a chain, ``block`` rows at a time: each phase over its iterations
    of those rows (a phase by ``step`` rows, a triangle's mirror's tiles: ``chains._mirror``,
    from the first tile at or after the first row; the chain's cuts are multiples of its steps,
    ``chain_bounds``)."""
    for start in range(first, last, block):
        stop = min(last, start + block)
        for compiled in chain:
            step = compiled.phase.step
            compiled.function(*args, -(-start // step), -(-stop // step))


def _run_native_chain(kernel, chain: list, args: list, count: int, workers: int) -> bool:
    """Each phase of a chain without private arrays on the native team, one after another over
    the chain's pieces (``chain_bounds``); False, having run nothing, where the team cannot take
    the first (a later one it cannot take runs serially)."""
    if any(c.phase.private or type(getattr(c, "address", None)) is not int for c in chain):
        return False
    pieces = phase_pieces(count, workers)
    cuts = chain_bounds(chain, count, pieces)
    with blas_on_one_thread():
        for k, compiled in enumerate(chain):
            step = compiled.phase.step
            bounds = [-(-cut // step) for cut in cuts]
            if not _native_pieces(kernel, compiled, [args] * pieces, bounds, workers):
                if k == 0:
                    return False
                compiled.function(*args, bounds[0], bounds[-1])
    return True


def _own_count(phase, count: int, values: dict[str, Any]) -> int:
    """The trip count of a chain's phase where the chain's rows are ``count``."""
    return count if phase.step == 1 else trip_count(phase, values)


def chain_bounds(chain: list, count: int, pieces: int) -> list[int]:
    """The first row of each piece of a chain, and ``count`` last: the head's cut
    (``chunk_bounds``: a triangle's rows by their work), each cut rounded to a multiple of the
    chain's largest step (a mirror's tiles: rows of one tile in one piece)."""
    step = max(compiled.phase.step for compiled in chain)
    cuts = chunk_bounds(count, pieces, chain[0].phase.row_weights)
    if step > 1:
        cuts = [0] + [min(count, step * round(cut / step)) for cut in cuts[1:-1]] + [count]
    return cuts


def _run_chain_team(kernel, chain: list, args: list, values: dict[str, Any], count: int, workers: int,
                    block: int, blas: bool) -> None:
    """``_run_chunks`` for a chain: each piece runs every phase, block by block.  A triangle and
    its mirror (``chains._mirror``) on the native team: the product's pieces, then the mirror's
    over the same rows (the team hands the first pieces to its members in order: each member's
    own rows again, from its caches)."""
    if NATIVE_TEAM and chain[0].phase.row_weights and _run_native_chain(kernel, chain, args, count, workers):
        return
    pieces = Pieces(phase_pieces(count, workers))
    bounds = chain_bounds(chain, count, pieces.count)

    def member(member_args: list, buffers: list) -> None:  # buffers: the private ones, kept alive
        while (k := pieces.take()) is not None:
            try:
                _run_blocks(chain, member_args, bounds[k], bounds[k + 1], block)
            except BaseException as exc:  # noqa: BLE001 - re-raised by the caller
                pieces.done(exc)
                return
            pieces.done()

    with blas_on_one_thread() if blas else contextlib.nullcontext():
        submit = _submitter()
        for _ in range(1, workers):
            buffers: list = []
            member_args = args
            for compiled in chain:
                member_args = _with_private_buffers(kernel, compiled.phase, member_args, values, buffers)
            submit(member, member_args, buffers)
        member(args, [])
        pieces.wait()


def _serial_function(compiled) -> Callable[..., None]:
    """The phase's function as its serial run calls it; for a product cut by rows, with NumPy's
    OpenBLAS on one thread (``blas_on_one_thread``), since the runtime measures it against the
    team.  With the library's threads there, each such run (the first call, then every few calls
    to check that the team still wins) woke OpenBLAS's workers, which spin for a while after the
    product, beside the team's next runs: at load 4-11 the kernels spent 1.3-2.5x the CPU time
    per call (attention 16.2 against 9.7 ms, gesummv 5.8-6.1 against 2.4-2.6; docs/performance.md).
    """
    function = compiled.function  # (generated on first use: not timed)
    if not compiled.phase.blas_rows:
        return function

    def run(*args: Any) -> None:
        with blas_on_one_thread():
            function(*args)

    return run


def _measure_chunks(compiled, args: list, count: int) -> RegionTimes:
    function = _serial_function(compiled)
    began = time.perf_counter()
    function(*args, 0, count)
    seconds = time.perf_counter() - began
    return RegionTimes(seconds >= MIN_PARALLEL_SECONDS, [seconds])


def _run_chunks(kernel, compiled, args: list, values: dict[str, Any], count: int, workers: int) -> None:
    """The iterations in ``phase_pieces`` contiguous pieces that the members take from a shared
    counter, the calling thread being one of them (as ``threads.run_team`` runs a region: one
    thread fewer to wake per call; with every chunk on the pool and the caller waiting, a
    20k-element gelu_tanh took 88-118 us on 2 threads instead of 71-95 us).

    Why pieces and not one chunk per thread: a member whose core is shared with another job (or
    whose thread the kernel woke on the caller's core) runs slower, and with one static chunk
    each the call lasts as long as the slowest chunk; with pieces the other members take more of
    them (as region loops take chunks, ``backends/cpu/llvm.py`` ``_shared_chunks``).  The caller
    returns once every piece is done: a pool thread that had not started by then (not yet
    scheduled on a busy machine: 3.1 ms of atax's pieces all ran on the caller and the call
    still took 12 ms, waiting for that thread) finds nothing left and returns on its own.  Any
    partition of a parallel loop's iterations gives the same result; each member keeps its own
    private buffers for all the pieces it takes."""
    if NATIVE_TEAM and _run_native(kernel, compiled, args, values, count, workers):
        return
    pieces = Pieces(phase_pieces(count, workers))
    bounds = chunk_bounds(count, pieces.count, compiled.phase.row_weights)

    def member(member_args: list, buffers: list) -> None:  # buffers: the private ones, kept alive
        while (k := pieces.take()) is not None:
            try:
                compiled.function(*member_args, bounds[k], bounds[k + 1])
            except BaseException as exc:  # noqa: BLE001 - re-raised by the caller
                pieces.done(exc)
                return
            pieces.done()

    with blas_on_one_thread() if compiled.phase.blas_rows else contextlib.nullcontext():
        submit = _submitter()
        for _ in range(1, workers):
            buffers: list = []
            submit(member, _with_private_buffers(kernel, compiled.phase, args, values, buffers), buffers)
        member(args, [])
        pieces.wait()


#: Team phases on the native team (backends/cpu/native_team.py; ``POLYFUSE_NATIVE_TEAM``, read
#: once here: benchmarks/handoff_ab.py flips it for A/B runs in one process).
NATIVE_TEAM = native_team_knob() and native_team.available()


def _run_native(kernel, compiled, args: list, values: dict[str, Any], count: int, workers: int) -> bool:
    """``_run_chunks`` on the native team: the same pieces and bounds, piece 0 with the caller's
    arguments and every other piece with its own private buffers (as each Python member has
    its own); False (nothing ran) where the team cannot take the call (another Python thread's
    team holds it, or an argument is not a 64-bit word)."""
    if type(getattr(compiled, "address", None)) is not int:  # (a stand-in phase of Python code)
        return False
    pieces = phase_pieces(count, workers)
    bounds = chunk_bounds(count, pieces, compiled.phase.row_weights)
    keep_alive: list = []
    rows = [args] + [_with_private_buffers(kernel, compiled.phase, args, values, keep_alive)
                     for _ in range(1, pieces)]
    with blas_on_one_thread() if compiled.phase.blas_rows else contextlib.nullcontext():
        return _native_pieces(kernel, compiled, rows, bounds, workers)


def _native_pieces(kernel, compiled, rows: list[list], bounds: list[int], workers: int) -> bool:
    """Piece k as ``compiled``'s function on ``rows[k]`` and iterations ``bounds[k]:bounds[k + 1]``,
    on the native team of ``workers`` members; False (nothing ran) where it cannot take them."""
    target = getattr(compiled, "address", None)  # (a stand-in phase of Python code has none)
    if type(target) is not int:
        return False
    frames = _team_frames(kernel)
    return frames.ok and native_team.run(frames, target, rows, bounds, workers - 1)


def _team_frames(kernel) -> native_team.Frames:
    """The kernel's frames for the native team (made on first use)."""
    frames = kernel.team_frames
    if frames is None:
        frames = kernel.team_frames = native_team.Frames(tuple(p.kind for p in kernel.params))
    return frames


def _ready_team(kernel, compiled, workers: int) -> None:
    """Before a phase's first team run is timed: its function generated, and on the native team
    the team's code, the trampoline of the kernel's parameters and the helpers made
    (``native_team.prepare``).  Otherwise that first run, one of the team's ``WINDOW`` trial runs,
    paid for them: 12-100 ms for attention's first team phase against 2.6 ms serially
    (``benchmarks/bench_neighbours.py``), over twice the serial time, which ended the team's
    trial and ran the phase serially for the next ``RECHECK_EVERY`` calls."""
    target = getattr(compiled, "address", None)  # (generated here; a stand-in phase has none)
    if NATIVE_TEAM and type(target) is int:
        began = time.perf_counter()
        native_team.prepare(_team_frames(kernel), workers - 1)
        if hasattr(kernel, "ready_seconds"):  # (``_one_time_seconds``)
            kernel.ready_seconds += time.perf_counter() - began


#: An overlapped chunk (``Phase.overlap``) holds at least this many times the iterations it
#: recomputes first: fewer members run a loop too short for that.
OVERLAP_MIN_FACTOR = 8


def _run_overlapped(kernel, compiled, args: list, values: dict[str, Any], count: int, workers: int) -> None:
    """A loop run in overlapped chunks (backends/cpu/overlap.py): one chunk per member, taken
    from a shared counter as ``_run_chunks``'s pieces.  Every chunk but the last works in its own
    copy of the phase's private arrays, copied from the shared ones here, before any member starts
    (values the phases before left there, which rows the loop never writes still read); the last
    chunk works in the shared arrays, so that the phases after find them as the serial loop
    leaves them."""
    pieces = Pieces(workers)
    bounds = chunk_bounds(count, workers)
    keep_alive: list = []
    chunk_args = [_copied_private(kernel, compiled.phase, args, values, keep_alive) for _ in range(workers - 1)]
    chunk_args.append(args)
    if NATIVE_TEAM and _native_pieces(kernel, compiled, chunk_args, bounds, workers):
        return

    def member() -> None:
        while (k := pieces.take()) is not None:
            try:
                compiled.function(*chunk_args[k], bounds[k], bounds[k + 1])
            except BaseException as exc:  # noqa: BLE001 - re-raised by the caller
                pieces.done(exc)
                return
            pieces.done()

    submit = _submitter()
    for _ in range(1, workers):
        submit(member)
    member()
    pieces.wait()


def _copied_private(kernel, phase, args: list, values: dict[str, Any], keep_alive: list) -> list:
    """``args`` with a fresh copy of each private array of ``phase`` holding its current values."""
    copied = list(args)
    for position, param in enumerate(kernel.params):
        if param.name in phase.private:
            buffer = allocate(kernel.locals[param.name], values)
            ctypes.memmove(buffer.ctypes.data, args[position], buffer.nbytes)
            keep_alive.append(buffer)
            copied[position] = buffer.ctypes.data
    return copied


#: Pieces per member of a parallel phase's team (``_run_chunks``).  1: as many pieces as members,
#: the partition of one static chunk each, and a member that has not started by the time the others
#: are done leaves its piece to them.  More pieces balance a member slowed down by another job, but
#: each piece is one more call through ctypes, whose return waits for the GIL: on this 2-core VM at
#: load 4.6-5.6, 4 pieces per thread ran atax, bicg and mvt 0-20% slower than 1 (best of 60-100
#: interleaved calls; ``benchmarks/team_choice.py pieces``).
PIECES_PER_THREAD = 1


def chunk_bounds(count: int, pieces: int, weights: str = "") -> list[int]:
    """The first iteration of each piece, and ``count`` last: equal numbers of iterations, or for
    the rows of a triangle (``Phase.row_weights``) equal numbers of its elements.  "upper": row r
    holds ``count - r`` of them, so the rows before b hold ``1 - ((count - b) / count)**2`` of the
    triangle; "lower": row r holds ``r + 1``, the rows before b ``(b / count)**2``."""
    if weights == "upper":
        cuts = [count - round(count * math.sqrt(1 - k / pieces)) for k in range(pieces + 1)]
    elif weights == "lower":
        cuts = [round(count * math.sqrt(k / pieces)) for k in range(pieces + 1)]
    else:
        cuts = [count * k // pieces for k in range(pieces + 1)]
    cuts[0], cuts[-1] = 0, count
    return cuts


def phase_pieces(count: int, workers: int) -> int:
    """How many pieces a phase of ``count`` iterations is cut into for ``workers`` members."""
    return max(1, min(count, workers * max(1, PIECES_PER_THREAD)))


class Pieces:
    """The pieces of one call of a parallel phase: each handed out once (``take``), to whichever
    member asks first; ``wait`` returns when every piece handed out is done, and raises the first
    error of one.  After an error no more pieces are handed out.

    One plain lock guards the counts (a ``Condition`` runs Python for each ``with`` and each
    notification, on every team start); the caller's ``wait`` blocks on a second lock, held from
    the start and released by the ``done`` that finishes the last piece handed out once no more
    will be (all taken, or an error)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._taken = 0
        self._done = 0
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._finished = threading.Lock()
        self._finished.acquire()

    def take(self) -> int | None:
        with self._lock:
            if self._taken >= self.count or self._error is not None:
                return None
            self._taken += 1
            return self._taken - 1

    def done(self, error: BaseException | None = None) -> None:
        with self._lock:
            self._done += 1
            if error is not None and self._error is None:
                self._error = error
            last = self._done == self._taken and (self._taken >= self.count or self._error is not None)
        if last:
            self._finished.release()

    def wait(self) -> None:
        """Call once no member can take a piece any more (the caller's own ``take`` said None)."""
        with self._lock:
            pending = self._done < self._taken
        if pending:
            self._finished.acquire()
        if self._error is not None:
            raise self._error


def _submitter() -> Callable[..., Any]:
    """How a team start hands a member to another thread: ``threads.hand_off`` (the helpers), or
    the executor's ``submit`` where ``threads.LIGHT_HANDOFF`` is off (benchmarks/handoff_ab.py)."""
    return threads.hand_off if threads.LIGHT_HANDOFF else threads.pool().submit


def _with_private_buffers(kernel, phase, args: list, values: dict[str, Any], keep_alive: list) -> list:
    """``args`` with fresh buffers for the locals the phase privatises."""
    if not phase.private:
        return args
    copied = list(args)
    for position, param in enumerate(kernel.params):
        if param.name in phase.private:
            buffer = allocate(kernel.locals[param.name], values)
            keep_alive.append(buffer)
            copied[position] = buffer.ctypes.data
    return copied


def _remember(kernel, table: dict, key: tuple, sizes: tuple, times: RegionTimes | BlasTimes) -> None:
    """Keep a first measurement; sizes too small for threads also go to ``kernel.serial_sizes``."""
    if len(table) >= MAX_REGION_SIZES:
        _forget(kernel, table)
    table[key] = times
    if not times.worth_threads:
        kernel.serial_sizes.add(sizes)


def _forget(kernel, table: dict) -> None:
    """Measure every size afresh (``table`` holds ``MAX_REGION_SIZES``)."""
    table.clear()
    kernel.serial_sizes.clear()
    kernel.serial_epoch.value += 1  # native entries that ran those sizes serially step aside


def _timed(times: RegionTimes, team: Callable[[], None], serial: Callable[[], None], compiled=None,
           demoted: Callable[[], None] | None = None, prepare: Callable[[], None] | None = None) -> bool:
    """Run on the team or serially as ``times`` chooses, and record how long it took; True: the team.
    ``compiled``: a region's phase, whose chosen function is generated before the timer starts;
    ``demoted``: called once a serial run shows the sizes too small for threads after all
    (``RegionTimes.record``), to put them with the sizes measured so at first; ``prepare``:
    called before the team's first run is timed (``_ready_team``)."""
    on_team = times.use_team()
    if compiled is not None:
        compiled.ready(region=on_team)
    if on_team and prepare is not None and not times.team:
        prepare()
    began = time.perf_counter()
    (team if on_team else serial)()
    worth = times.worth_threads
    ended = time.perf_counter()
    times.record(on_team, ended - began, ended)
    if worth and not times.worth_threads and demoted is not None:
        demoted()
    return on_team


#: Words of the barrier block passed to a region function (see ``backends.llvm.barrier_module``).
BARRIER_WORDS, BARRIER_GENERATION, BARRIER_ABORT, CHUNK_COUNTER = 8, 1, 2, 3
#: ... and the word thread 0 counts the parallel loops it reaches in (``Team.met_parallel``): a region
#: whose serial run shared out none (the untiled side of a whole-row version whose sweeps are
#: fused into one serial row loop: time_tiling.fused_sweeps) has nothing for a second thread
PARALLEL_LOOPS = 4
MAX_REGION_SIZES = 256  # sizes remembered per kernel before everything is measured afresh
WINDOW = 3  # each mode is judged by the best of its latest runs: interference only ever adds time
RECHECK_EVERY = 8  # calls between serial runs while the team looks faster (its own runs show a slowdown)
# While serial looks faster, the team runs again after as many calls as keep the cost of these
# checks (the team's best recent time over the serial one) within EXPLORE of the calls' time:
# a team that lost by a hair, most often to a job that held a core for a moment, is tried again
# after RECHECK_MIN calls; one that took twice the serial time after 20; at most MAX_RECHECK.
EXPLORE = 0.05
RECHECK_MIN = 2
MAX_RECHECK = 128


@dataclass
class RegionTimes:
    """What was measured for one parallel phase or region at one set of sizes and thread count."""

    worth_threads: bool  # the serial run found enough work (per barrier, for a region)
    serial: list[float]  # seconds of the latest serial runs (at most WINDOW)
    team: list[float] = field(default_factory=list)  # seconds of the latest runs on the team
    team_ended: list[float] = field(default_factory=list)  # when each of those ended (perf_counter)
    slower_since: float | None = None  # when the team last began to look slower (None: it does not)
    calls: int = 0
    next_check: int = 0  # the call from which the mode that looks slower runs once more
    checking: bool = False  # the run under way is a check (or one of the team's first runs)

    def use_team(self) -> bool:
        """The team for its first ``WINDOW`` runs (fewer if one took over twice the serial time),
        then the mode whose best recent run is faster, and the other one once the call count
        reaches ``next_check`` (see ``recheck_after``)."""
        if not self.worth_threads:
            return False
        self.calls += 1
        if self._on_trial():
            self.checking = True
            return True
        faster = min(self.team) < min(self.serial)
        self.checking = self.calls >= self.next_check
        return faster != self.checking

    def record(self, team: bool, seconds: float, ended: float | None = None) -> None:
        """A run of ``seconds`` on the team or serially, which ended at ``ended`` (perf_counter's
        time; None: now)."""
        times = self.team if team else self.serial
        times.append(seconds)
        del times[:-WINDOW]
        now = time.perf_counter() if ended is None else ended
        if team:
            self.team_ended.append(now)
            del self.team_ended[:-WINDOW]
        if self.team and min(self.team) < min(self.serial):
            self.slower_since = None
        elif self.team and self.slower_since is None:
            self.slower_since = now
        if not team and seconds < MIN_PARALLEL_SECONDS:
            # the first serial run, which decided ``worth_threads``, paid for cold caches and page
            # faults (covariance's means: 0.3 ms cold, 0.1 ms warm, then team trials of 2-6 ms
            # under load): a later serial run under the bar shows the sizes too small after all
            self.worth_threads = False
        if self.checking:
            self.checking = False
            self.next_check = self.calls + self.recheck_after()

    def recheck_after(self) -> int:
        """Calls until the mode that looks slower runs again, judged on the runs so far (a team
        judged on fewer than ``WINDOW`` runs, one of which may have paid for page faults or the
        threads' start, runs again after ``RECHECK_EVERY`` calls at the most; one that began to
        look slower less than ``MOMENT`` seconds ago, after ``moment_recheck`` calls at the most)."""
        team, serial = min(self.team), min(self.serial)
        if team < serial:
            return RECHECK_EVERY
        calls = max(RECHECK_MIN, min(MAX_RECHECK, math.ceil((team - serial) / (EXPLORE * max(serial, 1e-9)))))
        if len(self.team) < WINDOW:
            return min(calls, RECHECK_EVERY)
        if self.slower_since is not None and self.team_ended and self.team_ended[-1] - self.slower_since < MOMENT:
            return min(calls, moment_recheck(team, serial))
        return calls

    def _on_trial(self) -> bool:
        return len(self.team) < WINDOW and not (self.team and min(self.team) > 2 * min(self.serial))


#: For this many seconds after a team began to look slower than the serial function, its checks
#: come sooner (``moment_recheck``): what slowed it may have been a moment's, and gone since (a
#: pool of the process spinning after its own call, OpenBLAS's for ~0.1 s: ``bench/measure.py``
#: ``settle``; another job on the second core for a moment).  A team's trial is such a moment:
#: its ``WINDOW`` runs follow each other.
MOMENT = 0.25
#: The most a check within ``MOMENT`` may cost, as a fraction of the calls' time until it
#: (``EXPLORE`` afterwards).
MOMENT_EXPLORE = 0.25


def moment_recheck(team: float, serial: float) -> int:
    """The most calls before a team that began to look slower less than ``MOMENT`` seconds ago
    runs again: ``RECHECK_EVERY``, or more where a check would cost more than ``MOMENT_EXPLORE``
    of the calls until it.  With the cost rule alone (``RegionTimes.recheck_after``) a trial
    slowed down to 3x the serial time left the team out for the next 40 calls, and to 7x for 120,
    however soon the moment passed: attention's phases take 1-3 ms, and the bench times 7 calls
    at a time.  After ``MOMENT`` seconds of looking slower the cost rule holds: a team that is
    slower pays for frequent checks once per such stretch."""
    return max(RECHECK_EVERY, math.ceil((team - serial) / (MOMENT_EXPLORE * serial)))


#: The modes of a product cut by rows whose library's threads are a candidate (``BlasTimes``).
BLAS_MODES = ("library", "rows", "serial")
#: The order of their trials: one BLAS thread first (the first call's run on it paid for cold
#: caches and page faults, and the other modes' trials are cut short against its best), then the
#: rows, then the library's threads: the rows' trials right after the library's ran beside
#: OpenBLAS's spinning workers (``BlasTimes.spin``) and read slow (gemm at the bench size on
#: the quiet machine of session 26: 12.6 ms on 2 threads, the library's time, against 11.1 on one).
BLAS_TRIALS = ("serial", "rows", "library")
#: The order before (``POLYFUSE_BLAS_FAIR_TRIALS=0``).
UNFAIR_BLAS_TRIALS = ("serial", "library", "rows")
#: A mode that lost is tried again after as many calls as keep its cost within ``EXPLORE`` of the
#: calls' time, at most this many: the library's threads, collapsed under load, took 37x one BLAS
#: thread's time (gesummv LARGE), and ``MAX_RECHECK`` (128) calls would have spent 30% on them.
MAX_BLAS_RECHECK = 1024
#: Runs in a row of a mode that is checked again: the first one wakes a pool that went idle while
#: the other modes ran (OpenBLAS's workers sleep once polyfuse held the library on one thread, and
#: a woken pool took 5-45 ms for gesummv's 0.7 ms ``?gemv`` under load), the next ones show what
#: the mode gives calls that follow each other; the best of them counts.
BLAS_CHECK_RUNS = 2
#: With ``quiet_checks`` (``POLYFUSE_BLAS_QUIET_CHECKS``), a check of the rows or one BLAS thread
#: due while the library's threads lead waits for a call that starts after OpenBLAS's workers
#: went quiet (``spin`` after the library's latest run: a pause in the caller's calls), at most
#: this many calls; then it runs beside them as before, until its runs count.
QUIET_CHECK_WAIT = 32
#: What leaving the chosen mode for a check and coming back costs, in runs of the chosen mode:
#: OpenBLAS's workers spin about 0.1 s after a call on its threads (beside polyfuse's team, whose
#: rows then run on a shared core) and sleep once polyfuse held the library on one thread (the next
#: call on its threads wakes them).  Counted in each check's price (``BlasTimes.recheck_after``), so
#: that two modes within a few per cent of each other are not checked every few calls: with three
#: products in a kernel (3mm) and each site's checks of its runner-up every 2-3 calls, nearly every
#: call mixed the library's threads and the rows (docs/performance.md, session 24).
BLAS_MODE_CHANGE = 1.0
#: A mode takes over as the choice only when its best recent run beats the chosen mode's by this
#: fraction (two modes within noise of each other would otherwise swap at every check); with
#: ``BlasTimes.robust`` the margin follows the two modes' measured spread instead (``switch_margin``),
#: this only until each has two runs.
BLAS_SWITCH_MARGIN = 0.05
#: With ``BlasTimes.robust`` each mode keeps its latest this many runs (its trials are still
#: ``WINDOW``): the median of five is not moved by two slow runs, and a chosen mode that collapsed
#: is still left after three.
ROBUST_WINDOW = 5
#: With ``BlasTimes.robust`` (``POLYFUSE_BLAS_ROBUST_CHOICE``, session 29) a mode's time is the
#: median of its latest ``ROBUST_WINDOW`` runs (the lower one of two), not the best of three, and
#: the switch margin is the larger of the two modes' spreads (how far a mode's median is above its
#: best run, over the best) times ``SPREAD_MARGIN``, within these bounds.  Why: under load a
#: mode's best of three is a draw of the load (matmul_bias_relu LARGE at load 5.7, session 29: the
#: library's threads chosen by one 7.8 ms run while forced they took 38.7 ms in the median of
#: their series, the rows 11.7), and on a quieter machine a fixed 5% kept covariance's library
#: where the rows beat it by 2-3% (session 28).
MIN_SWITCH_MARGIN = 0.02
MAX_SWITCH_MARGIN = 0.25
#: The margin is this many times the larger spread (median over best): two modes' medians within
#: twice it are a tie (``test_blas_times_robust_choice_does_not_flap_on_a_noisy_tie``: the choice
#: changed 8 times in six replays of 280 calls, 49 with the fixed 5% and the best of three runs).
SPREAD_MARGIN = 2.0
#: With ``BlasTimes.robust`` and the library's threads chosen while their runs' spread
#: (``BlasTimes.spread``) is over ``BLAS_SWITCH_MARGIN``, a native entry runs at most this many calls in a row less one
#: unmeasured (``BlasTimes.library_calls``); the runtime times the next, in Python (about 50 us).
ENTRY_MEASURED_EVERY = 8
#: With ``BlasTimes.robust``: a mode whose check ends with its time over the chosen mode's by more
#: than this fraction (and than twice the switch margin) lost clearly; each such check in a row
#: doubles the calls until its next one (``recheck_after``, at most ``MAX_BLAS_RECHECK``), so that
#: the checks of a mode that keeps losing cost less and less of the calls (``EXPLORE`` of them for the
#: first).  A check it does not lose clearly starts the count again.
BLAS_CLEAR_LOSS = 0.10
#: One BLAS thread slower than the chosen mode's best by this factor is clearly beaten: on two
#: threads the rows or the library's threads then got at least 75% of the cores' ideal split, so
#: one thread's runs were not one moment's load on the other core.  Such a check ends after one
#: run (one BLAS thread wakes no pool), and trials lost so are priced as any check
#: (``BlasTimes.recheck_after``) instead of checked again after ``RECHECK_EVERY`` calls:
#: covariance at the bench size (rows 2.6 ms, one BLAS thread 4.5) ran one BLAS thread in 3-5 of
#: 60 timed calls for checks (docs/performance.md, session 28).
SERIAL_CLEAR_LOSS = 1.5
#: With ``BlasTimes.prior`` (``POLYFUSE_BLAS_PRIOR``, session 34): one BLAS thread is chosen over
#: the threaded modes (the rows, the library's threads) only after it beat the fastest of them by
#: this fraction in a duel (``DUEL_ROUNDS``), the minima of runs taken in turn.  Why: the cost
#: model (a product of ``PRIOR_MIN_SECONDS`` or more of work on one thread, and two or more
#: threads) says the threads take about half one thread's time, and a moment's load on the other
#: core during the threaded modes' trials chose one BLAS thread for all of the bench's timed
#: calls (2mm at the bench size, session 33: ``serial 7``, 0.70x NumPy; 1.01x and 1.15x rerun).
PRIOR_MARGIN = 0.10
#: The one-thread run (the first call's) from which the prior holds: 1 ms, 5-30 times what waking
#: the threads costs (``MIN_PARALLEL_SECONDS``'s 30-60 us), so a threaded mode that loses there lost
#: to the load or the library, not to its fixed cost.
PRIOR_MIN_SECONDS = 1e-3
#: A duel: this many rounds, each a check's ``BLAS_CHECK_RUNS`` counted runs of one BLAS thread
#: then of the challenger (the fastest threaded mode; ``Duels.start``).  Both modes' runs then come from the same few
#: calls, so a load that comes and goes meets both, and each mode's minimum says what it gives
#: when the load lets it (interference only adds time).
DUEL_ROUNDS = 2
#: After a duel, the next one comes no sooner than this many calls, or as many as keep the duel's
#: extra time within ``EXPLORE`` of the calls' where that is more; twice as many after each duel in
#: a row with the same outcome (at most ``MAX_BLAS_RECHECK``).
DUEL_AGAIN = 16
#: One BLAS thread chosen by a duel is put to another when the median of its latest runs moves
#: this fraction from its median in the duel (``Duels.reopen_if_moved``).
REOPEN_MARGIN = 0.2


@dataclass
class Duels:
    """``BlasTimes.prior``'s state (``POLYFUSE_BLAS_PRIOR``, session 34): the duel under way (one
    BLAS thread against the fastest threaded mode, ``DUEL_ROUNDS`` rounds of runs in turn) and
    what the duels so far decided.  ``BlasTimes`` says when a duel is due and whom it is fought
    against, counts its runs here and acts on the outcome (the modes' runs, the leader)."""

    pending: list[str] = field(default_factory=list)  # the duel's runs still to come, in order
    runs: dict[str, list[float]] = field(default_factory=dict)  # mode -> its counted runs in the duel
    confirmed: float | None = None  # one BLAS thread's median in the duel it won (None: not chosen so)
    lost_in_a_row: int = 0  # duels in a row one BLAS thread lost
    won_in_a_row: int = 0  # duels in a row one BLAS thread won
    next_at: int = 0  # the call from which the next duel may start
    verdict: str = ""  # the latest duel's outcome (explain)
    reopened: int = 0  # choices of one BLAS thread by a duel put to a duel again by its later runs (explain)
    contest: bool = False  # one BLAS thread, chosen by a duel, is to fight another (``reopen_if_moved``)

    def under_way(self) -> bool:
        return bool(self.pending)

    def one_thread_chosen(self) -> bool:
        """Did one BLAS thread win the latest duel, and keep the lead since?"""
        return self.confirmed is not None

    def start(self, challenger: str) -> None:
        """``DUEL_ROUNDS`` rounds of a check's runs of each mode, one BLAS thread first (a run of it
        right after the library's threads does not count, ``BlasTimes.spin``, and waits out their
        spin as a check does)."""
        self.pending = (["serial"] * BLAS_CHECK_RUNS + [challenger] * BLAS_CHECK_RUNS) * DUEL_ROUNDS
        self.runs, self.contest = {}, False

    def next_mode(self) -> str:
        return self.pending[0]

    def is_next(self, mode: str) -> bool:
        """Is a run of ``mode`` the duel's next (one to ``count``)?"""
        return bool(self.pending) and mode == self.pending[0]

    def count(self, mode: str, seconds: float) -> None:
        """Count the duel's next run (``is_next``), of ``seconds``."""
        self.pending.pop(0)
        self.runs.setdefault(mode, []).append(seconds)

    def judge(self) -> tuple[str, float, float, bool]:
        """The ended duel's challenger, the minima of one BLAS thread's runs and of the
        challenger's, and whether one BLAS thread won (by ``PRIOR_MARGIN``); noted in ``verdict``."""
        challenger = next(m for m in self.runs if m != "serial")
        mine, theirs = min(self.runs["serial"]), min(self.runs[challenger])
        won = mine < (1 - PRIOR_MARGIN) * theirs
        self.verdict = (f"one BLAS thread {mine * 1e3:.4g} ms against {challenger} {theirs * 1e3:.4g} ms "
                        f"(minima of {len(self.runs['serial'])} and {len(self.runs[challenger])} "
                        f"runs in turn): {'won' if won else 'lost'} by the {PRIOR_MARGIN:.0%} margin")
        return challenger, mine, theirs, won

    def one_thread_won(self, median: float) -> None:
        """One BLAS thread chosen, its later runs held against ``median`` (the duel's)."""
        self.confirmed, self.lost_in_a_row = median, 0
        self.won_in_a_row += 1

    def one_thread_lost(self) -> None:
        self.lost_in_a_row, self.won_in_a_row = self.lost_in_a_row + 1, 0
        self.confirmed = None

    def schedule_next(self, calls: int, mine: float, theirs: float) -> None:
        """The next duel: after ``DUEL_AGAIN`` calls, or as many as keep a duel's extra time (its
        runs of the slower mode over the faster's) within ``EXPLORE`` of the calls', doubled per
        duel in a row with the same outcome; the ended duel's runs dropped."""
        count = BLAS_CHECK_RUNS * DUEL_ROUNDS
        price = math.ceil(count * abs(mine - theirs) / (EXPLORE * min(mine, theirs)))
        again = max(DUEL_AGAIN, price) << min(max(self.lost_in_a_row, self.won_in_a_row) - 1, 10)
        self.next_at = calls + min(MAX_BLAS_RECHECK, again)
        self.runs = {}

    def calls_to_next(self, calls: int) -> int:
        return max(0, self.next_at - calls)

    def reopen_if_moved(self, now: float, calls: int) -> None:
        """One BLAS thread chosen by a duel now runs (the median ``now`` of its latest runs) faster
        than it did there by ``REOPEN_MARGIN``: the load that slowed the duel went, and the
        threaded modes were measured under it: a duel at once.  Slower by as much: the load
        changed, and how it treats the threads is not known: a duel once the next is due
        (``DUEL_AGAIN``, doubled per duel won in a row).  One BLAS thread stays chosen until it
        loses a duel."""
        if self.confirmed is None or self.contest:
            return
        faster = now < (1 - REOPEN_MARGIN) * self.confirmed
        if faster or (now > (1 + REOPEN_MARGIN) * self.confirmed and calls >= self.next_at):
            self.contest, self.reopened = True, self.reopened + 1
            self.next_at = min(self.next_at, calls)

    def forget_choice(self) -> None:
        """Another mode leads: one BLAS thread, if chosen again, must win a duel again."""
        self.confirmed = None


@dataclass
class BlasTimes:
    """What was measured for one product cut by rows (``Phase.library``) at one trip count and
    thread count: the latest runs of each mode of ``BLAS_MODES``, judged as ``RegionTimes`` judges
    the team and the serial function.  Each mode first runs ``WINDOW`` times in a row (in the
    order of ``BLAS_TRIALS``), fewer if its best run took over twice the best time
    of another mode (the library's threads judged from their ``BLAS_CHECK_RUNS``-th run on); then the mode whose best recent run is fastest runs,
    and each other one again, ``BLAS_CHECK_RUNS`` times in a row, once the call count reaches its
    ``next_check``: after as many calls as keep its extra time, and the price of leaving the
    chosen mode and coming back (``BLAS_MODE_CHANGE``), within ``EXPLORE`` of the calls' (at
    least 20 calls, at most ``MAX_BLAS_RECHECK``), so that the choice follows the machine's load;
    the chosen mode stays until another's best recent run beats it by ``BLAS_SWITCH_MARGIN``.  ``forced``
    (``POLYFUSE_BLAS_THREADS``): one mode always, or "measure".

    A run on one BLAS thread or on the rows that starts less than ``spin`` seconds after a run on
    the library's threads ended is not counted (``record`` given the run's start): OpenBLAS's
    workers still spin then, on a core the rows or other jobs need (3mm's rows at the bench size
    right after the library's: wall min 7.39 against 6.18 ms after rows, session 26), which
    the mode would not meet in calls that follow each other.  The trial or check goes on until
    its runs count; what its uncounted runs cost is priced into the next check (``recheck_after``).
    With ``recheck_trials`` (fair trials) a mode that lost on its trials alone is checked again
    after at most ``RECHECK_EVERY`` calls, as ``RegionTimes`` checks a team judged on few runs.
    With ``warm_first`` (``POLYFUSE_BLAS_WARM_TRIALS``, session 37) the rows' first run is not
    counted either: it pays once for what their later runs find ready (a native helper's first
    BLAS call and placement).  The library's first run is counted: the wake of OpenBLAS's pool it
    pays recurs after every run in another mode (and every pause), as in the bench's series.

    With ``quick`` (``POLYFUSE_BLAS_QUICK_CHECKS``, session 28) the checks cost fewer calls: a
    check of one BLAS thread or the rows waits while the workers spin unless the library's
    threads are chosen (``_beside_spin``); one BLAS thread beaten by over ``SERIAL_CLEAR_LOSS``
    is checked with one run, and its lost trials are priced instead of checked again soon; each
    mode's first check is priced again when the trials end; a check due while the library's
    threads lead is priced again with the spin it must wait out; a mode that loses the lead by
    its own runs gets a priced check instead of one at once.

    With ``robust`` (``POLYFUSE_BLAS_ROBUST_CHOICE``, session 29) each mode keeps its latest
    ``ROBUST_WINDOW`` runs and is judged by their median (``seconds``), a mode takes over by a
    margin from the two modes' spread (``switch_margin``), a check lost clearly (``BLAS_CLEAR_LOSS``)
    doubles the calls until the next one (``lost``), a chosen mode that loses the lead by its own
    runs is checked again as after a moment's load (``MOMENT_EXPLORE``), and with the library's
    runs spread over ``BLAS_SWITCH_MARGIN`` a native entry leaves every ``ENTRY_MEASURED_EVERY``-th
    call to be timed.  The checks are still priced by the best runs (``recheck_after``)."""

    worth_threads: bool  # the first run (one BLAS thread) found enough work for threads
    runs: dict[str, list[float]]  # mode -> seconds of its latest runs (at most WINDOW)
    forced: str = "measure"
    modes: tuple[str, ...] = BLAS_MODES  # without "rows" on one polyfuse thread
    calls: int = 0
    next_check: dict[str, int] = field(default_factory=dict)
    checking: str | None = None  # the mode whose trial or check is under way
    left: int = 0  # runs of the check under way still to come
    leader: str | None = None  # the mode chosen (``best``), kept until another beats it by the margin
    latest: str | None = None  # the mode of the latest run recorded
    trials: tuple[str, ...] = BLAS_TRIALS
    spin: float = 0.0  # seconds after a run on the library's threads whose other runs do not count
    library_end: float = -math.inf  # when the latest run on the library's threads ended (perf_counter)
    uncounted: int = 0  # runs not counted so (explain)
    counted: dict[str, int] = field(default_factory=dict)  # mode -> its runs counted so far
    # a mode judged on its trials alone runs again after ``RECHECK_EVERY`` calls at the most
    recheck_trials: bool = False
    check_extra: float = 0.0  # seconds of the uncounted runs of the check under way
    last_end: float = -math.inf  # when the latest run given its start ended (perf_counter)
    priced_against: dict[str, str] = field(default_factory=dict)  # mode -> the leader when its check was priced
    tally: dict[str, int] = field(default_factory=dict)  # mode -> runs chosen so, native entries' included (explain)
    quick: bool = True  # ``POLYFUSE_BLAS_QUICK_CHECKS``: the checks of session 28 (see SERIAL_CLEAR_LOSS)
    # ``POLYFUSE_BLAS_ROBUST_CHOICE``: medians, a margin from the spread, clear losers checked
    # less and less often (session 29: MIN_SWITCH_MARGIN, BLAS_CLEAR_LOSS)
    robust: bool = True
    lost: dict[str, int] = field(default_factory=dict)  # mode -> checks in a row it lost clearly (robust)
    # ``POLYFUSE_BLAS_PRIOR`` (session 34): one BLAS thread must win a duel against the fastest
    # threaded mode before it is chosen (``PRIOR_MARGIN``); set where the cost model expects threads
    # to pay (``prior_holds``)
    prior: bool = False
    duels: Duels = field(default_factory=Duels)  # the prior's duels
    # ``POLYFUSE_BLAS_WARM_TRIALS`` (session 37): the rows' first run is not counted (``record``):
    # it pays once for what their later runs find ready
    warm_first: bool = False
    warmed: set[str] = field(default_factory=set)  # the modes whose first run went uncounted
    # ``POLYFUSE_BLAS_QUIET_CHECKS`` (session 38): a check due while the library's threads lead
    # waits (``QUIET_CHECK_WAIT`` calls at most) for a call that starts with their workers quiet
    quiet_checks: bool = False
    spin_waits: int = 0  # calls a due check waited so (quiet_checks), since the latest check began
    # ``POLYFUSE_BLAS_SETTLED_TRIALS`` (session 40): ``in_trials`` holds until the early checks
    # of the modes judged on their trials alone ran too (``_early_check_due``)
    settled: bool = False

    def choose(self, now: float | None = None) -> str:
        """The mode of the next run (counted in ``tally``), which starts at ``now`` (perf_counter;
        None: when the latest run ended, ``last_end``)."""
        mode = self._choose(self.last_end if now is None else now)
        self.tally[mode] = self.tally.get(mode, 0) + 1
        return mode

    def _choose(self, now: float) -> str:
        if self.forced != "measure":
            return self.forced
        if not self.worth_threads:
            return "library"
        self.calls += 1
        if self.checking is not None and self.left > 0:
            if self.quick and self.runs and self._beside_spin(self.checking):
                return self.best()  # (the check goes on once the workers went quiet)
            return self.checking
        if self.duels.under_way():
            return self._duel_mode()
        for mode in sorted(self.modes, key=self.trials.index):
            if self._on_trial(mode):
                self.checking, self.left = mode, 1
                return mode
        if self._duel_due():
            self._start_duel()
            return self._duel_mode()
        best = self.best()
        waited = False
        for mode in self.modes:
            if mode == best or self.calls < self.next_check.get(mode, 0):
                continue
            if self.quick and self._beside_spin(mode):
                continue
            if self._wait_quiet(mode, now):
                waited = True
                continue
            if (self.quick and best == "library" and mode != "library" and self.spin > 0
                    and self.priced_against.get(mode) != "library"):
                # due, but priced while another mode led: a check now waits out the spin
                self._price_check(mode)
                continue
            self.checking, self.left, self.spin_waits = mode, BLAS_CHECK_RUNS, 0
            return mode
        self.spin_waits += waited
        return best

    def _beside_spin(self, mode: str) -> bool:
        """Whether a check of ``mode`` waits: a run of it now would start beside OpenBLAS's
        spinning workers and not count (``spin``), while the chosen mode is not the library's
        threads (which keep their workers spinning: there the check runs until its runs count).
        "Now" is when the latest run ended (``last_end``).  Before, a check of one BLAS thread
        due right after one of the library's threads ran one BLAS thread for the whole spin,
        each run uncounted: a replay of covariance at the bench size (rows 2.6 ms, one BLAS thread
        4.5) spent 17 of 60 calls so (docs/performance.md, session 28)."""
        if mode == "library" or self.spin <= 0 or self.last_end - self.library_end >= self.spin:
            return False
        best = self.best()
        return best != "library" and best != mode

    def _wait_quiet(self, mode: str, now: float) -> bool:
        """Whether a check of ``mode`` due while the library's threads lead waits (``quiet_checks``):
        a run starting at ``now`` would meet their workers still spinning, and the check has not
        waited ``QUIET_CHECK_WAIT`` calls yet.  The workers spin in user space without yielding
        (no system time, ~0.1 s), and a check begun beside them ran one call after another at about
        one thread's time until its runs counted, ~0.1 s of them (a bench series whole); begun
        after a pause in the calls it costs its own runs only (docs/performance.md, session 38,
        bl52).  A check once begun goes on as before (``_beside_spin``)."""
        return (self.quiet_checks and mode != "library" and self.spin > 0 and self.best() == "library"
                and now - self.library_end < self.spin and self.spin_waits < QUIET_CHECK_WAIT)

    def library_calls(self) -> int:
        """Calls that may run on the library's threads, unmeasured, before ``choose`` wants
        another mode (``parallel.library_calls``): 0 unless they are chosen and no trial or
        check is due before then."""
        if self.forced != "measure" or not self.worth_threads:
            return MAX_ENTRY_CALLS if self.forced in ("measure", "library") else 0
        if self.checking is not None or any(self._on_trial(mode) for mode in self.modes):
            return 0
        if self.best() != "library" or self.duels.under_way() or self._duel_due():
            return 0
        due = min(self.next_check.get(mode, 0) for mode in self.modes if mode != "library")
        if self.prior and not self.duels.one_thread_chosen() and self.measured_best() == "serial":
            due = min(due, self.duels.next_at)
        left = max(0, due - self.calls - 1)
        spread = self.spread("library")
        if self.robust and (spread is None or spread > BLAS_SWITCH_MARGIN):
            # the entry's calls are not timed: with the library's runs this spread, one of
            # every ``ENTRY_MEASURED_EVERY`` calls is, so that a choice made on lucky runs, or a
            # pool that collapsed since, shows before the next check of another mode
            left = min(left, ENTRY_MEASURED_EVERY - 1)
        return left

    def entry_ran(self, ran: int, ended: float | None = None) -> None:
        """Count ``ran`` calls that a native entry ran on the library's threads, the latest ending
        at ``ended`` (perf_counter; None: just now)."""
        if ran > 0:
            self.calls += ran
            self.tally["library"] = self.tally.get("library", 0) + ran
            self.library_end = self.last_end = time.perf_counter() if ended is None else ended

    def best(self) -> str:
        """The chosen mode: the one whose recent runs are fastest (``seconds``), among those
        measured, but the one chosen before while no other beats it by the switch margin
        (``switch_margin``); with ``prior``, one BLAS thread only once it won a duel
        (``Duels.one_thread_chosen``), the fastest threaded mode until then."""
        best = self.measured_best()
        if best == "serial" and self.prior and not self.duels.one_thread_chosen():
            threaded = [mode for mode in self.modes if mode != "serial" and self.runs.get(mode)]
            if threaded:
                return min(threaded, key=self.seconds)
        return best

    def measured_best(self) -> str:
        """``best`` without the prior: what the runs alone say."""
        fastest = min((mode for mode in self.modes if self.runs.get(mode)), key=self.seconds)
        leader = self.leader
        if leader is None or not self.runs.get(leader) or any(self._on_trial(m) for m in self.modes):
            return fastest  # (no margin while trials are open: the mode tried first has no edge)
        margin = self.switch_margin(fastest, leader)
        return fastest if self.seconds(fastest) < (1 - margin) * self.seconds(leader) else leader

    def seconds(self, mode: str) -> float:
        """What ``mode``'s latest runs say a run of it takes: their best, or with ``robust`` their
        median (the lower one of two: a check's first run wakes a pool)."""
        runs = self.runs[mode]
        return sorted(runs)[(len(runs) - 1) // 2] if self.robust else min(runs)

    def spread(self, mode: str) -> float | None:
        """How far ``mode``'s median recent run (``seconds``; the second-best of two) is above its
        best, as a fraction of the best (None with fewer than two runs)."""
        runs = sorted(self.runs.get(mode, ()))
        if len(runs) < 2 or runs[0] <= 0:
            return None
        return (runs[max(1, (len(runs) - 1) // 2)] - runs[0]) / runs[0]

    def switch_margin(self, mode: str, leader: str) -> float:
        """The fraction by which ``mode`` must beat the chosen ``leader`` to take over:
        ``BLAS_SWITCH_MARGIN``, or with ``robust`` the larger of their spreads within
        ``MIN_SWITCH_MARGIN`` and ``MAX_SWITCH_MARGIN`` (``BLAS_SWITCH_MARGIN`` until both have two
        runs)."""
        spreads = [self.spread(mode), self.spread(leader)]
        if not self.robust or None in spreads:
            return BLAS_SWITCH_MARGIN
        return min(MAX_SWITCH_MARGIN, max(MIN_SWITCH_MARGIN, SPREAD_MARGIN * max(x for x in spreads if x is not None)))

    def record(self, mode: str, seconds: float, began: float | None = None) -> None:
        """Count a run of ``mode`` of ``seconds`` (started at ``began``, perf_counter, where known:
        see ``spin``)."""
        if began is not None:
            self.last_end = max(self.last_end, began + seconds)
        if began is not None and self.spin > 0:
            if mode == "library":
                self.library_end = began + seconds
            elif began - self.library_end < self.spin:
                self.uncounted += 1
                self.latest = mode
                if self.runs.get(self.best()):
                    self._price_uncounted(mode, max(0.0, seconds - min(self.runs[self.best()])))
                return
        if self.warm_first and mode == "rows" and mode not in self.warmed:
            # (the trial goes on: ``left`` is not counted down, the mode runs again)
            self.warmed.add(mode)
            self.uncounted += 1
            self.latest = mode
            return
        trials_open = any(self._on_trial(m) for m in self.modes)
        times = self.runs.setdefault(mode, [])
        times.append(seconds)
        del times[:-(ROBUST_WINDOW if self.robust else WINDOW)]
        self.counted[mode] = self.counted.get(mode, 0) + 1
        self.latest = mode
        if self.duels.is_next(mode):
            self.duels.count(mode, seconds)
            if not self.duels.under_way():
                self._end_duel()
        elif self.prior and self.duels.one_thread_chosen() and mode == "serial":
            self.duels.reopen_if_moved(self.seconds("serial"), self.calls)
        before, self.leader = self.leader, self.best()
        if self.leader != "serial":
            self.duels.forget_choice()
        if self.quick and before is not None and before != self.leader and self.checking != before:
            # the chosen mode lost its lead by its own runs: it was never given a check, so it
            # would run twice more at once (a collapsed pool: 40 ms each); priced as a check,
            # with ``robust`` as a moment's (``MOMENT_EXPLORE``): judged by the median, two slow
            # runs of three lose the lead, and a moment's load that slowed them must not keep the
            # mode out for long (a replay: the rows out for 120 calls after two spikes)
            self._price_check(before, explore=MOMENT_EXPLORE if self.robust else EXPLORE)
        if self.checking == mode:
            self.left -= 1
            if self.quick and mode == "serial" and self.runs.get(self.best()) and seconds > SERIAL_CLEAR_LOSS * min(self.runs[self.best()]):
                self.left = 0  # (one BLAS thread wakes no pool: one run clearly beaten says enough)
            if self.left <= 0:
                self.checking = None
                if self.robust:
                    self._count_loss(mode)
                self._price_check(mode)
                self.check_extra = 0.0
        if self.quick and trials_open and not any(self._on_trial(m) for m in self.modes):
            # the trials just ended: a mode's first check was set when its own trial ended,
            # judged against the modes tried before it (one BLAS thread's, tried first, against
            # none): judge it again against them all
            best = self.best()
            for other in self.modes:
                if other != best and self.runs.get(other) and self.counted.get(other, 0) <= WINDOW:
                    self._price_check(other, not_sooner=True)

    def _count_loss(self, mode: str) -> None:
        """After a check of ``mode``: one more clear loss in a row (``lost``), or none so far."""
        leader = self.best()
        if leader == mode or not self.runs.get(leader):
            self.lost[mode] = 0
            return
        clear = max(BLAS_CLEAR_LOSS, 2 * self.switch_margin(mode, leader))
        self.lost[mode] = self.lost.get(mode, 0) + 1 if self.seconds(mode) > (1 + clear) * self.seconds(leader) else 0

    def _price_uncounted(self, mode: str, extra: float) -> None:
        """An uncounted run's ``extra`` seconds over the best: part of the price of the check under
        way (of ``mode``), else of the library's threads' latest trial or check, whose workers
        slowed it: their next check comes that much later."""
        if self.checking == mode:
            self.check_extra += extra
        elif "library" in self.next_check and not (self.recheck_trials and self.counted.get("library", 0) <= WINDOW):
            best = min(self.runs[self.best()])
            later = self.next_check["library"] + math.ceil(extra / (EXPLORE * best))
            self.next_check["library"] = min(later, self.calls + MAX_BLAS_RECHECK)

    def _price_check(self, mode: str, *, not_sooner: bool = False, explore: float = EXPLORE) -> None:
        """Set the call from which ``mode`` is checked again (``recheck_after``; ``not_sooner``:
        not before the one already set) and note the leader it was priced against
        (``priced_against``)."""
        at = self.calls + self.recheck_after(mode, explore)
        self.next_check[mode] = max(self.next_check.get(mode, 0), at) if not_sooner else at
        self.priced_against[mode] = self.best()

    def recheck_after(self, mode: str, explore: float = EXPLORE) -> int:
        """Calls until ``mode`` runs again unless it is the fastest (``RegionTimes.recheck_after``,
        for a check of ``BLAS_CHECK_RUNS`` runs), its cost within ``explore`` of the calls'."""
        leader = self.best()
        # (priced by the best runs, with ``robust`` too: a check's price is what it may cost once
        # a moment's load passed, and a mode out of the lead on two slow runs is checked soon)
        mine, best = min(self.runs[mode]), min(self.runs[leader])
        # with the library's threads chosen, a check of another mode first runs it beside their
        # spinning workers, uncounted, for ``spin`` seconds: its extra time then (``check_extra``
        # once a check paid it)
        wait = (self.spin * max(0.0, mine - best) / mine
                if self.quick and mode != "library" and leader == "library" else 0.0)
        extra = (BLAS_CHECK_RUNS * max(0.0, mine - best) + BLAS_MODE_CHANGE * best
                 + max(self.check_extra, wait)) / (explore * best)
        calls = max(RECHECK_MIN, min(MAX_BLAS_RECHECK, math.ceil(extra) << min(self.lost.get(mode, 0), 10)))
        clear = self.quick and mode == "serial" and mine > SERIAL_CLEAR_LOSS * best
        if self.recheck_trials and self.counted.get(mode, 0) <= WINDOW and not clear:
            # judged on its trials alone, three runs in a row that a moment's load may have slowed
            # all (3mm LARGE at load 7: the rows' trials 663 ms, then 120-130 a run): once more soon,
            # unless the check must first wait out OpenBLAS's spin (the library's threads chosen:
            # the mode's runs until then do not count), whose extra time (``wait``) is priced as a
            # moment's check (``MOMENT_EXPLORE``): a replay with covariance-sized calls of 2.5 ms ran
            # the rows uncounted in 28 of 60 calls after 8; 3mm LARGE's calls of 120 ms wait under one call
            return min(calls, max(RECHECK_EVERY, math.ceil(wait / (MOMENT_EXPLORE * best))))
        return calls

    def in_trials(self) -> bool:
        """Whether the next runs are still the modes' trials (each mode in turn, ``BLAS_TRIALS``),
        or a duel (``prior``) under way or due: the choice measures, and has not chosen yet."""
        return self.forced == "measure" and self.worth_threads and (
            any(self._on_trial(mode) for mode in self.modes) or self.duels.under_way() or self._duel_due()
            or (self.settled and self._early_check_due()))

    def _early_check_due(self) -> bool:
        """Whether a check is under way, or a mode judged on its trials alone (``recheck_after``'s
        case: ``recheck_trials``, at most ``WINDOW`` runs counted, not clearly beaten) is to be
        checked again within ``RECHECK_EVERY`` calls: that check is part of the measurement
        (``settled``).  Those due later (waiting out OpenBLAS's spin, priced as a moment's check)
        are the choice's ordinary checks."""
        if self.checking is not None:
            return True
        if not self.recheck_trials:
            return False
        best = self.best()
        if not self.runs.get(best):
            return False
        for mode in self.modes:
            runs = self.runs.get(mode)
            if mode == best or not runs or self.counted.get(mode, 0) > WINDOW:
                continue
            if self.quick and mode == "serial" and min(runs) > SERIAL_CLEAR_LOSS * min(self.runs[best]):
                continue  # (clearly beaten: priced as a check, not checked again soon)
            if self.next_check.get(mode, 0) - self.calls <= RECHECK_EVERY:
                return True
        return False

    def _duel_due(self) -> bool:
        """Whether a duel starts now (``prior``): the runs alone choose one BLAS thread, it has
        not won a duel since, a threaded mode was measured, the trials are over and no check is
        under way."""
        if not self.prior or self.duels.under_way() or self.calls < self.duels.next_at:
            return False
        if self.checking is not None or "serial" not in self.runs or any(self._on_trial(m) for m in self.modes):
            return False
        if not any(self.runs.get(m) for m in self.modes if m != "serial"):
            return False
        return self.duels.contest if self.duels.one_thread_chosen() else self.measured_best() == "serial"

    def _start_duel(self) -> None:
        """One BLAS thread against the fastest threaded mode (``Duels.start``)."""
        self.duels.start(min((m for m in self.modes if m != "serial" and self.runs.get(m)), key=self.seconds))

    def _duel_mode(self) -> str:
        """The duel's next run: its next mode, but while OpenBLAS's workers still spin after a
        run on the library's threads (``spin``; a run of one BLAS thread or the rows then does not
        count) the chosen threaded mode where that is the rows (the faster wait, uncounted too)."""
        mode = self.duels.next_mode()
        if mode != "library" and self.spin > 0 and self.last_end - self.library_end < self.spin:
            best = self.best()
            return best if best != "library" else mode
        return mode

    def _end_duel(self) -> None:
        """Judge a duel by the two modes' minima (``Duels.judge``): one BLAS thread is chosen where
        it beat the challenger by ``PRIOR_MARGIN``; else the challenger, and the next duel waits
        (``DUEL_AGAIN``, doubled per duel lost in a row).  The duel's runs replace each mode's
        latest runs: taken in turn, they are the fairer comparison."""
        challenger, mine, theirs, won = self.duels.judge()
        for mode, runs in self.duels.runs.items():
            self.runs[mode] = list(runs)
        if won:
            # (what later runs are held against: the duel's median, as ``seconds`` judges them)
            self.duels.one_thread_won(self.seconds("serial"))
            self.leader = "serial"
            self._price_check(challenger)
        else:
            self.duels.one_thread_lost()
            self.leader = challenger
        self.duels.schedule_next(self.calls, mine, theirs)

    def _on_trial(self, mode: str) -> bool:
        runs = self.runs.get(mode, [])
        others = [min(t) for m, t in self.runs.items() if m != mode and t]
        # (the library's threads: judged from their second run on, the first having woken them)
        judged = len(runs) >= (BLAS_CHECK_RUNS if mode == "library" else 1)
        slow = judged and others and min(runs) > 2 * min(others)
        return len(runs) < WINDOW and not slow


def library_calls(kernel, keys: frozenset[tuple], ran: int, sizes: tuple | None = None,
                  workers: int | None = None) -> int:
    """For the products at ``keys`` ((phase, trip count): ``Launch.library_keys``): count
    ``ran`` calls that a native entry ran with them on the library's threads, and return how many
    calls it may run so before the runtime measures again (0 while any of them has another
    mode fastest, a mode on trial or due for a check, or is not measured yet).  With one mode
    per call (``run_call``; ``sizes``: the call's integer arguments) the calls' measurement
    decides, once every product was measured.  ``workers``: the thread count the calls ran (or
    will run) at, the measurements' key (None: the current one)."""
    workers = threads.get_num_threads() if workers is None else workers
    allowed = MAX_ENTRY_CALLS
    if sizes is not None and blas_call_mode():
        call = kernel.phase_times.get(("blas call", workers, sizes))
        if not isinstance(call, BlasTimes) or not all(
                isinstance(kernel.phase_times.get(("blas", index, min(workers, count), count)), BlasTimes)
                for index, count in keys):
            return 0
        call.entry_ran(ran)
        return call.library_calls()
    for index, count in keys:
        times = kernel.phase_times.get(("blas", index, min(workers, count), count))
        if not isinstance(times, BlasTimes):
            return 0
        times.entry_ran(ran)
        allowed = min(allowed, times.library_calls())
    return allowed


#: The calls a native entry runs with the library's threads between two of the runtime's own
#: (a product forced to them, or measured too small for threads: nothing is measured there).
MAX_ENTRY_CALLS = 1 << 20


def blas_record(key: tuple, times: BlasTimes, latest: str | None) -> dict[str, Any]:
    """explain()'s record of one product's ``BlasTimes`` (``key``: ("blas", phase, threads, rows)),
    or of whole calls' (("blas call", threads, sizes): ``run_call``)."""
    if key[0] == "blas call":
        record = blas_record(("blas", "call", key[1], 0), times, times.latest)
        del record["phase"], record["rows"]
        record["how"] = "one mode for every product of the call, whole calls timed: " + record["how"]
        return {"call": "every product", "threads": key[1], "sizes": key[2], **record}
    _, phase, workers, count = key
    best = {mode: round(min(runs) * 1e3, 4) for mode, runs in times.runs.items() if runs}
    if times.forced != "measure":
        how = f"POLYFUSE_BLAS_THREADS={times.forced}"
    elif not times.worth_threads:
        how = (f"one BLAS thread measured under {MIN_PARALLEL_SECONDS * 1e3:g} ms: the library's "
               "threads, unmeasured")
    elif times.robust:
        how = ("the fastest mode by the median of its latest runs, kept until another beats it by the "
               "switch margin (twice the larger of the two modes' spreads, median over best, within 2-25%); "
               "the others re-run after "
               f"as many calls as keep their extra time within {EXPLORE:.0%} of the calls', twice as many "
               f"after each check in a row they lost by over {BLAS_CLEAR_LOSS:.0%}")
    else:
        how = ("the fastest mode's best of its latest runs; the others re-run after as many calls as keep "
               f"their extra time within {EXPLORE:.0%} of the calls'")
    if times.forced == "measure" and times.worth_threads:
        if times.spin:
            how += (f"; runs of the rows or one BLAS thread within {times.spin * 1e3:g} ms of one on the "
                    "library's threads not counted (its workers spin)")
    measured = bool(best) and times.forced == "measure" and times.worth_threads
    why: dict[str, Any] = {}
    if measured and times.robust:
        # why the choice is what it is: each mode's median, the margin a challenger must beat,
        # the calls until each other mode's next check, and the clear losses in a row behind them
        chosen = times.best()
        why["median ms"] = {mode: round(times.seconds(mode) * 1e3, 4) for mode, runs in times.runs.items() if runs}
        others = [mode for mode in why["median ms"] if mode != chosen]
        if others:
            challenger = min(others, key=times.seconds)
            why["margin"] = f"{times.switch_margin(challenger, chosen):.1%} ({challenger} against {chosen})"
        why["next check in calls"] = {mode: max(0, times.next_check.get(mode, 0) - times.calls) for mode in others}
        if any(times.lost.values()):
            why["clear losses in a row"] = {mode: n for mode, n in times.lost.items() if n}
    if measured and times.prior:
        why["prior"] = _prior_text(times)
    return {"phase": phase, "threads": workers, "rows": count, "best ms": best,
            "chosen": times.best() if measured else latest, "latest": latest, "how": how, **why,
            **({"uncounted": times.uncounted} if times.uncounted else {}),
            **({"runs": dict(times.tally)} if times.tally else {})}


def _prior_text(times: BlasTimes) -> str:
    """explain()'s account of the prior (``BlasTimes.prior``): the cost model's expectation, and
    where one BLAS thread stands against it."""
    text = (f"cost model: the first run on one thread took {PRIOR_MIN_SECONDS * 1e3:g} ms or more and "
            "threads are there, so the threaded modes should win; one BLAS thread is chosen only after "
            f"it beats the fastest of them by {PRIOR_MARGIN:.0%} in a duel (minima of "
            f"{DUEL_ROUNDS * BLAS_CHECK_RUNS} runs each, taken in turn)")
    duels = times.duels
    if duels.under_way():
        state = f"a duel under way ({len(duels.pending)} runs to go)"
    elif duels.contest:
        state = ("one BLAS thread chosen by a duel, its later runs asking for another (due in "
                 f"{duels.calls_to_next(times.calls)} calls)")
    elif duels.one_thread_chosen():
        state = "one BLAS thread chosen by a duel"
    elif times.measured_best() == "serial":
        state = (f"the runs alone would choose one BLAS thread; the next duel in "
                 f"{duels.calls_to_next(times.calls)} calls")
    else:
        state = "the runs choose a threaded mode"
    reopened = (f"; one BLAS thread's choice put to a duel again {duels.reopened} time(s), its runs "
                f"{REOPEN_MARGIN:.0%} faster or slower than in the duel before" if duels.reopened else "")
    return f"{text}. {state}" + (f"; latest duel: {duels.verdict}" if duels.verdict else "") + reopened


def team_record(key: tuple, times: RegionTimes) -> dict[str, Any]:
    """explain()'s record of one ``RegionTimes``: a parallel phase's (key (phase, threads, trip
    count)), a chain's (("chain", first phase, threads, trip count)) or a region's ("region",
    phase, threads, *sizes): the best of each mode's latest runs and which one the next call
    would take (the team on its trial runs; a check due makes it the other one)."""
    kind, rest = (key[0], key[1:]) if isinstance(key[0], str) else ("phase", key)
    best = {mode: round(min(runs) * 1e3, 4) for mode, runs in (("serial", times.serial), ("team", times.team))
            if runs}
    calls: int | str = times.calls
    if not times.worth_threads:
        chosen, how = "serial", (f"its first serial run took under {MIN_PARALLEL_SECONDS * 1e3:g} ms "
                                 "(or a later one did): serial at these sizes")
        # later calls at these sizes run the serial function untimed (``serial_sizes``, and the
        # native entries never come back to Python): the time shown is that first run's, which
        # paid for cold caches and page faults, not the steady cost
        if not times.team:
            best = {"serial (first run, cold)": best["serial"]}
        calls = "not counted: serial untimed at these sizes"
    elif not times.team or times._on_trial():
        chosen, how = "team", f"on trial: the team's first {WINDOW} runs"
    else:
        chosen = "team" if min(times.team) < min(times.serial) else "serial"
        how = (f"the faster mode's best of its latest {WINDOW} runs; the other one again after call "
               f"{times.next_check}")
    return {kind: rest[0], "threads": rest[1], "sizes": list(rest[2:]), "calls": calls,
            "best ms": best, "chosen": chosen, "how": how}


def run_region(kernel, compiled, args: list, sizes: tuple | None = None) -> None:
    """Run a parallel region serially or on the team, as measured at these sizes (``sizes``:
    the integer arguments, when the caller knows them)."""
    if sizes is None:
        sizes = tuple(args[k] for k in kernel.int_positions)  # sizes decide the work
    index = compiled.phase.index
    if (index, sizes) in kernel.serial_sizes:
        compiled.function(*args)
        return
    workers = threads.get_num_threads()
    if workers <= 1:
        compiled.function(*args)  # one thread: exactly the serial phase
        return
    key = (index, workers, *sizes)
    times = kernel.region_times.get(key)
    if times is None:
        _remember(kernel, kernel.region_times, key, (index, sizes), _measure(compiled, args))
        return
    if _timed(times, lambda: _run_team(compiled, args, workers), lambda: compiled.function(*args), compiled,
              demoted=lambda: kernel.serial_sizes.add((index, sizes))):
        kernel.region_runs[index] = kernel.region_runs.get(index, 0) + 1


def _measure(compiled, args: list) -> RegionTimes:
    """Run the region on one thread (the serial schedule), counting its barriers and the
    parallel loops it met."""
    state = np.zeros(BARRIER_WORDS, dtype=np.int64)
    region = compiled.region  # (generated on first use: not timed)
    began = time.perf_counter()
    region(*args, 0, 1, state.ctypes.data)
    seconds = time.perf_counter() - began
    barriers = int(state[BARRIER_GENERATION])
    worth = (barriers > 0 and state[PARALLEL_LOOPS] > 0 and seconds >= MIN_PARALLEL_SECONDS
             and seconds / barriers >= REGION_MIN_SECONDS_PER_BARRIER)
    return RegionTimes(worth, [seconds])


def _run_team(compiled, args: list, workers: int) -> None:
    state = np.zeros(BARRIER_WORDS, dtype=np.int64)
    address, region = state.ctypes.data, compiled.region

    def work(k: int) -> None:
        region(*args, k, workers, address)

    def abort() -> None:
        state[BARRIER_ABORT] = 1  # members waiting at a barrier return from the region

    threads.run_team(work, workers, abort)
