"""Per-iteration versions of a serial loop whose shared writes store what is already there.

Takes the loop program ``passes.astgen`` made, with the Scop, the schedule and the dependences it
was made from; gives the program with some serial loops versioned, and a ``NoopVersion`` record
for each.  Runs right after astgen (it builds loops with isl again) and before the loop-AST passes
(registers, lanes, interleave), which then see both versions.

Floyd-Warshall's pivot loop is the example::

    for k in range(n):
        for i in range(n):
            for j in range(n):
                p[i, j] = p[i, j] if p[i, j] < p[i, k] + p[k, j] else p[i, k] + p[k, j]

Within one ``k``, instance ``(k, i, k)`` writes ``p[i, k]``, which the instances ``(k, i, j)``
read, and ``(k, k, j)`` writes ``p[k, j]``, read by every ``(k, i, j)``: the ``i`` and ``j``
loops carry dependences.  But those writes usually store the bits already there (``p[k, k] >= 0``
makes ``p[i, k] + p[k, k]`` no smaller than ``p[i, k]``), and a write that changes nothing orders
nothing.  Whether a write changes nothing depends on values (``p[k, k]`` may be negative, or
become so partway through a run with a negative cycle) and on the exact expression: with
``p[k, k] == +0.0`` the ternary above turns a ``-0.0`` in column ``k`` into ``+0.0``, while
``min(p[i, j], ...)`` keeps it; a NaN is kept by one form and replaced by another.  So rather
than prove the no-op per expression form, the versioned loop checks it, per iteration::

    for k in range(n):
        ok[0] = 1
        for (i, j) in W(k): ok[0] = ok[0] if bits(<p[i, j]'s new value>) == bits(p[i, j]) else 0
        if ok[0] != 0:
            <the i, j loops built without the dependences within one k: i parallel>
        else:
            <the original i, j loops>

``W(k)`` (isl: the instances of iteration ``k`` whose written element an instance at another
*point* of the iteration accesses, a point being one set of values of all loops around a
statement, within which the statements keep their order in both versions; Floyd-Warshall's row
and column ``k``, 2n - 1 of its n^2 points) is evaluated on the values at the start of the
iteration.  Bits are compared as ``a == b`` and ``copysign(1, a) == copysign(1, b)``, so a NaN
always fails the check (the original loops run).

Why the checked version computes what the original does: call an element *shared* if instances
at two points of the iteration access it and one writes it.  Every writer of a shared element is
in ``W``.  In the original order, by induction, each instance of ``W`` reads elements that hold
their values from the start of the iteration (a shared element was written before only by
instances of ``W``, which stored its old bits; an element written by an instance outside ``W``
is accessed at no other point, and a checked instance reading one written before it at its own
point refuses the version, ``_reads_fresh_values``), so it computes what the check computed:
the element's old bits.  Hence no shared element changes within the iteration, and any order of
the points (the parallel loops isl marks once the dependences within one iteration are left
out) reads and writes the same values.  Local scalars whose every read is fed at the same point
(the frontend's ``if`` conditions) are temporaries: the check inlines their writer's expression,
and the checked version uses renamed copies, private to each parallel iteration.  The check
evaluates the statement's own expression in the same backend; loops are only versioned where
that evaluation is the one the loops make (no fastmath, no calls, which ``vector_math`` may
compute differently in a parallel loop, no run-time subscripts), where some statement chooses
between its element's old value and another (``_may_keep``), and where the checked instances of
one iteration are of fewer dimensions than the iteration (a check as long as the iteration
would double its work whenever it fails).

In the checked version, loads whose element does not change along an innermost loop
(``p[i, k]`` in the ``j`` loop) are read once before it (``_Hoist``): no element that every point
of the loop reads changes within the iteration.  LLVM cannot hoist them itself, and the ``j``
loop vectorizes only with them hoisted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import islpy as isl

from polyfuse.analysis.dependences import Dependences, memory_based
from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.isl_parts import maps_of, sets_of
from polyfuse.model.loop_ast import (
    Block,
    For,
    If,
    LoopProgram,
    Node,
    ProgramEdit,
    StmtCall,
    nodes,
    statements_in,
)
from polyfuse.model.scop import ArrayInfo, Scop, Statement, isl_affine_text, isl_name
from polyfuse.passes.astgen import ITERATOR_PREFIX, build_loop_program, loop_ast_from_isl

_CHECKED_DTYPES = frozenset({"float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32",
                             "uint16", "uint8", "bool"})
_FLOATS = frozenset({"float64", "float32"})
_FLAG = "int64"


@dataclass(frozen=True)
class NoopVersion:
    """One serial loop run, per iteration, in a version without the dependences within one iteration
    when a check finds that every shared write of the iteration stores the value already there."""

    loop: str  # the iterator of the versioned loop
    statements: tuple[str, ...]
    checked: str  # the instances checked before each iteration (isl, the outer iterators as parameters)
    dropped: tuple[str, ...]  # the dependences within one iteration, left out of the checked version
    parallel_loops: tuple[str, ...]  # loops parallel in the checked version that are not in the original
    hoisted: tuple[str, ...]  # loads the checked version reads once before an innermost loop ("array[index]")
    flag: str  # the kernel-local array holding the check's result
    reason: str


def version_noop_writes(program: LoopProgram, *, scop: Scop, schedule: isl.Schedule,
                        deps: Dependences) -> tuple[LoopProgram, tuple[NoopVersion, ...]]:
    """``program`` with every serial loop versioned where a per-iteration no-op check frees inner
    loops (see the module docstring), and a record of each."""
    candidates = [(path, loop) for path, loop in _loops(program.root, ()) if _worth_trying(program, loop)]
    if not candidates:
        return program, ()
    edit = ProgramEdit(program)
    prefixes = _band_prefixes(schedule)
    root: Node = program.root
    decisions: list[tuple[tuple[int, ...], NoopVersion]] = []
    for path, loop in candidates:
        if any(path[:len(p)] == p for p, _ in decisions):
            continue  # inside a loop already versioned
        added = len(edit.arrays), len(edit.statements)
        try:
            with bounded(scop.context.get_ctx()):
                found = _version(edit, scop, schedule, deps, prefixes, loop, path)
        except BudgetExceeded:
            found = None
        if found is None:  # nothing of a refused version stays in the program
            del edit.arrays[added[0]:], edit.statements[added[1]:]
            continue
        node, decision = found
        root = _replace_at(root, path, node)
        decisions.append((path, decision))
    if not decisions:
        return program, ()
    return edit.program_with(root), tuple(d for _, d in decisions)


# ---- which loops ---------------------------------------------------------------------------------

def _loops(node: Node, path: tuple[int, ...]):
    """Every For with its path (child indices from the root), parents first."""
    if isinstance(node, For):
        yield path, node
        yield from _loops(node.body, path + (0,))
    elif isinstance(node, If):
        yield from _loops(node.then, path + (0,))
        if node.otherwise is not None:
            yield from _loops(node.otherwise, path + (1,))
    elif isinstance(node, Block):
        for k, child in enumerate(node.children):
            yield from _loops(child, path + (k,))


def _at(node: Node, path: tuple[int, ...]) -> Node:
    for step in path:
        if isinstance(node, For):
            node = node.body
        elif isinstance(node, If):
            branch = node.then if step == 0 else node.otherwise
            assert branch is not None
            node = branch
        else:
            assert isinstance(node, Block)
            node = node.children[step]
    return node


def _replace_at(node: Node, path: tuple[int, ...], new: Node) -> Node:
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(node, For):
        return replace(node, body=_replace_at(node.body, rest, new))
    if isinstance(node, If):
        if step == 0:
            return replace(node, then=_replace_at(node.then, rest, new))
        assert node.otherwise is not None
        return replace(node, otherwise=_replace_at(node.otherwise, rest, new))
    assert isinstance(node, Block)
    children = list(node.children)
    children[step] = _replace_at(children[step], rest, new)
    return Block(tuple(children))


def _depth(loop: For) -> int | None:
    """The schedule dimension of an isl-generated loop (its iterator ``_t<depth>``)."""
    match = re.fullmatch(rf"{ITERATOR_PREFIX}(\d+)", loop.iterator)
    return int(match.group(1)) if match else None


def _worth_trying(program: LoopProgram, loop: For) -> bool:
    """A serial loop around serial loops, every statement below it plain and only below it, one
    of them choosing between its element's old value and another."""
    if loop.parallel or _depth(loop) is None:
        return False
    inner = [n for n in nodes(loop.body) if isinstance(n, For)]
    if not inner or all(n.parallel for n in inner):
        return False
    names = statements_in(loop.body)
    if not names or not all(_plain(program, program.statement(s)) for s in set(names)):
        return False
    if not any(_may_keep(program.statement(s)) for s in set(names)):
        return False  # no write that could keep its value: no isl work at all
    outside = statements_in(program.root)
    return all(outside.count(s) == names.count(s) for s in set(names))


def _plain(program: LoopProgram, stmt: Statement) -> bool:
    """``array[index] = value`` on an array (or a local scalar: see ``_temporaries``), computed the
    same way wherever it runs."""
    if stmt.region is not None:
        return False
    info = next((a for a in program.arrays if a.name == stmt.array), None)
    if info is None or info.dtype not in _CHECKED_DTYPES or stmt.value.dtype != info.dtype:
        return False
    if not stmt.index and not info.is_scalar:
        return False
    for root in (stmt.value, *stmt.index):
        for e in ir.walk(root):
            if isinstance(e, (ir.Index, ir.Call)) or (isinstance(e, ir.BinOp) and e.reassoc):
                return False
    return True


def _may_keep(stmt: Statement) -> bool:
    """Does the statement choose between its element's old value and another (``min(x, ...)``,
    ``x if c else y``, ``x or y``)?  Only such writes are worth checking: ``A[i, k] /= A[k, k]``
    (lu) is a no-op only by accident, and its check would fail on every iteration."""
    value = stmt.value

    def old(e: ir.Expr) -> bool:
        return isinstance(e, ir.Load) and e.array == stmt.array and e.index == stmt.index

    if isinstance(value, ir.BinOp) and value.op in ("min", "max"):
        return old(value.lhs) or old(value.rhs)
    if isinstance(value, ir.Select):
        return old(value.then) or old(value.otherwise)
    if isinstance(value, ir.BoolOp):
        return any(old(v) for v in value.values)
    return False


# ---- the version -----------------------------------------------------------------------------------

def _version(edit: ProgramEdit, scop: Scop, schedule: isl.Schedule, deps: Dependences,
             prefixes: dict[str, list[isl.Map]], loop: For, path: tuple[int, ...]):
    """The versioned loop and its record, or None when nothing would be gained."""
    depth = _depth(loop)
    assert depth is not None
    names = sorted(set(statements_in(loop.body)))
    if not set(names) <= {s.name for s in scop.statements}:
        return None  # statements an earlier loop pass made (passes.pivot_rows' copies): not isl's
    prefix = _prefix(prefixes, names, depth + 1)
    if prefix is None or not _iterators_agree(scop, loop, prefix, depth):
        return None
    temporaries = _temporaries(scop, deps, names)
    if temporaries is None:
        return None
    same = prefix.apply_range(prefix.reverse())
    same = same.subtract(same.domain().identity())
    shared = [d for d in deps.items if d.array not in temporaries]
    dropped = tuple(sorted({f"{d.kind} on {d.array}" for d in shared if not d.relation.intersect(same).is_empty()}))
    if not dropped:
        return None
    points = _prefix(prefixes, names, None)
    assert points is not None
    same_point = points.apply_range(points.reverse()).subtract(points.domain().identity())
    checked = _shared_writers(scop, names, same.subtract(same_point), set(temporaries))
    writers = sorted({s.get_tuple_name() for s in sets_of(checked)})
    if not writers or not all(_may_keep(scop.statement(n)) for n in writers):
        return None  # a write that cannot keep its element's value would fail every check
    if _reads_fresh_values(scop, schedule, names, temporaries, same_point, checked):
        return None
    if not _thin(checked, prefix, depth):
        return None  # a check as long as the iteration would double its work whenever it fails
    # a temporary's false dependences stay: astgen gives each parallel iteration its own copy
    fast_deps = replace(deps, items=tuple(d if d.array in temporaries else replace(d, relation=d.relation.subtract(same))
                                          for d in deps.items))
    fast = _at(build_loop_program(scop, schedule, fast_deps).root, path)
    if not isinstance(fast, For) or _shape(fast) != _shape(loop):
        return None  # not the same loops: should not happen, but never guess
    freed = tuple(n.iterator for n, m in zip(nodes(fast.body), nodes(loop.body))
                  if isinstance(n, For) and isinstance(m, For) and n.parallel and not m.parallel)
    if not freed:
        return None
    flag = edit.add_array(ArrayInfo(edit.fresh("_noop_ok"), _FLAG, (ir.int_const(1),), "local"))
    checks = _check_loops(edit, scop, checked, prefix, names, depth, flag.name, temporaries)
    if checks is None:
        return None
    init = edit.add_statement(replace(scop.statement(names[0]), name=edit.fresh("_noop_init"), iterators=(),
                                      array=flag.name, index=(ir.int_const(0),),
                                      value=ir.Const(1, _FLAG, False)))
    ok = ir.Compare("!=", _flag_load(flag.name), ir.Const(0, _FLAG, False))
    fast_body = _own_temporaries(edit, scop, fast.body, sorted(temporaries))
    fast_body, hoisted = _Hoist(edit).visit(fast_body)
    body = Block((StmtCall(init.name, ()), checks, If(ok, fast_body, loop.body)))
    record = NoopVersion(
        loop=loop.iterator, statements=tuple(names), checked=_text(checked), dropped=dropped,
        parallel_loops=freed, hoisted=hoisted, flag=flag.name,
        reason=(f"per iteration of {loop.iterator}, the instances whose written element is accessed at another "
                "point of the iteration are evaluated first; when each would store the bits already in "
                f"place, the iteration runs loops built without its {', '.join(dropped)} within one "
                f"iteration ({', '.join(freed)} parallel), else the original loops"))
    return replace(loop, body=body), record


def _own_temporaries(edit: ProgramEdit, scop: Scop, body: Node, temporaries: list[str]) -> Node:
    """``body`` with its temporaries renamed to fresh local scalars (and its statements that use
    them copied): a parallel region lets one local scalar in a register serve one part only, and
    the original loops in the other branch use the old ones."""
    if not temporaries:
        return body
    names = {t: edit.add_array(replace(scop.array(t), name=edit.fresh(t))).name for t in temporaries}
    copies: dict[str, str] = {}

    def rename(load: ir.Load) -> ir.Expr:
        return replace(load, array=names.get(load.array, load.array))

    for name in sorted(set(statements_in(body))):
        stmt = scop.statement(name)
        if stmt.array in names or stmt.sources() & set(names):
            copy = replace(stmt, name=edit.fresh(f"{name}_v"), array=names.get(stmt.array, stmt.array),
                           value=ir.map_loads(stmt.value, rename))
            copies[name] = edit.add_statement(copy).name
    return _retargeted(body, copies, names)


def _retargeted(node: Node, calls: dict[str, str], arrays: dict[str, str]) -> Node:
    """``node`` calling the statement copies in ``calls``, its loops privatising the renamed arrays."""
    if isinstance(node, StmtCall):
        return replace(node, statement=calls.get(node.statement, node.statement))
    if isinstance(node, For):
        private = tuple(arrays.get(a, a) for a in node.private)
        return replace(node, body=_retargeted(node.body, calls, arrays), private=private)
    if isinstance(node, If):
        otherwise = None if node.otherwise is None else _retargeted(node.otherwise, calls, arrays)
        return replace(node, then=_retargeted(node.then, calls, arrays), otherwise=otherwise)
    assert isinstance(node, Block)
    return Block(tuple(_retargeted(c, calls, arrays) for c in node.children))


class _Hoist:
    """The checked version's loads that do not change along an innermost loop, read once before it
    into a local scalar (private to each parallel iteration around it).  Legal there because no
    element such a load reads changes within the iteration: all the loop's points read it, so
    only checked no-op writes touch it.  LLVM cannot hoist ``p[i, k]`` out of the ``j`` loop
    itself (the store to ``p[i, j]`` may hit it), and without it the loop does not vectorize."""

    def __init__(self, edit: ProgramEdit) -> None:
        self.edit = edit
        self.hoisted: list[str] = []
        self.made: list[str] = []

    def visit(self, node: Node) -> tuple[Node, tuple[str, ...]]:
        return self._node(node), tuple(self.hoisted)

    def _node(self, node: Node) -> Node:
        if isinstance(node, Block):
            return Block(tuple(self._node(c) for c in node.children))
        if isinstance(node, If):
            otherwise = None if node.otherwise is None else self._node(node.otherwise)
            return replace(node, then=self._node(node.then), otherwise=otherwise)
        if not isinstance(node, For):
            return node
        calls = _calls_only(node.body)
        if calls:
            return self._innermost(node, calls)  # its scalars are filled outside it: not private to it
        before = len(self.made)
        loop = replace(node, body=self._node(node.body))
        made = tuple(self.made[before:])
        return replace(loop, private=loop.private + made) if loop.parallel and made else loop

    def _innermost(self, loop: For, calls: list[StmtCall]) -> Node:
        slots: dict[tuple[str, tuple], ir.Load] = {}
        copies: dict[int, StmtCall] = {}
        loads: list[StmtCall] = []
        for call in calls:
            stmt = self._statement(call.statement)
            if any(isinstance(e, ir.Select) and e.guarded for e in ir.walk(stmt.value)):
                continue  # a load in a guarded branch may only run where its condition holds
            binding: dict[str, ir.Expr] = dict(zip(stmt.iterators, call.args))
            binding.update({isl_name(v): a for v, a in zip(stmt.iterators, call.args)})
            value = ir.map_loads(stmt.value, lambda load, b=binding, st=stmt: self._swap(load, b, st, loop, slots, loads))
            if value != stmt.value:
                copy = self.edit.add_statement(replace(stmt, name=self.edit.fresh(f"{stmt.name}_h"), value=value))
                copies[id(call)] = StmtCall(copy.name, call.args)
        if not loads:
            return loop
        # read only where the loop runs at least once, as the loads it replaces (their bounds)
        runs = ir.substitute(loop.cond, {loop.iterator: loop.init})
        return If(runs, Block(tuple(loads) + (replace(loop, body=_replace_calls(loop.body, copies)),)))

    def _statement(self, name: str) -> Statement:
        made = next((s for s in self.edit.statements if s.name == name), None)
        return made if made is not None else self.edit.program.statement(name)

    def _swap(self, load: ir.Load, binding: dict[str, ir.Expr], stmt: Statement, loop: For,
              slots: dict[tuple[str, tuple], ir.Load], loads: list[StmtCall]) -> ir.Expr:
        """``load``, or the scalar holding it when its element does not change along ``loop``."""
        if not load.index or any(isinstance(e, ir.Load) for i in load.index for e in ir.walk(i)):
            return load
        index = tuple(ir.substitute(i, binding) for i in load.index)
        if any(isinstance(e, ir.Var) and e.name == loop.iterator for i in index for e in ir.walk(i)):
            return load
        key = (load.array, index)
        if key not in slots:
            slots[key] = self._slot(replace(load, index=index), stmt, loads)
        return replace(slots[key], weak=load.weak)

    def _slot(self, load: ir.Load, reader: Statement, loads: list[StmtCall]) -> ir.Load:
        """A local scalar holding ``load`` (loop-iterator subscripts), and the call that fills it."""
        slot = self.edit.add_array(ArrayInfo(self.edit.fresh("_inv"), load.dtype, (), "local"))
        fill = self.edit.add_statement(replace(reader, name=self.edit.fresh("_inv_load"), iterators=(),
                                               array=slot.name, index=(), value=load, region=None))
        loads.append(StmtCall(fill.name, ()))
        self.made.append(slot.name)
        self.hoisted.append(ir.to_python(load))
        return ir.Load(slot.name, (), load.dtype)


def _calls_only(node: Node) -> list[StmtCall] | None:
    """The statement calls of a loop body made of calls only (an innermost loop), else None."""
    if isinstance(node, StmtCall):
        return [node]
    if isinstance(node, Block) and all(isinstance(c, StmtCall) for c in node.children):
        return [c for c in node.children if isinstance(c, StmtCall)]
    return None


def _replace_calls(node: Node, copies: dict[int, StmtCall]) -> Node:
    if isinstance(node, StmtCall):
        return copies.get(id(node), node)
    assert isinstance(node, Block)
    return Block(tuple(copies.get(id(c), c) if isinstance(c, StmtCall) else c for c in node.children))


def _shape(node: Node) -> tuple:
    """The loop structure without the parallel marks (the two builds must agree on it)."""
    if isinstance(node, For):
        return ("for", node.iterator, node.init, node.cond, node.step, _shape(node.body))
    if isinstance(node, If):
        return ("if", node.cond, _shape(node.then), None if node.otherwise is None else _shape(node.otherwise))
    if isinstance(node, Block):
        return ("block",) + tuple(_shape(c) for c in node.children)
    return ("call", node)


def _band_prefixes(schedule: isl.Schedule) -> dict[str, list[isl.Map]]:
    """Statement -> its band schedule at each leaf: the values of the loops isl generates around it,
    in order (``_t<d>`` is dimension ``d``)."""
    found: dict[str, list[isl.Map]] = {}
    pending = [schedule.get_root()]
    while pending:
        node = pending.pop()
        if node.get_type() == isl.schedule_node_type.leaf:
            for part in maps_of(node.get_prefix_schedule_union_map()):
                found.setdefault(part.get_tuple_name(isl.dim_type.in_), []).append(part)
        pending.extend(node.child(k) for k in range(node.n_children()))
    return found


def _prefix(prefixes: dict[str, list[isl.Map]], names: list[str], dims: int | None) -> isl.UnionMap | None:
    """The statements' schedule values of the versioned loop and the loops around it (``dims``
    of them; None: every loop around each statement, which names its *point*)."""
    result: isl.UnionMap | None = None
    for name in names:
        for part in prefixes.get(name, []):
            extra = 0 if dims is None else part.dim(isl.dim_type.out) - dims
            if extra < 0:
                return None
            kept = part.dim(isl.dim_type.out) - extra
            truncated = isl.UnionMap.from_map(part.project_out(isl.dim_type.out, kept, extra))
            result = truncated if result is None else result.union(truncated)
    return result


def _iterators_agree(scop: Scop, loop: For, prefix: isl.UnionMap, depth: int) -> bool:
    """Whether every statement call below ``loop`` runs the instances whose prefix is the values of
    ``_t0 .. _t<depth>`` (the loop AST and the schedule read the same way), checked with isl."""
    calls = [n for n in nodes(loop.body) if isinstance(n, StmtCall)]
    used = sorted({e.name for c in calls for a in c.args for e in ir.walk(a)
                   if isinstance(e, ir.Var) and re.fullmatch(rf"{ITERATOR_PREFIX}\d+", e.name)},
                  key=lambda name: int(name[len(ITERATOR_PREFIX):]))
    outer = [f"{ITERATOR_PREFIX}{d}" for d in range(depth + 1)]
    loops = outer + [t for t in used if t not in outer]
    params = f"[{', '.join(scop.params)}]"
    for call in calls:
        texts = [isl_affine_text(a) for a in call.args]
        args = [a for a in texts if a is not None]
        if len(args) != len(texts):
            return False
        stmt = scop.statement(call.statement)
        runs = isl.UnionMap(f"{params} -> {{ [{', '.join(loops)}] -> {call.statement}[{', '.join(args)}] }}")
        runs = runs.intersect_range(isl.UnionSet.from_set(stmt.domain))
        loop_values = isl.UnionMap(f"{params} -> {{ [{', '.join(loops)}] -> [{', '.join(outer)}] }}")
        if not runs.apply_range(prefix).subtract(loop_values).is_empty():
            return False
    return True



def _shared_writers(scop: Scop, names: list[str], others: isl.UnionMap, temporaries: set[str]) -> isl.UnionSet:
    """The instances whose written element an instance at another point of the same iteration
    accesses (``others``: those pairs; within one point the statements keep their order in
    every version; a temporary's value lives within one point: not shared)."""
    statements = [scop.statement(n) for n in names]
    writes = _without(_union([s.writes for s in statements]), temporaries)
    accesses = writes.union(_without(_union([s.reads for s in statements]), temporaries))
    return writes.apply_range(accesses.reverse()).intersect(others).domain()


def _thin(checked: isl.UnionSet, prefix: isl.UnionMap, depth: int) -> bool:
    """Are the checked instances of one iteration of fewer dimensions than the iteration's own
    instances of the same statement (Floyd-Warshall: a row and a column of the n x n points)?"""
    here = prefix.intersect_range(isl.UnionSet.from_set(_iteration(depth))).domain()
    iteration = {s.get_tuple_name(): _dimension(s) for s in sets_of(here)}
    return all(_dimension(s) < iteration[s.get_tuple_name()] for s in sets_of(checked.intersect(here)))


def _dimension(instances: isl.Set) -> int:
    """The largest dimension of the pieces of ``instances`` (its dimensions less the independent
    equalities of each piece's affine hull, parameters fixed)."""
    dims = instances.dim(isl.dim_type.set)
    best = -1
    for piece in instances.get_basic_sets():
        equalities = [c for c in piece.affine_hull().get_constraints()
                      if c.is_equality() and c.involves_dims(isl.dim_type.set, 0, dims)]
        best = max(best, dims - len(equalities))
    return best


def _iteration(depth: int) -> isl.Set:
    """``[p0, ..., p<depth>]`` equal to the loop iterators ``_t0 .. _t<depth>`` (as parameters)."""
    outer = [f"{ITERATOR_PREFIX}{d}" for d in range(depth + 1)]
    return isl.Set(f"[{', '.join(outer)}] -> {{ [{', '.join(f'p{d}' for d in range(depth + 1))}] : "
                   + " and ".join(f"p{d} = {t}" for d, t in enumerate(outer)) + " }")


def _reads_fresh_values(scop: Scop, schedule: isl.Schedule, names: list[str], temporaries: dict[str, Statement],
                        same_point: isl.UnionMap, checked: isl.UnionSet) -> bool:
    """Does a checked instance (or a temporary's writer, which the check inlines) read an element
    that an unchecked instance at its point wrote before it?  The check evaluates them on the
    values at the start of the iteration, so it would not see that write."""
    statements = [scop.statement(n) for n in names]
    writes = _without(_union([s.writes for s in statements]), set(temporaries))
    reads = _without(_union([s.reads for s in statements]), set(temporaries))
    evaluated = checked
    for writer in temporaries.values():
        evaluated = evaluated.union(isl.UnionSet.from_set(writer.domain))
    earlier = memory_based(reads, writes, schedule).intersect(same_point)
    return not earlier.intersect_range(evaluated).subtract_domain(checked).is_empty()


def _without(accesses: isl.UnionMap, arrays: set[str]) -> isl.UnionMap:
    kept = [isl.UnionMap.from_map(m) for m in maps_of(accesses) if m.get_tuple_name(isl.dim_type.out) not in arrays]
    return _union(kept) if kept else isl.UnionMap.empty(accesses.get_space())


def _temporaries(scop: Scop, deps: Dependences, names: list[str]) -> dict[str, Statement] | None:
    """Local scalars written below the loop (the frontend's ``if`` conditions: ``c = s < p[i, j]``,
    then ``p[i, j] = s if c else p[i, j]``), each with its one writer, when every read of one is
    fed by that writer at the same values of the statement iterators (None: some scalar is not
    such a temporary, or is used outside the loop)."""
    statements = [scop.statement(n) for n in names]
    scalars = {a.name for a in scop.arrays if a.is_scalar}
    found: dict[str, Statement] = {}
    for name in sorted({s.array for s in statements} & scalars):
        writers = [s for s in statements if s.array == name]
        if len(writers) != 1 or any(name in s.targets or name in s.sources()
                                    for s in scop.statements if s.name not in names):
            return None
        flow = [m for d in deps.items if d.kind == "RAW" and d.array == name for m in maps_of(d.relation)]
        reads = [m for s in statements for m in maps_of(s.reads) if m.get_tuple_name(isl.dim_type.out) == name]
        for part in flow:
            if part.dim(isl.dim_type.in_) != part.dim(isl.dim_type.out) or not _same_point(part):
                return None
        fed = _union([isl.UnionMap.from_map(m) for m in flow]).range() if flow else None
        for read in reads:
            if fed is None or not isl.UnionSet.from_set(read.domain()).is_subset(fed):
                return None
        found[name] = writers[0]
    return found


def _same_point(flow: isl.Map) -> bool:
    """Does every pair of the flow join instances with equal iterator values?"""
    deltas = flow.reset_tuple_id(isl.dim_type.in_).reset_tuple_id(isl.dim_type.out).deltas()
    return deltas.is_subset(_zero(deltas))


def _zero(deltas: isl.Set) -> isl.Set:
    zero = isl.Set.universe(deltas.get_space())
    for d in range(deltas.dim(isl.dim_type.set)):
        zero = zero.fix_val(isl.dim_type.set, d, isl.Val.zero(deltas.get_ctx()))
    return zero


def _union(parts: list[isl.UnionMap]) -> isl.UnionMap:
    result = parts[0]
    for part in parts[1:]:
        result = result.union(part)
    return result


def _check_loops(edit: ProgramEdit, scop: Scop, checked: isl.UnionSet, prefix: isl.UnionMap,
                 names: list[str], depth: int, flag: str, temporaries: dict[str, Statement]) -> Node | None:
    """Loops over this iteration's checked instances, each clearing ``flag`` unless it would store
    the bits already in place (isl builds them, the outer loop iterators as parameters)."""
    fixed = _iteration(depth)
    width = max(scop.statement(n).domain.dim(isl.dim_type.set) for n in names)
    schedule = None
    calls: dict[str, str] = {}
    for position, name in enumerate(names):
        mine = [s for s in sets_of(checked) if s.get_tuple_name() == name]
        if not mine:
            continue
        here = prefix.intersect_range(isl.UnionSet.from_set(fixed)).domain()
        instances = isl.UnionSet.from_set(mine[0]).intersect(here)
        for part in sets_of(instances.intersect_params(scop.context)):
            part_map = _position_map(part, position, width)
            schedule = part_map if schedule is None else schedule.union(part_map)
        calls[name] = _check_statement(edit, scop.statement(name), flag, temporaries).name
    if schedule is None:
        return None
    build = isl.AstBuild.from_context(isl.Set.universe(fixed.params().get_space()).intersect_params(
        scop.context.align_params(fixed.get_space())).params())
    iterators = isl.IdList.alloc(scop.context.get_ctx(), width + 1)
    for d in range(width + 1):
        iterators = iterators.add(isl.Id(f"{ITERATOR_PREFIX}{depth + 1 + d}"))
    build = build.set_iterators(iterators)
    build, _handle = build.set_before_each_for(lambda _build: isl.Id("serial"))
    return _renamed(loop_ast_from_isl(build.node_from_schedule_map(schedule)), calls)


def _position_map(instances: isl.Set, position: int, width: int) -> isl.UnionMap:
    """``S[x] -> [position, x, 0...]`` on ``instances`` (every statement the same width)."""
    own = instances.dim(isl.dim_type.set)
    mapping = instances.identity()
    mapping = mapping.reset_tuple_id(isl.dim_type.out)
    mapping = mapping.insert_dims(isl.dim_type.out, 0, 1).fix_val(isl.dim_type.out, 0, isl.Val.int_from_si(mapping.get_ctx(), position))
    mapping = mapping.add_dims(isl.dim_type.out, width - own)
    for d in range(own + 1, width + 1):
        mapping = mapping.fix_val(isl.dim_type.out, d, isl.Val.zero(mapping.get_ctx()))
    return isl.UnionMap.from_map(mapping)


def _check_statement(edit: ProgramEdit, stmt: Statement, flag: str, temporaries: dict[str, Statement]) -> Statement:
    """``flag[0] = flag[0] if <stmt's value has the bits of its element> else 0``, temporaries
    replaced by what their writer computes at the same instance."""
    old = ir.Load(stmt.array, stmt.index, stmt.value.dtype)
    new = _inlined(stmt.value, stmt.iterators, temporaries, len(temporaries))
    keep = ir.Select(_same_bits(new, old), _flag_load(flag), ir.Const(0, _FLAG, False), _FLAG)
    return edit.add_statement(replace(stmt, name=edit.fresh(f"{stmt.name}_noop_check"), array=flag,
                                      index=(ir.int_const(0),), value=keep))


def _inlined(value: ir.Expr, iterators: tuple[str, ...], temporaries: dict[str, Statement], depth: int) -> ir.Expr:
    """``value`` with each temporary's load replaced by its writer's value (stored in the
    temporary's dtype) at the same iterator values."""

    def inline(load: ir.Load) -> ir.Expr:
        writer = temporaries.get(load.array)
        if writer is None or load.index:
            return load
        assert depth > 0, "temporaries feeding each other in a cycle"
        names: dict[str, ir.Expr] = {w: ir.Var(r, ir.INT) for w, r in zip(writer.iterators, iterators)}
        names.update({isl_name(w): ir.Var(isl_name(r), ir.INT) for w, r in zip(writer.iterators, iterators)})
        renamed = ir.substitute(writer.value, names)
        inner = _inlined(renamed, iterators, temporaries, depth - 1)
        return inner if inner.dtype == load.dtype else ir.Cast(inner, load.dtype)

    return ir.map_loads(value, inline)


def _same_bits(new: ir.Expr, old: ir.Expr) -> ir.Expr:
    """True where ``new`` and ``old`` are the same bits: equal and, for floats, of the same sign
    (``-0.0 == 0.0``); a NaN is unequal to everything, so it counts as a change."""
    equal = ir.Compare("==", new, old)
    if new.dtype not in _FLOATS:
        return equal
    one = ir.Const(1.0, new.dtype, False)
    signs = ir.Compare("==", ir.Call("copysign", (one, new), new.dtype, False, "np"),
                       ir.Call("copysign", (one, old), new.dtype, False, "np"))
    return ir.BoolOp("and", (equal, signs))


def _flag_load(flag: str) -> ir.Load:
    return ir.Load(flag, (ir.int_const(0),), _FLAG)


def _renamed(node: Node, calls: dict[str, str]) -> Node:
    if isinstance(node, StmtCall):
        return replace(node, statement=calls[node.statement])
    if isinstance(node, For):
        return replace(node, body=_renamed(node.body, calls))
    if isinstance(node, If):
        otherwise = None if node.otherwise is None else _renamed(node.otherwise, calls)
        return replace(node, then=_renamed(node.then, calls), otherwise=otherwise)
    return Block(tuple(_renamed(c, calls) for c in node.children))


def _text(instances: isl.UnionSet) -> str:
    return " ; ".join(str(s) for s in sets_of(instances))
