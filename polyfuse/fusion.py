"""Fusion decisions as records: which of the kernel's loop nests ended up sharing a loop, and why.

A *nest* is one top-level construct of the kernel body.  After scheduling we read the generated
loop AST: two nests are fused when some of their statements run under one outermost loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyfuse.dependences import Dependences
from polyfuse.loop_ast import For, LoopProgram, statements_in, top_level
from polyfuse.scop import Scop


@dataclass(frozen=True)
class FusionDecision:
    first: tuple[str, ...]  # statements of the earlier nest
    second: tuple[str, ...]  # statements of the later nest
    fused: bool
    reason: str
    dependences: tuple[str, ...]  # e.g. "RAW on T1: S0 -> S1"


def nests(scop: Scop) -> list[tuple[str, ...]]:
    groups: dict[int, list[str]] = {}
    for stmt in scop.statements:
        groups.setdefault(stmt.nest, []).append(stmt.name)
    return [tuple(v) for _, v in sorted(groups.items())]


def fused_groups(program: LoopProgram) -> list[set[str]]:
    """Statements sharing an outermost loop of the generated code."""
    return [set(statements_in(node)) for node in top_level(program.root) if isinstance(node, For)]


def decide(scop: Scop, deps: Dependences, program: LoopProgram, *, fuse: str,
           max_program: LoopProgram | None = None) -> tuple[FusionDecision, ...]:
    """One record per pair of consecutive nests."""
    groups = fused_groups(program)
    max_groups = fused_groups(max_program) if max_program is not None else None
    decisions = []
    all_nests = nests(scop)
    for first, second in zip(all_nests, all_nests[1:]):
        linking = tuple(
            f"{d.kind} on {d.array}: {src} -> {dst}" for d, src, dst in deps.between(set(first), set(second))
        )
        fused = _together(groups, first, second)
        decisions.append(FusionDecision(first, second, fused, _reason(fused, fuse, linking, max_groups,
                                                                      first, second), linking))
    return tuple(decisions)


def _together(groups: list[set[str]], first, second) -> bool:
    return any(g & set(first) and g & set(second) for g in groups)


def _reason(fused: bool, fuse: str, linking, max_groups, first, second) -> str:
    if fused:
        return "fused: they share an outer loop" + (" and the data they exchange" if linking else "")
    if fuse == "none":
        return "fuse='none' keeps the original loop structure"
    if not linking:
        return "no dependence links them, so fusing would not reuse any data"
    if max_groups is not None and _together(max_groups, first, second):
        return "fusing would lose outer parallelism (fuse='max' fuses them)"
    return "no legal fused schedule: the dependences between them forbid a common outer loop"
