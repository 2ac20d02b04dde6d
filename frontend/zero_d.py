"""A 0-d array argument's element written as ``c[()]`` (part of ``frontend.rewrite``, first).

``c = np.zeros(())`` passed in is an array of rank 0 (the cpu and python targets take one; fe38):
``c[()]`` reads and writes its one element.  NumPy's other spellings of that element mean the
same on a 0-d array, so they are written as ``c[()]`` here::

    c[...] = v        ->   c[()] = v
    c += v            ->   c[()] += v      (in place, as NumPy's += of an array)
    range(c)          ->   range(c[()])    (Python takes an integer 0-d array through __index__)
    c.sum(), np.sum(c) ->  c[()]           (its one element; the same for prod, max, min, mean,
                                            amax, amin; in NumPy's result dtype: np.int64(c[()])
                                            for the sum or product of a smaller int or a bool,
                                            np.float64 for the mean of an int; any and all
                                            np.bool_(c[()] != 0))

Only for an argument the kernel never binds again (``c = ...`` anywhere: then ``c`` may mean
another value, left as written).
"""

from __future__ import annotations

import ast
from typing import Protocol

import numpy as np

from .source import walk


class Rewriter(Protocol):
    ranks: dict[str, int]
    dtypes: dict[str, str]
    globals: dict


_REDUCTIONS = frozenset({"sum", "prod", "max", "min", "mean", "amax", "amin", "any", "all"})


def zero_d_elements(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with ``c[...]`` and ``c += v`` of each 0-d array argument ``c`` written as ``c[()]``."""
    names = {name for name, rank in rw.ranks.items() if rank == 0}
    augmented = {id(n.target) for stmt in body for n in walk(stmt) if isinstance(n, ast.AugAssign)}
    bound = {n.id for stmt in body for n in walk(stmt)
             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in augmented}
    names -= bound
    if not names:
        return body
    numpy = [name for name, value in rw.globals.items() if value is np]
    fix = _Elements(names, {n: str(np.dtype(rw.dtypes[n])) for n in names}, numpy)
    return [fix.visit(stmt) for stmt in body]


def _result_dtype(kind: str, dtype: str) -> str:
    """The dtype NumPy's ``kind`` reduction of a 0-d array of ``dtype`` returns."""
    if kind in ("any", "all"):
        return "bool"
    if kind in ("sum", "prod") and (dtype == "bool" or dtype.startswith("int")):
        return "int64"
    if kind in ("sum", "prod") and dtype.startswith("uint"):
        return "uint64"
    if kind == "mean" and (dtype == "bool" or "int" in dtype):
        return "float64"
    return dtype


def _element(name: ast.Name, ctx: ast.expr_context, like: ast.AST) -> ast.Subscript:
    made = ast.Subscript(ast.Name(name.id, ast.Load()), ast.Tuple([], ast.Load()), ctx)
    for node in walk(made):
        ast.copy_location(node, like)
    return made


class _Elements(ast.NodeTransformer):
    def __init__(self, names: set[str], dtypes: dict[str, str], numpy: list[str]) -> None:
        self.names, self.dtypes, self.numpy = names, dtypes, numpy

    def reduced(self, node: ast.Call) -> ast.expr | None:
        """``c.sum()`` or ``np.sum(c)`` of a 0-d array argument ``c`` (the forms above), its
        element in NumPy's result dtype; None for any other call."""
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _REDUCTIONS or node.keywords:
            return None
        if isinstance(func.value, ast.Name) and func.value.id in self.names and not node.args \
                and func.attr not in ("amax", "amin"):
            name = func.value
        elif isinstance(func.value, ast.Name) and func.value.id in self.numpy and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in self.names:
            name = node.args[0]
        else:
            return None
        dtype, kind = self.dtypes[name.id], func.attr
        element: ast.expr = _element(name, ast.Load(), node)
        if kind in ("any", "all") and dtype != "bool":
            element = ast.Compare(element, [ast.NotEq()], [ast.Constant(0)])
        result = _result_dtype(kind, dtype)
        if result == dtype:
            return element
        if not self.numpy:
            return None
        made = ast.Call(ast.Attribute(ast.Name(self.numpy[0], ast.Load()), "bool_" if result == "bool" else result,
                                      ast.Load()), [element], [])
        for n in walk(made):
            ast.copy_location(n, node)
        return made

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in self.names \
                and isinstance(node.slice, ast.Constant) and node.slice.value is Ellipsis:
            return _element(node.value, node.ctx, node)
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        reduced = self.reduced(node)
        if reduced is not None:
            return reduced
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            node.args = [_element(a, ast.Load(), a) if isinstance(a, ast.Name) and a.id in self.names else a
                         for a in node.args]
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and node.target.id in self.names:
            node.target = _element(node.target, ast.Store(), node.target)
        return node
