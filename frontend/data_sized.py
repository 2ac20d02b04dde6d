"""Returned NumPy values whose length depends on the data (part of ``frontend.growing_lists``).

``return np.nonzero(m)[0]``, ``np.flatnonzero(m)``, ``np.where(m)[0]``, ``np.argwhere(m)`` (a row
of indices per true element; ``.ravel()`` of a 1-d ``m``'s is ``np.nonzero(m)[0]``), ``x[mask]``,
``np.extract(mask, x)`` and ``np.unique(x)`` as the returned value (or an item of the returned
tuple) become a compaction loop into a buffer of the largest size plus a count, returned as
``buf[:count]`` (growing_lists' returned prefixes)::

    m__ = m                                 # the NumPy value, computed by the lowering
    buf = np.empty(m__.shape[0], dtype=np.int64)
    buf__n = 0
    for i__ in range(m__.shape[0]):
        if m__[i__]:                        # nonzero: Python's truth of the element
            buf[buf__n] = i__
            buf__n += 1

The loop visits the elements in C order, as NumPy does, so the result is NumPy's exactly.
Only values whose rank (and, for a mask, bool dtype) this pass can tell from the arguments are
taken: arguments, constants, comparisons, arithmetic, ``~``/``&``/``|``/``^``, elementwise
``np.*`` calls of those, and basic slices; anything else keeps the lowering's refusal.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .checker import module_of
from .source import map_blocks, walk

_ELEMENTWISE = frozenset((
    "abs", "absolute", "sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "sign", "floor",
    "ceil", "round", "rint", "negative", "square", "maximum", "minimum", "fmax", "fmin", "add", "subtract",
    "multiply", "divide", "mod", "remainder", "copysign", "arctan2", "hypot", "fmod", "power", "floor_divide",
    "true_divide", "expm1", "log1p", "trunc", "cbrt", "exp2"))
_PREDICATES = frozenset(("isnan", "isfinite", "isinf", "logical_and", "logical_or", "logical_xor", "logical_not",
                         "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "signbit",
                         "isclose"))


@dataclass(frozen=True)
class Shape:
    """What this pass knows of a value: its rank and whether it is a bool array."""

    rank: int
    boolean: bool


@dataclass(frozen=True)
class Selection:
    """The statements that fill ``buffer`` and count into ``count``, placed before the return."""

    statements: list[ast.stmt]
    buffer: str
    count: str


class _IsNumpy:
    """``is_numpy(node)``: does ``node`` name numpy?  Carries the top-level definitions too."""

    def __init__(self, rw, defs: dict[str, ast.expr]) -> None:
        self.rw, self.defs, self.depth = rw, defs, 0

    def __call__(self, node: ast.expr) -> bool:
        return module_of(node, self.rw.globals) == "np"


def _is_np(rw, defs: dict[str, ast.expr] | None = None) -> _IsNumpy:
    return _IsNumpy(rw, defs or {})


def selection(rw, elt: ast.expr, defs: dict[str, ast.expr] | None = None, *,
              arithmetic: bool = True) -> Selection | None:
    """The compaction of a returned data-sized value ``elt``; None for anything else.  ``defs``:
    the locals bound once, at the top level, to the value given (their shapes are that value's).
    ``arithmetic``: also elementwise arithmetic of such values (not inside itself)."""
    is_numpy = _is_np(rw, defs or {})
    call = elt.value if isinstance(elt, ast.Subscript) else elt
    if isinstance(elt, ast.Subscript) and _zero(elt.slice) and isinstance(call, ast.Call):
        name = _numpy_name(call, is_numpy)
        if name in ("nonzero", "where") and len(call.args) == 1 and not call.keywords:
            return _indices(rw, elt, call.args[0], is_numpy)
        if isinstance(call.func, ast.Attribute) and call.func.attr == "nonzero" and not call.args \
                and not call.keywords and _numpy_name(call, is_numpy) is None:
            return _indices(rw, elt, call.func.value, is_numpy)
        return None
    if isinstance(elt, ast.Call) and not elt.keywords:
        name = _numpy_name(elt, is_numpy)
        if name == "diff" and len(elt.args) == 1 and _positions(elt.args[0], is_numpy):
            return _differences(rw, elt, selection(rw, elt.args[0], defs, arithmetic=False))
        if name == "flatnonzero" and len(elt.args) == 1:
            return _indices(rw, elt, elt.args[0], is_numpy, flat=True)
        if name == "argwhere" and len(elt.args) == 1:
            return _indices(rw, elt, elt.args[0], is_numpy, rows=True)
        raveled = _raveled_argwhere(elt, is_numpy)
        if raveled is not None:  # np.argwhere(c).ravel() of a 1-d c: np.nonzero(c)[0]
            return _indices(rw, elt, raveled, is_numpy, rank=1)
        if name == "extract" and len(elt.args) == 2:
            return _masked(rw, elt, elt.args[1], elt.args[0], is_numpy, extract=True)
        if name == "unique" and len(elt.args) == 1:
            return _unique(rw, elt, elt.args[0], is_numpy)
        return None
    if isinstance(elt, ast.Subscript) and not isinstance(elt.slice, (ast.Slice, ast.Tuple)):
        return _masked(rw, elt, elt.value, elt.slice, is_numpy)
    if arithmetic and isinstance(elt, (ast.BinOp, ast.UnaryOp, ast.Call)):
        return _masked_arithmetic(rw, elt, is_numpy) or _sized_arithmetic(rw, elt, defs)
    return None


def _positions(node: ast.expr, is_numpy) -> bool:
    """Whether ``node`` is ``np.nonzero(c)[0]``, ``np.where(c)[0]``, ``c.nonzero()[0]``,
    ``np.flatnonzero(c)`` or ``np.unique(x)``: a compaction of one axis."""
    if isinstance(node, ast.Subscript) and _zero(node.slice) and isinstance(node.value, ast.Call):
        call = node.value
        return _numpy_name(call, is_numpy) in ("nonzero", "where") and len(call.args) == 1 \
            or isinstance(call.func, ast.Attribute) and call.func.attr == "nonzero" and not call.args \
            and _numpy_name(call, is_numpy) is None
    return isinstance(node, ast.Call) and _numpy_name(node, is_numpy) in ("flatnonzero", "unique") \
        and len(node.args) == 1 and not node.keywords


def _differences(rw, elt: ast.Call, made: Selection | None) -> Selection | None:
    """``np.diff`` of a compaction of one axis (``np.diff(np.nonzero(m)[0])``, the gaps between
    events): ``np.diff`` of its whole buffer, whose first ``max(count - 1, 0)`` elements are the
    differences of the compaction's (the rest, never returned, of unwritten elements: no trap in
    a subtraction)."""
    if made is None:
        return None
    diff = ast.Call(_at_expr(elt.func, elt), [ast.Name(made.buffer, ast.Load())], [])
    buf, bind = _bind(rw, diff, "sized_diff", elt)
    count, counted = _bind(rw, ast.parse(f"max({made.count} - 1, 0)", mode="eval").body, "sized_diff_n", elt)
    return Selection([*made.statements, bind, counted], buf, count)


def _at_expr(node: ast.expr, like: ast.AST) -> ast.expr:
    """A copy of ``node`` placed at ``like``."""
    made = ast.parse(ast.unparse(node), mode="eval").body
    for sub in walk(made):
        if "lineno" in sub._attributes:
            ast.copy_location(sub, like)
    return made


def _sized_arithmetic(rw, elt: ast.expr, defs: dict[str, ast.expr] | None) -> Selection | None:
    """Elementwise arithmetic of one data-sized value and scalars (``np.unique(x) * 2``,
    ``np.nonzero(m)[0] + 1``; ``+ - * /``, unary ``-``, NumPy's elementwise math): the value's
    compaction, then the arithmetic over its whole buffer into a new one, of which the call
    returns the same first ``count`` elements (the rest, never returned, is computed from
    unwritten elements: no operation here raises or traps on any value)."""
    is_numpy = _is_np(rw, defs or {})
    found: list[Selection] = []

    def leaf(node: ast.expr) -> ast.expr | None:
        shape = shape_of(rw, node, is_numpy)
        if shape is not None:
            return node if shape.rank == 0 and not shape.boolean else None  # a scalar
        made = None if found else selection(rw, node, defs, arithmetic=False)
        if made is None:
            return None
        found.append(made)
        return ast.copy_location(ast.Name(made.buffer, ast.Load()), node)

    combined = _elementwise(elt, is_numpy, leaf)
    if combined is None or not found:
        return None
    made = found[0]
    buf, bind = _bind(rw, combined, "sized_value", elt)
    return Selection([*made.statements, bind], buf, made.count)


_MASKED_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _elementwise(node: ast.expr, is_numpy, leaf) -> ast.expr | None:
    """``node``'s ``+ - * /``, unary ``-``/``+`` and NumPy elementwise calls (not ``mod``) rebuilt
    over ``leaf(x)`` of every other subexpression ``x``, left to right; None where a leaf is."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _MASKED_OPS):
        left, right = _elementwise(node.left, is_numpy, leaf), _elementwise(node.right, is_numpy, leaf)
        return None if left is None or right is None else ast.BinOp(left, node.op, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _elementwise(node.operand, is_numpy, leaf)
        return None if inner is None else ast.UnaryOp(node.op, inner)
    if isinstance(node, ast.Call) and not node.keywords and _numpy_name(node, is_numpy) in _ELEMENTWISE \
            and _numpy_name(node, is_numpy) not in ("mod", "remainder"):
        args = [_elementwise(a, is_numpy, leaf) for a in node.args]
        kept = [a for a in args if a is not None]
        return None if len(kept) != len(args) else ast.Call(node.func, kept, [])
    return leaf(node)


def _masked_arithmetic(rw, elt: ast.expr, is_numpy) -> Selection | None:
    """Elementwise arithmetic of selections by one mask and scalars (``x[m] - x[m].mean()``,
    ``x[m] * w[m] + 1``: ``+ - * /``, unary ``-``, NumPy's elementwise math) as the selection of
    the arithmetic of the whole arrays, ``(x - x[m].mean())[m]``: the same values, in the same
    order, of the same dtype (indexing keeps it).  Each ``a[m]`` is of arrays of one rank, and
    its shape is checked against the mask's as ``x[m]`` alone is; the arithmetic also runs
    where the mask is false, its values unread (``//``, ``%`` and ``**``, which may raise or
    differ there, are left to the lowering's refusal)."""
    masks: list[ast.expr] = []
    arrays: list[ast.expr] = []

    def leaf(node: ast.expr) -> ast.expr | None:
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            xs, ms = shape_of(rw, node.value, is_numpy), shape_of(rw, node.slice, is_numpy)
            if xs is None or ms is None or not ms.boolean or xs.rank == 0:
                return None
            masks.append(node.slice)
            arrays.append(node.value)
            return node.value
        shape = shape_of(rw, node, is_numpy)
        return node if shape is not None and shape.rank == 0 and not shape.boolean else None  # a scalar

    combined = _elementwise(elt, is_numpy, leaf)
    if combined is None or not masks or len({ast.dump(m) for m in masks}) != 1:
        return None
    ranks = {shape.rank for a in arrays if (shape := shape_of(rw, a, is_numpy)) is not None}
    mask_rank = shape_of(rw, masks[0], is_numpy)
    if len(ranks) != 1 or mask_rank is None:
        return None
    made = _masked(rw, elt, ast.copy_location(combined, elt), masks[0], is_numpy)
    if made is None:
        return None
    m = made.statements[1]  # the mask's binding (_masked)
    assert isinstance(m, ast.Assign) and isinstance(m.targets[0], ast.Name)
    checks = []
    for array in arrays:
        a, bind = _bind(rw, array, "sel_part", elt)
        same = " and ".join(f"{m.targets[0].id}.shape[{d}] == {a}.shape[{d}]" for d in range(mask_rank.rank))
        checks += [bind, _at(ast.parse(f"assert {same}, 'boolean index did not match indexed array'").body[0], elt)]
    return Selection(made.statements[:2] + checks + made.statements[2:], made.buffer, made.count)


def _zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and type(node.value) is int


def _numpy_name(call: ast.Call, is_numpy) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and is_numpy(func.value):
        return func.attr
    return None


def _names_bool(dtype: ast.expr, is_numpy) -> bool:
    """Whether ``dtype`` (an ``astype`` argument) is ``bool``, ``np.bool_`` or ``np.bool``."""
    if isinstance(dtype, ast.Name):
        return dtype.id == "bool"
    return isinstance(dtype, ast.Attribute) and dtype.attr in ("bool_", "bool") and is_numpy(dtype.value)


def shape_of(rw, node: ast.expr, is_numpy) -> Shape | None:
    """The rank and bool-ness of ``node`` where the arguments tell it; None where they do not."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return Shape(0, isinstance(node.value, bool))
    if isinstance(node, ast.Name):
        if node.id in rw.ranks:
            return Shape(rw.ranks[node.id], rw.dtypes[node.id] == "bool")
        if node.id in rw.args:
            return Shape(0, False)
        defined = is_numpy.defs.get(node.id)
        if defined is None or is_numpy.depth > 20:
            return None
        is_numpy.depth += 1  # a local bound once at the top level: its value's shape
        try:
            return shape_of(rw, defined, is_numpy)
        finally:
            is_numpy.depth -= 1
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _REDUCTIONS | {"any", "all"} and not is_numpy(node.func.value) \
            and not node.args and len(node.keywords) == 1 and node.keywords[0].arg == "axis":
        whole, axis = shape_of(rw, node.func.value, is_numpy), node.keywords[0].value  # x.sum(axis=1)
        if whole is None or not (isinstance(axis, ast.Constant) and type(axis.value) is int):
            return None
        boolean = node.func.attr in ("any", "all") or (whole.boolean and node.func.attr in ("max", "min"))
        return Shape(whole.rank - 1, boolean) if -whole.rank <= axis.value < whole.rank else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy" \
            and not node.args and not node.keywords and not is_numpy(node.func.value):
        return shape_of(rw, node.func.value, is_numpy)  # x.copy(): x's shape
    allocated = _allocation_shape(node, is_numpy)
    if allocated is not None:
        return allocated
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype" \
            and len(node.args) == 1 and not node.keywords and not is_numpy(node.func.value):
        inner = shape_of(rw, node.func.value, is_numpy)  # x.astype(np.int8): x's rank, bool as told
        return None if inner is None else Shape(inner.rank, _names_bool(node.args[0], is_numpy))
    if isinstance(node, ast.Call) and _numpy_name(node, is_numpy) == "diff" and len(node.args) == 1 \
            and not node.keywords:
        inner = shape_of(rw, node.args[0], is_numpy)  # np.diff(x): x's rank (one shorter), bool for bool
        return None if inner is None or inner.rank == 0 else inner
    if isinstance(node, ast.Compare):
        parts = [shape_of(rw, p, is_numpy) for p in [node.left, *node.comparators]]
        return None if any(p is None for p in parts) or len(node.ops) != 1 else \
            Shape(max(p.rank for p in parts if p is not None), True)
    if isinstance(node, ast.BinOp):
        left, right = shape_of(rw, node.left, is_numpy), shape_of(rw, node.right, is_numpy)
        if left is None or right is None:
            return None
        logical = isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and left.boolean and right.boolean
        return Shape(max(left.rank, right.rank), logical)
    if isinstance(node, ast.UnaryOp):
        inner = shape_of(rw, node.operand, is_numpy)
        if inner is None or isinstance(node.op, ast.Not):
            return None
        return Shape(inner.rank, inner.boolean and isinstance(node.op, ast.Invert))
    reduced = _reduction(node, is_numpy) if isinstance(node, ast.Call) and not node.keywords else None
    if reduced is not None:
        if isinstance(reduced, ast.Name) and reduced.id not in rw.ranks and reduced.id in is_numpy.defs:
            reduced = is_numpy.defs[reduced.id]  # sel.mean() of sel = x[m] bound once: a scalar
        if isinstance(reduced, ast.Subscript) and not isinstance(reduced.slice, (ast.Slice, ast.Tuple)):
            whole, mask = shape_of(rw, reduced.value, is_numpy), shape_of(rw, reduced.slice, is_numpy)
            if whole is not None and mask is not None and mask.boolean and whole.rank == mask.rank:
                return Shape(0, False)  # x[m].mean(): a scalar
        return None if shape_of(rw, reduced, is_numpy) is None else Shape(0, False)  # x.mean(): a scalar
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and not isinstance(node.slice, ast.Slice) or isinstance(node, ast.Attribute) and node.attr in ("size", "ndim") \
            or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and node.func.id not in rw.globals and len(node.args) == 1 and not node.keywords:
        return Shape(0, False)  # x.shape[0], x.size, len(x): an int
    placed = _placed_values(node, is_numpy)
    if placed is not None:  # np.searchsorted(edges, v): one position per value, v's shape
        values = shape_of(rw, placed, is_numpy)
        return None if values is None else Shape(values.rank, False)
    if isinstance(node, ast.Call) and not node.keywords:
        name = _numpy_name(node, is_numpy)
        if name == "where" and len(node.args) == 3:  # np.where(c, a, b): broadcast, bool where a and b are
            chosen = [shape_of(rw, a, is_numpy) for a in node.args]
            if any(p is None for p in chosen):
                return None
            return Shape(max(p.rank for p in chosen if p is not None),
                         all(p.boolean for p in chosen[1:] if p is not None))
        if name not in _ELEMENTWISE and name not in _PREDICATES:
            return None
        parts = [shape_of(rw, a, is_numpy) for a in node.args]
        if not parts or any(p is None for p in parts):
            return None
        return Shape(max(p.rank for p in parts if p is not None), name in _PREDICATES)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):  # an argument's or a local's slice
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not all(isinstance(i, ast.Slice) or (isinstance(i, ast.Constant) and type(i.value) is int) for i in items):
            return None
        base = shape_of(rw, node.value, is_numpy)
        if base is None or len(items) > base.rank:
            return None
        return Shape(base.rank - sum(1 for i in items if not isinstance(i, ast.Slice)), base.boolean)
    return None


def _placed_values(node: ast.expr, is_numpy) -> ast.expr | None:
    """``v`` of ``np.searchsorted(a, v, side=)`` and ``x`` of ``np.digitize(x, bins, right=)``,
    whose result has that argument's shape; None for anything else."""
    if not (isinstance(node, ast.Call) and len(node.args) == 2):
        return None
    name = _numpy_name(node, is_numpy)
    if name == "searchsorted" and all(k.arg == "side" for k in node.keywords):
        return node.args[1]
    if name == "digitize" and all(k.arg == "right" for k in node.keywords):
        return node.args[0]
    return None


def _allocation_shape(node: ast.expr, is_numpy) -> Shape | None:
    """``np.ones(n + 1, dtype=np.bool_)``, ``np.zeros((n, m))``: rank from the shape, bool from the dtype."""
    if not (isinstance(node, ast.Call) and _numpy_name(node, is_numpy) in ("zeros", "ones", "empty", "full")
            and node.args):
        return None
    shape = node.args[0]
    rank = len(shape.elts) if isinstance(shape, ast.Tuple) else 1
    dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
    if dtype is None and _numpy_name(node, is_numpy) != "full" and len(node.args) > 1:
        dtype = node.args[1]
    boolean = (isinstance(dtype, ast.Attribute) and dtype.attr in ("bool_", "bool") and is_numpy(dtype.value)) \
        or (isinstance(dtype, ast.Name) and dtype.id == "bool")
    return Shape(rank, boolean)


_REDUCTIONS = frozenset(("sum", "mean", "max", "min", "std", "var", "prod", "amax", "amin"))


def _reduction(node: ast.Call, is_numpy) -> ast.expr | None:
    """The array ``x.mean()`` / ``np.mean(x)`` reduces whole (no axis), or None."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _REDUCTIONS:
        if is_numpy(func.value) and len(node.args) == 1:
            return node.args[0]
        if not is_numpy(func.value) and not node.args:
            return func.value
    return None


def _bind(rw, value: ast.expr, stem: str, like: ast.AST) -> tuple[str, ast.stmt]:
    name = rw.fresh(stem)
    return name, _at(ast.Assign([ast.Name(name, ast.Store())], value), like)


def _at(stmt: ast.stmt, like: ast.AST) -> ast.stmt:
    for sub in walk(stmt):
        if "lineno" in sub._attributes:
            ast.copy_location(sub, like)
    return stmt


def _parse(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


def _raveled_argwhere(elt: ast.Call, is_numpy) -> ast.expr | None:
    """``c`` of ``np.argwhere(c).ravel()`` (``.flatten()``)."""
    func = elt.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("ravel", "flatten") and not elt.args
            and isinstance(func.value, ast.Call) and _numpy_name(func.value, is_numpy) == "argwhere"
            and len(func.value.args) == 1 and not func.value.keywords):
        return None
    return func.value.args[0]


def _indices(rw, elt: ast.expr, value: ast.expr, is_numpy, flat: bool = False, rows: bool = False,
             rank: int | None = None) -> Selection | None:
    """``np.nonzero(m)[0]`` of a 1-d ``m`` (``np.flatnonzero``: of any rank, flattened;
    ``np.argwhere``, ``rows``: of any rank, one row of indices per element, in C order; ``rank``:
    only of that rank)."""
    shape = shape_of(rw, value, is_numpy)
    if shape is None or shape.rank == 0 or (shape.rank != 1 and not (flat or rows)) or shape.rank > 3 \
            or rank not in (None, shape.rank):
        return None
    if rows:
        return _index_rows(rw, elt, value, shape.rank)
    m, bind = _bind(rw, value, "nz_value", elt)
    buf, count = rw.fresh("nz_index"), rw.fresh("nz_count")
    loops = [rw.fresh("nz_i") for _ in range(shape.rank)]
    flat_index = loops[0]
    for d in range(1, shape.rank):
        flat_index = f"({flat_index}) * {m}.shape[{d}] + {loops[d]}"
    size = " * ".join(f"{m}.shape[{d}]" for d in range(shape.rank))
    text = f"{buf} = {rw.numpy_alias()}.empty({size}, dtype={rw.numpy_alias()}.int64)\n{count} = 0\n"
    for d, i in enumerate(loops):
        text += "    " * d + f"for {i} in range({m}.shape[{d}]):\n"
    index = ", ".join(loops)
    body = "    " * shape.rank
    text += f"{body}if {m}[{index}]:\n{body}    {buf}[{count}] = {flat_index}\n{body}    {count} += 1\n"
    return Selection([bind] + [_at(s, elt) for s in _parse(text)], buf, count)


def _index_rows(rw, elt: ast.expr, value: ast.expr, rank: int) -> Selection:
    """``np.argwhere(m)``: a buffer of one row per element of ``m`` (its indices, int64), the
    rows of the true ones first, in C order; the call returns the first ``count`` rows."""
    m, bind = _bind(rw, value, "nz_value", elt)
    buf, count = rw.fresh("nz_rows"), rw.fresh("nz_count")
    loops = [rw.fresh("nz_i") for _ in range(rank)]
    size = " * ".join(f"{m}.shape[{d}]" for d in range(rank))
    text = f"{buf} = {rw.numpy_alias()}.empty(({size}, {rank}), dtype={rw.numpy_alias()}.int64)\n{count} = 0\n"
    for d, i in enumerate(loops):
        text += "    " * d + f"for {i} in range({m}.shape[{d}]):\n"
    body = "    " * rank
    text += f"{body}if {m}[{', '.join(loops)}]:\n"
    text += "".join(f"{body}    {buf}[{count}, {d}] = {i}\n" for d, i in enumerate(loops))
    text += f"{body}    {count} += 1\n"
    return Selection([bind] + [_at(s, elt) for s in _parse(text)], buf, count)


def _masked(rw, elt: ast.expr, array: ast.expr, mask: ast.expr, is_numpy, extract: bool = False) -> Selection | None:
    """``x[mask]`` (a bool mask of ``x``'s shape, flattened in C order, or of its first axis:
    whole rows) and ``np.extract(mask, x)`` (same shapes, flattened)."""
    xs, ms = shape_of(rw, array, is_numpy), shape_of(rw, mask, is_numpy)
    if xs is None or ms is None or not ms.boolean or xs.rank == 0 or xs.rank > 3:
        return None
    if not (ms.rank == xs.rank or (ms.rank == 1 and not extract)):
        return None
    x, bind_x = _bind(rw, array, "sel_value", elt)
    m, bind_m = _bind(rw, mask, "sel_mask", elt)
    buf, count = rw.fresh("sel"), rw.fresh("sel_count")
    np_ = rw.numpy_alias()
    loops = [rw.fresh("sel_i") for _ in range(ms.rank)]
    index = ", ".join(loops)
    if ms.rank == xs.rank:
        size = " * ".join(f"{x}.shape[{d}]" for d in range(xs.rank))
        text = f"{buf} = {np_}.empty({size}, dtype={x}.dtype)\n"
        store = f"{buf}[{count}] = {x}[{index}]"
    else:
        rest = ", ".join(f"{x}.shape[{d}]" for d in range(1, xs.rank))
        text = f"{buf} = {np_}.empty(({x}.shape[0], {rest}), dtype={x}.dtype)\n"
        store = f"{buf}[{count}] = {x}[{index}]"
    text += f"{count} = 0\n"
    for d, i in enumerate(loops):
        text += "    " * d + f"for {i} in range({x}.shape[{d}]):\n"
    body = "    " * len(loops)
    text += f"{body}if {m}[{index}]:\n{body}    {store}\n{body}    {count} += 1\n"
    same = " and ".join(f"{m}.shape[{d}] == {x}.shape[{d}]" for d in range(ms.rank))
    check = _at(ast.parse(f"assert {same}, 'boolean index did not match indexed array'").body[0], elt)
    return Selection([bind_x, bind_m, check] + [_at(s, elt) for s in _parse(text)], buf, count)


def _unique(rw, elt: ast.expr, array: ast.expr, is_numpy) -> Selection | None:
    """``np.unique(x)`` of a real array: its sorted values, each once (NaN once, as NumPy's
    ``equal_nan=True``)."""
    shape = shape_of(rw, array, is_numpy)
    if shape is None or shape.rank != 1:
        return None
    np_ = rw.numpy_alias()
    s, bind = _bind(rw, ast.Call(ast.Attribute(ast.Name(np_, ast.Load()), "sort", ast.Load()), [array], []),
                    "uniq_sorted", elt)
    buf, count, i = rw.fresh("uniq"), rw.fresh("uniq_count"), rw.fresh("uniq_i")
    keep = f"{buf}[{count}] = {s}[{i}]\n{{0}}{count} += 1\n"
    text = (f"{buf} = {np_}.empty({s}.shape[0], dtype={s}.dtype)\n{count} = 0\n"
            f"for {i} in range({s}.shape[0]):\n"
            f"    if {i} == 0:\n        " + keep.format(" " * 8) +
            f"    elif {s}[{i}] != {s}[{i} - 1]:\n"  # a new value, or NaN after NaN (kept once)
            f"        if {s}[{i}] == {s}[{i}]:\n            " + keep.format(" " * 12) +
            f"        elif {s}[{i} - 1] == {s}[{i} - 1]:\n            " + keep.format(" " * 12))
    return Selection([bind] + [_at(st, elt) for st in _parse(text)], buf, count)


class _Lengths(ast.NodeTransformer):
    """``len(np.nonzero(c)[k])`` & co. as ``int(np.count_nonzero(c))`` (``lengths``)."""

    def __init__(self, rw) -> None:
        self.rw, self.is_numpy = rw, _is_np(rw)

    def indices_of(self, node: ast.expr) -> ast.expr | None:
        """``c`` of ``np.nonzero(c)[k]``, ``np.where(c)[k]``, ``c.nonzero()[k]`` (``k`` a
        constant) or ``np.flatnonzero(c)``, ``c`` of a rank the arguments tell, at least 1."""
        found = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and type(node.slice.value) is int and isinstance(node.value, ast.Call) and not node.value.keywords:
            call = node.value
            name = _numpy_name(call, self.is_numpy)
            if name in ("nonzero", "where") and len(call.args) == 1:
                found = call.args[0]
            elif name is None and isinstance(call.func, ast.Attribute) and call.func.attr == "nonzero" \
                    and not call.args:
                found = call.func.value
        elif isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1 \
                and _numpy_name(node, self.is_numpy) == "flatnonzero":
            found = node.args[0]
        if found is None:
            return None
        shape = shape_of(self.rw, found, self.is_numpy)
        if shape is None or shape.rank == 0 or (isinstance(node, ast.Subscript)
                                                and not 0 <= node.slice.value < shape.rank):  # type: ignore[attr-defined]
            return None
        return found

    def counted(self, cond: ast.expr, like: ast.AST) -> ast.expr:
        np_ = self.rw.numpy_alias()
        count = ast.Call(ast.Attribute(ast.Name(np_, ast.Load()), "count_nonzero", ast.Load()), [cond], [])
        return ast.copy_location(ast.Call(ast.Name("int", ast.Load()), [count], []), like)

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "len" and node.func.id not in self.rw.globals \
                and len(node.args) == 1 and not node.keywords:
            cond = self.indices_of(node.args[0])
            if cond is not None:
                return self.counted(cond, node)
        return node

    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        if node.attr == "size" and isinstance(node.ctx, ast.Load):
            cond = self.indices_of(node.value)
            if cond is not None:
                return self.counted(cond, node)
        return node

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and isinstance(node.slice, ast.Constant) \
                and node.slice.value in (0, -1) and type(node.slice.value) is int:
            cond = self.indices_of(node.value.value)
            if cond is not None:
                return self.counted(cond, node)
        return node


def lengths(rw, body: list[ast.stmt]) -> list[ast.stmt]:
    """The length of an array of indices of the nonzero elements, ``len(np.nonzero(c)[0])``,
    ``np.where(c)[0].shape[0]``, ``np.flatnonzero(c).size`` (``c`` of a rank the arguments
    tell: the count of a value NumPy would otherwise make whole) is ``int(np.count_nonzero(c))``:
    the same number, a Python int as ``len`` and ``shape`` give.  The length of a selection
    written inline, ``len(x[x > 0])`` or ``X[m].shape[0]``, is that of a name bound to it just
    before the statement (``sel = X[m]``, then ``len(sel)``: the lowering's count of the mask,
    with NumPy's check of its shape), where the statement surely evaluates it."""
    out: list[ast.stmt] = []
    for stmt in body:
        stmt = _Lengths(rw).visit(stmt)
        map_blocks(stmt, lambda inner: lengths(rw, inner), ("body", "orelse"))
        out.extend(_bound_selection(rw, stmt) or [stmt])
    return out


def _bound_selection(rw, stmt: ast.stmt) -> list[ast.stmt] | None:
    """``sel = X[m]`` then ``stmt`` reading ``len(sel)`` for its one inline ``len(X[m])`` /
    ``X[m].shape[0]``; None where there is none (or more, or one evaluated on some paths only)."""
    heads: list[ast.AST] = [stmt.test] if isinstance(stmt, ast.If) else [stmt.iter] if isinstance(stmt, ast.For) \
        else [] if isinstance(stmt, ast.While) else [stmt]
    is_numpy = _is_np(rw)
    found: list[tuple[ast.AST, ast.Subscript]] = []
    guarded: set[int] = set()
    for head in heads:
        for node in walk(head):
            if isinstance(node, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.comprehension)):
                guarded.update(id(n) for n in walk(node) if n is not node)
            selected = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                    and node.func.id not in rw.globals and len(node.args) == 1 and not node.keywords:
                selected = node.args[0]
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "shape" and isinstance(node.slice, ast.Constant) and node.slice.value == 0 \
                    and type(node.slice.value) is int:
                selected = node.value.value
            if isinstance(selected, ast.Subscript) and isinstance(selected.value, ast.Name) \
                    and not isinstance(selected.slice, (ast.Slice, ast.Tuple)):
                xs, ms = shape_of(rw, selected.value, is_numpy), shape_of(rw, selected.slice, is_numpy)
                if xs is not None and ms is not None and ms.boolean and xs.rank >= 1 \
                        and (ms.rank == xs.rank or ms.rank == 1):
                    found.append((node, selected))
    if len(found) != 1 or id(found[0][0]) in guarded:
        return None
    node, selected = found[0]
    name, bind = _bind(rw, selected, "sel_rows", stmt)
    length = ast.Call(ast.Name("len", ast.Load()), [ast.Name(name, ast.Load())], [])
    for parent in walk(stmt):
        for attr, child in ast.iter_fields(parent):
            if child is node:
                setattr(parent, attr, ast.copy_location(length, node))
            elif isinstance(child, list) and any(c is node for c in child):
                child[:] = [ast.copy_location(length, node) if c is node else c for c in child]
    ast.fix_missing_locations(stmt)
    return [bind, stmt]


__all__ = ["Selection", "lengths", "selection", "shape_of"]
