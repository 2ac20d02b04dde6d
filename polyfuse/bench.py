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
"""

from __future__ import annotations

import gc
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
DEFAULT_JSON = Path("bench-results") / "bench.json"
RTOL = 1e-7
SCHEMA = 1


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

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        if self.repeats < 1:
            raise ValueError("repeats must be at least 1")
        if self.threads is not None and self.threads < 1:
            raise ValueError("threads must be at least 1")


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


@dataclass
class BenchReport:
    settings: BenchSettings
    machine: dict[str, Any]
    rows: list[BenchRow]
    seconds: float = 0.0

    @property
    def geomean_speedup(self) -> float | None:
        return geometric_mean([r.speedup for r in self.rows if r.check == "ok" and r.speedup])

    @property
    def failed(self) -> list[BenchRow]:
        return [r for r in self.rows if r.check != "ok"]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "tool": "polyfuse bench",
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "settings": asdict(self.settings),
            "machine": self.machine,
            "seconds": round(self.seconds, 3),
            "geomean_speedup": self.geomean_speedup,
            "rows": [asdict(r) for r in self.rows],
        }


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
        "versions": {m: package_version(m) for m in ("polyfuse", "numpy", "numba", "llvmlite", "islpy")},
    }


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
              max_runs: int = 1000) -> tuple[float, int]:
    """Minimum seconds of ``fn(*fresh(args))`` over ≥ ``repeats`` runs (copies made untimed)."""
    best, total, runs = math.inf, 0.0, 0
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        while runs < repeats or (total < min_time and runs < max_runs):
            call_args = fresh(args)
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


def run(settings: BenchSettings, *, out: TextIO | None = None) -> BenchReport:
    """Benchmark the selected kernels, printing the table to ``out`` as rows complete."""
    out = out if out is not None else sys.stdout
    specs = select_kernels(settings.kernels)
    if settings.threads is not None:
        set_polyfuse_threads(settings.threads)
    if not settings.use_cache:
        os.environ["POLYFUSE_DISABLE_CACHE"] = "1"  # compile times must be real compilations
    machine = machine_info()
    threads = polyfuse_threads()
    machine["polyfuse_threads"] = threads
    print(f"polyfuse bench: {len(specs)} kernel(s), preset {settings.preset!r}, target "
          f"{settings.target!r}, min of >= {settings.repeats} runs, polyfuse threads: "
          f"{threads if threads is not None else 1}, numba: 1 thread (njit)", file=out)
    print(f"machine: {machine['cpu']} ({machine['usable_cores']} usable of {machine['cores']} cores); "
          + ", ".join(f"{k} {v}" for k, v in machine["versions"].items()), file=out)
    print(header(), file=out, flush=True)
    start = time.perf_counter()
    rows = []
    for spec in specs:
        row = bench_kernel(spec, settings)
        rows.append(row)
        print(format_row(row), file=out, flush=True)
    report = BenchReport(settings, machine, rows, time.perf_counter() - start)
    print("", file=out)
    print(summary(report), file=out, flush=True)
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
    """Run, write the JSON, and return the exit status (0: every kernel checked ok)."""
    out = out if out is not None else sys.stdout
    if not backend_available(settings.target):
        print(f"polyfuse bench: the {settings.target!r} backend (polyfuse/backends/llvm.py) is not "
              "available in this installation; try --target python", file=sys.stderr)
        return 2
    report = run(settings, out=out)
    if json_path is not None:
        written = write_json(report, json_path)
        print(f"results written to {written}", file=out)
    return 1 if report.failed else 0
