"""Fusion decisions, as records with reasons.

``smart`` fusion is done here, on the loop-structure tree: adjacent loops that exchange or share
data are merged (the later one shifted when a dependence needs it), keeping each nest's own loop
order.  Every merge is checked by the schedule verifier and rejected if it would turn a parallel
loop sequential, unless that loop only reads big arrays the other loop reads too: then fusing
removes the memory traffic it is bound by (``SmartFusion.rides_along``), or the loop it then
carries only sums of products that passes/private_sums runs in chunks on the thread team
(``SmartFusion.chunks_sums``).  For ``none`` and ``max``
polyfuse.passes.fusion_report reports what the chosen schedule did, with the same records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.analysis.dependences import Dependences, carries, runs_before
from polyfuse.analysis.traffic import Traffic, fusion_traffic
from polyfuse.analysis.verify import schedule_violations
from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.isl_parts import maps_of, sets_of
from polyfuse.model.schedule_tree import LoopNode, TreeNode
from polyfuse.model.scop import Scop, Statement, added_term, isl_name
from polyfuse.options import first_violation
from polyfuse.schedule.contraction import FOLDS
from polyfuse.schedule.tiling import worth_tiling

MAX_SHIFT = 16


@dataclass(frozen=True)
class FusionDecision:
    first: tuple[str, ...]  # statements of the earlier loop (nest)
    second: tuple[str, ...]  # statements of the later one
    fused: bool
    reason: str
    dependences: tuple[str, ...]  # e.g. "RAW on T1: S0 -> S1"
    shift: int = 0  # iterations the later loop was shifted by to make fusion legal
    depth: int = 0  # 0 for outermost loops
    traffic: Traffic | None = None  # bytes a merge saves and one fused iteration's footprint


def linking(deps: Dependences, first, second) -> tuple[str, ...]:
    return tuple(f"{d.kind} on {d.array}: {s} -> {t}" for d, s, t in deps.between(set(first), set(second)))


class SmartFusion:
    """Greedy, verified merging of adjacent loops, outermost first."""

    def __init__(self, scop: Scop, deps: Dependences, *, tiling: bool = False, vector_bytes: int = 0,
                 serial_fusion: bool = True, chunked_sums: bool = False) -> None:
        self.scop = scop
        self.deps = deps
        self.tiling = tiling  # keep tile-worthy perfect nests apart unless fusion shrinks a local
        self.vector_bytes = vector_bytes  # ... and register-tileable ones (0: no register tiles)
        self.serial_fusion = serial_fusion  # may a parallel loop ride along a serial one (rides_along)
        self.chunked_sums = chunked_sums  # will passes/private_sums run sums a loop carries in chunks
        self.blocking = deps.validity()
        self.decisions: list[FusionDecision] = []
        self.iterators = {s.name: tuple(isl_name(v) for v in s.iterators) for s in scop.statements}
        self.reads = {s.name: _arrays(s.reads) for s in scop.statements}

    def run(self, body: tuple[TreeNode, ...] | None = None) -> tuple[TreeNode, ...]:
        """Fuse ``body`` (default: the program's own loop structure)."""
        return self.fuse_body(self.scop.body if body is None else body, lambda b: b, ())

    def fuse_body(self, body: tuple[TreeNode, ...], wrap, ancestors: tuple[LoopNode, ...]):
        result: list[TreeNode] = [body[0]] if body else []
        for index in range(1, len(body)):
            node, rest = body[index], body[index + 1:]
            merged = self.try_merge(
                result[-1], node, lambda m, r=rest: wrap(tuple(result[:-1]) + (m,) + r), ancestors
            )
            if merged is None:
                result.append(node)
            else:
                result[-1] = merged
        for k, node in enumerate(result):
            if isinstance(node, LoopNode) and len(node.body) > 1:
                head, tail = tuple(result[:k]), tuple(result[k + 1:])
                inner = self.fuse_body(
                    node.body, lambda b, n=node, h=head, t=tail: wrap(h + (replace(n, body=b),) + t),
                    ancestors + (node,),
                )
                result[k] = replace(node, body=inner)
        return tuple(result)

    def try_merge(self, prev: TreeNode, node: TreeNode, with_merged, ancestors) -> LoopNode | None:
        """The merge of ``prev`` and ``node`` if it is legal and worth it (a decision is recorded
        either way); ``with_merged(m)`` is the whole program with ``m`` in their place."""
        if not (isinstance(prev, LoopNode) and isinstance(node, LoopNode)) or prev.sign != node.sign:
            return None
        links = linking(self.deps, prev.statements, node.statements)
        traffic = None
        if links or self._share_inputs(prev, node):
            together = LoopNode(prev.members + node.members, prev.sign, prev.body + node.body)
            traffic = fusion_traffic(self.scop, prev.statements, node.statements,
                                     self._values(together, ancestors))

        def record(fused: bool, reason: str, shift: int = 0) -> None:
            self.decisions.append(FusionDecision(prev.statements, node.statements, fused, reason, links,
                                                 shift, len(ancestors), traffic))

        if traffic is None:
            record(False, "no data exchanged or shared, so fusing would not save memory traffic")
            return None
        exchanged_locally = any(self.scop.array(d.array).kind == "local"
                                for d, _, _ in self.deps.between(set(prev.statements), set(node.statements)))
        if not exchanged_locally and any(worth_tiling(self.scop, n, cache=self.tiling, vector_bytes=self.vector_bytes)
                                         for n in (prev, node)):
            record(False, "kept apart: a perfect nest worth tiling (for cache or registers) saves more "
                   "than fusing when no kernel-local intermediate would shrink")
            return None
        try:
            with bounded(self.scop.context.get_ctx()):
                shift, merged, verdict, why = self._check_merge(prev, node, with_merged, ancestors)
        except BudgetExceeded:
            record(False, "not fused: the legality analysis exceeded isl's operation budget")
            return None
        if verdict:
            record(False, verdict, shift)
            return None
        how = "fused" + (f" after shifting the later loop by {shift}" if shift else "")
        record(True, how + (why or (": they exchange data" if links else ": they read the same data")), shift)
        return merged

    def _check_merge(self, prev: LoopNode, node: LoopNode, with_merged, ancestors):
        """(shift, merged loop, reason it must not be used or "", why it is fused anyway or "")."""
        shift = self.required_shift(prev, node)
        members = tuple(replace(m, shift=m.shift + shift) for m in node.members)
        merged = LoopNode(prev.members + members, prev.sign, prev.body + node.body)
        schedule = self.scop.schedule_of(with_merged(merged))
        reversed_flow = self.reverses_a_flow(prev, node, schedule)
        if reversed_flow:
            return shift, merged, "illegal: " + reversed_flow, ""
        problems = schedule_violations(self.scop, self.deps, schedule, first=first_violation())
        if problems:
            return shift, merged, "illegal: " + "; ".join(problems), ""
        was_parallel = not self.carried(prev, ancestors) or not self.carried(node, ancestors)
        if not (was_parallel and self.carried(merged, ancestors)):
            return shift, merged, "", ""
        rides, why = self.rides_along(prev, node, ancestors)
        if not rides:
            rides, chunks = self.chunks_sums(prev, node, merged, ancestors)
            why = chunks if rides else why
        if not rides:
            rides, folds = self.folds_intermediates(prev, node, shift)
            why = folds if rides else why
        if not rides:
            return shift, merged, ("fusing would lose outer parallelism (the fused loop carries a dependence)"
                                   + (f"; not worth it: {why}" if why else "")), ""
        # the members' extents may differ: a guard per member in every iteration was slow
        return shift, replace(merged, separate=True), "", why

    def reverses_a_flow(self, prev: LoopNode, node: LoopNode, schedule: isl.Schedule) -> str:
        """What is wrong when ``schedule`` runs a write of ``prev`` no earlier than a read of
        ``node`` that takes its value from it (an exact RAW dependence), else "".  Then that read
        sees another writer (or none) and the verifier would reject the merge, so the whole
        dataflow comparison, the costly part of a rejected candidate (conv_bn_relu's two: 70-90 ms
        each), is not made, not even for explain(): the text names the pair found (a disk-cache
        store builds the explanation at every compile).  Only a sufficient test: a merge it
        passes is verified in full."""
        first, second = set(prev.statements), set(node.statements)
        order = schedule.get_map()
        for dep in self.deps.items:
            if dep.kind != "RAW" or dep.approximation:
                continue  # (memory-based RAW pairs include writes that are not the read's source)
            for pair in maps_of(dep.relation):
                writer, reader = pair.get_tuple_name(isl.dim_type.in_), pair.get_tuple_name(isl.dim_type.out)
                if writer in first and reader in second and not runs_before(isl.UnionMap.from_map(pair), order):
                    return f"a read of {dep.array} in {reader} would no longer follow the write in {writer} it reads"
        return ""

    def rides_along(self, prev: LoopNode, node: LoopNode, ancestors: tuple[LoopNode, ...]) -> tuple[bool, str]:
        """Whether fusing ``prev`` and ``node`` pays although the fused loop carries a dependence
        (so the parallel one of them, the *rider*, runs serially), and why (or why not).

        It pays when exactly one of them is parallel and its memory traffic disappears in the
        fused nest: its statements are loads, ``+``, ``-`` and ``*`` only (bandwidth-bound), and
        its largest arrays (rank 2 or more) are only read, and read by the other loop too.  Fused,
        the other loop's pass over them serves both, so the rider costs a few flops per element
        where on its own it streams the arrays again, on a memory bus that two threads barely
        speed up (mvt: ``A`` read once for ``A @ y1`` and ``A.T @ y2``).  A rider that writes a
        big array (gemver's ``A += u1 v1^T + ...``) keeps those writes fused, so fusing saves a
        third of the traffic and loses the parallelism; it fuses only where the fused loop's sums
        then run in chunks (``chunks_sums``).
        """
        carried = [self.carried(n, ancestors) for n in (prev, node)]
        if not self.serial_fusion or carried.count(False) != 1:
            return False, ""
        rider, other = (prev, node) if not carried[0] else (node, prev)
        which = "earlier" if rider is prev else "later"
        if not all(_streams_only(self.scop.statement(s)) for s in rider.statements):
            return False, f"the parallel {which} loop computes more than loads, + - *"
        used = set().union(*(self._arrays_of(s) for s in rider.statements))
        rank = max((self.scop.array(a).rank for a in used), default=0)
        big = sorted(a for a in used if self.scop.array(a).rank == rank)
        if rank < 2:
            return False, f"the parallel {which} loop streams no array of rank 2 or more"
        written = sorted(set(big) & {t for s in rider.statements for t in self.scop.statement(s).targets})
        if written:
            return False, f"the parallel {which} loop writes {', '.join(written)}, so fusing saves only part of its traffic"
        shared = set().union(*(self._arrays_of(s) for s in other.statements))
        if not set(big) <= shared:
            return False, f"the other loop does not read {', '.join(a for a in big if a not in shared)}"
        return True, (f" although the fused loop carries a dependence: the {which} loop, parallel on its own, only "
                      f"reads {', '.join(big)} (with loads, + - *), which the other loop reads too, so the fused "
                      f"nest reads {'them' if len(big) > 1 else 'it'} once instead of twice")

    def chunks_sums(self, prev: LoopNode, node: LoopNode, merged: LoopNode,
                    ancestors: tuple[LoopNode, ...]) -> tuple[bool, str]:
        """Whether fusing a parallel loop into a serial one pays although the fused loop carries
        a dependence, because what it carries is only sums of products that passes/private_sums
        then runs in chunks of iterations on the thread team (``chunked_sums``: cpu, ``blas=True``),
        so the fused nest stays parallel: a top-level loop, the parallel one computing with loads
        and ``+ - *`` only, its largest arrays (rank 2 or more) read by the other loop too, and
        every statement that touches an array the fused loop carries an ``acc[s] += M[...] * e``
        update (``M`` of rank 2 or more) at subscripts that do not move with the loop.  Fused, the
        other loop reads each row the parallel one just wrote from cache instead of memory:
        gemver's ``A += u1 v1^T + u2 v2^T`` and ``x += beta A^T y`` read ``A`` once instead of
        twice (the rider's writes stay, so a third of their traffic goes)."""
        carried = [self.carried(n, ancestors) for n in (prev, node)]
        if not self.chunked_sums or ancestors or carried.count(False) != 1:
            return False, ""
        rider, other = (prev, node) if not carried[0] else (node, prev)
        which = "earlier" if rider is prev else "later"
        if not all(_streams_only(self.scop.statement(s)) for s in rider.statements):
            return False, ""
        used = set().union(*(self._arrays_of(s) for s in rider.statements))
        rank = max((self.scop.array(a).rank for a in used), default=0)
        big = sorted(a for a in used if self.scop.array(a).rank == rank)
        shared = set().union(*(self._arrays_of(s) for s in other.statements))
        if rank < 2 or not set(big) <= shared:
            return False, ""
        values = self._values(merged, ancestors)
        sums = sorted({d.array for d in self.deps.items if (d.kind == "RAW" or not d.local)
                       and carries(d.relation, values, self.scop.context)})
        for name in merged.statements:
            stmt = self.scop.statement(name)
            touched = self._arrays_of(name) & set(sums)
            if touched and not self._chunkable_update(stmt, touched, merged):
                return False, ""
        return True, (f" although the fused loop carries a dependence: it carries only the sums of products "
                      f"{', '.join(sums)}, which run in chunks with partial sums on the thread team (private "
                      f"sums), and the {which} loop, parallel on its own, computes with loads, + - * on "
                      f"{', '.join(big)}, which the other loop reads in the same iteration")

    def _chunkable_update(self, stmt: Statement, arrays: set[str], loop: LoopNode) -> bool:
        """``stmt`` is ``acc[s] = acc[s] + e``, ``acc`` the only one of ``arrays`` it touches,
        ``e`` multiplying an element of an array of rank 2 or more, ``s`` free of ``loop``'s
        variable (passes/private_sums' update, checked again there on the loop AST)."""
        term = added_term(stmt)
        if term is None or arrays != {stmt.array}:
            return False
        member = next(m for m in loop.members if stmt.name in m.statements)
        variable = stmt.iterators[self.iterators[stmt.name].index(member.var)]
        if any(isinstance(e, ir.Var) and e.name == variable for i in stmt.index for e in ir.walk(i)):
            return False
        return any(isinstance(e, ir.BinOp) and e.op == "*" and any(
            isinstance(side, ir.Load) and self.scop.array(side.array).rank >= 2 for side in (e.lhs, e.rhs))
            for e in ir.walk(term))

    def folds_intermediates(self, prev: LoopNode, node: LoopNode, shift: int) -> tuple[bool, str]:
        """Whether fusing ``prev`` and ``node`` pays although the fused loop carries a dependence,
        because the only data they exchange is kernel-local arrays that the fused loop produces
        and consumes a few iterations apart: contraction then folds each to ``shift + 1`` slots
        of that loop (rows of a stencil chain's intermediates: so only loops around inner ones;
        innermost loops stay parallel for the vectorizer), so the fused nest never writes
        them to memory nor reads them back.  Only for bandwidth-bound loops (loads, ``+ - *``),
        whose speed is the memory traffic, which two threads on one memory bus barely raise
        (hdiff: a Laplacian and two fluxes, each a full array written and read once more)."""
        if not self.serial_fusion or shift >= max(FOLDS):
            return False, ""
        if not any(isinstance(n, LoopNode) for n in prev.body + node.body):
            return False, ""  # innermost loops: kept parallel, so that they vectorize
        if not all(_streams_only(self.scop.statement(s)) for s in prev.statements + node.statements):
            return False, ""
        exchanged = {d.array for d, _, _ in self.deps.between(set(prev.statements), set(node.statements))}
        if not exchanged or any(self.scop.array(a).kind != "local" or self.scop.array(a).rank < 2
                                for a in exchanged):
            return False, ""
        names = ", ".join(sorted(exchanged))
        return True, (f" although the fused loop carries a dependence: the loops exchange only the kernel-local "
                      f"{names} (with loads, + - *), consumed at most {shift + 1} iterations after it is made, so "
                      f"contraction folds it to {shift + 1} rows instead of a whole array written and read back")

    def _arrays_of(self, stmt: str) -> set[str]:
        return self.reads[stmt] | set(self.scop.statement(stmt).targets)

    def _share_inputs(self, prev: LoopNode, node: LoopNode) -> bool:
        a = set().union(*(self.reads[s] for s in prev.statements))
        b = set().union(*(self.reads[s] for s in node.statements))
        return bool(a & b)

    def required_shift(self, prev: LoopNode, node: LoopNode) -> int:
        """Smallest constant shift of ``node`` that makes every dependence from ``prev`` forward."""
        deps = self.deps.union().intersect_domain(self._domain(prev)).intersect_range(self._domain(node))
        if deps.is_empty():
            return 0
        times = deps.apply_domain(self._values(prev, ())).apply_range(self._values(node, ()))
        lowest = 0
        for delta in sets_of(times.deltas()):
            low = delta.intersect_params(self.scop.context.align_params(delta.get_space())).dim_min_val(0)
            if not low.is_int():
                return 0  # unbounded or parametric: no constant shift helps; the verifier decides
            lowest = min(lowest, int(low.to_python()))
        return -lowest if -lowest <= MAX_SHIFT else 0

    def carried(self, loop: LoopNode, ancestors: tuple[LoopNode, ...]) -> bool:
        return carries(self.blocking, self._values(loop, ancestors), self.scop.context)

    def _domain(self, loop: LoopNode) -> isl.UnionSet:
        result = isl.UnionSet.empty(self.scop.context.get_space())
        for name in loop.statements:
            result = result.union(isl.UnionSet.from_set(self.scop.statement(name).domain))
        return result

    def _values(self, loop: LoopNode, ancestors: tuple[LoopNode, ...]) -> isl.UnionMap:
        """statement -> (ancestor loop values..., this loop's value) for statements under ``loop``."""
        pieces = []
        for name in loop.statements:
            values = ", ".join(_value(a, name) for a in ancestors + (loop,))
            pieces.append(f"{name}[{', '.join(self.iterators[name])}] -> [{values}]")
        return isl.UnionMap(f"{self.scop.prefix} -> {{ {'; '.join(pieces)} }}").intersect_domain(self._domain(loop))


def _value(loop: LoopNode, stmt: str) -> str:
    sign = "" if loop.sign > 0 else "-"
    member = next(m for m in loop.members if stmt in m.statements)
    return f"({sign}{member.var} + {member.shift})"


def _streams_only(stmt) -> bool:
    """Whether ``stmt`` computes only with loads, constants, variables and ``+ - *``."""
    return stmt.region is None and _cheap(stmt.value)


def _cheap(expr: ir.Expr) -> bool:
    if isinstance(expr, (ir.Load, ir.Const, ir.Var)):
        return True  # a load's subscripts are affine: address arithmetic only
    if isinstance(expr, ir.Cast):
        return _cheap(expr.operand)
    if isinstance(expr, ir.Unary):
        return expr.op == "neg" and _cheap(expr.operand)
    return isinstance(expr, ir.BinOp) and expr.op in ("+", "-", "*") and _cheap(expr.lhs) and _cheap(expr.rhs)


def _arrays(accesses: isl.UnionMap) -> set[str]:
    names: set[str] = set()
    accesses.foreach_map(lambda m: names.add(m.get_tuple_name(isl.dim_type.out)))
    return names
