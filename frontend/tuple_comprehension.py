"""Tuples built by comprehension, written out element by element (part of ``frontend.rewrite``).

N-dimensional NumPy code builds index tuples from other tuples of a known length::

    for pos in np.ndindex(data.shape):
        for offset in np.ndindex(wsize):
            idx = tuple((p + o - w // 2) % w for p, o, w in zip(pos, offset, wsize))
            result[pos] &= data[idx] <= data[pos]

Every length here is known when the kernel is compiled (the rank of ``data``), so the tuple is a
display: ``idx = ((pos_0 + offset_0 - wsize[0] // 2) % wsize[0], ...)``, which the tuple-local
pass (frontend/tuples.py) and the rest of the frontend take as ordinary subscripts.  Two rewrites,
each exact (subset expressions have no side effects, and a tuple cannot change):

- **ndindex tuples by name.** ``for pos in np.ndindex(S)`` whose ``S`` has a known length (a
  tuple display, ``X.shape`` of an array argument, several integer arguments, or a local assigned
  once from one of those) gets one loop variable per axis, ``for (pos_0, pos_1) in ...``, and each
  read of ``pos`` becomes the display ``(pos_0, pos_1)`` (the loop must not assign ``pos``).
- **Comprehensions in tuple().** ``tuple(E for T in I)`` (or of a list comprehension), one
  ``for`` and no ``if``, over a sequence ``S`` of known length, ``range`` of integer constants,
  and ``zip`` and ``enumerate`` of those, becomes the display of ``E`` with ``T``'s names
  replaced by each item's elements (``S[d]`` for a named sequence, so that the tuple-local rules
  still decide whether it may be read there).  ``(p0, p1)[1]`` is then ``p1``.

Anything else is left as it was, for the checker to refuse at its location.
"""

from __future__ import annotations

import ast
from collections import Counter

import numpy as np

from .desugar import Rewriter, int_constant
from .source import walk


def unroll_tuple_comprehensions(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with ndindex tuples named per axis and ``tuple(...)`` comprehensions written out."""
    stores = Counter(n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    named: dict[str, ast.expr] = {}
    for stmt in (s for top in body for s in walk(top)):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stores[stmt.targets[0].id] == 1:
            named[stmt.targets[0].id] = stmt.value
    unroller = _Unroller(rw, named)
    return [unroller.visit(stmt) for stmt in body]


class _Unroller(ast.NodeTransformer):
    def __init__(self, rw: Rewriter, named: dict[str, ast.expr]) -> None:
        self.rw, self.named = rw, named

    def length(self, node: ast.expr, seen: frozenset[str] = frozenset()) -> int | None:
        """The length of a sequence known at compile time, else None."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return None if any(isinstance(e, ast.Starred) for e in node.elts) else len(node.elts)
        if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name) \
                and node.value.id in self.rw.ranks:
            return self.rw.ranks[node.value.id]
        if isinstance(node, ast.Name) and node.id in self.named and node.id not in seen:
            return self.length(self.named[node.id], seen | {node.id})
        return None

    def items(self, node: ast.expr) -> list[ast.expr] | None:
        """The elements of a sequence of known length, as expressions to place at each use."""
        count = self.length(node)
        if count is None:
            return None
        if isinstance(node, (ast.Tuple, ast.List)):
            return [self.rw.copy(e) for e in node.elts]
        return [ast.Subscript(self.rw.copy(node), ast.Constant(d), ast.Load()) for d in range(count)]

    # ---- np.ndindex loops over a named tuple
    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        it, target = node.iter, node.target
        if not (isinstance(target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute)
                and it.func.attr == "ndindex" and isinstance(it.func.value, ast.Name)
                and self.rw.globals.get(it.func.value.id) is np and not it.keywords and not node.orelse):
            return node
        if any(isinstance(n, ast.Name) and n.id == target.id and not isinstance(n.ctx, ast.Load)
               for s in node.body for n in walk(s)):
            return node  # (assigned in the body too: the loop variable is not the whole story)
        if len(it.args) == 1:
            count = self.length(it.args[0])
        else:
            count = len(it.args) if all(not isinstance(a, ast.Starred) for a in it.args) else None
        if not count:
            return node
        names = [self.rw.fresh(f"{target.id}_{d}") for d in range(count)]
        node.target = self.rw.placed(ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store()), target)
        display = _Display(self.rw, target.id, names)
        node.body = [display.visit(s) for s in node.body]
        node.body = [self.visit(s) for s in node.body]  # fold the new displays' subscripts
        return node

    # ---- tuple(E for T in I)
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Name) and node.func.id == "tuple" and "tuple" not in self.rw.globals
                and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp))):
            return node
        comp = node.args[0]
        if len(comp.generators) != 1 or comp.generators[0].ifs or comp.generators[0].is_async:
            return node
        if any(isinstance(n, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.NamedExpr))
               for n in walk(comp.elt)):
            return node
        rows = self.iteration(comp.generators[0].iter)
        target = comp.generators[0].target
        if rows is None:
            return node
        elts = []
        for row in rows:
            bound = _bind(target, row)
            if bound is None:
                return node
            elts.append(_Substitute(self.rw, bound).visit(self.rw.copy(comp.elt)))
        return self.rw.placed(ast.Tuple(elts, ast.Load()), node)

    def iteration(self, it: ast.expr) -> list[ast.expr] | None:
        """The items an iterable yields, each an expression, when their number is known."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and not it.keywords \
                and it.func.id not in self.rw.globals:
            if it.func.id == "zip" and it.args:
                columns = [self.iteration(a) for a in it.args]
                if any(c is None for c in columns):
                    return None
                count = min(len(c) for c in columns if c is not None)
                return [ast.Tuple([c[d] for c in columns if c is not None], ast.Load()) for d in range(count)]
            if it.func.id == "enumerate" and len(it.args) == 1:
                column = self.iteration(it.args[0])
                return None if column is None else [ast.Tuple([ast.Constant(d), e], ast.Load())
                                                    for d, e in enumerate(column)]
            if it.func.id == "range" and 1 <= len(it.args) <= 2:
                bounds = [int_constant(a) for a in it.args]
                if any(b is None for b in bounds):
                    return None
                start, stop = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
                return [ast.Constant(v) for v in range(start or 0, stop or 0)]
            return None
        return self.items(it)

    # ---- (a, b)[1] -> b
    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Tuple) and isinstance(node.ctx, ast.Load):
            index = int_constant(node.slice)
            count = len(node.value.elts)
            if index is not None and -count <= index < count \
                    and not any(isinstance(e, ast.Starred) for e in node.value.elts):
                return node.value.elts[index]
        return node


def _bind(target: ast.expr, item: ast.expr) -> dict[str, ast.expr] | None:
    """Target name -> the part of ``item`` it takes, for a Name or (nested) Tuple target."""
    if isinstance(target, ast.Name):
        return {target.id: item}
    if isinstance(target, ast.Tuple) and isinstance(item, ast.Tuple) and len(target.elts) == len(item.elts):
        found: dict[str, ast.expr] = {}
        for t, i in zip(target.elts, item.elts):
            part = _bind(t, i)
            if part is None:
                return None
            found.update(part)
        return found
    return None


class _Substitute(ast.NodeTransformer):
    """Reads of the comprehension's names -> copies of what they are bound to."""

    def __init__(self, rw: Rewriter, bound: dict[str, ast.expr]) -> None:
        self.rw, self.bound = rw, bound

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.bound:
            return self.rw.placed(self.rw.copy(self.bound[node.id]), node)
        return node


class _Display(ast.NodeTransformer):
    """Reads of an ndindex loop's tuple name -> the display of its per-axis loop variables."""

    def __init__(self, rw: Rewriter, name: str, names: list[str]) -> None:
        self.rw, self.name, self.names = rw, name, names

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id == self.name:
            elts: list[ast.expr] = [ast.Name(n, ast.Load()) for n in self.names]
            return self.rw.placed(ast.Tuple(elts, ast.Load()), node)
        return node
