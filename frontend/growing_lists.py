"""Lists built by ``append`` and returned prefixes of buffers (part of ``frontend.rewrite``).

numba users collect results in a list and hand back ``np.array`` of it; C-style code fills a
buffer of the largest size and returns ``buf[:count]``.  Both have a length known only when the
loop has run, while every array polyfuse allocates has extents from the sizes.  Both become an
*upper-bound buffer plus a count*: the buffer is allocated from the sizes, the count is returned
beside it as a scalar, and the call hands back ``buf[:count]`` (frontend.lift: ``_with_prefixes``,
runtime.variant: ``returned``), Python's own slicing, so a count out of range behaves as in Python.

- **Returned prefixes.**  ``return buf[:k]`` (``buf`` an array, ``k`` an expression reading a
  local that is assigned more than once or inside a loop or branch, or an array element) is
  ``return buf, k`` here and a prefix of ``buf`` once lifted: the caller gets ``buf[:k]``, a view
  of the kernel's fresh buffer (or of the argument), as NumPy gives; ``return buf[:k].copy()``
  the same where every binding of ``buf`` is a new array (nobody else sees the buffer).
- **Lists built by append.**  ``name = []`` at the top level of the body, then only
  ``name.append(v)`` statements (inside ``for`` loops over ``range`` with step 1 or -1 whose
  bounds read enclosing loops' variables at most linearly, inside counted ``while`` loops --
  ``i = a; while i < b ...`` with every path through the body adding a positive constant to ``i``
  (``while_span``) -- and inside ``if``), ``len(name)`` and
  ``np.array(name)`` / ``np.asarray(name)`` (``dtype=`` allowed) as a returned value.  The
  list becomes ``name = np.empty(bound)`` with a count ``name__n = 0``; each append
  ``name__item = v; name[name__n] = name__item; name__n += 1`` (a fresh ``name__item`` local per
  append); ``len(name)`` the count.  The
  bound is the sum over the appends of the product of their loops' trip counts
  (``max(0, stop - start)``, each enclosing variable replaced by the end of its range that
  gives more: ``trips``); the buffer is allocated before the first top-level statement that
  appends, where the names the bound reads are bound.  The buffer's dtype is NumPy's for ``np.array`` of the items: the
  types of the ``name__item`` locals (typed by the lifter), Python numbers taken as int64,
  float64, bool, complex128 as ``np.array`` takes them, NumPy scalars as they are (elements of a
  float32 array: float32), promoted together (``[1, 0.5]``: float64; ``[np.float32(1), 1]``:
  float64), or ``dtype=`` where given; an empty list gives NumPy's float64 (``np.array([])``).  Anything else done with such a list is
  refused where it is done.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Protocol

from polyfuse.errors import UnsupportedError

from .checker import module_of
from .data_sized import selection
from .source import KernelSource, ReturnedPrefixes, walk


class Rewriter(Protocol):
    """What this pass uses of ``frontend.rewrite.Rewriter``."""

    source: KernelSource
    globals: dict
    args: set[str]

    ranks: dict[str, int]
    dtypes: dict[str, str]

    def fresh(self, name: str) -> str: ...
    def numpy_alias(self) -> str: ...
    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError: ...


_SUPPORTED = ("a list built by append is supported as name = [] at the top level of the body, "
              "name.append(v) inside for loops over range() and if statements, len(name), and "
              "return np.array(name)")


@dataclass
class _List:
    """One list local: its ``name = []`` statement, its appends with their enclosing loops."""

    name: str
    start: ast.Assign
    appends: list[tuple[ast.Expr, tuple[ast.stmt, ...]]] = field(default_factory=list)
    dtype: ast.expr | None = None  # np.array(name, dtype=...)
    count: str = ""
    items: list[str] = field(default_factory=list)  # one local per append: the values appended


def growing_lists(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with its appended lists made buffers plus counts and its returned prefixes made
    ``return buf, k`` (the module docstring); the prefixes found are recorded on ``rw.source``."""
    lists = _find_lists(rw, body)
    if body and isinstance(body[-1], ast.Return) and body[-1].value is not None:
        body = _sunk(rw, body, lists)
        _selections_copied(rw, body, lists)
    returned = body[-1].value if body and isinstance(body[-1], ast.Return) else None
    for elt in returned.elts if isinstance(returned, ast.Tuple) else [returned] if returned is not None else []:
        _list_array(rw, elt, lists)  # np.array(name, dtype=...): the buffer's dtype
    if lists:
        body = _ListRewrite(rw, lists).block(body, ())
    if body and isinstance(body[-1], ast.Return) and body[-1].value is not None:
        before, ret = _prefixes(rw, body, body[-1], lists)
        body = body[:-1] + before + [ret]
    return body


# ---- lists ------------------------------------------------------------------------------------


def _find_lists(rw: Rewriter, body: list[ast.stmt]) -> dict[str, _List]:
    lists: dict[str, _List] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.List) and not stmt.value.elts:
            lists[stmt.targets[0].id] = _List(stmt.targets[0].id, stmt)
    stores: dict[str, int] = {}
    for node in walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    grows = {n.value.id for n in walk(ast.Module(body=body, type_ignores=[]))
             if isinstance(n, ast.Attribute) and n.attr == "append" and isinstance(n.value, ast.Name)}
    return {name: found for name, found in lists.items() if stores.get(name) == 1 and name in grows}


class _ListRewrite:
    """Rewrites the statements that touch the lists (appends anywhere in the body)."""

    def __init__(self, rw: Rewriter, lists: dict[str, _List]) -> None:
        self.rw, self.lists = rw, lists
        self.counters: dict[int, tuple[str, ast.expr]] = {}  # id(while loop) -> its counter, start
        for found in lists.values():
            found.count = rw.fresh(f"{found.name}__n")

    def block(self, stmts: list[ast.stmt], loops: tuple[ast.stmt, ...]) -> list[ast.stmt]:
        out: list[list[ast.stmt]] = []
        grows = [{found.name for node in walk(stmt) if (found := self.appended(node)) is not None}
                 for stmt in stmts] if not loops else []
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.While):
                self.note_counter(stmt, stmts[:k])
            out.append(self.statement(stmt, loops))
        if loops:
            return [new for part in out for new in part]
        # the top level: each list's count starts where the list is made; its buffer is
        # allocated before the first statement that appends to it, where the names its bound
        # reads (n = x.shape[0] after res = []; a while loop's counter) are bound
        done: set[str] = set()
        body: list[ast.stmt] = []
        for stmt, part, names in zip(stmts, out, grows):
            for found in self.lists.values():
                if found.name not in done and found.name in names:
                    done.add(found.name)
                    body.extend(self.allocation(found, stmt))
            body.extend(new for new in part for new in self.count_start(new))
        return body

    def note_counter(self, loop: ast.While, before: list[ast.stmt]) -> None:
        """``i = start`` before ``while i < stop ...`` in one block, nothing between binding ``i``:
        the counter and its start (``while_trips`` checks the rest)."""
        var = _counter_var(loop.test)
        if var is None:
            return
        for stmt in reversed(before):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and stmt.targets[0].id == var:
                between = before[before.index(stmt) + 1:]
                reads = {n.id for n in walk(stmt.value) if isinstance(n, ast.Name)}
                if not (_stores(between) & (reads | {var})):
                    self.counters[id(loop)] = (var, stmt.value)
                return
            if var in _stores([stmt]):
                return

    def statement(self, stmt: ast.stmt, loops: tuple[ast.stmt, ...]) -> list[ast.stmt]:
        found = self.appended(stmt)
        if found is not None:
            assert isinstance(stmt, ast.Expr)
            return self.append(found, stmt, loops)
        if isinstance(stmt, ast.For):
            stmt.iter = _Uses(self).visit(stmt.iter)
        if isinstance(stmt, (ast.While, ast.If)):
            stmt.test = _Uses(self).visit(stmt.test)
        if isinstance(stmt, (ast.For, ast.While)):
            stmt.body = self.block(stmt.body, loops + (stmt,))
            stmt.orelse = self.block(stmt.orelse, loops + (stmt,))
            return [stmt]
        if isinstance(stmt, ast.If):
            stmt.body = self.block(stmt.body, loops)
            stmt.orelse = self.block(stmt.orelse, loops)
            return [stmt]
        if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Assert, ast.Return, ast.Pass,
                                 ast.Break, ast.Continue)):
            raise self.rw.error(stmt, f"{type(stmt).__name__} statement in a kernel with a list built by "
                                f"append: {_SUPPORTED}", "growing list")
        if any(stmt is f.start for f in self.lists.values()) or isinstance(stmt, ast.Return):
            return [stmt]  # the return: _prefixes
        return [_Uses(self).visit(stmt)]

    def appended(self, stmt: ast.AST) -> _List | None:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append" \
                and isinstance(stmt.value.func.value, ast.Name):
            return self.lists.get(stmt.value.func.value.id)
        return None

    def append(self, found: _List, stmt: ast.Expr, loops: tuple[ast.stmt, ...]) -> list[ast.stmt]:
        call = stmt.value
        assert isinstance(call, ast.Call)
        if len(call.args) != 1 or call.keywords:
            raise self.rw.error(call, "list.append takes one value", "list.append")
        value = call.args[0]
        if isinstance(value, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            raise self.rw.error(value, f"append of a {type(value).__name__.lower()} to list {found.name!r}: "
                                "only lists of numbers are supported (build one array per field)",
                                "list of tuples")
        for k, loop in enumerate(loops):
            self.trips(found, loop, loops[:k])  # refuses what has no bound before anything is built
        found.appends.append((stmt, loops))
        value = _Uses(self).visit(value)
        found.items.append(self.rw.fresh(f"{found.name}__item"))
        item = ast.Assign([ast.Name(found.items[-1], ast.Store())], value)
        store = ast.Assign([ast.Subscript(ast.Name(found.name, ast.Load()), ast.Name(found.count, ast.Load()),
                                          ast.Store())], ast.Name(found.items[-1], ast.Load()))
        step = ast.AugAssign(ast.Name(found.count, ast.Store()), ast.Add(), ast.Constant(1))
        new: list[ast.stmt] = [item, store, step]
        for s in new:
            _place(self.rw, s, stmt)
        return new

    def span(self, found: _List, loop: ast.stmt) -> tuple[ast.expr, ast.expr, ast.expr]:
        """``(start, stop, first)`` of a range loop with step 1 or -1: it runs ``stop - start``
        times at most, its variable taking values from ``first`` to ``first + stop - start - 1``."""
        what = f"list.append on {found.name!r}"
        assert isinstance(loop, ast.For)
        it = loop.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("range", "prange")
                and 1 <= len(it.args) <= 3 and not it.keywords and isinstance(loop.target, ast.Name)):
            raise self.rw.error(it, f"{what} inside a loop over {ast.unparse(it)}: {_SUPPORTED}", "growing list")
        args = list(it.args)
        start, stop = (ast.Constant(0), args[0]) if len(args) == 1 else (args[0], args[1])
        step = args[2] if len(args) == 3 else ast.Constant(1)
        if not (isinstance(step, ast.Constant) and step.value in (1, -1)) and not (
                isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub)
                and isinstance(step.operand, ast.Constant) and step.operand.value == 1):
            raise self.rw.error(it, f"{what} inside a range with step {ast.unparse(step)}: the number of appends "
                                f"is bounded for steps 1 and -1. {_SUPPORTED}", "growing list")
        if isinstance(step, ast.UnaryOp) or step.value == -1:  # range(a, b, -1): b + 1 ... a
            return stop, start, ast.BinOp(_copy(stop), ast.Add(), ast.Constant(1))
        return start, stop, start

    def trips(self, found: _List, loop: ast.stmt, loops: tuple[ast.stmt, ...]) -> ast.expr:
        """``max(0, stop - start)`` with each enclosing loop's variable (``loops``, outermost first)
        replaced by the end of its range that gives more (``range(i + 1, n)`` inside ``for i in
        range(n)``: ``n - 1``), exact for bounds linear in those variables: how often ``loop``
        runs its body at most, from the sizes alone."""
        head: ast.expr
        if isinstance(loop, ast.While):
            start, stop = self.while_span(found, loop)
            head, where = loop.test, f"while {ast.unparse(loop.test)}"
        else:
            assert isinstance(loop, ast.For)
            start, stop, _ = self.span(found, loop)
            head, where = loop.iter, ast.unparse(loop.iter)
        bounds = [n for e in (start, stop) for n in walk(e)]
        elements = [n for n in bounds if isinstance(n, ast.Subscript)
                    and not (isinstance(n.value, ast.Attribute) and n.value.attr == "shape")]
        if elements:
            raise self.rw.error(head, f"list.append on {found.name!r} inside {where}, whose "
                                "bounds read array elements: the number of appends must be bounded by the sizes "
                                "before the loops run; allocate np.empty(n), count the elements used and return "
                                "buf[:count]", "growing list")
        diff: ast.expr = ast.BinOp(_copy(stop), ast.Sub(), _copy(start))
        for outer in reversed(loops):
            if isinstance(outer, ast.While):
                if {n.id for n in walk(diff) if isinstance(n, ast.Name)} & _stores(outer.body):
                    raise self.rw.error(loop, f"list.append on {found.name!r} inside a loop whose bounds read "
                                        "names an enclosing while loop assigns: the number of appends must be "
                                        "bounded by the sizes before the loops run; allocate np.empty(n), count "
                                        "the elements used and return buf[:count]", "growing list")
                continue
            assert isinstance(outer, ast.For) and isinstance(outer.target, ast.Name)
            var = outer.target.id
            if not any(isinstance(n, ast.Name) and n.id == var for n in walk(diff)):
                continue
            if not _convex_in(diff, var):
                raise self.rw.error(head, f"list.append on {found.name!r} inside {where}, "
                                    f"whose bounds read {var} other than linearly: the number of appends must be "
                                    "bounded by the sizes before the loops run; allocate np.empty(n), count the "
                                    "elements used and return buf[:count]", "growing list")
            o_start, o_stop, first = self.span(found, outer)
            last = ast.BinOp(_copy(first), ast.Add(), ast.BinOp(ast.BinOp(_copy(o_stop), ast.Sub(), _copy(o_start)),
                                                                  ast.Sub(), ast.Constant(1)))
            diff = ast.Call(ast.Name("max", ast.Load()), [_substituted(diff, var, first),
                                                         _substituted(diff, var, last)], [])
        return ast.Call(ast.Name("max", ast.Load()), [ast.Constant(0), diff], [])

    def while_span(self, found: _List, loop: ast.While) -> tuple[ast.expr, ast.expr]:
        """``(start, stop)`` of a while loop that runs at most ``stop - start`` times: its test is
        ``i < stop`` (``<=``, ``>``, ``>=``; alone or a term of an ``and``), ``i = start`` stands
        before it in its block, every path through its body adds a positive constant to ``i``
        (subtracts, for ``>``), nothing else there binds ``i`` or the names of ``start`` and
        ``stop``, and it has no ``continue`` (``i = 1`` ... ``while i < n - 1: if peak: res.append(i);
        i += 2 else: i += 1``)."""
        what = (f"list.append on {found.name!r} inside a while loop whose counter does not run from a start "
                "to a stop: the number of appends must be bounded by the sizes (a while loop is bounded "
                "as i = a; while i < b: ... with every path through its body adding a constant to i); "
                "allocate np.empty(n), count the elements used and return buf[:count]")
        known = self.counters.get(id(loop))
        test = _counter_test(loop.test)
        if known is None or test is None:
            raise self.rw.error(loop.test, what, "growing list")
        var, start = known
        op, stop = test
        up = isinstance(op, (ast.Lt, ast.LtE))
        stored = _stores(loop.body)
        fixed = {n.id for e in (start, stop) for n in walk(e) if isinstance(n, ast.Name)}
        if fixed & stored or loop.orelse or any(isinstance(n, ast.Continue) for n in _own_nodes(loop.body)) \
                or not _steps_only(loop.body, var, up) or not _always_steps(loop.body, var, up):
            raise self.rw.error(loop.test, what, "growing list")
        if not up:
            start, stop = stop, start
        if isinstance(op, (ast.LtE, ast.GtE)):
            stop = ast.BinOp(_copy(stop), ast.Add(), ast.Constant(1))
        return _copy(start), _copy(stop)

    def count_start(self, stmt: ast.stmt) -> list[ast.stmt]:
        found = next((f for f in self.lists.values() if f.start is stmt), None)
        if found is None:
            return [stmt]
        count = ast.Assign([ast.Name(found.count, ast.Store())], ast.Constant(0))
        _place(self.rw, count, stmt)
        return [count]

    def allocation(self, found: _List, stmt: ast.stmt) -> list[ast.stmt]:
        bound: ast.expr | None = None
        for _, loops in found.appends:
            site: ast.expr = ast.Constant(1)
            for loop in loops:
                trips = self.trips(found, loop, loops[:loops.index(loop)])
                site = trips if isinstance(site, ast.Constant) else ast.BinOp(site, ast.Mult(), trips)
            bound = site if bound is None else ast.BinOp(bound, ast.Add(), site)
        np_alias = _numpy_name(self.rw)
        keywords = [] if found.dtype is None else [ast.keyword("dtype", _copy(found.dtype))]
        alloc = ast.Assign([ast.Name(found.name, ast.Store())],
                           ast.Call(ast.Attribute(ast.Name(np_alias, ast.Load()), "empty", ast.Load()),
                                    [bound or ast.Constant(0)], keywords))
        _place(self.rw, alloc, found.start)
        if found.dtype is None:
            self.rw.source.list_items[found.name] = tuple(found.items)
        return [alloc]


class _Uses(ast.NodeTransformer):
    """``len(name)`` is the count; ``np.array(name)`` is left for the return; other uses refused."""

    def __init__(self, walk: _ListRewrite | _Lookup) -> None:
        self.walk = walk

    def visit_Call(self, node: ast.Call):
        target = node.args[0] if len(node.args) == 1 and isinstance(node.args[0], ast.Name) else None
        found = self.walk.lists.get(target.id) if target is not None else None
        if found is not None and isinstance(node.func, ast.Name) and node.func.id == "len" and not node.keywords:
            return ast.copy_location(ast.Name(found.count, ast.Load()), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name):
        found = self.walk.lists.get(node.id)
        if found is not None:
            raise self.walk.rw.error(node, f"list {node.id!r} used here: {_SUPPORTED}", "growing list")
        return node


# ---- returned prefixes ---------------------------------------------------------------------------


def _prefixes(rw: Rewriter, body: list[ast.stmt], ret: ast.Return,
              lists: dict[str, _List]) -> tuple[list[ast.stmt], ast.Return]:
    """The statements that compute the returned selections (frontend.data_sized) and the return
    with each prefix written as its buffer and count."""
    assert ret.value is not None
    elts = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
    changing = _changing_names(body)
    values: list[ast.expr] = []
    prefixes: list[tuple[int, str]] = []
    copies: list[int] = []  # the prefixes that are new arrays in Python, returned as copies
    before: list[ast.stmt] = []
    defs = _defined_once(body)
    for elt in elts:
        chosen = selection(rw, elt, defs)
        if chosen is not None:
            before += chosen.statements
            copies.append(len(values))
            prefixes.append((len(values), ""))
            values += [ast.copy_location(ast.Name(chosen.buffer, ast.Load()), elt),
                       ast.copy_location(ast.Name(chosen.count, ast.Load()), elt)]
            continue
        found = _list_array(rw, elt, lists)
        if found is not None:
            copies.append(len(values))
            prefixes.append((len(values), "float64" if found.dtype is None else ""))
            values += [ast.copy_location(ast.Name(found.name, ast.Load()), elt),
                       ast.copy_location(ast.Name(found.count, ast.Load()), elt)]
            continue
        copied = _copied_prefix(elt, body)  # return buf[:k].copy() of a buffer the kernel allocates
        bound = _prefix_bound(copied or elt, changing)
        if bound is not None:
            sliced = copied or elt
            assert isinstance(sliced, ast.Subscript)
            if copied is not None:
                copies.append(len(values))
            prefixes.append((len(values), ""))
            values += [sliced.value, bound]
            continue
        if isinstance(elt, ast.Name) and elt.id in lists:
            raise rw.error(elt, f"the list {elt.id!r} returned itself (a list); return np.array({elt.id})",
                           "growing list")
        values.append(_Uses(_Lookup(rw, lists)).visit(elt) if lists else elt)
    if not prefixes:
        return before, ret
    rw.source = dataclasses.replace(rw.source, prefixes=ReturnedPrefixes(tuple(prefixes),
                                                                         not isinstance(ret.value, ast.Tuple),
                                                                         tuple(copies)))
    value = ast.copy_location(ast.Tuple(values, ast.Load()), ret.value)
    return before, ast.copy_location(ast.Return(value), ret)


def _sunk(rw: Rewriter, body: list[ast.stmt], lists: dict[str, _List]) -> list[ast.stmt]:
    """``idx = np.nonzero(m)[0]`` ... ``return idx``: a top-level assignment of a data-sized value
    (or ``np.array`` of a list) to a name read only as an item of the final return is moved into
    the return, where nothing between writes what the value reads."""
    ret = body[-1]
    assert isinstance(ret, ast.Return) and ret.value is not None
    elts = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
    returned = {e.id: k for k, e in enumerate(elts) if isinstance(e, ast.Name)}
    keep: list[ast.stmt] = []
    defs = _defined_once(body)
    for k, stmt in enumerate(body[:-1]):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            keep.append(stmt)
            continue
        name = stmt.targets[0].id
        inside = _read_once_inside(name, elts, body[k + 1:-1]) if name not in returned else None
        if inside is not None:  # only where the item becomes a data-sized value this pass returns
            trial = copy.deepcopy(inside)
            _replace_name(trial, name, copy.deepcopy(stmt.value))
            inside = inside if _data_sized(rw, trial, lists, defs) else None
        if (name not in returned and inside is None) or not _data_sized(rw, stmt.value, lists, defs) \
                or not _unchanged_until_return(stmt.value, body[k + 1:-1], name, elts if inside is None
                                               else [ast.Name(name, ast.Load())]):
            keep.append(stmt)
            continue
        if inside is None:
            elts[returned[name]] = stmt.value
        else:  # u = np.unique(x) ... return u * 2: the value in place of its one read
            _replace_name(inside, name, stmt.value)
    if isinstance(ret.value, ast.Tuple):
        ret.value.elts = elts
    else:
        ret.value = elts[0]
    return keep + [ret]


def _selections_copied(rw: Rewriter, body: list[ast.stmt], lists: dict[str, _List]) -> None:
    """``sel = x[x > 0]; m = sel.mean(); s = sel.std(); return (sel - m) / s``: a boolean-mask
    selection bound once at the top level and read by other statements too (which keep their
    reads: frontend.selection_loops) is written again, as its value, in each read of the final
    return's items that then is a data-sized value this pass returns, where nothing between
    rebinds or writes what the value reads or ``sel`` itself (only read, by the calls that
    cannot write it: ``_reads_only``)."""
    ret = body[-1]
    assert isinstance(ret, ast.Return) and ret.value is not None
    elts = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
    defs = _defined_once(body)
    for k, stmt in enumerate(body[:-1]):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id in defs and isinstance(stmt.value, ast.Subscript)
                and not isinstance(stmt.value.slice, (ast.Slice, ast.Tuple))):
            continue
        name, value = stmt.targets[0].id, stmt.value
        between = body[k + 1:-1]
        if not _data_sized(rw, value, lists, defs) or not _reads_only(name, between) \
                or not _unchanged_until_return(value, between, "", [ast.Name("", ast.Load())]):
            continue
        for at, elt in enumerate(elts):
            if not any(isinstance(n, ast.Name) and n.id == name for n in walk(elt)):
                continue
            trial = _NameAsValue(name, value).visit(copy.deepcopy(elt))
            if _data_sized(rw, trial, lists, defs):
                elts[at] = trial
    if isinstance(ret.value, ast.Tuple):
        ret.value.elts = elts
    else:
        ret.value = elts[0]


#: calls that read their array arguments and write none of them (no out=)
_READING_CALLS = frozenset(("sum", "mean", "std", "var", "max", "min", "prod", "any", "all", "median", "len",
                            "count_nonzero", "argmax", "argmin", "copy", "astype", "abs", "sqrt", "exp", "log"))


def _reads_only(name: str, stmts: list[ast.stmt]) -> bool:
    """``name`` is only read in ``stmts``: not rebound or stored into, and passed only to the
    calls of ``_READING_CALLS`` (as their argument or the object of the method) without ``out=``."""
    parents = {id(c): p for s in stmts for p in walk(s) for c in ast.iter_child_nodes(p)}
    for stmt in stmts:
        for node in walk(stmt):
            if not (isinstance(node, ast.Name) and node.id == name):
                continue
            parent = parents.get(id(node))
            if not isinstance(node.ctx, ast.Load) or isinstance(parent, (ast.Subscript, ast.Attribute)) \
                    and not isinstance(parent.ctx, ast.Load):
                return False
            call = parents.get(id(parent)) if isinstance(parent, ast.Attribute) else parent
            if isinstance(call, ast.Call):
                func = call.func
                called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if called not in _READING_CALLS or any(kw.arg == "out" for kw in call.keywords):
                    return False
    return True


class _NameAsValue(ast.NodeTransformer):
    """Every read of ``name`` as a copy of ``value``."""

    def __init__(self, name: str, value: ast.expr) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return ast.copy_location(copy.deepcopy(self.value), node) if node.id == self.name else node


def _read_once_inside(name: str, elts: list[ast.expr], between: list[ast.stmt]) -> ast.expr | None:
    """The returned item that reads ``name`` once, inside it (``return u * 2``), where nothing
    in ``between`` reads it; None otherwise."""
    reads = [e for e in elts for n in walk(e) if isinstance(n, ast.Name) and n.id == name]
    if len(reads) != 1 or any(isinstance(n, ast.Name) and n.id == name for s in between for n in walk(s)):
        return None
    if any(isinstance(n, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.comprehension)) and any(
            isinstance(m, ast.Name) and m.id == name for m in walk(n)) for n in walk(reads[0])):
        return None  # evaluated only on some paths: Python evaluated the binding (and its checks) on all
    return reads[0]


def _replace_name(tree: ast.expr, name: str, value: ast.expr) -> None:
    """``tree`` with its one read of ``name`` (not ``tree`` itself) replaced by ``value``."""
    for node in walk(tree):
        for attr, child in ast.iter_fields(node):
            if isinstance(child, ast.Name) and child.id == name:
                setattr(node, attr, value)
                return
            if isinstance(child, list):
                for k, item in enumerate(child):
                    if isinstance(item, ast.Name) and item.id == name:
                        child[k] = value
                        return


def _data_sized(rw: Rewriter, value: ast.expr, lists: dict[str, _List], defs: dict[str, ast.expr]) -> bool:
    if _list_array(rw, value, lists) is not None:
        return True
    probe = _Probe(rw)
    return selection(probe, value, defs) is not None


def _defined_once(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """Locals bound by exactly one statement, ``name = value`` at the top level: name -> value."""
    stores: dict[str, int] = {}
    for node in walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
    return {s.targets[0].id: s.value for s in body if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and stores.get(s.targets[0].id) == 1}


class _Probe:
    """``rw`` for a trial of ``selection``: fresh names from a scratch set, nothing recorded."""

    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw
        self.ranks, self.dtypes, self.args, self.globals = rw.ranks, rw.dtypes, rw.args, rw.globals

    def fresh(self, name: str) -> str:
        return name

    def numpy_alias(self) -> str:
        return "np"


def _unchanged_until_return(value: ast.expr, between: list[ast.stmt], name: str, elts: list[ast.expr]) -> bool:
    """Nothing in ``between`` rebinds or writes what ``value`` reads, or reads ``name``; ``name``
    is returned once."""
    reads = {n.id for n in walk(value) if isinstance(n, ast.Name)}
    if sum(1 for e in elts if isinstance(e, ast.Name) and e.id == name) != 1:
        return False
    for stmt in between:
        for node in walk(stmt):
            if isinstance(node, ast.Name) and (node.id == name or (node.id in reads and not isinstance(node.ctx,
                                                                                                    ast.Load))):
                return False
            if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
                base = node.value
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in reads:
                    return False
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in
                                                   ("len", "range", "min", "max", "abs", "float", "int")):
                passed = [*node.args, *(k.value for k in node.keywords)]
                if isinstance(stmt, ast.Expr) or any(isinstance(a, ast.Name) and a.id in reads for a in passed):
                    return False  # a call may write the arrays passed to it
    return True


class _Lookup:
    """What ``_Uses`` needs outside a ``_ListRewrite`` (the return statement)."""

    def __init__(self, rw: Rewriter, lists: dict[str, _List]) -> None:
        self.rw, self.lists = rw, lists


def _list_array(rw: Rewriter, elt: ast.expr, lists: dict[str, _List]) -> _List | None:
    """The list of ``np.array(name)`` / ``np.asarray(name, dtype=...)``."""
    if not (isinstance(elt, ast.Call) and isinstance(elt.func, ast.Attribute) and elt.func.attr in ("array", "asarray")
            and module_of(elt.func.value, rw.globals) == "np" and len(elt.args) == 1
            and isinstance(elt.args[0], ast.Name) and elt.args[0].id in lists):
        return None
    found = lists[elt.args[0].id]
    for kw in elt.keywords:
        if kw.arg != "dtype":
            raise rw.error(kw.value, f"np.{elt.func.attr}({found.name}, {kw.arg}=...): only dtype= is supported "
                           "for a list built by append", "growing list")
        found.dtype = kw.value
    return found


def _copied_prefix(elt: ast.expr, body: list[ast.stmt]) -> ast.Subscript | None:
    """``buf[:k]`` of ``buf[:k].copy()`` where every binding of ``buf`` is a new array
    (``np.empty(2 * n)``, ``x.copy()``): the caller's view of the kernel's own buffer is a copy
    nobody else sees.  None otherwise (a prefix of an argument must come back as a copy)."""
    if not (isinstance(elt, ast.Call) and isinstance(elt.func, ast.Attribute) and elt.func.attr == "copy"
            and not elt.args and not elt.keywords and isinstance(elt.func.value, ast.Subscript)
            and isinstance(elt.func.value.value, ast.Name)):
        return None
    name = elt.func.value.value.id
    values = [node.value for top in body for node in walk(top) if isinstance(node, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]
    stored = sum(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                 for top in body for n in walk(top))
    fresh = all(isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _FRESH
                for v in values)
    return elt.func.value if values and fresh and stored == len(values) else None


#: calls whose value is a new array (np.empty(n), x.copy())
_FRESH = frozenset(("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "copy"))


def _prefix_bound(elt: ast.expr, changing: set[str]) -> ast.expr | None:
    """``k`` of ``buf[:k]`` where ``k`` is known only once the body ran."""
    if not (isinstance(elt, ast.Subscript) and isinstance(elt.value, ast.Name) and isinstance(elt.slice, ast.Slice)):
        return None
    s = elt.slice
    if s.upper is None or s.step is not None or not (s.lower is None or (isinstance(s.lower, ast.Constant)
                                                                         and s.lower.value == 0)):
        return None
    reads = list(walk(s.upper))
    if any(isinstance(n, ast.Subscript) for n in reads) or any(isinstance(n, ast.Name) and n.id in changing
                                                               for n in reads):
        return s.upper
    return None


def _changing_names(body: list[ast.stmt]) -> set[str]:
    """Names assigned more than once, or inside a loop or branch: values known only at run time."""
    counts: dict[str, int] = {}
    inner: set[str] = set()
    for top in body:
        for node in walk(top):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                counts[node.id] = counts.get(node.id, 0) + 1
                if not (isinstance(top, ast.Assign) and node in top.targets):
                    inner.add(node.id)
    return {n for n, c in counts.items() if c > 1} | inner


def _convex_in(node: ast.expr, var: str) -> bool:
    """``node`` is a convex function of ``var`` made of ``+``, ``-``, products by terms without
    ``var`` and ``max`` (so its largest value over a range is at one of the range's ends)."""
    def free(n: ast.AST) -> bool:
        return not any(isinstance(m, ast.Name) and m.id == var for m in walk(n))

    def linear(n: ast.AST) -> bool:
        if free(n) or isinstance(n, ast.Name):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
            return linear(n.left) and linear(n.right)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            return (free(n.left) and linear(n.right)) or (free(n.right) and linear(n.left))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            return linear(n.operand)
        return False

    def convex(n: ast.AST) -> bool:
        if linear(n):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "max" and not n.keywords:
            return all(convex(a) for a in n.args)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            return convex(n.left) and convex(n.right)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub):
            return convex(n.left) and linear(n.right)
        return False

    return convex(node)


def _counter_test(test: ast.expr) -> tuple[ast.cmpop, ast.expr] | None:
    """``(op, stop)`` of ``i < stop`` (``<=``, ``>``, ``>=``), alone or a term of an ``and``."""
    terms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for term in terms:
        if isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.left, ast.Name) \
                and isinstance(term.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            return term.ops[0], term.comparators[0]
    return None


def _counter_var(test: ast.expr) -> str | None:
    terms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for term in terms:
        if isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.left, ast.Name) \
                and isinstance(term.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            return term.left.id
    return None


def _stores(stmts: list[ast.stmt]) -> set[str]:
    """Names bound anywhere in ``stmts``."""
    return {n.id for s in stmts for n in walk(s) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _own_nodes(stmts: list[ast.stmt]):
    """The nodes of ``stmts`` outside nested loops (whose ``continue`` is their own)."""
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.For, ast.While)):
            todo.extend(ast.iter_child_nodes(node))


def _step(stmt: ast.stmt, var: str, up: bool) -> bool:
    """``var += c`` / ``var = var + c`` (``-`` when not ``up``) with ``c`` a positive integer."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == var:
        op, amount = stmt.op, stmt.value
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and stmt.targets[0].id == var and isinstance(stmt.value, ast.BinOp) \
            and isinstance(stmt.value.left, ast.Name) and stmt.value.left.id == var:
        op, amount = stmt.value.op, stmt.value.right
    else:
        return False
    return isinstance(op, ast.Add if up else ast.Sub) and isinstance(amount, ast.Constant) \
        and type(amount.value) is int and amount.value >= 1


def _steps_only(stmts: list[ast.stmt], var: str, up: bool) -> bool:
    """Every binding of ``var`` in ``stmts`` (nested loops and branches too) is a step."""
    nodes = [node for stmt in stmts for node in walk(stmt)]
    steps = {id(node.target if isinstance(node, ast.AugAssign) else node.targets[0]) for node in nodes
             if isinstance(node, (ast.Assign, ast.AugAssign)) and _step(node, var, up)}
    return not any(isinstance(node, ast.Name) and node.id == var and not isinstance(node.ctx, ast.Load)
                   and id(node) not in steps for node in nodes)


def _always_steps(stmts: list[ast.stmt], var: str, up: bool) -> bool:
    """Every path through ``stmts`` runs a step of ``var`` before it ends or breaks."""
    for stmt in stmts:
        if _step(stmt, var, up):
            return True
        if isinstance(stmt, ast.If) and _always_steps(stmt.body, var, up) and _always_steps(stmt.orelse, var, up):
            return True
        if isinstance(stmt, (ast.Break, ast.Return)):
            return True  # the loop ends here: no further iteration
    return False


def _substituted(node: ast.expr, var: str, value: ast.expr) -> ast.expr:
    class _Sub(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name):
            return _copy(value) if n.id == var else n
    return _Sub().visit(_copy(node))


def _numpy_name(rw: Rewriter) -> str:
    alias = getattr(rw, "numpy_alias", None)
    return alias() if alias is not None else "np"


def _copy(node: ast.expr) -> ast.expr:
    return copy.deepcopy(node)


def _place(rw: Rewriter, new: ast.stmt, like: ast.stmt) -> None:
    for sub in walk(new):
        if "lineno" in sub._attributes:
            ast.copy_location(sub, like)


__all__ = ["growing_lists"]
