"""Locals reused as scratch inside an if: the if's uses get a fresh name (part of ``frontend.rewrite``).

numba code reuses a short name for unrelated values (Nussinov's DP: ``v = N[i + 1, j - 1] + 1``
under ``if seq[i] + seq[j] == 3:``, then ``v = N[i, k] + N[k + 1, j]`` in a later loop).  The
lowering keeps a local assigned under a data-dependent if as its previous value where the test
is false, so the first iteration reads the local before any assignment and the kernel was
refused (*local 'v' may be read before it is assigned*), although Python never reads that
value.  Where no read can see what the if leaves in the name, the if's own uses are separate
variables: a name ``v`` assigned inside an ``if`` statement ``S`` gets a fresh name in each branch
of ``S`` (every load and store there; an ``elif`` is a branch, split in turn) when

- ``v`` is not surely assigned on every path before ``S`` (elsewhere the previous value exists
  and the kernel compiles as before, unchanged),
- no read inside ``S`` can see a value from before ``S`` (``S``'s test does not read ``v``, and in
  each branch every read follows an assignment of it: the branch does not have ``v`` live on
  entry), and no read after ``S`` can see the value ``S`` leaves (``v`` is not live after ``S``,
  the loops around ``S`` and their next iterations included),
- ``v`` is assigned outside ``S`` too (one assigned only there is a branch's local already), and
  is a plain name: never subscripted, never a loop's variable, never bound by ``with``, ``del``,
  ``global`` and the like.

Liveness is computed over the structured body, conservatively: ``break`` and ``continue`` make
every name live (``return`` and ``raise`` only what they read), and a loop's body may run zero or
more times.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .source import walk

_ALL = "*"  # in a live set: every name


def separate_branch_locals(body: list[ast.stmt], params: set[str], fresh: Callable[[str], str]) -> list[ast.stmt]:
    """``body`` with the if-scratch locals renamed (the module docstring); ``params``: the
    function's parameters (assigned on entry), ``fresh``: a new name for a name."""
    subscripted = {n.value.id for s in body for n in walk(s) if isinstance(n, ast.Subscript)
                   and isinstance(n.value, ast.Name)}
    odd = {n.id for s in body for n in walk(s) for t in _odd_targets(n) for n in walk(t) if isinstance(n, ast.Name)}
    stores: dict[str, int] = {}
    for s in body:
        for n in walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
    after: dict[int, set[str]] = {}
    _live_block(body, set(), after)
    _Renamer(after, subscripted | odd, stores, fresh).block(body, set(params))
    return body


def _odd_targets(node: ast.AST) -> list[ast.AST]:
    """The names bound other than by ``name = value``, ``name op= value`` (loops, with, del,
    global, comprehension and walrus targets, imports)."""
    if isinstance(node, (ast.For, ast.comprehension)):
        return [node.target]
    if isinstance(node, ast.With):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if isinstance(node, ast.NamedExpr):
        return [node.target]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return [ast.Name(n, ast.Store()) for n in node.names]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [ast.Name((a.asname or a.name).split(".")[0], ast.Store()) for a in node.names]
    return []


def _reads(node: ast.AST | None) -> set[str]:
    return set() if node is None else {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _live(name: str, live: set[str]) -> bool:
    return name in live or _ALL in live


def _live_block(stmts: list[ast.stmt], out: set[str], after: dict[int, set[str]]) -> set[str]:
    """The names live before ``stmts`` given those live after them (``out``); records the set
    live after each ``if`` in ``after`` (by id)."""
    live = set(out)
    for stmt in reversed(stmts):
        live = _live_stmt(stmt, live, after)
    return live


def _live_stmt(stmt: ast.stmt, out: set[str], after: dict[int, set[str]]) -> set[str]:
    if isinstance(stmt, ast.If):
        after[id(stmt)] = set(out)
        return _reads(stmt.test) | _live_block(stmt.body, out, after) | _live_block(stmt.orelse, out, after)
    if isinstance(stmt, (ast.For, ast.While)):
        exit_live = out | _live_block(stmt.orelse, out, after)
        head = set(exit_live)
        target = {n.id for n in walk(stmt.target) if isinstance(n, ast.Name)} if isinstance(stmt, ast.For) else set()
        for _ in range(64):  # the loop's head: after the body and before the exit, to a fixpoint
            inner = _live_block(stmt.body, head, after) - target
            new = exit_live | inner | (_reads(stmt.test) if isinstance(stmt, ast.While) else set())
            if new == head:
                break
            head = new
        else:  # (no fixpoint: every name live, the records inside made so too)
            head = {_ALL}
            _live_block(stmt.body, head, after)
        return head | (_reads(stmt.iter) if isinstance(stmt, ast.For) else set())
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        return (out - {t.id for t in stmt.targets if isinstance(t, ast.Name)}) | _reads(stmt.value)
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Assert, ast.Pass)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
        killed = {t.id for t in targets if isinstance(t, ast.Name) and not isinstance(stmt, ast.AugAssign)}
        loaded = _reads(stmt) | {t.id for t in targets if isinstance(t, ast.Name) and isinstance(stmt, ast.AugAssign)}
        return (out - killed) | loaded  # (a tuple target: each name stored; subscripts: their reads)
    if isinstance(stmt, (ast.Return, ast.Raise)):  # the function ends: only what it reads
        return _reads(stmt)
    return {_ALL}  # break, continue, with, try, nested definitions


def _assigned(stmts: list[ast.stmt], before: set[str]) -> set[str]:
    """The names surely assigned after ``stmts`` run to their end, given ``before``."""
    sure = set(before)
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            sure |= _assigned(stmt.body, sure) & _assigned(stmt.orelse, sure)
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            sure |= {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return sure


class _Renamer:
    def __init__(self, after: dict[int, set[str]], excluded: set[str], stores: dict[str, int],
                 fresh: Callable[[str], str]) -> None:
        self.after, self.excluded, self.stores, self.fresh = after, excluded, stores, fresh

    def block(self, stmts: list[ast.stmt], sure: set[str]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                self.branch(stmt, sure)
                self.block(stmt.body, sure)
                self.block(stmt.orelse, sure)
            elif isinstance(stmt, (ast.For, ast.While)):
                self.block(stmt.body, sure)
                self.block(stmt.orelse, sure)
            sure = _assigned([stmt], sure)

    def branch(self, stmt: ast.If, sure: set[str]) -> None:
        inside = [n for n in walk(stmt) if isinstance(n, ast.Name)]
        stored_here: dict[str, int] = {}
        for n in inside:
            if isinstance(n.ctx, ast.Store):
                stored_here[n.id] = stored_here.get(n.id, 0) + 1
        out = self.after.get(id(stmt), {_ALL})
        for name, count in stored_here.items():
            if name in sure or name in self.excluded or self.stores.get(name, 0) <= count or _live(name, out) \
                    or name in _reads(stmt.test):
                continue
            without = out - {name}
            if _live(name, _live_block(stmt.body, without, {})) or _live(name, _live_block(stmt.orelse, without, {})):
                continue
            for branch in (stmt.body, stmt.orelse):  # a name per branch: each a branch's local
                names = [n for s in branch for n in walk(s) if isinstance(n, ast.Name) and n.id == name]
                if names:
                    new = self.fresh(name)
                    self.stores[new] = sum(isinstance(n.ctx, ast.Store) for n in names)
                    for n in names:
                        n.id = new
                    self.rename_live(branch, name, new)

    def rename_live(self, branch: list[ast.stmt], name: str, new: str) -> None:
        """The live sets recorded after the ifs inside ``branch`` say ``new`` for ``name``: every
        use there is renamed, so a later decision on an inner ``if`` must see ``new`` live where
        ``name`` was (no value of ``name`` flows into the branch from outside)."""
        for stmt in branch:
            for n in walk(stmt):
                live = self.after.get(id(n)) if isinstance(n, ast.If) else None
                if live is not None and name in live:
                    self.after[id(n)] = (live - {name}) | {new}
