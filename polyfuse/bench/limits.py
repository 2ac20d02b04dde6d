"""The limits section: measured triad bandwidth and matmul GFLOP/s, and the suite against them.

A STREAM triad compiled by polyfuse and numba (and numpy's) gives the reference bandwidth;
numpy's ``A @ B`` at gemm's sizes the reference GFLOP/s; the memory-bound (:data:`STREAMING`)
and matrix-product (:data:`FLOPS`) suite kernels are then put against them from the loops
table's times.  :func:`format_limits` renders the section.  Runs after the loops table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO

import numpy as np

from polyfuse.bench.machine import _blas_limit, blas_plans, polyfuse_threads
from polyfuse.bench.measure import best_time
from polyfuse.bench.records import BenchRow, BenchSettings, ComputeRow, Limits, MatmulRun, StreamRow, TriadRun
from polyfuse.bench.report import _ms, _num

#: Suite kernels that stream their arrays with little reuse: their time is bounded by memory
#: bandwidth, so the limits section reports their array bytes / time against the triad.
STREAMING = ("chain3", "softmax", "atax", "bicg", "mvt", "gemver", "gesummv")

#: Bytes beyond "every array argument once" that any schedule of a streaming kernel moves when its
#: arrays are far bigger than the caches.  An array updated in place is read and written back, and
#: gemver's A is read once more: it is updated in place, and w = alpha*A x cannot finish a row
#: before x = beta*A^T y + z has every column sum of the updated A (polyfuse fuses the update with
#: the A^T y sweep: one read and one write of A, then one read for w).  atax, bicg and mvt read
#: their matrix once (one fused sweep), gesummv each of its two once.
EXTRA_TRAFFIC: dict[str, Callable[[dict[str, int]], int]] = {
    "gemver": lambda s: 8 * (2 * s["n"] * s["n"] + 2 * s["n"]),  # A written back and read again; w, x written back
    "mvt": lambda s: 8 * 2 * s["n"],  # x1 and x2 written back
}


def min_traffic(kernel: str, sizes: dict[str, int], array_bytes: int) -> int:
    """The bytes a streaming kernel moves at least: every array argument once plus EXTRA_TRAFFIC."""
    extra = EXTRA_TRAFFIC.get(kernel)
    return array_bytes + (extra(sizes) if extra else 0)

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
TRIAD_ELEMENTS = {"test": 1 << 12, "quick": 1 << 23, "bench": 1 << 24, "large": 1 << 24}
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
        from polyfuse.options import machine

        return int(machine().l3) or None
    except Exception:  # noqa: BLE001 - informational only
        return None


def polyfuse_best(row: BenchRow) -> float | None:
    """polyfuse's best series on its threads: the one before numba's, or one timed in turn with
    the numpy formulation's (``polyfuse_numpy_ms``), as NumPy's time is the best of its rounds."""
    known = [ms for ms in (row.polyfuse_ms, row.polyfuse_numpy_ms) if ms is not None]
    return min(known) if known else None


def _gb_s(nbytes: int, ms: float | None) -> float | None:
    return nbytes / (ms * 1e-3) / 1e9 if ms else None


def _pct(value: float | None, reference: float | None) -> float | None:
    return 100.0 * value / reference if value is not None and reference else None


def measure_triad(settings: BenchSettings, limits: Limits) -> None:
    """Time the triad compiled by polyfuse (its threads) and numba (1 thread), and numpy's."""
    import numba

    from polyfuse.kernel import kernel as polyfuse_kernel

    n = limits.triad_elements
    a, b, c = np.zeros(n), np.full(n, 1.0), np.full(n, 2.0)
    expected = 1.0 + TRIAD_SCALAR * 2.0
    threads = polyfuse_threads()
    contenders = (
        ("polyfuse", f"polyfuse, {threads or 1} thread(s)", lambda: polyfuse_kernel(stream_triad, target="cpu")),
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
    times = lambda r: {"polyfuse": polyfuse_best(r), "numba": r.numba_ms, "numpy": r.numpy_ms}  # noqa: E731
    for row in rows:
        if row.check != "ok":
            continue
        if row.kernel in STREAMING:
            stream = StreamRow(row.kernel, row.preset, row.array_bytes,
                               min_traffic(row.kernel, row.sizes, row.array_bytes))
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


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:.0f} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:.0f} KiB"


def _metric_table(headers: tuple[str, str, str], digits: int, rows: list,
                  expected: Iterable[str], ceiling: str = "") -> list[str]:
    """Rows of (kernel, preset, size, {who: value}, {who: % of the reference}) for polyfuse, numba and
    numpy, under a header; ``headers`` names the size column, the unit and the percentage.  With a
    ``ceiling`` header, each row carries one more number after its size: that column."""
    size, unit, pct = headers
    pct_width = len(pct) + 2
    whos = (("polyfuse", 15), ("numba", 12), ("numpy", 12))
    ceiling_width = len(ceiling) + 2 if ceiling else 0
    head = f"{'kernel':<18}{'preset':<8}{size:>8}{ceiling:>{ceiling_width}}" + "".join(
        f"{f'{who} {unit}':>{width}}{pct:>{pct_width}}" for who, width in whos)
    lines = [head, "-" * len(head)]
    for kernel, preset, size_text, values, pcts, *bound in rows:
        cells = "".join(f"{_num(values.get(who), digits):>{width}}{_num(pcts.get(who), 0):>{pct_width}}"
                        for who, width in whos)
        bound_text = f"{_num(bound[0], 0):>{ceiling_width}}" if ceiling else ""
        lines.append(f"{kernel:<18}{preset:<8}{size_text:>8}{bound_text}{cells}")
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
                 "x elements), kernel-local arrays not counted; ceiling = the % triad of a run that moves "
                 "the least traffic any schedule must (arrays updated in place written back, gemver's A "
                 "read twice and written once) at the triad's bandwidth")
    lines += _metric_table(("MB", "GB/s", "% triad"), 1,
                           [(r.kernel, r.preset, f"{r.bytes / 1e6:.1f}", r.gb_s, r.pct_of_triad,
                             r.ceiling_pct) for r in limits.streaming], STREAMING, ceiling="ceiling")
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
                 "are copied afresh just before each timed run, and NumPy's copy of an array smaller than "
                 "about the L3 stays in the caches, a larger one does not)")
    return "\n".join(lines)
