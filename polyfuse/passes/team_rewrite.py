"""What the passes that put NumPy sums on the thread team share (blocked_sums, outer_sums).

``TeamRewrite`` is a ``LoopRewrite`` that knows, at each loop it rewrites, how many loops and how
many parallel loops enclose it (a sum inside a parallel loop leaves the threads to that loop),
which names are loop iterators (a bound that uses one cannot size an array per call), and lets a
rewrite of a top-level loop return several top-level loops (``at_top``): each is then a phase of
its own, so a parallel one among them runs in chunks on the team without making the whole a
parallel region.
"""

from __future__ import annotations

from dataclasses import replace

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, LoopProgram, LoopRewrite, Node, nodes


class TeamRewrite(LoopRewrite):
    def __init__(self, program: LoopProgram) -> None:
        super().__init__(program)
        self.iterators = {n.iterator for n in nodes(program.root) if isinstance(n, For)}
        self.parallel_depth = 0  # parallel loops around the loop being rewritten
        self.loop_depth = 0  # loops around it, itself included: 1 at the top of the program
        self.top: set[int] = set()  # ids of the blocks that replace a top-level loop

    def run(self) -> tuple[LoopProgram, tuple]:
        program, decisions = super().run()
        if self.top and isinstance(program.root, Block):  # a block that replaced a top-level loop: its loops
            program = replace(program, root=Block(tuple(n for c in program.root.children for n in self._spread(c))))
        return program, decisions

    def _spread(self, node: Node) -> tuple[Node, ...]:
        return node.children if isinstance(node, Block) and id(node) in self.top else (node,)

    def at_top(self, loops: tuple[Node, ...]) -> Block:
        """``loops`` as the top-level loops that replace the one being rewritten."""
        block = Block(loops)
        self.top.add(id(block))
        return block

    def moves(self, expr: ir.Expr) -> bool:
        """Does ``expr`` use a loop iterator (then it is not fixed for the call)?"""
        return any(isinstance(e, ir.Var) and e.name in self.iterators for e in ir.walk(expr))

    def visit(self, node: Node) -> Node:
        if not isinstance(node, For):
            return super().visit(node)
        self.loop_depth += 1
        self.parallel_depth += node.parallel
        try:
            return super().visit(node)
        finally:
            self.loop_depth -= 1
            self.parallel_depth -= node.parallel
