"""NumPy calls with a static shape, lowered as views and formulas of the operations
``frontend.arrays`` already has (part of its lowering):

- ``np.pad(x, pad_width, mode='constant', constant_values=0)`` and ``mode='edge'`` with constant
  widths: each axis padded in turn, affine pieces chosen by the index (a new array).
- ``np.diff(x, n=1, axis=-1)``: ``x[1:] - x[:-1]`` along the axis, ``n`` times (``!=`` for
  bools, as NumPy); each extent is assumed at least ``n`` (checked per call).
- ``np.roll(x, shift, axis=None)`` with a constant shift (``axis=None`` only of a vector):
  element ``k`` along the axis is ``x``'s element ``(k - shift) mod n``, written as two affine
  pieces chosen by ``k`` (the extent is assumed at least ``|shift|``, checked per call).
- ``np.round(x, decimals=0)`` / ``np.around`` / ``x.round()`` of real arrays: NumPy's own
  algorithm, ``rint(x * 10**d) / 10**d`` (``rint(x / 10**-d) * 10**-d`` for ``d < 0``, ``rint``
  alone for 0); integer arrays with ``d >= 0`` are copied.
- ``np.trace(A)``: the sum of ``A[i, i]`` over ``min`` of the extents (2-d, no offset).
- ``np.diag(A)`` / ``np.diagonal(A)`` / ``A.diagonal()`` of a 2-d array: a copy of its main
  diagonal; ``np.diag(v)`` of a vector: the square matrix with ``v`` on the diagonal, 0 elsewhere
  (no ``k=``/``offset=``).
- ``np.count_nonzero(x, axis=None, keepdims=False)``: the number of ``x != 0``, ``np.int64``s.
- ``np.ptp(x, axis=None, keepdims=False)``: ``max - min``.
- ``np.isclose(a, b, rtol, atol, equal_nan)`` of arrays and ``np.allclose``: NumPy's test,
  ``a == b`` or both finite and ``|a - b| <= atol + rtol * |b|`` (NaNs equal with
  ``equal_nan=True``); ``allclose`` is ``bool(all(...))``.
"""

from __future__ import annotations

import ast
import copy

from .array_builders import BUILDERS, builder_value, names_window_view
from .array_formulas import (
    AXES_VIEWS,
    NAN_REDUCTIONS,
    REWRITTEN,
    TRAPEZOID,
    axes_view,
    gradient,
    nan_reduction,
    rewritten,
    trapezoid,
)
from .array_select import select
from .array_ufunc_formulas import FORMULAS, formula_value
from .arrays import NP_NAME, Lowering, Sym, View, _bool_const, _int_const, _is_none, const, smax, smin, sym_of
from .extent_facts import is_affine
from .source import walk
from .types import BOOL

_NAMES = frozenset(("pad", "diff", "roll", "round", "around", "trace", "count_nonzero", "ptp", "isclose", "allclose",
                    "diag", "diagonal", "array_equal"))


def idiom_value(lw: Lowering, node: ast.Call, module: str | None, name: str) -> View | None:
    """The value of one of the calls above; None for any other call (or a scalar operand)."""
    if module == "np" and name in NAN_REDUCTIONS:
        return nan_reduction(lw, node, name)
    if module == "np" and name in TRAPEZOID:
        return trapezoid(lw, node, name)
    if module == "np" and name == "gradient":
        return gradient(lw, node)
    if module == "np" and name in AXES_VIEWS:
        return axes_view(lw, node, name)
    if module == "np" and name in REWRITTEN:
        return rewritten(lw, node, name)
    if module == "np" and name in BUILDERS or name == "sliding_window_view" \
            and names_window_view(node.func, lw.globals):  # np.broadcast_to, np.vander, ... (frontend/array_builders.py)
        return builder_value(lw, node, name)
    if module == "np" and name == "select":
        return select(lw, node)  # frontend/array_select.py
    if module == "np" and name in FORMULAS:  # np.sinc, np.fix (frontend/array_ufunc_formulas.py)
        return formula_value(lw, node, name)
    if name not in _NAMES:
        return None
    func = node.func
    if module == "np" and node.args:
        operand, rest = node.args[0], list(node.args[1:])
    elif module is None and isinstance(func, ast.Attribute) and name in ("round", "diagonal", "trace"):
        operand, rest = func.value, list(node.args)
    else:
        return None
    if name in ("isclose", "allclose"):
        return _close(lw, node, name)
    if name == "array_equal":
        return _array_equal(lw, node)
    x = lw.value(operand)
    if x.rank == 0:
        return None
    if name == "pad":
        return _pad(lw, node, x, rest)
    options = _options(lw, node, name, rest)
    if name == "diff" and ({"prepend", "append"} & set(options)):
        x = _extended(lw, node, operand, x, options)
    return {"diff": _diff, "roll": _roll, "round": _round, "around": _round, "trace": _trace,
            "count_nonzero": _count, "ptp": _ptp, "diag": _diag, "diagonal": _diag}[name](lw, node, x, options)


_POSITIONAL = {"diff": ("n", "axis"), "roll": ("shift", "axis"), "round": ("decimals",), "around": ("decimals",),
               "trace": (), "count_nonzero": ("axis",), "ptp": ("axis",), "diag": ("k",), "diagonal": ("offset",)}
_KEYWORDS = {"diff": ("n", "axis", "prepend", "append"), "roll": ("shift", "axis"), "round": ("decimals",), "around": ("decimals",),
             "trace": (), "count_nonzero": ("axis", "keepdims"), "ptp": ("axis", "keepdims"), "diag": ("k",),
             "diagonal": ("offset",)}


def _options(lw: Lowering, node: ast.Call, name: str, rest: list[ast.expr]) -> dict[str, ast.expr]:
    if len(rest) > len(_POSITIONAL[name]):
        raise lw.error(node, f"np.{name}() with more arguments than {', '.join(('a',) + _POSITIONAL[name])}",
                       f"np.{name}")
    given = dict(zip(_POSITIONAL[name], rest))
    for kw in node.keywords:
        if kw.arg not in _KEYWORDS[name] or kw.arg in given:
            raise lw.error(kw.value if kw.arg else node, f"np.{name}() with {kw.arg}= is not supported",
                           f"np.{name}")
        given[str(kw.arg)] = kw.value
    return given


def _constant(lw: Lowering, node: ast.Call, options: dict[str, ast.expr], key: str, default: int | None,
              what: str) -> int | None:
    if key not in options or (default is None and _is_none(options[key])):
        return default
    value = _int_const(options[key])
    if value is None:
        raise lw.error(options[key], f"{what} must be an integer constant", what.split()[0])
    return value


def _axis(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr], default: int | None,
          what: str) -> int | None:
    axis = _constant(lw, node, options, "axis", default, f"{what} axis=")
    if axis is None:
        return None
    if not -x.rank <= axis < x.rank:
        raise lw.error(options.get("axis", node), f"{what}: axis {axis} is out of bounds for {x.rank}-d "
                       "(an AxisError in NumPy)", what)
    return axis % x.rank


def _at_least(lw: Lowering, node: ast.Call, extent, count: int, what: str, empty: bool = False) -> None:
    """``extent >= count``, proven or assumed (checked per call); with ``empty``, or 0."""
    if extent.is_const():
        if extent.const < count and not (empty and extent.const == 0):
            raise lw.error(node, f"{what} of an axis of {extent.const} elements (needs at least {count})", what)
        return
    if empty and not lw.in_loop(extent) and not lw.proven(f"{extent.text} >= {count}"):
        lw.assumed.append(ast.parse(f"{extent.text} == 0 or {extent.text} >= {count}", mode="eval").body)
        return
    if not lw.require(f"{extent.text} >= {count}"):
        raise lw.error(node, f"{what}: cannot tell that the axis has at least {count} elements", what)


def _diff(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr]) -> View:
    n = _constant(lw, node, options, "n", 1, "np.diff() n=")
    axis = _axis(lw, node, x, options, -1, "np.diff()")
    assert n is not None and axis is not None
    if n < 0:
        raise lw.error(node, "np.diff() with n < 0 (a ValueError in NumPy)", "np.diff")
    for _ in range(n):  # each a length one less, NumPy's 0 where it comes out negative (Lowering.slice)
        extents = tuple(e - const(1) if d == axis else e for d, e in enumerate(x.extents))

        def later(idx, x=x):
            return x.element(tuple(k + const(1) if d == axis else k for d, k in enumerate(idx)))

        hi, lo = View(extents, x.vtype, later), View(extents, x.vtype, x.element)
        if x.vtype.dtype == "bool":
            x = lw.elementwise(lambda a, b: ast.Compare(a, [ast.NotEq()], [b]), [hi, lo], BOOL)
        else:
            x = lw.binop(node, ast.Sub(), hi, lo)
    lw.changed = True
    return View(x.extents, x.vtype, x.element)  # a new array, never a view


def _extended(lw: Lowering, node: ast.Call, operand: ast.expr, x: View, options: dict[str, ast.expr]) -> View:
    """``np.diff(x, prepend=p, append=a)`` of a vector and scalars: the difference of
    ``np.concatenate(([p], x, [a]))``, NumPy's own first step (the scalars become int64 or
    float64 arrays there, so ``prepend=0`` of a float32 vector gives float64, as in NumPy)."""
    ends = {k: options.pop(k) for k in ("prepend", "append") if k in options}
    listed = [e for e in ends.values() if isinstance(e, (ast.List, ast.Tuple))]  # [0.0, 0.0]: joined as it is
    if x.rank != 1 or any(lw.value(e).rank > 1 for e in ends.values() if e not in listed) \
            or any(isinstance(v, (ast.List, ast.Tuple, ast.Starred)) for e in listed for v in e.elts):
        raise lw.error(node, "np.diff() with prepend= or append= other than scalars or 1-d arrays of a 1-d array",
                       "np.diff")

    def piece(end: ast.expr) -> ast.expr:  # a scalar becomes a 1-element array, a 1-d one is joined as it is
        if end in listed or lw.value(end).rank:
            return copy.deepcopy(end)
        return ast.List([copy.deepcopy(end)], ast.Load())

    pieces: list[ast.expr] = [copy.deepcopy(operand)]
    if "prepend" in ends:
        pieces.insert(0, piece(ends["prepend"]))
    if "append" in ends:
        pieces.append(piece(ends["append"]))
    joined = ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "concatenate", ast.Load()),
                      [ast.Tuple(pieces, ast.Load())], [])
    for part in walk(joined):
        if isinstance(part, ast.expr):
            ast.copy_location(part, node)
    return lw.value(joined)


def _roll(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr]) -> View:
    if "shift" not in options:
        raise lw.error(node, "np.roll() needs a shift", "np.roll")
    shifts, axes = options["shift"], options.get("axis")
    if isinstance(shifts, ast.Tuple) or isinstance(axes, ast.Tuple):  # one roll per (shift, axis) pair
        pairs = _roll_pairs(shifts, axes)
        if pairs is None:
            raise lw.error(node, "np.roll() with tuples: shift= and axis= tuples of integer constants (a single "
                           "shift for every axis, or one per axis)", "np.roll")
        for by, along in pairs:
            x = _roll(lw, node, x, {"shift": ast.Constant(by), "axis": ast.Constant(along)})
        return x
    shift = _int_const(options["shift"]) if not _is_none(options["shift"]) else None
    if shift is None:
        raise lw.error(options["shift"], "np.roll() shift: an integer constant, or an integer expression of "
                       "array arguments' sizes and integer arguments the kernel does not bind again "
                       "(x.shape[0] // 2, len(x) - s; locals bound once to such), of an array argument or a "
                       "roll of one", "np.roll")
    axis = _axis(lw, node, x, options, None, "np.roll()")
    if axis is None:
        if x.rank != 1:
            raise lw.error(node, f"np.roll() of a {x.rank}-d array without axis= (NumPy rolls it flattened; "
                           "give axis=)", "np.roll")
        axis = 0
    lw.changed = True
    n = x.extents[axis]
    if n.is_const() and n.const > 0:
        shift %= n.const  # NumPy rolls by shift mod n
    if shift == 0:
        return View(x.extents, x.vtype, x.element)
    _at_least(lw, node, n, abs(shift), "np.roll()", empty=True)

    def element(idx):
        k = idx[axis]
        at = [list(idx), list(idx)]
        if shift > 0:  # k >= shift: k - shift, else k - shift + n
            test = ast.Compare(k.node, [ast.GtE()], [ast.Constant(shift)])
            at[0][axis], at[1][axis] = k - const(shift), k - const(shift) + n
        else:  # k < n + shift: k - shift, else k - shift - n
            test = ast.Compare(k.node, [ast.Lt()], [(n + const(shift)).node])
            at[0][axis], at[1][axis] = k - const(shift), k - const(shift) - n
        return ast.IfExp(test, x.element(tuple(at[0])), x.element(tuple(at[1])))

    return View(x.extents, x.vtype, element)


def _roll_pairs(shifts: ast.expr, axes: ast.expr | None) -> list[tuple[int, int]] | None:
    """NumPy's broadcast of ``shift`` and ``axis`` tuples into (shift, axis) pairs (constants only)."""
    def ints(node: ast.expr | None) -> list[int] | None:
        items = node.elts if isinstance(node, ast.Tuple) else [node] if node is not None else []
        values = [_int_const(e) for e in items]
        return None if not values or any(v is None for v in values) else [v for v in values if v is not None]
    s, a = ints(shifts), ints(axes)
    if s is None or a is None or len(s) != len(a) and 1 not in (len(s), len(a)):
        return None
    n = max(len(s), len(a))
    return list(zip(s * n if len(s) == 1 else s, a * n if len(a) == 1 else a))


def _round(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr]) -> View:
    decimals = _constant(lw, node, options, "decimals", 0, "np.round() decimals=")
    assert decimals is not None
    if x.vtype.is_complex or x.vtype.dtype == "bool":
        raise lw.error(node, f"np.round() of a {x.vtype.dtype} array", "np.round")
    lw.changed = True
    if not x.vtype.is_float:
        if decimals < 0:
            raise lw.error(node, "np.round() of integers with decimals < 0", "np.round")
        return View(x.extents, x.vtype, x.element)

    def rint(v: ast.expr) -> ast.expr:
        return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "rint", ast.Load()), [v], [])

    if decimals == 0:
        return lw.elementwise(rint, [x], x.vtype)
    factor = ast.Constant(10.0 ** abs(decimals))  # a Python float (weak), as NumPy's own factor
    first, then = (ast.Mult(), ast.Div()) if decimals > 0 else (ast.Div(), ast.Mult())
    return lw.elementwise(lambda v: ast.BinOp(rint(ast.BinOp(v, first, factor)), then, copy.deepcopy(factor)),
                          [x], x.vtype)


def _trace(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr]) -> View:
    if x.rank != 2:
        raise lw.error(node, f"np.trace() of a {x.rank}-d array (only 2-d)", "np.trace")
    diagonal = View((smin(x.extents[0], x.extents[1]),), x.vtype, lambda idx: x.element((idx[0], idx[0])))
    return lw.reduction(node, "sum", diagonal, [], {})


def _diag(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr]) -> View:
    """``np.diag(A, k)`` (``np.diagonal(A, offset)``, ``A.diagonal(offset)``) of a 2-d ``A``: the
    ``k``-th diagonal, ``A[i, i + k]`` (``A[i - k, i]`` below), of NumPy's length
    ``max(0, min(n, m - k))`` (``min(n + k, m)`` below: empty where it misses); ``np.diag(v, k)``
    of a 1-d ``v``: the square matrix of side ``len(v) + |k|`` with ``v`` on that diagonal."""
    diagonal = isinstance(node.func, ast.Attribute) and node.func.attr == "diagonal"
    key = "offset" if diagonal else "k"
    k = _constant(lw, node, options, key, 0, f"np.{'diagonal' if diagonal else 'diag'}() {key}=")
    assert k is not None
    lw.changed = True
    if x.rank == 2:
        rows, cols = (x.extents[0], x.extents[1] - const(k)) if k >= 0 else (x.extents[0] + const(k), x.extents[1])
        extent = smax(const(0), smin(rows, cols)) if k else smin(rows, cols)
        return View((extent,), x.vtype, lambda idx: x.element((idx[0], idx[0] + const(k)) if k >= 0
                                                             else (idx[0] - const(k), idx[0])))
    if x.rank != 1 or diagonal:
        raise lw.error(node, f"np.diag() of a {x.rank}-d array (NumPy takes 1-d or 2-d)", "np.diag")
    cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if x.vtype.dtype == "bool" else x.vtype.dtype,
                         ast.Load())

    def element(idx):  # (row, col) holds v[row] on the diagonal k >= 0, v[col] below it
        row, col = idx
        on = ast.Compare(col.node, [ast.Eq()], [(row + const(k)).node])
        return ast.IfExp(on, x.element((row if k >= 0 else col,)), ast.Call(cast, [ast.Constant(0)], []))

    side = x.extents[0] + const(abs(k))
    return View((side, side), x.vtype, element)


def _pad(lw: Lowering, node: ast.Call, x: View, rest: list[ast.expr]) -> View:
    """``np.pad(x, pad_width, mode='constant', constant_values=0)`` (or ``mode='edge'``) with
    constant widths: a new array, each axis in turn padded as NumPy pads it (the constant
    converted to ``x``'s dtype as NumPy's assignment converts it; ``'edge'`` repeats the first and
    last element), written as affine pieces chosen by the index."""
    given = dict(zip(("pad_width", "mode"), rest))
    for kw in node.keywords:
        if kw.arg not in ("pad_width", "mode", "constant_values") or kw.arg in given:
            raise lw.error(kw.value if kw.arg else node, f"np.pad() with {kw.arg}= is not supported", "np.pad")
        given[str(kw.arg)] = kw.value
    if len(rest) > 2 or "pad_width" not in given:
        raise lw.error(node, "np.pad(x, pad_width, mode='constant', constant_values=0)", "np.pad")
    mode = given.get("mode", ast.Constant("constant"))
    if not (isinstance(mode, ast.Constant) and mode.value in ("constant", "edge", *_MIRRORED)):
        raise lw.error(mode, "np.pad() mode must be 'constant', 'edge', 'reflect', 'symmetric' or 'wrap'",
                       "np.pad")
    constant_widths = _pad_widths(given["pad_width"], x.rank)
    widths = [(const(b), const(a)) for b, a in constant_widths] if constant_widths is not None \
        else _size_widths(lw, given["pad_width"], x.rank)
    if widths is None:
        raise lw.error(given["pad_width"], "np.pad() pad_width must be a non-negative integer constant, a pair of "
                       "them, or one pair per axis (or one size, or a pair of sizes: integer arguments and "
                       "expressions of them)", "np.pad")
    fill = given.get("constant_values", ast.Constant(0))
    if mode.value != "constant" and "constant_values" in given:
        raise lw.error(fill, f"np.pad() constant_values= with mode={mode.value!r} (NumPy raises ValueError)",
                       "np.pad")
    for axis, pair in enumerate(widths):  # one reflection: NumPy repeats it for wider pads
        for width in pair:
            if mode.value in _MIRRORED and not width.is_const(0) and not lw.require(
                    f"{x.extents[axis].text} >= {(width + const(_MIRRORED[mode.value])).text}"):
                raise lw.error(given["pad_width"], f"np.pad() mode={mode.value!r} of an axis that may be shorter "
                               f"than {(width + const(_MIRRORED[mode.value])).text} (the pad mirrors more than once)",
                               "np.pad")
    if lw.value(fill).rank or lw.value(fill).vtype.is_complex and not x.vtype.is_complex:
        raise lw.error(fill, "np.pad() constant_values must be a real scalar (a number or a scalar value)", "np.pad")
    cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if x.vtype.dtype == "bool" else x.vtype.dtype,
                         ast.Load())
    lw.changed = True
    for axis, (before, after) in enumerate(widths):
        if not (before.is_const(0) and after.is_const(0)):
            x = _pad_axis(x, axis, before, after, mode.value,
                          lambda: ast.copy_location(ast.Call(cast, [copy.deepcopy(fill)], []), node))
    return View(x.extents, x.vtype, x.element)  # a new array, never a view


#: np.pad's mirrored modes -> how much longer than the pad width the axis must be for one mirror
_MIRRORED = {"reflect": 1, "symmetric": 0, "wrap": 0}


def _pad_widths(node: ast.expr, rank: int) -> list[tuple[int, int]] | None:
    """NumPy's pad_width of constants, broadcast to one (before, after) pair per axis."""
    one = _int_const(node)
    if one is not None:
        return [(one, one)] * rank if one >= 0 else None
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    if all(_int_const(e) is not None for e in node.elts) and len(node.elts) in (1, 2):
        pair = [_int_const(e) for e in node.elts]
        b, a = (pair[0], pair[-1])
        return [(b, a)] * rank if b is not None and a is not None and b >= 0 and a >= 0 else None
    pairs = [_pad_widths(e, 1) for e in node.elts]
    if any(p is None for p in pairs) or len(pairs) not in (1, rank):
        return None
    flat = [p[0] for p in pairs if p is not None]
    return flat * rank if len(flat) == 1 else flat


def _size_widths(lw: Lowering, node: ast.expr, rank: int) -> list[tuple[Sym, Sym]] | None:
    """pad_width as sizes: one integer expression of the arguments (``k``, ``w // 2``) or a pair
    of them, the same for every axis, each proven or assumed non-negative; None otherwise."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == 2 else [node]
    found: list[Sym] = []
    for item in items:
        if isinstance(item, (ast.Tuple, ast.List, ast.Starred)):
            return None
        value = lw.value(item)
        if value.rank or not value.vtype.dtype.startswith(("int", "uint")):
            return None
        width: Sym | None = sym_of(item)
        if width is not None and not (width.is_const() or is_affine(width.node, lw.params)):
            width = lw.call_time_size(item)
        if width is None or not lw.require(f"{width.text} >= 0"):
            return None
        found.append(width)
    return [(found[0], found[-1])] * rank


def _pad_axis(x: View, axis: int, before: Sym, after: Sym, mode: str, fill) -> View:
    n = x.extents[axis]
    extents = tuple(e + before + after if d == axis else e for d, e in enumerate(x.extents))

    def at(idx, k):
        return x.element(tuple(k if d == axis else i for d, i in enumerate(idx)))

    def element(idx):
        k = idx[axis]
        inside = at(idx, k - before)
        low = ast.Compare(k.node, [ast.Lt()], [before.node])
        high = ast.Compare(k.node, [ast.GtE()], [(n + before).node])
        if mode == "edge":
            edge_lo, edge_hi = at(idx, const(0)), at(idx, n - const(1))
            return ast.IfExp(low, edge_lo, ast.IfExp(high, edge_hi, inside))
        if mode in _MIRRORED:  # position p = k - before, mirrored (or wrapped) once into [0, n)
            p = k - before
            lo, hi = {"reflect": (const(0) - p, n.scale(2) - const(2) - p),
                      "symmetric": (const(-1) - p, n.scale(2) - const(1) - p),
                      "wrap": (p + n, p - n)}[mode]
            return ast.IfExp(low, at(idx, lo), ast.IfExp(high, at(idx, hi), inside))
        return ast.IfExp(ast.BoolOp(ast.Or(), [low, high]), fill(), inside)

    return View(extents, x.vtype, element)


def _truth(lw: Lowering, x: View) -> View:
    if x.vtype.dtype == "bool":
        return x
    return lw.elementwise(lambda v: ast.Compare(v, [ast.NotEq()], [ast.Constant(0)]), [x], BOOL)


def _count(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr]) -> View:
    return lw.reduction(node, "sum", _truth(lw, x), [], dict(options))  # np.int64s, as NumPy 2 returns


def _ptp(lw: Lowering, node: ast.Call, x: View, options: dict[str, ast.expr]) -> View:
    if x.vtype.dtype == "bool":
        raise lw.error(node, "np.ptp() of a boolean array (NumPy refuses the subtraction)", "np.ptp")
    largest = lw.reduction(node, "max", x, [], dict(options))
    smallest = lw.reduction(node, "min", x, [], dict(options))
    return lw.binop(node, ast.Sub(), largest, smallest)


def _close(lw: Lowering, node: ast.Call, name: str) -> View | None:
    given = dict(zip(("a", "b", "rtol", "atol", "equal_nan"), node.args))
    for kw in node.keywords:
        if kw.arg not in ("a", "b", "rtol", "atol", "equal_nan") or kw.arg in given:
            raise lw.error(node, f"np.{name}() with {kw.arg}= is not supported", f"np.{name}")
        given[str(kw.arg)] = kw.value
    if "a" not in given or "b" not in given or len(node.args) > 5:
        raise lw.error(node, f"np.{name}(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)", f"np.{name}")
    a, b = lw.value(given["a"]), lw.value(given["b"])
    if a.rank == 0 and b.rank == 0:
        return None
    if a.vtype.is_complex or b.vtype.is_complex:
        raise lw.error(node, f"np.{name}() of complex values", f"np.{name}")
    tolerances = [given.get("rtol", ast.Constant(1e-05)), given.get("atol", ast.Constant(1e-08))]
    for t in tolerances:
        if lw.value(t).rank:
            raise lw.error(t, f"np.{name}() tolerances must be scalars", f"np.{name}")
    equal_nan = _bool_const(given.get("equal_nan", ast.Constant(False)))
    if equal_nan is None:
        raise lw.error(node, f"np.{name}() equal_nan= must be True or False", f"np.{name}")

    def np_call(fn: str, *args: ast.expr) -> ast.expr:
        return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), fn, ast.Load()), list(args), [])

    def A() -> ast.expr:
        return copy.deepcopy(given["a"])

    def B() -> ast.expr:
        return copy.deepcopy(given["b"])

    near = ast.Compare(np_call("abs", ast.BinOp(A(), ast.Sub(), B())), [ast.LtE()],
                       [ast.BinOp(copy.deepcopy(tolerances[1]), ast.Add(),
                                  ast.BinOp(copy.deepcopy(tolerances[0]), ast.Mult(), np_call("abs", B())))])
    finite = ast.BinOp(np_call("isfinite", A()), ast.BitAnd(), np_call("isfinite", B()))
    test: ast.expr = ast.BinOp(ast.Compare(A(), [ast.Eq()], [B()]), ast.BitOr(),
                               ast.BinOp(finite, ast.BitAnd(), near))
    if equal_nan:
        test = ast.BinOp(test, ast.BitOr(), ast.BinOp(np_call("isnan", A()), ast.BitAnd(), np_call("isnan", B())))
    if name == "allclose":
        test = ast.Call(ast.Name("bool", ast.Load()), [np_call("all", test)], [])
    for part in walk(test):
        if isinstance(part, (ast.expr, ast.stmt)):
            ast.copy_location(part, node)
    return lw.value(test)


def _array_equal(lw: Lowering, node: ast.Call) -> View | None:
    """``np.array_equal(a1, a2, equal_nan=False)``: False where the shapes differ (of different
    ranks or constant extents at compile time, else tested per call), else whether every element
    is equal (``equal_nan=True``: NaN equals NaN).  The elements are compared over the common
    extents, so no call assumes the shapes equal."""
    given = dict(zip(("a1", "a2", "equal_nan"), node.args))
    for kw in node.keywords:
        if kw.arg not in ("a1", "a2", "equal_nan") or kw.arg in given:
            raise lw.error(node, f"np.array_equal() with {kw.arg}= is not supported", "np.array_equal")
        given[kw.arg] = kw.value
    if "a1" not in given or "a2" not in given or len(node.args) > 3:
        raise lw.error(node, "np.array_equal(a1, a2, equal_nan=False)", "np.array_equal")
    a, b = lw.value(given["a1"]), lw.value(given["a2"])
    if a.rank == 0 and b.rank == 0:
        return None
    equal_nan = _bool_const(given.get("equal_nan", ast.Constant(False)))
    if equal_nan is None:
        raise lw.error(node, "np.array_equal() equal_nan= must be True or False", "np.array_equal")
    lw.changed = True
    if a.rank != b.rank or any(x.is_const() and y.is_const() and x.const != y.const
                               for x, y in zip(a.extents, b.extents)):
        return lw.value(ast.copy_location(ast.Constant(False), node))
    tests: list[ast.expr] = [ast.Compare(copy.deepcopy(x.node), [ast.Eq()], [copy.deepcopy(y.node)])
                             for x, y in zip(a.extents, b.extents) if not lw.equal_extents(x, y)]
    extents = tuple(x if lw.equal_extents(x, y) else smin(x, y) for x, y in zip(a.extents, b.extents))
    nan = equal_nan and (a.vtype.is_float or a.vtype.is_complex) and (b.vtype.is_float or b.vtype.is_complex)

    def same(idx: tuple[Sym, ...]) -> ast.expr:
        test: ast.expr = ast.Compare(a.element(idx), [ast.Eq()], [b.element(idx)])
        if nan:
            isnan = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "isnan", ast.Load())
            test = ast.BinOp(test, ast.BitOr(), ast.BinOp(ast.Call(isnan, [a.element(idx)], []), ast.BitAnd(),
                                                          ast.Call(copy.deepcopy(isnan), [b.element(idx)], [])))
        return test

    total = lw.reduction(node, "all", View(extents, BOOL, same), [], {})
    result = ast.Call(ast.Name("bool", ast.Load()), [ast.BoolOp(ast.And(), [*tests, total.element(())])
                                                     if tests else total.element(())], [])
    for part in walk(result):
        if isinstance(part, ast.expr):
            ast.copy_location(part, node)
    return lw.value(result)
