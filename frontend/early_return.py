"""A helper's returns from inside loops, as one return at its end (part of ``frontend.rewrite``).

Escape-time helpers return from inside their loop (``for i in range(n): ...; if done: return i``
then ``return n``).  Helpers are inlined, and a value helper with loops must return only at its
end, so its body is rewritten first: each ``return v`` becomes ``result = v; returned = True``
and, inside a loop, a ``break``; after a loop that may have returned, an enclosing loop breaks
too (``if returned: break``) and the rest of a block runs under ``if not returned:``; the body
ends with ``return result``.  ``result`` starts as ``False``, a weak Python bool, so its type is
the promotion of the returned values alone (NEP 50: a Python bool with an int64 is int64), and
every path the helper may take assigns it (Python would return None otherwise, a helper that
polyfuse refuses anyway).  A helper called as a statement drops its value: its returns only leave.  Helpers whose returns are all outside loops are left as they are.
"""

from __future__ import annotations

import ast

RESULT, RETURNED = "_pf_result", "_pf_returned"


def single_exit(body: list[ast.stmt], value_used: bool = True) -> list[ast.stmt]:
    """``body`` with one return at its end when a return stands inside a loop; else itself.
    ``value_used=False`` (a helper called as a statement, its value dropped): the returns only
    leave, and the body ends with a bare ``return``."""
    if not any(_returns_in_loop(s, False) for s in body):
        return body
    docstring = body[:1] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else []
    body = body[len(docstring):]
    first = body[0]
    init = [_at(ast.Assign([ast.Name(RETURNED, ast.Store())], ast.Constant(False)), first)]
    if value_used:
        init.insert(0, _at(ast.Assign([ast.Name(RESULT, ast.Store())], ast.Constant(False)), first))
    last = body[-1]
    final = ast.Return(ast.Name(RESULT, ast.Load()) if value_used else None)
    return docstring + init + _block(body, False, value_used) + [_at(final, last)]


def _returns_in_loop(node: ast.AST, in_loop: bool) -> bool:
    if isinstance(node, ast.Return):
        return in_loop
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return False
    inside = in_loop or isinstance(node, (ast.For, ast.While))
    return any(_returns_in_loop(child, inside) for child in ast.iter_child_nodes(node))


def _has_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _block(stmts: list[ast.stmt], in_loop: bool, value_used: bool) -> list[ast.stmt]:
    """The statements of one block, rewritten; the rest of the block after a statement that may
    return runs only when it did not."""
    out: list[ast.stmt] = []
    for k, stmt in enumerate(stmts):
        if not _has_return(stmt):
            out.append(stmt)
            continue
        if isinstance(stmt, ast.Return):
            if value_used:  # (subset expressions have no side effects: a dropped value need not run)
                value = stmt.value if stmt.value is not None else ast.Constant(None)
                out.append(_at(ast.Assign([ast.Name(RESULT, ast.Store())], value), stmt))
            out.append(_at(ast.Assign([ast.Name(RETURNED, ast.Store())], ast.Constant(True)), stmt))
            if in_loop:
                out.append(_at(ast.Break(), stmt))
            return out  # nothing after a return runs
        if isinstance(stmt, (ast.For, ast.While)):
            stmt.body = _block(stmt.body, True, value_used)
            stmt.orelse = _block(stmt.orelse, in_loop, value_used)
            out.append(stmt)
            if in_loop:  # a return from the inner loop leaves this one too
                out.append(_at(ast.If(ast.Name(RETURNED, ast.Load()), [_at(ast.Break(), stmt)], []), stmt))
        elif isinstance(stmt, ast.If):
            stmt.body = _block(stmt.body, in_loop, value_used)
            stmt.orelse = _block(stmt.orelse, in_loop, value_used)
            out.append(stmt)
        else:  # a return nested in some other statement: left for the inliner's own checks
            out.append(stmt)
        rest = _block(stmts[k + 1:], in_loop, value_used)
        if rest:
            test = _at(ast.UnaryOp(ast.Not(), ast.Name(RETURNED, ast.Load())), stmt)
            out.append(_at(ast.If(test, rest, []), stmt))
        return out
    return out


def _at(node, like: ast.AST):
    """``node`` and its parts placed at ``like`` (error messages point at the user's line)."""
    for part in ast.walk(node):
        if isinstance(part, (ast.expr, ast.stmt)) and not hasattr(part, "lineno"):
            ast.copy_location(part, like)
    return node
