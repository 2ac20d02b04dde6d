"""Splitting a loop program into phases that a runtime can run one after another.

Each top-level node of the loop AST is a phase.  A phase whose outer loop is parallel can be
cut into chunks of iterations run on several threads, provided every local it must privatise
is used by no other phase (so no value has to flow out of a private copy).  Local scalars that
live across phases are kept in memory shared by the phases; the others become registers.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyfuse import ir
from polyfuse.loop_ast import For, LoopProgram, Node, exclusive_bound, statements_in, top_level


@dataclass(frozen=True)
class Phase:
    """One top-level node; ``parallel`` phases run their outer loop in chunks."""

    index: int
    node: Node
    parallel: bool
    private: tuple[str, ...] = ()  # local arrays each thread needs its own copy of
    start: ir.Expr | None = None  # first value of the outer iterator
    stop: ir.Expr | None = None  # exclusive bound of the outer iterator
    step: int = 1


def arrays_used(program: LoopProgram, node: Node) -> set[str]:
    used: set[str] = set()
    for name in statements_in(node):
        stmt = program.statement(name)
        used.add(stmt.array)
        used.update(e.array for e in ir.walk(stmt.value) if isinstance(e, ir.Load))
    return used


def plan_phases(program: LoopProgram) -> tuple[Phase, ...]:
    parts = top_level(program.root)
    used = [arrays_used(program, node) for node in parts]
    phases = []
    for index, node in enumerate(parts):
        others = set().union(*(u for k, u in enumerate(used) if k != index))
        phases.append(_phase(index, node, others))
    return tuple(phases)


def _phase(index: int, node: Node, used_elsewhere: set[str]) -> Phase:
    if not (isinstance(node, For) and node.parallel):
        return Phase(index, node, False)
    stop = exclusive_bound(node)
    if stop is None or used_elsewhere & set(node.private) or not _params_only(node.init, stop):
        return Phase(index, node, False)
    return Phase(index, node, True, node.private, node.init, stop, node.step)


def _params_only(*exprs: ir.Expr) -> bool:
    return all(not (isinstance(e, ir.Var) and e.name.startswith("_t")) for x in exprs for e in ir.walk(x))


def shared_scalars(program: LoopProgram) -> set[str]:
    """Local scalars used by more than one phase: they must live in memory, not registers."""
    scalars = {a.name for a in program.arrays if a.is_scalar}
    seen: dict[str, int] = {}
    for node in top_level(program.root):
        for name in arrays_used(program, node) & scalars:
            seen[name] = seen.get(name, 0) + 1
    return {name for name, count in seen.items() if count > 1}

