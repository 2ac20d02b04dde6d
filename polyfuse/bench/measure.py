"""Measuring: best-of-N timing on fresh inputs, output checks, and one suite kernel's row.

:func:`best_time` is the one timer every section uses; :func:`compare` and :func:`close_enough`
are the checks; :func:`bench_kernel` compiles, checks and times one suite kernel with polyfuse,
numba and (where it has one) its numpy formulation.  A failure ends up in the row
(:func:`_record_failure`), never raised.
"""

from __future__ import annotations

import gc
import inspect
import math
import os
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from polyfuse.bench.machine import _blas_limit, blas_plans, polyfuse_on
from polyfuse.bench.records import RTOL, BenchRow, BenchSettings
from polyfuse.runtime.native import NATIVE_AFTER

if TYPE_CHECKING:
    from polyfuse.bench.suite import SuiteKernel
    from polyfuse.model.loop_ast import Node
    from polyfuse.runtime.variant import CompiledVariant


def fresh(args: tuple) -> tuple:
    """A copy of the inputs that a run may mutate (arrays copied, scalars shared)."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


#: :func:`settle` watches the process's other threads over sleeps this long ...
SETTLE_STEP = 0.002
#: ... until together they were runnable (on a core, or waiting for one) less than this fraction of
#: the time in this many steps in a row ...
SETTLE_BUSY = 0.2
SETTLE_QUIET = 2
#: ... or this many seconds went by (OpenBLAS spins about 0.1 s after a multi-threaded call).
SETTLE_MAX = 0.5
#: Untimed polyfuse calls before each series of timed ones (at most ``WARM_MAX_SECONDS`` of them):
#: what the runtime does once per argument layout happens in them, as in a program that repeats
#: the call -- a parallel phase's first runs on the team (``parallel.RegionTimes``: the team or the
#: serial function is then chosen by measurement) and the plan's native entry, made on its
#: ``native.NATIVE_AFTER``-th call (``polyfuse.runtime.native``).  Without them, a series of 3
#: runs (``--repeats 3 --min-time 0``) timed the Python call path and the team's trial runs on
#: several threads, and the native entry on one thread, which the first series had made: at
#: PolyBench LARGE, gesummv's two BLAS calls measured 0.824 ms on 2 threads and 0.699 on 1 (the
#: entry alone: 0.641 ms against 0.735 by the Python path, min of 150 interleaved, load 6-8).
WARM_CALLS = NATIVE_AFTER
WARM_MAX_SECONDS = 1.0
#: Rounds in which every contender of a NumPy comparison is timed in turn (the best of all rounds
#: counts), so that a change of load on a shared machine, or of a thread pool's state, hits all of
#: them alike: the numpy section's contenders (``numpy_rows``), and a suite kernel's numpy
#: formulation and polyfuse (:func:`_bench_numpy`).
NUMPY_ROUNDS = 3


def settle() -> float:
    """Wait until no other thread of this process wants a core any more (at most ``SETTLE_MAX``
    seconds), and return the seconds waited.

    Thread pools of the other contenders spin-wait for more work after a call instead of sleeping
    at once: multi-threaded OpenBLAS holds a core for about 0.1 s after each call, numba's
    OpenMP layer for several ms, XLA's pool for up to about a millisecond
    (``python benchmarks/team_choice.py spinners``).  The next contender timed in this process
    would share a core with them, and polyfuse, whose team of threads then runs no faster than
    one thread, judges its team by those runs (backends/cpu/parallel.py).

    What counts is whether the other threads are runnable (:func:`other_threads`: the time they
    were on a core or waiting for one, and whether one is so at the end of a step), not the CPU
    time they got: OpenBLAS's worker spins with ``sched_yield``, so on a machine where other
    jobs hold the cores it gets a small share of one while it is still spinning, and the
    process's CPU time (the measure until session 27) fell under the bar within one step
    (``benchmarks/bench_neighbours.py``: after NumPy's 2-thread attention, ``settle`` returned
    after 2-4 ms with the worker runnable all along, and polyfuse's team then ran beside it).
    Quiet means ``SETTLE_QUIET`` steps in a row (a Python thread can wait for the GIL, asleep,
    for a step while the caller holds it; a virtual core can be held by the host).  Nothing
    else on the machine counts: only this process's threads are watched."""
    began, quiet = time.perf_counter(), 0
    busy, _ = other_threads()
    while True:
        wall = time.perf_counter()
        time.sleep(SETTLE_STEP)
        now, awake = other_threads()
        share = (now - busy) / (time.perf_counter() - wall)
        busy = now
        quiet = quiet + 1 if share < SETTLE_BUSY and not awake else 0
        if quiet >= SETTLE_QUIET or time.perf_counter() - began > SETTLE_MAX:
            return time.perf_counter() - began


def other_threads() -> tuple[float, bool]:
    """The seconds the process's threads other than the caller have been runnable, on a core or
    waiting for one (Linux's per-thread ``schedstat``: a thread that spins, yielding or not,
    counts whatever else runs on the machine), and whether one of them is runnable now (its
    state "R").  Where those cannot be read: the process's CPU time (the caller's included: it
    sleeps while :func:`settle` watches), and False."""
    me = str(threading.get_native_id())
    try:
        tids = os.listdir("/proc/self/task")
        os.stat(f"/proc/self/task/{me}/schedstat")
    except OSError:
        return time.process_time(), False
    total, awake = 0, False
    for tid in tids:
        if tid == me:
            continue
        try:
            with open(f"/proc/self/task/{tid}/schedstat", "rb") as f:
                on_core, waiting = f.read().split()[:2]
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except (OSError, ValueError):  # (a thread that ended meanwhile)
            continue
        total += int(on_core) + int(waiting)
        awake = awake or stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3] == b"R"
    return total * 1e-9, awake


def warm_up(fn: Callable[..., Any], args: tuple, calls: int = WARM_CALLS,
            max_seconds: float = WARM_MAX_SECONDS, trials: Callable[[], bool] | None = None) -> int:
    """Call ``fn(*fresh(args))`` ``calls`` times, untimed (see ``WARM_CALLS``), and on while
    ``trials()`` says the kernel's runtime still tries its BLAS modes in turn (the LLVM backend's
    ``in_trials``: 3mm at LARGE ran its trials until the 9th call, so ``--repeats 3 --min-time 0``
    timed one run on the rows and the library's first two, never the mode chosen), but no call that
    would end past ``max_seconds`` as long as the one before it took (a kernel of a second or
    more gains nothing measurable from what the calls set up: the first one alone runs); return
    how many ran."""
    began, ran, last = time.perf_counter(), 0, 0.0
    while ((ran < calls or (trials is not None and trials()))
           and time.perf_counter() - began + last < max_seconds):
        call_args = fresh(args)
        start = time.perf_counter()
        fn(*call_args)
        last = time.perf_counter() - start
        ran += 1
    return ran


def best_time(fn: Callable[..., Any], args: tuple, repeats: int, min_time: float,
              max_runs: int = 1000, copy: bool = True, last: list | None = None) -> tuple[float, int]:
    """Minimum seconds of ``fn(*fresh(args))`` over ≥ ``repeats`` runs (copies made untimed),
    once the process's threads are idle (:func:`settle`).

    ``copy=False`` passes ``args`` as they are (functions that do not write their inputs).
    ``last``, when given, receives the arguments and the result of the last timed call, so that
    the code that was timed (threads on, caches warm) is the code that is checked."""
    settle()
    best, total, runs = math.inf, 0.0, 0
    call_args: tuple = args
    result: Any = None
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        while runs < repeats or (total < min_time and runs < max_runs):
            call_args = fresh(args) if copy else args
            start = time.perf_counter()
            result = fn(*call_args)
            elapsed = time.perf_counter() - start
            best, total, runs = min(best, elapsed), total + elapsed, runs + 1
    finally:
        if gc_was_enabled:
            gc.enable()
    if last is not None:
        last[:] = [call_args, result]
    return best, runs


def output_positions(func: Callable, outputs: Sequence[str]) -> dict[str, int]:
    params = list(inspect.signature(func).parameters)
    return {name: params.index(name) for name in outputs}


def compare(ours: tuple, reference: tuple,
            positions: dict[str, int]) -> tuple[bool, dict[str, float | None]]:
    """Do the output arrays agree (np.allclose, rtol 1e-7)?  Also the largest difference per array."""
    ok = True
    diffs: dict[str, float | None] = {}
    for name, pos in positions.items():
        a, b = np.asarray(ours[pos]), np.asarray(reference[pos])
        if a.shape != b.shape:
            ok, diffs[name] = False, None
            continue
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        finite = diff[np.isfinite(diff)]
        diffs[name] = float(finite.max()) if finite.size else 0.0
        if not np.allclose(a, b, rtol=RTOL, equal_nan=True):
            ok = False
    return ok, diffs


def _loop_nests(variant: CompiledVariant) -> str:
    """Top-level loop nests of the kernel body, then outermost loops of the generated code."""
    from polyfuse.model.loop_ast import Block, For, If

    def outermost(node: Node) -> int:
        if isinstance(node, For):
            return 1
        if isinstance(node, Block):
            return sum(outermost(child) for child in node.children)
        if isinstance(node, If):
            return outermost(node.then) + (outermost(node.otherwise) if node.otherwise is not None else 0)
        return 0

    before = len({s.nest for s in variant.scop.statements})
    return f"{before}->{outermost(variant.program.root)}"


def bench_kernel(spec: SuiteKernel, settings: BenchSettings) -> BenchRow:
    """Compile, check and time one suite kernel; errors end up in the row, never raised."""
    import numba

    from polyfuse.kernel import kernel as polyfuse_kernel
    from polyfuse.runtime import threads

    sizes = dict(spec.sizes[settings.preset])
    row = BenchRow(spec.name, spec.category, settings.preset, sizes)
    stage = "making inputs"
    try:
        inputs = spec.make_args(np.random.default_rng(settings.seed), **sizes)
        row.array_bytes = sum(a.nbytes for a in inputs if isinstance(a, np.ndarray))
        positions = output_positions(spec.func, spec.outputs)

        stage = "polyfuse compile"
        kernel = polyfuse_kernel(spec.func, target=settings.target)
        args = fresh(inputs)
        start = time.perf_counter()
        variant = kernel.compile(*args)
        row.compile_ms = (time.perf_counter() - start) * 1e3
        if variant.stages is not None:  # a variant loaded from the disk cache was not staged here
            row.stage_ms = {k: round(v * 1e3, 3) for k, v in variant.stages.seconds.items()}
        try:
            row.loop_nests = _loop_nests(variant)
        except Exception:  # noqa: BLE001 - informational only
            row.loop_nests = "?"
        memory = kernel.local_memory(*args)
        row.local_bytes, row.declared_local_bytes = memory["allocated"], memory["declared"]

        stage = "polyfuse run"
        ours = fresh(inputs)
        settle()  # this first call is polyfuse's serial measurement
        start = time.perf_counter()
        kernel(*ours)
        row.first_call_ms = (time.perf_counter() - start) * 1e3

        stage = "numba compile"
        reference_fn = numba.njit(spec.func)
        reference_fn(*fresh(inputs))  # warm-up: compiles, not timed
        stage = "numba run"
        reference = fresh(inputs)
        reference_fn(*reference)

        stage = "check"
        ok, row.max_abs_diff = compare(ours, reference, positions)
        row.check = "ok" if ok else "MISMATCH"

        stage = "timing polyfuse"
        trials = getattr(getattr(variant, "backend", None), "in_trials", None)
        warm_up(kernel, inputs, trials=trials)
        timed: list = []
        before = blas_tallies(variant)
        best, row.polyfuse_runs = best_time(kernel, inputs, settings.repeats, settings.min_time, last=timed)
        row.blas_modes = tallies_since(before, blas_tallies(variant))
        row.polyfuse_ms = best * 1e3
        stage = "check of the last timed call"
        # the first call ran before threads were tried; the timed ones run on them
        _check_timed(row, timed[0], reference, positions, "the last timed call")
        stage = "timing numba"
        best, row.numba_runs = best_time(reference_fn, inputs, settings.repeats, settings.min_time)
        row.numba_ms = best * 1e3
        if row.polyfuse_ms > 0:
            row.speedup = row.numba_ms / row.polyfuse_ms
        if threads.get_num_threads() > 1:
            stage = "timing polyfuse on one thread"
            with polyfuse_on(1):
                warm_up(kernel, inputs, trials=trials)
                before = blas_tallies(variant)
                best, _ = best_time(kernel, inputs, settings.repeats, settings.min_time, last=timed)
                row.blas_modes_1t = tallies_since(before, blas_tallies(variant))
            row.polyfuse_1t_ms = best * 1e3
            stage = "check of the last one-thread call"
            _check_timed(row, timed[0], reference, positions, "the last one-thread timed call")
            if row.polyfuse_1t_ms > 0:
                row.speedup_1t = row.numba_ms / row.polyfuse_1t_ms
        # LLVM optimises and generates each function when a call first runs it: that work is
        # compile time too (every function the timed calls ran, team and serial versions alike)
        row.lazy_build_ms = getattr(getattr(variant, "backend", None), "build_seconds", 0.0) * 1e3
        row.compile_ms += row.lazy_build_ms
    except Exception as exc:  # noqa: BLE001 - one kernel's failure must not stop the suite
        _record_failure(row, stage, exc)
        return row
    _bench_numba_parallel(spec, row, inputs, reference, positions, settings)
    if spec.numpy_func is not None:
        _bench_numpy(spec, row, inputs, reference, positions, settings, PolyfuseSeries(kernel, variant, inputs))
    return row


def blas_tallies(variant: Any) -> dict[str, dict[str, int]]:
    """For each BLAS-mode site of a compiled kernel (backends/cpu/parallel.py ``BlasTimes``: a
    product whose library's threads are a candidate, per thread count and trip count, or the one
    mode of a call's products), how many of its runs so far each mode ran; {} for other backends."""
    phase_times = getattr(getattr(variant, "backend", None), "phase_times", None) or {}
    return {" ".join(str(part) for part in key): dict(times.tally) for key, times in phase_times.items()
            if isinstance(key, tuple) and key and key[0] in ("blas", "blas call") and hasattr(times, "tally")}


def tallies_since(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The runs of each site and mode in ``after`` not yet in ``before`` (sites that ran none left out)."""
    since = {site: {mode: runs - before.get(site, {}).get(mode, 0) for mode, runs in modes.items()}
             for site, modes in after.items()}
    return {site: {mode: runs for mode, runs in modes.items() if runs} for site, modes in since.items()
            if any(modes.values())}


def _check_timed(row: BenchRow, outputs: tuple, reference: tuple, positions: dict[str, int], which: str) -> None:
    """A timed call's outputs against numba's: a disagreement makes the row a MISMATCH (the first
    one found names the row's error)."""
    ok, diffs = compare(outputs, reference, positions)
    if not ok and row.check != "MISMATCH":
        row.check, row.max_abs_diff = "MISMATCH", diffs
        row.error = f"{which} disagrees with numba (the first call agreed)"


def _bench_numba_parallel(spec: SuiteKernel, row: BenchRow, inputs: tuple, reference: tuple,
                          positions: dict[str, int], settings: BenchSettings) -> None:
    """numba.njit(parallel=True) with prange where polyfuse proves a loop independent: checked
    against serial numba's outputs and timed (into ``row``); nothing when no loop qualifies."""
    from polyfuse.bench.numba_parallel import numba_parallel

    stage = "choosing prange loops"
    try:
        found = numba_parallel(spec.func, fresh(inputs))
        if found is None:
            return
        fn, row.numba_par_loops = found
        stage = "numba parallel compile"
        fn(*fresh(inputs))
        stage = "numba parallel check"
        timed: list = []
        best, _ = best_time(fn, inputs, settings.repeats, settings.min_time, last=timed)
        ok, _ = compare(timed[0], reference, positions)
        row.numba_par_check = "ok" if ok else "MISMATCH"
        row.numba_par_ms = best * 1e3
        if row.polyfuse_ms:
            row.speedup_par = row.numba_par_ms / row.polyfuse_ms
    except Exception as exc:  # noqa: BLE001 - reported in the row
        row.numba_par_check = "ERROR"
        row.numba_par_error = f"{stage}: {type(exc).__name__}: {exc}".strip()


class PolyfuseSeries:
    """polyfuse's timed series again, as the first one was timed (``best_time`` on polyfuse's
    threads, the BLAS modes of its calls counted), for :func:`_bench_numpy`'s rounds."""

    def __init__(self, kernel: Callable[..., Any], variant: Any, inputs: tuple) -> None:
        self.kernel, self.variant, self.inputs = kernel, variant, inputs
        self.last: list = []

    def __call__(self, row: BenchRow, settings: BenchSettings) -> float:
        """Seconds of the series' best run; its calls' BLAS modes join ``row.blas_modes``."""
        before = blas_tallies(self.variant)
        best, _ = best_time(self.kernel, self.inputs, settings.repeats, settings.min_time, last=self.last)
        for site, modes in tallies_since(before, blas_tallies(self.variant)).items():
            kept = row.blas_modes.setdefault(site, {})
            for mode, runs in modes.items():
                kept[mode] = kept.get(mode, 0) + runs
        return best


def _bench_numpy(spec: SuiteKernel, row: BenchRow, inputs: tuple, reference: tuple,
                 positions: dict[str, int], settings: BenchSettings,
                 polyfuse_series: Callable[[BenchRow, BenchSettings], float] | None = None) -> None:
    """Check the kernel's numpy formulation against numba's outputs and time it (into ``row``):
    ``NUMPY_ROUNDS`` rounds, each a series of the numpy formulation on each BLAS plan
    (``blas_plans``) and one of polyfuse (``polyfuse_series``), in turn (polyfuse first in odd
    rounds); numpy_ratio compares the two sides' best runs over their series.  Why in turn: a
    side timed in one stretch of ~50 ms (``min_time``) took the best of that stretch only, and the
    ratio then rested on which side a passing load, or a state of OpenBLAS's pool, met (session 34's
    quiet bench: 3mm's polyfuse series 6.80 ms on two threads, its one-thread time 7.10, NumPy's
    4.16; the same commit 20 minutes earlier 3.82 against 4.21, docs/performance.md, session 35)."""
    from polyfuse.bench.suite import numpy_outputs

    numpy_func = spec.numpy_func
    assert numpy_func is not None, "bench_kernel times numpy only where the kernel has a formulation"
    stage = "numpy run"
    try:
        theirs = numpy_outputs(spec, fresh(inputs))
        stage = "numpy check"
        ok = True
        for name, pos in positions.items():
            agree, row.numpy_max_abs_diff[name] = close_enough(theirs[name], reference[pos])
            ok = ok and agree
        row.numpy_check = "ok" if ok else "MISMATCH"
        ours = math.inf
        for turn in range(NUMPY_ROUNDS):
            if polyfuse_series is not None and turn % 2 == 1:
                stage = "timing polyfuse in turn with numpy"
                ours = min(ours, polyfuse_series(row, settings))
            stage = "timing numpy"
            for label, limit in blas_plans(settings):
                with _blas_limit(limit):
                    best, runs = best_time(numpy_func, inputs, settings.repeats, settings.min_time)
                row.numpy_ms_by_blas[label] = min(row.numpy_ms_by_blas.get(label, math.inf), best * 1e3)
                row.numpy_runs += runs
            if polyfuse_series is not None and turn % 2 == 0:
                stage = "timing polyfuse in turn with numpy"
                ours = min(ours, polyfuse_series(row, settings))
        row.numpy_ms = min(row.numpy_ms_by_blas.values())
        row.polyfuse_numpy_ms = ours * 1e3 if polyfuse_series is not None else row.polyfuse_ms
        if row.polyfuse_numpy_ms:
            row.numpy_ratio = row.numpy_ms / row.polyfuse_numpy_ms
    except Exception as exc:  # noqa: BLE001 - reported in the row
        if row.numpy_check != "MISMATCH":
            row.numpy_check = "ERROR"
        row.numpy_error = f"{stage}: {type(exc).__name__}: {exc}".strip()
    if isinstance(polyfuse_series, PolyfuseSeries) and polyfuse_series.last:
        _check_timed(row, polyfuse_series.last[0], reference, positions, "the last timed call of the series in turn with numpy")


def close_enough(ours: Any, reference: Any) -> tuple[bool, float | None]:
    """``|ours - reference| <= RTOL * (|reference| + max |reference|)`` everywhere (NaNs equal)?

    The extra ``max |reference|`` term allows for sums whose order differs (BLAS, pairwise sums);
    also the largest absolute difference (None when the shapes differ)."""
    a, b = np.asarray(ours, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    if a.shape != b.shape:
        return False, None
    diff = np.abs(a - b)
    finite = diff[np.isfinite(diff)]
    scale = float(np.abs(b[np.isfinite(b)]).max()) if np.isfinite(b).any() else 0.0
    ok = bool(np.allclose(a, b, rtol=RTOL, atol=RTOL * scale, equal_nan=True))
    return ok, float(finite.max()) if finite.size else 0.0


def assert_close_outputs(args: Any, positions: dict[str, int], expected: dict[str, Any],
                         user: Any = None, where: tuple = ()) -> None:
    """Each output of a polyfuse call (in ``args`` after it; ``positions``: output -> argument
    position, ``output_positions``) close to NumPy's (``expected``) and, given ``user`` (the
    arguments after a call of the user's function), to the user's function's (``close_enough``);
    the AssertionError names ``where``, the output and the largest difference."""
    for out, k in positions.items():
        ok, diff = close_enough(args[k], expected[out])
        assert ok, (*where, out, diff, "NumPy's")
        if user is not None:
            ok, diff = close_enough(args[k], user[k])
            assert ok, (*where, out, diff, "the user's function's")


def _record_failure(row: Any, stage: str, exc: Exception) -> None:
    """A row that failed in ``stage``: ERROR (a MISMATCH found earlier stays), and the reason;
    POLYFUSE_DEBUG=1 also prints the traceback."""
    if row.check != "MISMATCH":
        row.check = "ERROR"
    row.error = f"{stage}: {type(exc).__name__}: {exc}".strip()
    from polyfuse.options import debug_errors

    if debug_errors():
        traceback.print_exc()
