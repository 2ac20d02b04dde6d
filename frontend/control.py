"""Data-dependent ``if`` statements by if-conversion: every assignment in the body becomes a guarded
select that writes the old value back where the condition does not hold.

``if x[i] > 0.5: y[i] = x[i]`` lifts as ``y[i] = x[i] if x[i] > 0.5 else y[i]``.  The statement
reads and writes ``y[i]`` on every iteration, and where the condition is false it stores the value
it read, bit for bit (NaN payloads and -0.0 included).  So the write is a plain must-write and
the dependences stay exact, while the loop structure stays affine (loops inside the ``if`` keep
their bounds; the guard applies to each statement inside).

The condition is re-evaluated in each guarded statement when nothing in the body writes a name it
reads.  Otherwise (``if v > m: m = v; k = i``) it is first stored in a fresh local
(``_pf_cond0 = v > m``), so later writes in the body cannot change it.  Nested conditions and the
negated condition of ``else``/``elif`` combine with ``and``.  Both sides of that ``and`` may be
evaluated: value expressions cannot raise (a math domain error gives NaN, as with selects), so the
result is the same as Python's short-circuit evaluation.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from polyfuse.model import ir

from .affine import Affine
from .checker import assert_message
from .source import walk
from .types import VType

COND_PREFIX = "_pf_cond"
ASSERT_PREFIX = "_pf_assert"


@dataclass(frozen=True)
class Guard:
    """One term of the guard of a statement: ``test`` (or its negation), or a stored condition."""

    test: ast.expr | None = None  # re-evaluated in each guarded statement
    local: str | None = None  # the condition stored in this local (int64, 0 or 1)
    negate: bool = False


def written_names(stmts: list[ast.stmt]) -> set[str]:
    """Names of the scalars and arrays assigned anywhere in ``stmts``."""
    names = set()
    for stmt in stmts:
        for node in walk(stmt):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    while isinstance(target, ast.Subscript):
                        target = target.value
                    if isinstance(target, ast.Name):
                        names.add(target.id)
    return names


def read_names(node: ast.expr) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def lift_data_if(lifter, node: ast.If, scope) -> list:
    """Both branches of a data-dependent ``if``, their statements guarded (``lifter.guards``)."""
    body_writes = written_names(node.body + node.orelse)
    if read_names(node.test) & body_writes:
        name = f"{COND_PREFIX}{lifter.cond_count}"
        lifter.cond_count += 1
        stored = store_condition(lifter, node.test, name, scope)
        then, otherwise = Guard(local=name), Guard(local=name, negate=True)
    else:
        stored = []
        then, otherwise = Guard(test=node.test), Guard(test=node.test, negate=True)
    nodes = stored
    # a local the else branch assigns first needs no old value in the then branch; not under an
    # outer data-dependent if (where its test fails neither branch runs: the old value is kept)
    assigned_after = [] if lifter.guards else node.orelse
    for guard, block, other in ((then, node.body, assigned_after), (otherwise, node.orelse, [])):
        if not block:
            continue
        lifter.fresh_defs.update(id(s) for s in branch_definitions(name_counts(lifter), block, other))
        lifter.guards.append(guard)
        try:
            nodes = nodes + lifter.lift_block(block, scope)
        finally:
            lifter.guards.pop()
    return nodes


def name_counts(lifter) -> dict[str, int]:
    """How often each name is mentioned in the kernel's tree (lifting does not change the tree),
    counted once per lift: one walk of the tree, not one per data-dependent branch."""
    cached = getattr(lifter, "_name_counts", None)
    if cached is None or cached[0] is not lifter.source.tree:
        counts: dict[str, int] = {}
        for n in walk(lifter.source.tree):
            if isinstance(n, ast.Name):
                counts[n.id] = counts.get(n.id, 0) + 1
        cached = lifter._name_counts = (lifter.source.tree, counts)
    return cached[1]


def branch_definitions(everywhere: dict[str, int], block: list[ast.stmt],
                       other: list[ast.stmt]) -> list[ast.Assign]:
    """The assignments in ``block`` (one branch of a data-dependent ``if``) whose old value no one
    reads: ``name = v`` at the block's top level, the first mention of a scalar ``name`` that is
    mentioned nowhere outside the block, or that ``other`` (the ``else`` branch, lifted after
    ``block``) assigns on each of its paths before reading it.  Each run of the branch assigns it
    before any read, and where the branch is not taken its value is never seen (or the other
    branch assigns it first): the guarded write needs no old value (a local first assigned inside
    the branch: ``if ok: b = int(v / w); hist[b] += 1``; ``if x[0] > 0: r = x[1] else: r = 0.0``,
    where the else branch's guarded write keeps this one's value where the condition holds).
    ``everywhere``: how often each name is mentioned in the whole tree (name_counts)."""
    inside: dict[str, int] = {}
    for stmt in block:
        for n in walk(stmt):
            if isinstance(n, ast.Name):
                inside[n.id] = inside.get(n.id, 0) + 1
    found: list[ast.Assign] = []
    _first_assignments(block, lambda name: inside[name] == everywhere[name] or assigns_first(other, name),
                       lambda name: inside[name] == everywhere[name], set(), found, everywhere)
    return found


def _first_assignments(block: list[ast.stmt], dead_old, dead_in_loop, seen: set[str],
                       found: list[ast.Assign], everywhere: dict[str, int]) -> None:
    """branch_definitions' walk: ``name = v`` at the top level of ``block`` or of a ``for`` loop's
    body in it (a loop the rest of the kernel runs after an early return: ``for v in x: b =
    int(v / w); ...``), ``name`` not mentioned before it (``seen``) and its old value dead
    (``dead_old`` at the block's top level, ``dead_in_loop`` inside a loop: mentioned nowhere
    outside the branch, so each iteration assigns it before any read, and outside the loop only
    where the loop surely runs: a read after a loop that ran no iteration sees an older run's
    value, which the guarded writes where the branch was not taken dropped); in a branch of an ``if``
    in it, a name mentioned nowhere outside that branch (a reduction's accumulator under
    ``if x.size:``: each run of the branch assigns it before any read), or one whose old value
    is dead where the ``if`` stands and that both its branches assign first (in the ``then``
    branch only: the ``else`` branch's write, lifted second, keeps the ``then`` branch's value)."""
    for stmt in block:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if name not in seen and name not in read_names(stmt.value) and dead_old(name):
                found.append(stmt)
        elif isinstance(stmt, ast.For) and not stmt.orelse:
            seen |= read_names(stmt.target) | read_names(stmt.iter)
            in_loop = Counter(n.id for n in walk(stmt) if isinstance(n, ast.Name))

            def assigned_each_run(name: str, in_loop: Counter = in_loop, loop: ast.For = stmt) -> bool:
                # a read after the loop sees an older run's value where the loop runs no
                # iteration (range((i + 1) % 3)), which the guarded write dropped (cp48)
                return dead_in_loop(name) and (in_loop[name] == everywhere.get(name, 0) or _runs_once(loop))
            _first_assignments(stmt.body, assigned_each_run, assigned_each_run, seen, found, everywhere)
        elif isinstance(stmt, ast.If):
            tested = seen | read_names(stmt.test)
            for branch in (stmt.body, stmt.orelse):
                mentions = Counter(n.id for s in branch for n in walk(s) if isinstance(n, ast.Name))

                def only_here(name: str, mentions: Counter = mentions) -> bool:
                    return mentions[name] == everywhere.get(name, 0)

                def first_here(name: str, mentions: Counter = mentions, stmt: ast.If = stmt) -> bool:
                    # or dead where the if stands, and both its branches assign it first
                    return only_here(name) or (dead_old(name) and assigns_first([stmt], name))
                # the else branch is lifted second: its guarded write keeps the then branch's value
                # where the test holds, so it needs the old value unless the name is its own
                then = branch is stmt.body
                _first_assignments(branch, first_here if then else only_here, only_here, set(tested), found,
                                   everywhere)
        seen |= {n.id for n in walk(stmt) if isinstance(n, ast.Name)}


def _runs_once(loop: ast.For) -> bool:
    """Whether ``loop`` surely runs its body at least once: ``range`` of integer constants."""
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords
            and 1 <= len(it.args) <= 3 and all(isinstance(a, ast.Constant) and type(a.value) is int for a in it.args)):
        return False
    return len(range(*(a.value for a in it.args))) > 0  # type: ignore[attr-defined]


def assigns_first(block: list[ast.stmt], name: str) -> bool:
    """Whether every run of ``block`` assigns the scalar ``name`` before anything reads it: its
    first mention is ``name = v`` (``v`` not reading it) at the top level, or an ``if``/``else``
    whose test does not mention it and whose two branches both assign it first."""
    for stmt in block:
        if not any(isinstance(n, ast.Name) and n.id == name for n in walk(stmt)):
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.targets[0].id == name and name not in read_names(stmt.value)
        if isinstance(stmt, ast.If):
            return name not in read_names(stmt.test) and assigns_first(stmt.body, name) \
                and assigns_first(stmt.orelse, name)
        return False
    return False


def store_condition(lifter, test: ast.expr, name: str, scope) -> list:
    """``name = int(outer guards and test)``, unguarded: the fresh local is written wherever the
    ``if`` runs, and ``test`` is evaluated only where Python evaluates it (a run-time subscript in
    it may be out of range elsewhere).  With the outer guards also on the body, ``not name``
    still means ``not test`` there."""
    target = ast.copy_location(ast.Name(id=name, ctx=ast.Store()), test)
    statement = ast.copy_location(ast.Assign(targets=[target], value=test), test)
    ast.fix_missing_locations(statement)
    saved, lifter.guards = lifter.guards, []
    try:
        exprs = lifter.expressions(scope)
        value = exprs.truth(exprs.convert(test))
        if saved:
            value = ir.BoolOp("and", (guard_expr(saved, exprs), value))
        value = exprs.coerce(value, VType("int64", True))
        return [lifter.add_statement(statement, target, value, scope, exprs)]
    finally:
        lifter.guards = saved


def lift_assert(lifter, node: ast.Assert, scope) -> list:
    """``assert test, "msg"`` where it runs: a statement writing a fresh local (never read) the
    value ``ir.Check(outer guards and not test)``, which raises AssertionError("msg") there
    (target="python") or after the phase (target="cpu", by the error flag of run-time
    subscripts).  Like ``store_condition``, unguarded: ``test`` is evaluated only where Python
    evaluates it."""
    name = f"{ASSERT_PREFIX}{lifter.assert_count}"
    lifter.assert_count += 1
    target = ast.copy_location(ast.Name(id=name, ctx=ast.Store()), node)
    statement = ast.copy_location(ast.Assign(targets=[target], value=node.test), node)
    ast.fix_missing_locations(statement)
    error, message = assert_message(node.msg) or ("AssertionError", None)
    saved, lifter.guards = lifter.guards, []
    try:
        exprs = lifter.expressions(scope)
        failed: ir.Expr = ir.Unary("not", exprs.truth(exprs.convert(node.test)), "bool")
        if saved:
            failed = ir.BoolOp("and", (guard_expr(saved, exprs), failed))
        flag = ir.Select(failed, ir.int_const(1), ir.int_const(0), ir.INT, False)
        check = ir.Check(flag, ir.int_const(1), "", 0, message=message, error=error)
        return [lifter.add_statement(statement, target, check, scope, exprs)]
    finally:
        lifter.guards = saved


def guard_expr(guards: list[Guard], exprs) -> ir.Expr:
    """The conjunction of ``guards`` as a bool expression; its reads are recorded in ``exprs``."""
    terms = []
    for guard in guards:
        if guard.local is not None:
            stored = exprs.convert(ast.Name(id=guard.local, ctx=ast.Load()))
            term: ir.Expr = ir.Compare("!=", stored, ir.Const(0, "int64", True))
        else:
            assert guard.test is not None
            term = exprs.truth(exprs.convert(guard.test))
        terms.append(ir.Unary("not", term, "bool") if guard.negate else term)
    return terms[0] if len(terms) == 1 else ir.BoolOp("and", tuple(terms))


def zero_of(dtype: str) -> ir.Expr:
    """A zero of ``dtype``: the value a branch-local scalar holds where its branch is not taken."""
    return ir.complex_const(0j, dtype, False) if dtype.startswith("complex") else ir.Const(0, dtype, False)


def guarded_value(value: ir.Expr, guard: ir.Expr, old: ir.Expr, dtype: str) -> ir.Expr:
    """``value if guard else old``: the old value is written back unchanged where ``guard`` fails."""
    return ir.Select(guard, value, old, dtype, False)



# ---- subscripts that are not affine --------------------------------------------------------
RUNTIME_AXIS = "_pf_any"  # the isl name of an axis indexed by a subscript computed at run time


def runtime_subscript(exprs, node: ast.expr, info, axis: int, extent: ast.expr | None = None) -> Affine:
    """``x[idx[i]]``: the subscript as a value computed at run time (wrapped and checked there);
    its isl text is a free variable, so the access covers the whole axis.  ``extent``: the length
    it is checked against where that is not the axis' (the count of a buffer's first elements
    that are the user's array, no more than the axis: frontend.checker PREFIX_INDEX_CALL)."""
    value = exprs.convert(node)
    if value.dtype not in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"):
        raise exprs.lifter.error(node, f"subscript {ast.unparse(node)!r} is a {value.dtype} value; "
                                 "only integers (not uint64, whose large values int64 cannot hold) index arrays")
    value = exprs.coerce(value, VType("int64", True))
    length = info.shape[axis] if extent is None else exprs.coerce(exprs.convert(extent), VType("int64", True))
    index = ir.Index(value, length, info.name, axis)
    return Affine(f"{RUNTIME_AXIS}{axis}", index)


def access_text(array: str, info, index: list[Affine]) -> str:
    """``x[i, _pf_any1] : 0 <= _pf_any1 < extent``: the access in isl syntax, each run-time
    subscript free inside its axis (any element may be read or written)."""
    texts = ", ".join(a.text for a in index)
    free = [f"0 <= {a.text} < {info.extent_texts[axis]}" for axis, a in enumerate(index)
            if isinstance(a.expr, ir.Index)]
    return f"{array}[{texts}]" + (f" : {' and '.join(free)}" if free else "")


def has_runtime_index(index) -> bool:
    return any(isinstance(e, ir.Index) for i in index for e in ir.walk(i))
