"""Output: the loops, einsum and numpy tables, row by row, and their summaries.

Renders records (polyfuse.bench.records) as text; decides and measures nothing.  The limits
section renders itself (polyfuse.bench.limits.format_limits) with the cell formats here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from polyfuse.bench.records import EINSUM_OTHERS, BenchReport, BenchRow, EinsumRow, NumpyRow

COLUMNS = ("kernel", "preset", "compile ms", "polyfuse ms", "pf 1T ms", "numba ms", "speedup", "1T spd",
           "nb par ms", "vs par", "numpy ms", "np/pf", "nests", "check")
WIDTHS = (18, 6, 10, 11, 9, 10, 8, 7, 10, 7, 10, 7, 6, 8)
_LEFT = (0, 1, 12, 13)


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return f"{value:.4f}"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _check_cell(row: BenchRow) -> str:
    """The polyfuse-vs-numba check, plus the numpy formulation's and numba parallel's when they did
    not agree."""
    cell = row.check if row.numpy_check in ("", "ok") else f"{row.check}, numpy {row.numpy_check}"
    return cell if row.numba_par_check in ("", "ok") else f"{cell}, numba par {row.numba_par_check}"


def format_row(row: BenchRow) -> str:
    cells = (row.kernel, row.preset, _ms(row.compile_ms), _ms(row.polyfuse_ms), _ms(row.polyfuse_1t_ms),
             _ms(row.numba_ms), _ratio(row.speedup), _ratio(row.speedup_1t), _ms(row.numba_par_ms),
             _ratio(row.speedup_par), _ms(row.numpy_ms), _ratio(row.numpy_ratio), row.loop_nests or "-",
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
    if geo and any(r.polyfuse_1t_ms for r in report.rows):
        lines.append(f"geometric mean speedup vs numba with polyfuse on 1 thread, as numba's njit: "
                     f"{report.geomean_speedup_1t:.2f}x")
    par = report.geomean_speedup_par
    with_par = sum(1 for r in report.rows if r.check == "ok" and r.numba_par_check == "ok")
    if par:
        lines.append(f"geometric mean speedup vs numba parallel=True with prange on the loops polyfuse proves "
                     f"independent: {par:.2f}x over {with_par} kernel(s) that have such a loop")
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
        if row.numba_par_check not in ("", "ok"):
            lines.append(f"{row.numba_par_check} {row.kernel} (numba parallel=True, prange on lines "
                         f"{row.numba_par_loops}): {row.numba_par_error or 'outputs differ from serial numba'}")
        if row.numpy_check not in ("", "ok"):
            detail = row.numpy_error or "numpy's outputs differ from numba's: max |diff| " + ", ".join(
                f"{k}={'shape differs' if v is None else f'{v:.3g}'}" for k, v in row.numpy_max_abs_diff.items())
            lines.append(f"{row.numpy_check} {row.kernel} (numpy formulation): {detail}")
    for row in report.rows:
        if row.declared_local_bytes:
            lines.append(f"local arrays of {row.kernel}: {_bytes(sum(row.declared_local_bytes.values()))} as written, "
                         f"{_bytes(sum(row.local_bytes.values()))} allocated after contraction "
                         f"(per thread: {', '.join(f'{k} {_bytes(v)}' for k, v in row.local_bytes.items()) or 'registers only'})")
    for row in report.rows:
        if row.blas_modes or row.blas_modes_1t:
            lines.append(f"BLAS modes of {row.kernel}'s timed calls (runs): {_modes(row.blas_modes)}; "
                         f"on one thread: {_modes(row.blas_modes_1t)}")
    lines.append(f"({report.seconds:.1f} s in all; speedup = numba time / polyfuse time, np/pf = numpy time / "
                 "polyfuse time; > 1 means polyfuse is faster)")
    return "\n".join(lines)


def _modes(sites: dict[str, dict[str, int]]) -> str:
    """``library 2, rows 5`` per site, the call's one mode (``blas call ...``) where it has one."""
    calls = {site: modes for site, modes in sites.items() if site.startswith("blas call")}
    shown = calls or sites
    return " | ".join(", ".join(f"{mode} {runs}" for mode, runs in sorted(modes.items()))
                      for modes in shown.values()) or "-"


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


NUMPY_COLUMNS = ("numpy program", "compile ms", "numpy ms", "polyfuse ms", "pf 1T ms", "jax ms", "np/pf",
                 "np/pf1T", "jax/pf", "check")
NUMPY_WIDTHS = (18, 10, 10, 11, 9, 10, 7, 7, 7, 8)
_NUMPY_LEFT = (0, 9)


def _numpy_line(cells: Sequence[str]) -> str:
    return "  ".join(c.ljust(w) if i in _NUMPY_LEFT else c.rjust(w)
                     for i, (c, w) in enumerate(zip(cells, NUMPY_WIDTHS))).rstrip()


def numpy_header() -> str:
    names = _numpy_line(NUMPY_COLUMNS)
    return names + "\n" + "-" * len(names)


def _jax_cell(row: NumpyRow) -> str:
    if row.jax == "ok":
        return _ms(row.jax_ms)
    return {"": "-", "n/a": "n/a"}.get(row.jax, row.jax)


def format_numpy_row(row: NumpyRow) -> str:
    if row.check == "pending":
        return f"{row.name.ljust(NUMPY_WIDTHS[0])}  {row.pending}"
    check = row.check if row.jax in ("", "ok", "n/a") else f"{row.check}, jax {row.jax}"
    return _numpy_line((row.name, _ms(row.compile_ms), _ms(row.numpy_ms), _ms(row.polyfuse_ms),
                        _ms(row.polyfuse_1t_ms), _jax_cell(row), _ratio(row.ratios.get("numpy")),
                        _ratio(row.ratios.get("numpy_1t")), _ratio(row.ratios.get("jax")), check))


def numpy_summary(report: BenchReport) -> str:
    rows = report.numpy_rows
    geo = report.numpy_geomeans
    ok = [r for r in rows if r.check == "ok"]
    with_jax = [r for r in ok if r.jax == "ok"]
    lines = [f"geometric mean numpy time / polyfuse time: {_ratio(geo['numpy'])} over {len(ok)} program(s)"]
    if any(r.polyfuse_1t_ms for r in rows):
        lines.append(f"geometric mean numpy time / polyfuse time with polyfuse on 1 thread, as NumPy's ufuncs: "
                     f"{_ratio(geo['numpy_1t'])}")
    if any(r.jax for r in rows):
        lines.append(f"geometric mean jax.jit time / polyfuse time: {_ratio(geo['jax'])} over {len(with_jax)} "
                     "program(s)")
    else:
        lines.append("jax: not installed, no jax column (pip install jax to add it)")
    timed = [r for r in ok if r.ratios.get("numpy")]
    if timed:
        slowest = min(timed, key=lambda r: r.ratios["numpy"] or math.inf)
        lines.append(f"slowest against numpy: {slowest.name} ({_ratio(slowest.ratios['numpy'])})")
    not_jax = [r.name for r in rows if r.jax == "n/a"]
    if not_jax:
        lines.append(f"jax n/a for {', '.join(not_jax)}: they write arrays in place, and JAX arrays are immutable")
    pending = [r.name for r in rows if r.check == "pending"]
    if pending:
        lines.append(f"not yet compiled: {', '.join(pending)} (the frontend refuses them today; each is "
                     "timed once it compiles)")
    for row in report.numpy_failed:
        if row.check != "ok":
            lines.append(f"{row.check} {row.name}: {row.error or _diffs(row, 'polyfuse')}")
        if row.jax in ("MISMATCH", "ERROR"):
            lines.append(f"{row.jax} {row.name} (jax): {row.jax_note or _diffs(row, 'jax')}")
    lines.append(f"({report.numpy_seconds:.1f} s; np/pf = numpy time / polyfuse time, np/pf1T the same with "
                 "polyfuse on 1 thread, jax/pf = jax.jit time / polyfuse time: > 1 means polyfuse is faster; "
                 "compile = polyfuse's compilation, with LLVM's work on each function's first use)")
    return "\n".join(lines)


def _diffs(row: NumpyRow, who: str) -> str:
    diff = row.max_abs_diff.get(who)
    return ("results differ from numpy's: "
            + ("a shape or the number of results differs" if diff is None else f"max |diff| {diff:.3g}"))
