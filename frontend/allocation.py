"""Kernel-local arrays made by numpy's allocators: ``np.empty/zeros/ones/full`` and their ``_like`` forms.

The checker admits the call shapes (:data:`ALLOCATORS`); this module reads shape, dtype and the
initial value while lifting.  ``np.ones`` and ``np.full`` become an allocation plus one
initializing loop nest over the whole array (``T[i0, i1] = value``), an ordinary statement that
the scheduler may fuse like any other, so the fill is exactly numpy's (the value is converted to
the array's dtype as numpy's assignment does).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from polyfuse.errors import UnsupportedError
from polyfuse.model.schedule_tree import loop_of
from polyfuse.model.scop import ArrayInfo

from .source import walk

# name -> (positional arguments before dtype, whether the first is an array to copy the shape of)
ALLOCATORS = {
    "empty": (1, False), "zeros": (1, False), "ones": (1, False), "full": (2, False),
    "empty_like": (1, True), "zeros_like": (1, True), "ones_like": (1, True), "full_like": (2, True),
}


@dataclass(frozen=True)
class Allocation:
    """What one allocator call asks for: ``fill`` is the initial value's AST (np.ones/np.full)."""

    info: ArrayInfo
    fill: ast.expr | None


def allocator_of(call: ast.expr) -> str | None:
    """``"zeros"`` for ``np.zeros(...)`` and so on (the module was checked by the subset checker)."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ALLOCATORS:
        return call.func.attr
    return None


def read_allocation(lifter, name: str, call: ast.Call, scope) -> Allocation:
    """Shape, dtype and initial value of ``name = np.<allocator>(...)``."""
    kind = allocator_of(call)
    assert kind is not None, "checked by the subset checker"
    count, like = ALLOCATORS[kind]
    dtype_node = call.args[count] if len(call.args) > count else None
    for kw in call.keywords:
        dtype_node = kw.value
    fill = _fill_value(kind, call)
    if like:
        source = _like_source(lifter, call.args[0])
        shape, texts, dtype = source.shape, source.extent_texts, source.dtype
    else:
        shape_node = call.args[0]
        dims = shape_node.elts if isinstance(shape_node, ast.Tuple) else [shape_node]
        extents = [_extent(lifter, d, scope, kind) for d in dims]
        shape, texts = tuple(e.expr for e in extents), tuple(e.text for e in extents)
        dtype = "float64" if fill is None or kind == "ones" else _fill_dtype(lifter, call, fill, scope)
    if dtype_node is not None:
        dtype = _dtype_of(lifter, dtype_node)
    if not shape:
        raise lifter.error(call, f"0-d array from np.{kind}; use a scalar local instead", f"np.{kind}")
    return Allocation(ArrayInfo(name, dtype, shape, "local", kind.startswith("zeros"), texts), fill)


def _extent(lifter, node: ast.expr, scope, kind: str):
    """One extent of an allocation, affine in sizes and integer arguments; one the data gives (an
    element, a local counted in a loop: ``k = 0; ... k += 1; np.empty(k)``) is refused by name."""
    try:
        return lifter.affine(node, scope)
    except UnsupportedError as exc:
        if not any(isinstance(n, (ast.Subscript, ast.Name)) for n in ast.walk(node)):
            raise
        raise lifter.error(node, f"np.{kind} of extent {ast.unparse(node)!r}, which is not affine in sizes and "
                           "integer arguments (a value computed from the data is known only as the kernel "
                           "runs); allocate the largest size and return a slice of it", "data-dependent allocation") \
            from exc


def _dtype_of(lifter, node: ast.expr) -> str:
    """``dtype=``: a numpy dtype or float/int (lift.py), or ``X.dtype`` of an array."""
    if isinstance(node, ast.Attribute) and node.attr == "dtype" and isinstance(node.value, ast.Name):
        return _like_source(lifter, node.value).dtype
    return lifter._dtype_name(node)


def _fill_value(kind: str, call: ast.Call) -> ast.expr | None:
    if kind.startswith("ones"):
        return ast.copy_location(ast.Constant(1), call)
    if kind.startswith("full"):
        return call.args[1]
    return None


def _like_source(lifter, node: ast.expr) -> ArrayInfo:
    info = lifter.arrays.get(node.id) if isinstance(node, ast.Name) else None
    if info is None or info.is_scalar:
        raise lifter.error(node, f"{ast.unparse(node)!r} is not an array argument or local array",
                           "np.*_like of a non-array")
    return info


def _fill_dtype(lifter, call: ast.Call, fill: ast.expr, scope) -> str:
    """numpy's dtype for ``np.full(shape, value)``: the value's own (a Python float is float64)."""
    value = lifter.expressions(scope).convert(fill)
    if value.dtype == "bool":
        raise lifter.error(call, "np.full with a bool value (a bool array); give dtype=", "bool array")
    return value.dtype


def fill_nest(lifter, node: ast.stmt, allocation: Allocation, scope) -> list:
    """The loop nest ``for i0 ...: for i1 ...: T[i0, i1] = value`` that initializes an array."""
    info = allocation.info
    assert allocation.fill is not None
    names = tuple(f"{info.name}__fill{d}" for d in range(info.rank))
    inner = scope
    for name, extent in zip(names, info.extent_texts):
        inner = lifter.extend_scope(node, inner, name, f"0 <= {name} < {extent}")
    index = ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())
    target = ast.Subscript(ast.Name(info.name, ast.Load()), index, ast.Store())
    ast.fix_missing_locations(ast.copy_location(target, node))
    for sub in walk(target):
        ast.copy_location(sub, node)
    expressions = lifter.expressions(inner)
    value = expressions.convert(allocation.fill)
    body: list = [lifter.add_statement(node, target, value, inner, expressions)]
    for name in reversed(names):
        body = [loop_of(name, 1, tuple(body))]
    return body


__all__ = ["ALLOCATORS", "Allocation", "allocator_of", "fill_nest", "read_allocation"]
