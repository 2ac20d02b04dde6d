"""The numpy section: each program of polyfuse.bench.numpy_suite as written, compiled, and jitted.

:func:`bench_numpy_row` runs one program: polyfuse's compilation (timed), one run of NumPy,
polyfuse and (where it applies) ``jax.jit`` on copies of the same inputs, the check of every
result and every array argument against NumPy's, and interleaved timing rounds of the three on
each BLAS thread count (the faster counts, as in the other sections).  polyfuse is timed on its
threads and, when it has more than one, on one thread as NumPy's ufuncs run; the last timed
call of each is checked again (the first call runs serially, before polyfuse tries threads).  A
program the frontend refuses with ``UnsupportedError`` is "pending" when it is on numpy_suite's
PENDING list and an ERROR otherwise.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from polyfuse.bench.machine import _blas_limit, blas_plans, polyfuse_on
from polyfuse.bench.measure import NUMPY_ROUNDS, _record_failure, best_time, close_enough, fresh, settle
from polyfuse.bench.numpy_suite import NumpyProgram, jax_blocker, with_numpy_namespace
from polyfuse.bench.records import NUMPY_OTHERS, BenchSettings, NumpyRow


def load_jax() -> ModuleType | None:
    """``jax`` with float64 enabled (the programs compute in float64), or None when not installed."""
    try:
        import jax
        import jax.numpy  # noqa: F401 - the namespace the programs run on
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def results(returned: Any, args: tuple) -> list[Any]:
    """What a call produced: each returned value (a tuple's items in order), then every array
    argument as the call left it (in-place programs return nothing)."""
    values = list(returned) if isinstance(returned, tuple) else ([] if returned is None else [returned])
    return values + [a for a in args if isinstance(a, np.ndarray)]


def compare(ours: list[Any], reference: list[Any]) -> tuple[bool, float | None]:
    """Every value within :func:`close_enough` of NumPy's, and the largest difference (None when
    a shape or the number of values differs)."""
    if len(ours) != len(reference):
        return False, None
    ok = True
    worst: float | None = 0.0
    for a, b in zip(ours, reference):
        agree, diff = close_enough(a, b)
        ok = ok and agree
        worst = None if diff is None or worst is None else max(worst, diff)
    return ok, worst


def _jax_contender(program: NumpyProgram, args: tuple, jax: ModuleType,
                   row: NumpyRow, returned: Any) -> tuple[Callable[..., Any], tuple] | None:
    """``jax.jit`` of the program with ``np`` bound to ``jax.numpy``, checked against what NumPy
    returned (the program writes nothing in place, or JAX does not apply); None (and the row
    says why) when JAX does not apply or failed."""
    blocker = jax_blocker(program.func)
    if blocker:
        row.jax, row.jax_note = "n/a", f"{blocker}; JAX arrays are immutable"
        return None
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))  # sizes, time steps
    jitted = jax.jit(with_numpy_namespace(program.func, jax.numpy), static_argnums=static)

    def run(*call_args: Any) -> Any:
        return jax.block_until_ready(jitted(*call_args))

    jax_args = tuple(jax.device_put(a) if isinstance(a, np.ndarray) else a for a in args)
    stage = "jax first call"
    try:
        start = time.perf_counter()
        jax_returned = run(*jax_args)
        row.jax_first_call_ms = (time.perf_counter() - start) * 1e3
        stage = "jax check"
        theirs = [np.asarray(v) for v in results(jax_returned, ())]
        ok, row.max_abs_diff["jax"] = compare(theirs, results(returned, ()))
        row.jax = "ok" if ok else "MISMATCH"
    except Exception as exc:  # noqa: BLE001 - reported in the row
        row.jax, row.jax_note = "ERROR", f"{stage}: {type(exc).__name__}: {exc}".strip()
        return None
    return (run, jax_args) if row.jax == "ok" else None


@dataclass(frozen=True)
class Contender:
    """One way to run a program, as the timer calls it."""

    fn: Callable[..., Any]
    args: tuple
    copy: bool  # every run on fresh copies (the program writes its inputs)
    threads: int | None = None  # polyfuse's thread count while timed (None: as set)


def _time_contenders(contenders: dict[str, Contender], settings: BenchSettings, row: NumpyRow,
                     last: dict[str, list]) -> dict[str, float]:
    """Best ms of each contender over interleaved rounds, on each BLAS thread count (the faster
    counts); ``last`` receives each polyfuse contender's last timed call (arguments, result)."""
    plans = blas_plans(settings)
    for _ in range(NUMPY_ROUNDS):
        for label, c in contenders.items():
            by_blas = row.ms_by_blas.setdefault(label, {})
            for plan, limit in plans:
                with _blas_limit(limit), polyfuse_on(c.threads):
                    best, runs = best_time(c.fn, c.args, settings.repeats, settings.min_time, copy=c.copy,
                                           last=last.setdefault(label, []) if label in POLYFUSE else None)
                by_blas[plan] = min(by_blas.get(plan, math.inf), best * 1e3)
                row.runs_timed[label] = row.runs_timed.get(label, 0) + runs
    return {label: min(by_blas.values()) for label, by_blas in row.ms_by_blas.items()}


#: The polyfuse contenders: on its threads, and on one thread (only when it has more than one).
POLYFUSE = ("polyfuse", "polyfuse_1t")


def _check_timed_calls(last: dict[str, list], reference: list[Any], row: NumpyRow) -> None:
    """MISMATCH when a polyfuse contender's last timed call disagrees with NumPy: the code that
    was timed (threads on, plans cached) is the code that is checked."""
    for label, (call_args, returned) in last.items():
        ok, diff = compare(results(returned, call_args), reference)
        if not ok and row.check == "ok":
            row.check, row.max_abs_diff[label] = "MISMATCH", diff
            size = "a shape or the number of results differs" if diff is None else f"max |diff| {diff:.3g}"
            row.error = f"the last timed call of {label} disagrees with numpy ({size}); the first call agreed"


def _contenders(program: NumpyProgram, compiled: Callable[..., Any], inputs: tuple) -> dict[str, Contender]:
    """NumPy and polyfuse (on one thread too when it has more): programs that write their inputs
    get fresh copies for every run."""
    from polyfuse.runtime import threads

    in_place = bool(jax_blocker(program.func))
    contenders = {"numpy": Contender(program.func, inputs, in_place),
                  "polyfuse": Contender(compiled, inputs, in_place)}
    if threads.get_num_threads() > 1:
        contenders["polyfuse_1t"] = Contender(compiled, inputs, in_place, threads=1)
    return contenders


def _fill_times(row: NumpyRow, times: dict[str, float]) -> None:
    row.polyfuse_ms, row.numpy_ms = times["polyfuse"], times["numpy"]
    row.polyfuse_1t_ms, row.jax_ms = times.get("polyfuse_1t"), times.get("jax")
    for other in NUMPY_OTHERS:
        theirs = times.get(other)
        row.ratios[other] = theirs / row.polyfuse_ms if theirs is not None and row.polyfuse_ms > 0 else None
    if row.polyfuse_1t_ms:
        row.ratios["numpy_1t"] = row.numpy_ms / row.polyfuse_1t_ms


def not_yet_compiled(exc: Exception) -> str:
    """A pending program's row text: the frontend's reason and where, the file named without its
    folder (the table is wide enough already)."""
    span = getattr(exc, "span", None)
    where = "" if span is None else f"{os.path.basename(span.filename)}:{span.line}:{span.col + 1}: "
    return f"not yet compiled: {where}{getattr(exc, 'reason', exc)}"


def bench_numpy_row(program: NumpyProgram, settings: BenchSettings, *, pending: bool = False,
                    jax: ModuleType | None = None) -> NumpyRow:
    """Check and time one program; errors end up in the row, never raised.  ``pending``: a
    refusal by the frontend makes the row "pending" instead of an ERROR.  ``jax``: the module
    from :func:`load_jax` (None: no JAX column)."""
    from polyfuse.errors import UnsupportedError
    from polyfuse.kernel import kernel as polyfuse_kernel

    row = NumpyRow(program.name, settings.preset, [])
    stage = "making inputs"
    try:
        inputs = program.args(settings.preset, settings.seed)
        row.shapes = [list(np.shape(a)) for a in inputs]
        stage = "polyfuse compile"
        compiled = polyfuse_kernel(program.func, target=settings.target)
        start = time.perf_counter()
        try:
            variant = compiled.compile(*fresh(inputs))
        except UnsupportedError as exc:
            if not pending:
                raise
            row.check, row.pending = "pending", not_yet_compiled(exc)
            return row
        row.compile_ms = (time.perf_counter() - start) * 1e3
        stage = "numpy run"
        reference_args = fresh(inputs)
        returned = program.func(*reference_args)
        reference = results(returned, reference_args)
        stage = "polyfuse run"
        our_args = fresh(inputs)
        settle()  # this first call is polyfuse's serial measurement (NumPy's BLAS may still spin)
        ours = results(compiled(*our_args), our_args)
        stage = "check"
        ok, row.max_abs_diff["polyfuse"] = compare(ours, reference)
        row.check = "ok" if ok else "MISMATCH"
        contenders = _contenders(program, compiled, inputs)
        if jax is not None:
            stage = "jax"
            jitted = _jax_contender(program, inputs, jax, row, returned)
            if jitted is not None:
                contenders["jax"] = Contender(*jitted, copy=False)
        for label, c in contenders.items():
            stage = f"warming up {label}"
            settle()  # polyfuse's first team run counts (backends/cpu/parallel.py)
            with polyfuse_on(c.threads):
                c.fn(*(fresh(c.args) if c.copy else c.args))  # page faults, lazy plans: not timed
        stage = "timing"
        last: dict[str, list] = {}
        times = _time_contenders(contenders, settings, row, last)
        # LLVM's work on first use of each function the calls ran is compile time too
        row.compile_ms += getattr(getattr(variant, "backend", None), "build_seconds", 0.0) * 1e3
        stage = "check of the timed calls"
        _check_timed_calls(last, reference, row)
        _fill_times(row, times)
    except Exception as exc:  # noqa: BLE001 - one program's failure must not stop the section
        _record_failure(row, stage, exc)
    return row
