"""Loop order for spatial locality: put a stride-1 loop innermost.

Before fusion, ``smart`` looks at each perfect loop nest (a chain of loops with nothing but the
next loop in between) and, when another loop of the chain would make more accesses walk memory
with stride 1, moves that loop innermost.  A loop whose body mixes statements and loops is first
distributed over them, so its inner nest becomes perfect.  Each change is kept only if the
schedule verifier accepts the whole program and the stride score rises.  This is the part of
Pluto's intra-tile reordering that matters most for plain loop code (``C += A[i,k] * B[k,j]``
with ``k`` innermost strides through ``B`` by rows).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.analysis.dependences import Dependences, compute_dependences
from polyfuse.model import ir
from polyfuse.model.funcs import VECTOR_MATH
from polyfuse.model.ir import linear_coefficient as coefficient
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.schedule_tree import LoopMember, LoopNode, StmtNode, TreeNode, perfect_chain
from polyfuse.model.scop import Scop
from polyfuse.schedule.expansion import expand, scalars_only_in
from polyfuse.schedule.legality import violations
from polyfuse.schedule.tiling import worth_tiling


@dataclass(frozen=True)
class LocalityDecision:
    loops: tuple[str, ...]  # loop variables of the nest, outermost first, before the change
    order: tuple[str, ...]  # after
    distributed: bool
    score_before: int
    score_after: int
    applied: bool
    reason: str


class LocalityPass:
    def __init__(self, scop: Scop, deps: Dependences, *, tiling: bool = False, vector_bytes: int = 0,
                 vector_math: bool = False, transpose: bool = False) -> None:
        self.scop = scop
        self.deps = deps
        self.expansion_over_budget = False  # an expanded program's dependences ran out of budget
        self.vector_math = vector_math  # split exp/log out of reduction loops so they vectorize
        self.tiling = tiling  # also distribute loops to expose perfect nests worth tiling
        self.vector_bytes = vector_bytes  # ... or worth register tiling (0: no register tiles)
        self.transpose = transpose  # ... or worth the square tiles of a transposing copy
        self.decisions: list[LocalityDecision] = []

    def run(self) -> tuple[TreeNode, ...]:
        return self.visit_body(self.scop.body, lambda body: body)

    def visit_body(self, body: tuple[TreeNode, ...], wrap) -> tuple[TreeNode, ...]:
        """Improve inner loops first, then the loop around them (which may distribute over them)."""
        result = list(body)
        k = 0
        while k < len(result):
            node = result[k]
            if not isinstance(node, LoopNode):
                k += 1
                continue

            def place(new: tuple[TreeNode, ...], k=k) -> tuple[TreeNode, ...]:
                return wrap(tuple(result[:k]) + new + tuple(result[k + 1:]))

            inner = self.visit_body(node.body, lambda b, n=node, p=place: p((replace(n, body=b),)))
            result[k] = node = replace(node, body=inner)
            replacement = self.improve(node, place)
            if replacement is not None:
                result[k:k + 1] = list(replacement)
                k += len(replacement)
            else:
                k += 1
        return tuple(result)

    def improve(self, node: LoopNode, place) -> tuple[TreeNode, ...] | None:
        """A better replacement for ``node`` (possibly several loops), or None."""
        chain = perfect_chain(node)
        if len(chain) >= 2:
            better = self.reorder(chain)
            if better is not None and self.accept(chain, (better,), place, distributed=False):
                return (better,)
            return None
        inner_loops = [c for c in node.body if isinstance(c, LoopNode)]
        if len(node.body) >= 2 and not inner_loops and self.vector_math:
            return self.split_vector_math(node, place)
        if len(node.body) < 2 or not inner_loops:
            return None
        # distribute the loop over its children; keep it only if some piece can be reordered
        pieces = tuple(_loop_over(node, (child,)) for child in node.body)
        improved = []
        changed = False
        for piece in pieces:
            sub = perfect_chain(piece)
            better = self.reorder(sub) if len(sub) >= 2 else None
            improved.append(better if better is not None else piece)
            changed |= better is not None or self.tile_worthy(improved[-1])
        if not changed:
            return None
        verdict = self.accept(perfect_chain(node), tuple(improved), place, distributed=True)
        if verdict:
            return tuple(improved)
        return self.expand_and_retry(node, tuple(improved), place) if verdict is False else None

    def split_vector_math(self, node: LoopNode, place) -> tuple[TreeNode, ...] | None:
        """Distribute an innermost loop that mixes ``exp``/``log`` with a reduction into one
        loop per statement (fusion merges the parallel ones back), so the math runs in a
        parallel loop, where it vectorizes (``backends/llvm_exprs.py``).  softmax's
        ``e = exp(x[j] - m); out[j] = e; s += e`` becomes ``e[j] = exp(...); out[j] = e[j]``
        then ``s += e[j]``."""
        statements = [self.scop.statement(n) for n in node.statements]
        if not any(_calls_vector_math(s.value) for s in statements):
            return None
        if not any(_is_reduction(s) and not _calls_vector_math(s.value) for s in statements):
            return None
        pieces = tuple(_loop_over(node, (child,)) for child in node.body)
        why = "distributed so that exp/log run in a parallel loop (they vectorize there)"
        verdict = self.accept(perfect_chain(node), pieces, place, distributed=True, wanted=why)
        if verdict:
            return pieces
        return self.expand_and_retry(node, pieces, place, wanted=why) if verdict is False else None

    def expand_and_retry(self, node: LoopNode, improved: tuple[TreeNode, ...], place, wanted: str = ""):
        """Distribution failed: if local scalars live only inside ``node``, give each iteration
        its own slot (scalar expansion) and try again with the expanded Scop."""
        names = scalars_only_in(self.scop, node)
        if not names:
            return None
        expanded: Scop | None = self.scop
        for name in names:
            expanded = expand(expanded, name, node) if expanded is not None else None
        if expanded is None:
            return None
        if self.expansion_over_budget:
            return None
        saved = (self.scop, self.deps)
        try:  # optional: the expanded program's dependences within isl's budget, or no expansion
            with bounded(expanded.context.get_ctx()):
                self.scop, self.deps = expanded, compute_dependences(expanded)
        except BudgetExceeded:
            # later expansions of this program would spend the same budget to give up the same way
            self.expansion_over_budget = True
            return None
        if self.accept(perfect_chain(node), improved, place, distributed=True, wanted=wanted,
                       note=f" after expanding {', '.join(names)} along {node.members[0].var}"):
            return improved
        self.scop, self.deps = saved
        return None

    def reorder(self, chain: list[LoopNode]) -> LoopNode | None:
        """The chain with its best stride-1 loop moved innermost, or None if already best."""
        members = [c.members[0] for c in chain]
        statements = chain[-1].body
        scores = [self.stride_score(m.var, chain[0].statements) for m in members]
        best = max(range(len(members)), key=lambda k: (scores[k], k))
        if best == len(members) - 1 or scores[best] <= scores[-1]:
            return None
        order = [k for k in range(len(members)) if k != best] + [best]
        body: tuple[TreeNode, ...] = tuple(statements)
        for k in reversed(order):
            body = (LoopNode((members[k],), chain[k].sign, body),)
        loop = body[0]
        assert isinstance(loop, LoopNode)
        return loop

    def accept(self, chain: list[LoopNode], replacement: tuple[TreeNode, ...], place, distributed: bool,
               note: str = "", wanted: str = "") -> bool | None:
        """True: applied; False: tried and illegal (recorded); None: no gain, so not tried.
        ``wanted`` names a gain the stride score does not see (then the change is tried)."""
        before = tuple(c.members[0].var for c in chain)
        after = tuple(v for node in replacement for v in _chain_vars(node))
        score_before, score_after = self.tree_score((chain[0],)), self.tree_score(replacement)
        tileable = distributed and any(self.tile_worthy(n) for n in replacement)
        if score_after <= score_before and not tileable and not wanted:
            return None
        problems = violations(self.scop, self.deps, self.scop.schedule_of(place(replacement)))
        applied = not problems
        what = ("stride-1 loop moved innermost" if score_after > score_before
                else "distributed into a tileable nest" if tileable else wanted)
        reason = (what + note) if applied else "illegal: " + "; ".join(problems)
        self.decisions.append(LocalityDecision(before, after, distributed, score_before, score_after,
                                               applied, reason))
        return applied

    def tile_worthy(self, node: TreeNode) -> bool:
        return worth_tiling(self.scop, node, cache=self.tiling, vector_bytes=self.vector_bytes,
                            transpose=self.transpose)

    def tree_score(self, nodes: tuple[TreeNode, ...], innermost: str | None = None) -> int:
        """Stride score of every statement under ``nodes`` for its own innermost loop."""
        total = 0
        for node in nodes:
            if isinstance(node, StmtNode):
                total += self.stride_score(innermost, (node.name,)) if innermost else 0
            else:
                var = node.members[0].var if len(node.members) == 1 else None
                total += self.tree_score(node.body, var)
        return total

    def stride_score(self, var: str, statements: tuple[str, ...]) -> int:
        """How well ``var`` as the innermost loop walks memory, summed over all accesses:
        +2 stride-1, +1 invariant read (stays in a register), -4 strided by a whole row or worse,
        and -4 for a write that does not move with ``var`` (a reduction: it cannot vectorize
        without reassociating, which polyfuse never does on its own), +1 where it may
        (a NumPy reduction's accumulation, ``ir.BinOp.reassoc``: it vectorizes into partial sums).
        A read of the element the statement writes is that write's stream, not a second one
        (counted twice, ``y[i] += A[i, j]`` scored walking ``A`` by columns above by rows)."""
        score = 0
        for name in statements:
            stmt = self.scop.statement(name)
            if stmt.index and all(coefficient(e, var) == 0 for e in stmt.index) or not stmt.index:
                # the same element written every iteration: a reduction along var, serial unless reassociable
                score += 1 if stmt.reassociable else -4
            else:
                score += _access_score(stmt.index, var)
            for index in _reads(stmt):
                score += _access_score(index, var)
        return score


def _reads(stmt) -> list[tuple[ir.Expr, ...]]:
    """Subscripts of the array elements ``stmt`` reads, but the one it writes."""
    return [e.index for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.index
            and not (e.array == stmt.array and e.index == stmt.index)]


def _access_score(index: tuple[ir.Expr, ...], var: str) -> int:
    coefficients = [coefficient(e, var) for e in index]
    if all(c == 0 for c in coefficients):
        return 1
    if coefficients[-1] in (1, -1) and all(c == 0 for c in coefficients[:-1]):
        return 2
    return -4


def _calls_vector_math(expr: ir.Expr) -> bool:
    """Inline vector math of floats (complex functions are scalar code: distributing them gains nothing):
    the ``VECTOR_MATH`` functions and ``x ** y`` of floats (``_vm_pow``) unless y is a constant 2, 3 or 4
    (``inline_power``: a few multiplies, cheap anywhere)."""
    return any((isinstance(e, ir.Call) and e.func in VECTOR_MATH and not e.dtype.startswith("complex"))
               or _is_float_power(e) for e in ir.walk(expr))


def _is_float_power(e: ir.Expr) -> bool:
    if isinstance(e, ir.Call) and e.func == "pow":
        exponent = e.args[1]
    elif isinstance(e, ir.BinOp) and e.op == "**":
        exponent = e.rhs
    else:
        return False
    while isinstance(exponent, ir.Cast):
        exponent = exponent.operand
    small = isinstance(exponent, ir.Const) and exponent.value in (2, 3, 4)
    return e.dtype.startswith("float") and not small


def _is_reduction(stmt) -> bool:
    """``x op= ...``: the statement reads the element it writes."""
    return any(isinstance(e, ir.Load) and e.array == stmt.array and e.index == stmt.index
               for e in ir.walk(stmt.value))


def _loop_over(node: LoopNode, body: tuple[TreeNode, ...]) -> LoopNode:
    """A copy of single-member loop ``node`` around ``body`` only."""
    stmts = tuple(s for child in body for s in child.statements)
    member = node.members[0]
    return LoopNode((LoopMember(member.var, stmts, member.shift),), node.sign, body)


def _chain_vars(node: TreeNode) -> tuple[str, ...]:
    return tuple(c.members[0].var for c in perfect_chain(node)) if isinstance(node, LoopNode) else ()


__all__ = ["LocalityDecision", "LocalityPass", "StmtNode"]
