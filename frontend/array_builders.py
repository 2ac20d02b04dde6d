"""NumPy calls that present an array another way or build one from a vector, lowered as views,
formulas and loops of the operations ``frontend.arrays`` already has (part of
``frontend.array_idioms``, fe34):

- ``np.broadcast_to(x, shape)``: a view of ``x`` (trailing axes aligned, an axis of extent 1
  repeated), as NumPy's; its extents must equal ``x``'s where ``x``'s are not the constant 1
  (assumed and checked per call, a ValueError as NumPy's).  NumPy's view is read-only, so a name
  bound to one that some statement writes into is refused (NumPy raises ValueError there).
- ``np.ascontiguousarray(x)`` / ``np.asfortranarray(x)`` (``dtype=`` allowed): ``x`` itself, as
  ``np.asarray`` (for ``asfortranarray`` of two or more axes a copy, as NumPy makes of a C-order
  array); with a ``dtype=`` other than ``x``'s, ``x.astype(dtype)``.  NumPy returns ``x`` or a
  copy depending on ``x``'s memory layout, so where the two could differ (the result bound to a
  name written in place, or ``x`` written in place anywhere) the call is refused, naming
  ``x.copy()`` / ``x`` as what to write.
- ``np.nanargmax(a, axis=None, keepdims=False)`` / ``np.nanargmin``: NumPy's own code, the
  ValueError *All-NaN slice encountered* where every element of a slice is NaN (raised where
  the call runs), then ``np.argmax`` of ``a`` with NaNs replaced by -inf (+inf for argmin); of
  integer and bool arrays ``np.argmax`` / ``np.argmin`` itself.
- ``np.vander(x, N=None, increasing=False)`` of a 1-d ``x``: NumPy's loop, column 0 (the last,
  unless ``increasing``) ones, each next column the previous one times ``x`` converted to the
  result dtype ``np.promote_types(x.dtype, int)`` (NumPy's ``multiply.accumulate``, so the
  powers are its repeated products, not ``**``).
- ``np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=None)``: the view NumPy
  makes, each window size ``w`` (a size, a tuple of them, ``W.shape[2:]``) along its axis (all
  axes in order for ``axis=None``, else integer constants, one per window): that axis of extent
  ``n - w + 1`` and a new trailing axis of extent ``w``, element ``[..., i, ..., j]`` =
  ``x[..., i + j, ...]`` (the convolution's ``sliding_window_view(X, Wt.shape[2:], axis=(2, 3))``);
  each ``w`` in ``[0, n]`` (assumed and checked per call: NumPy raises ValueError).  NumPy's view
  is read-only: a name bound to it that some statement writes is refused.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from .array_formulas import _given, _np, _placed, nan_operand
from .arrays import (
    _VIEW_CALLS,
    NP_NAME,
    Lowering,
    Sym,
    View,
    _bool_const,
    _indexer,
    _int_const,
    _is_none,
    const,
    sym_of,
    value_error,
)
from .extent_facts import is_affine
from .source import walk
from .types import VType

BUILDERS = frozenset(("broadcast_to", "ascontiguousarray", "asfortranarray", "nanargmax", "nanargmin", "vander",
                      "sliding_window_view"))
_VIEWS = _VIEW_CALLS | {"ravel", "view", "swapaxes", "moveaxis", "diagonal", "squeeze"}
_SUPPORTED = ("float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8",
              "bool", "complex64", "complex128")


def builder_value(lw: Lowering, node: ast.Call, name: str) -> View | None:
    """The value of ``np.<name>(...)`` for a name in BUILDERS (None: a scalar operand, for the
    scalar rules to decide)."""
    return {"broadcast_to": _broadcast_to, "ascontiguousarray": _as_layout, "asfortranarray": _as_layout,
            "nanargmax": _nan_arg, "nanargmin": _nan_arg, "vander": _vander,
            "sliding_window_view": _window}[name](lw, node, name)


def names_window_view(node: ast.expr, globals_: dict) -> bool:
    """Whether ``node`` (a call's function) is ``np.lib.stride_tricks.sliding_window_view`` (by
    that path, or a name the kernel's globals bind to it)."""
    path: list[str] = []
    while isinstance(node, ast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in globals_:
        return False
    found = globals_[node.id]
    for attr in reversed(path):
        found = getattr(found, attr, None)
    return found is np.lib.stride_tricks.sliding_window_view


def _window(lw: Lowering, node: ast.Call, name: str) -> View | None:
    given = _given(lw, node, name, ("x", "window_shape", "axis"), ("subok", "writeable"))
    if "window_shape" not in given:
        raise lw.error(node, "sliding_window_view() needs a window_shape", name)
    for flag in ("subok", "writeable"):
        if flag in given and _bool_const(given[flag]) is not False:
            raise lw.error(given[flag], f"sliding_window_view() with {flag}= other than False", name)
    x = lw.value(given["x"])
    windows = _window_sizes(lw, given["window_shape"])
    axes = _window_axes(given.get("axis"), x.rank, len(windows) if windows is not None else 0)
    if x.rank == 0 or windows is None or axes is None:
        raise lw.error(node, "sliding_window_view(x, window_shape, axis=) is supported with a window of integer "
                       "sizes (a size, a tuple of them or W.shape[k:]) and axis= None (one window per axis) or "
                       "integer constants, one per window", name)
    for axis, w in zip(axes, windows):
        n = x.extents[axis]
        if not lw.require(f"{w.text} >= 0") or not lw.require(f"{n.text} >= {w.text}"):
            raise lw.error(given["window_shape"], "sliding_window_view() window: a size of at most the axis' "
                           "extent (NumPy raises ValueError for a larger one)", name)
    target = _bound_name(lw, node)
    written = _written_group(lw, target)
    if written is not None:
        raise lw.error(node, f"a write into {written!r}, bound to sliding_window_view() or a view of it: NumPy's "
                       f"result is a read-only view (the write raises ValueError); bind a copy ({target} = "
                       "sliding_window_view(...).copy())", name)
    extents = list(x.extents)
    for axis, w in zip(axes, windows):
        extents[axis] = extents[axis] - w + const(1)
    rank = x.rank

    def element(idx):
        moved = list(idx[:rank])
        for k, axis in enumerate(axes):  # the k-th window axis moves along its axis of x
            moved[axis] = moved[axis] + idx[rank + k]
        return x.element(tuple(moved))

    lw.changed = True
    return View(tuple(extents) + tuple(windows), x.vtype, element, x.base)


def _window_sizes(lw: Lowering, node: ast.expr) -> list[Sym] | None:
    """sliding_window_view's window_shape as sizes: one integer expression, a tuple of them or a
    shape (``W.shape[2:]``), each affine in the sizes (or a size the call computes)."""
    if isinstance(node, ast.Tuple) or isinstance(node, ast.Attribute) and node.attr == "shape" \
            or isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
            and node.value.attr == "shape" and isinstance(node.slice, ast.Slice):
        found = list(lw.shape_of(node))
    else:
        value = lw.value(node)
        if value.rank or not value.vtype.dtype.startswith(("int", "uint")):
            return None
        found = [sym_of(node)]
        if not (found[0].is_const() or is_affine(found[0].node, lw.params)):
            computed = lw.call_time_size(node)
            found = [computed] if computed is not None else found
    ok = all(w.is_const() or is_affine(w.node, lw.params) for w in found)
    return found if found and ok else None


def _window_axes(node: ast.expr | None, rank: int, count: int) -> list[int] | None:
    """The axes the windows move along: all, in order, for axis=None (a window per axis); one
    integer constant or a tuple of them, one per window, no repeats."""
    if node is None or _is_none(node):
        return list(range(rank)) if count == rank else None
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    found = [_int_const(i) for i in items]
    if len(found) != count or any(a is None or not -rank <= a < rank for a in found):
        return None
    axes = [a % rank for a in found if a is not None]
    return axes if len(set(axes)) == len(axes) else None


def _bound_name(lw: Lowering, node: ast.Call) -> str | None:
    """The name the statement being lowered binds ``node`` to (``b = np.broadcast_to(...)``)."""
    stmt = lw.here
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and (stmt.value is node or ast.unparse(stmt.value) == ast.unparse(node)):
        return stmt.targets[0].id
    return None


def _written_group(lw: Lowering, name: str | None) -> str | None:
    """A name of ``name``'s alias group (``name``, names bound to it or to a subscript or view of
    it, and so on) that some statement writes in place; None where none is written."""
    if name is None:
        return None
    group, grown = {name}, True
    while grown:
        grown = False
        for node in walk(lw.source.tree):
            if isinstance(node, ast.Assign) and _root(_unviewed(node.value)) in group:
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id not in group:
                        group.add(target.id)
                        grown = True
    return next((n for n in sorted(group) if n in lw.mutated), None)


def _unviewed(node: ast.expr) -> ast.expr:
    """The array a view-making call (``x.reshape(...)``, ``np.transpose(x)``) reads (``x.copy()``
    and other calls make new arrays)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEWS:
        node = node.args[0] if node.args and isinstance(node.func.value, ast.Name) \
            and node.func.value.id in ("np", "numpy", NP_NAME) else node.func.value
    return node


def _root(node: ast.expr) -> str:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _broadcast_to(lw: Lowering, node: ast.Call, name: str) -> View | None:
    given = _given(lw, node, name, ("array", "shape"), ("subok",))
    if "shape" not in given:
        raise lw.error(node, "np.broadcast_to() needs a shape", "np.broadcast_to")
    if "subok" in given and _bool_const(given["subok"]) is None:
        raise lw.error(given["subok"], "np.broadcast_to() subok= must be True or False", "np.broadcast_to")
    x = lw.value(given["array"])
    extents = lw.shape_of(given["shape"])
    if x.rank > len(extents):
        raise lw.error(node, f"np.broadcast_to() of a {x.rank}-d array to {len(extents)} axes (NumPy raises "
                       "ValueError: the shape must have at least the array's axes)", "np.broadcast_to")
    for e in extents:
        if e.is_const() and e.const < 0:
            raise lw.error(given["shape"], "np.broadcast_to() to a negative extent (a ValueError in NumPy)",
                           "np.broadcast_to")
    target = _bound_name(lw, node)
    written = _written_group(lw, target)
    if written is not None:
        raise lw.error(node, f"a write into {written!r}, bound to np.broadcast_to() or a view of it: NumPy's result "
                       f"is a read-only view (the write raises ValueError); bind a copy ({target} = "
                       "np.broadcast_to(...).copy())", "np.broadcast_to")
    for d, e in enumerate(extents):
        v = d - len(extents) + x.rank
        if v >= 0 and not x.extents[v].is_const(1) and x.extents[v].text != e.text:
            lw.mismatch(e, x.extents[v], node)
    index = _indexer(x, len(extents))
    lw.changed = True
    return View(tuple(extents), x.vtype, lambda idx: x.element(index(idx)), x.base)


def _as_layout(lw: Lowering, node: ast.Call, name: str) -> View | None:
    given = _given(lw, node, name, ("a", "dtype"), ("like",))
    if "like" in given:
        raise lw.error(given["like"], f"np.{name}() with like=", f"np.{name}")
    x = lw.value(given["a"])
    if x.rank == 0:
        raise lw.error(node, f"np.{name}() of a scalar (NumPy makes a 1-d array of it); write np.array([v])",
                       f"np.{name}")
    if not _is_none(given.get("dtype")):
        dtype = lw.dtype_given(given["dtype"])
        if dtype is None:
            raise lw.error(given["dtype"], f"np.{name}() dtype= must name a NumPy dtype", f"np.{name}")
        if dtype != x.vtype.dtype:  # NumPy converts: a new array
            lw.changed = True
            cast = "bool_" if dtype == "bool" else dtype
            return View(x.extents, VType(dtype, False),
                        lambda idx: ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), cast, ast.Load()),
                                             [x.element(idx)], []))
    target, source = _bound_name(lw, node), _root(given["a"])
    written = [n for n in (_written_group(lw, target), source if source in lw.mutated else None) if n]
    if written and x.base is not None:
        raise lw.error(node, f"np.{name}() of an array when {written[0]!r} is written in place: NumPy returns the "
                       f"array itself or a copy, depending on its memory layout, so the write may or may not reach "
                       f"the other; write {ast.unparse(given['a'])}.copy() for a copy, or the array itself",
                       f"np.{name}")
    lw.changed = True
    if name == "asfortranarray" and x.rank >= 2:
        return lw.call_copy(node, x, [])
    return x


def _nan_arg(lw: Lowering, node: ast.Call, name: str) -> View | None:
    given = _given(lw, node, name, ("a", "axis"), ("keepdims",))
    x = nan_operand(lw, node, name, given)
    if x is None:
        return None
    plain = name[3:]
    options = {k: v for k, v in given.items() if k != "a"}

    def a() -> ast.expr:
        return copy.deepcopy(given["a"])

    def opts() -> dict[str, ast.expr]:
        return {k: copy.deepcopy(v) for k, v in options.items()}

    lw.changed = True
    if not x.vtype.is_float:  # no NaN: NumPy calls np.argmax itself
        return lw.value(_placed(_np(plain, a(), **opts()), node))
    if id(node) in lw.conditional:
        raise lw.error(node, f"np.{name}() where Python may not evaluate it (a branch of 'a if c else b', an "
                       "operand of and/or after the first): an all-NaN slice raises ValueError where it runs; "
                       "write an if statement", f"np.{name}")
    nan = _np("isnan", a())
    axis = {"axis": copy.deepcopy(options["axis"])} if not _is_none(options.get("axis")) else {}
    every = _np("all", nan, **axis)
    if axis:
        every = _np("any", every)
    all_nan = lw.value(_placed(every, node))
    lw.pre.append(value_error(f"not ({ast.unparse(all_nan.element(()))})", "All-NaN slice encountered"))
    fill: ast.expr = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "inf", ast.Load())
    if name == "nanargmax":
        fill = ast.UnaryOp(ast.USub(), fill)
    return lw.value(_placed(_np(plain, _np("where", copy.deepcopy(nan), fill, a()), **opts()), node))


def _vander(lw: Lowering, node: ast.Call, name: str) -> View | None:
    given = _given(lw, node, name, ("x", "N", "increasing"))
    x = lw.value(given["x"])
    if x.rank != 1:
        raise lw.error(node, "np.vander() of other than a 1-d array (NumPy raises ValueError: x must be a "
                       "one-dimensional array or sequence)", "np.vander")
    increasing = _bool_const(given.get("increasing"))
    if increasing is None:
        raise lw.error(given["increasing"], "np.vander() increasing= must be True or False", "np.vander")
    if x.vtype.dtype not in _SUPPORTED:
        raise lw.error(node, "cannot tell the dtype of np.vander()'s x here", "np.vander")
    dtype = np.promote_types(x.vtype.dtype, int).name
    if dtype not in _SUPPORTED:
        raise lw.error(node, f"np.vander() gives {dtype}, which polyfuse does not support", "np.vander")
    n = x.extents[0]
    if _is_none(given.get("N")):
        columns = n
    else:
        count = lw.value(given["N"])
        if count.rank or not count.vtype.is_int or count.vtype.dtype == "bool":
            raise lw.error(given["N"], "np.vander() N must be an integer", "np.vander")
        (columns,) = lw.shape_of(given["N"])
        if columns.is_const() and columns.const < 0:
            raise lw.error(given["N"], "np.vander() with a negative N (a ValueError in NumPy)", "np.vander")
        if not columns.is_const() and not lw.proven(f"{columns.text} >= 0"):
            lw.pre.append(value_error(f"{columns.text} >= 0", "negative dimensions are not allowed"))
    result = lw.fresh("vander")
    lw.allocate(result, (n, columns), dtype)
    cast = "bool_" if dtype == "bool" else dtype

    def body(k):
        i, j = k
        col = j.text if increasing else f"({columns.text}) - 1 - ({j.text})"
        prev = f"({j.text}) - 1" if increasing else f"({columns.text}) - ({j.text})"
        xi = ast.unparse(x.element((i,)))
        text = (f"if {j.text} == 0:\n    {result}[{i.text}, {col}] = {NP_NAME}.{cast}(1)\n"
                f"else:\n    {result}[{i.text}, {col}] = {result}[{i.text}, {prev}] * {NP_NAME}.{cast}({xi})")
        return ast.parse(text).body

    lw.pre.extend(lw.nest((n, columns), body))
    lw.changed = True
    return View((n, columns), VType(dtype, False),
                lambda idx: ast.Subscript(ast.Name(result, ast.Load()),
                                          ast.Tuple([idx[0].node, idx[1].node], ast.Load()), ast.Load()),
                result)


__all__ = ["BUILDERS", "builder_value"]
