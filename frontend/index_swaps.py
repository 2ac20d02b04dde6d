"""Two rows (or columns, or elements) swapped by list indices (part of ``frontend.rewrite``).

Gaussian elimination with partial pivoting swaps rows as ``A[[k, p]] = A[[p, k]]`` (columns:
``A[:, [k, p]] = A[:, [p, k]]``): NumPy gathers the right side into a new array, then stores
its rows in order.  The same is::

    t = A[k].copy()     # (an element for a 1-d array: t = A[k])
    A[k] = A[p]
    A[p] = t

which stores the same values (``k == p`` leaves the row as it was, as NumPy does), with basic
indices the lowering takes.  Only the exact swap of two index expressions is rewritten, of an
array whose rank the arguments or its allocation tell; any other list index keeps its
refusal.
"""

from __future__ import annotations

import ast

from .source import walk


def swap_rows(rw, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` (and the blocks inside it) with each list-index swap written as three stores."""
    out: list[ast.stmt] = []
    for stmt in body:
        for field in ("body", "orelse"):
            if isinstance(stmt, (ast.For, ast.While, ast.If)):
                setattr(stmt, field, swap_rows(rw, getattr(stmt, field)))
        out.extend(_swap(rw, stmt) or [stmt])
    return out


def _rank(rw, name: str) -> int | None:
    if name in rw.ranks:
        return rw.ranks[name]
    extents = rw.local_extents.get(name)
    return None if extents is None else len(extents)


def _pair(index: ast.expr) -> tuple[int, tuple[ast.expr, ast.expr]] | None:
    """``(axis, (a, b))`` of ``[a, b]`` (axis 0), ``[a, b], :`` (axis 0) or ``:, [a, b]`` (axis 1)."""
    def full(s: ast.expr) -> bool:
        return isinstance(s, ast.Slice) and s.lower is None and s.upper is None and s.step is None

    def two(s: ast.expr) -> tuple[ast.expr, ast.expr] | None:
        if isinstance(s, ast.List) and len(s.elts) == 2 and not any(isinstance(e, ast.Starred) for e in s.elts):
            return s.elts[0], s.elts[1]
        return None

    if isinstance(index, ast.Tuple) and len(index.elts) == 2:
        first, second = index.elts
        if two(first) is not None and full(second):
            return 0, two(first)  # type: ignore[return-value]
        if full(first) and two(second) is not None:
            return 1, two(second)  # type: ignore[return-value]
        return None
    found = two(index)
    return None if found is None else (0, found)


def _scalar_index(node: ast.expr) -> bool:
    """A name, a number or arithmetic of them (no subscript or call: evaluated once either way)."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop,
                              ast.Load)) for n in walk(node))


def _swap(rw, stmt: ast.stmt) -> list[ast.stmt] | None:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if not (isinstance(target, ast.Subscript) and isinstance(value, ast.Subscript)
            and isinstance(target.value, ast.Name) and isinstance(value.value, ast.Name)
            and target.value.id == value.value.id):
        return None
    name = target.value.id
    left, right = _pair(target.slice), _pair(value.slice)
    rank = _rank(rw, name)
    if left is None or right is None or left[0] != right[0] or rank is None or rank <= left[0] or rank > 2:
        return None
    (axis, (a, b)), (_, (c, d)) = left, right
    if ast.dump(a) != ast.dump(d) or ast.dump(b) != ast.dump(c) or not (_scalar_index(a) and _scalar_index(b)):
        return None
    written = {n.id for n in walk(a) if isinstance(n, ast.Name)} | {n.id for n in walk(b)
                                                                         if isinstance(n, ast.Name)}
    if name in written:
        return None

    def at(k: ast.expr, ctx: ast.expr_context) -> ast.Subscript:
        index: ast.expr = k if axis == 0 else ast.Tuple([ast.Slice(), k], ast.Load())
        return ast.Subscript(ast.Name(name, ast.Load()), index, ctx)

    temp = rw.fresh(f"{name}_swapped")
    row = at(a, ast.Load())
    saved: ast.expr = row if rank == 1 else ast.Call(ast.Attribute(row, "copy", ast.Load()), [], [])
    new: list[ast.stmt] = [ast.Assign([ast.Name(temp, ast.Store())], saved),
           ast.Assign([at(a, ast.Store())], at(b, ast.Load())),
           ast.Assign([at(b, ast.Store())], ast.Name(temp, ast.Load()))]
    for s in new:
        for sub in walk(s):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, stmt)
    return new


__all__ = ["swap_rows"]
