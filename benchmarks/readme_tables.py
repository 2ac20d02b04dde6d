"""Markdown tables from a ``polyfuse bench`` JSON file, for README.md and docs/performance.md.

    polyfuse bench --json bench-results/bench.json
    python benchmarks/readme_tables.py bench-results/bench.json > /tmp/tables.md

Prints the loops table (with the one-thread and numba-parallel columns), the einsum table and
the numpy table, each with its geometric means, exactly as measured (nothing is re-timed here).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if value < 1 else f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def loops(data: dict[str, Any]) -> str:
    rows = [[r["kernel"], _ms(r["compile_ms"]), _ms(r["polyfuse_ms"]), _ms(r.get("polyfuse_1t_ms")),
             _ms(r["numba_ms"]), _x(r["speedup"]), _x(r.get("speedup_1t")), _ms(r.get("numba_par_ms")),
             _x(r.get("speedup_par")), _ms(r["numpy_ms"]), _x(r["numpy_ratio"]), r["loop_nests"] or "-",
             r["check"]] for r in data["rows"]]
    head = ["kernel", "compile ms", "polyfuse ms", "pf 1T ms", "numba ms", "speedup", "1T spd", "nb par ms",
            "vs par", "numpy ms", "np/pf", "nests", "check"]
    means = (f"Geometric means: **{_x(data['geomean_speedup'])} vs numba** (polyfuse on its threads), "
             f"{_x(data.get('geomean_speedup_1_thread'))} with polyfuse on 1 thread, "
             f"{_x(data.get('geomean_speedup_vs_numba_parallel'))} vs numba `parallel=True` with `prange`; "
             f"numpy time / polyfuse time {_x(data['geomean_numpy_ratio'])}.")
    return means + "\n\n" + _table(head, rows)


def einsum(data: dict[str, Any]) -> str:
    section = data.get("einsum")
    if not section:
        return ""
    rows = [[r["name"], _ms(r.get("first_call_ms")), _ms(r.get("polyfuse_ms")), _ms(r.get("numpy_opt_ms")),
             _ms(r.get("numpy_step_ms")), _ms(r.get("opt_einsum_ms")), _x(r["ratios"].get("numpy_opt")),
             _x(r["ratios"].get("numpy_step")), _x(r["ratios"].get("opt_einsum")), r["check"]]
            for r in section["rows"]]
    head = ["einsum / spec", "1st call ms", "polyfuse ms", "np opt ms", "np step ms", "opt_einsum ms", "vs opt",
            "vs step", "vs oe", "check"]
    g = section["geomean_ratios"]
    means = (f"Geometric means: {_x(g.get('numpy_opt'))} vs numpy.einsum(optimize=True), "
             f"{_x(g.get('numpy_step'))} vs numpy step by step (`@` for matrix products), "
             f"{_x(g.get('opt_einsum'))} vs opt_einsum.")
    return means + "\n\n" + _table(head, rows)


def numpy(data: dict[str, Any]) -> str:
    section = data.get("numpy")
    if not section:
        return ""
    rows = [[r["name"], _ms(r.get("compile_ms")), _ms(r.get("numpy_ms")), _ms(r.get("polyfuse_ms")),
             _ms(r.get("polyfuse_1t_ms")), _x(r["ratios"].get("numpy")), _x(r["ratios"].get("numpy_1t")),
             _ms(r.get("jax_ms")) if r.get("jax") == "ok" else (r.get("jax") or "-"), _x(r["ratios"].get("jax")),
             r["check"]] for r in section["rows"]]
    head = ["program", "compile ms", "numpy ms", "polyfuse ms", "pf 1T ms", "np/pf", "np/pf 1T", "jax ms",
            "jax/pf", "check"]
    g = section.get("geomean_ratios", {})
    means = ", ".join(f"{k} {_x(v)}" for k, v in g.items())
    return f"Geometric means (other time / polyfuse time): {means}.\n\n" + _table(head, rows)


def main(path: str) -> None:
    data = json.loads(open(path).read())
    machine = data.get("machine", {})
    print(f"<!-- {data.get('created')} {machine.get('cpu', '')} -->")
    for part in (loops(data), einsum(data), numpy(data)):
        if part:
            print(part + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench-results/bench.json")
