"""Fusion records for ``fuse="none"`` and ``"max"``, read off the generated loop AST.

Takes the Scop, its dependences and the final loop program (after astgen); guarantees one
``FusionDecision`` per pair of consecutive source nests, saying whether they share an outermost
loop and which dependences link them.  ``smart`` fusion makes these records itself while it
decides (polyfuse.schedule.fusion); this pass only reports what isl's scheduler did.
"""

from __future__ import annotations

from polyfuse.analysis.dependences import Dependences
from polyfuse.model.loop_ast import For, LoopProgram, statements_in, top_level
from polyfuse.model.scop import Scop
from polyfuse.schedule.fusion import FusionDecision, linking


def nests(scop: Scop) -> list[tuple[str, ...]]:
    groups: dict[int, list[str]] = {}
    for stmt in scop.statements:
        groups.setdefault(stmt.nest, []).append(stmt.name)
    return [tuple(v) for _, v in sorted(groups.items())]


def fused_groups(program: LoopProgram) -> list[set[str]]:
    """Statements sharing an outermost loop of the generated code."""
    return [set(statements_in(node)) for node in top_level(program.root) if isinstance(node, For)]


def report(scop: Scop, deps: Dependences, program: LoopProgram, *, fuse: str) -> tuple[FusionDecision, ...]:
    """Records for ``none``/``max``: which consecutive nests share an outer loop in ``program``."""
    groups = fused_groups(program)
    all_nests = nests(scop)
    decisions = []
    for first, second in zip(all_nests, all_nests[1:]):
        fused = any(g & set(first) and g & set(second) for g in groups)
        if fused:
            reason = "fused by isl's scheduler (whole components)"
        elif fuse == "none":
            reason = "fuse='none' keeps the original loop structure"
        else:
            reason = "isl's scheduler found no legal schedule with a common outer loop"
        decisions.append(FusionDecision(first, second, fused, reason, linking(deps, first, second)))
    return tuple(decisions)
