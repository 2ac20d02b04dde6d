"""The einsum section: each row of polyfuse.bench.einsum_suite checked and timed against numpy.

:func:`bench_einsum_row` runs one row: polyfuse's first call (compilation), the check against
``numpy.einsum(optimize=True)``, interleaved timing rounds of every contender on each BLAS
thread count, and the tracemalloc peak of one call (:func:`peak_extra_bytes`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import math
import time
from collections.abc import Callable
from types import ModuleType

import numpy as np

from polyfuse.bench.machine import _blas_limit, blas_plans
from polyfuse.bench.measure import WARM_CALLS, _record_failure, best_time, close_enough
from polyfuse.bench.records import EINSUM_OTHERS, BenchSettings, EinsumRow


def einsum_module() -> ModuleType:
    """The module ``polyfuse.einsum`` (the attribute ``polyfuse.einsum`` is the function)."""
    return importlib.import_module("polyfuse.tensor.einsum")


def _forget_compiled_einsums(module: ModuleType) -> None:
    """Drop polyfuse.einsum's in-memory kernels, so that each row's first call compiles its kernel.

    ``einsum_benchmarks`` asks ``einsum_path`` for every row's order, which compiles the kernel;
    without this the first-call column would show a cached kernel for the einsum rows only."""
    module.clear_caches()


def _opt_einsum_contract(numpy_opt: Callable) -> Callable | None:
    """``opt_einsum.contract`` for a row whose numpy callable is ``partial(np.einsum, subscripts, ...)``."""
    if not (isinstance(numpy_opt, functools.partial) and numpy_opt.func is np.einsum and numpy_opt.args
            and isinstance(numpy_opt.args[0], str)):
        return None  # a spec row: several statements, not one einsum
    try:
        import opt_einsum
    except ImportError:
        return None
    return functools.partial(opt_einsum.contract, numpy_opt.args[0])


def _runs(module: ModuleType, numpy_opt: Callable, args: tuple) -> str:
    """What polyfuse ran for an einsum row: its kernel, a BLAS matmul, or numpy.einsum and why."""
    if not (isinstance(numpy_opt, functools.partial) and numpy_opt.func is np.einsum):
        return "polyfuse kernel"
    try:
        path = module.einsum_path(numpy_opt.args[0], *args)
    except Exception:  # noqa: BLE001 - informational only
        return "?"
    if path.fallback:
        return f"numpy.einsum ({path.fallback})"
    if getattr(path, "choices", None):
        on_blas = sum("[BLAS" in c for c in path.choices)
        return f"BLAS steps + fused loops ({on_blas} of {len(path.choices)} steps on BLAS)"
    return "BLAS matmul (GEMM-shaped)" if getattr(path, "dispatch", None) else "polyfuse kernel"


def peak_extra_bytes(fn: Callable, args: tuple) -> int:
    """Peak bytes that one call of ``fn`` allocates beyond its result, measured with tracemalloc
    (numpy reports its allocations to it; BLAS's own work buffers are not seen).

    polyfuse keeps intermediate buffers between calls (workspaces); they are dropped before the
    measured call, so that it allocates them again and its peak counts them.

    The warm calls are the bench's (``measure.WARM_CALLS``): compilation, caches and what the
    runtime does once per argument layout (a plan's native entry, made on its
    ``NATIVE_AFTER``-th call) are not the call's memory.  With one warm call, the native entries
    of a staged attention spec's loop steps (n=512) were made in the measured call, and the
    process's first entry of that form compiled in it: 2.85 MB against 1.15 MB in steady state
    (tests/tensor/test_spec_blas.py failed when it ran first in its process)."""
    import tracemalloc

    for _ in range(WARM_CALLS):
        fn(*args)
    einsum_module().clear_workspaces()
    tracemalloc.start()
    try:
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    results = result if isinstance(result, tuple) else (result,)
    return max(0, peak - sum(r.nbytes for r in results if isinstance(r, np.ndarray)))


#: Rounds in which every einsum contender is timed in turn (the best of all rounds counts), so
#: that a change of load on a shared machine hits all of them alike.
EINSUM_ROUNDS = 3


def _time_einsum_contenders(contenders: dict[str, Callable], args: tuple, settings: BenchSettings,
                            row: EinsumRow, last: list | None = None) -> dict[str, float]:
    """Best ms of each contender: on each BLAS thread count, the faster counting (polyfuse's BLAS
    steps use the same BLAS as numpy), over interleaved rounds.  ``last`` receives polyfuse's last
    timed call (arguments, result)."""
    plans = blas_plans(settings)
    for _ in range(EINSUM_ROUNDS):
        for label, fn in contenders.items():
            by_blas = row.ms_by_blas.setdefault(label, {})
            for plan, limit in plans:
                with _blas_limit(limit):
                    best, runs = best_time(fn, args, settings.repeats, settings.min_time, copy=False,
                                           last=last if label == "polyfuse" else None)
                by_blas[plan] = min(by_blas.get(plan, math.inf), best * 1e3)
                row.runs_timed[label] = row.runs_timed.get(label, 0) + runs
    return {label: min(by_blas.values()) for label, by_blas in row.ms_by_blas.items()}


def bench_einsum_row(name: str, polyfuse_fn: Callable, numpy_opt: Callable, numpy_step: Callable,
                     args: tuple, settings: BenchSettings, module: ModuleType | None = None) -> EinsumRow:
    """Check and time one einsum/spec row; errors end up in the row, never raised."""
    row = EinsumRow(name, settings.preset, [list(np.shape(a)) for a in args])
    contenders: dict[str, Callable] = {"polyfuse": polyfuse_fn, "numpy_opt": numpy_opt,
                                       "numpy_step": numpy_step}
    oe = _opt_einsum_contract(numpy_opt)
    if oe is not None:
        contenders["opt_einsum"] = oe
    stage = "polyfuse first call"
    try:
        start = time.perf_counter()
        ours = polyfuse_fn(*args)
        row.first_call_ms = (time.perf_counter() - start) * 1e3
        stage = "numpy.einsum(optimize=True)"
        reference = numpy_opt(*args)
        ok, row.max_abs_diff["polyfuse"] = close_enough(ours, reference)
        for other in ("numpy_step", "opt_einsum"):
            if other in contenders:
                stage = other
                agree, row.max_abs_diff[other] = close_enough(contenders[other](*args), reference)
                ok = ok and agree  # a disagreeing reference is reported as well
        row.check = "ok" if ok else "MISMATCH"
        for label, fn in contenders.items():
            stage = f"warming up {label}"
            fn(*args)  # warm-up (numpy's path search, page faults), not timed
        timed: list = []
        times = _time_einsum_contenders(contenders, args, settings, row, last=timed)
        stage = "check of polyfuse's last timed call"
        agree, timed_diff = close_enough(timed[1], reference)
        if not agree:
            row.check, row.max_abs_diff["polyfuse"] = "MISMATCH", timed_diff
            row.error = "polyfuse's last timed call disagrees with numpy (its first call agreed)"
        row.polyfuse_ms = times["polyfuse"]
        row.numpy_opt_ms, row.numpy_step_ms = times["numpy_opt"], times["numpy_step"]
        row.opt_einsum_ms = times.get("opt_einsum")
        for other in EINSUM_OTHERS:
            theirs = times.get(other)
            row.ratios[other] = theirs / row.polyfuse_ms if theirs is not None and row.polyfuse_ms > 0 else None
        row.runs = _runs(module if module is not None else einsum_module(), numpy_opt, args)
        for label in ("polyfuse", "numpy_opt", "numpy_step"):
            stage = f"peak memory of {label}"
            row.peak_extra_bytes[label] = peak_extra_bytes(contenders[label], args)
    except Exception as exc:  # noqa: BLE001 - one row's failure must not stop the section
        _record_failure(row, stage, exc)
    return row
