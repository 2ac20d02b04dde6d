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

``speedup`` is numba time / polyfuse time, so > 1 means polyfuse is faster.  Kernels with a
numpy formulation (``SuiteKernel.numpy_func``) also get a numpy column: it is checked against
numba's outputs and timed the same way (on BLAS as configured and on one BLAS thread, the faster
counting, unless ``--blas-threads`` is given); ``np/pf`` is numpy time / polyfuse time.  The run
ends with the geometric means, a JSON file with the machine and every row, and a non-zero exit
status when any check MISMATCHes or any kernel fails to compile or run.

After the loops table comes the limits section (``--target cpu``): a STREAM triad
``a[i] = b[i] + s*c[i]`` on arrays far bigger than the last-level cache, compiled by polyfuse and
by numba (the faster is the reference bandwidth; numpy's ``np.add(b, s*c, out=a)`` is shown too),
numpy's ``A @ B`` at gemm's sizes as the reference GFLOP/s, and the memory-bound (``STREAMING``)
and matrix-product (``FLOPS``) suite kernels as GB/s and GFLOP/s against them, from the loops
table's times.

The einsum section (``--section einsum|all``) does the same for the rows of
``polyfuse.bench.einsum_suite.einsum_benchmarks(preset)``: each polyfuse callable (``polyfuse.einsum`` or a
``polyfuse.spec``) against ``numpy.einsum(optimize=True)``, numpy following polyfuse's order one
step at a time, and ``opt_einsum.contract`` where the row is a plain einsum.  Ratios are
other time / polyfuse time (> 1: polyfuse is faster).
"""

from __future__ import annotations

import contextlib
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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

if TYPE_CHECKING:
    from polyfuse.bench.suite import SuiteKernel
    from polyfuse.model.loop_ast import Node
    from polyfuse.runtime.variant import CompiledVariant

PRESETS = ("test", "quick", "bench")
SECTIONS = ("loops", "einsum", "all")
DEFAULT_JSON = Path("bench-results") / "bench.json"
RTOL = 1e-7
SCHEMA = 3  # 2: "section", "einsum" and machine["threadpools"]; 3: numpy columns, "limits"


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
    array_bytes: int = 0  # bytes of the kernel's array arguments, each counted once (not its locals)
    numpy_check: str = ""  # the numpy formulation against numba: "ok" | "MISMATCH" | "ERROR"; "": none
    numpy_ms: float | None = None  # suite.SuiteKernel.numpy_func, timed like the others: best of numpy_ms_by_blas
    numpy_ms_by_blas: dict[str, float] = field(default_factory=dict)  # BLAS threads -> ms (see blas_plans)
    numpy_ratio: float | None = None  # numpy_ms / polyfuse_ms
    numpy_runs: int = 0
    numpy_max_abs_diff: dict[str, float | None] = field(default_factory=dict)
    numpy_error: str = ""
    loop_nests: str = ""  # top-level loop nests "before->after" scheduling
    max_abs_diff: dict[str, float | None] = field(default_factory=dict)  # None: shapes differ
    stage_ms: dict[str, float] = field(default_factory=dict)  # compile time per pipeline stage
    local_bytes: dict[str, int] = field(default_factory=dict)  # kernel-local arrays as allocated
    declared_local_bytes: dict[str, int] = field(default_factory=dict)  # ... as written (before contraction)
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
    runs: str = ""  # "polyfuse kernel", "BLAS matmul (...)", or why polyfuse.einsum ran numpy.einsum
    first_call_ms: float | None = None  # polyfuse's first call: compilation plus one run
    polyfuse_ms: float | None = None
    numpy_opt_ms: float | None = None  # numpy.einsum(..., optimize=True)
    numpy_step_ms: float | None = None  # numpy one step at a time on polyfuse's order
    opt_einsum_ms: float | None = None  # opt_einsum.contract (plain einsum rows only)
    ratios: dict[str, float | None] = field(default_factory=dict)  # other ms / polyfuse ms
    runs_timed: dict[str, int] = field(default_factory=dict)
    ms_by_blas: dict[str, dict[str, float]] = field(default_factory=dict)  # each contender: BLAS threads -> ms
    max_abs_diff: dict[str, float | None] = field(default_factory=dict)  # vs numpy_opt; None: shapes differ
    # bytes allocated at the peak of one call beyond its result (tracemalloc; numpy reports its
    # arrays, polyfuse's kernel-local arrays are numpy arrays): polyfuse, numpy_opt, numpy_step
    peak_extra_bytes: dict[str, int] = field(default_factory=dict)
    error: str = ""


@dataclass
class TriadRun:
    """One implementation of the STREAM triad ``a[i] = b[i] + s*c[i]``."""

    name: str  # "polyfuse" | "numba" | "numpy"
    how: str
    check: str = "ERROR"  # "ok": every a[i] == b[i] + s*c[i]
    ms: float | None = None
    gb_s: float | None = None  # 3 arrays x 8 bytes per element / time
    runs: int = 0
    error: str = ""


@dataclass
class StreamRow:
    """A memory-bound suite kernel: its array bytes over each implementation's time."""

    kernel: str
    preset: str
    bytes: int  # every array argument once (element size x elements); kernel-local arrays not counted
    gb_s: dict[str, float | None] = field(default_factory=dict)  # polyfuse, numba, numpy
    pct_of_triad: dict[str, float | None] = field(default_factory=dict)


@dataclass
class ComputeRow:
    """A matrix-product suite kernel: its flops over each implementation's time."""

    kernel: str
    preset: str
    flops: int  # 2 per multiply-add of every matrix product; elementwise terms not counted
    gflop_s: dict[str, float | None] = field(default_factory=dict)  # polyfuse, numba, numpy
    pct_of_matmul: dict[str, float | None] = field(default_factory=dict)  # of numpy's A @ B at gemm's sizes


@dataclass
class MatmulRun:
    """numpy's ``A @ B`` at gemm's sizes on some number of BLAS threads."""

    how: str
    blas_threads: int | None = None  # None: as configured (threadpoolctl not installed)
    ms: float | None = None
    gflop_s: float | None = None
    runs: int = 0
    error: str = ""


@dataclass
class Limits:
    """The physical limits section: measured triad bandwidth and matmul GFLOP/s, and the suite's
    memory-bound and compute-bound kernels against them."""

    triad_elements: int
    triad_bytes: int  # 3 * 8 * triad_elements
    l3_bytes: int | None
    triad: list[TriadRun] = field(default_factory=list)
    triad_gb_s: float | None = None  # the reference: the best compiled triad (polyfuse or numba)
    triad_reference: str = ""
    streaming: list[StreamRow] = field(default_factory=list)
    matmul_shape: list[int] = field(default_factory=list)  # [ni, nk, nj]: A is ni x nk, B nk x nj
    matmul: list[MatmulRun] = field(default_factory=list)  # BLAS threads as configured, and on 1 thread
    matmul_gflop_s: float | None = None  # the reference: the best of ``matmul``
    matmul_reference: str = ""
    blas_stall: float | None = None  # as-configured time / 1-thread time, when above BLAS_STALL
    compute: list[ComputeRow] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class BenchReport:
    settings: BenchSettings
    machine: dict[str, Any]
    rows: list[BenchRow]
    seconds: float = 0.0
    einsum_rows: list[EinsumRow] = field(default_factory=list)
    einsum_seconds: float = 0.0
    limits: Limits | None = None

    @property
    def geomean_speedup(self) -> float | None:
        return geometric_mean([r.speedup for r in self.rows if r.check == "ok" and r.speedup])

    @property
    def einsum_geomeans(self) -> dict[str, float | None]:
        """Geometric mean of each ratio over the einsum rows that checked ok and ran polyfuse's own
        choice (its kernel or its BLAS dispatch; not the numpy.einsum fallback of small calls)."""
        ok = [r for r in self.einsum_rows if r.check == "ok" and not r.runs.startswith("numpy.einsum")]
        return {other: geometric_mean([r.ratios.get(other) for r in ok]) for other in EINSUM_OTHERS}

    @property
    def numpy_geomean(self) -> float | None:
        """Geometric mean of numpy time / polyfuse time over the rows where both checked ok."""
        return geometric_mean([r.numpy_ratio for r in self.rows if r.check == "ok" and r.numpy_check == "ok"])

    @property
    def failed(self) -> list[BenchRow]:
        return [r for r in self.rows if r.check != "ok" or r.numpy_check not in ("", "ok")]

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
            "geomean_numpy_ratio": self.numpy_geomean,
            "rows": [asdict(r) for r in self.rows],
        }
        if self.limits is not None:
            data["limits"] = asdict(self.limits)
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
    usable: int | None
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
        from polyfuse.runtime import threads
    except ImportError:
        return None
    return threads.get_num_threads()


def set_polyfuse_threads(count: int) -> None:
    os.environ["POLYFUSE_NUM_THREADS"] = str(count)
    try:
        from polyfuse.runtime import threads
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

    import polyfuse

    sizes = dict(spec.sizes[settings.preset])
    row = BenchRow(spec.name, spec.category, settings.preset, sizes)
    stage = "making inputs"
    try:
        inputs = spec.make_args(np.random.default_rng(settings.seed), **sizes)
        row.array_bytes = sum(a.nbytes for a in inputs if isinstance(a, np.ndarray))
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
        memory = kernel.local_memory(*args)
        row.local_bytes, row.declared_local_bytes = memory["allocated"], memory["declared"]

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
        _record_failure(row, stage, exc)
        return row
    if spec.numpy_func is not None:
        _bench_numpy(spec, row, inputs, reference, positions, settings)
    return row


def _bench_numpy(spec: SuiteKernel, row: BenchRow, inputs: tuple, reference: tuple,
                 positions: dict[str, int], settings: BenchSettings) -> None:
    """Check the kernel's numpy formulation against numba's outputs and time it (into ``row``)."""
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
        stage = "timing numpy"
        for label, limit in blas_plans(settings):
            with _blas_limit(limit):
                best, runs = best_time(numpy_func, inputs, settings.repeats, settings.min_time)
            row.numpy_ms_by_blas[label] = best * 1e3
            row.numpy_runs += runs
        row.numpy_ms = min(row.numpy_ms_by_blas.values())
        if row.polyfuse_ms:
            row.numpy_ratio = row.numpy_ms / row.polyfuse_ms
    except Exception as exc:  # noqa: BLE001 - reported in the row
        if row.numpy_check != "MISMATCH":
            row.numpy_check = "ERROR"
        row.numpy_error = f"{stage}: {type(exc).__name__}: {exc}".strip()


# ---- limits section ----------------------------------------------------------------------------

#: Suite kernels that stream their arrays with little reuse: their time is bounded by memory
#: bandwidth, so the limits section reports their array bytes / time against the triad.
STREAMING = ("chain3", "softmax", "atax", "bicg", "mvt", "gemver", "gesummv")

#: Flops of the matrix-product kernels (2 per multiply-add; elementwise terms left out), from sizes.
FLOPS: dict[str, Callable[[dict[str, int]], int]] = {
    "gemm": lambda s: 2 * s["ni"] * s["nj"] * s["nk"],
    "2mm": lambda s: 2 * s["ni"] * s["nj"] * (s["nk"] + s["nl"]),
    "3mm": lambda s: 2 * (s["ni"] * s["nj"] * s["nk"] + s["nj"] * s["nl"] * s["nm"]
                          + s["ni"] * s["nl"] * s["nj"]),
    "matmul_bias_relu": lambda s: 2 * s["ni"] * s["nj"] * s["nk"],
    "attention_rows": lambda s: 2 * s["nq"] * s["nk"] * (s["d"] + s["dv"]),
}

#: float64 elements per triad array: each array is far bigger than the last-level cache (32 MiB on
#: the development VM), except at the "test" sizes, which only exercise the code.
TRIAD_ELEMENTS = {"test": 1 << 12, "quick": 1 << 23, "bench": 1 << 24}
TRIAD_SCALAR = 3.0
TRIAD_RUNS = 10  # at least this many timed runs per triad implementation


def stream_triad(s, a, b, c):
    """STREAM triad, compiled by polyfuse and by numba for the limits section."""
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


def numpy_triad(s, a, b, c):
    np.add(b, s * c, out=a)


def l3_bytes() -> int | None:
    try:
        from polyfuse import hardware

        return int(hardware.cpu_info().l3) or None
    except Exception:  # noqa: BLE001 - informational only
        return None


def _gb_s(nbytes: int, ms: float | None) -> float | None:
    return nbytes / (ms * 1e-3) / 1e9 if ms else None


def _pct(value: float | None, reference: float | None) -> float | None:
    return 100.0 * value / reference if value is not None and reference else None


def measure_triad(settings: BenchSettings, limits: Limits) -> None:
    """Time the triad compiled by polyfuse (its threads) and numba (1 thread), and numpy's."""
    import numba

    import polyfuse

    n = limits.triad_elements
    a, b, c = np.zeros(n), np.full(n, 1.0), np.full(n, 2.0)
    expected = 1.0 + TRIAD_SCALAR * 2.0
    threads = polyfuse_threads()
    contenders = (
        ("polyfuse", f"polyfuse, {threads or 1} thread(s)", lambda: polyfuse.kernel(stream_triad, target="cpu")),
        ("numba", "numba.njit, 1 thread", lambda: numba.njit(stream_triad)),
        ("numpy", "numpy np.add(b, s*c, out=a)", lambda: numpy_triad),
    )
    for name, how, make in contenders:
        run = TriadRun(name, how)
        limits.triad.append(run)
        stage = "compile"
        try:
            fn = make()
            stage = "run"
            for _ in range(3):  # warm-up: compilation, page faults, polyfuse's serial-then-parallel choice
                a[:] = 0.0
                fn(TRIAD_SCALAR, a, b, c)
            run.check = "ok" if bool(np.all(a == expected)) else "MISMATCH"
            stage = "timing"
            best, run.runs = best_time(fn, (TRIAD_SCALAR, a, b, c), max(settings.repeats, TRIAD_RUNS),
                                       settings.min_time, copy=False)
            run.ms = best * 1e3
            run.gb_s = _gb_s(limits.triad_bytes, run.ms)
        except Exception as exc:  # noqa: BLE001 - reported in the section
            run.error = f"{stage}: {type(exc).__name__}: {exc}".strip()
    compiled = [r for r in limits.triad if r.name != "numpy" and r.check == "ok" and r.gb_s]
    if compiled:
        best_run = max(compiled, key=lambda r: r.gb_s or 0.0)
        limits.triad_gb_s, limits.triad_reference = best_run.gb_s, best_run.name


#: When numpy's matmul on the configured BLAS threads is this many times slower than on one thread,
#: the section says BLAS is stalling (see benchmarks/README.md) and suggests --blas-threads 1.
BLAS_STALL = 1.5
MATMUL_ROUNDS = 3  # the matmul reference alternates its BLAS thread counts this many times ...
MATMUL_MIN_TIME = 0.1  # ... each time for at least this many seconds of timed runs


def new_limits(settings: BenchSettings) -> Limits:
    n = TRIAD_ELEMENTS[settings.preset]
    return Limits(triad_elements=n, triad_bytes=3 * 8 * n, l3_bytes=l3_bytes())


def measure_matmul(settings: BenchSettings, limits: Limits, rounds: int = MATMUL_ROUNDS) -> None:
    """numpy's ``A @ B`` at gemm's sizes: on BLAS threads as configured (or as --blas-threads says)
    and, when that is more than one and threadpoolctl is installed, on one BLAS thread as well.
    The reference is the faster: multi-threaded OpenBLAS stalls on a busy small machine.

    Rounds alternate the thread counts, and each count keeps its best time over all the calls for
    ``limits`` (the bench makes one round before the loops table and the rest after it): a stall
    comes and goes with the other jobs on the machine, and one round can fall inside it."""
    from polyfuse.bench import suite

    sizes = suite.KERNELS["gemm"].sizes[settings.preset]
    ni, nj, nk = sizes["ni"], sizes["nj"], sizes["nk"]
    limits.matmul_shape = [ni, nk, nj]
    rng = np.random.default_rng(settings.seed)
    A, B = rng.random((ni, nk)), rng.random((nk, nj))
    plans = blas_plans(settings)
    if not limits.matmul:
        limits.matmul.extend(MatmulRun(f"BLAS threads: {label}", int(label) if label.isdigit() else None)
                             for label, _ in plans)
    runs = limits.matmul
    for _ in range(rounds):
        for run, (_, limit) in zip(runs, plans):
            if run.error:
                continue
            try:
                with _blas_limit(limit):
                    _time_matmul(run, A, B, settings)
            except Exception as exc:  # noqa: BLE001 - reported in the section
                run.error = f"{type(exc).__name__}: {exc}"
    timed = [r for r in limits.matmul if r.gflop_s]
    if timed:
        best = max(timed, key=lambda r: r.gflop_s or 0.0)
        limits.matmul_gflop_s, limits.matmul_reference = best.gflop_s, best.how
    limits.blas_stall = None
    if len(timed) == 2 and timed[0].ms and timed[1].ms and timed[0].ms / timed[1].ms > BLAS_STALL:
        limits.blas_stall = timed[0].ms / timed[1].ms


def _time_matmul(run: MatmulRun, A: np.ndarray, B: np.ndarray, settings: BenchSettings) -> None:
    """One round: ``run`` keeps the best time over its rounds."""
    A @ B  # warm-up
    best, runs = best_time(np.matmul, (A, B), settings.repeats, max(settings.min_time, MATMUL_MIN_TIME),
                           copy=False)
    run.runs += runs
    if run.ms is None or best * 1e3 < run.ms:
        run.ms = best * 1e3
        run.gflop_s = 2 * A.shape[0] * A.shape[1] * B.shape[1] / best / 1e9


def run_limits(settings: BenchSettings, rows: Sequence[BenchRow], out: TextIO,
               limits: Limits | None = None) -> Limits:
    """Measure the triad and numpy's matmul (adding to ``limits``' matmul rounds when given), then
    put the suite rows against them."""
    start = time.perf_counter()
    if limits is None:
        limits = new_limits(settings)
        measure_matmul(settings, limits)
    else:
        measure_matmul(settings, limits, MATMUL_ROUNDS - 1)
    measure_triad(settings, limits)
    times = lambda r: {"polyfuse": r.polyfuse_ms, "numba": r.numba_ms, "numpy": r.numpy_ms}  # noqa: E731
    for row in rows:
        if row.check != "ok":
            continue
        if row.kernel in STREAMING:
            stream = StreamRow(row.kernel, row.preset, row.array_bytes)
            for name, ms in times(row).items():
                stream.gb_s[name] = _gb_s(row.array_bytes, ms) if name != "numpy" or row.numpy_check == "ok" else None
                stream.pct_of_triad[name] = _pct(stream.gb_s[name], limits.triad_gb_s)
            limits.streaming.append(stream)
        if row.kernel in FLOPS:
            compute = ComputeRow(row.kernel, row.preset, FLOPS[row.kernel](row.sizes))
            for name, ms in times(row).items():
                ok = name != "numpy" or row.numpy_check == "ok"
                compute.gflop_s[name] = compute.flops / (ms * 1e-3) / 1e9 if ms and ok else None
                compute.pct_of_matmul[name] = _pct(compute.gflop_s[name], limits.matmul_gflop_s)
            limits.compute.append(compute)
    limits.seconds = time.perf_counter() - start
    print(format_limits(limits, settings), file=out, flush=True)
    return limits


def blas_threads() -> int | None:
    """Threads of the first BLAS pool threadpoolctl sees (None: unknown)."""
    for pool in threadpool_info() or ():
        if pool.get("user_api") == "blas" and isinstance(pool.get("num_threads"), int):
            return pool["num_threads"]
    return None


def blas_plans(settings: BenchSettings) -> list[tuple[str, int | None]]:
    """The BLAS thread counts numpy code is timed on, as (label, limit or None for "as they are").

    With ``--blas-threads N``: only N (the whole run is limited already).  Otherwise BLAS as
    configured and, when that is more than one thread and threadpoolctl is installed, one thread
    too; the faster counts.  Multi-threaded OpenBLAS stalls on a small machine whose cores other
    jobs use (benchmarks/README.md), and one BLAS thread is what numpy gets there."""
    if settings.blas_threads is not None:
        return [(str(settings.blas_threads), None)]
    configured = blas_threads()
    if configured is None:
        return [("as configured", None)]
    plans: list[tuple[str, int | None]] = [(str(configured), None)]
    if configured > 1:
        plans.append(("1", 1))
    return plans


@contextlib.contextmanager
def _blas_limit(limit: int | None) -> Iterator[None]:
    if limit is None:
        yield
        return
    import threadpoolctl

    with threadpoolctl.threadpool_limits(limits=limit, user_api="blas"):
        yield


# ---- einsum section ----------------------------------------------------------------------------

def einsum_module() -> ModuleType:
    """The module ``polyfuse.einsum`` (the attribute ``polyfuse.einsum`` is the function)."""
    return importlib.import_module("polyfuse.tensor.einsum")


def _forget_compiled_einsums(module: ModuleType) -> None:
    """Drop polyfuse.einsum's in-memory kernels, so that each row's first call compiles its kernel.

    ``einsum_benchmarks`` asks ``einsum_path`` for every row's order, which compiles the kernel;
    without this the first-call column would show a cached kernel for the einsum rows only."""
    module.clear_caches()


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
    measured call, so that it allocates them again and its peak counts them."""
    import tracemalloc

    fn(*args)  # warm: compilation and caches are not the call's memory
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
                            row: EinsumRow) -> dict[str, float]:
    """Best ms of each contender: on each BLAS thread count, the faster counting (polyfuse's BLAS
    steps use the same BLAS as numpy), over interleaved rounds."""
    plans = blas_plans(settings)
    for _ in range(EINSUM_ROUNDS):
        for label, fn in contenders.items():
            by_blas = row.ms_by_blas.setdefault(label, {})
            for plan, limit in plans:
                with _blas_limit(limit):
                    best, runs = best_time(fn, args, settings.repeats, settings.min_time, copy=False)
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
        times = _time_einsum_contenders(contenders, args, settings, row)
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


def _record_failure(row: Any, stage: str, exc: Exception) -> None:
    """A row that failed in ``stage``: ERROR (a MISMATCH found earlier stays), and the reason;
    POLYFUSE_DEBUG=1 also prints the traceback."""
    if row.check != "MISMATCH":
        row.check = "ERROR"
    row.error = f"{stage}: {type(exc).__name__}: {exc}".strip()
    from polyfuse.options import debug_errors

    if debug_errors():
        traceback.print_exc()


# ---- output ------------------------------------------------------------------------------------

COLUMNS = ("kernel", "preset", "compile ms", "polyfuse ms", "numba ms", "speedup", "numpy ms", "np/pf",
           "nests", "check")
WIDTHS = (18, 6, 10, 11, 10, 8, 10, 7, 6, 8)
_LEFT = (0, 1, 8, 9)


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return f"{value:.4f}"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _check_cell(row: BenchRow) -> str:
    """The polyfuse-vs-numba check, plus the numpy formulation's when it did not agree."""
    return row.check if row.numpy_check in ("", "ok") else f"{row.check}, numpy {row.numpy_check}"


def format_row(row: BenchRow) -> str:
    cells = (row.kernel, row.preset, _ms(row.compile_ms), _ms(row.polyfuse_ms), _ms(row.numba_ms),
             _ratio(row.speedup), _ms(row.numpy_ms), _ratio(row.numpy_ratio), row.loop_nests or "-",
             _check_cell(row))
    return "  ".join(c.ljust(w) if i in _LEFT else c.rjust(w)
                     for i, (c, w) in enumerate(zip(cells, WIDTHS))).rstrip()


def header() -> str:
    names = "  ".join(c.ljust(w) if i in _LEFT else c.rjust(w)
                      for i, (c, w) in enumerate(zip(COLUMNS, WIDTHS))).rstrip()
    return names + "\n" + "-" * len(names)


def summary(report: BenchReport) -> str:
    lines = []
    geo = report.geomean_speedup
    ok = sum(1 for r in report.rows if r.check == "ok")
    lines.append(f"geometric mean speedup vs numba: {geo:.2f}x over {ok} kernel(s)" if geo
                 else "geometric mean speedup vs numba: - (no kernel passed its check)")
    numpy_geo = report.numpy_geomean
    with_numpy = sum(1 for r in report.rows if r.check == "ok" and r.numpy_check == "ok")
    if any(r.numpy_check for r in report.rows):
        lines.append(f"geometric mean numpy time / polyfuse time: {numpy_geo:.2f}x over {with_numpy} kernel(s) "
                     "with a numpy formulation" if numpy_geo else
                     "geometric mean numpy time / polyfuse time: - (no numpy formulation checked ok)")
    for row in report.failed:
        if row.check != "ok":
            detail = row.error or "outputs differ: max |diff| " + ", ".join(
                f"{k}={'shape differs' if v is None else f'{v:.3g}'}" for k, v in row.max_abs_diff.items())
            lines.append(f"{row.check} {row.kernel}: {detail}")
        if row.numpy_check not in ("", "ok"):
            detail = row.numpy_error or "numpy's outputs differ from numba's: max |diff| " + ", ".join(
                f"{k}={'shape differs' if v is None else f'{v:.3g}'}" for k, v in row.numpy_max_abs_diff.items())
            lines.append(f"{row.numpy_check} {row.kernel} (numpy formulation): {detail}")
    for row in report.rows:
        if row.declared_local_bytes:
            lines.append(f"local arrays of {row.kernel}: {_bytes(sum(row.declared_local_bytes.values()))} as written, "
                         f"{_bytes(sum(row.local_bytes.values()))} allocated after contraction "
                         f"(per thread: {', '.join(f'{k} {_bytes(v)}' for k, v in row.local_bytes.items()) or 'registers only'})")
    lines.append(f"({report.seconds:.1f} s in all; speedup = numba time / polyfuse time, np/pf = numpy time / "
                 "polyfuse time; > 1 means polyfuse is faster)")
    return "\n".join(lines)


def _bytes(count: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} B"


EINSUM_COLUMNS = ("einsum / spec", "1st call ms", "polyfuse ms", "np opt ms", "np step ms",
                  "opt_einsum ms", "vs opt", "vs step", "vs oe", "pf peak", "opt peak", "step peak", "check")
EINSUM_WIDTHS = (34, 11, 11, 10, 10, 13, 7, 7, 7, 9, 9, 9, 8)
_EINSUM_LEFT = (0, 12)


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
                         *(_ratio(row.ratios.get(o)) for o in EINSUM_OTHERS),
                         *(_peak(row.peak_extra_bytes.get(w)) for w in ("polyfuse", "numpy_opt", "numpy_step")),
                         row.check))


def _peak(nbytes: int | None) -> str:
    return "-" if nbytes is None else _bytes(nbytes).replace(".0 ", " ")


def einsum_summary(report: BenchReport) -> str:
    geo = report.einsum_geomeans
    ok = sum(1 for r in report.einsum_rows if r.check == "ok" and not r.runs.startswith("numpy.einsum"))
    lines = ["geometric mean ratio (other time / polyfuse time) over "
             f"{ok} row(s): " + ", ".join(f"{other} {_ratio(geo[other])}" for other in EINSUM_OTHERS)]
    for row in report.einsum_rows:
        if row.runs.startswith("numpy.einsum"):
            lines.append(f"note {row.name}: polyfuse ran {row.runs}; not in the geometric means")
        elif row.runs and row.runs != "polyfuse kernel":
            lines.append(f"note {row.name}: polyfuse ran {row.runs}")
    for row in report.einsum_failed:
        detail = row.error or "results differ from numpy.einsum(optimize=True): max |diff| " + ", ".join(
            f"{k}={'shape differs' if v is None else f'{v:.3g}'}" for k, v in row.max_abs_diff.items())
        lines.append(f"{row.check} {row.name}: {detail}")
    lines.append(f"({report.einsum_seconds:.1f} s; ratio > 1 means polyfuse is faster; 1st call = "
                 "compilation + one run; peak = tracemalloc peak of one call beyond its result)")
    return "\n".join(lines)


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:.0f} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:.0f} KiB"


def _metric_table(headers: tuple[str, str, str], digits: int, rows: list,
                  expected: Iterable[str]) -> list[str]:
    """Rows of (kernel, preset, size, {who: value}, {who: % of the reference}) for polyfuse, numba and
    numpy, under a header; ``headers`` names the size column, the unit and the percentage."""
    size, unit, pct = headers
    pct_width = len(pct) + 2
    whos = (("polyfuse", 15), ("numba", 12), ("numpy", 12))
    head = f"{'kernel':<18}{'preset':<8}{size:>8}" + "".join(
        f"{f'{who} {unit}':>{width}}{pct:>{pct_width}}" for who, width in whos)
    lines = [head, "-" * len(head)]
    for kernel, preset, size_text, values, pcts in rows:
        cells = "".join(f"{_num(values.get(who), digits):>{width}}{_num(pcts.get(who), 0):>{pct_width}}"
                        for who, width in whos)
        lines.append(f"{kernel:<18}{preset:<8}{size_text:>8}{cells}")
    if not rows:
        lines.append("(none of " + ", ".join(expected) + " ran and checked ok)")
    return lines


def format_limits(limits: Limits, settings: BenchSettings) -> str:
    n = limits.triad_elements
    l3 = f"; L3 {_mib(limits.l3_bytes)}" if limits.l3_bytes else ""
    lines = [f"limits: STREAM triad a[i] = b[i] + s*c[i] on {n} float64 elements (3 arrays of "
             f"{_mib(8 * n)}{l3}), 3 x 8 bytes counted per element, best of >= "
             f"{max(settings.repeats, TRIAD_RUNS)} runs"]
    lines.append(f"  {'triad':<34}{'ms':>9}{'GB/s':>9}  check")
    for run in limits.triad:
        lines.append(f"  {run.how:<34}{_ms(run.ms):>9}{_num(run.gb_s):>9}  {run.check}"
                     + (f"  ({run.error})" if run.error else ""))
    lines.append(f"  triad bandwidth: {_num(limits.triad_gb_s)} GB/s"
                 + (f" ({limits.triad_reference}, the best compiled triad; the reference for % triad)"
                    if limits.triad_reference else " (no compiled triad ran)"))
    lines.append("")
    lines.append("streaming kernels: GB/s = bytes / time, bytes = every array argument once (element size "
                 "x elements), kernel-local arrays not counted")
    lines += _metric_table(("MB", "GB/s", "% triad"), 1,
                           [(r.kernel, r.preset, f"{r.bytes / 1e6:.1f}", r.gb_s, r.pct_of_triad)
                            for r in limits.streaming], STREAMING)
    lines.append("")
    m = limits.matmul_shape
    lines.append(f"numpy matmul A @ B at gemm's sizes ({m[0]}x{m[1]} @ {m[1]}x{m[2]}), best of {MATMUL_ROUNDS} "
                 f"rounds of >= {max(settings.min_time, MATMUL_MIN_TIME):g} s per BLAS thread count (one "
                 "before the loops table):")
    for mm in limits.matmul:
        lines.append(f"  {mm.how:<34}{_ms(mm.ms):>9} ms{_num(mm.gflop_s, 2):>9} GFLOP/s"
                     + (f"  ({mm.error})" if mm.error else ""))
    lines.append(f"  matmul reference: {_num(limits.matmul_gflop_s, 2)} GFLOP/s"
                 + (f" ({limits.matmul_reference}, the faster)" if len(limits.matmul) > 1 else ""))
    if limits.blas_stall:
        lines.append(f"  note: BLAS on {limits.matmul[0].blas_threads} threads was {limits.blas_stall:.1f}x "
                     "slower than on 1 thread (multi-threaded BLAS stalls on this machine); the numpy "
                     "columns take the faster of the two (the JSON has both)")
    lines.append("")
    lines.append("compute kernels: GFLOP/s = 2 x multiply-adds of the matrix products / time; % matmul = "
                 "of the matmul reference")
    lines += _metric_table(("GFLOP", "GF/s", "% matmul"), 2,
                           [(r.kernel, r.preset, f"{r.flops / 1e9:.3f}", r.gflop_s, r.pct_of_matmul)
                            for r in limits.compute], FLOPS)
    lines.append(f"({limits.seconds:.1f} s; % triad above 100 means the data was partly in cache: the inputs "
                 "are copied afresh just before each timed run)")
    return "\n".join(lines)


# ---- driver ------------------------------------------------------------------------------------

def select_kernels(names: Sequence[str]) -> list:
    from polyfuse.bench import suite

    if not names:
        return list(suite.KERNELS.values())
    unknown = [n for n in names if n not in suite.KERNELS]
    if unknown:
        raise ValueError(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(suite.KERNELS)}")
    return [suite.KERNELS[n] for n in names]


def backend_available(target: str) -> bool:
    if target != "cpu":
        return True
    return importlib.util.find_spec("polyfuse.backends.cpu.llvm") is not None


def run_loops(settings: BenchSettings, out: TextIO) -> tuple[list[BenchRow], float]:
    specs = select_kernels(settings.kernels)
    plans = [label for label, _ in blas_plans(settings)]
    blas = (f"BLAS threads {plans[0]}" if len(plans) == 1
            else f"the faster of BLAS threads {' and '.join(plans)}")
    print(f"loops: {len(specs)} suite kernel(s), preset {settings.preset!r}, target {settings.target!r}, "
          f"polyfuse vs numba.njit (1 thread); numpy formulations on {blas}", file=out)
    print(header(), file=out, flush=True)
    start = time.perf_counter()
    rows = []
    for spec in specs:
        row = bench_kernel(spec, settings)
        rows.append(row)
        print(format_row(row), file=out, flush=True)
    return rows, time.perf_counter() - start


def run_einsum(settings: BenchSettings, out: TextIO) -> tuple[list[EinsumRow], float]:
    from polyfuse.bench import einsum_suite

    module = einsum_module()
    start = time.perf_counter()
    plans = [label for label, _ in blas_plans(settings)]
    blas = f"BLAS threads {plans[0]}" if len(plans) == 1 else f"the faster of BLAS threads {' and '.join(plans)}"
    print(f"einsum: polyfuse.einsum / polyfuse.spec (target 'cpu'), preset {settings.preset!r}, vs "
          "numpy.einsum(optimize=True), numpy step by step on polyfuse's order, opt_einsum.contract "
          f"(on {blas})", file=out)
    try:
        table = einsum_suite.einsum_benchmarks(settings.preset, seed=settings.seed)
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
          f"{settings.blas_threads if settings.blas_threads is not None else 'as configured'}"
          f"{' (numpy is timed on those and on 1 thread, the faster counts)' if len(blas_plans(settings)) > 1 else ''}",
          file=out)
    print(f"machine: {machine['cpu']} ({machine['usable_cores']} usable of {machine['cores']} cores); "
          + ", ".join(f"{k} {v}" for k, v in machine["versions"].items()), file=out, flush=True)
    report = BenchReport(settings, machine, [])
    if settings.section in ("loops", "all"):
        print("", file=out)
        early = None
        if settings.target == "cpu":  # one matmul round now, the others after the loops (see measure_matmul)
            early = new_limits(settings)
            measure_matmul(settings, early, 1)
        report.rows, report.seconds = run_loops(settings, out)
        print("", file=out)
        print(summary(report), file=out, flush=True)
        print("", file=out)
        if settings.target == "cpu":
            report.limits = run_limits(settings, report.rows, out, early)
        else:
            print(f"limits: skipped for --target {settings.target} (its times say nothing about speed)",
                  file=out, flush=True)
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
        chart = write_chart(report, Path(written).with_suffix(".png"))
        print(f"chart written to {chart}" if chart else "no chart: pip install matplotlib for a PNG bar chart",
              file=out)
    return 1 if report.failed or report.einsum_failed else 0


def write_chart(report: BenchReport, path: Path) -> Path | None:
    """A PNG bar chart of the speedups vs numba (and numpy where measured); None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return None
    rows = [r for r in report.rows if r.check == "ok" and r.speedup]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(max(8.0, 0.45 * len(rows)), 4.5))
    positions = np.arange(len(rows))
    ax.bar(positions - 0.2, [r.speedup or np.nan for r in rows], width=0.4,  # rows all have a speedup
           label="numba time / polyfuse time")
    ax.bar(positions + 0.2, [r.numpy_ratio or np.nan for r in rows], width=0.4, label="numpy time / polyfuse time")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xticks(positions, [r.kernel for r in rows], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup of polyfuse (log scale)")
    ax.set_title(f"polyfuse bench ({report.rows[0].preset} sizes); above 1: polyfuse is faster")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
