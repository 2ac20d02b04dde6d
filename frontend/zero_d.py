"""A 0-d array argument's element written as ``c[()]`` (part of ``frontend.rewrite``, first).

``c = np.zeros(())`` passed in is an array of rank 0 (the cpu and python targets take one; fe38):
``c[()]`` reads and writes its one element.  NumPy's other spellings of that element mean the
same on a 0-d array, so they are written as ``c[()]`` here::

    c[...] = v        ->   c[()] = v
    c += v            ->   c[()] += v      (in place, as NumPy's += of an array)
    range(c)          ->   range(c[()])    (Python takes an integer 0-d array through __index__)

Only for an argument the kernel never binds again (``c = ...`` anywhere: then ``c`` may mean
another value, left as written).
"""

from __future__ import annotations

import ast
from typing import Protocol

from .source import walk


class Rewriter(Protocol):
    ranks: dict[str, int]


def zero_d_elements(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with ``c[...]`` and ``c += v`` of each 0-d array argument ``c`` written as ``c[()]``."""
    names = {name for name, rank in rw.ranks.items() if rank == 0}
    augmented = {id(n.target) for stmt in body for n in walk(stmt) if isinstance(n, ast.AugAssign)}
    bound = {n.id for stmt in body for n in walk(stmt)
             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in augmented}
    names -= bound
    if not names:
        return body
    fix = _Elements(names)
    return [fix.visit(stmt) for stmt in body]


def _element(name: ast.Name, ctx: ast.expr_context, like: ast.AST) -> ast.Subscript:
    made = ast.Subscript(ast.Name(name.id, ast.Load()), ast.Tuple([], ast.Load()), ctx)
    for node in walk(made):
        ast.copy_location(node, like)
    return made


class _Elements(ast.NodeTransformer):
    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in self.names \
                and isinstance(node.slice, ast.Constant) and node.slice.value is Ellipsis:
            return _element(node.value, node.ctx, node)
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            node.args = [_element(a, ast.Load(), a) if isinstance(a, ast.Name) and a.id in self.names else a
                         for a in node.args]
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and node.target.id in self.names:
            node.target = _element(node.target, ast.Store(), node.target)
        return node
