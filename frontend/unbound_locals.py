"""Locals Python may read unbound: a flag each binding sets, checked where a read may find none.

``for i in range(n): if b[i] > 0: q = c[i]`` then ``return q``: Python raises
``UnboundLocalError`` on the calls where the branch never ran, and returns ``q`` otherwise.  The
lift's dataflow check (polyfuse.analysis.dependences ``unassigned_locals``) finds such a local;
polyfuse/compiler.py then lifts the kernel again with its name in ``names``, and this pass (run
after ``frontend.loop_values``, on the user's names) gives it Python's semantics:

- ``q_bound = False`` first, ``q_bound = True`` after each statement binding ``q``;
- before each statement that reads ``q`` where a binding may not have run (a forward walk:
  an ``if`` binds where both branches do, a loop's body may not run, a read checked once need
  not be again on that path), ``assert q_bound`` raising Python's ``UnboundLocalError``
  (*cannot access local variable 'q' where it is not associated with a value*), the run-time
  check of asserts (frontend.control ``lift_assert``);
- ``q`` itself, renamed (``q_2``, which messages show as ``q``) so that the locals made of it
  later (its versions, fresh names of its bindings) and only those are known by their names,
  starts at zero (frontend/lift.py ``zero_init``): a read past a failed check, or the old value
  a data-dependent ``if`` writes back, sees a defined value, never Python's.

A statement that surely reads the name somewhere (``return w if w > 1 else -w``: the test) raises
there where it is unbound, so its other reads need no check of their own.  A name is left as it
is (the dataflow check then refuses it, at the read) where a statement that may find it unbound
reads it only where Python may skip it (``a if c else q``, a later operand of ``and``/``or``, a
comprehension), where something else than an assignment binds it (a ``for``
target: frontend.loop_values's, ``:=``, ``del``, ``import``), or where a ``try``, ``with`` or
``match`` statement mentions it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .loop_values import UNBOUND, _names
from .source import bound_names, walk

#: the statements whose own expressions a forward walk reads before their blocks
_BLOCKS = (ast.If, ast.For, ast.While)


def unbound_locals(body: list[ast.stmt], names: frozenset[str], arguments: set[str],
                   fresh: Callable[[str], str], raised: Callable[[ast.Assert], None]) -> tuple[list[ast.stmt], set[str]]:
    """``body`` with each of ``names`` that the module docstring's form covers flagged and
    checked, and renamed (``fresh``: a name no helper's inlined local derives from); and those
    new names (their storage starts at zero: they are never unassigned)."""
    done: set[str] = set()
    for name in sorted(names):
        if name in arguments or not body or not _assignments_only(body, name):
            continue
        dry = _Walk(name, fresh, raised, dry=True)
        if dry.block(body, False) is None:
            continue  # (a dry walk first: the real one rewrites the blocks in place)
        walker = _Walk(name, fresh, raised, flagged=dry.checks > 0)  # (no check: no flag to set)
        walked = walker.block(body, False)
        assert walked is not None
        rewritten = walked[0]
        if walker.flag:
            top = ast.parse(f"{walker.flag} = False").body[0]
            _locate(top, body[0])
            rewritten = [top, *rewritten]
        body = rewritten
        done.add(_renamed(body, name, fresh(name)))
    return body, done


def _renamed(body: list[ast.stmt], name: str, new: str) -> str:
    """``new``, now the name of each of ``body``'s ``name`` nodes."""
    for stmt in body:
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id == name:
                node.id = new
    return new


def _assignments_only(body: list[ast.stmt], name: str) -> bool:
    """Whether only assignment statements bind ``name`` (no ``for`` target, ``:=``, ``del``,
    import, comprehension target), and no ``try``/``with``/``match`` mentions it."""
    stores = 0
    for stmt in body:
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
                stores += 1
            elif isinstance(node, (ast.Try, ast.With, ast.Match, ast.Global, ast.Nonlocal, ast.Import,
                                   ast.ImportFrom, ast.FunctionDef, ast.Lambda)) \
                    and any(isinstance(n, ast.Name) and n.id == name for n in walk(node)) \
                    or isinstance(node, (ast.Import, ast.ImportFrom)) \
                    and any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return False
    assigned = sum(1 for stmt in body for node in walk(stmt) if isinstance(node, ast.stmt)
                   for t in _targets(node) for n in walk(t)
                   if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store))
    return stores == assigned > 0


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AugAssign) or isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return [stmt.target]
    return []


def _binds(stmt: ast.stmt, name: str) -> bool:
    return any(name in bound_names(t) for t in _targets(stmt))


class _Walk:
    """The forward walk of one name: ``bound`` is whether a binding surely ran on every path
    here (vacuously after ``return``, ``break``, ``continue``, ``raise``)."""

    def __init__(self, name: str, fresh: Callable[[str], str], raised: Callable[[ast.Assert], None],
                 dry: bool = False, flagged: bool = True):
        self.name = name
        self.fresh = fresh
        self.raised = raised
        self.dry = dry  # whether to leave the statements as they are (only the answer counts)
        self.flagged = flagged  # whether the bindings set a flag (some read is checked)
        self.flag = ""  # made at the first check or binding
        self.checks = 0

    def block(self, stmts: list[ast.stmt], bound: bool) -> tuple[list[ast.stmt], bool] | None:
        """``stmts`` checked and flagged, and whether the name is bound after them (None: a read
        the form does not cover)."""
        out: list[ast.stmt] = []
        for stmt in stmts:
            if bound:
                out.append(stmt)  # (every read below is of a bound name; the flag is set)
                continue
            own = _own(stmt)
            reads = [n for part in own for n in _names(part, self.name, False)]
            sure = {id(n) for part in own for n in _names(part, self.name, True)}
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == self.name:
                reads.append(stmt.target)  # (q += v reads q first)
                sure.add(id(stmt.target))
            if reads:
                if not sure:
                    return None  # reads Python may all skip (q if c else 0.0): refused at the read
                out.append(self._check(stmt))
                bound = True  # (past the check the name is bound on this path)
            if isinstance(stmt, ast.If):
                then, other = self.block(stmt.body, bound), self.block(stmt.orelse, bound)
                if then is None or other is None:
                    return None
                if not self.dry:
                    stmt.body, stmt.orelse = then[0], other[0]
                bound = then[1] and other[1]
            elif isinstance(stmt, (ast.For, ast.While)):
                inner, rest = self.block(stmt.body, bound), self.block(stmt.orelse, bound)
                if inner is None or rest is None:
                    return None
                if not self.dry:  # (the body may not run: bound as before)
                    stmt.body, stmt.orelse = inner[0], rest[0]
            out.append(stmt)
            if _binds(stmt, self.name):
                if self.flagged:
                    out.append(self._set(stmt))
                bound = True
            elif isinstance(stmt, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
                bound = True  # (vacuously: nothing after it runs)
        return out, bound

    def _check(self, stmt: ast.stmt) -> ast.stmt:
        self.checks += 1
        if self.dry:
            return stmt
        if not self.flag:
            self.flag = self.fresh(f"{self.name}_bound")
        check = ast.Assert(ast.Name(self.flag, ast.Load()),
                           ast.Tuple([ast.Constant("UnboundLocalError"), ast.Constant(UNBOUND.format(self.name))],
                                     ast.Load()))
        _locate(check, stmt)
        self.raised(check)
        return check

    def _set(self, stmt: ast.stmt) -> ast.stmt:
        if self.dry:
            return stmt
        if not self.flag:
            self.flag = self.fresh(f"{self.name}_bound")
        flag = ast.parse(f"{self.flag} = True").body[0]
        _locate(flag, stmt)
        return flag


def _own(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions a statement evaluates itself, not through its sub-statements."""
    if isinstance(stmt, ast.For):
        return [stmt.iter]
    if isinstance(stmt, _BLOCKS):
        return [stmt.test]  # type: ignore[union-attr]
    return [stmt]


def _locate(stmt: ast.stmt, like: ast.AST) -> None:
    for sub in walk(stmt):
        if "lineno" in sub._attributes:
            ast.copy_location(sub, like)
