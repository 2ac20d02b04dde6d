"""``parallel=False`` (numba's option): every loop of the program runs on the calling thread.

Clears the ``parallel`` flag (and the private copies it needs) on every loop of the loop AST, so
the CPU backend makes no parallel phase or region.  Runs last among the loop passes, so the code
inside each loop is what it would be with threads; only the cutting into chunks goes away.
"""

from __future__ import annotations

from dataclasses import replace

from polyfuse.model.loop_ast import Block, For, If, LoopProgram, Node


def serial_loops(program: LoopProgram) -> tuple[LoopProgram, list[str]]:
    """The program with no parallel loop, and the iterators of the loops that were parallel."""
    cleared: list[str] = []
    return replace(program, root=_serial(program.root, cleared)), cleared


def _serial(node: Node, cleared: list[str]) -> Node:
    if isinstance(node, For):
        if node.parallel:
            cleared.append(node.iterator)
        return replace(node, body=_serial(node.body, cleared), parallel=False, private=())
    if isinstance(node, If):
        otherwise = None if node.otherwise is None else _serial(node.otherwise, cleared)
        return replace(node, then=_serial(node.then, cleared), otherwise=otherwise)
    if isinstance(node, Block):
        return replace(node, children=tuple(_serial(c, cleared) for c in node.children))
    return node
