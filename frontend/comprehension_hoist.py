"""``np.array([expr for v in X])`` inside a larger statement bound to a local of its own first
(part of ``frontend.rewrite``, before ``Desugar``).

The lowering makes such an array only as the whole value of ``name = np.array([...])``
(``frontend/array_comprehension.py``); a user's ``y[:] = np.array([f(i) for i in range(n)])``,
``s = np.array([...]).sum()`` or ``return 2 * np.array([...])`` reads it in place::

    y[:] = np.array([f(i) for i in range(n)])   ->   lc_array = np.array([f(i) for i in range(n)])
                                                      y[:] = lc_array

Subset expressions have no side effects, so computing the array just before the statement is what
Python computes.  Only in an assignment, augmented assignment or return, and not under a
conditional (``a if c else np.array(...)``, ``and``/``or``), a lambda or another comprehension,
whose names or evaluation the hoisting would change.
"""

from __future__ import annotations

import ast
from typing import Protocol

import numpy as np

from .source import map_blocks


class Rewriter(Protocol):
    globals: dict

    def fresh(self, name: str) -> str: ...


_BLOCKING = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda, ast.IfExp, ast.BoolOp)


def hoist_comprehension_arrays(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each np.array of a list comprehension read inside a larger statement bound
    to a fresh local just before it (the module); nested bodies too."""
    out: list[ast.stmt] = []
    for stmt in body:
        map_blocks(stmt, lambda inner: hoist_comprehension_arrays(rw, inner))
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)) and stmt.value is not None \
                and not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                         and isinstance(stmt.targets[0], ast.Name) and _is_comprehension_array(rw, stmt.value)):
            hoist = _Hoist(rw)
            stmt.value = hoist.visit(stmt.value)
            for name, call in hoist.made:
                new = ast.Assign([ast.Name(name, ast.Store())], call)
                out.append(ast.fix_missing_locations(ast.copy_location(new, stmt)))
                ast.copy_location(new.targets[0], call)
        out.append(stmt)
    return out


def _is_comprehension_array(rw: Rewriter, node: ast.expr) -> bool:
    """Whether ``node`` is ``np.array([...])`` / ``np.asarray([...])`` of one list comprehension."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("array", "asarray") and isinstance(node.func.value, ast.Name) \
        and rw.globals.get(node.func.value.id) is np and len(node.args) == 1 \
        and isinstance(node.args[0], ast.ListComp)


class _Hoist(ast.NodeTransformer):
    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw
        self.made: list[tuple[str, ast.Call]] = []

    def visit(self, node):
        if isinstance(node, _BLOCKING):
            return node  # evaluated conditionally, or in a scope of its own: left in place
        if _is_comprehension_array(self.rw, node):
            name = self.rw.fresh("lc_array")
            self.made.append((name, node))
            return ast.copy_location(ast.Name(name, ast.Load()), node)
        return self.generic_visit(node)
