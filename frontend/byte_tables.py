"""``np.frombuffer`` of a bytes literal: a constant lookup table (fe48).

numba code spells small tables as bytes, ``alphabet = np.frombuffer(b"ABC...", dtype=np.uint8)``
then ``out[j] = alphabet[v & 63]``.  The buffer is a constant, so NumPy's array is known when the
kernel compiles: the call becomes the display ``np.array([65, 66, ...], dtype=np.uint8)`` of the
same values and dtype (``np.frombuffer`` itself computes them, with the call's ``dtype``,
``count`` and ``offset``; its default dtype is float64).  The buffer is a ``bytes`` constant or a
module-level name bound to one.

NumPy's array is read-only (it shares the bytes object's memory), so a write raises ValueError in
Python.  To keep that true without tracking views, the table must be bound once, by name, and read
only through elements (``t[i]``, ``t[idx]``), ``len(t)``, ``t.shape``/``t.size``/``t.ndim``/
``t.dtype``, arithmetic and comparisons of ``t``, ``t.copy()``/``t.astype(...)`` and ``for v in
t``; used in place (``np.frombuffer(b"...", dtype=np.uint8)[k]``) it may only be indexed.  A table
passed to a user helper is left as the call until the helper is inlined (the rewrite runs again
then, on the helper's uses too).  Any other
use (a slice, which is a read-only view; a store; passing it to a function) is refused at the use.
"""

from __future__ import annotations

import ast
import builtins
import types
from typing import Any, Protocol

import numpy as np

from .checker import module_of
from .source import store_counts, walk

_ATTRIBUTES = frozenset(("shape", "size", "ndim", "dtype"))
_METHODS = frozenset(("copy", "astype"))


class Rewriter(Protocol):
    """What this rewrite uses of frontend.rewrite's Rewriter."""

    globals: dict[str, Any]

    def numpy_alias(self) -> str: ...
    def placed(self, new: ast.expr, like: ast.AST) -> ast.expr: ...
    def error(self, node: ast.AST, message: str, construct: str = "") -> Any: ...


def byte_tables(rw: Rewriter, body: list[ast.stmt], local: set[str]) -> list[ast.stmt]:
    """``body`` with each ``np.frombuffer`` of a bytes constant written as the display of its
    values (see the module's docstring); a no-op where there is none."""
    calls = [n for stmt in body for n in walk(stmt) if isinstance(n, ast.Call) and _is_frombuffer(n, rw.globals)]
    if not calls:
        return body
    parents = {id(child): node for stmt in body for node in walk(stmt) for child in ast.iter_child_nodes(node)}
    stores = store_counts(body)
    displays: dict[int, ast.expr] = {}
    for call in calls:
        displays[id(call)] = _display(rw, call, _values(rw, call, local))
        parent = parents.get(id(call))
        if isinstance(parent, ast.Subscript) and parent.value is call and isinstance(parent.ctx, ast.Load) \
                and not _is_view(parent.slice):
            continue
        if _helper_argument(call, parents, rw.globals):
            del displays[id(call)]  # looked at again once the helper is inlined
            continue
        if not (isinstance(parent, ast.Assign) and parent.value is call and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)):
            raise _read_only(rw, call, "np.frombuffer(...) here")
        name = parent.targets[0].id
        if stores[name] != 1:
            raise rw.error(parent.targets[0], f"{name!r} is bound to np.frombuffer of a bytes constant (a read-only "
                           "table) and bound again elsewhere; give the table a name of its own",
                           "np.frombuffer table bound again")
        uses = [node for stmt in body for node in walk(stmt)
                if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)]
        if any(_helper_argument(node, parents, rw.globals) for node in uses):
            del displays[id(call)]  # t passed to a helper: looked at again once it is inlined
            continue
        for node in uses:
            if not _read(node, parents):
                raise _read_only(rw, parents.get(id(node), node), repr(name))
    return [_Replace(rw, displays).visit(stmt) for stmt in body]


def _helper_argument(node: ast.expr, parents: dict[int, ast.AST], globals_: dict) -> bool:
    """Whether ``node`` is an argument of a call of a user helper (a module-level Python function
    or numba dispatcher), which frontend.rewrite inlines before this rewrite runs again."""
    call = parents.get(id(node))
    if not (isinstance(call, ast.Call) and node in call.args and isinstance(call.func, ast.Name)):
        return False
    helper = globals_.get(call.func.id)
    return isinstance(getattr(helper, "py_func", helper), types.FunctionType)


def _is_frombuffer(node: ast.AST, globals_: dict) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "frombuffer" \
        and module_of(node.func.value, globals_) == "np"


def _values(rw: Rewriter, call: ast.Call, local: set[str]) -> np.ndarray:
    """NumPy's array for ``call``, computed now; refused where an argument is not a constant."""
    given: dict[str, ast.expr] = dict(zip(("buffer", "dtype", "count", "offset"), call.args))
    given.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    if len(call.args) > 4 or any(k.arg is None for k in call.keywords) \
            or set(given) - {"buffer", "dtype", "count", "offset"}:
        raise rw.error(call, "np.frombuffer with arguments other than buffer, dtype, count and offset",
                       "np.frombuffer")
    buffer = _bytes(rw, given.get("buffer"), local)
    dtype = _dtype(rw, given.get("dtype"), local)
    ints = [given.get(k) for k in ("count", "offset")]
    count = -1 if ints[0] is None else _int(ints[0])
    offset = 0 if ints[1] is None else _int(ints[1])
    if buffer is None or dtype is None or count is None or offset is None:
        raise rw.error(call, "np.frombuffer of something other than a bytes constant (a literal or a module-level "
                       "name bound to one) with a constant dtype, count and offset; a constant table is "
                       "supported", "np.frombuffer")
    if dtype.kind not in "biuf" or not dtype.isnative:
        raise rw.error(call, f"np.frombuffer with dtype {dtype}: tables of bool, integer and float dtypes in the "
                       "machine's byte order are supported", "np.frombuffer dtype")
    try:
        values = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset)
    except ValueError as exc:  # Python raises it at this line: say so rather than run
        raise rw.error(call, f"np.frombuffer raises ValueError here ({exc})", "np.frombuffer") from exc
    if values.size == 0 or (dtype.kind == "f" and not np.isfinite(values).all()) \
            or (dtype.kind == "u" and int(values.max()) > np.iinfo(np.int64).max):
        raise rw.error(call, "np.frombuffer giving an empty table, NaN or infinity, or integers beyond int64: "
                       "write the table as np.array([...], dtype=...)", "np.frombuffer values")
    return values


def _bytes(rw: Rewriter, node: ast.expr | None, local: set[str]) -> bytes | None:
    if isinstance(node, ast.Constant) and type(node.value) is bytes:
        return node.value
    if isinstance(node, ast.Name) and node.id not in local and type(rw.globals.get(node.id)) is bytes:
        return rw.globals[node.id]
    return None


def _dtype(rw: Rewriter, node: ast.expr | None, local: set[str]) -> np.dtype | None:
    """The dtype ``node`` spells (``np.uint8``, ``'u1'``, ``int``; float64 when omitted)."""
    if node is None:
        return np.dtype(np.float64)
    obj: object
    if isinstance(node, ast.Attribute) and module_of(node.value, rw.globals) == "np":
        obj = getattr(np, node.attr, None)
    elif isinstance(node, ast.Name) and node.id in ("float", "int", "bool") and node.id not in local \
            and node.id not in rw.globals:
        obj = getattr(builtins, node.id)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        obj = node.value
    else:
        return None
    try:
        return np.dtype(obj)  # type: ignore[call-overload]
    except TypeError:
        return None


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _display(rw: Rewriter, call: ast.Call, values: np.ndarray) -> ast.expr:
    """``np.array([v0, v1, ...], dtype=np.<dtype>)`` at ``call``'s location."""
    kind = {"b": bool, "i": int, "u": int, "f": float}[values.dtype.kind]
    items: list[ast.expr] = [ast.Constant(kind(v)) for v in values.tolist()]
    alias = rw.numpy_alias()
    made = ast.Call(ast.Attribute(ast.Name(alias, ast.Load()), "array", ast.Load()), [ast.List(items, ast.Load())],
                    [ast.keyword("dtype", ast.Attribute(ast.Name(alias, ast.Load()), values.dtype.name, ast.Load()))])
    return rw.placed(made, call)


def _is_view(index: ast.expr) -> bool:
    """Whether indexing by ``index`` may give a view of the table (a slice, ``...``, ``None``)."""
    return any(isinstance(n, ast.Slice) or (isinstance(n, ast.Constant) and (n.value is None or n.value is ...))
               or isinstance(n, ast.Tuple) for n in [index, *ast.iter_child_nodes(index)])


def _read(node: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """Whether this use of a table's name only reads it (the module's docstring's forms)."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Subscript):
        return parent.value is node and isinstance(parent.ctx, ast.Load) and not _is_view(parent.slice)
    if isinstance(parent, ast.Attribute):
        call = parents.get(id(parent))
        return parent.attr in _ATTRIBUTES or (parent.attr in _METHODS and isinstance(call, ast.Call)
                                              and call.func is parent)
    if isinstance(parent, ast.Call):
        return isinstance(parent.func, ast.Name) and parent.func.id == "len" and parent.args == [node]
    if isinstance(parent, ast.For):
        return parent.iter is node
    return isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare))


def _read_only(rw: Rewriter, node: ast.AST, what: str) -> Any:
    return rw.error(node, f"{what} is np.frombuffer of a bytes constant, a read-only array in NumPy (a write "
                    "raises ValueError); polyfuse reads such a table as a constant: bind it to a name once and "
                    "read its elements (t[i]), len(t), t.shape, arithmetic of t, t.copy(), also in a helper it is "
                    "passed to; a store, a slice or passing it to anything else is refused", "np.frombuffer table")


class _Replace(ast.NodeTransformer):
    def __init__(self, rw: Rewriter, displays: dict[int, ast.expr]) -> None:
        self.rw, self.displays = rw, displays

    def visit_Call(self, node: ast.Call):
        made = self.displays.get(id(node))
        return made if made is not None else self.generic_visit(node)
