"""Two local arrays swapped, ``a, b = b, a`` (part of ``frontend.rewrite``, before ``Desugar``).

Ping-pong buffers of stencil codes swap their names each step::

    a = u.copy()                      a = u.copy()
    b = np.empty_like(u)              b = np.empty_like(u)
    for _ in range(steps):            for _ in range(steps):
        ...  # b from a                   ...
        a, b = b, a          ->           a_old = a.copy()
                                          a = b.copy()
                                          b = a_old

The swap becomes copies of the values, so each name keeps its own array, which the lowering
requires (an array bound again inside a loop is written in place: ``Lowering.rebind_in_place``,
which refuses where another name views either array, or where their shapes or dtypes may
differ: there the swap is refused as before).  Taken for two distinct names of arrays the kernel
allocates (bound to ``np.zeros``, ``np.empty_like``, ``x.copy()`` and the like); scalars and arguments are left to ``Desugar``.
"""

from __future__ import annotations

import ast
from typing import Protocol


class Rewriter(Protocol):
    def fresh(self, name: str) -> str: ...
    def placed(self, new, like: ast.AST): ...


def swap_arrays(rw: Rewriter, body: list[ast.stmt], arrays: set[str] | None = None) -> list[ast.stmt]:
    """``body`` with each ``a, b = b, a`` of two local arrays (``arrays``: the names bound to
    an allocation or a copy, ``_allocated``) written as copies (the module)."""
    if arrays is None:
        arrays = _allocated(body)
    out: list[ast.stmt] = []
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, field, swap_arrays(rw, inner, arrays))
        pair = _swapped(stmt)
        if pair is None or not all(name in arrays for name in pair):
            out.append(stmt)
            continue
        a, b = pair
        old = rw.fresh(f"{a}_old")
        text = f"{old} = {a}.copy()\n{a} = {b}.copy()\n{b} = {old}\n"
        for new in ast.parse(text).body:
            for node in ast.walk(new):
                if "lineno" in node._attributes:
                    ast.copy_location(node, stmt)
            out.append(new)
    return out


def _swapped(stmt: ast.stmt) -> tuple[str, str] | None:
    """``(a, b)`` of ``a, b = b, a`` (two distinct names); None otherwise."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, ast.Tuple) and len(stmt.targets[0].elts) == 2 == len(stmt.value.elts)):
        return None
    names = [e.id if isinstance(e, ast.Name) else None for e in (*stmt.targets[0].elts, *stmt.value.elts)]
    if None in names or names[0] == names[1] or names[2:] != [names[1], names[0]]:
        return None
    return names[0], names[1]  # type: ignore[return-value]


_ALLOCATING = frozenset(("copy", "zeros", "empty", "ones", "full", "zeros_like", "empty_like", "ones_like",
                         "full_like", "array"))


def _allocated(body: list[ast.stmt]) -> set[str]:
    """The names some statement binds to a new array (``np.zeros(...)``, ``x.copy()``, ...)."""
    return {t.id for stmt in body for node in ast.walk(stmt) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr in _ALLOCATING for t in node.targets if isinstance(t, ast.Name)}
