"""``kernel.explain()``: renders the records the pipeline stages produced; decides nothing."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from polyfuse.backends.cpu.phases import phase_plan
from polyfuse.backends.cpu.quotients import BLOCK, checked_quotients
from polyfuse.errors import PolyfuseError
from polyfuse.model.ir import to_python
from polyfuse.model.loop_ast import For, LazyText, StmtCall, display_names, nodes, render

RUNS_IN_PYTHON = ("calls with these sizes run the undecorated function: two slices NumPy requires equal are both "
                  "empty there by different amounts (b[1:] = a[2:] of empty arrays), outside what the compiled "
                  "code assumes (equal as written)")


@dataclass(frozen=True)
class Explanation:
    """Sections of text and data describing one compiled variant."""

    sections: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, variant, options) -> Explanation:
        """The explanation of a compiled variant (built once, or stored with a cache entry)."""
        if variant.explanation is None:
            variant.explanation = cls._build(variant, options)
        return variant.explanation

    @classmethod
    def _build(cls, variant, options) -> Explanation:
        stages = variant.stages
        scop, deps, sched = stages["lift"], stages["dependences"], stages["schedule"]
        program = stages["loop ast"]
        phases, chains = _phase_plan(variant.backend, program)
        return cls((
            ("options", options.key()),
            ("statements", [_statement(s) for s in scop.statements]),
            *((("kept as written", [_region(s) for s in scop.statements if s.region is not None]),)
              if any(s.region is not None for s in scop.statements) else ()),
            *((("accumulators", [asdict(d) for d in stages.decisions("accumulators")]),)
              if stages.decisions("accumulators") else ()),
            *((("overwritten stores", [asdict(d) for d in stages.decisions("overwritten stores")]),)
              if stages.decisions("overwritten stores") else ()),
            *((("loop products", [asdict(d) for d in stages.decisions("loop products")]),)
              if stages.decisions("loop products") else ()),
            *((("runs in python", {"sizes": scop.numpy_runs, "why": RUNS_IN_PYTHON}),)
              if scop.numpy_runs is not None else ()),
            ("dependences", [_dependence(d) for d in deps.items]),
            ("loop order", [asdict(d) for d in sched.locality]),
            ("fusion", [asdict(d) for d in stages["fusion report"]]),
            ("tiling", [asdict(c) for c in sched.tiling]),
            ("time tiling", [asdict(d) for d in getattr(sched, "time_tiling", ())]),
            ("outer parallelism", [asdict(d) for d in getattr(sched, "outer_parallelism", ())]),
            ("register tiles", [asdict(c) for c in sched.register_tiles]
             + [asdict(p) for p in stages.decisions("register promotion")]),
            *((("private sums", [asdict(d) for d in stages.decisions("private sums")]),)
              if stages.decisions("private sums") else ()),
            *((("pivot rows", [asdict(d) for d in stages.decisions("pivot rows")]),)
              if stages.decisions("pivot rows") else ()),
            *((("packed rows", [asdict(d) for d in stages.decisions("packed rows")]),)
              if stages.decisions("packed rows") else ()),
            *((("noop versions", [asdict(d) for d in stages.decisions("noop versions")]),)
              if stages.decisions("noop versions") else ()),
            ("coalesced loops", [asdict(d) for d in stages.decisions("coalesce")]),
            ("minmax lanes", [asdict(d) for d in stages.decisions("minmax lanes")]),
            ("interleaved loops", [asdict(d) for d in stages.decisions("interleave")]),
            ("blocked sums", [asdict(d) for d in stages.decisions("blocked sums")]),
            ("outer sums", [asdict(d) for d in stages.decisions("outer sums")]),
            ("contraction", [_contraction(d) for d in stages.decisions("contraction")]),
            ("schedule", {"source": sched.source, "notes": list(sched.notes),
                          "tree": sched.schedule.get_root().to_str()}),
            ("parallel loops", [_loop(n) for n in nodes(program.root) if isinstance(n, For)]),
            *((("prange claims", [asdict(c) for c in stages.get("prange claims")]),)
              if stages.get("prange claims") else ()),
            ("parallel regions", [asdict(p.region) for p in phases if p.region is not None]),
            *((("row-chunked products", chunked),)
              if options.target == "cpu" and (chunked := _row_chunked(phases)) else ()),
            *((("exact quotients", quotients),)
              if options.target == "cpu" and (quotients := _exact_quotients(program)) else ()),
            *((("phase chains", [asdict(d) for d in chains]),)
              if options.target == "cpu" and chains else ()),
            ("loop code", render(program)),
            *_backend_sections(variant.backend),
            ("compile seconds", dict(stages.seconds)),
            *((("compile deadline", deadline.note()),) if (deadline := stages.get("deadline")) and deadline.skipped
              else ()),
            ("cache", "compiled in this process"),
        ))

    def for_call(self, variant, values: dict[str, Any]) -> Explanation:
        """The "runs in python" section with whether this call's sizes run the undecorated
        function (a call the kernel refuses says so when it is made)."""
        if not any(name == "runs in python" for name, _ in self.sections):
            return self
        try:
            env = variant.bind(values)
            compiled = variant.bounds.check({p: env[p] for p in variant.params})
        except (PolyfuseError, AssertionError):
            return self
        return Explanation(tuple((name, {**value, "this call": "runs the undecorated function" if not compiled
                                         else "runs the compiled code"}) if name == "runs in python" else (name, value)
                                 for name, value in self.sections))

    def with_backend(self, backend) -> Explanation:
        """The backend's own sections as they are now, in place of those built with the
        explanation (or stored with a cache entry, which has none of this process's): the CPU
        backend's say what its runtime measured so far (BLAS modes, team or serial), which
        changes from call to call."""
        fresh = _backend_sections(backend)
        if not fresh:
            return self
        names = {name for name, _ in fresh}
        kept = [(name, value) for name, value in self.sections if name not in names]
        at = next((k for k, (name, _) in enumerate(kept) if name == "compile seconds"), len(kept))
        return Explanation((*kept[:at], *fresh, *kept[at:]))

    def at_sizes(self, sizes: dict[str, Any]) -> Explanation:
        """The fusion records with their traffic estimates evaluated at these sizes (a call's
        arrays and integers) and the footprint set against the cache sizes."""
        from polyfuse.analysis.traffic import evaluate, footprint_text
        from polyfuse.options import machine

        cpu = machine()
        records = []
        for record in self.to_dict().get("fusion", []):
            traffic = record.get("traffic")
            if traffic:
                # (the footprint's formula is computed here, not by the compile: analysis/traffic.py)
                traffic = {**traffic, "footprint_bytes": footprint_text(traffic)}
                saved = evaluate(traffic["saved_bytes"], sizes)
                footprint = evaluate(traffic["footprint_bytes"], sizes)
                level = None if footprint is None else next(
                    (name for name, size in (("L1", cpu.l1d), ("L2", cpu.l2), ("L3", cpu.l3)) if footprint <= size),
                    "memory")
                record = {**record, "traffic": traffic,
                          "at_these_sizes": {"saved_bytes": saved, "footprint_bytes": footprint,
                                             "footprint_fits": level}}
            records.append(record)
        loops = self.to_dict().get("parallel loops")
        explained = self if loops is None else self.replace_section("parallel loops", _loops_read(loops))
        return explained.replace_section("fusion", records)

    def replace_section(self, name: str, value: Any) -> Explanation:
        return Explanation(tuple((n, value if n == name else v) for n, v in self.sections))

    def to_dict(self) -> dict[str, Any]:
        return dict(self.sections)

    def __getitem__(self, name: str) -> Any:
        return self.to_dict()[name]

    def fused_loop_nests(self) -> int:
        """How many top-level loop nests the generated code has."""
        return sum(1 for line in self["loop code"].splitlines() if line.startswith("for "))

    def __str__(self) -> str:
        return "\n\n".join(f"== {name} ==\n{_text(value)}" for name, value in self.sections)

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython
        printer.text(str(self))


def _backend_sections(backend) -> tuple[tuple[str, Any], ...]:
    """Sections a backend reports about itself (the CUDA backend: GPU mapping and promotion)."""
    sections = getattr(backend, "explain_sections", None)
    return tuple(sections()) if sections is not None else ()


def _statement(stmt) -> dict[str, Any]:
    return {
        "name": stmt.name, "line": stmt.span.line, "source": stmt.source_line,
        "domain": stmt.domain.to_str(), "reads": stmt.reads.to_str(), "writes": stmt.writes.to_str(),
        "reassociable": stmt.reassociable,
    }


def _region(stmt) -> dict[str, Any]:
    """A loop kept as written (model/region.py): where, why, and what it may touch."""
    region = stmt.region
    return {"statement": stmt.name, "line": region.line, "source": stmt.source_line, "why": region.reason,
            "may read": list(region.reads), "may write": list(region.writes), "private": list(region.private)}


def _dependence(dep) -> dict[str, Any]:
    return {"kind": dep.kind, "array": dep.array, "local": dep.local,
            "pairs": [f"{a} -> {b}" for a, b in dep.statement_pairs()], "relation": dep.relation.to_str(),
            "basis": dep.approximation or "exact"}


def _contraction(decision) -> dict[str, Any]:
    def shape(extents) -> str:
        return display_names("(" + ", ".join(extents) + ("," if len(extents) == 1 else "") + ")")

    return {"array": decision.array, "before": shape(decision.shape_before),
            "after": shape(decision.shape_after), "itemsize": decision.itemsize, "reason": decision.reason}


def _exact_quotients(program) -> list[dict[str, Any]]:
    """The innermost loops whose ``rint(a / b)`` run through ``1 / b`` with a test, in blocks
    (backends/cpu/quotients.py)."""
    why = (f"rint(a / b) as rint(a * (1 / b)) where |q - rint(q)| + 2**-50 |q| < 0.5 proves it equal, in blocks "
           f"of {BLOCK} iterations; a block with a failing element runs again dividing; b outside "
           "[2**-1021, 2**1021]: the loop divides")
    return [{"loop": loop.iterator, "divisors": [display_names(to_python(d)) for d in divisors], "why": why}
            for loop in nodes(program.root) if isinstance(loop, For)
            and (divisors := checked_quotients(program, loop))]


def _phase_plan(backend, program) -> tuple[tuple, tuple]:
    """The phases and chain decisions the cpu backend planned and kept in its artifact; planned
    here for another target (the backend's plan is the one its code runs, and planning costs)."""
    artifact = getattr(backend, "artifact", None)
    if artifact is not None and hasattr(artifact, "chains"):
        return artifact.phases, artifact.chains
    return phase_plan(program)


def _row_chunked(phases) -> list[dict[str, Any]]:
    """The matrix products that run as phases cut by rows (backends/cpu/phases.row_chunked)."""
    why = ("a product kept whole: polyfuse's threads take its rows, one BLAS thread each "
           "(so does the serial run it is measured against)")
    triangle = ("; its {} triangle: each chunk ?syrk (a pair's: ?syr2k) on its diagonal block and ?gemm "
                "(a pair's: two) on the rest of its rows, the rows cut so that the chunks have the same work")
    library = ("; a site that ran on the library's threads before it was cut: the runtime measures "
               "three modes at each size -- the library's threads, the rows on polyfuse's threads "
               "(one BLAS thread each), one BLAS thread -- on whole calls, one mode for every such "
               "product of a call, and runs the fastest, the others again now and then "
               "(POLYFUSE_BLAS_THREADS, POLYFUSE_BLAS_CALL_MODE; \"BLAS threads\" below: what it measured)")
    return [{"statement": next(n.statement for n in nodes(p.node) if isinstance(n, StmtCall)),
             "rows": display_names(to_python(p.stop)),
             "why": why + (triangle.format(p.row_weights) if p.row_weights else "") + (library if p.library else "")}
            for p in phases if p.blas_rows and p.stop is not None]


def _loop(loop: For) -> dict[str, Any]:
    record: dict[str, Any] = {"iterator": loop.iterator, "parallel": loop.parallel, "private": list(loop.private)}
    why = loop.why_parallel
    if isinstance(why, LazyText) or why:
        # astgen's LazyText is computed when explain() reads it (``at_sizes``), not when a
        # compile stores its explanation in the disk cache (fdtd-2d: 50 ms of isl checks)
        record["why"] = why
    return record


def _loops_read(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The "parallel loops" records with their reasons as text (model/loop_ast.LazyText)."""
    read = []
    for record in records:
        if isinstance(record.get("why"), LazyText):
            why = str(record["why"])
            record = {k: v for k, v in record.items() if k != "why"} | ({"why": why} if why else {})
        read.append(record)
    return read


def _traffic(traffic: dict | None, here: dict | None) -> str:
    """The traffic estimate of a fusion record: formulas, and bytes at a call's sizes if known."""
    if not traffic:
        return ""
    shared = ", ".join(traffic["shared"]) or "none"
    if here and here["saved_bytes"] is not None:
        footprint = ("unknown" if here["footprint_bytes"] is None
                     else f"{here['footprint_bytes']} bytes, fits {here['footprint_fits']}")
        return (f"\n    traffic: saves {here['saved_bytes']} bytes (one pass over {shared}); one fused "
                f"iteration touches {footprint}")
    footprint = display_names(traffic.get("footprint_bytes") or "unknown")
    return (f"\n    traffic: saves {display_names(traffic['saved_bytes'])} bytes (one pass over {shared}); "
            f"one fused iteration touches {footprint} bytes")


def _time_tiles(value: dict[str, Any]) -> str:
    """A TimeTileDecision record."""
    where = f"- time loop {value['loop']} ({', '.join(value['statements'])})"
    if not value["applied"]:
        return f"{where}: not time tiled -- {value['reason']}"
    return (f"{where}: time tiles {' x '.join(map(str, value['sizes']))} of the skewed band "
            f"{value['band']}; {value['wavefront']}; footprint {value['footprint_bytes']} of "
            f"{value['budget_bytes']} bytes ({value['reason']})"
            + (f"; {value['rows']}" if value.get("rows") else "")
            + (f"; one thread: {value['one_thread']}" if value.get("one_thread") else "")
            + (f"; {value['whole_row']}" if value.get("whole_row") else ""))


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_text(v) if not isinstance(v, float) else f'{v * 1e3:.1f} ms'}"
                         for k, v in value.items())
    if isinstance(value, list):
        return "\n".join(_item(v) for v in value) or "(none)"
    return str(value)


def _item(value: Any) -> str:
    if not isinstance(value, dict):
        return f"- {value}"
    if "may read" in value:  # a loop kept as written (a while loop, a BLAS product, ...)
        private = f"; private {', '.join(value['private'])}" if value["private"] else ""
        return (f"- {value['statement']} (line {value['line']}): {value['source']}\n    kept as written: "
                f"{value['why']}; may read {', '.join(value['may read']) or 'nothing'}; may write "
                f"{', '.join(value['may write']) or 'nothing'}{private}")
    if "source" in value:
        order = ("\n    order:  a NumPy reduction: the cpu target may sum it in vector partial sums, not in index order"
                 if value.get("reassociable") else "")
        return (f"- {value['name']} (line {value['line']}): {value['source']}\n"
                f"    domain: {value['domain']}\n    reads:  {value['reads']}\n    writes: {value['writes']}{order}")
    if "kind" in value:
        return f"- {value['kind']} on {value['array']}: {', '.join(value['pairs'])}"
    if "claim" in value:
        return f"- line {value['line']}: prange({value['iterator']}) {value['claim']}"
    if "wavefront" in value:
        return _time_tiles(value)
    if "footprint_bytes" in value:
        sizes = " x ".join(map(str, value["sizes"])) or "none"
        return (f"- loops ({', '.join(value['loops'])}): tiles {sizes}, footprint "
                f"{value['footprint_bytes']} of {value['budget_bytes']} bytes ({value['reason']})")
    if "partials" in value:  # a sequential loop's sums privatised per chunk (passes.private_sums)
        if not value["applied"]:
            return f"- loop {value['loop']} (carries {', '.join(value['accumulators'])}): {value['reason']}"
        parts = ", ".join(f"{a} -> {p}" for a, p in zip(value["accumulators"], value["partials"]))
        private = f"; private {', '.join(value['private'])}" if value["private"] else ""
        if value.get("row_sums"):
            private += f"; rows' own sums in vector partial sums: {', '.join(value['row_sums'])}"
        return (f"- loop {value['loop']}: in parallel chunks, partial sums {parts}{private} -- {value['reason']}; "
                "reassociates these sums as BLAS does (blas=False keeps their order)")
    if "renamed" in value:  # an interleaved loop (passes.interleave)
        renamed = f"; own copies of {', '.join(value['renamed'])}" if value["renamed"] else ""
        carried = (f"; a sequential loop: each element of {', '.join(value['carried'])} still updated in its order"
                   if value.get("carried") else "")
        return (f"- loop {value['loop']}: {value['copies']} iterations side by side around "
                f"({', '.join(value['reductions'])}){renamed}{carried}")
    if "reductions" in value:
        sizes = " x ".join(map(str, value["sizes"])) or "none"
        return (f"- loops ({', '.join(value['loops'])}): register tile {sizes} around "
                f"({', '.join(value['reductions'])}) -- {value['reason']}")
    if "local" in value and "shape" in value:
        shape = " x ".join(map(str, value["shape"]))
        return (f"- {value['array']}: a {shape} tile kept in {value['local']} (registers) across loop "
                f"{value['loop']} ({', '.join(value['statements'])})")
    if "score_before" in value:
        verdict = "applied" if value["applied"] else "kept"
        return (f"- loops ({', '.join(value['loops'])}) -> ({', '.join(value['order'])})"
                f"{' after distribution' if value['distributed'] else ''}: {verdict}, stride score "
                f"{value['score_before']} -> {value['score_after']} ({value['reason']})")
    if "before" in value:
        return (f"- {value['array']}: {value['before']} -> {value['after']} "
                f"x {value['itemsize']} bytes; {value['reason']}")
    if "fused" in value:
        verdict = "fused" if value["fused"] else "not fused"
        text = f"- {', '.join(value['first'])} | {', '.join(value['second'])}: {verdict} -- {value['reason']}"
        return text + _traffic(value.get("traffic"), value.get("at_these_sizes"))
    return "- " + ", ".join(f"{k}={v}" for k, v in value.items())
