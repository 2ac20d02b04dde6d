"""``np.sinc`` and ``np.fix`` of arrays as the NumPy expressions NumPy's own Python code
evaluates (numpy/lib/_function_base_impl.py: sinc, numpy/lib/_ufunclike_impl.py: fix), lowered
like any array expression (frontend/array_idioms.py calls them), so values and dtypes are NumPy's:
``sinc(x) = sin(y) / y`` with ``y = pi * where(x == 0, 1.0e-20, x)``, ``fix(x) = where(x >= 0,
floor(x), ceil(x))``."""

from __future__ import annotations

import ast
import copy
import math

from .arrays import NP_NAME, Lowering, View, scalar_op
from .types import VType

FORMULAS = frozenset(("sinc", "fix"))


def _np(fn: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), fn, ast.Load()), list(args), [])


def formula_value(lw: Lowering, node: ast.Call, name: str) -> View | None:
    """The value of ``np.sinc(x)`` / ``np.fix(x)`` of an array; None for a scalar ``x`` (the
    scalar rules decide there)."""
    if len(node.args) != 1 or node.keywords:
        raise lw.error(node, f"np.{name}() takes one array here (no out= or other keywords)", f"np.{name}")
    x = node.args[0]
    value = lw.value(x)
    if value.rank == 0:
        return None
    if value.vtype.is_complex:
        raise lw.error(node, f"np.{name}() of a complex array", f"np.{name}")
    tree: ast.expr
    if name == "sinc":
        def scaled() -> ast.expr:
            zero = ast.Compare(copy.deepcopy(x), [ast.Eq()], [ast.Constant(0)])
            return ast.BinOp(ast.Constant(math.pi), ast.Mult(),
                             _np("where", zero, ast.Constant(1.0e-20), copy.deepcopy(x)))
        tree = ast.BinOp(_np("sin", scaled()), ast.Div(), scaled())
    else:
        positive = ast.Compare(copy.deepcopy(x), [ast.GtE()], [ast.Constant(0)])
        tree = _np("where", positive, _np("floor", copy.deepcopy(x)), _np("ceil", copy.deepcopy(x)))
    for part in ast.walk(tree):
        if isinstance(part, ast.expr):
            ast.copy_location(part, node)
    lw.changed = True
    return lw.value(tree)


def bool_extreme(lw: Lowering, node: ast.Call, kind: str, x: View, options: dict[str, ast.expr]) -> View:
    """``np.max`` / ``np.min`` of a bool array (``axis=``, ``keepdims=``; not ``initial=``): the
    reduction of its elements as ``uint8`` (0 and 1, NumPy's ValueError for no elements as any
    max), then ``!= 0``: NumPy's bools, an ``np.bool_`` for a full reduction."""
    if "initial" in options:
        raise lw.error(node, f"np.{kind}() of a boolean array with initial=", "reduction")
    cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "uint8", ast.Load())
    inner = x.element
    as_int = View(x.extents, VType("uint8", False),
                  lambda idx: ast.Call(copy.deepcopy(cast), [inner(idx)], []))
    reduced = lw.reduction(node, kind, as_int, [], options)
    zero = View((), VType("uint8", False), lambda idx: ast.Call(copy.deepcopy(cast), [ast.Constant(0)], []))
    if reduced.rank == 0:
        return scalar_op(lambda a, b: ast.Compare(a, [ast.NotEq()], [b]), [reduced, zero], VType("bool", False))
    return lw.elementwise(lambda a, b: ast.Compare(a, [ast.NotEq()], [b]), [reduced, zero], VType("bool", False),
                          node)
