"""How a loop program runs on a GPU: which loops become kernel launches, grids and host loops.

The plan is a small tree over the loop AST:

* ``Launch``: one kernel.  A parallel loop whose bounds the host can compute (parameters and
  enclosing host loops only) becomes a grid of threads, one iteration per thread (grid-stride, so
  any trip count fits any grid); when its body is another such parallel loop, perfectly nested,
  that one becomes the second grid dimension.  The loop whose iterator is the last (stride-1)
  subscript of most accesses goes on x (threadIdx.x), for coalescing.  Anything else is a
  single-thread launch (``<<<1, 1>>>``): correct and slow.
* ``HostFor`` / ``HostIf``: a sequential loop (or a guard) with host-computable bounds whose body
  holds a parallel loop runs on the host, launching kernels for its body at each iteration (the
  time loops of stencils), instead of running the whole nest on one GPU thread.

Afterwards: a parallel launch whose private arrays are used by another launch is made serial
(nothing can flow out of per-thread copies), adjacent serial launches are merged into one, and
local scalars used by more than one launch become one-element device arrays ("cells"); the other
local scalars are kernel variables, one per thread.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from polyfuse.model import ir
from polyfuse.model.loop_ast import (
    Block,
    For,
    If,
    LoopProgram,
    Node,
    StmtCall,
    arrays_used,
    exclusive_bound,
    nodes,
)
from polyfuse.model.scop import isl_name


@dataclass(frozen=True)
class Launch:
    """One kernel launch running ``node``; ``mapped`` loops (outermost first) span the grid."""

    index: int
    node: Node
    host_vars: tuple[str, ...]  # iterators of enclosing host loops, passed as int64 arguments
    mapped: tuple[For, ...] = ()  # () for a single-thread launch
    x: int = 0  # which of ``mapped`` runs along x (threadIdx.x)
    private: tuple[str, ...] = ()  # locals each thread needs its own copy of
    reason: str = ""  # why a launch is single-threaded

    @property
    def parallel(self) -> bool:
        return bool(self.mapped)


@dataclass(frozen=True)
class HostFor:
    loop: For
    body: tuple[Unit, ...]


@dataclass(frozen=True)
class HostIf:
    cond: ir.Expr
    then: tuple[Unit, ...]
    otherwise: tuple[Unit, ...] = ()


Unit = Launch | HostFor | HostIf


@dataclass(frozen=True)
class Plan:
    units: tuple[Unit, ...]
    launches: tuple[Launch, ...]
    cells: frozenset[str]  # local scalars living in device memory
    registers: frozenset[str]  # local scalars living in kernel variables


def free_vars(*exprs: ir.Expr) -> set[str]:
    return {e.name for x in exprs for e in ir.walk(x) if isinstance(e, ir.Var)}


def make_plan(program: LoopProgram) -> Plan:
    units, _ = _renumber(_Planner(program).plan(program.root, ()), 0)
    used = {launch.index: arrays_used(program, launch.node) for launch, _ in _launches(units)}
    demoted = {}
    for launch, _ in _launches(units):
        others = set().union(*(u for k, u in used.items() if k != launch.index))
        clash = others & set(launch.private)
        if launch.parallel and clash:
            demoted[launch.index] = replace(
                launch, mapped=(), private=(),
                reason=f"its private locals {', '.join(sorted(clash))} are used by other launches")
    units, _ = _renumber(_merge(_substitute(units, demoted)), 0)
    launches = list(_launches(units))
    scalars = {a.name for a in program.arrays if a.is_scalar}
    users: dict[str, list[tuple[Launch, bool]]] = {}
    for launch, in_host_loop in launches:
        for name in arrays_used(program, launch.node) & scalars:
            users.setdefault(name, []).append((launch, in_host_loop))
    registers = set(scalars - set(users))
    for name, where in users.items():
        if len(where) == 1 and (not where[0][1] or name in _privatised(where[0][0].node)):
            registers.add(name)  # its value never has to outlive one launch
    return Plan(units, tuple(launch for launch, _ in launches), frozenset(scalars - registers),
                frozenset(registers))


class _Planner:
    def __init__(self, program: LoopProgram) -> None:
        self.program = program
        self.params = set(program.params)

    def host_computable(self, host_vars: tuple[str, ...], *exprs: ir.Expr) -> bool:
        return free_vars(*exprs) <= self.params | set(host_vars)

    def plan(self, node: Node, host_vars: tuple[str, ...]) -> tuple[Unit, ...]:
        if isinstance(node, Block):
            return tuple(u for child in node.children for u in self.plan(child, host_vars))
        if isinstance(node, For):
            bound = exclusive_bound(node)
            ok = bound is not None and node.step > 0 and self.host_computable(host_vars, node.init, bound)
            if ok and node.parallel:
                return (self.parallel_launch(node, host_vars),)
            if ok and _has_parallel(node.body):
                return (HostFor(node, self.plan(node.body, host_vars + (node.iterator,))),)
            why = ("its outer loop is sequential" if not node.parallel else
                   "its loop bounds depend on values the host does not have")
            return (Launch(-1, node, host_vars, reason=why),)
        if isinstance(node, If) and _has_parallel(node) and self.host_computable(host_vars, node.cond):
            otherwise = self.plan(node.otherwise, host_vars) if node.otherwise is not None else ()
            return (HostIf(node.cond, self.plan(node.then, host_vars), otherwise),)
        return (Launch(-1, node, host_vars, reason="it has no parallel loop"),)

    def parallel_launch(self, loop: For, host_vars: tuple[str, ...]) -> Launch:
        mapped: tuple[For, ...] = (loop,)
        inner = loop.body
        if isinstance(inner, For) and inner.parallel and inner.step > 0:
            bound = exclusive_bound(inner)
            if bound is not None and self.host_computable(host_vars, inner.init, bound):
                mapped = (loop, inner)
        # every thread gets copies of what any loop it runs privatises (inner loops' privates
        # included: privatising more is safe, and the scheduler may list them only there)
        private = tuple(dict.fromkeys(p for n in nodes(loop) if isinstance(n, For) for p in n.private))
        return Launch(-1, loop, host_vars, mapped, self.coalescing_axis(loop, mapped), private)

    def coalescing_axis(self, loop: For, mapped: tuple[For, ...]) -> int:
        """The mapped loop whose iterator is the last subscript of most accesses (ties: inner)."""
        if len(mapped) == 1:
            return 0
        votes = [0] * len(mapped)
        iterators = [m.iterator for m in mapped]
        for node in nodes(loop):
            if not isinstance(node, StmtCall):
                continue
            stmt = self.program.statement(node.statement)
            binding = {isl_name(v): free_vars(a) for v, a in zip(stmt.iterators, node.args)}
            indices = [stmt.index] + [e.index for e in ir.walk(stmt.value) if isinstance(e, ir.Load)]
            for index in indices:
                if not index:
                    continue
                loops = set().union(*(binding.get(v, {v}) for v in free_vars(index[-1])))
                for k, name in enumerate(iterators):
                    votes[k] += name in loops
        best = max(votes)
        return max(k for k, v in enumerate(votes) if v == best)


def _privatised(node: Node) -> set[str]:
    """Locals some loop in ``node`` privatises: their values never outlive an iteration."""
    return {p for n in nodes(node) if isinstance(n, For) for p in n.private}


def _has_parallel(node: Node) -> bool:
    return any(isinstance(n, For) and n.parallel for n in nodes(node))


def _launches(units: tuple[Unit, ...], in_host_loop: bool = False):
    """Every launch, with whether a host loop encloses it."""
    for unit in units:
        if isinstance(unit, Launch):
            yield unit, in_host_loop
        elif isinstance(unit, HostFor):
            yield from _launches(unit.body, True)
        else:
            yield from _launches(unit.then, in_host_loop)
            yield from _launches(unit.otherwise, in_host_loop)


def _map(units: tuple[Unit, ...], fn) -> tuple[Unit, ...]:
    """Apply ``fn`` to every sequence of units, innermost first."""
    out = []
    for unit in units:
        if isinstance(unit, HostFor):
            unit = HostFor(unit.loop, _map(unit.body, fn))
        elif isinstance(unit, HostIf):
            unit = HostIf(unit.cond, _map(unit.then, fn), _map(unit.otherwise, fn))
        out.append(unit)
    return fn(tuple(out))


def _substitute(units: tuple[Unit, ...], by_index: dict[int, Launch]) -> tuple[Unit, ...]:
    return _map(units, lambda seq: tuple(
        by_index.get(u.index, u) if isinstance(u, Launch) else u for u in seq))


def _merge(units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """Adjacent single-thread launches become one (fewer launches, fewer cells)."""
    def merge(seq: tuple[Unit, ...]) -> tuple[Unit, ...]:
        out: list[Unit] = []
        for unit in seq:
            last = out[-1] if out else None
            if (isinstance(unit, Launch) and not unit.parallel and isinstance(last, Launch)
                    and not last.parallel):
                children = (last.node.children if isinstance(last.node, Block) else (last.node,))
                reason = last.reason if last.reason == unit.reason else "; ".join((last.reason, unit.reason))
                out[-1] = replace(last, node=Block(children + (unit.node,)), reason=reason)
            else:
                out.append(unit)
        return tuple(out)

    return _map(units, merge)


def _renumber(units: tuple[Unit, ...], start: int) -> tuple[tuple[Unit, ...], int]:
    out = []
    for unit in units:
        if isinstance(unit, Launch):
            unit = replace(unit, index=start)
            start += 1
        elif isinstance(unit, HostFor):
            body, start = _renumber(unit.body, start)
            unit = HostFor(unit.loop, body)
        else:
            then, start = _renumber(unit.then, start)
            otherwise, start = _renumber(unit.otherwise, start)
            unit = HostIf(unit.cond, then, otherwise)
        out.append(unit)
    return tuple(out), start
