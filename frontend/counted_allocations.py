"""Arrays allocated with a count the kernel computed (part of ``frontend.rewrite``).

numba users count, then allocate, then fill::

    k = 0
    for i in range(n):
        if x[i] > t:
            k += 1
    out = np.empty(k, dtype=x.dtype)     # np.zeros / ones / full; (k, 3) too
    ...                                  # out[j] = x[i]; j += 1
    return out

``k`` is known only as the kernel runs, while every extent polyfuse allocates is affine in the
sizes.  But ``k`` starts at a constant ``c >= 0`` and every other binding of it adds a constant
``d >= 0`` (``k += 1``), inside ``for`` loops over ``range`` (step 1 or -1) and counted ``while``
loops whose trip counts the sizes bound: so ``k <= c + sum over the increments of d times the
product of their loops' trip counts``
(growing_lists' ``trips``, the same bound a list built by ``append`` gets).  ``out`` is allocated
with that bound as its first extent, and every later use reads its first ``k`` rows, as
``selection_loops._sized_allocations`` reads an array of ``np.unique``'s length:

- ``len(out)``, ``out.shape[0]`` (and ``out.size`` of a 1-d ``out``) are ``k``; ``out.shape[1]``,
  ``out.dtype``, ``out.ndim`` the buffer's own;
- ``out[e]`` and ``out[e, ...]`` (load or store) check ``e`` against ``k``: a negative ``e``
  counts from ``k``, one outside raises ``IndexError`` as NumPy's (the subscript checked against
  the buffer's extent past the count), except inside ``for i in range(k)`` (``range(len(out))``),
  where ``out[i]`` is in range;
- ``for v in out`` of a 1-d ``out`` runs over ``range(k)``;
- ``return out`` (or an item of the returned tuple) returns ``out[:k]`` (growing_lists' returned
  prefixes), and ``return out[:e]`` Python's ``e`` for an array of length ``k`` (``min(e, k)``,
  ``max(k + e, 0)`` of a negative ``e``), and ``out.sum()`` (``prod``, ``max``, ``min``, ``mean``, ``argmax``, ``argmin``,
  ``np.sum(out)`` & co.) of a 1-d ``out`` reduce those first ``k`` elements.

The rows past ``k`` are never read or written (every subscript is checked against ``k``), so the
values, dtype and shape are Python's whatever the buffer holds there, and the dependences among
the statements are those of the program as written (the checked subscripts are computed at run
time: a dependence on the whole array).  Any other use of ``out`` (a slice, a view, a call, a
reduction of a 2-d ``out``, binding it again) is refused at the use; a count that is bound
otherwise, or whose loops' trip counts the sizes do not bound (a ``while`` loop that is not
counted, a bound reading array elements or a name the loops assign), is refused at the
allocation.  A count whose allocation is anything else is left to the lowering (which refuses
extents that are not affine).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Protocol

from polyfuse.errors import UnsupportedError

from . import selection_loops
from .checker import module_of
from .early_return import _at, _has_return
from .growing_lists import _List, _ListRewrite
from .selection_loops import _checked_index, _counter_over_count, _Facts, _prefix_reduced, _unique_reduced
from .source import walk

_ALLOCATORS = ("zeros", "empty", "ones", "full")
_USES = ("len(out), out.shape[0], out[e] and out[e, ...] (the count checked), for v in out, out.sum() & co. "
         "of a 1-d out, and return out or out[:e] (or as an item of the returned tuple)")


class Rewriter(selection_loops.Rewriter, Protocol):
    """What this pass uses of ``frontend.rewrite.Rewriter``."""

    args: set[str]

    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError: ...


@dataclass(frozen=True)
class _Counted:
    """``out = np.empty(k ...)`` at ``body[index]``: the array, its rank, the count."""

    index: int
    name: str
    call: ast.Call
    rank: int
    count: str


def counted_allocations(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each top-level allocation of a counted local's length allocated with the
    count's bound and its later uses reading the first ``count`` rows (the module docstring)."""
    out: list[ast.stmt] = []
    for index, stmt in enumerate(body):
        found = _allocation(rw, stmt, index)
        facts = _Facts(body, rw.globals) if found is not None else None  # (walks the body: only here)
        start = _count_start(body[:index], found.count, facts) if found is not None and facts is not None else None
        if found is None or facts is None or start is None:
            out.append(stmt)  # no counted length: the lowering's rules (an extent that is not affine refused)
            continue
        # the bound bound to a name at the top level: a size the call computes (frontend/call_sizes.py)
        cap = rw.fresh(f"{found.name}__cap")
        out.append(ast.copy_location(ast.Assign([rw.placed(ast.Name(cap, ast.Store()), stmt)],
                                                rw.placed(_bound(rw, body, start, found), stmt)), stmt))
        extent = found.call.args[0]
        if isinstance(extent, ast.Tuple):
            extent.elts[0] = rw.placed(ast.Name(cap, ast.Load()), extent.elts[0])
        else:
            found.call.args[0] = rw.placed(ast.Name(cap, ast.Load()), extent)
        _check_uses(rw, body[index + 1:], found, facts)
        for later in body[index + 1:]:
            _Rewrite(rw, found).visit(later)
        out.append(stmt)
    return out


def _allocation(rw: Rewriter, stmt: ast.stmt, index: int) -> _Counted | None:
    """``name = np.empty(k, ...)`` or ``np.empty((k, c, ...), ...)`` (``zeros``, ``ones``,
    ``full``), ``k`` a name."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr in _ALLOCATORS and module_of(stmt.value.func.value, rw.globals) == "np"
            and stmt.value.args):
        return None
    extent = stmt.value.args[0]
    first, rank = (extent.elts[0], len(extent.elts)) if isinstance(extent, ast.Tuple) and extent.elts else (extent, 1)
    if not isinstance(first, ast.Name):
        return None
    return _Counted(index, stmt.targets[0].id, stmt.value, rank, first.id)


def _count_start(before: list[ast.stmt], count: str, facts: _Facts) -> int | None:
    """The position of ``count = c`` (``c`` an int constant, not negative) among the top-level
    statements ``before``, where every other binding of ``count`` in the body is ``count += d``
    (or ``count = count + d``, ``d`` an int constant, not negative) in a later statement of
    ``before``; None otherwise."""
    starts = [k for k, s in enumerate(before) if isinstance(s, ast.Assign) and len(s.targets) == 1
              and isinstance(s.targets[0], ast.Name) and s.targets[0].id == count
              and isinstance(s.value, ast.Constant) and type(s.value.value) is int and s.value.value >= 0]
    if len(starts) != 1:
        return None
    increments = [n for s in before[starts[0] + 1:] for n in walk(s) if _increment(n, count) is not None]
    if not increments or facts.counts.get(count, 0) != 1 + len(increments):
        return None
    return starts[0]


def _increment(node: ast.AST, count: str) -> int | None:
    """``c`` of ``count += c`` or ``count = count + c`` (``c`` an int constant, not negative);
    None for anything else."""
    step: ast.expr | None = None
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == count \
            and isinstance(node.op, ast.Add):
        step = node.value
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
            and node.targets[0].id == count and isinstance(node.value, ast.BinOp) \
            and isinstance(node.value.op, ast.Add) and isinstance(node.value.left, ast.Name) \
            and node.value.left.id == count:
        step = node.value.right
    if isinstance(step, ast.Constant) and type(step.value) is int and step.value >= 0:
        return step.value
    return None


def _bound(rw: Rewriter, body: list[ast.stmt], start: int, found: _Counted) -> ast.expr:
    """``c + sum of the increments' trip-count products``: the count's largest value from the
    sizes, or the refusal at the allocation where the loops have no such bound."""
    first = body[start]
    assert isinstance(first, ast.Assign)
    bound: ast.expr = copy.deepcopy(first.value)
    trips = _ListRewrite(rw, {})  # type: ignore[arg-type]
    target = _List(found.count, first)
    sites: list[tuple[ast.stmt, tuple[ast.stmt, ...], int]] = []
    _sites(body[:found.index], found.count, (), trips, sites, None)
    if len(sites) != sum(_increment(n, found.count) is not None for s in body for n in walk(s)):
        raise rw.error(found.call, f"np.{found.call.func.attr} of {found.count!r}, counted where this pass does "  # type: ignore[attr-defined]
                       "not follow the loops (a with or try statement)", "allocation of a counted length")
    facts = _Facts(body, rw.globals)
    for stmt, loops, top in sites:
        # the bound is evaluated at the allocation: its names keep the values the loops ran with
        stored = {n.id for s in body[top:found.index] for n in walk(s)
                  if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        site: ast.expr = ast.Constant(_increment(stmt, found.count))
        for k, loop in enumerate(loops):
            n = _loop_trips(rw, trips, target, loop, loops[:k])
            names = set() if n is None else {m.id for m in walk(n) if isinstance(m, ast.Name)} - {"max"}
            why = ("no trip count from the sizes" if n is None else
                   f"a bound reading {sorted(names & stored)}, bound again before the allocation" if names & stored else
                   f"a bound reading {sorted(_from_data(rw, names, facts))}, computed from the data"
                   if _from_data(rw, names, facts) else "")
            if why:
                head = loop.iter if isinstance(loop, ast.For) else loop.test  # type: ignore[attr-defined]
                raise rw.error(found.call, f"np.{found.call.func.attr} of {found.count!r}, counted by "  # type: ignore[attr-defined]
                               f"{ast.unparse(stmt).strip()!r} inside {ast.unparse(head)!r}: {why}, so the sizes do "
                               "not bound the count. A counted length is supported where the count starts at a "
                               "constant and adds constants inside for loops over range() (step 1 or -1) or over an "
                               "array argument, and counted while loops (i = a; while i < b, every path adding a "
                               "constant to i), whose bounds read sizes and integer arguments only",
                               "allocation of a counted length")
            assert n is not None
            site = ast.BinOp(site, ast.Mult(), n)
        bound = ast.BinOp(bound, ast.Add(), site)
    return bound


def _loop_trips(rw: Rewriter, trips: _ListRewrite, target: _List, loop: ast.stmt,
                outer: tuple[ast.stmt, ...]) -> ast.expr | None:
    """How often ``loop`` runs its body at most, from the sizes: ``x.shape[0]`` for ``for v in x``
    (``enumerate(x)``) of an array argument ``x``, else growing_lists' ``trips``; None where there
    is no such bound."""
    it = loop.iter if isinstance(loop, ast.For) else None
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
            and len(it.args) == 1 and not it.keywords:
        it = it.args[0]
    if isinstance(it, ast.Name) and rw.ranks.get(it.id, 0) >= 1:
        return ast.parse(f"{it.id}.shape[0]", mode="eval").body
    try:
        return trips.trips(target, loop, outer)
    except UnsupportedError:
        return None


_SIZE_CALLS = frozenset(("len", "int", "max", "min", "abs"))


def _from_data(rw: Rewriter, names: set[str], facts: _Facts, depth: int = 0) -> set[str]:
    """The names among ``names`` whose values are no sizes: not an argument, nor bound once to
    sizes, integer arguments, ``len`` / ``int`` / ``max`` / ``min`` / ``abs`` and arithmetic of
    those (``n = x.shape[0] - 1``; ``m = int(x[0])`` is data)."""
    data = set()
    for name in names:
        value = facts.bindings.get(name)
        if name in rw.args and facts.counts.get(name, 0) == 0:
            continue
        if value is None or depth > 8:
            data.add(name)
            continue
        inner = {n.id for n in walk(value) if isinstance(n, ast.Name)} - _SIZE_CALLS
        shapes = all(isinstance(n.value, ast.Attribute) and n.value.attr == "shape"
                     for n in walk(value) if isinstance(n, ast.Subscript))
        calls = all(isinstance(n.func, ast.Name) and n.func.id in _SIZE_CALLS
                    for n in walk(value) if isinstance(n, ast.Call))
        if not (shapes and calls) or _from_data(rw, inner, facts, depth + 1):
            data.add(name)
    return data


def _sites(stmts: list[ast.stmt], count: str, loops: tuple[ast.stmt, ...], trips: _ListRewrite,
           sites: list[tuple[ast.stmt, tuple[ast.stmt, ...], int]], top: int | None) -> None:
    """Each increment of ``count`` in ``stmts`` with its enclosing loops (outermost first) and the
    position of its top-level statement (``top``; None: ``stmts`` is the body); the counted while
    loops' counters noted on ``trips``."""
    for k, stmt in enumerate(stmts):
        here = k if top is None else top
        if _increment(stmt, count) is not None:
            sites.append((stmt, loops, here))
            continue
        if isinstance(stmt, ast.While):
            trips.note_counter(stmt, stmts[:k])
        inner = loops + (stmt,) if isinstance(stmt, (ast.For, ast.While)) else loops
        for field in ("body", "orelse"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                _sites(block, count, inner, trips, sites, here)
        for handler in getattr(stmt, "handlers", []):
            _sites(handler.body, count, inner, trips, sites, here)


def _check_uses(rw: Rewriter, later: list[ast.stmt], found: _Counted, facts: _Facts) -> None:
    """Refuses, at the use, anything ``_Rewrite`` does not read as the first ``count`` rows."""
    if facts.counts.get(found.name, 0) != 1:
        raise rw.error(found.call, f"{found.name!r}, allocated with the counted length {found.count!r}, is bound "
                       f"again: supported uses are {_USES}", "allocation of a counted length")
    uses = _Uses(found)
    for stmt in later:
        uses.visit(stmt)
    if uses.other is not None:
        shown = ast.unparse(uses.other).splitlines()[0]
        raise rw.error(uses.other, f"{shown!r}: {found.name!r} is an array allocated with the "
                       f"counted length {found.count!r}: its buffer is as long as the "
                       f"count can be, so only uses that read its first {found.count} rows are supported: "
                       f"{_USES}", "array of a counted length")


def _length(node: ast.AST, found: _Counted) -> bool:
    """``len(out)``, ``out.shape[0]``, ``out.size`` of a 1-d ``out``."""
    def named(n: ast.AST) -> bool:
        return isinstance(n, ast.Name) and n.id == found.name and isinstance(n.ctx, ast.Load)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords:
        return named(node.args[0])
    if isinstance(node, ast.Attribute) and node.attr == "size":
        return found.rank == 1 and named(node.value)
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
        and named(node.value.value) and isinstance(node.slice, ast.Constant) and node.slice.value in (0, -found.rank)


def _other_extent(node: ast.AST, found: _Counted) -> bool:
    """``out.shape[c]`` of an axis past the first (the buffer's own)."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
        and isinstance(node.value.value, ast.Name) and node.value.value.id == found.name \
        and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int \
        and 0 < node.slice.value % found.rank < found.rank and -found.rank <= node.slice.value < found.rank


def _first_index(node: ast.AST, found: _Counted) -> ast.expr | None:
    """``e`` of ``out[e]`` or ``out[e, ...]`` (``e`` no slice)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == found.name):
        return None
    index = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
    if isinstance(index, (ast.Slice, ast.Starred, ast.Tuple)) \
            or (isinstance(index, ast.Constant) and (index.value is None or index.value is Ellipsis)):
        return None
    if isinstance(node.slice, ast.Tuple) and len(node.slice.elts) > found.rank:
        return None
    return index


def _returned_head(item: ast.expr, found: _Counted) -> ast.expr | None:
    """``e`` of a returned ``out[:e]`` (``out[0:e]``; no step)."""
    if not (isinstance(item, ast.Subscript) and isinstance(item.value, ast.Name) and item.value.id == found.name
            and isinstance(item.slice, ast.Slice)):
        return None
    s = item.slice
    if s.upper is None or s.step is not None or not (s.lower is None or (isinstance(s.lower, ast.Constant)
                                                                         and s.lower.value == 0)):
        return None
    return s.upper


class _Uses(ast.NodeVisitor):
    """Notes the first use of ``out`` that ``_Rewrite`` does not take (``other``)."""

    def __init__(self, found: _Counted) -> None:
        self.found = found
        self.other: ast.AST | None = None
        self.stack: list[ast.AST] = []  # the nodes being visited, outermost first

    def visit(self, node: ast.AST) -> None:
        self.stack.append(node)
        super().visit(node)
        self.stack.pop()

    def note(self, node: ast.AST) -> None:
        """``node`` (``out`` itself), shown by the expression or statement around it."""
        parents = [n for n in self.stack if n is not node]
        self.other = parents[-1] if parents else node

    def generic_visit(self, node: ast.AST) -> None:
        f = self.found
        if self.other is not None or _length(node, f) or _other_extent(node, f):
            return
        if isinstance(node, ast.Attribute) and node.attr in ("dtype", "ndim") and isinstance(node.value, ast.Name) \
                and node.value.id == f.name:
            return  # the buffer's own
        if isinstance(node, ast.Return) and node.value is not None:
            items = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for item in items:
                head = _returned_head(item, f)
                if head is not None:
                    self.visit(head)
                elif not (isinstance(item, ast.Name) and item.id == f.name):
                    self.visit(item)
            return
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id == f.name:
            if f.rank != 1 or not isinstance(node.target, ast.Name) or node.orelse:
                self.other = node.iter
                return
            for s in node.body:
                self.visit(s)
            return
        if _first_index(node, f) is not None:
            assert isinstance(node, ast.Subscript)
            self.visit(node.slice)
            return
        if f.rank == 1 and _unique_reduced(node, f.name):
            return
        if isinstance(node, ast.Name) and node.id == f.name:
            self.note(node)
            return
        super().generic_visit(node)


class _Rewrite(ast.NodeTransformer):
    """The uses ``_Uses`` took, rewritten to read the first ``count`` rows."""

    def __init__(self, rw: Rewriter, found: _Counted) -> None:
        self.rw, self.found = rw, found
        self.counters: set[str] = set()

    def generic_visit(self, node: ast.AST) -> ast.AST:
        f, rw = self.found, self.rw
        if _length(node, f):
            return rw.placed(ast.Name(f.count, ast.Load()), node)
        if isinstance(node, ast.Return) and node.value is not None:
            def prefix(item: ast.expr) -> ast.expr:  # growing_lists' returned prefix out[:count]
                head = _returned_head(item, f)
                if head is not None:  # out[:e]: Python's stop e of an array of length count
                    e = f"({ast.unparse(self.visit(head))})"
                    stop = f"(min({e}, {f.count}) if {e} >= 0 else max({f.count} + {e}, 0))"
                    return rw.placed(ast.parse(f"{f.name}[:{stop}]", mode="eval").body, item)
                if isinstance(item, ast.Name) and item.id == f.name:
                    return rw.placed(ast.parse(f"{f.name}[:{f.count}]", mode="eval").body, item)
                return self.visit(item)
            if isinstance(node.value, ast.Tuple):
                node.value.elts = [prefix(e) for e in node.value.elts]
            else:
                node.value = prefix(node.value)
            return node
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id == f.name:
            k = rw.fresh("_pf_k")
            element = ast.parse(f"{f.name}[{k}]", mode="eval").body
            node.body = [ast.copy_location(ast.Assign([node.target], rw.placed(element, node.iter)), node),
                         *node.body]
            node.target = rw.placed(ast.Name(k, ast.Store()), node.target)
            node.iter = rw.placed(ast.parse(f"range({f.count})", mode="eval").body, node.iter)
        if isinstance(node, ast.For):
            node.iter = self.visit(node.iter)
            counter = _counter_over_count(node, f.count)
            if counter is not None:
                self.counters.add(counter)
            node.body = [self.visit(s) for s in node.body]
            node.orelse = [self.visit(s) for s in node.orelse]
            self.counters.discard(counter or "")
            return node
        index = _first_index(node, f)
        if index is not None:
            assert isinstance(node, ast.Subscript)
            node.slice = self.visit(node.slice)
            index = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
            if not (isinstance(index, ast.Name) and index.id in self.counters):
                checked = _checked_index(rw, index, f.name, f.count)
                if isinstance(node.slice, ast.Tuple):
                    node.slice.elts[0] = checked
                else:
                    node.slice = checked
            return node
        if f.rank == 1 and _unique_reduced(node, f.name):
            return _prefix_reduced(rw, node, f.name, f.count)
        return super().generic_visit(node)


def empty_early_returns(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """The kernel's ``body`` with its early returns of empty arrays made returns of empty
    prefixes of the arrays its final return gives back (before ``early_return.single_exit``)::

        if n == 0:                                 _pf_empty = False
            return np.zeros(0, np.int64)           if n == 0:
        k = 0                                          _pf_empty = True
        for i in range(n): ... k += 1        ->    k = 0
        out = np.empty(k, np.int64)                if not _pf_empty:
        ... fill ...                                   for i in range(n): ... k += 1
        return out                                 out = np.empty(k, np.int64)
                                                   if not _pf_empty: ... fill ...; stop = len(out)
                                                   return out[:stop]                (stop = 0 before)

    The early path returned a new array of length 0, the final one ``out``, allocated with a
    counted length (this module's ``counted_allocations``, which later allocates it with the
    count's bound from the sizes and reads its first ``k`` rows).  Legal where every return but
    the final one gives such empty arrays (a tuple display, one per item of the final return's
    tuple of names), each with the same allocator arguments as its item's allocation but the
    first extent (the same dtype expression, reading no local; the same constant later extents):
    then ``out[:0]`` is that array (dtype, shape, no values), and nothing else the kernel did on
    the early path is observable.  Each early return sets a flag (and leaves its loops) and every
    later statement runs under ``if not flag:``, as Python never reached it, but for the
    allocations and the bindings of constants and sizes (``k = 0``: the count's start; ``m = n -
    1``), which run on both paths: they read no data and raise nothing, and the allocation's
    extent is the count's bound or its constant start.  Anything else (another early value, a
    different dtype or later extent, a return in a with or try statement, a counting loop's bound
    that the guarded statements bind) is left as written: refused as before."""
    plan = _empty_returns_plan(rw, body)
    if plan is None:
        return body
    outs, first = plan
    flag = rw.fresh("_pf_empty")
    last = body[-1]
    assert isinstance(last, ast.Return)
    allocated = {id(s) for s in body if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
                 and s.targets[0].id in outs}

    def guard(stmts: list[ast.stmt]) -> ast.stmt:
        test = ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load()))
        return _at(ast.If(test, stmts, []), stmts[0])

    new = [*body[:first], _at(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(False)), body[first])]
    pending: list[ast.stmt] = []
    for k, stmt in enumerate(body[first:-1]):
        if id(stmt) in allocated or _kept_binding(stmt):
            if pending:
                new.append(guard(pending))
                pending = []
            new.append(stmt)
            continue
        flagged = _flagged([stmt], flag, False)
        if k == 0:
            new += flagged
        else:
            pending += flagged
    stops = [rw.fresh(f"{name}__stop") for name in outs]
    new += [_at(ast.Assign([ast.Name(s, ast.Store())], ast.Constant(0)), last) for s in stops]
    pending += [_at(ast.Assign([ast.Name(s, ast.Store())], ast.Call(ast.Name("len", ast.Load()),
                                                                      [ast.Name(name, ast.Load())], [])), last)
                for s, name in zip(stops, outs)]
    new.append(guard(pending))
    items = [_at(ast.Subscript(ast.Name(name, ast.Load()), ast.Slice(None, ast.Name(s, ast.Load()), None),
                               ast.Load()), last.value) for s, name in zip(stops, outs)]  # type: ignore[arg-type]
    value = items[0] if isinstance(last.value, ast.Name) else _at(ast.Tuple(items, ast.Load()), last.value)  # type: ignore[arg-type]
    new.append(_at(ast.Return(value), last))
    return new


def _empty_returns_plan(rw: Rewriter, body: list[ast.stmt]) -> tuple[list[str], int] | None:
    """(the names the final return gives back, the position of the first top-level statement
    holding an early return) where ``empty_early_returns`` applies; None elsewhere."""
    last = body[-1] if body else None
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    tuple_form = isinstance(last.value, ast.Tuple)
    items = last.value.elts if isinstance(last.value, ast.Tuple) else [last.value]
    if not items or not all(isinstance(e, ast.Name) for e in items):
        return None
    outs = [e.id for e in items if isinstance(e, ast.Name)]
    if len(set(outs)) != len(outs) or set(outs) & rw.args:
        return None
    holding = [k for k, s in enumerate(body[:-1]) if _has_return(s)]
    if not holding:
        return None
    first = holding[0]
    facts = _Facts(body, rw.globals)
    calls: dict[str, ast.Call] = {}
    counts: set[str] = set()
    for name in outs:
        if facts.counts.get(name, 0) != 1:
            return None
        at = next((k for k, s in enumerate(body) if isinstance(s, ast.Assign) and len(s.targets) == 1
                   and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name), None)
        found = _allocation(rw, body[at], at) if at is not None and at > holding[-1] else None
        if found is None or getattr(found.call.func, "attr", "") == "full" \
                or _count_start(body[:at], found.count, facts) is None or not _plain_arguments(rw, found.call, body):
            return None
        calls[name] = found.call
        counts.add(found.count)
    if not all(_flaggable(s) for s in body[first:-1]):
        return None
    for stmt in body[first:-1]:
        for node in walk(stmt):
            if isinstance(node, ast.Return):
                value = node.value
                empties = value.elts if tuple_form and isinstance(value, ast.Tuple) else [value]
                if (tuple_form != isinstance(value, ast.Tuple) or len(empties) != len(outs)
                        or not all(_empty_like(rw, e, calls[n]) for e, n in zip(empties, outs))):
                    return None
    # the guarded statements before the last allocation bind no name that a loop holding an
    # increment of a count reads in its head (the count's bound, evaluated at the allocation, on
    # both paths, reads those heads)
    cut = max(k for k, s in enumerate(body) if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
              and s.targets[0].id in outs)
    guarded = [s for s in body[first:cut] if not _kept_binding(s)]
    counting = [loop for s in guarded for loop in walk(s) if isinstance(loop, (ast.For, ast.While))
                and any(_increment(n, c) is not None for n in walk(loop) for c in counts)]
    targets = {n.id for loop in counting if isinstance(loop, ast.For)  # (for j in range(i) inside for i)
               for n in walk(loop.target) if isinstance(n, ast.Name)}
    stored = {n.id for s in guarded for n in walk(s) if isinstance(n, ast.Name)
              and not isinstance(n.ctx, ast.Load)} - targets
    heads = {n.id for loop in counting for n in walk(loop.iter if isinstance(loop, ast.For) else loop.test)
             if isinstance(n, ast.Name)}
    if heads & stored:
        return None
    return outs, first


def _plain_arguments(rw: Rewriter, call: ast.Call, body: list[ast.stmt]) -> bool:
    """Whether ``call``'s arguments past the extent are ``dtype`` (positional or keyword) reading
    numpy, builtin types, constants and arguments the body never binds: the same value wherever
    the call runs."""
    if len(call.args) > 2 or any(k.arg != "dtype" for k in call.keywords):
        return False
    bound = {n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for part in [*call.args[1:], *(k.value for k in call.keywords)]:
        for n in walk(part):
            if isinstance(n, (ast.Call, ast.Subscript)):
                return False
            if isinstance(n, ast.Name) and not (module_of(n, rw.globals) == "np" or n.id in
                                                ("float", "int", "bool", "complex")
                                                or (n.id in rw.args and n.id not in bound)):
                return False
    return True


def _empty_like(rw: Rewriter, value: ast.expr | None, call: ast.Call) -> bool:
    """Whether ``value`` is ``np.zeros/empty/ones(0, ...)`` with ``call``'s arguments but a first
    extent of 0 (``(0, c)`` beside ``(k, c)``, c a constant): ``out[:0]`` of ``call``'s array."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("zeros", "empty", "ones") and module_of(value.func.value, rw.globals) == "np"
            and value.args):
        return False
    extent, other = value.args[0], call.args[0]
    firsts = (extent.elts[:1], extent.elts[1:]) if isinstance(extent, ast.Tuple) else ([extent], [])
    rest = other.elts[1:] if isinstance(other, ast.Tuple) else []
    if not (len(firsts[0]) == 1 and isinstance(firsts[0][0], ast.Constant) and firsts[0][0].value == 0
            and type(firsts[0][0].value) is int and len(firsts[1]) == len(rest)
            and all(isinstance(a, ast.Constant) and ast.dump(a) == ast.dump(b) for a, b in zip(firsts[1], rest))):
        return False

    def dtype(c: ast.Call) -> str | None:
        given = [k.value for k in c.keywords if k.arg == "dtype"] + list(c.args[1:2])
        return ast.dump(given[0]) if given else None
    return len(value.args) <= 2 and all(k.arg == "dtype" for k in value.keywords) and dtype(value) == dtype(call)


def _kept_binding(stmt: ast.stmt) -> bool:
    """``name = e`` of a number constant (a count's start) or of sizes (``m = x.shape[0] - 1``:
    constants, names, ``a.shape[c]``, ``len(a)``, ``+``, ``-``, ``*``, ``min``, ``max``, ``abs``):
    nothing observable but the name, and nothing that raises (no division), so it runs on the
    early path too, where the count's bound may read it."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    for n in walk(stmt.value):
        if isinstance(n, ast.Constant):
            if type(n.value) not in (int, float, bool):
                return False
        elif isinstance(n, ast.BinOp):
            if not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
                return False
        elif isinstance(n, ast.Subscript):
            if not (isinstance(n.value, ast.Attribute) and n.value.attr == "shape"
                    and isinstance(n.value.value, ast.Name) and isinstance(n.slice, ast.Constant)):
                return False
        elif isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in ("len", "min", "max", "abs") and not n.keywords
                    and all(isinstance(a, (ast.Name, ast.Constant, ast.BinOp, ast.Subscript, ast.Call, ast.UnaryOp))
                            for a in n.args)):
                return False
        elif not isinstance(n, (ast.Name, ast.Attribute, ast.UnaryOp, ast.USub, ast.UAdd, ast.operator,
                                ast.expr_context)):
            return False
        if isinstance(n, ast.Attribute) and n.attr != "shape":
            return False
    return True


def _flaggable(stmt: ast.stmt) -> bool:
    """Whether every return in ``stmt`` stands in blocks of ``if``, ``for`` and ``while``
    statements alone (``_flagged``'s)."""
    if isinstance(stmt, ast.Return) or not _has_return(stmt):
        return True
    if not isinstance(stmt, (ast.If, ast.For, ast.While)):
        return False
    return all(_flaggable(s) for s in stmt.body + stmt.orelse)


def _flagged(stmts: list[ast.stmt], flag: str, in_loop: bool) -> list[ast.stmt]:
    """``stmts`` with each return made ``flag = True`` (and a ``break`` inside a loop, out of
    the enclosing loops too) and the rest of a block after a statement that may return run under
    ``if not flag:``."""
    out: list[ast.stmt] = []
    for k, stmt in enumerate(stmts):
        if not _has_return(stmt):
            out.append(stmt)
            continue
        if isinstance(stmt, ast.Return):
            out.append(_at(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(True)), stmt))
            if in_loop:
                out.append(_at(ast.Break(), stmt))
            return out  # nothing after a return runs
        if isinstance(stmt, (ast.For, ast.While)):
            stmt.body = _flagged(stmt.body, flag, True) or [_at(ast.Pass(), stmt)]
            stmt.orelse = _flagged(stmt.orelse, flag, in_loop)
            out.append(stmt)
            if in_loop:  # a return from the inner loop leaves this one too
                out.append(_at(ast.If(ast.Name(flag, ast.Load()), [_at(ast.Break(), stmt)], []), stmt))
        elif isinstance(stmt, ast.If):
            stmt.body = _flagged(stmt.body, flag, in_loop) or [_at(ast.Pass(), stmt)]
            stmt.orelse = _flagged(stmt.orelse, flag, in_loop)
            out.append(stmt)
        else:  # (with, try: left as written by _empty_returns_plan)
            raise AssertionError(f"a return in {type(stmt).__name__}")
        rest = _flagged(stmts[k + 1:], flag, in_loop)
        if rest:
            test = _at(ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load())), stmt)
            out.append(_at(ast.If(test, rest, []), stmt))
        return out
    return out
