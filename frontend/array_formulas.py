"""NumPy functions that NumPy itself writes as a short formula of other NumPy calls, lowered by
building that formula and lowering it (part of ``frontend.array_idioms``):

- ``np.nansum(a, axis, keepdims)``: ``np.sum`` of ``a`` with its NaNs replaced by 0 (NumPy's
  ``_replace_nan``); of an integer or boolean array ``np.sum`` itself.
- ``np.nanmean``: that sum divided by the count of the non-NaN elements, computed in float64
  and cast back to ``a``'s dtype as NumPy's ``_divide_by_count`` does (NaN where nothing is
  counted); of integers ``np.mean``.
- ``np.nanmax`` / ``np.nanmin``: NumPy's ``np.fmax.reduce``: the maximum of ``a`` with NaNs
  replaced by -inf (+inf), NaN where every element is NaN; of integers ``np.max``/``np.min``.
- ``np.trapezoid(y, x=None, dx=1.0, axis=-1)`` (and ``np.trapz``) of a ``y`` and a 1-d ``x`` (or
  one of ``y``'s shape): ``(d * (y[1:] + y[:-1]) / 2.0).sum(axis)`` with ``d = np.diff(x)`` or
  ``dx``, the slices along ``axis``, NumPy's own formula.
- ``np.swapaxes``, ``np.moveaxis`` (constant axes), ``np.rot90(m, k)`` (axes 0 and 1),
  ``np.atleast_1d/2d/3d`` of arrays: the transposes, flips and ``None`` axes NumPy makes them of
  (views, as in NumPy).
- ``np.gradient(f, h=1.0, axis=k, edge_order=1)``: one scalar spacing, ``edge_order`` 1 or 2;
  NumPy's central and one-sided differences as three pieces chosen by the index.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from .arrays import NP_NAME, UNKNOWN, Lowering, View, _bool_const, const
from .desugar import SHARED_SPACING
from .source import walk
from .types import VType

NAN_REDUCTIONS = frozenset(("nansum", "nanmean", "nanmax", "nanmin", "nanvar", "nanstd"))
TRAPEZOID = frozenset(("trapezoid", "trapz"))


def _np(fn: str, *args: ast.expr, **keywords: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), fn, ast.Load()), list(args),
                    [ast.keyword(k, v) for k, v in keywords.items()])


def _placed(tree: ast.expr, node: ast.AST) -> ast.expr:
    for part in walk(tree):
        if isinstance(part, (ast.expr, ast.stmt)):
            ast.copy_location(part, node)
    return tree


def _given(lw: Lowering, node: ast.Call, name: str, names: tuple[str, ...],
           keyword_only: tuple[str, ...] = ()) -> dict[str, ast.expr]:
    """The call's arguments by parameter name (``names`` positional or keyword, ``keyword_only``
    by keyword only); anything else, or no first argument, refused."""
    if len(node.args) > len(names):
        raise lw.error(node, f"np.{name}() with more arguments than {', '.join(names)}", f"np.{name}")
    given = dict(zip(names, node.args))
    for kw in node.keywords:
        if kw.arg not in names + keyword_only or kw.arg in given:
            raise lw.error(kw.value if kw.arg else node, f"np.{name}() with {kw.arg}= is not supported",
                           f"np.{name}")
        given[str(kw.arg)] = kw.value
    if names[0] not in given:
        raise lw.error(node, f"np.{name}() without its argument {names[0]}", f"np.{name}")
    return given


def nan_operand(lw: Lowering, node: ast.Call, name: str, given: dict[str, ast.expr]) -> View | None:
    """The array ``a`` of an ``np.nan*`` call, checked as these functions take it here: None for a
    0-d one (left to the scalar rules), a complex one refused, ``keepdims=`` a constant bool."""
    x = lw.value(given["a"])
    if x.rank == 0:
        return None
    if x.vtype.is_complex:
        raise lw.error(node, f"np.{name}() of a complex array", f"np.{name}")
    if _bool_const(given.get("keepdims")) is None:
        raise lw.error(given["keepdims"], f"np.{name}() keepdims= must be True or False", f"np.{name}")
    return x


def nan_reduction(lw: Lowering, node: ast.Call, name: str) -> View | None:
    """``np.nansum/nanmean/nanmax/nanmin(a, axis=None, keepdims=False)`` and ``np.nanvar/nanstd(a,
    axis=None, ddof=0, keepdims=False)`` as NumPy computes them."""
    spread = name in ("nanvar", "nanstd")
    given = _given(lw, node, name, ("a", "axis"), ("keepdims",) + (("ddof",) if spread else ()))
    x = nan_operand(lw, node, name, given)
    if x is None:
        return None
    if spread:
        return _nan_spread(lw, node, name, x, given)
    options = {k: copy.deepcopy(v) for k, v in given.items() if k != "a"}
    plain = {"nansum": "sum", "nanmean": "mean", "nanmax": "max", "nanmin": "min"}[name]

    def a() -> ast.expr:
        return copy.deepcopy(given["a"])

    def opts() -> dict[str, ast.expr]:
        return {k: copy.deepcopy(v) for k, v in options.items()}

    if not x.vtype.is_float:  # no NaN to skip: NumPy calls the plain reduction
        return lw.value(_placed(_np(plain, a(), **opts()), node))
    nan = _np("isnan", a())
    if name in ("nansum", "nanmean"):
        total = _np("sum", _np("where", nan, ast.Constant(0), a()), **opts())
        if name == "nansum":
            return lw.value(_placed(total, node))
        count = _np("sum", ast.UnaryOp(ast.Invert(), copy.deepcopy(nan)), **opts())
        quotient = ast.BinOp(total, ast.Div(), count)  # float64 / int64 in float64, cast back
        return lw.value(_placed(_np(x.vtype.dtype, quotient), node))
    fill: ast.expr = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "inf", ast.Load())
    if name == "nanmax":
        fill = ast.UnaryOp(ast.USub(), fill)
    extreme = _np(plain, _np("where", nan, fill, a()), **opts())
    all_nan = _np("all", copy.deepcopy(nan), **opts())
    nan_value = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "nan", ast.Load())
    return lw.value(_placed(_np("where", all_nan, nan_value, extreme), node))


def _nan_spread(lw: Lowering, node: ast.Call, name: str, x: View, given: dict[str, ast.expr]) -> View:
    """``np.nanvar``/``np.nanstd`` in NumPy's steps: the NaNs replaced by 0; the mean of the others
    (their sum divided by their count, in float64, cast back); the squares of the deviations where
    not NaN summed and divided by the count less ``ddof``, NaN where that is not positive; its
    square root for ``nanstd``.  Integer arrays (no NaN) are NumPy's ``np.var``/``np.std``."""
    if not x.vtype.is_float:
        return lw.value(_placed(_np(name[3:], *[copy.deepcopy(given[k]) for k in ("a",)],
                                    **{k: copy.deepcopy(v) for k, v in given.items() if k != "a"}), node))
    axis = copy.deepcopy(given.get("axis", ast.Constant(None)))
    keep = copy.deepcopy(given.get("keepdims", ast.Constant(False)))
    where = {"A": given["a"], "AX": axis, "KD": keep, "DDOF": given.get("ddof", ast.Constant(0))}
    dt = x.vtype.dtype
    text = (f"{NP_NAME}.where(DOF <= 0, {NP_NAME}.nan, {NP_NAME}.sum(D * D, axis=AX, keepdims=KD) / DOF)"
            .replace("DOF", f"({NP_NAME}.sum(~{NP_NAME}.isnan(A), axis=AX, keepdims=KD) - DDOF)")
            .replace("D * D", f"{NP_NAME}.square({NP_NAME}.where({NP_NAME}.isnan(A), {NP_NAME}.{dt}(0), A - MEAN))")
            .replace("MEAN", f"{NP_NAME}.{dt}({NP_NAME}.sum({NP_NAME}.where({NP_NAME}.isnan(A), {NP_NAME}.{dt}(0), A), "
                     f"axis=AX, keepdims=True) / {NP_NAME}.sum(~{NP_NAME}.isnan(A), axis=AX, keepdims=True))"))
    tree = _Substituted(where).visit(ast.parse(f"{NP_NAME}.{dt}({text})", mode="eval").body)
    if name == "nanstd":
        tree = _np("sqrt", tree)
    lw.changed = True
    return lw.value(_placed(tree, node))


def trapezoid(lw: Lowering, node: ast.Call, name: str) -> View | None:
    """``np.trapezoid(y, x=None, dx=1.0, axis=-1)`` of an array ``y`` (``x`` 1-d, along ``axis``, or
    of ``y``'s shape), NumPy's formula: ``(d * (y[1:] + y[:-1]) / 2.0).sum(axis)`` with the slices
    along ``axis``, ``d`` = ``dx`` or ``np.diff(x)`` (given axes of length 1 elsewhere when 1-d)."""
    given = _given(lw, node, name, ("y", "x", "dx", "axis"))
    y = lw.value(given["y"])
    if y.rank == 0:
        return None
    axis = _axis_value(given["axis"]) if "axis" in given else -1
    if axis is None or not -y.rank <= axis < y.rank:
        raise lw.error(given.get("axis", node), f"np.{name}() axis= must be a constant axis of y", f"np.{name}")
    axis %= y.rank

    def along(value: ast.expr, s: ast.expr, rank: int, other: ast.expr | None = None) -> ast.expr:
        items = [s if k == axis else other or ast.Slice(None, None, None) for k in range(rank)]
        return ast.Subscript(value, items[0] if rank == 1 else ast.Tuple(items, ast.Load()), ast.Load())

    if "x" in given and given["x"] is not None and not (isinstance(given["x"], ast.Constant)
                                                         and given["x"].value is None):
        xs = lw.value(given["x"])
        if xs.rank not in (1, y.rank):
            raise lw.error(given["x"], f"np.{name}() with x of {xs.rank} dimensions (1-d or y's)", f"np.{name}")
        d: ast.expr = _np("diff", copy.deepcopy(given["x"]), **({"axis": ast.Constant(axis)} if xs.rank > 1 else {}))
        if xs.rank != y.rank:  # np.diff(x) with axes of length 1 around it, as NumPy reshapes it
            d = along(d, ast.Slice(None, None, None), y.rank, ast.Constant(None))
    else:
        d = copy.deepcopy(given.get("dx", ast.Constant(1.0)))
        if lw.value(d).rank:
            raise lw.error(d, f"np.{name}() dx= must be a scalar", f"np.{name}")

    def part(s: ast.expr) -> ast.expr:
        return along(copy.deepcopy(given["y"]), s, y.rank)

    pairs = ast.BinOp(part(ast.Slice(ast.Constant(1), None, None)), ast.Add(),
                      part(ast.Slice(None, ast.UnaryOp(ast.USub(), ast.Constant(1)), None)))
    terms = ast.BinOp(ast.BinOp(d, ast.Mult(), pairs), ast.Div(), ast.Constant(2.0))
    return lw.value(_placed(_np("sum", terms, **({"axis": ast.Constant(axis)} if y.rank > 1 else {})), node))


def _axis_value(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    return None


def gradient(lw: Lowering, node: ast.Call) -> View | None:
    """``np.gradient(f, h=1.0)`` of a 1-d ``f``, or ``np.gradient(f, h, axis=k)`` of any rank, one
    scalar spacing: NumPy's uniform-spacing formulas, central differences
    ``(f[2:] - f[:-2]) / (2. * h)`` inside and one-sided ``(f[1] - f[0]) / h``,
    ``(f[-1] - f[-2]) / h`` at the ends (``edge_order=2``: ``-1.5 / h * f[0] + 2. / h * f[1] +
    -0.5 / h * f[2]`` and its mirror, as NumPy writes them; integers converted to float64 first,
    as NumPy does)."""
    if not node.args:
        raise lw.error(node, "np.gradient() needs an array", "np.gradient")
    order, shared = 1, False
    for kw in node.keywords:
        if kw.arg == "edge_order" and isinstance(kw.value, ast.Constant) and kw.value.value in (1, 2) \
                and type(kw.value.value) is int:
            order = kw.value.value
        elif kw.arg == SHARED_SPACING:
            shared = True
        elif kw.arg != "axis":
            raise lw.error(kw.value if kw.arg else node, f"np.gradient() with {kw.arg}= is not supported"
                           + (" (only the constant 1 or 2)" if kw.arg == "edge_order" else ""), "np.gradient")
    f = lw.value(node.args[0])
    if f.rank == 0:
        return None
    if len(node.args) > 2:
        raise lw.error(node, "np.gradient() with more than one spacing", "np.gradient")
    h = node.args[1] if len(node.args) == 2 else ast.Constant(1.0)
    coords = h if lw.value(h).rank else None
    if coords is not None and shared:
        raise lw.error(h, "np.gradient(f, x) of a multi-dimensional f with one array of coordinates (NumPy's "
                       "TypeError: a scalar spacing, or one spacing per axis)", "np.gradient")
    axes = [kw.value for kw in node.keywords if kw.arg == "axis"]
    axis = _axis_value(axes[0]) if axes else (0 if f.rank == 1 else None)
    if axis is None or not -f.rank <= axis < f.rank:
        raise lw.error(axes[0] if axes else node, "np.gradient() of a multi-dimensional array without one "
                       "constant axis= (NumPy returns a list of arrays)", "np.gradient")
    axis %= f.rank
    if f.vtype.dtype == "bool" or f.vtype.is_complex:
        raise lw.error(node, f"np.gradient() of a {f.vtype.dtype} array", "np.gradient")
    n = f.extents[axis]
    if not (n.is_const() and n.const > order or not n.is_const() and lw.require(f"{n.text} >= {order + 1}")):
        raise lw.error(node, f"np.gradient() needs at least {order + 1} elements along the axis with "
                       f"edge_order={order} (a ValueError in NumPy)", "np.gradient")
    if coords is not None:
        xs = lw.value(coords)
        if xs.rank != 1 or not (xs.vtype.is_float or xs.vtype.dtype.startswith(("int", "uint"))) \
                or xs.vtype.dtype == "float16":
            raise lw.error(coords, "np.gradient() coordinates other than one 1-d array of real numbers (or a scalar "
                           "spacing)", "np.gradient")
        lw.mismatch(xs.extents[0], n, coords)  # (NumPy's ValueError where they differ)
        if not xs.vtype.is_float:
            coords = ast.Call(ast.Attribute(coords, "astype", ast.Load()),
                              [ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load())], [])
        h = ast.BinOp(_at(coords, 1), ast.Sub(), _at(coords, 0))  # NumPy's diffx[0] where the spacing is uniform
    source: ast.expr = copy.deepcopy(node.args[0])
    if not f.vtype.is_float:
        source = ast.Call(ast.Attribute(source, "astype", ast.Load()),
                          [ast.Attribute(ast.Name(NP_NAME, ast.Load()), "float64", ast.Load())], [])

    def along(part: ast.expr) -> ast.expr:
        index: list[ast.expr] = [ast.Slice(None, None, None) for _ in range(f.rank)]
        index[axis] = part
        return ast.Subscript(copy.deepcopy(source), ast.Tuple(index, ast.Load()) if f.rank > 1 else index[0],
                             ast.Load())

    def num(v: int) -> ast.expr:
        return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))

    def sl(lo: int | None, hi: int | None) -> ast.expr:
        return ast.Slice(None if lo is None else num(lo), None if hi is None else num(hi), None)

    def diff(a: ast.expr, b: ast.expr, scale: ast.expr) -> View:
        return lw.value(_placed(ast.BinOp(ast.BinOp(along(a), ast.Sub(), along(b)), ast.Div(), scale), node))

    def combination(weights: tuple[float, float, float], parts: tuple[ast.expr, ast.expr, ast.expr]) -> View:
        total: ast.expr | None = None
        for weight, part in zip(weights, parts):
            term = ast.BinOp(ast.BinOp(ast.Constant(weight), ast.Div(), copy.deepcopy(h)), ast.Mult(), along(part))
            total = term if total is None else ast.BinOp(total, ast.Add(), term)
        assert total is not None
        return lw.value(_placed(total, node))

    inner = diff(sl(2, None), sl(None, -2), ast.BinOp(ast.Constant(2.0), ast.Mult(), copy.deepcopy(h)))
    if order == 2:
        first = combination((-1.5, 2.0, -0.5), (sl(0, 1), sl(1, 2), sl(2, 3)))
        last = combination((0.5, -2.0, 1.5), (sl(-3, -2), sl(-2, -1), sl(-1, None)))
    else:
        first = diff(sl(1, 2), sl(0, 1), copy.deepcopy(h))
        last = diff(sl(-1, None), sl(-2, -1), copy.deepcopy(h))
    uniform: View | None = None
    if coords is not None:  # NumPy's formulas of uneven spacing, unless every np.diff(x) equals the first
        inner_u, first_u, last_u = inner, first, last
        inner, first, last = _uneven_gradient(lw, node, coords, along, sl, order, f.rank, axis)
        uniform = lw.value(_placed(_np("all", ast.Compare(
            ast.BinOp(_at(coords, sl(1, None)), ast.Sub(), _at(coords, sl(None, -1))), [ast.Eq()], [copy.deepcopy(h)])),
            node))
    if not first.vtype == inner.vtype == last.vtype \
            or uniform is not None and not first_u.vtype == inner_u.vtype == last_u.vtype == inner.vtype:
        raise lw.error(node, "np.gradient(): the end and inside differences differ in dtype", "np.gradient")

    def element(idx):
        k = idx[axis]

        def at(view: View, position) -> ast.expr:
            return view.element(tuple(position if d == axis else i for d, i in enumerate(idx)))

        def pick(views: tuple[View, View, View]) -> ast.expr:
            low = ast.Compare(k.node, [ast.Lt()], [ast.Constant(1)])
            high = ast.Compare(k.node, [ast.GtE()], [(n - const(1)).node])
            return ast.IfExp(low, at(views[0], const(0)), ast.IfExp(high, at(views[2], const(0)),
                                                                    at(views[1], k - const(1))))

        if uniform is None:
            return pick((first, inner, last))
        value = ast.IfExp(uniform.element(()), pick((first_u, inner_u, last_u)), pick((first, inner, last)))
        if vtype.dtype == inner.vtype.dtype:
            return value
        return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), vtype.dtype, ast.Load()), [value], [])

    # NumPy writes into np.empty_like(f) (float64 of integers): float64 coordinates of float32 f
    vtype = inner.vtype if coords is None or not f.vtype.is_float else VType(f.vtype.dtype, False)
    lw.changed = True
    return View(f.extents, vtype, element)


def _at(array: ast.expr, index: int | ast.expr) -> ast.expr:
    return ast.Subscript(copy.deepcopy(array), ast.Constant(index) if isinstance(index, int) else index, ast.Load())


def _uneven_gradient(lw: Lowering, node: ast.Call, coords: ast.expr, along, sl, order: int, rank: int,
                     axis: int) -> tuple[View, View, View]:
    """NumPy's ``np.gradient(f, x)`` of uneven coordinates ``x``: inside ``a * f[:-2] + b * f[1:-1] +
    c * f[2:]`` of the spacings ``dx1 = np.diff(x)[:-1]``, ``dx2 = np.diff(x)[1:]`` (shaped along the
    axis), and the ends of ``edge_order`` 1 or 2, each in NumPy's own arithmetic."""
    def spacing(hi: ast.expr, lo: ast.expr) -> ast.expr:  # x[hi] - x[lo], shaped along the axis
        d: ast.expr = ast.BinOp(_at(coords, hi), ast.Sub(), _at(coords, lo))
        if rank > 1:
            d = _at(d, ast.Tuple([ast.Slice(None, None, None) if k == axis else ast.Constant(None)
                                  for k in range(rank)], ast.Load()))
        return d

    def dx(k: int) -> ast.expr:  # np.diff(x)[k], a scalar: x[k + 1] - x[k], or x[k] - x[k - 1] from the end
        hi, lo = (k + 1, k) if k >= 0 else (k, k - 1)
        return ast.BinOp(_at(coords, sl(hi, None).lower), ast.Sub(), _at(coords, sl(lo, None).lower))

    def parse(template: str, **names: ast.expr) -> ast.expr:
        tree = ast.parse(template, mode="eval").body

        class Fill(ast.NodeTransformer):
            def visit_Name(self, name: ast.Name) -> ast.expr:
                return copy.deepcopy(names[name.id]) if name.id in names else name

        return Fill().visit(tree)

    def formula(template: str, **names: ast.expr) -> View:
        return lw.value(_placed(parse(template, **names), node))

    dx1, dx2 = spacing(sl(1, -1), sl(None, -2)), spacing(sl(2, None), sl(1, -1))  # np.diff(x)[:-1], [1:]
    inner = formula("-(dx2) / (dx1 * (dx1 + dx2)) * f0 + (dx2 - dx1) / (dx1 * dx2) * f1 + dx1 / (dx2 * (dx1 + dx2)) * f2",
                    dx1=dx1, dx2=dx2, f0=along(sl(None, -2)), f1=along(sl(1, -1)), f2=along(sl(2, None)))
    if order == 1:
        first = formula("(f1 - f0) / d", f0=along(sl(0, 1)), f1=along(sl(1, 2)), d=dx(0))
        last = formula("(f1 - f0) / d", f0=along(sl(-2, -1)), f1=along(sl(-1, None)), d=dx(-1))
        return inner, first, last
    first = formula("-(2. * dx1 + dx2) / (dx1 * (dx1 + dx2)) * f0 + (dx1 + dx2) / (dx1 * dx2) * f1"
                    " + -dx1 / (dx2 * (dx1 + dx2)) * f2",
                    dx1=dx(0), dx2=dx(1), f0=along(sl(0, 1)), f1=along(sl(1, 2)), f2=along(sl(2, 3)))
    last = formula("(dx2) / (dx1 * (dx1 + dx2)) * f0 + -(dx2 + dx1) / (dx1 * dx2) * f1"
                   " + (2. * dx2 + dx1) / (dx2 * (dx1 + dx2)) * f2",
                   dx1=dx(-2), dx2=dx(-1), f0=along(sl(-3, -2)), f1=along(sl(-2, -1)), f2=along(sl(-1, None)))
    return inner, first, last


AXES_VIEWS = frozenset(("swapaxes", "moveaxis", "rot90", "atleast_1d", "atleast_2d", "atleast_3d"))


def axes_view(lw: Lowering, node: ast.Call, name: str) -> View | None:
    """``np.swapaxes(a, i, j)``, ``np.moveaxis(a, source, destination)``, ``np.rot90(m, k=1)`` and
    ``np.atleast_Nd(a)`` of an array, as the view NumPy's own code makes (``transpose``, ``flip``,
    ``a[None, :]``)."""
    names = {"swapaxes": ("a", "axis1", "axis2"), "moveaxis": ("a", "source", "destination"),
             "rot90": ("m", "k", "axes")}.get(name, ("arys",))
    given = _given(lw, node, name, names)
    operand = given[names[0]]
    x = lw.value(operand)
    if x.rank == 0:
        return None
    rank = x.rank

    def axis(key: str) -> int:
        value = _axis_value(given[key]) if key in given else None
        if value is None or not -rank <= value < rank:
            raise lw.error(given.get(key, node), f"np.{name}() {key} must be an integer constant within the "
                           f"{rank} axes", f"np.{name}")
        return value % rank

    def transpose(tree: ast.expr, order: list[int]) -> ast.expr:
        return _np("transpose", tree, ast.Tuple([ast.Constant(a) for a in order], ast.Load()))

    def flip(tree: ast.expr, ax: int) -> ast.expr:
        return _np("flip", tree, ast.Constant(ax))

    a = copy.deepcopy(operand)
    if name == "swapaxes":
        order = list(range(rank))
        i, j = axis("axis1"), axis("axis2")
        order[i], order[j] = order[j], order[i]
        tree = transpose(a, order)
    elif name == "moveaxis":
        source, destination = axis("source"), axis("destination")
        order = [n for n in range(rank) if n != source]
        order.insert(destination, source)
        tree = transpose(a, order)
    elif name == "rot90":
        if "axes" in given or rank < 2:
            raise lw.error(node, "np.rot90() of fewer than 2 axes or with axes= (only the first two axes)", "np.rot90")
        k = _axis_value(given["k"]) if "k" in given else 1
        if k is None:
            raise lw.error(given["k"], "np.rot90() k must be an integer constant", "np.rot90")
        swapped = [1, 0, *range(2, rank)]
        tree = {0: lambda: a, 1: lambda: transpose(flip(a, 1), swapped), 2: lambda: flip(flip(a, 0), 1),
                3: lambda: flip(transpose(a, swapped), 1)}[k % 4]()
        if k % 4 == 0:
            tree = ast.Subscript(a, ast.Slice(None, None, None), ast.Load())
    else:
        wanted = int(name[-2])
        if len(node.args) != 1:
            raise lw.error(node, f"np.{name}() of more than one array (NumPy returns a list)", f"np.{name}")
        new = ast.Constant(None)
        full = ast.Slice(None, None, None)
        index = {(2, 1): [new, full], (3, 1): [new, full, new], (3, 2): [full, full, new]}.get((wanted, rank))
        tree = a if index is None else ast.Subscript(a, ast.Tuple(index, ast.Load()), ast.Load())
    lw.changed = True
    return lw.value(_placed(tree, node))


REWRITTEN = frozenset(("take", "cross", "kron", "tensordot", "heaviside", "nan_to_num", "logspace", "geomspace",
                       "hanning", "hamming", "blackman", "bartlett"))
#: NumPy's window functions of n = np.arange(1 - M, M, 2) and the float M, as NumPy writes them
_WINDOWS = {"hanning": f"0.5 + 0.5 * {NP_NAME}.cos({NP_NAME}.pi * n / (M - 1))",
            "hamming": f"0.54 + 0.46 * {NP_NAME}.cos({NP_NAME}.pi * n / (M - 1))",
            "blackman": f"0.42 + 0.5 * {NP_NAME}.cos({NP_NAME}.pi * n / (M - 1)) + 0.08 * {NP_NAME}.cos(2.0 * {NP_NAME}.pi "
                        "* n / (M - 1))",
            "bartlett": f"{NP_NAME}.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))"}


def rewritten(lw: Lowering, node: ast.Call, name: str) -> View | None:
    """``np.take``, ``np.cross``, ``np.kron``, ``np.tensordot`` and ``np.heaviside`` as the NumPy
    expressions they equal (None where an operand is a scalar, for the scalar rules)."""
    names = {"take": ("a", "indices", "axis"), "cross": ("a", "b"), "kron": ("a", "b"),
             "tensordot": ("a", "b", "axes"), "heaviside": ("x1", "x2"),
             "nan_to_num": ("x", "copy", "nan", "posinf", "neginf"),
             "logspace": ("start", "stop", "num", "endpoint", "base"),
             "geomspace": ("start", "stop", "num", "endpoint"),
             **dict.fromkeys(_WINDOWS, ("M",))}[name]
    given = _given(lw, node, name, names)
    if name in _WINDOWS:
        return lw.value(_placed(_window(lw, node, name, given["M"]), node))
    if name == "geomspace":
        lw.changed = True
        return lw.value(_placed(_geomspace(lw, node, given), node))
    if name == "logspace":  # NumPy's: np.power(base, np.linspace(start, stop, num, endpoint))
        if any(lw.value(given[n]).rank for n in ("start", "stop", "base") if n in given):
            raise lw.error(node, "np.logspace() of array start, stop or base", "np.logspace")
        if "stop" not in given:
            raise lw.error(node, "np.logspace() needs start and stop", "np.logspace")
        spaced = _np("linspace", copy.deepcopy(given["start"]), copy.deepcopy(given["stop"]),
                     **{k: copy.deepcopy(given[k]) for k in ("num", "endpoint") if k in given})
        lw.changed = True
        return lw.value(_placed(_np("power", copy.deepcopy(given.get("base", ast.Constant(10.0))), spaced), node))
    if name == "nan_to_num":
        a = lw.value(given["x"])
        if a.rank == 0 and a.vtype == UNKNOWN:
            return None
        lw.changed = True
        return lw.value(_placed(_nan_to_num(lw, node, given, a), node))
    if any(n not in given for n in names[:2]):
        raise lw.error(node, f"np.{name}() needs {' and '.join(names[:2])}", f"np.{name}")
    a = lw.value(given[names[0]])
    if a.rank == 0:
        return None
    tree = {"take": _take, "cross": _cross, "kron": _kron, "tensordot": _tensordot,
            "heaviside": _heaviside}[name](lw, node, given, a)
    lw.changed = True
    return lw.value(_placed(tree, node))


def _window(lw: Lowering, node: ast.Call, name: str, size: ast.expr) -> ast.expr:
    """``np.hanning(M)`` (hamming, blackman, bartlett) of an integer size ``M``: NumPy's own
    formula of ``n = np.arange(1 - M, M, 2)`` (its float64 elements ``2 * i + 1 - M``, exact) and
    the float ``M``; ``[1.0]`` for ``M == 1``, empty for ``M < 1``."""
    m = lw.value(size)
    if m.rank or not (m.vtype.is_int or m.vtype.weak and m.vtype.dtype == "int64"):
        raise lw.error(node, f"np.{name}() of other than an integer size M", f"np.{name}")
    lw.changed = True
    where = {"M": _np("float64", copy.deepcopy(size)),
             "n": ast.BinOp(ast.BinOp(_np("arange", copy.deepcopy(size)), ast.Mult(), ast.Constant(2.0)), ast.Add(),
                            ast.BinOp(ast.Constant(1.0), ast.Sub(), _np("float64", copy.deepcopy(size))))}
    tree = ast.parse(f"{NP_NAME}.where(M == 1.0, 1.0, {_WINDOWS[name]})", mode="eval").body
    return _Substituted(where).visit(tree)


class _Substituted(ast.NodeTransformer):
    """The names ``M`` and ``n`` of a formula replaced by the expressions given."""

    def __init__(self, where: dict[str, ast.expr]) -> None:
        self.where = where

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.where[node.id]) if node.id in self.where else node


def _geomspace(lw: Lowering, node: ast.Call, given: dict[str, ast.expr]) -> ast.expr:
    """NumPy's ``np.geomspace`` of constant real start and stop: ``np.logspace`` of their
    ``log10`` (of both divided by the sign of start, and the result multiplied by it), the first
    element ``start`` and the last ``stop`` exactly (``endpoint=True``).  The logarithms are
    NumPy's own, taken at compile time; a start or stop of 0 (NumPy's ValueError) or of different
    signs (NaNs in NumPy) is refused, as are start and stop that are not constants."""
    if "stop" not in given:
        raise lw.error(node, "np.geomspace() needs start and stop", "np.geomspace")
    try:
        ends = [ast.literal_eval(given[n]) for n in ("start", "stop")]
    except ValueError:
        ends = []
    if not all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in ends) or len(ends) != 2:
        raise lw.error(node, "np.geomspace() of other than constant real start and stop (NumPy raises where one "
                       "is 0)", "np.geomspace")
    start, stop = (np.float64(e) for e in ends)
    sign = np.sign(start)
    if start == 0 or stop == 0 or np.sign(stop) != sign:
        raise lw.error(node, "np.geomspace() of a start or stop of 0 (a ValueError in NumPy) or of start and stop of "
                       "different signs", "np.geomspace")
    start, stop = start / sign, stop / sign
    num = copy.deepcopy(given.get("num", ast.Constant(50)))
    endpoint = given.get("endpoint", ast.Constant(True))
    last = _bool_const(endpoint)
    if last is None:
        raise lw.error(endpoint, "np.geomspace() endpoint= must be True or False", "np.geomspace")
    index = _np("arange", copy.deepcopy(num))
    middle = _np("power", ast.Constant(10.0), _np("linspace", ast.Constant(float(np.log10(start))),
                                                  ast.Constant(float(np.log10(stop))), num, endpoint=ast.Constant(last)))
    tree: ast.expr = middle
    if last:
        at_end = ast.Compare(copy.deepcopy(index), [ast.Eq()], [ast.BinOp(copy.deepcopy(num), ast.Sub(), ast.Constant(1))])
        tree = _np("where", at_end, ast.Constant(float(stop)), tree)
    tree = _np("where", ast.Compare(index, [ast.Eq()], [ast.Constant(0)]), ast.Constant(float(start)), tree)
    return ast.UnaryOp(ast.USub(), tree) if sign < 0 else tree


def _take(lw: Lowering, node: ast.Call, given: dict[str, ast.expr], a: View) -> ast.expr:
    axis = _axis_value(given["axis"]) if "axis" in given else None
    if "axis" not in given and a.rank != 1 or "axis" in given and (axis is None or not -a.rank <= axis < a.rank):
        raise lw.error(node, "np.take() of an array of two or more axes without one constant axis= (NumPy "
                       "flattens it)", "np.take")
    index: list[ast.expr] = [ast.Slice(None, None, None) for _ in range((axis or 0) % a.rank)]
    index.append(copy.deepcopy(given["indices"]))
    return ast.Subscript(copy.deepcopy(given["a"]), index[0] if len(index) == 1 else ast.Tuple(index, ast.Load()),
                         ast.Load())


def _cross(lw: Lowering, node: ast.Call, given: dict[str, ast.expr], a: View) -> ast.expr:
    b = lw.value(given["b"])
    if not b.rank or not all(_is_three(lw, v.extents[-1]) for v in (a, b)):
        raise lw.error(node, "np.cross() of other than 3-vectors along the last axis (the extent 3, a constant "
                       "or assumed and checked per call)", "np.cross")

    def part(name: str, k: int) -> ast.expr:
        return ast.Subscript(copy.deepcopy(given[name]), ast.Tuple([ast.Constant(Ellipsis), ast.Constant(k)],
                                                                    ast.Load()), ast.Load())

    def term(i: int, j: int) -> ast.expr:  # NumPy's own order: a_i * b_j - a_j * b_i
        return ast.BinOp(ast.BinOp(part("a", i), ast.Mult(), part("b", j)), ast.Sub(),
                         ast.BinOp(part("a", j), ast.Mult(), part("b", i)))

    return _np("stack", ast.Tuple([term(1, 2), term(2, 0), term(0, 1)], ast.Load()),
               axis=ast.UnaryOp(ast.USub(), ast.Constant(1)))


def _is_three(lw: Lowering, extent) -> bool:
    if extent.is_const():
        return extent.const == 3
    return lw.require(f"{extent.text} >= 3") and lw.require(f"{extent.text} <= 3")


def _kron(lw: Lowering, node: ast.Call, given: dict[str, ast.expr], a: View) -> ast.expr:
    b = lw.value(given["b"])
    if a.rank != 1 or b.rank != 1:
        from .array_tensordot import kron_tree
        return kron_tree(lw, node, given["a"], given["b"], a, b)
    column = ast.Subscript(copy.deepcopy(given["a"]), ast.Tuple([ast.Slice(None, None, None), ast.Constant(None)],
                                                                 ast.Load()), ast.Load())
    row = ast.Subscript(copy.deepcopy(given["b"]), ast.Tuple([ast.Constant(None), ast.Slice(None, None, None)],
                                                              ast.Load()), ast.Load())
    return _np("ravel", ast.BinOp(column, ast.Mult(), row))


def _tensordot(lw: Lowering, node: ast.Call, given: dict[str, ast.expr], a: View) -> ast.expr:
    b = lw.value(given["b"])
    from .array_tensordot import pairs_spec
    paired = pairs_spec(lw, node, given["axes"], a.rank, b.rank) if "axes" in given else None
    if paired is not None:
        return _np("einsum", ast.Constant(paired), copy.deepcopy(given["a"]), copy.deepcopy(given["b"]))
    k = _axis_value(given["axes"]) if "axes" in given else 2
    if k is None or k < 0 or k > min(a.rank, b.rank) or a.rank + b.rank - k > 26:
        raise lw.error(node, "np.tensordot() axes= must be a non-negative integer constant within both ranks "
                       "or a pair of axis lists", "np.tensordot")
    if a.rank + b.rank == 2 * k:
        raise lw.error(node, "np.tensordot() over every axis (NumPy returns a 0-d array; use np.sum(a * b))",
                       "np.tensordot")
    letters = "abcdefghijklmnopqrstuvwxyz"
    kept_a, summed, kept_b = letters[:a.rank - k], letters[a.rank - k:a.rank], letters[a.rank:a.rank + b.rank - k]
    spec = f"{kept_a}{summed},{summed}{kept_b}->{kept_a}{kept_b}"
    return _np("einsum", ast.Constant(spec), copy.deepcopy(given["a"]), copy.deepcopy(given["b"]))


def _nan_to_num(lw: Lowering, node: ast.Call, given: dict[str, ast.expr], a: View) -> ast.expr:
    """``np.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)`` of a real array: NaN,
    +inf and -inf replaced (by default with 0.0 and the dtype's largest and smallest finite
    values), cast to ``x``'s dtype; an integer or bool array copied."""
    flag = given.get("copy")
    if flag is not None and not (isinstance(flag, ast.Constant) and flag.value is True) \
            and not (a.rank == 0 and isinstance(flag, ast.Constant) and flag.value is False):
        raise lw.error(flag, "np.nan_to_num() with copy= other than True (copy=False writes into x "
                       "and returns it; write x[...] = np.nan_to_num(x))", "np.nan_to_num")
    x = given["x"]
    if a.vtype.is_complex:
        raise lw.error(node, "np.nan_to_num() of a complex array", "np.nan_to_num")
    if not a.vtype.is_float:
        if a.rank == 0:  # a NumPy scalar of x's dtype (np.nan_to_num(3) is np.int64(3))
            return _np("bool_" if a.vtype.dtype == "bool" else a.vtype.dtype, copy.deepcopy(x))
        return ast.Call(ast.Attribute(copy.deepcopy(x), "copy", ast.Load()), [], [])
    info = np.finfo(a.vtype.dtype)
    values: dict[str, ast.expr] = {"nan": ast.Constant(0.0), "posinf": ast.Constant(float(info.max)),
                                   "neginf": ast.Constant(float(info.min))}
    for key in values:
        part = given.get(key)
        if part is not None and not (isinstance(part, ast.Constant) and part.value is None):
            value = lw.value(part)
            if value.rank or not (value.vtype.is_float or value.vtype.is_int) or value.vtype.is_complex:
                raise lw.error(part, f"np.nan_to_num() {key}= other than a real number", "np.nan_to_num")
            values[key] = _np(a.vtype.dtype, copy.deepcopy(part))  # NumPy casts it to x's dtype
    inf = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "inf", ast.Load())
    if a.rank == 0:  # a scalar (np.nan_to_num(x[i] / y)): a NumPy scalar of x's dtype, strong
        x = _np(a.vtype.dtype, copy.deepcopy(x))
    ends = _np("where", ast.Compare(copy.deepcopy(x), [ast.Eq()], [inf]), values["posinf"],
               _np("where", ast.Compare(copy.deepcopy(x), [ast.Eq()], [ast.UnaryOp(ast.USub(), copy.deepcopy(inf))]),
                   values["neginf"], copy.deepcopy(x)))
    return _np("where", _np("isnan", copy.deepcopy(x)), values["nan"], ends)


def _heaviside(lw: Lowering, node: ast.Call, given: dict[str, ast.expr], a: View) -> ast.expr:
    if not a.vtype.is_float or a.vtype.is_complex or not lw.value(given["x2"]).vtype.is_float:
        raise lw.error(node, "np.heaviside() of other than real floats", "np.heaviside")
    x1 = copy.deepcopy(given["x1"])
    inner = _np("where", ast.Compare(x1, [ast.Lt()], [ast.Constant(0)]), _np("zeros_like", copy.deepcopy(x1)),
                _np("where", ast.Compare(copy.deepcopy(x1), [ast.Eq()], [ast.Constant(0)]),
                    copy.deepcopy(given["x2"]), _np("ones_like", copy.deepcopy(x1))))
    return _np("where", _np("isnan", copy.deepcopy(x1)), copy.deepcopy(x1), inner)
