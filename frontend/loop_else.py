"""``for ... else`` / ``while ... else`` as a flag (part of ``frontend.rewrite``).

The ``else`` block of a loop runs when the loop ends without its own ``break``.  A loop whose body
holds no ``break`` of its own runs it always: the block follows the loop.  Otherwise each of the
loop's own ``break`` statements first sets a fresh flag, and the block runs under ``if not
flag:`` after the loop::

    for i in range(n):              _pf_broke = False
        if x[i] <= 0:               for i in range(n):
            break           ->          if x[i] <= 0:
    else:                                   _pf_broke = True
        return True                         break
    return False                    if not _pf_broke:
                                        return True
                                    return False
"""

from __future__ import annotations

import ast
from collections.abc import Callable

FLAG = "_pf_broke"


def loop_else(body: list[ast.stmt], fresh: Callable[[str], str]) -> list[ast.stmt]:
    """``body`` with the ``else`` blocks of its loops (nested ones too) written out."""
    out: list[ast.stmt] = []
    for stmt in body:
        for field in ("body", "orelse"):
            if isinstance(stmt, (ast.If, ast.For, ast.While)):
                setattr(stmt, field, loop_else(getattr(stmt, field), fresh))
        if not isinstance(stmt, (ast.For, ast.While)) or not stmt.orelse:
            out.append(stmt)
            continue
        orelse, stmt.orelse = stmt.orelse, []
        if not own_breaks(stmt.body):
            out += [stmt, *orelse]
            continue
        flag = fresh(FLAG)
        stmt.body = _flagged(stmt.body, flag)
        out += [_at(_set(flag, False), stmt), stmt,
                _at(ast.If(ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load())), orelse, []), stmt)]
    return out


def own_breaks(body: list[ast.stmt]) -> bool:
    """Whether a ``break`` of the loop whose body is ``body`` stands in it (not in an inner loop)."""
    return any(isinstance(s, ast.Break) or isinstance(s, ast.If) and (own_breaks(s.body) or own_breaks(s.orelse))
               for s in body)


def _flagged(body: list[ast.stmt], flag: str) -> list[ast.stmt]:
    """``body`` with each of the loop's own ``break`` statements setting ``flag`` first."""
    out: list[ast.stmt] = []
    for s in body:
        if isinstance(s, ast.Break):
            out += [_at(_set(flag, True), s), s]
            continue
        if isinstance(s, ast.If):
            s.body, s.orelse = _flagged(s.body, flag), _flagged(s.orelse, flag)
        out.append(s)
    return out


def _set(flag: str, value: bool) -> ast.Assign:
    return ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(value))


def _at(node: ast.stmt, like: ast.AST) -> ast.stmt:
    """``node`` and its parts placed at ``like`` (error messages point at the user's line)."""
    for part in ast.walk(node):
        if isinstance(part, (ast.expr, ast.stmt)):
            ast.copy_location(part, like)
    return node
