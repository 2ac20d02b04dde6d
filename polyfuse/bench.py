"""``polyfuse bench``: the embedded kernel suite, compiled by polyfuse and by numba, timed and checked.

For every suite kernel (:mod:`polyfuse.suite`):

1. inputs are built once from a fixed seed with the chosen size preset;
2. ``polyfuse.kernel(func, target=...)`` is compiled with ``kernel.compile(*args)`` (timed: the
   "compile" column);
3. ``numba.njit(func)`` -- the very same Python function -- is compiled by a warm-up call
   (not timed);
4. both run once on fresh copies of the inputs and every array named in ``outputs`` must agree
   (``np.allclose``, rtol 1e-7): "ok", else "MISMATCH";
5. both are timed: the minimum over at least ``repeats`` runs, each on a fresh copy of the inputs
   made outside the timed region (kernels update their arrays in place, stencils with time loops
   must start from the same state every run).

``speedup`` is numba time / polyfuse time, so > 1 means polyfuse is faster.  The run ends with
the geometric mean of the speedups, a JSON file with the machine and every row, and a non-zero
exit status when any check MISMATCHes or any kernel fails to compile or run.

The einsum section (``--section einsum|all``) does the same for the rows of
``polyfuse.einsum.einsum_benchmarks(preset)``: each polyfuse callable (``polyfuse.einsum`` or a
``polyfuse.spec``) against ``numpy.einsum(optimize=True)``, numpy following polyfuse's order one
step at a time, and ``opt_einsum.contract`` where the row is a plain einsum.  Ratios are
other time / polyfuse time (> 1: polyfuse is faster).
"""

from __future__ import annotations

import functools
import gc
import importlib
import importlib.util
import inspect
import json
import math
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import numpy as np

PRESETS = ("test", "quick", "bench")
SECTIONS = ("loops", "einsum", "all")
DEFAULT_JSON = Path("bench-results") / "bench.json"
RTOL = 1e-7
SCHEMA = 2  # 2: "section", "einsum" and machine["threadpools"] added


@dataclass(frozen=True)
class BenchSettings:
    """What one ``polyfuse bench`` run measures."""

    preset: str = "bench"
    target: str = "cpu"
    kernels: tuple[str, ...] = ()  # empty: the whole suite
    repeats: int = 5  # at least this many timed runs per implementation
    min_time: float = 0.05  # ... and keep repeating until this many seconds were timed (cap 1000 runs)
    seed: int = 0
    threads: int | None = None  # polyfuse threads (None: polyfuse's default); numba is always serial
    use_cache: bool = False  # allow polyfuse's disk cache (then "compile" may be a cache load)
    section: str = "all"  # "loops" (the kernel suite vs numba), "einsum" or "all"
    blas_threads: int | None = None  # limit BLAS pools with threadpoolctl (None: leave them as they are)

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        if self.section not in SECTIONS:
            raise ValueError(f"section {self.section!r}; choose one of {', '.join(SECTIONS)}")
        if self.repeats < 1:
            raise ValueError("repeats must be at least 1")
        if self.threads is not None and self.threads < 1:
            raise ValueError("threads must be at least 1")
        if self.blas_threads is not None:
            if self.blas_threads < 1:
                raise ValueError("blas_threads must be at least 1")
            if importlib.util.find_spec("threadpoolctl") is None:
                raise ValueError("--blas-threads needs threadpoolctl (pip install threadpoolctl)")


@dataclass
class BenchRow:
    """One kernel's measurements (times in milliseconds; None where not measured)."""

    kernel: str
    category: str
    preset: str
    sizes: dict[str, int]
    check: str = "ERROR"  # "ok" | "MISMATCH" | "ERROR"
    compile_ms: float | None = None
    polyfuse_ms: float | None = None
    numba_ms: float | None = None
    speedup: float | None = None  # numba_ms / polyfuse_ms
    polyfuse_runs: int = 0
    numba_runs: int = 0
    loop_nests: str = ""  # top-level loop nests "before->after" scheduling
    max_abs_diff: dict[str, float | None] = field(default_factory=dict)  # None: shapes differ
    stage_ms: dict[str, float] = field(default_factory=dict)  # compile time per pipeline stage
    error: str = ""


#: The implementations an einsum row is compared with; each ratio is their time / polyfuse time.
EINSUM_OTHERS = ("numpy_opt", "numpy_step", "opt_einsum")


@dataclass
class EinsumRow:
    """One row of ``einsum_benchmarks``: polyfuse against numpy and opt_einsum (times in ms)."""

    name: str
    preset: str
    shapes: list[list[int]]
    check: str = "ERROR"  # "ok" | "MISMATCH" | "ERROR"
    runs: str = ""  # "polyfuse kernel", or why polyfuse.einsum ran numpy.einsum for these operands
    first_call_ms: float | None = None  # polyfuse's first call: compilation plus one run
    polyfuse_ms: float | None = None
    numpy_opt_ms: float | None = None  # numpy.einsum(..., optimize=True)
    numpy_step_ms: float | None = None  # numpy one step at a time on polyfuse's order
    opt_einsum_ms: float | None = None  # opt_einsum.contract (plain einsum rows only)
    ratios: dict[str, float | None] = field(default_factory=dict)  # other ms / polyfuse ms
    runs_timed: dict[str, int] = field(default_factory=dict)
    max_abs_diff: dict[str, float | None] = field(default_factory=dict)  # vs numpy_opt; None: shapes differ
    error: str = ""


@dataclass
class BenchReport:
    settings: BenchSettings
    machine: dict[str, Any]
    rows: list[BenchRow]
    seconds: float = 0.0
    einsum_rows: list[EinsumRow] = field(default_factory=list)
    einsum_seconds: float = 0.0

    @property
    def geomean_speedup(self) -> float | None:
        return geometric_mean([r.speedup for r in self.rows if r.check == "ok" and r.speedup])

    @property
    def einsum_geomeans(self) -> dict[str, float | None]:
        """Geometric mean of each ratio over the einsum rows that checked ok and ran polyfuse's kernel
        (not the numpy.einsum fallback of small calls)."""
        ok = [r for r in self.einsum_rows if r.check == "ok" and r.runs == "polyfuse kernel"]
        return {other: geometric_mean([r.ratios.get(other) for r in ok]) for other in EINSUM_OTHERS}

    @property
    def failed(self) -> list[BenchRow]:
        return [r for r in self.rows if r.check != "ok"]

    @property
    def einsum_failed(self) -> list[EinsumRow]:
        return [r for r in self.einsum_rows if r.check != "ok"]

    def to_json(self) -> dict[str, Any]:
        data = {
            "schema": SCHEMA,
            "tool": "polyfuse bench",
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "settings": asdict(self.settings),
            "machine": self.machine,
            "seconds": round(self.seconds, 3),
            "geomean_speedup": self.geomean_speedup,
            "rows": [asdict(r) for r in self.rows],
        }
        if self.settings.section in ("einsum", "all"):
            data["einsum"] = {
                "seconds": round(self.einsum_seconds, 3),
                "geomean_ratios": self.einsum_geomeans,
                "rows": [asdict(r) for r in self.einsum_rows],
            }
        return data


# ---- machine -----------------------------------------------------------------------------------

def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def package_version(module: str) -> str:
    try:
        mod = __import__(module)
    except Exception as exc:  # noqa: BLE001 - a broken optional package is reported, not raised
        return f"unavailable ({type(exc).__name__})"
    version = getattr(mod, "__version__", None)
    if version is None and module == "islpy":
        version = getattr(mod, "version", None)
    if version is None:
        from importlib import metadata

        try:
            version = metadata.version(module)
        except metadata.PackageNotFoundError:
            version = "unknown"
    return str(version)


def machine_info() -> dict[str, Any]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "machine": platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": {m: package_version(m) for m in ("polyfuse", "numpy", "numba", "llvmlite", "islpy",
                                                    "opt_einsum")},
    }


def threadpool_info() -> list[dict[str, Any]] | None:
    """threadpoolctl's view of the BLAS/OpenMP pools loaded now (None: threadpoolctl not installed).

    Only recorded: the bench leaves BLAS threads as they are."""
    if importlib.util.find_spec("threadpoolctl") is None:
        return None
    try:
        import threadpoolctl

        keep = ("user_api", "internal_api", "prefix", "version", "num_threads", "threading_layer",
                "architecture")
        return [{k: v for k, v in pool.items() if k in keep} for pool in threadpoolctl.threadpool_info()]
    except Exception as exc:  # noqa: BLE001 - informational only
        return [{"error": f"{type(exc).__name__}: {exc}"}]


def polyfuse_threads() -> int | None:
    """Threads polyfuse runs parallel loops on (None: this polyfuse has no thread pool)."""
    try:
        from polyfuse import threads
    except ImportError:
        return None
    return threads.get_num_threads()


def set_polyfuse_threads(count: int) -> None:
    os.environ["POLYFUSE_NUM_THREADS"] = str(count)
    try:
        from polyfuse import threads
    except ImportError:
        return
    threads.set_num_threads(count)


# ---- measuring ---------------------------------------------------------------------------------

def geometric_mean(values: Sequence[float | None]) -> float | None:
    good = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not good:
        return None
    return math.exp(sum(math.log(v) for v in good) / len(good))


def fresh(args: tuple) -> tuple:
    """A copy of the inputs that a run may mutate (arrays copied, scalars shared)."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def best_time(fn: Callable[..., Any], args: tuple, repeats: int, min_time: float,
              max_runs: int = 1000, copy: bool = True) -> tuple[float, int]:
    """Minimum seconds of ``fn(*fresh(args))`` over ≥ ``repeats`` runs (copies made untimed).

    ``copy=False`` passes ``args`` as they are (functions that do not write their inputs)."""
    best, total, runs = math.inf, 0.0, 0
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        while runs < repeats or (total < min_time and runs < max_runs):
            call_args = fresh(args) if copy else args
            start = time.perf_counter()
            fn(*call_args)
            elapsed = time.perf_counter() - start
            best, total, runs = min(best, elapsed), total + elapsed, runs + 1
    finally:
        if gc_was_enabled:
            gc.enable()
    return best, runs


def output_positions(func: Callable, outputs: Sequence[str]) -> dict[str, int]:
    params = list(inspect.signature(func).parameters)
    return {name: params.index(name) for name in outputs}


def compare(ours: tuple, reference: tuple,
            positions: dict[str, int]) -> tuple[bool, dict[str, float | None]]:
    """Do the output arrays agree (np.allclose, rtol 1e-7)?  Also the largest difference per array."""
    ok, diffs = True, {}
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


def _loop_nests(variant) -> str:
    """Top-level loop nests of the kernel body, then outermost loops of the generated code."""
    from polyfuse.loop_ast import Block, For, If

    def outermost(node) -> int:
        if isinstance(node, For):
            return 1
        if isinstance(node, Block):
            return sum(outermost(child) for child in node.children)
        if isinstance(node, If):
            return outermost(node.then) + (outermost(node.otherwise) if node.otherwise is not None else 0)
        return 0

    before = len({s.nest for s in variant.scop.statements})
    return f"{before}->{outermost(variant.program.root)}"


def bench_kernel(spec, settings: BenchSettings) -> BenchRow:
    """Compile, check and time one suite kernel; errors end up in the row, never raised."""
    import numba

    import polyfuse

    sizes = dict(spec.sizes[settings.preset])
    row = BenchRow(spec.name, spec.category, settings.preset, sizes)
    stage = "making inputs"
    try:
        inputs = spec.make_args(np.random.default_rng(settings.seed), **sizes)
        positions = output_positions(spec.func, spec.outputs)

        stage = "polyfuse compile"
        kernel = polyfuse.kernel(spec.func, target=settings.target)
        args = fresh(inputs)
        start = time.perf_counter()
        variant = kernel.compile(*args)
        row.compile_ms = (time.perf_counter() - start) * 1e3
        row.stage_ms = {k: round(v * 1e3, 3) for k, v in variant.stages.seconds.items()}
        try:
            row.loop_nests = _loop_nests(variant)
        except Exception:  # noqa: BLE001 - informational only
            row.loop_nests = "?"

        stage = "polyfuse run"
        ours = fresh(inputs)
        kernel(*ours)

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
        best, row.polyfuse_runs = best_time(kernel, inputs, settings.repeats, settings.min_time)
        row.polyfuse_ms = best * 1e3
        stage = "timing numba"
        best, row.numba_runs = best_time(reference_fn, inputs, settings.repeats, settings.min_time)
        row.numba_ms = best * 1e3
        if row.polyfuse_ms > 0:
            row.speedup = row.numba_ms / row.polyfuse_ms
    except Exception as exc:  # noqa: BLE001 - one kernel's failure must not stop the suite
        if row.check != "MISMATCH":
            row.check = "ERROR"
        row.error = f"{stage}: {type(exc).__name__}: {exc}".strip()
        from polyfuse.options import debug_errors

        if debug_errors():
            traceback.print_exc()
    return row


# ---- einsum section ----------------------------------------------------------------------------

def einsum_module():
    """The module ``polyfuse.einsum`` (the attribute ``polyfuse.einsum`` is the function)."""
    return importlib.import_module("polyfuse.einsum")


def _forget_compiled_einsums(module) -> None:
    """Drop polyfuse.einsum's in-memory kernels, so that each row's first call compiles its kernel.

    ``einsum_benchmarks`` asks ``einsum_path`` for every row's order, which compiles the kernel;
    without this the first-call column would show a cached kernel for the einsum rows only."""
    for name in ("_plans", "_kernels"):
        table = getattr(module, name, None)
        if isinstance(table, dict):
            table.clear()


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


def _runs(module, numpy_opt: Callable, args: tuple) -> str:
    """What polyfuse ran for an einsum row: its kernel, or numpy.einsum and why."""
    if not (isinstance(numpy_opt, functools.partial) and numpy_opt.func is np.einsum):
        return "polyfuse kernel"
    try:
        fallback = module.einsum_path(numpy_opt.args[0], *args).fallback
    except Exception:  # noqa: BLE001 - informational only
        return "?"
    return f"numpy.einsum ({fallback})" if fallback else "polyfuse kernel"


def bench_einsum_row(name: str, polyfuse_fn: Callable, numpy_opt: Callable, numpy_step: Callable,
                     args: tuple, settings: BenchSettings, module=None) -> EinsumRow:
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
        times: dict[str, float] = {}
        for label, fn in contenders.items():
            stage = f"timing {label}"
            fn(*args)  # warm-up (numpy's path search, page faults), not timed
            best, row.runs_timed[label] = best_time(fn, args, settings.repeats, settings.min_time, copy=False)
            times[label] = best * 1e3
        row.polyfuse_ms = times["polyfuse"]
        row.numpy_opt_ms, row.numpy_step_ms = times["numpy_opt"], times["numpy_step"]
        row.opt_einsum_ms = times.get("opt_einsum")
        for other in EINSUM_OTHERS:
            theirs = times.get(other)
            row.ratios[other] = theirs / row.polyfuse_ms if theirs is not None and row.polyfuse_ms > 0 else None
        row.runs = _runs(module if module is not None else einsum_module(), numpy_opt, args)
    except Exception as exc:  # noqa: BLE001 - one row's failure must not stop the section
        if row.check != "MISMATCH":
            row.check = "ERROR"
        row.error = f"{stage}: {type(exc).__name__}: {exc}".strip()
        from polyfuse.options import debug_errors

        if debug_errors():
            traceback.print_exc()
    return row


# ---- output ------------------------------------------------------------------------------------

COLUMNS = ("kernel", "preset", "compile ms", "polyfuse ms", "numba ms", "speedup", "nests", "check")
WIDTHS = (18, 6, 10, 11, 10, 8, 6, 8)


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return f"{value:.4f}"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def format_row(row: BenchRow) -> str:
    cells = (row.kernel, row.preset, _ms(row.compile_ms), _ms(row.polyfuse_ms), _ms(row.numba_ms),
             f"{row.speedup:.2f}x" if row.speedup else "-", row.loop_nests or "-", row.check)
    return "  ".join(c.ljust(w) if i in (0, 1, 6, 7) else c.rjust(w)
                     for i, (c, w) in enumerate(zip(cells, WIDTHS))).rstrip()


def header() -> str:
    names = "  ".join(c.ljust(w) if i in (0, 1, 6, 7) else c.rjust(w)
                      for i, (c, w) in enumerate(zip(COLUMNS, WIDTHS))).rstrip()
    return names + "\n" + "-" * len(names)


def summary(report: BenchReport) -> str:
    lines = []
    geo = report.geomean_speedup
    ok = sum(1 for r in report.rows if r.check == "ok")
    lines.append(f"geometric mean speedup vs numba: {geo:.2f}x over {ok} kernel(s)" if geo
                 else "geometric mean speedup vs numba: - (no kernel passed its check)")
    for row in report.failed:
        detail = row.error or "outputs differ: max |diff| " + ", ".join(
            f"{k}={'shape differs' if v is None else f'{v:.3g}'}" for k, v in row.max_abs_diff.items())
        lines.append(f"{row.check} {row.kernel}: {detail}")
    lines.append(f"({report.seconds:.1f} s in all; speedup = numba time / polyfuse time, > 1 means "
                 "polyfuse is faster)")
    return "\n".join(lines)


EINSUM_COLUMNS = ("einsum / spec", "1st call ms", "polyfuse ms", "np opt ms", "np step ms",
                  "opt_einsum ms", "vs opt", "vs step", "vs oe", "check")
EINSUM_WIDTHS = (34, 11, 11, 10, 10, 13, 7, 7, 7, 8)
_EINSUM_LEFT = (0, 9)


def _ratio(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def _einsum_line(cells: Sequence[str]) -> str:
    return "  ".join(c.ljust(w) if i in _EINSUM_LEFT else c.rjust(w)
                     for i, (c, w) in enumerate(zip(cells, EINSUM_WIDTHS))).rstrip()


def einsum_header() -> str:
    names = _einsum_line(EINSUM_COLUMNS)
    return names + "\n" + "-" * len(names)


def format_einsum_row(row: EinsumRow) -> str:
    return _einsum_line((row.name, _ms(row.first_call_ms), _ms(row.polyfuse_ms), _ms(row.numpy_opt_ms),
                         _ms(row.numpy_step_ms), _ms(row.opt_einsum_ms),
                         *(_ratio(row.ratios.get(o)) for o in EINSUM_OTHERS), row.check))


def einsum_summary(report: BenchReport) -> str:
    geo = report.einsum_geomeans
    ok = sum(1 for r in report.einsum_rows if r.check == "ok" and r.runs == "polyfuse kernel")
    lines = ["geometric mean ratio (other time / polyfuse time) over "
             f"{ok} row(s): " + ", ".join(f"{other} {_ratio(geo[other])}" for other in EINSUM_OTHERS)]
    for row in report.einsum_rows:
        if row.runs and row.runs != "polyfuse kernel":
            lines.append(f"note {row.name}: polyfuse ran {row.runs}; not in the geometric means")
    for row in report.einsum_failed:
        detail = row.error or "results differ from numpy.einsum(optimize=True): max |diff| " + ", ".join(
            f"{k}={'shape differs' if v is None else f'{v:.3g}'}" for k, v in row.max_abs_diff.items())
        lines.append(f"{row.check} {row.name}: {detail}")
    lines.append(f"({report.einsum_seconds:.1f} s; ratio > 1 means polyfuse is faster; 1st call = "
                 "compilation + one run)")
    return "\n".join(lines)


# ---- driver ------------------------------------------------------------------------------------

def select_kernels(names: Sequence[str]) -> list:
    from polyfuse import suite

    if not names:
        return list(suite.KERNELS.values())
    unknown = [n for n in names if n not in suite.KERNELS]
    if unknown:
        raise ValueError(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(suite.KERNELS)}")
    return [suite.KERNELS[n] for n in names]


def backend_available(target: str) -> bool:
    if target != "cpu":
        return True
    return importlib.util.find_spec("polyfuse.backends.llvm") is not None


def run_loops(settings: BenchSettings, out: TextIO) -> tuple[list[BenchRow], float]:
    specs = select_kernels(settings.kernels)
    print(f"loops: {len(specs)} suite kernel(s), preset {settings.preset!r}, target {settings.target!r}, "
          f"polyfuse vs numba.njit (1 thread)", file=out)
    print(header(), file=out, flush=True)
    start = time.perf_counter()
    rows = []
    for spec in specs:
        row = bench_kernel(spec, settings)
        rows.append(row)
        print(format_row(row), file=out, flush=True)
    return rows, time.perf_counter() - start


def run_einsum(settings: BenchSettings, out: TextIO) -> tuple[list[EinsumRow], float]:
    module = einsum_module()
    start = time.perf_counter()
    print(f"einsum: polyfuse.einsum / polyfuse.spec (target 'cpu'), preset {settings.preset!r}, vs "
          "numpy.einsum(optimize=True), numpy step by step on polyfuse's order, opt_einsum.contract",
          file=out)
    try:
        table = module.einsum_benchmarks(settings.preset, seed=settings.seed)
    except Exception as exc:  # noqa: BLE001 - reported as one failed row
        row = EinsumRow("einsum_benchmarks()", settings.preset, [],
                        error=f"making the rows: {type(exc).__name__}: {exc}")
        print(f"ERROR {row.error}", file=out, flush=True)
        return [row], time.perf_counter() - start
    _forget_compiled_einsums(module)
    print(einsum_header(), file=out, flush=True)
    rows = []
    for name, polyfuse_fn, numpy_opt, numpy_step, args in table:
        row = bench_einsum_row(name, polyfuse_fn, numpy_opt, numpy_step, tuple(args), settings, module)
        rows.append(row)
        print(format_einsum_row(row), file=out, flush=True)
    return rows, time.perf_counter() - start


def run(settings: BenchSettings, *, out: TextIO | None = None) -> BenchReport:
    """Benchmark the selected section(s), printing each table to ``out`` as rows complete."""
    out = out if out is not None else sys.stdout
    if settings.blas_threads is not None:
        import threadpoolctl

        with threadpoolctl.threadpool_limits(limits=settings.blas_threads, user_api="blas"):
            return _run(settings, out)
    return _run(settings, out)


def _run(settings: BenchSettings, out: TextIO) -> BenchReport:
    if settings.section != "einsum":
        select_kernels(settings.kernels)  # unknown names fail before anything runs
    if settings.threads is not None:
        set_polyfuse_threads(settings.threads)
    if not settings.use_cache:
        os.environ["POLYFUSE_DISABLE_CACHE"] = "1"  # compile times must be real compilations
    machine = machine_info()
    threads = polyfuse_threads()
    machine["polyfuse_threads"] = threads
    print(f"polyfuse bench: section {settings.section!r}, preset {settings.preset!r}, min of >= "
          f"{settings.repeats} runs, polyfuse threads: {threads if threads is not None else 1}, "
          "numba: 1 thread (njit), BLAS threads: "
          f"{settings.blas_threads if settings.blas_threads is not None else 'as configured'}", file=out)
    print(f"machine: {machine['cpu']} ({machine['usable_cores']} usable of {machine['cores']} cores); "
          + ", ".join(f"{k} {v}" for k, v in machine["versions"].items()), file=out, flush=True)
    report = BenchReport(settings, machine, [])
    if settings.section in ("loops", "all"):
        print("", file=out)
        report.rows, report.seconds = run_loops(settings, out)
        print("", file=out)
        print(summary(report), file=out, flush=True)
    if settings.section in ("einsum", "all"):
        print("", file=out)
        report.einsum_rows, report.einsum_seconds = run_einsum(settings, out)
        print("", file=out)
        print(einsum_summary(report), file=out, flush=True)
    pools = threadpool_info()  # after the runs (inside any --blas-threads limit): the pools as used
    if pools is not None:
        machine["threadpools"] = pools
    return report


def write_json(report: BenchReport, path: str | os.PathLike) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report.to_json(), indent=2, default=_json_default) + "\n", encoding="utf-8")
    return target


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def main(settings: BenchSettings, json_path: str | os.PathLike | None = DEFAULT_JSON,
         *, out: TextIO | None = None) -> int:
    """Run, write the JSON, and return the exit status (0: every kernel and einsum row checked ok)."""
    out = out if out is not None else sys.stdout
    needed = ({settings.target} if settings.section != "einsum" else set()) | (
        {"cpu"} if settings.section != "loops" else set())
    if not all(backend_available(target) for target in needed):
        print("polyfuse bench: the 'cpu' backend (polyfuse/backends/llvm.py) is not available in this "
              "installation; try --target python --section loops", file=sys.stderr)
        return 2
    report = run(settings, out=out)
    if json_path is not None:
        written = write_json(report, json_path)
        print(f"results written to {written}", file=out)
    return 1 if report.failed or report.einsum_failed else 0
