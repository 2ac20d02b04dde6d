"""Unpacking an array value into names (part of ``frontend.arrays``' lowering), and
``X, Y = np.meshgrid(x, y)``.

``dx, dy = pos[i] - pos[i - 1]`` binds each name to one element along the first axis, as
Python's iteration of the array does: from a 1-d value each name is a scalar local (a NumPy
scalar of the array's dtype), from a value of rank k > 1 each name is a (k-1)-d row, a view
where the value is a view of an array (``a, b = M``) and a new temporary where it is computed.
The whole value is read before any name is bound (``x, y = np.array([y, x])``), so a name that
the value reads goes through a fresh scalar first; for rows that case is refused.  The first
extent must be the number of names, a constant (NumPy raises ValueError otherwise); a scalar
value is refused (a TypeError in Python).
"""

from __future__ import annotations

import ast

from .arrays import Lowering, View, VType, _is_numpy_call, assign_like, const, scalar
from .source import walk


def unpack_array(lw: Lowering, stmt: ast.Assign, target: ast.Tuple | ast.List) -> list[ast.stmt] | None:
    """The statements binding ``target``'s names to the rows of ``stmt.value``; None when the
    value is a tuple display (frontend.desugar's tuple assignment) or a target is not a name."""
    if isinstance(stmt.value, (ast.Tuple, ast.List)) or not all(isinstance(t, ast.Name) for t in target.elts):
        return None
    names = [t.id for t in target.elts if isinstance(t, ast.Name)]
    grids = _meshgrid(lw, stmt.value)
    if grids is not None:
        if len(grids) != len(names):
            raise lw.error(stmt, f"np.meshgrid() of {len(grids)} arrays unpacked into {len(names)} names (a "
                           "ValueError in Python)", "np.meshgrid")
        bound: list[ast.stmt] = []
        for name, grid in zip(names, grids):
            bound += lw.bind_name(assign_like(name, stmt.value, stmt), name, grid)
        return bound
    value = lw.value(stmt.value)
    if value.rank == 0 and value.vtype.dtype == "unknown":
        return None  # not a value the lowering knows (a call it leaves to the lifter, which refuses it)
    if value.rank == 0:
        raise lw.error(stmt, f"unpacking {ast.unparse(stmt.value)!r}, a scalar, into {len(names)} names (a "
                       "TypeError in Python)", "array unpacking")
    first = value.extents[0]
    if first.is_const() and not first.is_const(len(names)):
        raise lw.error(stmt, f"unpacking {ast.unparse(stmt.value)!r}, of {first.const} rows, into {len(names)} "
                       "names (a ValueError in Python)", "array unpacking")
    lw.mismatch(first, const(len(names)), stmt)  # an extent of the sizes: assumed, checked per call
    lw.changed = True
    read = {n.id for n in walk(stmt.value) if isinstance(n, ast.Name)}
    out: list[ast.stmt] = []
    if value.rank == 1:
        vtype = VType(value.vtype.dtype, False)  # an element of an array is a NumPy scalar
        elements = [value.element((const(k),)) for k in range(len(names))]
        if read & set(names):  # all of the value first, as Python reads it before binding any name
            held = []
            for element in elements:
                fresh = lw.fresh("unpack")
                out += lw.bind_name(assign_like(fresh, element, stmt), fresh, scalar(element, vtype))
                held.append(ast.Name(fresh, ast.Load()))
            elements = list(held)
        for name, element in zip(names, elements):
            out += lw.bind_name(assign_like(name, element, stmt), name, scalar(element, vtype))
        return out
    if read & set(names):
        raise lw.error(stmt, f"unpacking rows of {ast.unparse(stmt.value)!r} into a name it reads; use new names",
                       "array unpacking")
    for k, name in enumerate(names):
        def row(idx, k=k):
            return value.element((const(k),) + tuple(idx))
        piece = ast.Subscript(stmt.value, ast.Constant(k), ast.Load())
        out += lw.bind_name(assign_like(name, piece, stmt), name, View(value.extents[1:], value.vtype, row, value.base))
    return out


def _meshgrid(lw: Lowering, value: ast.expr) -> list[View] | None:
    """``np.meshgrid(x, y, ..., indexing='xy')`` of 1-d arrays: one View per input, the input
    spread over the grid along its own axis (the first two axes swapped for 'xy', as NumPy
    does); each is bound as a new array (NumPy's copy=True).  None for any other value."""
    if not _is_numpy_call(value, "meshgrid", lw.globals):
        return None
    options = {kw.arg: kw.value for kw in value.keywords}
    indexing = options.pop("indexing", ast.Constant("xy"))
    if options or not value.args or not (isinstance(indexing, ast.Constant) and indexing.value in ("xy", "ij")):
        raise lw.error(value, "np.meshgrid() of arrays with indexing='xy' or 'ij' only (no sparse=, copy=)",
                       "np.meshgrid")
    inputs = [lw.value(a) for a in value.args]
    if any(v.rank != 1 for v in inputs):
        raise lw.error(value, "np.meshgrid() of other than 1-d arrays (NumPy flattens them)", "np.meshgrid")
    axes = list(range(len(inputs)))
    if indexing.value == "xy" and len(inputs) > 1:
        axes[0], axes[1] = 1, 0
    shape = tuple(inputs[axes.index(d)].extents[0] for d in range(len(inputs)))
    lw.changed = True
    return [_spread(shape, v, axis) for v, axis in zip(inputs, axes)]


def _spread(shape: tuple, v: View, axis: int) -> View:
    """``v`` (1-d) as an array of ``shape`` that varies along ``axis`` only."""
    def element(idx: tuple) -> ast.expr:
        return v.element((idx[axis],))

    return View(shape, v.vtype, element)
