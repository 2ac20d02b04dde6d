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
   must start from the same state every run);
6. the outputs of polyfuse's last timed call are checked again (the first call runs before threads
   are tried; the timed calls run on them): a disagreement is a MISMATCH too.

``speedup`` is numba time / polyfuse time, so > 1 means polyfuse is faster.  Kernels with a
numpy formulation (``SuiteKernel.numpy_func``) also get a numpy column: it is checked against
numba's outputs and timed the same way (on BLAS as configured and on one BLAS thread, the faster
counting, unless ``--blas-threads`` is given); ``np/pf`` is numpy time / polyfuse time, each the
best of ``measure.NUMPY_ROUNDS`` series timed in turn with the other side's (``polyfuse_numpy_ms``
in the JSON: polyfuse's best there; the ``polyfuse ms`` column is its series before numba's).  The run
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

The numpy section (``--section numpy|all``) runs the NumPy programs of
``polyfuse.bench.numpy_suite`` (slices, ufuncs, reductions, in-place updates, stencil time loops,
NN layers) as written, under ``polyfuse.kernel`` (the same function, only the decorator differs)
and under ``jax.jit`` with ``np`` bound to ``jax.numpy`` where JAX is installed; every result is
checked against NumPy's before timing.  Programs waiting for a frontend construct (``@``, ``.T``,
``np.clip``, ...) show "not yet compiled: <the error>" until it lands.

The modules, in the order a run meets them: records (settings, rows, report), machine (CPU,
versions, thread pools), measure (timing, checks, one suite kernel), limits (the limits
section), einsum_rows (the einsum section, over einsum_suite's rows), numpy_rows (the numpy
section, over numpy_suite's programs), report (the tables and summaries).  This module is the driver: it runs the sections in order, prints as rows
complete, and writes the JSON and the chart.  ``polyfuse.cli`` imports it.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from polyfuse.bench.einsum_rows import _forget_compiled_einsums, bench_einsum_row, einsum_module
from polyfuse.bench.limits import measure_matmul, new_limits, run_limits
from polyfuse.bench.machine import (
    blas_plans,
    machine_info,
    polyfuse_threads,
    set_polyfuse_threads,
    threadpool_info,
)
from polyfuse.bench.measure import bench_kernel
from polyfuse.bench.numpy_rows import NUMPY_ROUNDS, bench_numpy_row, load_jax
from polyfuse.bench.numpy_suite import NumpyProgram
from polyfuse.bench.records import (
    DEFAULT_JSON,
    PRESETS,
    SECTIONS,
    BenchReport,
    BenchRow,
    BenchSettings,
    EinsumRow,
    NumpyRow,
)
from polyfuse.bench.report import (
    einsum_header,
    einsum_summary,
    format_einsum_row,
    format_numpy_row,
    format_row,
    header,
    numpy_header,
    numpy_summary,
    summary,
)

__all__ = ["DEFAULT_JSON", "PRESETS", "SECTIONS", "BenchSettings", "backend_available", "check_names",
           "machine_info", "main", "run", "select_kernels", "select_programs", "write_chart", "write_json"]


def select_kernels(names: Sequence[str]) -> list:
    from polyfuse.bench import suite

    if not names:
        return list(suite.KERNELS.values())
    unknown = [n for n in names if n not in suite.KERNELS]
    if unknown:
        raise ValueError(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(suite.KERNELS)}")
    return [suite.KERNELS[n] for n in names]


def select_programs(names: Sequence[str], *, strict: bool = True) -> list[tuple[NumpyProgram, bool]]:
    """The numpy section's programs as ``(program, pending)``: all of them, or those named
    (``strict``: an unknown name is a ValueError; otherwise names of other sections are skipped)."""
    from polyfuse.bench import numpy_suite

    programs = [(p, False) for p in numpy_suite.PROGRAMS.values()] + [
        (p, True) for p in numpy_suite.PENDING.values()]
    if not names:
        return programs
    known = numpy_suite.all_programs()
    unknown = [n for n in names if n not in known]
    if unknown and strict:
        raise ValueError(f"unknown numpy program(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return [(p, pending) for p, pending in programs if p.name in names]


def check_names(settings: BenchSettings) -> None:
    """ValueError for a ``--kernels`` name that no section of this run knows."""
    if settings.section == "numpy":
        select_programs(settings.kernels)
    elif settings.section == "all" and settings.kernels:
        from polyfuse.bench import numpy_suite, suite

        unknown = [n for n in settings.kernels if n not in suite.KERNELS and n not in numpy_suite.all_programs()]
        if unknown:
            raise ValueError(f"unknown kernel(s) {', '.join(unknown)}; see polyfuse bench --list")
    elif settings.section != "einsum":
        select_kernels(settings.kernels)


def backend_available(target: str) -> bool:
    if target != "cpu":
        return True
    return importlib.util.find_spec("polyfuse.backends.cpu.llvm") is not None


def run_loops(settings: BenchSettings, out: TextIO) -> tuple[list[BenchRow], float]:
    if settings.section == "all" and settings.kernels:  # names of numpy programs are the numpy section's
        specs = [s for s in select_kernels(()) if s.name in settings.kernels]
    else:
        specs = select_kernels(settings.kernels)
    plans = [label for label, _ in blas_plans(settings)]
    blas = (f"BLAS threads {plans[0]}" if len(plans) == 1
            else f"the faster of BLAS threads {' and '.join(plans)}")
    print(f"loops: {len(specs)} suite kernel(s), preset {settings.preset!r}, target {settings.target!r}, "
          f"polyfuse vs numba.njit (1 thread); numpy formulations on {blas}; np/pf: the best of "
          f"{NUMPY_ROUNDS} series of each, timed in turn", file=out)
    print(header(), file=out, flush=True)
    start = time.perf_counter()
    rows = []
    for spec in specs:
        row = bench_kernel(spec, settings)
        rows.append(row)
        print(format_row(row), file=out, flush=True)
    return rows, time.perf_counter() - start


def run_numpy(settings: BenchSettings, out: TextIO) -> tuple[list[NumpyRow], float]:
    """The numpy section: every selected program checked and timed, printed as it completes."""
    programs = select_programs(settings.kernels, strict=settings.section == "numpy")
    jax = load_jax()
    start = time.perf_counter()
    plans = [label for label, _ in blas_plans(settings)]
    blas = f"BLAS threads {plans[0]}" if len(plans) == 1 else f"the faster of BLAS threads {' and '.join(plans)}"
    jax_text = (f"jax.jit {jax.__version__} (float64, XLA's CPU threads)" if jax is not None
                else "no jax (not installed)")
    print(f"numpy: {len(programs)} NumPy program(s), preset {settings.preset!r}: numpy as written vs "
          f"polyfuse.kernel (target {settings.target!r}) vs {jax_text}; best of {NUMPY_ROUNDS} interleaved "
          f"rounds on {blas}", file=out)
    print(numpy_header(), file=out, flush=True)
    rows = []
    for program, pending in programs:
        row = bench_numpy_row(program, settings, pending=pending, jax=jax)
        rows.append(row)
        print(format_numpy_row(row), file=out, flush=True)
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
    check_names(settings)  # unknown names fail before anything runs
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
    if settings.section in ("numpy", "all"):
        print("", file=out)
        report.numpy_rows, report.numpy_seconds = run_numpy(settings, out)
        print("", file=out)
        print(numpy_summary(report), file=out, flush=True)
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
    """Run, write the JSON, and return the exit status (0: every kernel, einsum row and numpy
    program checked ok; a numpy program that is not compiled yet does not count)."""
    out = out if out is not None else sys.stdout
    needed = ({settings.target} if settings.section != "einsum" else set()) | (
        {"cpu"} if settings.section in ("einsum", "all") else set())
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
    return 1 if report.failed or report.einsum_failed or report.numpy_failed else 0


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
