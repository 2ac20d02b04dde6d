"""``np.linalg.norm(x, ord, axis, keepdims)`` with ``ord=`` as the NumPy expressions NumPy's own
code evaluates (numpy/linalg/_linalg.py: norm), lowered like any array expression.

Vector norms (a 1-d ``x``, or one integer ``axis=``): ``inf`` / ``-inf`` (max / min of
``abs(x)``), ``0`` (the count of nonzeros, in ``x``'s real float dtype), ``1`` (sum of
``abs(x)``), ``2`` / ``None`` (the 2-norm: the default path), any other real number ``p``
(``sum(abs(x) ** p) ** (1 / p)``, ``1 / p`` in the result's dtype).  Matrix norms (a 2-d ``x``
and no ``axis=``): ``'fro'`` (the default path), ``1`` / ``-1`` (max / min column sum of
``abs(x)``), ``inf`` / ``-inf`` (max / min row sum), ``2`` / ``-2`` / ``'nuc'`` (the max / min /
sum of ``np.linalg.svd(x, compute_uv=False)``: frontend/array_lapack.py's dgesdd; not with
``keepdims=True``).  Axis pairs and more than two axes are refused.  An integer or bool ``x`` is converted
to float64 first, as NumPy does."""

from __future__ import annotations

import ast
import copy
import math

from .arrays import NP_NAME, Lowering, View, _bool_const
from .checker import module_of


def _np(fn: str, *args: ast.expr, **keywords: ast.expr) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), fn, ast.Load()), list(args),
                    [ast.keyword(k, v) for k, v in keywords.items()])


def _order(lw: Lowering, node: ast.expr) -> float | str | None:
    """The constant ``ord=``: None, a real number (``np.inf``, ``-np.inf``, ``math.inf`` too) or
    a string; anything else is refused."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    inner = node.operand if negative and isinstance(node, ast.UnaryOp) else node
    value: float | str | None
    if isinstance(inner, ast.Constant) and (inner.value is None or isinstance(inner.value, str)) and not negative:
        return inner.value
    if isinstance(inner, ast.Constant) and isinstance(inner.value, (int, float)) \
            and not isinstance(inner.value, bool):
        value = float(inner.value)
    elif isinstance(inner, ast.Attribute) and inner.attr == "inf" and isinstance(inner.value, ast.Name) \
            and (inner.value.id == NP_NAME or module_of(inner.value, lw.globals) in ("np", "math")):
        value = math.inf
    else:
        raise lw.error(node, "np.linalg.norm() ord= other than a number, np.inf, -np.inf or a string constant",
                       "np.linalg.norm")
    return -value if negative else value


def norm_with_order(lw: Lowering, node: ast.Call) -> View | None:
    """The lowering of ``np.linalg.norm`` with ``ord=`` given, or None where the call is the
    default norm (``ord=None``, ``ord=2`` of a vector, ``'fro'`` of a matrix), which the caller
    lowers as before."""
    names = ("x", "ord", "axis", "keepdims")
    if len(node.args) > len(names):
        raise lw.error(node, "np.linalg.norm() with more than x, ord, axis and keepdims", "np.linalg.norm")
    given = dict(zip(names, node.args))
    for kw in node.keywords:
        if kw.arg not in names or kw.arg in given:
            raise lw.error(kw.value if kw.arg else node, f"np.linalg.norm() with {kw.arg}= is not supported",
                           "np.linalg.norm")
        given[str(kw.arg)] = kw.value
    if "ord" not in given or "x" not in given:
        return None
    order = _order(lw, given["ord"])
    x = lw.value(given["x"])
    if x.rank == 0 or x.vtype.weak:
        raise lw.error(node, "np.linalg.norm() of a scalar", "np.linalg.norm")
    axis_node = given.get("axis")
    if axis_node is not None and isinstance(axis_node, ast.Constant) and axis_node.value is None:
        axis_node = None
    if axis_node is not None and not (isinstance(axis_node, ast.Constant) and type(axis_node.value) is int
                                      or isinstance(axis_node, ast.UnaryOp) and isinstance(axis_node.op, ast.USub)
                                      and isinstance(axis_node.operand, ast.Constant)
                                      and type(axis_node.operand.value) is int):
        raise lw.error(axis_node, "np.linalg.norm() with ord= and an axis= other than one integer constant "
                       "(axis pairs are not supported)", "np.linalg.norm")
    keep = given.get("keepdims", ast.Constant(False))
    keepdims = _bool_const(keep)
    if keepdims is None:
        raise lw.error(keep, "np.linalg.norm() keepdims= must be True or False", "np.linalg.norm")
    vector = axis_node is not None or x.rank == 1
    if not vector and x.rank != 2:
        raise lw.error(node, "np.linalg.norm() with ord= of more than two axes (NumPy raises ValueError)",
                       "np.linalg.norm")
    if order is None or (vector and order == 2.0) or (not vector and order in ("fro", "f")):
        return None  # the default norm
    if x.vtype.is_complex:
        raise lw.error(node, "np.linalg.norm() with ord= of a complex array", "np.linalg.norm")
    arg = copy.deepcopy(given["x"])
    if not x.vtype.is_float:  # NumPy: x.astype(float)
        arg = ast.Call(ast.Attribute(arg, "astype", ast.Load()),
                       [ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load())], [])
    dtype = x.vtype.dtype if x.vtype.is_float else "float64"
    options: dict[str, ast.expr] = {}
    if axis_node is not None:
        options["axis"] = copy.deepcopy(axis_node)
    if keepdims:
        options["keepdims"] = ast.Constant(True)
    absx = _np("abs", arg)
    tree: ast.expr
    if vector:
        if isinstance(order, str):
            raise lw.error(given["ord"], f"np.linalg.norm() ord={order!r} of a vector (NumPy raises ValueError)",
                           "np.linalg.norm")
        if order == math.inf:
            tree = _np("max", absx, **options)
        elif order == -math.inf:
            tree = _np("min", absx, **options)
        elif order == 0.0:
            nonzero = ast.Compare(copy.deepcopy(arg), [ast.NotEq()], [ast.Constant(0)])
            cast = ast.Call(ast.Attribute(nonzero, "astype", ast.Load()),
                            [ast.Attribute(ast.Name(NP_NAME, ast.Load()), dtype, ast.Load())], [])
            tree = _np("sum", cast, **options)
        elif order == 1.0:
            tree = _np("sum", absx, **options)
        else:  # absx **= ord; ret = add.reduce(absx); ret **= reciprocal(ord, dtype=ret.dtype)
            powered = ast.BinOp(absx, ast.Pow(), ast.Constant(order))
            root = ast.BinOp(_np(dtype, ast.Constant(1.0)), ast.Div(), _np(dtype, ast.Constant(order)))
            tree = ast.BinOp(_np("sum", powered, **options), ast.Pow(), root)
    elif order in (2.0, -2.0, "nuc"):  # NumPy's _multi_svd_norm: amax / amin / sum of svd(x, compute_uv=False)
        if keepdims:
            raise lw.error(node, f"np.linalg.norm() ord={order!r} with keepdims=True", "np.linalg.norm")
        linalg = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "linalg", ast.Load())
        values = ast.Call(ast.Attribute(linalg, "svd", ast.Load()), [arg],
                          [ast.keyword("compute_uv", ast.Constant(False))])
        tree = _np("max" if order == 2.0 else "min" if order == -2.0 else "sum", values)
    else:
        if order not in (1.0, -1.0, math.inf, -math.inf):
            raise lw.error(given["ord"], f"np.linalg.norm() ord={order!r} of a matrix (NumPy refuses it)",
                           "np.linalg.norm")
        along, then = (0, 1) if order in (1.0, -1.0) else (1, 0)  # column sums, or row sums
        extreme = "max" if order > 0 else "min"
        if keepdims:
            sums = _np("sum", absx, axis=ast.Constant(along), keepdims=ast.Constant(True))
            tree = _np(extreme, sums, axis=ast.Constant(then), keepdims=ast.Constant(True))
        else:
            tree = _np(extreme, _np("sum", absx, axis=ast.Constant(along)), axis=ast.Constant(0))
    for part in ast.walk(tree):
        if isinstance(part, ast.expr):
            ast.copy_location(part, node)
    lw.changed = True
    return lw.value(tree)
