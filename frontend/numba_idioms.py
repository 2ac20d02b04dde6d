"""Small idioms of numba and NumPy code written as the subset's forms (frontend/rewrite.py runs
these on the kernel's body and again once helpers are inlined; each is a no-op elsewhere):

- ``for i in reversed(range(a, b, s))`` (``s`` an integer constant, 1 when omitted) is the
  ``range`` that walks the same values backwards: ``range(b - 1, a - 1, -1)`` for ``s == 1``,
  ``range(a + ((b - a - 1) // s) * s, a - s, -s)`` for another positive ``s`` (an empty range
  stays empty), the mirror image for a negative one. ``reversed`` of anything else is left to
  the checker (refused).
- ``np.nan_to_num(x, copy=False, ...)`` as a statement, ``x`` a name, writes into ``x``:
  ``np.copyto(x, np.nan_to_num(x, ...))``; ``y = np.nan_to_num(x, copy=False, ...)`` is that
  statement, then ``y = x`` (NumPy returns ``x`` itself).
- ``if c: raise ValueError("...")`` (``IndexError``, ``AssertionError``; ``raise E`` alone too) is
  ``assert not c, ("ValueError", "...")``: checked where it runs, raising that exception (the
  asserts' run-time check); any other raise stays, for the checker to refuse.
- ``i, j = np.unravel_index(k, X.shape)`` (and ``return np.unravel_index(...)``, an item of a
  returned tuple too) is a check ``0 <= k < X.size`` (NumPy's ValueError, as a raise above) and
  the display of the indices.
- ``np.ediff1d(x)`` (no ``to_end``/``to_begin``) is ``x.ravel()[1:] - x.ravel()[:-1]``, as NumPy
  computes it.
- ``gy, gx = np.gradient(f)`` (one name per axis of an array argument; one spacing, or one per
  axis) is one ``np.gradient(f, axis=d)`` per name.
- ``H, xedges, yedges = np.histogram2d(x, y, bins=k)`` (``H = np.histogram2d(...)[0]``): the
  statements of frontend/histogram2d.py; other uses of np.histogram2d are refused by name.
- ``vals, counts = np.unique(a, return_counts=True)`` is ``vals = np.unique(a)`` and a loop
  counting, per value, the elements equal to it (NaN to NaN), int64 (``_unique_counts``);
  ``return_index=`` a loop finding each value's first position, ``return_inverse=`` a binary
  search per element of ``a`` over the values (fe35).
- ``np.vander(x, N).shape`` (``.shape[d]``) of a 1-d array argument is ``(x.shape[0], N)``.
- ``np.diagflat(v)`` (no ``k``) is ``np.diag(v.ravel())``, as NumPy defines it.
- ``np.roll(x, s)`` by an integer expression ``s`` of sizes and integer arguments (``s``,
  ``x.shape[0] // 2``; ``axis=`` a constant for a 2-d ``x``) is the gather
  ``x[(np.arange(n) - s) % n]`` along the axis (``_roll_by_argument``).
- ``np.insert(x, 0, v)`` / ``np.insert(x, len(x), v)`` of a 1-d array argument and a number is
  ``np.concatenate`` of ``x`` and ``np.full(1, v, dtype=x.dtype)`` (``_insert_end``).
- ``x.argsort(...)`` (a method of an array, not of a module) is ``np.argsort(x, ...)``.
- ``np.lexsort((k0, k1))`` (a tuple or list display of 1 to 3 keys, 1-d array arguments the body
  never binds again, the last primary) is a stable
  argsort by each key in turn: ``o = np.argsort(k0, kind='stable')``, then
  ``o[np.argsort(k1[o], kind='stable')]`` (each earlier order written out again where it is
  used), NumPy's order: NaN last, ties by position.
- ``n = e`` then ``if n < c: n = c`` (``n > c``) at the top level, ``e`` and ``c`` Python ints,
  is ``n = max(e, c)`` (``min``): one binding, whose value the call can compute where it is a size.
- ``np.frombuffer(b"...", dtype=...)`` of a bytes constant is the display of its values, a
  table read only (frontend/byte_tables.py).
- ``np.finfo(T).eps`` (``max``, ``min``, ``tiny``, ``smallest_normal``, ``resolution``,
  ``epsneg``) and ``np.iinfo(T).max`` / ``.min`` of a NumPy float or integer type
  (``np.float32``, ``float``, ``int``, a dtype string, or ``x.dtype`` of an array argument)
  are the constants NumPy gives: a NumPy scalar of the float type for ``finfo``, a Python
  ``int`` for ``iinfo``.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from typing import Any, Protocol

import numpy as np

from .byte_tables import byte_tables
from .checker import module_of
from .desugar import SHARED_SPACING, int_constant
from .histogram2d import histogram2d_stmts, is_histogram2d, refused
from .source import KernelSource, location_key, store_counts, walk
from .types import INTS

_UNIQUE_FLAGS = ("return_index", "return_inverse", "return_counts")  # NumPy's order of the results



#: the NumPy functions of ``_vector_arithmetic``'s weights (elementwise, one array in, one out)
_VECTOR_UFUNCS = frozenset(("abs", "absolute", "sqrt", "exp", "log", "log1p", "expm1", "square", "sin", "cos",
                            "tanh", "negative"))

class Rewriter(Protocol):
    """What these rewrites use of frontend.rewrite's Rewriter (which imports this module)."""

    source: Any
    globals: dict[str, Any]
    ranks: dict[str, int]
    dtypes: dict[str, Any]
    scalar_kinds: dict[str, Any]

    def numpy_alias(self) -> str: ...
    def origin(self, node: ast.AST) -> KernelSource | None: ...
    def mark(self, node: ast.AST, origin: KernelSource | None) -> None: ...
    def mark_one(self, node: ast.AST, origin: KernelSource | None) -> None: ...
    def copy(self, node: ast.expr) -> ast.expr: ...
    def placed(self, new: ast.expr, like: ast.AST) -> ast.expr: ...
    def fresh(self, name: str) -> str: ...
    def error(self, node: ast.AST, message: str, construct: str = "") -> Any: ...

_FINFO = ("eps", "epsneg", "max", "min", "tiny", "smallest_normal", "resolution")
_IINFO = ("max", "min")
_FLOATS = ("float32", "float64")


def numba_idioms(rw: Rewriter, body: list[ast.stmt], local: set[str]) -> list[ast.stmt]:
    body = byte_tables(rw, body, local)  # np.frombuffer(b"...", dtype=np.uint8): a constant table
    body = _clamped_bindings(rw, body, local)  # nc = int(L // rc); if nc < 1: nc = 1
    out: list[ast.stmt] = []
    stores = store_counts(body)
    idioms = _Idioms(rw, local, set(stores))
    idioms.inverses = _unique_inverses(body, stores, rw.globals)
    for stmt in body:
        _size_definitions(idioms, stmt, stores)  # (after the line that binds them: read later only)
        for made in _inverse_bincounts_named(rw, stmt, idioms.inverses) + [stmt]:
            new = idioms.visit(made)
            out.extend(new if isinstance(new, list) else [new])
    return out


def _clamped_bindings(rw: Rewriter, body: list[ast.stmt], local: set[str]) -> list[ast.stmt]:
    """``n = e`` then ``if n < c: n = c`` at the top level (``n > c``: the upper clamp; ``c > n``,
    ``c < n`` too) as one binding ``n = max(e, c)`` (``min``), where ``e`` and ``c`` are integers
    (``_integer``) and ``c`` does not read ``n``: Python's max keeps ``e`` unless ``c > e``, the if's
    own test, so the value is the same, and ``n`` is bound once (a size the call can compute)."""
    if "max" in local or "max" in rw.globals or "min" in local or "min" in rw.globals:
        return body
    out: list[ast.stmt] = []
    for stmt in body:
        last = out[-1] if out else None
        clamp = _clamp(stmt, last, rw) if isinstance(last, ast.Assign) else None
        if clamp is None:
            out.append(stmt)
            continue
        assert isinstance(last, ast.Assign)
        merged = ast.Call(ast.Name(clamp[0], ast.Load()), [last.value, clamp[1]], [])
        out[-1] = ast.copy_location(ast.Assign(last.targets, ast.copy_location(merged, last.value)), last)
    return out


def _clamp(stmt: ast.stmt, last: ast.Assign, rw: Rewriter) -> tuple[str, ast.expr] | None:
    """``("max", c)`` for ``if n < c: n = c`` after ``last``, ``n = e`` (``("min", c)`` for ``n >
    c``); None for anything else."""
    if not (len(last.targets) == 1 and isinstance(last.targets[0], ast.Name) and isinstance(stmt, ast.If)
            and not stmt.orelse and len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Assign)):
        return None
    name, assign, test = last.targets[0].id, stmt.body[0], stmt.test
    if not (len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name) and assign.targets[0].id == name
            and isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    c = assign.value
    sides = (test.left, test.comparators[0])
    op = type(test.ops[0])
    if _same(sides[0], ast.Name(name, ast.Load())) and _same(sides[1], c):
        kind = {ast.Lt: "max", ast.Gt: "min"}.get(op)
    elif _same(sides[1], ast.Name(name, ast.Load())) and _same(sides[0], c):
        kind = {ast.Gt: "max", ast.Lt: "min"}.get(op)
    else:
        return None
    if kind is None or any(isinstance(n, ast.Name) and n.id == name for n in walk(c)) \
            or not (_integer(last.value, rw) and _integer(c, rw)):
        return None
    return kind, c


def _same(a: ast.expr, b: ast.expr) -> bool:
    return ast.dump(a, annotate_fields=False, include_attributes=False).replace("Store()", "Load()") \
        == ast.dump(b, annotate_fields=False, include_attributes=False).replace("Store()", "Load()")


def _integer(node: ast.expr, rw: Rewriter) -> bool:
    """Whether ``node`` is a Python int whatever the data (so max/min keep Python's type): an
    integer constant, an int argument, ``X.shape[d]``, ``len(X)``, ``int(...)`` and ``+ - * // %``
    of those."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return node.id in rw.scalar_kinds and rw.scalar_kinds[node.id] == ("", "int")
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.value.value, ast.Name) and node.value.value.id in rw.ranks
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in ("int", "len") and len(node.args) == 1 \
            and not node.keywords and node.func.id not in rw.globals
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _integer(node.operand, rw)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
        return _integer(node.left, rw) and _integer(node.right, rw)
    return False


def _inverse_bincounts_named(rw: Rewriter, stmt: ast.stmt, inverses: dict[str, str]) -> list[ast.stmt]:
    """``mean = np.bincount(inv, weights=x) / np.bincount(inv)`` (a top-level assignment or
    return, ``inv`` the inverse of a top-level ``np.unique``): each such ``np.bincount`` inside
    the value, where the statement surely evaluates it (not under ``a if c else b``, ``and``/``or``,
    a lambda or a comprehension), bound to a fresh name first, in order (np47), which
    ``_inverse_bincount`` then makes an array of np.unique's length; ``stmt`` is changed in place."""
    if not inverses or not isinstance(stmt, (ast.Assign, ast.Return)) or stmt.value is None:
        return []
    found: list[tuple[ast.AST, str | tuple[str, int], ast.Call]] = []  # (parent, field or (field, index), call)

    def walk_value(parent: ast.AST) -> None:
        for field, value in ast.iter_fields(parent):
            for at, child in ([(field, value)] if isinstance(value, ast.AST) else
                              [((field, k), v) for k, v in enumerate(value)] if isinstance(value, list) else []):
                if not isinstance(child, ast.expr) or isinstance(
                        child, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.SetComp,
                                ast.DictComp)):
                    continue
                walk_value(child)
                if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                        and child.func.attr == "bincount" and module_of(child.func.value, rw.globals) == "np" \
                        and child.args and isinstance(child.args[0], ast.Name) and child.args[0].id in inverses:
                    found.append((parent, at, child))
    if isinstance(stmt.value, ast.Call) and isinstance(stmt, ast.Assign):  # r = np.bincount(inv): as it is
        walk_value(stmt.value)
    else:
        walk_value(stmt)
    made: list[ast.stmt] = []
    for parent, at, call in found:
        name = rw.fresh("bincount")
        made.append(ast.copy_location(ast.Assign([rw.placed(ast.Name(name, ast.Store()), call)], call), stmt))
        use = rw.placed(ast.Name(name, ast.Load()), call)
        if isinstance(at, tuple):
            getattr(parent, at[0])[at[1]] = use
        else:
            setattr(parent, at, use)
    return made


def _length_of_name(node: ast.expr | None, name: str) -> bool:
    """Whether ``node`` is ``len(name)``, ``name.shape[0]`` or ``name.size``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    elif isinstance(node, ast.Attribute) and node.attr == "size":
        node = node.value
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        node = node.value.value
    else:
        return False
    return isinstance(node, ast.Name) and node.id == name


def _unique_inverses(body: list[ast.stmt], stores: Counter[str], globals_: dict) -> dict[str, str]:
    """``inv -> uk`` for each top-level ``uk, inv = np.unique(x, return_inverse=True)`` whose two
    names are bound only there and ``inv`` never written in place (so its values stay the codes
    ``0 .. len(uk) - 1`` of ``x``'s elements, ``np.bincount(inv)``'s length ``len(uk)``)."""
    found: dict[str, str] = {}
    for stmt in body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                and len(stmt.targets[0].elts) == 2 and all(isinstance(e, ast.Name) for e in stmt.targets[0].elts)):
            continue
        call = stmt.value
        uk, inv = (e.id for e in stmt.targets[0].elts)  # type: ignore[attr-defined]
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "unique" \
                and module_of(call.func.value, globals_) == "np" and len(call.args) == 1 \
                and [(k.arg, getattr(k.value, "value", None)) for k in call.keywords] == [("return_inverse", True)] \
                and stores[uk] == stores[inv] == 1 and uk != inv and not _written_in_place(body, inv):
            found[inv] = uk
    return found


def _written_in_place(body: list[ast.stmt], name: str) -> bool:
    """Whether ``name``'s array may be written other than by binding the name: an element or
    slice store, a method call (``inv.sort()``), an ``out=``, or being passed to a function."""
    for n in (sub for stmt in body for sub in walk(stmt)):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name \
                and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name \
                and n.attr not in ("shape", "size", "ndim", "dtype"):
            return True
        if isinstance(n, ast.keyword) and n.arg == "out" and any(
                isinstance(v, ast.Name) and v.id == name for v in walk(n.value)):
            return True
        if isinstance(n, ast.Call) and not isinstance(n.func, ast.Attribute) and any(
                isinstance(a, ast.Name) and a.id == name for a in n.args):
            return True  # a user helper may write it (np.* calls are attributes)
    return False


def _size_definitions(idioms: _Idioms, stmt: ast.stmt, stores: Counter[str]) -> None:
    """``idioms.sizes`` gains the locals a top-level ``n = <size expression>`` (``n, m = A.shape``
    too) binds, each the only binding of its name: its expression over the arguments
    (``_Idioms.size_expression``), the same value wherever the body reads it after this line."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name) and stores[target.id] == 1:
        size = idioms.size_expression(value)
        if size is not None:
            idioms.sizes[target.id] = size
    elif isinstance(target, ast.Tuple) and isinstance(value, ast.Attribute) and value.attr == "shape" \
            and isinstance(value.value, ast.Name) and value.value.id not in idioms.stored \
            and idioms.rw.ranks.get(value.value.id) == len(target.elts):
        for d, t in enumerate(target.elts):
            if isinstance(t, ast.Name) and stores[t.id] == 1:
                idioms.sizes[t.id] = ast.parse(f"{value.value.id}.shape[{d}]", mode="eval").body


def _axis_of(axis: ast.expr, rank: int) -> int | None:
    """``axis`` (an integer constant, negative allowed) as a dimension of a ``rank``-d array."""
    d = int_constant(axis)
    return d % rank if d is not None and -rank <= d < rank else None


_SIZE_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


class _Idioms(ast.NodeTransformer):
    def __init__(self, rw: Rewriter, local: set[str], stored: set[str]) -> None:
        self.rw, self.local, self.stored = rw, local, stored  # stored: the names the body binds
        self.inverses: dict[str, str] = {}  # inv -> uk of a top-level uk, inv = np.unique(x, return_inverse=True)
        self.sizes: dict[str, ast.expr] = {}  # locals bound once to a size expression (_size_definitions)
        self.rolls: dict[int, str] = {}  # id of a gather _roll_by_argument wrote -> the array it rolls

    def size_expression(self, node: ast.expr) -> ast.expr | None:
        """``node`` as an integer expression affine in the arguments' sizes and integer arguments
        the body never binds (``x.shape[0] // 2 - s``, ``len(x)``, ``n + 1`` of a local
        ``n = x.shape[0]``; ``//`` and ``%`` by positive constants, ``*`` by a constant), its
        locals written out; None for anything else."""
        if isinstance(node, ast.Constant):
            return ast.Constant(node.value) if type(node.value) is int else None
        if isinstance(node, ast.Name):
            if node.id in self.sizes:
                return self.rw.copy(self.sizes[node.id])
            if node.id not in self.stored and self.rw.scalar_kinds.get(node.id) == ("", "int"):
                return ast.Name(node.id, ast.Load())
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.size_expression(node.operand)
            return None if operand is None else ast.UnaryOp(node.op, operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _SIZE_OPS):
            left, right = self.size_expression(node.left), self.size_expression(node.right)
            if left is None or right is None:
                return None
            by = int_constant(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and not (by is not None and by > 0):
                return None  # (Python's ZeroDivisionError for a size 0)
            if isinstance(node.op, ast.Mult) and by is None and int_constant(node.left) is None:
                return None
            return ast.BinOp(left, node.op, right)
        array = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            array, d = node.value.value, int_constant(node.slice)
        elif isinstance(node, ast.Call) and self._builtin(node.func, "len") and len(node.args) == 1 \
                and not node.keywords:
            array, d = node.args[0], 0
        if not (isinstance(array, ast.Name) and array.id not in self.stored and d is not None):
            return None
        rank = self.rw.ranks.get(array.id)
        if rank is None or not -rank <= d < rank:
            return None
        return ast.parse(f"{array.id}.shape[{d % rank}]", mode="eval").body

    def _builtin(self, node: ast.expr, name: str) -> bool:
        return isinstance(node, ast.Name) and node.id == name and name not in self.local \
            and name not in self.rw.globals

    def _np_call(self, node: ast.AST, name: str) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name \
            and module_of(node.func.value, self.rw.globals) == "np"

    def visit_FunctionDef(self, node: ast.FunctionDef):
        return node  # (a nested def is the checker's to refuse)

    def visit_Expr(self, node: ast.Expr):
        x = self._in_place(node.value)
        if x is not None:
            assert isinstance(node.value, ast.Call)
            return self._copyto(node.value, x, node)
        return self.generic_visit(node)

    def visit_Return(self, node: ast.Return):
        made = self._unravel(node.value, node) if node.value is not None else None
        if made is not None:
            check, display = made
            node.value = display
            return [check, node]
        if isinstance(node.value, ast.Tuple):  # return X.max(), np.unravel_index(X.argmax(), X.shape)
            checks = []
            for k, item in enumerate(node.value.elts):
                made = self._unravel(item, node)
                if made is not None:
                    checks.append(made[0])
                    node.value.elts[k] = made[1]
            if checks:
                return [*checks, self.generic_visit(node)]
        return self.generic_visit(node)

    def _unravel(self, call: ast.expr, like: ast.stmt) -> tuple[ast.Assert, ast.Tuple] | None:
        """``np.unravel_index(k, shape)`` (``shape`` ``X.shape`` of an array argument the body never
        binds again, or a tuple display) as a check that ``0 <= k < size`` (NumPy's ValueError) and
        the display of the indices, ``np.int64``s as NumPy's intp: ``k // (d1 * d2)``,
        ``k // d2 % d1``, ``k % d2`` (each divisor at least 1, so a call with an empty shape, which
        the check refuses, divides by nothing)."""
        if not (isinstance(call, ast.Call) and self._np_call(call, "unravel_index") and len(call.args) == 2
                and not call.keywords and "max" not in self.local and "max" not in self.rw.globals):
            return None
        k, shape = call.args
        if isinstance(shape, ast.Attribute) and shape.attr == "shape" and isinstance(shape.value, ast.Name) \
                and shape.value.id in self.rw.ranks and shape.value.id not in self.stored:
            dims: list[ast.expr] = [ast.Subscript(ast.Attribute(ast.Name(shape.value.id, ast.Load()), "shape",
                                                                ast.Load()), ast.Constant(d), ast.Load())
                                    for d in range(self.rw.ranks[shape.value.id])]
        elif isinstance(shape, ast.Tuple) and shape.elts and not any(isinstance(e, ast.Starred) for e in shape.elts):
            dims = list(shape.elts)
        else:
            return None
        np_name = self.rw.numpy_alias()

        def at_least_one(e: ast.expr) -> ast.expr:
            return ast.Call(ast.Name("max", ast.Load()), [self.rw.copy(e), ast.Constant(1)], [])

        def product(parts: list[ast.expr]) -> ast.expr:
            out: ast.expr = ast.Constant(1)
            for part in parts:
                out = ast.BinOp(out, ast.Mult(), at_least_one(part))
            return out

        def index() -> ast.expr:
            return ast.Call(ast.Attribute(ast.Name(np_name, ast.Load()), "int64", ast.Load()), [self.rw.copy(k)], [])
        items: list[ast.expr] = []
        for d in range(len(dims)):
            item: ast.expr = ast.BinOp(index(), ast.FloorDiv(), product(dims[d + 1:])) if d + 1 < len(dims) \
                else index()
            if d > 0:
                item = ast.BinOp(item, ast.Mod(), at_least_one(dims[d]))
            items.append(item)
        size: ast.expr = ast.Constant(1)
        for dim in dims:
            size = ast.BinOp(size, ast.Mult(), self.rw.copy(dim))
        test = ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()], [index(), size])
        check = ast.Assert(test, ast.Tuple([ast.Constant("ValueError"),
                                            ast.Constant("index is out of bounds for array (np.unravel_index)")],
                                           ast.Load()))
        display = ast.Tuple(items, ast.Load())
        self._located(display, call)
        self._located(check, call)
        ast.copy_location(check, like)
        self.rw.source.raises.add(location_key(check))
        return check, display

    def _gradients(self, node: ast.Assign) -> list[ast.stmt] | None:
        """``gy, gx = np.gradient(f)`` (``f`` an array argument of that rank the body never binds
        again; one spacing for all axes or, np45, one per axis, no ``axis=``): ``gy =
        np.gradient(f, axis=0)``, ``gx = np.gradient(f, axis=1)`` (``np.gradient(f, hy, axis=0)``
        ...), NumPy's arrays one per axis; None for anything else."""
        call, target = node.value, node.targets[0]
        if not (len(node.targets) == 1 and isinstance(target, (ast.Tuple, ast.List)) and isinstance(call, ast.Call)
                and self._np_call(call, "gradient") and len(call.args) in (1, 2, 1 + len(target.elts))
                and all(k.arg == "edge_order" for k in call.keywords)
                and all(isinstance(t, ast.Name) for t in target.elts)):
            return None
        f = call.args[0]
        if not (isinstance(f, ast.Name) and f.id in self.rw.ranks and f.id not in self.stored
                and self.rw.ranks[f.id] == len(target.elts) >= 2):
            return None
        names = {t.id for t in target.elts}  # type: ignore[attr-defined]
        if len(names) != len(target.elts) or any(n.id in names for a in call.args[1:] for n in walk(a)
                                                  if isinstance(n, ast.Name)):
            return None
        out: list[ast.stmt] = []
        for d, name in enumerate(target.elts):
            spacing = call.args[1:] if len(call.args) <= 2 else [call.args[1 + d]]
            # one spacing for every axis must be a scalar (NumPy's TypeError for one array of
            # coordinates): the lowering refuses coordinates in a call marked so
            shared = [ast.keyword(SHARED_SPACING, ast.Constant(True))] if len(call.args) == 2 else []
            one = ast.Call(call.func, [self.rw.copy(a) for a in [f, *spacing]],
                           [*(ast.keyword(k.arg, self.rw.copy(k.value)) for k in call.keywords),
                            ast.keyword("axis", ast.Constant(d)), *shared])
            assign = ast.Assign([ast.Name(name.id, ast.Store())], one)  # type: ignore[attr-defined]
            self._located(assign, node)
            ast.copy_location(assign, node)
            out.append(assign)
        return out

    def visit_Assign(self, node: ast.Assign):
        counted = histogram2d_stmts(self.rw, node)
        if counted is not None:  # H, xe, ye = np.histogram2d(x, y, bins=k): frontend/histogram2d.py
            out: list[ast.stmt] = []
            for stmt in counted:
                new = self.visit(stmt)
                out.extend(new if isinstance(new, list) else [new])
            return out
        gradients = self._gradients(node)
        if gradients is not None:
            return gradients
        counted_values = self._unique_counts(node)
        if counted_values is not None:
            return counted_values
        counted = self._inverse_bincount(node)
        if counted is not None:
            return counted
        made = self._unravel(node.value, node) if len(node.targets) == 1 else None
        if made is not None:
            check, display = made
            node.value = display
            return [check, node]
        x = self._in_place(node.value)
        if x is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assert isinstance(node.value, ast.Call)
            alias = ast.copy_location(ast.Assign([node.targets[0]], ast.copy_location(ast.Name(x.id, ast.Load()), x)),
                                      node)
            self.rw.mark(alias, self.rw.origin(node))
            return [self._copyto(node.value, x, node), alias]
        return self.generic_visit(node)

    def _unique_counts(self, node: ast.Assign) -> list[ast.stmt] | None:
        """``vals, idx, inv, counts = np.unique(a, return_index=True, return_inverse=True,
        return_counts=True)`` (any of the three keywords, each ``True`` or ``False``, the targets in
        NumPy's order; ``a`` a name, or an expression bound to a fresh name first): ``vals =
        np.unique(a)``, then loops over
        ``range(len(vals))``: per value the position of its first element (``return_index``,
        NumPy's stable sort keeps the first), the count of the elements equal to it
        (``return_counts``; NaN to NaN, as NumPy's ``equal_nan=True`` groups them), int64; and
        per element of ``a`` its value's position in ``vals`` (``return_inverse``), a binary
        search over the first ``len(vals)`` values, NaN after every number."""
        target, call = node.targets[0] if len(node.targets) == 1 else None, node.value
        if not (isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts)
                and isinstance(call, ast.Call) and self._np_call(call, "unique") and len(call.args) == 1
                and not isinstance(call.args[0], ast.Starred) and call.keywords
                and all(k.arg in _UNIQUE_FLAGS and isinstance(k.value, ast.Constant)
                        and type(k.value.value) is bool for k in call.keywords)
                and len({k.arg for k in call.keywords}) == len(call.keywords)):
            return None
        wanted = [f for f in _UNIQUE_FLAGS if any(k.arg == f and k.value.value for k in call.keywords)]  # type: ignore[attr-defined]
        if not wanted or len(target.elts) != 1 + len(wanted):
            return None
        names = [t.id for t in target.elts]  # type: ignore[attr-defined]
        np_name = self.rw.numpy_alias()
        # of an expression (np.unique(np.round(x, 1), return_inverse=True)): bound to a fresh name
        # first, which NumPy's one evaluation of it is
        bound = [] if isinstance(call.args[0], ast.Name) else \
            [ast.Assign([ast.Name(self.rw.fresh("unique_of"), ast.Store())], call.args[0])]
        a = bound[0].targets[0].id if bound else call.args[0].id  # type: ignore[attr-defined]
        if a in names or len(set(names)) != len(names) or self.rw.ranks.get(a, 1) != 1:
            return None
        vals, got = names[0], dict(zip(wanted, names[1:]))
        k, i, lo, hi, mid = (self.rw.fresh(f"unique_{v}") for v in ("k", "i", "lo", "hi", "mid"))
        same = f"(({a} == {vals}[{k}]) | (({a} != {a}) & ({vals}[{k}] != {vals}[{k}])))"
        text = f"{vals} = {np_name}.unique({a})\n"
        if "return_index" in got:
            text += (f"{got['return_index']} = {np_name}.zeros(len({vals}), dtype={np_name}.int64)\n"
                     f"for {k} in range(len({vals})):\n"
                     f"    {got['return_index']}[{k}] = {np_name}.argmax({same})\n")
        if "return_inverse" in got:
            inv = got["return_inverse"]
            text += (f"{inv} = {np_name}.zeros({a}.shape[0], dtype={np_name}.int64)\n"
                     f"for {i} in range({a}.shape[0]):\n"
                     f"    {lo} = 0\n"
                     f"    {hi} = len({vals})\n"
                     f"    while {lo} < {hi}:\n"
                     f"        {mid} = ({lo} + {hi}) // 2\n"
                     f"        if {vals}[{mid}] < {a}[{i}] or ({a}[{i}] != {a}[{i}] and {vals}[{mid}] == {vals}[{mid}]):\n"
                     f"            {lo} = {mid} + 1\n"
                     f"        else:\n"
                     f"            {hi} = {mid}\n"
                     f"    {inv}[{i}] = {lo}\n")
        if "return_counts" in got:
            text += (f"{got['return_counts']} = {np_name}.zeros(len({vals}), dtype={np_name}.int64)\n"
                     f"for {k} in range(len({vals})):\n"
                     f"    {got['return_counts']}[{k}] = {same}.sum()\n")
        made = bound + ast.parse(text).body
        own = {id(sub) for sub in walk(call.args[0])} if bound else set()  # the user's expression keeps its place
        for stmt in made:
            for sub in walk(stmt):
                if "lineno" in sub._attributes and id(sub) not in own:
                    ast.copy_location(sub, node)
            self.rw.mark(stmt, self.rw.origin(node))
        return made

    def _inverse_bincount(self, node: ast.Assign) -> list[ast.stmt] | None:
        """``r = np.bincount(inv, weights=w)`` of the inverse of ``uk, inv =
        np.unique(x, return_inverse=True)`` (the group-by's sums and counts; ``w`` a 1-d array
        name, ``minlength`` 0: an array of np.unique's length, which selection_loops then takes or
        refuses): ``inv``'s largest value plus one is ``len(uk)`` (0 where ``x`` is empty), so
        ``r = np.zeros(len(uk))`` (float64 with weights, else int64) and NumPy's
        sequential sums, ``np.add.at(r, inv, w)`` (or 1), after NumPy's check of ``w``'s length (and,
        with weights, a per-call refusal of an empty ``x``, whose bincount NumPy makes int64).
        None for anything else (the lowering's bincount rules, or its refusal)."""
        call = node.value
        if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(call, ast.Call)
                and self._np_call(call, "bincount") and len(call.args) <= 3
                and not any(isinstance(a, ast.Starred) for a in call.args)):
            return None
        given: dict[str, ast.expr] = dict(zip(("x", "weights", "minlength"), call.args))
        for k in call.keywords:
            if k.arg not in ("x", "weights", "minlength") or k.arg in given:
                return None
            given[k.arg] = k.value
        inv, weights, minlength = given.get("x"), given.get("weights"), given.get("minlength")
        if isinstance(weights, ast.Constant) and weights.value is None:
            weights = None
        least = 0 if minlength is None else int_constant(minlength)
        if isinstance(inv, ast.Name) and inv.id in self.inverses and _length_of_name(minlength, self.inverses[inv.id]):
            least = 0  # minlength=len(uk): the largest inverse is len(uk) - 1 already (np47)
        if not (isinstance(inv, ast.Name) and inv.id in self.inverses) or least != 0 \
                or weights is not None and not (isinstance(weights, ast.Name) and self.rw.ranks.get(weights.id) == 1
                                                or self._vector_arithmetic(weights)):
            return None
        np_, uk, r = self.rw.numpy_alias(), self.inverses[inv.id], node.targets[0].id
        span = self.rw.source.span(node)
        text = ""
        if weights is not None and not isinstance(weights, ast.Name):  # weights=vals * vals: evaluated first
            bound = self.rw.fresh("weights")
            text = f"{bound} = {ast.unparse(weights)}\n"
            weights = ast.Name(bound, ast.Load())
        empty = (f"{span.filename}:{span.line}: np.bincount() with weights of an empty array: NumPy returns an "
                 "int64 array there, the compiled kernel a float64 one")
        text += f"{r} = {np_}.zeros({uk}.shape[0], dtype={np_}.{'float64' if weights is not None else 'int64'})\n"
        if weights is not None:
            text += (f"if {weights.id}.shape[0] != {inv.id}.shape[0]:\n"
                     f"    raise ValueError(\"The weights and list don't have the same length.\")\n"
                     f"assert {inv.id}.shape[0] != 0, ('UnsupportedError', {empty!r})\n")
        text += f"{np_}.add.at({r}, {inv.id}, {weights.id if weights is not None else 1})\n"
        out: list[ast.stmt] = []
        for stmt in ast.parse(text).body:
            for sub in walk(stmt):
                if "lineno" in sub._attributes:
                    ast.copy_location(sub, node)
            self.rw.mark(stmt, self.rw.origin(node))
            if isinstance(stmt, ast.Assert):  # (its message names the error it raises)
                self.rw.source.raises.add(location_key(stmt))
            new = self.visit(stmt)  # (the length check: NumPy's ValueError where it runs)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def _vector_arithmetic(self, node: ast.expr) -> bool:
        """Whether ``node`` is arithmetic (``+ - * / **``, unary ``-``, ``_VECTOR_UFUNCS``) of
        numbers and array arguments, all 1-d, at least one: a 1-d array (``vals * vals``)."""
        arrays = 0
        funcs = {id(n.func) for n in walk(node) if isinstance(n, ast.Call)}
        for n in walk(node):
            if isinstance(n, ast.Attribute) and id(n) not in funcs:
                return False
            if isinstance(n, ast.Name):
                if self.rw.ranks.get(n.id) == 1:
                    arrays += 1
                elif n.id not in self.rw.scalar_kinds and module_of(n, self.rw.globals) != "np":
                    return False
            elif isinstance(n, ast.Call):
                if not (isinstance(n.func, ast.Attribute) and n.func.attr in _VECTOR_UFUNCS and not n.keywords
                        and module_of(n.func.value, self.rw.globals) == "np"):
                    return False
            elif not isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Attribute, ast.operator,
                                    ast.unaryop, ast.expr_context)) \
                    or isinstance(n, ast.BinOp) and not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div,
                                                                         ast.Pow)) \
                    or isinstance(n, ast.UnaryOp) and not isinstance(n.op, (ast.USub, ast.UAdd)) \
                    or isinstance(n, ast.Constant) and type(n.value) not in (int, float):
                return False
        return arrays > 0

    def _in_place(self, call: ast.expr) -> ast.Name | None:
        """``x`` of ``np.nan_to_num(x, copy=False, ...)``, a name that is not a scalar argument;
        None for anything else."""
        if not (isinstance(call, ast.Call) and self._np_call(call, "nan_to_num")) or len(call.args) > 2:
            return None
        copy_flag = [k.value for k in call.keywords if k.arg == "copy"] + call.args[1:]
        x = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "x"), None)
        if len(copy_flag) == 1 and isinstance(copy_flag[0], ast.Constant) and copy_flag[0].value is False \
                and isinstance(x, ast.Name) and x.id not in self.rw.scalar_kinds:
            return x
        return None

    def _copyto(self, call: ast.Call, x: ast.Name, like: ast.stmt) -> ast.Expr:
        value = ast.Call(call.func, [self.rw.copy(x)], [k for k in call.keywords if k.arg not in ("copy", "x")])
        alias = self.rw.numpy_alias()
        copyto = ast.Call(ast.Attribute(ast.Name(alias, ast.Load()), "copyto", ast.Load()), [self.rw.copy(x), value], [])
        stmt = ast.Expr(copyto)
        for sub in walk(stmt):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                ast.copy_location(sub, call)
        ast.copy_location(stmt, like)
        return stmt

    # ---- x.argsort() ------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if is_histogram2d(node, self.rw.globals):  # a form histogram2d_stmts did not write out
            raise refused(self.rw, node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "argsort" and module_of(func.value, self.rw.globals) is None \
                and not (isinstance(func.value, ast.Name) and func.value.id in self.rw.globals
                         and func.value.id not in self.local):
            ordered = ast.Call(ast.Attribute(ast.Name(self.rw.numpy_alias(), ast.Load()), "argsort", ast.Load()),
                               [func.value, *node.args], node.keywords)
            return self._located(ordered, node)
        if self._np_call(node, "ediff1d") and len(node.args) == 1 and all(
                k.arg in ("to_end", "to_begin") and isinstance(k.value, ast.Constant) and k.value.value is None
                for k in node.keywords):
            def flat(part: ast.Slice) -> ast.expr:
                ravel = ast.Call(ast.Attribute(self.rw.copy(node.args[0]), "ravel", ast.Load()), [], [])
                return ast.Subscript(ravel, part, ast.Load())
            diff = ast.BinOp(flat(ast.Slice(ast.Constant(1), None, None)), ast.Sub(),
                             flat(ast.Slice(None, ast.UnaryOp(ast.USub(), ast.Constant(1)), None)))
            return self._located(diff, node)
        rolled = self._roll_by_argument(node)
        if rolled is not None:
            return self._located(rolled, node)
        inserted = self._insert_end(node)
        if inserted is not None:
            return self._located(inserted, node)
        if self._np_call(node, "diagflat") and len(node.args) == 1 and not node.keywords:
            # np.diagflat(v): np.diag of v flattened (NumPy's own definition for k=0)
            ravel = ast.Call(ast.Attribute(node.args[0], "ravel", ast.Load()), [], [])
            made = ast.Call(ast.Attribute(ast.Name(self.rw.numpy_alias(), ast.Load()), "diag", ast.Load()), [ravel], [])
            return self._located(made, node)
        if self._np_call(node, "lexsort") and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], (ast.Tuple, ast.List)) and 1 <= len(node.args[0].elts) <= 3 \
                and all(isinstance(k, ast.Name) and self.rw.ranks.get(k.id) == 1 and k.id not in self.stored
                        for k in node.args[0].elts):  # 1-d array arguments: argsort sorts the whole key
            return self._located(self._lexsort(node.args[0].elts), node)
        return node

    def _lexsort(self, keys: list[ast.expr]) -> ast.expr:
        """``np.lexsort((k0, k1, ...))``: a stable argsort by each key in turn, the last primary."""
        def stable(tree: ast.expr) -> ast.expr:
            return ast.Call(ast.Attribute(ast.Name(self.rw.numpy_alias(), ast.Load()), "argsort", ast.Load()),
                            [tree], [ast.keyword("kind", ast.Constant("stable"))])
        order = stable(self.rw.copy(keys[0]))
        for key in keys[1:]:
            by_key = stable(ast.Subscript(self.rw.copy(key), self.rw.copy(order), ast.Load()))
            order = ast.Subscript(self.rw.copy(order), by_key, ast.Load())
        return order

    def _located(self, made: ast.AST, like: ast.AST) -> ast.AST:
        """``made`` with its new nodes (those without a location) at ``like``'s location."""
        for sub in walk(made):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                ast.copy_location(sub, like)
                self.rw.mark_one(sub, self.rw.origin(like))
        return made

    # ---- raise ValueError("...") ------------------------------------------------------------------
    def visit_If(self, node: ast.If):
        if len(node.body) == 1 and isinstance(node.body[0], ast.Raise) and not node.orelse:
            check = self._check(node.body[0], ast.UnaryOp(ast.Not(), node.test))
            if check is not None:
                return check
        return self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise):
        return self._check(node, ast.Constant(False)) or node

    def _check(self, node: ast.Raise, test: ast.expr) -> ast.Assert | None:
        """``raise ValueError("...")`` (IndexError, AssertionError; the class or a call of it with
        one string literal or none) as an assert of ``test`` that raises it where it runs; None
        for any other raise (the checker refuses it)."""
        exc = node.exc
        call = exc if isinstance(exc, ast.Call) else None
        name = call.func if call is not None else exc
        if node.cause is not None or not isinstance(name, ast.Name) \
                or not any(self._builtin(name, e) for e in ("ValueError", "IndexError", "AssertionError")):
            return None
        text = ""
        if call is not None:
            if call.keywords or len(call.args) > 1 or call.args and not (
                    isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                return None
            text = call.args[0].value if call.args else ""  # type: ignore[attr-defined]
        msg: ast.expr = ast.Constant(text) if name.id == "AssertionError" \
            else ast.Tuple([ast.Constant(name.id), ast.Constant(text)], ast.Load())
        check = ast.Assert(test, msg)
        for sub in walk(check):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                ast.copy_location(sub, node)
        ast.copy_location(check, node)
        self.rw.mark(check, self.rw.origin(node))
        self.rw.source.raises.add(location_key(check))
        return check

    # ---- reversed(range(...)) ---------------------------------------------------------------------
    def visit_For(self, node: ast.For):
        it = node.iter
        if isinstance(it, ast.Call) and self._builtin(it.func, "reversed") and len(it.args) == 1 \
                and not it.keywords and isinstance(it.args[0], ast.Call) and self._builtin(it.args[0].func, "range") \
                and not it.args[0].keywords and 1 <= len(it.args[0].args) <= 3:
            walked = self._reversed(it.args[0])
            if walked is not None:
                node.iter = self.rw.placed(walked, it)
        return self.generic_visit(node)

    def _reversed(self, rng: ast.Call) -> ast.Call | None:
        args = list(rng.args)
        if any(isinstance(a, ast.Starred) for a in args):
            return None
        start = args[0] if len(args) >= 2 else ast.Constant(0)
        stop = args[1] if len(args) >= 2 else args[0]
        step = int_constant(args[2]) if len(args) == 3 else 1
        if step is None or step == 0:
            return None  # (a zero step: Python's ValueError, the checker's to refuse)

        def c(v: int) -> ast.expr:
            return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))

        def add(a: ast.expr, v: int) -> ast.expr:
            if v == 0:
                return self.rw.copy(a)
            return ast.BinOp(self.rw.copy(a), ast.Add() if v > 0 else ast.Sub(), ast.Constant(abs(v)))

        if step == 1:
            first = add(stop, -1)
        elif step == -1:
            first = add(stop, 1)
        else:  # start +- ((|stop - start| - 1) // |step|) * |step|: the last value Python's range reaches
            span = ast.BinOp(ast.BinOp(self.rw.copy(stop), ast.Sub(), self.rw.copy(start)) if step > 0
                             else ast.BinOp(self.rw.copy(start), ast.Sub(), self.rw.copy(stop)),
                             ast.Sub(), ast.Constant(1))
            count = ast.BinOp(span, ast.FloorDiv(), ast.Constant(abs(step)))
            first = ast.BinOp(self.rw.copy(start), ast.Add() if step > 0 else ast.Sub(),
                              ast.BinOp(count, ast.Mult(), ast.Constant(abs(step))))
        call = ast.Call(ast.Name("range", ast.Load()), [first, add(start, -step), c(-step)], [])
        return call

    # ---- np.finfo / np.iinfo ----------------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute):
        base = node.value
        if isinstance(node.ctx, ast.Load) and isinstance(base, ast.Call) and len(base.args) == 1 \
                and not base.keywords and (self._np_call(base, "finfo") or self._np_call(base, "iinfo")):
            kind = base.func.attr  # type: ignore[attr-defined]
            dtype = self._dtype(base.args[0])
            if kind == "finfo" and dtype in _FLOATS and node.attr in _FINFO:
                value = getattr(np.finfo(dtype), node.attr)
                alias = self.rw.numpy_alias()
                made = ast.Call(ast.Attribute(ast.Name(alias, ast.Load()), dtype, ast.Load()),
                                [ast.Constant(float(value))], [])
                return self.rw.placed(made, node)
            if kind == "iinfo" and dtype in INTS and node.attr in _IINFO:
                return self.rw.placed(ast.Constant(int(getattr(np.iinfo(dtype), node.attr))), node)
        if isinstance(node.ctx, ast.Load) and node.attr == "shape" and self._np_call(base, "vander"):
            shape = self._vander_shape(base)  # type: ignore[arg-type]
            if shape is not None:
                return self.rw.placed(shape, node)
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript):
        base = node.value
        if isinstance(node.ctx, ast.Load) and isinstance(base, ast.Attribute) and base.attr == "shape" \
                and self._np_call(base.value, "vander") and isinstance(node.slice, ast.Constant) \
                and node.slice.value in (0, 1, -1, -2) and type(node.slice.value) is int:
            shape = self._vander_shape(base.value)  # type: ignore[arg-type]
            if isinstance(shape, ast.Tuple):  # np.vander(x, 3).shape[1]: that extent
                return self.rw.placed(shape.elts[node.slice.value], node)
        return self.generic_visit(node)

    def _roll_by_argument(self, call: ast.Call) -> ast.expr | None:
        """``np.roll(x, s)`` / ``np.roll(x, s, axis=d)`` with ``s`` an integer expression of sizes
        and integer arguments (``x.shape[0] // 2``, ``s``; ``size_expression``; a constant shift is
        array_idioms' two affine pieces), ``x`` a 1-d array argument (2-d with a constant ``axis``)
        or a roll of one: the gather ``x[(np.arange(n) - s) % n]`` along the axis, element ``k``
        being ``x``'s ``(k - s) mod n`` as NumPy's (Python's ``%``: any sign, any size).  Tuples
        (``shift=(h, w), axis=(0, 1)``, or one shift for several axes) roll one pair after another,
        as NumPy pairs them.  None for anything else."""
        if not self._np_call(call, "roll") or len(call.args) > 3:
            return None
        given = dict(zip(("a", "shift", "axis"), call.args))
        for k in call.keywords:
            if k.arg not in ("a", "shift", "axis") or k.arg in given:
                return None
            given[k.arg] = k.value
        x, shift, axis = given.get("a"), given.get("shift"), given.get("axis")
        base = self._shape_source(x)
        if base is None or shift is None or not any(isinstance(n, ast.Name) for n in walk(shift)):
            return None  # (a constant shift: array_idioms' two affine pieces)
        rank = self.rw.ranks[base]
        shifts = shift.elts if isinstance(shift, ast.Tuple) else [shift]
        if axis is None or isinstance(axis, ast.Constant) and axis.value is None:
            if rank != 1 or isinstance(shift, ast.Tuple):
                return None  # (NumPy rolls the flattened array)
            axes: list[int | None] = [0]
        else:
            axes = [_axis_of(a, rank) for a in (axis.elts if isinstance(axis, ast.Tuple) else [axis])]
        if isinstance(shift, ast.Tuple) and len(shifts) != len(axes):
            return None
        by = [self.size_expression(s) for s in shifts]
        rolled: ast.expr = x  # type: ignore[assignment]
        for b, d in zip(by * len(axes) if len(by) == 1 else by, axes):
            if b is None or d is None:
                return None
            np_, n = self.rw.numpy_alias(), f"{base}.shape[{d}]"
            index = ast.parse(f"({np_}.arange({n}) - ({ast.unparse(b)})) % {n}", mode="eval").body
            rolled = ast.Subscript(rolled, ast.Tuple([ast.Slice()] * d + [index], ast.Load()) if d else index,
                                   ast.Load())
        self.rolls[id(rolled)] = base
        return rolled

    def _shape_source(self, x: ast.expr | None) -> str | None:
        """The 1-d or 2-d array argument (never bound again) whose shape ``x`` has: the argument
        itself, a roll of it this pass wrote as a gather, or an ``np.roll`` call of either."""
        if isinstance(x, ast.Name):
            return x.id if x.id not in self.stored and self.rw.ranks.get(x.id) in (1, 2) else None
        if x is not None and id(x) in self.rolls:
            return self.rolls[id(x)]
        if isinstance(x, ast.Call) and self._np_call(x, "roll") and x.args:
            return self._shape_source(x.args[0])
        return None

    def _insert_end(self, call: ast.Call) -> ast.expr | None:
        """``np.insert(x, 0, v)`` (``np.insert(x, len(x), v)``; ``x.shape[0]``, ``x.size``) of a 1-d
        array argument ``x`` and a number ``v`` (a constant, or a scalar argument of a float ``x``):
        ``np.concatenate((np.full(1, v, dtype=x.dtype), x))`` (``x`` first for the end), NumPy's
        value cast to ``x``'s dtype as np.insert casts it; None for anything else."""
        if not (self._np_call(call, "insert") and len(call.args) == 3 and not call.keywords):
            return None
        x, at, v = call.args
        if not (isinstance(x, ast.Name) and self.rw.ranks.get(x.id) == 1 and x.id not in self.stored):
            return None
        dtype = self.rw.dtypes.get(x.id)
        number = v.operand if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub) else v
        if isinstance(number, ast.Constant) and type(number.value) in (int, float, bool):
            if isinstance(number.value, float) and dtype not in ("float64", "float32"):
                return None  # (NumPy casts, and raises for NaN; left to the refusal)
            value = float(number.value if number is v else -number.value)  # type: ignore[arg-type, operator]
            if dtype in INTS and not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
                return None  # (NumPy's OverflowError)
        elif not (isinstance(v, ast.Name) and v.id in self.rw.scalar_kinds and v.id not in self.stored
                  and dtype == "float64"):
            return None
        first = isinstance(at, ast.Constant) and type(at.value) is int and at.value == 0
        last = (isinstance(at, ast.Call) and isinstance(at.func, ast.Name) and at.func.id == "len" and len(at.args) == 1
                and isinstance(at.args[0], ast.Name) and at.args[0].id == x.id and "len" not in self.local) \
            or (isinstance(at, ast.Attribute) and at.attr == "size" and isinstance(at.value, ast.Name)
                and at.value.id == x.id) \
            or (isinstance(at, ast.Subscript) and isinstance(at.value, ast.Attribute) and at.value.attr == "shape"
                and isinstance(at.value.value, ast.Name) and at.value.value.id == x.id
                and isinstance(at.slice, ast.Constant) and at.slice.value == 0)
        if not (first or last):
            return None
        np_ = self.rw.numpy_alias()
        one = ast.parse(f"{np_}.full(1, 0, dtype={x.id}.dtype)", mode="eval").body
        one.args[1] = v  # type: ignore[attr-defined]
        parts = [one, x] if first else [x, one]
        return ast.Call(ast.Attribute(ast.Name(np_, ast.Load()), "concatenate", ast.Load()),
                        [ast.Tuple(parts, ast.Load())], [])

    def _vander_shape(self, call: ast.Call) -> ast.expr | None:
        """``np.vander(x, N).shape`` (``N`` omitted, ``None`` or a constant ``>= 0``; ``x`` a 1-d
        array argument): ``(x.shape[0], N)``, ``N`` being ``len(x)`` where it is omitted."""
        given = dict(zip(("x", "N", "increasing"), call.args)) if len(call.args) <= 3 else None
        if given is None:
            return None
        for k in call.keywords:
            if k.arg not in ("x", "N", "increasing") or k.arg in given:
                return None
            given[k.arg] = k.value
        x, n = given.get("x"), given.get("N")
        if not (isinstance(x, ast.Name) and self.rw.ranks.get(x.id) == 1 and x.id not in self.stored):
            return None
        rows = ast.parse(f"{x.id}.shape[0]", mode="eval").body
        if n is None or isinstance(n, ast.Constant) and n.value is None:
            cols: ast.expr = ast.parse(f"{x.id}.shape[0]", mode="eval").body
        elif isinstance(n, ast.Constant) and type(n.value) is int and n.value >= 0:
            cols = ast.Constant(n.value)
        else:
            return None
        return ast.Tuple([rows, cols], ast.Load())

    def _dtype(self, node: ast.expr) -> str | None:
        """The dtype name ``node`` spells: ``np.float32``, ``float``, ``'int32'``, ``x.dtype``."""
        if isinstance(node, ast.Attribute) and module_of(node.value, self.rw.globals) == "np":
            obj = getattr(np, node.attr, None)
            if obj is None:
                return None
        elif isinstance(node, ast.Name) and node.id in ("float", "int") and node.id not in self.local \
                and node.id not in self.rw.globals:
            obj = getattr(builtins, node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            obj = node.value
        elif isinstance(node, ast.Attribute) and node.attr == "dtype" and isinstance(node.value, ast.Name) \
                and node.value.id in self.rw.dtypes and node.value.id not in self.stored:
            return self.rw.dtypes[node.value.id]
        else:
            return None
        try:
            return np.dtype(obj).name  # type: ignore[call-overload]
        except TypeError:
            return None
