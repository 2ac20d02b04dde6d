"""``for`` loops over arrays that the NumPy lowering knows, as ``range`` loops (part of ``frontend.arrays``).

``frontend.desugar`` turns the plain forms over array *arguments* into ``range`` loops before
the lowering; this module does the rest, once the lowering knows every array's rank and
extents: loops over temporaries and local arrays (``grid = np.linspace(a, b, n)``;
``for i, x in enumerate(grid)``), ``enumerate(x, start)`` and nested iterables
(``enumerate(zip(x, y))``).  Python's meaning is kept exactly:

- the loop runs over the first axis, ``zip`` over the shortest, with the length fixed when the
  loop starts (so the iterated name must not be bound again in the body);
- an element of a 1-D array is read at the start of each iteration (iteration yields a copy);
- a row of a higher-rank array is a view: its name stands for ``x[i]`` at each use (``len(v)``
  and ``v.shape[d]`` are the row's extents), so it sees writes made later in the iteration,
  and the body must not bind that name again;
- an ``enumerate`` counter is ``index + start`` at each use (the loop variable itself when it
  is the outermost target).

Anything else (a tuple target unpacking a row, a target shaped otherwise than its iterable, a
non-constant ``start``) is left as written for the checker to refuse.

    for i, x in enumerate(grid, 1):   ->   for i in range(1, n + 1):
        out[i] = x * 2                          x = grid[i - 1]
                                                out[i] = x * 2
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Protocol

from .desugar import int_constant
from .source import walk


class Lowering(Protocol):
    """What these loops use of ``frontend.arrays.Lowering``."""

    def lookup(self, node: ast.Name): ...
    def fresh(self, stem: str) -> str: ...
    def value(self, node: ast.expr, store: bool = False): ...


@dataclass(frozen=True)
class Item:
    """What one iteration yields: an element or row read (``read``, with the row's extents in
    ``rest``), a counter (``counter``), or a tuple of items (``parts``)."""

    read: ast.expr | None = None
    rest: tuple[ast.expr, ...] = ()  # a row's extents
    counter: ast.expr | None = None
    parts: tuple[Item, ...] = ()


def range_loop(lowering: Lowering, stmt: ast.For) -> list[ast.stmt] | None:
    """``stmt`` (a loop over arrays) as a ``range`` loop binding its targets; None when it is
    not one of the forms above."""
    if stmt.orelse or _is_range(stmt.iter):
        return None
    outer = _enumerated(stmt.iter, stmt.target)
    if outer is not None:  # for i, v in enumerate(x, s): i is the loop variable
        counter, inner, start = outer
        length = _length(inner, lowering)
        if length is None:
            return None
        loop_var = counter
        index = ast.BinOp(ast.Name(counter, ast.Load()), ast.Sub(), ast.Constant(start)) if start else \
            ast.Name(counter, ast.Load())
        bounds = [ast.Constant(start), ast.BinOp(length, ast.Add(), ast.Constant(start)) if start else length]
        target = stmt.target.elts[1]  # type: ignore[attr-defined]
    else:
        length = _length(stmt.iter, lowering)
        if length is None:
            return None
        inner, target = stmt.iter, stmt.target
        loop_var = lowering.fresh("item")
        index, bounds = ast.Name(loop_var, ast.Load()), [ast.Constant(0), length]
    item = _item(inner, index, lowering)
    bound = _bind(target, item)
    if bound is None or _rebinds(stmt.body, set(bound[1]) | _iterated(stmt.iter)):
        return None
    prologue, substitutions = bound
    body = [_Substitute(substitutions).visit(copy.deepcopy(s)) for s in stmt.body]
    rng = ast.Call(ast.Name("range", ast.Load()), bounds if outer is not None and outer[2] else bounds[1:], [])
    loop = ast.For(ast.Name(loop_var, ast.Store()), rng, prologue + body, [], None)
    for node in walk(loop):
        if isinstance(node, (ast.expr, ast.stmt)) and not hasattr(node, "lineno"):
            ast.copy_location(node, stmt)
    return [ast.copy_location(loop, stmt)]


def _is_range(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def _call_of(node: ast.expr, name: str) -> ast.Call | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
        return node
    return None


def _start(call: ast.Call) -> int | None:
    """``enumerate(x)`` / ``enumerate(x, s)`` / ``enumerate(x, start=s)``: ``s`` (an int constant)."""
    given = list(call.args[1:]) + [k.value for k in call.keywords if k.arg == "start"]
    if len(call.args) not in (1, 2) or any(k.arg != "start" for k in call.keywords) or len(given) > 1:
        return None
    if not given:
        return 0
    return int_constant(given[0])


def _enumerated(it: ast.expr, target: ast.expr) -> tuple[str, ast.expr, int] | None:
    call = _call_of(it, "enumerate")
    if call is None or not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                            and isinstance(target.elts[0], ast.Name)):
        return None
    start = _start(call)
    return None if start is None else (target.elts[0].id, call.args[0], start)


def _length(node: ast.expr, lowering: Lowering) -> ast.expr | None:
    """The number of items ``node`` yields, or None when it is not an iterable this module knows."""
    extents = _extents(node, lowering)
    if extents is not None:
        return extents[0] if extents else None
    enum = _call_of(node, "enumerate")
    if enum is not None:
        return _length(enum.args[0], lowering) if _start(enum) is not None else None
    pair = _call_of(node, "zip")
    if pair is not None and pair.args and not pair.keywords:
        lengths = [n for n in (_length(a, lowering) for a in pair.args) if n is not None]
        if len(lengths) != len(pair.args):
            return None
        return lengths[0] if len(lengths) == 1 else ast.Call(ast.Name("min", ast.Load()), list(lengths), [])
    return None


def _extents(node: ast.expr, lowering: Lowering) -> list[ast.expr] | None:
    """The extents of an array name or of a subscript of one (``T``, ``T[0]``, ``A[1:, j]``),
    which is a view: indexing it at each use reads what iterating it would; None otherwise."""
    base = node
    while isinstance(base, ast.Subscript):
        base = base.value
    if not isinstance(base, ast.Name):
        return None
    if base is node:
        entry = lowering.lookup(node)  # type: ignore[arg-type]
        return [e.node for e in entry.extents] if entry is not None else None
    if lowering.lookup(base) is None:
        return None
    return [e.node for e in lowering.value(node).extents]


def _item(node: ast.expr, index: ast.expr, lowering: Lowering) -> Item:
    extents = _extents(node, lowering)
    if extents is not None:
        read = ast.Subscript(copy.deepcopy(node), copy.deepcopy(index), ast.Load())
        return Item(read=read, rest=tuple(extents[1:]))
    enum = _call_of(node, "enumerate")
    if enum is not None:
        start = _start(enum)
        count = ast.BinOp(copy.deepcopy(index), ast.Add(), ast.Constant(start)) if start else copy.deepcopy(index)
        return Item(parts=(Item(counter=count), _item(enum.args[0], index, lowering)))
    pair = _call_of(node, "zip")
    assert pair is not None  # _length accepted node
    return Item(parts=tuple(_item(a, index, lowering) for a in pair.args))


def _bind(target: ast.expr, item: Item) -> tuple[list[ast.stmt], dict[str, Item]] | None:
    """The statements that bind ``target`` to ``item`` at the start of the body, and the names
    that stand for their item at each use (rows and counters); None for a mismatched shape."""
    if isinstance(target, ast.Tuple):
        if len(target.elts) != len(item.parts):
            return None
        prologue: list[ast.stmt] = []
        substitutions: dict[str, Item] = {}
        for t, part in zip(target.elts, item.parts):
            bound = _bind(t, part)
            if bound is None or bound[1].keys() & substitutions.keys():
                return None
            prologue += bound[0]
            substitutions.update(bound[1])
        return prologue, substitutions
    if not isinstance(target, ast.Name) or item.parts:
        return None
    if item.read is not None and not item.rest:  # an element: copied, as iteration yields it
        return [ast.Assign([ast.Name(target.id, ast.Store())], item.read)], {}
    return [], {target.id: item}


def _iterated(node: ast.expr) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and n.id not in ("enumerate", "zip")}


def _rebinds(body: list[ast.stmt], names: set[str]) -> bool:
    """Whether the body binds any of ``names`` again (rows, counters, the iterated arrays)."""
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names
               for s in body for n in walk(s))


class _Substitute(ast.NodeTransformer):
    """Reads of rows and counters -> their expressions; ``len(v)`` and ``v.shape[d]`` of a row
    -> its extents."""

    def __init__(self, items: dict[str, Item]) -> None:
        self.items = items

    def _row(self, node: ast.expr) -> Item | None:
        item = self.items.get(node.id) if isinstance(node, ast.Name) else None
        return item if item is not None and item.read is not None else None

    def visit_Call(self, node: ast.Call) -> ast.AST:
        row = self._row(node.args[0]) if len(node.args) == 1 and not node.keywords else None
        if row is not None and isinstance(node.func, ast.Name) and node.func.id == "len":
            return ast.copy_location(copy.deepcopy(row.rest[0]), node)
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        row = self._row(node.value.value) if isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            else None
        axis = int_constant(node.slice)
        if row is not None and axis is not None and -len(row.rest) <= axis < len(row.rest):
            return ast.copy_location(copy.deepcopy(row.rest[axis]), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        item = self.items.get(node.id)
        if item is None or not isinstance(node.ctx, ast.Load):
            return node
        value = item.read if item.read is not None else item.counter
        assert value is not None  # _bind substitutes only rows and counters
        return ast.copy_location(copy.deepcopy(value), node)
