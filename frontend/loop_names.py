"""Loop variables that share their name with a local: the loop's variable gets a fresh name.

numba code reuses short names freely: ``for j in range(n_cols): ...`` and, in a later loop,
``j = indices[k]`` (a scalar local).  polyfuse keeps loop variables and locals apart (a loop
variable exists only inside its loop), so such a kernel was refused (*local 'j' reuses the name
of a loop variable*).  Python's only difference between the two uses is that a ``for`` loop
leaves its last value in the name; so the loop may take a fresh name exactly when no read of the
local can see that value: every read of the local is preceded, in its own block or an
enclosing one, by an assignment to it with no loop of that name in between (and no such loop
inside an enclosing loop, whose next iteration would see it).  Where one read is not covered the
kernel is left as it is, and refused as before.  A loop over an array (``for v in x``, which
``Desugar`` makes ``v = x[i]`` in a range loop) counts as an assignment of its name here, so
``for v in x: ...`` then ``for v in range(k): ...`` gives the range loop a fresh name.

Before::

    for j in range(m):
        c[j + 1] += c[j]
    for k in range(nnz):
        j = indices[k]
        pos[j] += 1

After::

    for j_2 in range(m):
        c[j_2 + 1] += c[j_2]
    for k in range(nnz):
        j = indices[k]
        pos[j] += 1
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from .source import bound_names, counted_loop, walk


def rename_clashing_loops(body: list[ast.stmt], fresh: Callable[[str], str]) -> list[ast.stmt]:
    """``body`` with the variable of every ``for`` loop whose name is also a local's renamed
    (``fresh(name)``), where the rename cannot change what a read sees (module docstring)."""
    loops = [n for s in body for n in walk(s) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)]
    # a loop over an array (for v in x) is an assignment of its element once desugared
    elements = {loop.target.id for loop in loops if not counted_loop(loop)}  # type: ignore[attr-defined]
    assigned = _assigned(body) | elements
    for name in sorted({loop.target.id for loop in loops} & assigned):  # type: ignore[attr-defined]
        binding = [loop for loop in loops if loop.target.id == name  # type: ignore[attr-defined]
                   and (name not in elements or counted_loop(loop))]
        if not binding or any(loop.orelse or name in _assigned(loop.body) for loop in binding) or not _covered(body, name, False):
            continue  # (j = 2 inside for j: an assignment to the loop variable itself, refused as such)
        new = fresh(name)
        for loop in binding:
            for node in [loop.target, *(n for s in loop.body for n in walk(s))]:
                if isinstance(node, ast.Name) and node.id == name:
                    node.id = new
    return body


def _assigned(body: list[ast.stmt]) -> set[str]:
    """The names the assignments in ``body`` bind, at any depth (``name = v``, ``name += v``)."""
    return {bound for s in body for n in walk(s) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            for target in (n.targets if isinstance(n, ast.Assign) else [n.target]) for bound in bound_names(target)}


def _binds(node: ast.AST, name: str) -> bool:
    """Whether ``node`` holds a ``for name in ...`` loop."""
    return any(isinstance(n, ast.For) and isinstance(n.target, ast.Name) and n.target.id == name
               for n in walk(node))


def _reads(nodes: Sequence[ast.AST], name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for node in nodes for n in walk(node))


def _covered(block: list[ast.stmt], name: str, defined: bool) -> bool:
    """Whether every read of the local ``name`` in ``block`` (outside the loops that bind it)
    comes after an assignment to it that no such loop follows; ``defined``: one holds on entry."""
    for stmt in block:
        if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            if _reads([stmt.iter], name) and not defined:
                return False
            defined = False  # the loop leaves its last value: a read from here on needs a new assignment
            continue
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            if not defined:
                return False  # name += v reads it first
            continue
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            if _reads([stmt.value] if stmt.value is not None else [], name) and not defined:
                return False
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if _binds(stmt, name):
                return False
            if _reads(targets, name) and not defined:
                return False  # a[j] = v reads j
            if any(name in bound_names(target) for target in targets):
                defined = True
            continue
        if isinstance(stmt, (ast.For, ast.While)):
            inner = defined and not _binds(stmt, name)  # the next iteration would see the loop's value
            head = [stmt.iter] if isinstance(stmt, ast.For) else [stmt.test]
            if _reads(head, name) and not inner:
                return False
            if not _covered(stmt.body, name, inner) or not _covered(stmt.orelse, name, inner):
                return False
            defined = defined and not _binds(stmt, name)
            continue
        if isinstance(stmt, ast.If):
            if _reads([stmt.test], name) and not defined:
                return False
            if not _covered(stmt.body, name, defined) or not _covered(stmt.orelse, name, defined):
                return False
            defined = defined and not _binds(stmt, name)
            continue
        if _binds(stmt, name) or (_reads([stmt], name) and not defined):
            return False  # AugAssign reads first; with, try, match, ...: only where already defined
    return True
