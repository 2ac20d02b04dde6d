"""``name = np.array([expr for v in X])`` as an allocation and a loop nest (part of
``frontend.arrays``' lowering).

A list comprehension (nested ones too: ``[[f(x, y) for x in X] for y in Y]``) over arrays and
views of them (``for v in X``: ``v`` is ``X[i]``, a row of a 2-d ``X``; ``for v in A[:, 0]``) and over ``range(n)`` /
``range(a, b)`` makes an array of one axis per ``for``, its extents the lengths of the
iterables.  Each element is ``expr`` with the comprehension's names replaced by what they
mean at that index (subset expressions have no side effects, so this is what Python computes),
computed into a scalar local first; its type, known once the lowering's scalar types reach
their fixpoint, is the array's dtype unless ``dtype=`` gives one (NumPy's: Python floats and
np.float64 give float64, ints int64, bools bool).  Refused: ``if`` filters (a data-dependent
length), other iterables, several ``for``s in one comprehension, elements that are arrays.
"""

from __future__ import annotations

import ast
import copy

from .arrays import NP_NAME, Lowering, _dtype_of, _is_numpy_call
from .source import walk


def comprehension_stmts(lw: Lowering, stmt: ast.Assign) -> tuple[list[ast.stmt], str] | None:
    """The statements that compute ``stmt`` (``name = np.array([...])``) and the scalar local
    each element is computed into; None when it is not of that form."""
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
        return None
    call = stmt.value
    if not (_is_numpy_call(call, "array", lw.globals) or _is_numpy_call(call, "asarray", lw.globals)):
        return None
    assert isinstance(call, ast.Call)
    if len(call.args) != 1 or not isinstance(call.args[0], ast.ListComp):
        return None
    if any(kw.arg != "dtype" for kw in call.keywords):
        raise lw.error(call, "np.array() of a list comprehension with arguments other than dtype=", "np.array")
    given = next((kw.value for kw in call.keywords if kw.arg == "dtype"), None)
    wanted = _dtype_of(given, lw.globals) if given is not None else None
    if given is not None and wanted is None:
        raise lw.error(given, f"np.array() with dtype {ast.unparse(given)!r}", "np.array")
    loops: list[tuple[str, ast.expr]] = []  # (index name, length)
    values: dict[str, ast.expr] = {}
    node: ast.expr = call.args[0]
    while isinstance(node, ast.ListComp):
        if len(node.generators) != 1:
            raise lw.error(node, "a list comprehension with several 'for's in np.array() (nest them instead)",
                           "list comprehension")
        gen = node.generators[0]
        if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
            raise lw.error(node, "a list comprehension with an 'if' (a data-dependent length) or a target other "
                           "than one name in np.array()", "list comprehension")
        index = lw.fresh("lc")
        length, value = _iterable(lw, gen.iter, index, values)
        loops.append((index, length))
        values[gen.target.id] = value
        node = node.elt
    element = _Substitute(values).visit(copy.deepcopy(node))
    held = lw.fresh("lc_value")
    name = stmt.targets[0].id
    dtype = wanted or _element_dtype(lw, held)
    shape = ast.Tuple([copy.deepcopy(length) for _, length in loops], ast.Load())
    dtype_node = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool" if dtype == "bool" else dtype, ast.Load())
    allocate = ast.Assign([ast.Name(name, ast.Store())],
                          ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "empty", ast.Load()), [shape],
                                   [ast.keyword("dtype", dtype_node)]))
    index_tuple = ast.Tuple([ast.Name(i, ast.Load()) for i, _ in loops], ast.Load())
    body: list[ast.stmt] = [ast.Assign([ast.Name(held, ast.Store())], element),
                            ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), index_tuple, ast.Store())],
                                       ast.Name(held, ast.Load()))]
    for index, length in reversed(loops):
        body = [ast.For(ast.Name(index, ast.Store()), ast.Call(ast.Name("range", ast.Load()),
                                                               [copy.deepcopy(length)], []), body, [])]
    out = [allocate] + body
    for part in out:
        for sub in walk(part):
            if isinstance(sub, (ast.expr, ast.stmt)):
                ast.copy_location(sub, stmt)
    return out, held


def _iterable(lw: Lowering, it: ast.expr, index: str, values: dict[str, ast.expr]) -> tuple[ast.expr, ast.expr]:
    """(length, the element at ``index``) of a comprehension's iterable."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
            and it.func.id not in lw.globals and not it.keywords and 1 <= len(it.args) <= 2:
        args = [_Substitute(values).visit(copy.deepcopy(a)) for a in it.args]
        start = args[0] if len(args) == 2 else ast.Constant(0)
        stop = args[-1]
        length = ast.Call(ast.Name("max", ast.Load()), [ast.BinOp(stop, ast.Sub(), start), ast.Constant(0)], []) \
            if len(args) == 2 else stop
        return length, ast.BinOp(copy.deepcopy(start), ast.Add(), ast.Name(index, ast.Load()))
    if isinstance(it, ast.Name) and it.id not in values and (it.id in lw.args or lw.lookup(it) is not None):
        length = ast.Subscript(ast.Attribute(copy.deepcopy(it), "shape", ast.Load()), ast.Constant(0), ast.Load())
        return length, ast.Subscript(copy.deepcopy(it), ast.Name(index, ast.Load()), ast.Load())
    if isinstance(it, (ast.Subscript, ast.Attribute)) and not any(
            isinstance(n, ast.Name) and n.id in values for n in walk(it)):
        view = lw.value(it)  # a view (X[0], A[:, j], A.T): its first axis, read at each index
        if view.rank and view.base is not None:
            return view.extents[0].node, ast.Subscript(copy.deepcopy(it), ast.Name(index, ast.Load()), ast.Load())
    raise lw.error(it, f"a list comprehension over {ast.unparse(it)} in np.array() (only over an array or "
                   "range(n) / range(a, b))", "list comprehension")


def _element_dtype(lw: Lowering, held: str) -> str:
    """The dtype NumPy gives an array of the element values (float64 until the types are known)."""
    vtype = lw.scalars.get(held)
    if vtype is None or vtype.dtype == "unknown":
        if lw.final:
            raise lw.error(lw.here or ast.Constant(0), "cannot tell the dtype of the list comprehension's "
                           "elements here", "list comprehension")
        return "float64"
    return vtype.dtype


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node

    def visit_ListComp(self, node: ast.ListComp):
        return node  # (a nested comprehension is taken apart by the caller)
