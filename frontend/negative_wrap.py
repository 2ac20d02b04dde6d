"""Negative indices Python wraps around, written as the element they read (part of ``frontend.rewrite``).

Periodic boundaries are written as Python (and numba) wrap them: ``u[i - 1]`` at ``i = 0`` reads
``u[-1]``, the last element::

    for i in range(n):                      for i in range(n):
        d[i] = u[i] - u[i - 1]      ->          d[i] = u[i] - (u[i - 1] if i >= 1 else u[i - 1 + u.shape[0]])

Both accesses stay affine, each on its own part of the loop (the choice bounds their domains),
so the bounds checks and the dependences see the elements Python reads.  Taken only where the
wrap surely happens and nothing else could keep the read from it, so that no kernel accepted
before changes (its bounds check refused every call whose loop ran): an element read (a load, one
index per axis of an array whose rank is known: an argument or a local bound to an allocation)
whose index on some axis is ``i - c``, ``i`` the variable of an enclosing ``for i in range(s,
...)`` (``s`` a literal below ``c``, the step a positive literal or none) that the body never
assigns and that no test in the loop's body reads (``if i > 0:``, ``... if i else ...``, a
``while``), and the read inside no ``if``, ``while``, choice or short-circuit ``and``/``or`` within
that loop, nor in an inner loop whose range reads ``i`` (``for j in range(i)``).  Stores
(``u[i - 1] = v``) and reads beneath a guard stay as written: the bounds check still refuses
the ones that go below 0.
"""

from __future__ import annotations

import ast
import copy

from .array_swaps import array_ranks
from .source import walk

_GUARDS = (ast.If, ast.While, ast.IfExp, ast.BoolOp, ast.Try, ast.comprehension, ast.Lambda)


def wrap_negative_reads(body: list[ast.stmt], given: dict[str, int], ints: set[str] | frozenset[str]) -> list[ast.stmt]:
    """``body`` with each element read that Python wraps below 0 (see the module) written as the
    choice of its two elements; ``given``: the arguments' ranks, ``ints``: integer arguments."""
    if not any(isinstance(n, ast.Subscript) and isinstance(n.slice, (ast.BinOp, ast.Tuple))
               for stmt in body for n in walk(stmt)):
        return body  # (no i - c index anywhere: most kernels)
    ranks = array_ranks(body, given, ints)
    if not ranks:
        return body
    for stmt in body:
        for node in walk(stmt):
            if isinstance(node, ast.For):
                _wrap_loop(node, ranks)
    return body


def _wrap_loop(loop: ast.For, ranks: dict[str, int]) -> None:
    var = _counted_from(loop)
    if var is None:
        return
    name, start = var
    if _assigned_or_tested(loop, name):
        return
    for stmt in loop.body:
        _wrap_in(stmt, name, start, ranks)


def _counted_from(loop: ast.For) -> tuple[str, int] | None:
    """(``i``, ``s``) of ``for i in range(s, ...)`` counting up from a literal ``s >= 0``; else None."""
    it = loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3):
        return None
    start = 0
    if len(it.args) >= 2:
        first = it.args[0]
        if not (isinstance(first, ast.Constant) and type(first.value) is int and first.value >= 0):
            return None
        start = first.value
    if len(it.args) == 3:
        step = it.args[2]
        if not (isinstance(step, ast.Constant) and type(step.value) is int and step.value > 0):
            return None
    return loop.target.id, start


def _assigned_or_tested(loop: ast.For, name: str) -> bool:
    """Whether the loop's body binds ``name`` or reads it in a test (an ``if``'s, a ``while``'s,
    a choice's, an ``assert``'s, a short-circuit operand, or an inner loop's range)."""
    for stmt in loop.body:
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
                return True
            tests: list[ast.AST] = []
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                tests = [node.test]
            elif isinstance(node, ast.BoolOp):
                tests = list(node.values)
            elif isinstance(node, ast.For):
                tests = [node.iter]
            elif isinstance(node, ast.comprehension):
                tests = [node.iter, *node.ifs]
            if any(isinstance(n, ast.Name) and n.id == name for t in tests for n in walk(t)):
                return True
    return False


def _wrap_in(node: ast.AST, name: str, start: int, ranks: dict[str, int]) -> None:
    """Rewrite the wrapping reads under ``node``, not descending into guards (``_GUARDS``)."""
    for field, value in ast.iter_fields(node):
        items = value if isinstance(value, list) else [value]
        for k, child in enumerate(items):
            if not isinstance(child, ast.AST) or isinstance(child, _GUARDS):
                continue
            new = _wrapped(child, name, start, ranks)
            if new is not None:
                if isinstance(value, list):
                    value[k] = new
                else:
                    setattr(node, field, new)
                continue
            _wrap_in(child, name, start, ranks)


def _wrapped(node: ast.AST, name: str, start: int, ranks: dict[str, int]) -> ast.expr | None:
    """``a[.., i - c, ..] if i >= c else a[.., i - c + a.shape[k], ..]`` for an element read
    ``node`` whose index ``k`` is ``i - c`` with ``c > start``; None for anything else."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name)
            and node.value.id in ranks):
        return None
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if len(items) != ranks[node.value.id] or any(isinstance(i, (ast.Slice, ast.Starred)) for i in items):
        return None
    axis = next((k for k, item in enumerate(items) if _offset(item, name) > start), None)
    if axis is None:
        return None
    c = _offset(items[axis], name)
    shape = ast.Subscript(ast.Attribute(ast.Name(node.value.id, ast.Load()), "shape", ast.Load()),
                          ast.Constant(axis), ast.Load())
    moved = list(map(copy.deepcopy, items))
    moved[axis] = ast.BinOp(copy.deepcopy(items[axis]), ast.Add(), shape)
    other = ast.Subscript(ast.Name(node.value.id, ast.Load()),
                          ast.Tuple(moved, ast.Load()) if len(moved) > 1 else moved[0], ast.Load())
    test = ast.Compare(ast.Name(name, ast.Load()), [ast.GtE()], [ast.Constant(c)])
    choice = ast.IfExp(test, node, other)
    for n in walk(choice):
        if n is not node and not any(n is m for m in walk(node)):
            ast.copy_location(n, node)
    return ast.fix_missing_locations(choice)


def _offset(index: ast.expr, name: str) -> int:
    """``c`` of an index ``i - c`` (``c`` a positive literal); 0 for any other index."""
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Sub) and isinstance(index.left, ast.Name) \
            and index.left.id == name and isinstance(index.right, ast.Constant) and type(index.right.value) is int:
        return max(index.right.value, 0)
    return 0
