"""Tuples and lists held in locals, list shapes and ``np.ndarray`` (part of ``frontend.rewrite``).

Run after helper inlining and before the sizes and extents of kernel-local arrays are read, so
that those see shapes written out:

- **Tuple locals.** ``new_shape = (x.shape[0], 1)`` then ``np.empty(new_shape)``, or
  ``idx = i, j`` then ``x[idx]``: a local assigned a tuple (or list) display once is replaced by
  the display at each use, ``idx[0]`` by its element and ``len(idx)`` by its length; the
  assignment goes.  That is exact when nothing the elements read can change between the
  assignment and a use, so the elements may read only names never assigned, loop variables of
  the loops around the assignment and names assigned once before it (array elements only of a
  named array where no statement writes into an array: ``cols = [X[:, 0], X[:, 0] * X[:, 1]]``), and
  the uses must follow the assignment inside the block that holds it.  Any other tuple local is
  refused where it breaks a rule.
- **List shapes.** ``np.empty([n, m])`` (and ``np.zeros``, ``np.ones``, ``np.full``) is
  ``np.empty((n, m))``.
- **np.ndarray.** ``np.ndarray(shape, dtype)`` allocates like ``np.empty(shape, dtype)``; the
  forms that view existing memory (``buffer=``, ``offset=``, ``strides=``, ``order=``) are refused.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import Protocol

from polyfuse.errors import UnsupportedError

from .checker import module_of
from .desugar import Constants, StatementTransformer, int_constant
from .desugar import Rewriter as DesugarRewriter
from .early_return import RESULT
from .numba_values import TUPLE_INDEX, boxed, is_boxed
from .source import KernelSource, location_key, map_blocks, walk

_SHAPED = ("empty", "zeros", "ones", "full")  # allocators whose first argument is a shape
_RULE = ("a tuple (or list) local is written out at each use: assign it once, from loop variables, "
         "arguments, sizes and locals assigned once before, and use it after that in the same block")


#: list methods that change a list's length (refused with their own message)
_LIST_METHODS = ("append", "extend", "insert", "pop", "remove", "clear")


class Rewriter(DesugarRewriter, Protocol):
    """What this pass uses of ``frontend.rewrite.Rewriter`` (which imports this module)."""

    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError: ...
    def origin(self, node: ast.AST) -> KernelSource | None: ...
    def mark_one(self, node: ast.AST, origin: KernelSource | None) -> None: ...


def substitute_tuples(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with its tuple locals written out, list shapes made tuples and ``np.ndarray``
    allocations made ``np.empty`` (see the module docstring)."""
    stores = Counter(n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    loads = Counter(n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    body = _comprehension_locals(rw, body, stores, loads)
    for top in body:
        for stmt in walk(top):
            _shape_display(rw, stmt, stores)
    defs = [s for top in body for s in walk(top) if _defined(s) is not None]
    for stmt in defs:
        name = str(_defined(stmt))
        if stores[name] != 1 and name.startswith(RESULT):  # frontend.early_return's result local
            raise rw.error(stmt, "the returns give a tuple on one path and another value (a number, or a "
                           "tuple of another length) on another; return values of one kind on every path",
                           "return of a tuple")
        if stores[name] != 1:
            raise rw.error(stmt, f"tuple local {name!r} is assigned more than once; {_RULE}", "tuple local")
    if defs:
        body = _TupleLocals(rw, {str(_defined(s)) for s in defs}, stores, body).block(body, frozenset())
    return [_Allocations(rw).visit(s) for s in body]


def _comprehension_locals(rw: Rewriter, stmts: list[ast.stmt], stores: Counter, loads: Counter) -> list[ast.stmt]:
    """``vals = [f(i) for i in ...]`` then ``np.array(vals)`` (``np.asarray``) as its one use, in
    a later statement of the same block: the comprehension written at the use (the lowering's
    ``np.array`` of a comprehension) where no statement from the binding to the use writes an
    array or binds a name the comprehension reads, so it reads the same values there."""
    out: list[ast.stmt] = []
    for k, stmt in enumerate(stmts):
        map_blocks(stmt, lambda inner: _comprehension_locals(rw, inner, stores, loads), ("body", "orelse"))
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.ListComp) and stores[stmt.targets[0].id] == 1
                and loads[stmt.targets[0].id] == 1):
            out.append(stmt)
            continue
        name, made = stmt.targets[0].id, stmt.value
        read = {n.id for n in walk(made) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        use = next((j for j in range(k + 1, len(stmts)) if any(
            isinstance(n, ast.Name) and n.id == name for n in walk(stmts[j]))), None)
        # a simple statement evaluates the value before it stores; a compound one may store first
        upto = use if use is not None and isinstance(stmts[use], (ast.Assign, ast.AugAssign, ast.Return, ast.Expr)) \
            else None if use is None else use + 1
        if use is None or _writes_arrays(stmts[k + 1:upto]) \
                or read & {n for s in stmts[k + 1:upto] for n in _stored(s)} \
                or not _array_of(rw, stmts[use], name, made):
            out.append(stmt)
    return out


def _array_of(rw: Rewriter, stmt: ast.stmt, name: str, made: ast.ListComp) -> bool:
    """Whether ``stmt`` reads ``name`` as ``np.array(name)`` / ``np.asarray(name)``; if so, that
    argument becomes ``made``."""
    for node in walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("array", "asarray") and module_of(node.func.value, rw.globals) == "np" \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            node.args[0] = made
            return True
    return False


def _shape_display(rw: Rewriter, stmt: ast.AST, stores: Counter) -> None:
    """``sw = w.shape`` (``w`` an array argument, ``sw`` assigned once) -> the display
    ``sw = (w.shape[0], w.shape[1])``, a tuple local like any other (A_conv's ``sw[0]``)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stores[stmt.targets[0].id] == 1 and isinstance(stmt.value, ast.Attribute)
            and stmt.value.attr == "shape" and isinstance(stmt.value.value, ast.Name)
            and stmt.value.value.id in rw.ranks):
        return
    array = stmt.value.value.id
    elts: list[ast.expr] = [rw.placed(ast.Subscript(ast.Attribute(ast.Name(array, ast.Load()), "shape", ast.Load()),
                                                    ast.Constant(d), ast.Load()), stmt.value)
                            for d in range(rw.ranks[array])]
    stmt.value = rw.placed(ast.Tuple(elts, ast.Load()), stmt.value)


def _defined(stmt: ast.AST) -> str | None:
    """The name ``stmt`` assigns a tuple or list display to, if that is what it does."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, (ast.Tuple, ast.List)):
        return stmt.targets[0].id
    return None


#: methods and numpy functions that write into an array they are given
_WRITERS = ("at", "sort", "fill", "put", "partition", "resize", "itemset", "setfield", "byteswap", "shuffle",
            "copyto", "place", "putmask", "fill_diagonal", "put_along_axis")


def _writes_arrays(body: list[ast.stmt]) -> bool:
    """Whether some statement of ``body`` may write into an array: a subscript store (``x[i] =``,
    ``x[m] += v``), ``out=``, an in-place method or numpy function, a call of a function not
    inlined.  Where none does, an array element reads the same value everywhere in the kernel."""
    for node in (n for s in body for n in walk(s)):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Call):
            if any(k.arg == "out" for k in node.keywords):
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr in _WRITERS:
                return True
            if isinstance(node.func, ast.Name) and node.func.id not in _PURE_BUILTINS:
                return True
    return False


_PURE_BUILTINS = frozenset(("len", "range", "min", "max", "abs", "sum", "int", "float", "bool", "complex", "round",
                            "enumerate", "zip", "reversed", "divmod", "pow", "tuple", "list", "any", "all"))


def _stored(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class _TupleLocals:
    """One walk in program order: ``active`` holds the tuple locals whose assignment encloses the
    current point, ``seen`` the names some statement before it assigns."""

    def __init__(self, rw: Rewriter, names: set[str], stores: Counter, body: list[ast.stmt]) -> None:
        self.rw, self.names, self.stores = rw, names, stores
        self.loop_targets = {n for s in body for f in walk(s) if isinstance(f, ast.For) for n in _stored(f.target)}
        self.active: dict[str, ast.expr] = {}
        self.seen: set[str] = set()
        self.arrays_fixed = not _writes_arrays(body)
        self.loads = Counter(n.id for s in body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))

    def block(self, stmts: list[ast.stmt], loops: frozenset[str]) -> list[ast.stmt]:
        """``stmts`` (inside the loops over ``loops``) with their tuple locals written out."""
        out: list[ast.stmt] = []
        mine: list[str] = []
        for k, stmt in enumerate(stmts):
            name = _defined(stmt)
            if name is not None:
                assert isinstance(stmt, ast.Assign)
                value = self.uses(stmt.value)
                if not self.used_next(name, stmts[k + 1:k + 2]):
                    self.check_stable(name, value, loops)
                self.active[name] = value
                mine.append(name)
            else:
                out.append(self.statement(stmt, loops))
            self.seen.update(_stored(stmt))
        for name in mine:
            del self.active[name]
        return out

    def statement(self, stmt: ast.stmt, loops: frozenset[str]) -> ast.stmt:
        if isinstance(stmt, ast.For):
            stmt.iter = self.uses(stmt.iter)
            stmt.body = self.block(stmt.body, loops | _stored(stmt.target))
            stmt.orelse = self.block(stmt.orelse, loops)
        elif isinstance(stmt, (ast.If, ast.While)):
            stmt.test = self.uses(stmt.test)
            stmt.body, stmt.orelse = self.block(stmt.body, loops), self.block(stmt.orelse, loops)
        elif not any(isinstance(getattr(stmt, f, None), list) for f in ("body", "handlers")):
            stmt = self.uses(stmt)  # (with, try, nested defs: left for the checker to refuse)
        return stmt

    def uses(self, node):
        return _Uses(self).visit(node)

    def used_next(self, name: str, following: list[ast.stmt]) -> bool:
        """Whether every use of tuple local ``name`` is in the value of the assignment right after
        it (an inlined helper's ``_h_value = (key, size)`` then ``d, size = _h_value``): nothing
        runs between, and the value is read in full before any target is bound, so the elements
        read what they read at the tuple's assignment, whatever they are."""
        if not following or not isinstance(following[0], ast.Assign):
            return False
        in_value = sum(isinstance(n, ast.Name) and n.id == name for n in walk(following[0].value))
        return in_value > 0 and in_value == self.loads[name]

    def check_stable(self, name: str, value: ast.expr, loops: frozenset[str]) -> None:
        """Refuse a tuple whose elements may change between its assignment and a use."""
        for node in walk(value):
            if isinstance(node, ast.Subscript) and not (isinstance(node.value, ast.Attribute)
                                                        and node.value.attr == "shape") \
                    and not (self.arrays_fixed and isinstance(node.value, ast.Name)):
                raise self.unstable(name, node, ", an array element")
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not self.stable(node.id, loops):
                raise self.unstable(name, node, "")

    def stable(self, name: str, loops: frozenset[str]) -> bool:
        """Whether ``name`` holds the same value from here to the end of the current block."""
        count = self.stores[name]
        return count == 0 or name in loops or (count == 1 and name in self.seen and name not in self.loop_targets)

    def unstable(self, name: str, node: ast.AST, what: str) -> UnsupportedError:
        return self.rw.error(node, f"tuple local {name!r} reads {ast.unparse(node)!r}{what}, which may change before "
                             f"the tuple is used; {_RULE}", "tuple local")


class _Uses(ast.NodeTransformer):
    """Reads of active tuple locals -> their displays (``t[k]`` -> the element, ``len(t)`` -> the
    length), at the place of the read; any other use of a tuple local is refused."""

    def __init__(self, walk: _TupleLocals) -> None:
        self.walk = walk

    def display(self, node: ast.expr) -> ast.Tuple | ast.List | None:
        if isinstance(node, ast.Name) and node.id in self.walk.names:
            if node.id not in self.walk.active:
                raise self.walk.rw.error(node, f"tuple local {node.id!r} is read before it is assigned or outside "
                                         f"the block that assigns it; {_RULE}", "tuple local")
            found = self.walk.active[node.id]
            assert isinstance(found, (ast.Tuple, ast.List))
            return found
        return None

    def visit_Name(self, node: ast.Name):
        found = self.display(node)
        return node if found is None else self.walk.rw.placed(self.walk.rw.copy(found), node)

    def visit_Subscript(self, node: ast.Subscript):
        found = self.display(node.value)
        if found is not None and not isinstance(node.ctx, ast.Load):
            raise self.walk.rw.error(node, f"assignment into tuple local {ast.unparse(node.value)!r}; {_RULE}",
                                     "tuple local")
        axis = int_constant(node.slice)
        if found is not None and axis is not None and -len(found.elts) <= axis < len(found.elts):
            return self.walk.rw.placed(self.walk.rw.copy(found.elts[axis]), node)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute):
        found = self.display(node.value)
        if isinstance(found, ast.List) and node.attr in _LIST_METHODS:
            raise self.walk.rw.error(node, f"list.{node.attr} on list local {ast.unparse(node.value)!r}: a list "
                                     "that changes size is supported only as name = [] at the top level, name.append(v) in "
                                     "for loops over range(), len(name) and return np.array(name) (a compiled "
                                     "array's extent comes from the sizes); otherwise allocate an array of the "
                                     "largest size (np.empty(n)), fill it with a count of the elements used, and "
                                     "return buf[:count]", "growing list")
        if found is not None:
            raise self.walk.rw.error(node, f"{ast.unparse(node)} of tuple local {ast.unparse(node.value)!r}; "
                                     f"{_RULE}", "tuple local")
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and "len" not in self.walk.rw.globals \
                and len(node.args) == 1 and not node.keywords:
            found = self.display(node.args[0])
            if found is not None:
                return self.walk.rw.placed(ast.Constant(len(found.elts)), node)
        if is_boxed(node) and isinstance(found := self.display(node.args[0]), ast.Tuple):
            # a numba helper's tuple value held in a local: the mark item by item (numba_values)
            return boxed(self.walk.rw.placed(self.walk.rw.copy(found), node))
        self.generic_visit(node)
        return node


class _Allocations(ast.NodeTransformer):
    """``np.empty([n, m])`` -> ``np.empty((n, m))``; ``np.ndarray(shape, dtype)`` -> ``np.empty``."""

    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, ast.Attribute) and module_of(func.value, self.rw.globals) == "np"):
            return node
        if func.attr == "ndarray":
            return self.ndarray(node)
        if func.attr in _SHAPED and node.args and isinstance(node.args[0], ast.List):
            node.args[0] = self.shape(node.args[0])
        return node

    def shape(self, node: ast.List) -> ast.Tuple:
        shape = ast.copy_location(ast.Tuple(node.elts, ast.Load()), node)
        self.rw.mark_one(shape, self.rw.origin(node))
        return shape

    def ndarray(self, call: ast.Call) -> ast.Call:
        """``np.ndarray(shape, dtype=float)``: an uninitialized array, as ``np.empty`` makes."""
        given = dict(zip(("shape", "dtype"), call.args))
        extra = len(call.args) > 2
        for kw in call.keywords:
            extra = extra or kw.arg not in ("shape", "dtype") or kw.arg in given
            given[str(kw.arg)] = kw.value
        if extra or "shape" not in given:
            raise self.rw.error(call, "np.ndarray with other than (shape, dtype) arguments (buffer=, offset=, "
                                "strides= and order= view existing memory); allocate with np.empty(shape, dtype)",
                                "np.ndarray")
        assert isinstance(call.func, ast.Attribute)
        func = ast.copy_location(ast.Attribute(call.func.value, "empty", ast.Load()), call.func)
        dtype = [ast.keyword("dtype", given["dtype"])] if "dtype" in given else []
        shape = given["shape"]
        new = ast.copy_location(ast.Call(func, [self.shape(shape) if isinstance(shape, ast.List) else shape], dtype),
                                call)
        for node in (func, new):
            self.rw.mark_one(node, self.rw.origin(call))
        return new


def display_loops_and_elements(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with the loops over tuple displays that writing out tuple locals made (``dirs =
    ((0, 1), (1, 0))`` then ``for di, dj in dirs:``; ``for q in (i, j):``) made range loops, as
    desugar's Constants makes them for displays written in the loop, and each element of a display
    at a computed index (``dy = (-1, 0, 1, 0)`` then ``y + dy[d]``) a choice of its elements: the
    index into a fresh local before the statement, Python's IndexError there where it is out of
    range (``assert``, the run-time check), negative ones counting from the end."""
    body = _DisplayLoops(rw, rw.globals, set()).block(body)
    return _DisplayElements(rw).block(body)


class _DisplayLoops(Constants):
    """Constants' loops over displays only (its global constants were read before the inlining)."""

    def visit_Name(self, node: ast.Name):
        return node

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        return node

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        return node

    def visit_If(self, node: ast.If):
        self.generic_visit(node)
        return node

    def visit_Assign(self, node: ast.Assign):
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        return node

    def visit_For(self, node: ast.For):
        literal = self._literal_loop(node)
        if literal is not None:
            return literal
        self.generic_visit(node)
        return node


_INDEX_CALLS = ("int", "abs", "min", "max")


class _DisplayElements(StatementTransformer):
    """``(a, b, c)[k]`` of a computed ``k`` -> ``a if t == 0 or t == -3 else (b if ... else c)``,
    after ``t = k`` and ``assert -3 <= t < 3`` (IndexError) before the statement; only where the
    statement surely evaluates the subscript (not in a branch of ``a if c else b``, after the first
    operand of ``and``/``or``, in a comprehension or in a while test, where it stays refused)."""

    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw

    def visit_For(self, node: ast.For):
        pre = self.elements(node, node, "iter")
        node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        return [*pre, node]

    def visit_If(self, node: ast.If):
        pre = self.elements(node, node, "test")
        node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        return [*pre, node]

    def visit_While(self, node: ast.While):
        node.body, node.orelse = self.block(node.body), self.block(node.orelse)
        return node

    def generic_visit(self, node: ast.AST):
        if not isinstance(node, ast.stmt) or any(isinstance(getattr(node, f, None), list)
                                                 for f in ("body", "handlers", "orelse")):
            return node  # (with, try, nested defs: left for the checker to refuse)
        pre: list[ast.stmt] = []
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                pre.extend(self.elements(node, node, field))
        return [*pre, node]

    def elements(self, stmt: ast.stmt, owner: ast.AST, field: str) -> list[ast.stmt]:
        pre: list[ast.stmt] = []
        setattr(owner, field, _Elements(self.rw, stmt, pre).visit(getattr(owner, field)))
        return pre


class _Elements(ast.NodeTransformer):
    def __init__(self, rw: Rewriter, stmt: ast.stmt, pre: list[ast.stmt]) -> None:
        self.rw, self.stmt, self.pre = rw, stmt, pre

    def visit_IfExp(self, node: ast.IfExp):
        node.test = self.visit(node.test)
        return node

    def visit_BoolOp(self, node: ast.BoolOp):
        node.values[0] = self.visit(node.values[0])
        return node

    def _left(self, node: ast.AST):
        return node

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _left

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        display = node.value
        if not isinstance(node.ctx, ast.Load) or not isinstance(display, (ast.Tuple, ast.List)) or not display.elts \
                or any(isinstance(e, ast.Starred) for e in display.elts) \
                or isinstance(node.slice, (ast.Slice, ast.Tuple)) or int_constant(node.slice) is not None \
                or any(isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _INDEX_CALLS
                                                        and n.func.id not in self.rw.globals)
                       or isinstance(n, (ast.Tuple, ast.List, ast.NamedExpr)) for n in walk(node.slice)):
            return node
        n = len(display.elts)
        at = self.rw.fresh("tuple_at")
        index = self.rw.placed(ast.Call(ast.Name(TUPLE_INDEX, ast.Load()), [node.slice], []), node)
        self.pre.append(ast.copy_location(ast.Assign([self.rw.placed(ast.Name(at, ast.Store()), node)], index),
                                          self.stmt))
        test = ast.parse(f"{-n} <= {at} < {n}", mode="eval").body
        message = ast.Tuple([ast.Constant("IndexError"), ast.Constant("tuple index out of range")], ast.Load())
        check = ast.Assert(self.rw.placed(test, node), self.rw.placed(message, node))
        self.pre.append(ast.copy_location(check, self.stmt))
        self.rw.source.raises.add(location_key(check))  # Python's exception, raised where it runs
        out: ast.expr = self.rw.copy(display.elts[-1])
        for k in range(n - 2, -1, -1):
            name = ast.Name(at, ast.Load())
            test = ast.BoolOp(ast.Or(), [ast.Compare(name, [ast.Eq()], [ast.Constant(k)]),
                                         ast.Compare(ast.Name(at, ast.Load()), [ast.Eq()], [ast.Constant(k - n)])])
            out = ast.IfExp(test, self.rw.copy(display.elts[k]), out)
        return self.rw.placed(out, node)
