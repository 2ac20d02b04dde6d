"""What one ``polyfuse bench`` run measures and reports: its settings, its rows, the report.

Plain dataclasses (:class:`BenchSettings`, :class:`BenchRow`, :class:`EinsumRow`,
:class:`NumpyRow`, the limits records, :class:`BenchReport`) and the report's JSON form; every
other bench module fills or reads them.  Separate so that measuring, the limits section, the
einsum and numpy sections and the output share one vocabulary without importing each other.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PRESETS = ("test", "quick", "bench", "large")  # "large": PolyBench LARGE loops and big NumPy programs
SECTIONS = ("loops", "einsum", "numpy", "all")
DEFAULT_JSON = Path("bench-results") / "bench.json"
RTOL = 1e-7
SCHEMA = 4  # 2: "section", "einsum" and machine["threadpools"]; 3: numpy columns, "limits"; 4: "numpy"


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
    section: str = "all"  # "loops" (the kernel suite vs numba), "einsum", "numpy" or "all"
    blas_threads: int | None = None  # limit BLAS pools with threadpoolctl (None: leave them as they are)

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"preset {self.preset!r}; choose one of {', '.join(PRESETS)}")
        if self.section not in SECTIONS:
            raise ValueError(f"section {self.section!r}; choose one of {', '.join(SECTIONS)}")
        if self.preset == "large" and self.section not in ("loops", "numpy"):
            raise ValueError("preset 'large' is defined for the loops and numpy sections (--section loops or numpy)")
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
    # the first call after the compile: LLVM optimises and generates each function it runs
    # (backends/cpu/llvm.py: split_functions), and it runs the serial measurement (JSON only)
    first_call_ms: float | None = None
    # of compile_ms: LLVM's work on first use of each function, in the calls (the rest: compile())
    lazy_build_ms: float | None = None
    polyfuse_ms: float | None = None
    numba_ms: float | None = None
    speedup: float | None = None  # numba_ms / polyfuse_ms
    polyfuse_1t_ms: float | None = None  # polyfuse on one thread (None: it ran on one anyway)
    speedup_1t: float | None = None  # numba_ms / polyfuse_1t_ms: numba njit runs on one thread
    # numba.njit(parallel=True) with prange on the loops polyfuse proves independent (bench.numba_parallel)
    numba_par_ms: float | None = None
    numba_par_check: str = ""  # "ok" | "MISMATCH" | "ERROR"; "": no loop qualifies
    numba_par_loops: list[int] = field(default_factory=list)  # source lines given prange
    speedup_par: float | None = None  # numba_par_ms / polyfuse_ms
    numba_par_error: str = ""
    polyfuse_runs: int = 0
    numba_runs: int = 0
    array_bytes: int = 0  # bytes of the kernel's array arguments, each counted once (not its locals)
    numpy_check: str = ""  # the numpy formulation against numba: "ok" | "MISMATCH" | "ERROR"; "": none
    numpy_ms: float | None = None  # suite.SuiteKernel.numpy_func, timed like the others: best of numpy_ms_by_blas
    numpy_ms_by_blas: dict[str, float] = field(default_factory=dict)  # BLAS threads -> ms (see blas_plans)
    numpy_ratio: float | None = None  # numpy_ms / polyfuse_numpy_ms
    # polyfuse's best in the series timed in turn with the numpy formulation's (numpy_ms's), on
    # polyfuse's threads: what numpy_ratio compares (polyfuse_ms: its series before numba's)
    polyfuse_numpy_ms: float | None = None
    numpy_runs: int = 0
    numpy_max_abs_diff: dict[str, float | None] = field(default_factory=dict)
    numpy_error: str = ""
    loop_nests: str = ""  # top-level loop nests "before->after" scheduling
    # the BLAS modes the timed calls ran (a product whose library's threads are a candidate, or
    # the call's one mode: backends/cpu/parallel.py BlasTimes): site -> mode -> runs, on polyfuse's
    # threads and on one thread; a two-thread time near the one-thread one says which mode it was
    blas_modes: dict[str, dict[str, int]] = field(default_factory=dict)
    blas_modes_1t: dict[str, dict[str, int]] = field(default_factory=dict)
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


#: What a numpy-section row is compared with; each ratio is their time / polyfuse time.
NUMPY_OTHERS = ("numpy", "jax")


@dataclass
class NumpyRow:
    """One NumPy program of polyfuse.bench.numpy_suite: as written, under ``polyfuse.kernel`` and
    under ``jax.jit`` (times in ms; None where not measured)."""

    name: str
    preset: str
    shapes: list[list[int]]  # each argument's shape; [] for a scalar
    check: str = "ERROR"  # polyfuse vs numpy: "ok" | "MISMATCH" | "ERROR" | "pending" (not compiled yet)
    pending: str = ""  # "not yet compiled: <file:line:col: the UnsupportedError's reason>"
    compile_ms: float | None = None  # kernel.compile, plus LLVM's work on each function's first use
    numpy_ms: float | None = None
    polyfuse_ms: float | None = None
    polyfuse_1t_ms: float | None = None  # polyfuse on one thread (None: it has one anyway)
    jax: str = ""  # "ok" | "MISMATCH" | "ERROR" | "n/a" (cannot run unchanged) | "": JAX not installed
    jax_note: str = ""  # why "n/a", or the error
    jax_ms: float | None = None
    jax_first_call_ms: float | None = None  # jax.jit's tracing and compilation plus one run
    # NUMPY_OTHERS: their ms / polyfuse ms; "numpy_1t": numpy ms / polyfuse_1t_ms
    ratios: dict[str, float | None] = field(default_factory=dict)
    runs_timed: dict[str, int] = field(default_factory=dict)
    ms_by_blas: dict[str, dict[str, float]] = field(default_factory=dict)  # each contender: BLAS threads -> ms
    max_abs_diff: dict[str, float | None] = field(default_factory=dict)  # vs numpy; None: shapes differ
    error: str = ""

    @property
    def failed(self) -> bool:
        """A wrong result or an error anywhere (a pending program is not a failure)."""
        return self.check in ("MISMATCH", "ERROR") or self.jax in ("MISMATCH", "ERROR")


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
    min_bytes: int = 0  # the traffic any schedule moves at least (limits.min_traffic); 0: not known
    gb_s: dict[str, float | None] = field(default_factory=dict)  # polyfuse, numba, numpy
    pct_of_triad: dict[str, float | None] = field(default_factory=dict)

    @property
    def ceiling_pct(self) -> float | None:
        """The % triad of a run moving ``min_bytes`` at the triad's bandwidth: ``bytes / min_bytes``."""
        return 100.0 * self.bytes / self.min_bytes if self.min_bytes else None


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
    numpy_rows: list[NumpyRow] = field(default_factory=list)
    numpy_seconds: float = 0.0

    @property
    def geomean_speedup(self) -> float | None:
        return geometric_mean([r.speedup for r in self.rows if r.check == "ok" and r.speedup])

    @property
    def geomean_speedup_1t(self) -> float | None:
        """The same geometric mean with polyfuse on one thread, as numba's njit runs (rows that
        ran on one thread anyway count with their only time)."""
        return geometric_mean([r.speedup_1t or r.speedup for r in self.rows if r.check == "ok" and r.speedup])

    @property
    def geomean_speedup_par(self) -> float | None:
        """Against numba with prange on threads, over the rows that have such a version."""
        return geometric_mean([r.speedup_par for r in self.rows if r.check == "ok" and r.numba_par_check == "ok"])

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
    def numpy_geomeans(self) -> dict[str, float | None]:
        """Geometric mean of numpy time / polyfuse time over the numpy-section rows that checked
        ok (``numpy_1t``: polyfuse on one thread, as NumPy's ufuncs; rows that ran on one thread
        anyway count with their only time), and of jax time / polyfuse time over those where JAX
        ran and agreed too."""
        ok = [r for r in self.numpy_rows if r.check == "ok"]
        return {"numpy": geometric_mean([r.ratios.get("numpy") for r in ok]),
                "numpy_1t": geometric_mean([r.ratios.get("numpy_1t") or r.ratios.get("numpy") for r in ok]),
                "jax": geometric_mean([r.ratios.get("jax") for r in ok if r.jax == "ok"])}

    @property
    def numpy_failed(self) -> list[NumpyRow]:
        return [r for r in self.numpy_rows if r.failed]

    @property
    def failed(self) -> list[BenchRow]:
        return [r for r in self.rows if r.check != "ok" or r.numpy_check not in ("", "ok")
                or r.numba_par_check not in ("", "ok")]

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
            "geomean_speedup_1_thread": self.geomean_speedup_1t,
            "geomean_speedup_vs_numba_parallel": self.geomean_speedup_par,
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
        if self.settings.section in ("numpy", "all"):
            data["numpy"] = {
                "seconds": round(self.numpy_seconds, 3),
                "geomean_ratios": self.numpy_geomeans,
                "rows": [asdict(r) for r in self.numpy_rows],
            }
        return data


def geometric_mean(values: Sequence[float | None]) -> float | None:
    good = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not good:
        return None
    return math.exp(sum(math.log(v) for v in good) / len(good))
