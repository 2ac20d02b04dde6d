"""NumPy's index grids and advanced indexing with several index arrays, for the array lowering.

``np.ogrid[1:n-1, 1:m-1]``, ``np.mgrid[...]`` and ``np.indices(shape)`` are *iota* arrays: their
element at a position is affine in the position (``1 + i``), so they need no storage.  A name
bound to one (``i, j = np.ogrid[...]``) is a view of nothing, and arithmetic on it (``j - 1``)
stays affine.  Indexing with them follows NumPy's rules for advanced indices::

    A[i, j + nb[i, j, 0]]        the index arrays broadcast together; where they are adjacent,
                                 the broadcast axes take their place, otherwise they go first
                                 (integers among them count as rank-0 index arrays)

Each subscript is either affine and proven inside its axis (an iota plus constants: an exact
access, it fuses like a slice) or computed at run time, with NumPy's wrap of negative values and
``IndexError`` past the end (the gather machinery of frontend.control).  A store through affine
indices is taken where they are proven inside the array and write each position once
(``A[i, j, k] = ...`` over an open grid: a slice assignment); one through index arrays computed
at run time writes the positions in C order of the broadcast index, a repeated one keeping the
last value, as NumPy 2.4 does (``_in_index_order``); ``x[idx] += v`` is lowered before it as
Python runs it, a gather, the update and this store (``Lowering.buffered``).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from polyfuse.errors import UnsupportedError

from .arrays import (
    NP_NAME,
    IndexRules,
    Lowering,
    Sym,
    View,
    _int_const,
    _is_newaxis,
    _Renamed,
    atom,
    const,
    smax,
    sym_of,
    wrapped_in_view,
)
from .checker import module_of
from .extent_facts import LoopRange, decided
from .source import walk
from .types import VType, power_hint

INT64 = VType("int64", False)
_PROBE = "pf_probe"


# ---- index grids ---------------------------------------------------------------------------
def is_grid(node: ast.expr, globals_: dict) -> bool:
    """``np.ogrid[...]``, ``np.mgrid[...]`` or ``np.indices(...)``."""
    if isinstance(node, ast.Subscript):
        return _numpy_attr(node.value, globals_) in ("ogrid", "mgrid")
    return isinstance(node, ast.Call) and _numpy_attr(node.func, globals_) == "indices"


def grid_views(lowering: Lowering, node: ast.expr) -> list[View]:
    """The arrays a grid holds, one per axis (``np.ogrid[a:b]`` with one slice: one array).
    Open grids (ogrid) have extent 1 along every axis but their own, dense ones the full shape."""
    if isinstance(node, ast.Call):
        return _indices(lowering, node)
    assert isinstance(node, ast.Subscript)
    dense = _numpy_attr(node.value, lowering.globals) == "mgrid"
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    held: dict[str, str] = {}  # scalar locals the grid's bounds read, held at its binding
    axes = [_grid_axis(lowering, item, held) for item in items]
    return _grid(axes, dense)


def grid_value(lowering: Lowering, node: ast.expr) -> View:
    """A grid used as one value: ``np.ogrid[a:b]`` (one slice) is a 1-D array; the tuple of an
    open grid, or the stacked array of a dense one, must be unpacked or indexed by a constant."""
    views = grid_views(lowering, node)
    one_slice = isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Tuple)
    if one_slice:
        return views[0]
    raise lowering.error(node, f"{ast.unparse(node)} used as one array value; unpack it (i, j = ...) or take "
                         "one of its grids by a constant index ([0])", "index grid")


def grid_item(lowering: Lowering, node: ast.Subscript) -> View | None:
    """``np.indices(s)[d]``, ``np.mgrid[...][d]``, ``np.ogrid[...][d]``: one grid, or None."""
    if not is_grid(node.value, lowering.globals):
        return None
    d = _int_const(node.slice)
    views = grid_views(lowering, node.value)
    if d is None or not -len(views) <= d < len(views):
        raise lowering.error(node, f"{ast.unparse(node)}: a grid is indexed by a constant within its "
                             f"{len(views)} axes here", "index grid")
    return views[d]


@dataclass(frozen=True)
class _Axis:
    start: Sym
    step: int
    length: Sym  # clamped at 0, as np.arange's


def _grid_axis(lowering: Lowering, item: ast.expr, held: dict[str, str]) -> _Axis:
    if not isinstance(item, ast.Slice) or item.upper is None:
        raise lowering.error(item, "an index grid axis other than start:stop[:step] of integers", "index grid")
    step = 1 if item.step is None else _int_const(item.step)
    if not step:
        raise lowering.error(item, "an index grid step other than a non-zero integer constant (a complex "
                             "step means a number of points, as np.linspace: use np.linspace)", "index grid")
    bounds = []
    for part in (item.lower, item.upper):
        if part is None:
            bounds.append(const(0))
            continue
        value = lowering.value(part)
        if value.rank or not value.vtype.is_int or value.vtype.dtype == "bool":
            raise lowering.error(part, f"index grid bound {ast.unparse(part)!r}, a {value.vtype.dtype} "
                                 f"{'array' if value.rank else 'value'}: bounds must be integer scalars (float "
                                 f"grids round their length){power_hint(part)}", "index grid")
        bounds.append(sym_of(_held(lowering, value, held)))
    start, stop = bounds
    span = stop - start if step > 0 else start - stop
    size = abs(step)
    length = span if size == 1 else sym_of(ast.BinOp((span + const(size - 1)).node, ast.FloorDiv(),
                                                     ast.Constant(size)))
    return _Axis(start, step, length if length.is_const() and length.const >= 0 else smax(const(0), length))


def _held(lowering: Lowering, value: View, held: dict[str, str]) -> ast.expr:
    """A grid bound as the grid will read it wherever it is used: NumPy computes the grid once,
    so each scalar local in it that a later statement may assign again is held in a fresh local
    first, one per name and grid (``s:s + 3`` keeps its length 3); sizes, integer arguments and
    enclosing loop variables do not change while the grid lives."""
    bound = value.element(())
    steady = lowering.params | {loop.var for loop in lowering.loops}
    for name in sorted({n.id for n in walk(bound) if isinstance(n, ast.Name)} - steady):
        if lowering.stores[name] > 1 and name not in held:
            held[name] = lowering.fresh(f"{name}_")
            kind = lowering.scalars.get(name, VType("int64", False))
            lowering.pre.append(lowering.scalar_assign(held[name], ast.Name(name, ast.Load()), kind))
    return _Renamed(held).visit(copy.deepcopy(bound)) if held else bound


def _grid(axes: list[_Axis], dense: bool) -> list[View]:
    full = tuple(a.length for a in axes)
    views = []
    for d, axis in enumerate(axes):
        extents = full if dense else tuple(a.length if e == d else const(1) for e, a in enumerate(axes))

        def element(idx: tuple[Sym, ...], d: int = d, axis: _Axis = axis) -> ast.expr:
            return int64((axis.start + idx[d].scale(axis.step)).node)
        views.append(View(extents, INT64, element))
    return views


def _indices(lowering: Lowering, node: ast.Call) -> list[View]:
    if len(node.args) != 1 or node.keywords:
        raise lowering.error(node, "np.indices() of other than one shape (no dtype or sparse)", "index grid")
    shape = lowering.shape_of(node.args[0])
    return _grid([_Axis(const(0), 1, n) for n in shape], dense=True)


def _numpy_attr(node: ast.expr, globals_: dict) -> str | None:
    if isinstance(node, ast.Attribute) and module_of(node.value, globals_) == "np":
        return node.attr
    return None


# ---- iotas -----------------------------------------------------------------------------------
def probes(rank: int) -> tuple[Sym, ...]:
    return tuple(atom(f"{_PROBE}{d}") for d in range(rank))


def int64(node: ast.expr) -> ast.expr:
    """``pf_np.int64(node)``: a grid's element is an int64 where it meets other values (a Python
    int would be weak: ``x32 * i`` would stay float32), and affine where it subscripts."""
    return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), "int64", ast.Load()), [node], [])


def _is_int64(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "int64" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == NP_NAME and len(node.args) == 1 \
        and not node.keywords


class _Uncast(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        return self.visit(node.args[0]) if _is_int64(node) else self.generic_visit(node)


def affine_sym(node: ast.expr) -> Sym:
    """An affine element (``affine_element``) as a Sym, its int64 casts dropped."""
    return sym_of(_Uncast().visit(copy.deepcopy(node)))


def affine_element(node: ast.expr) -> bool:
    """Whether an element is an affine integer expression reading no array: names, integer
    constants, ``X.shape[d]``, ``+``, ``-``, products by constants and int64 casts (a grid's
    and np.arange's elements)."""
    if _is_int64(node):
        assert isinstance(node, ast.Call)
        return affine_element(node.args[0])
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub) and affine_element(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return affine_element(node.left) and affine_element(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        consts = [isinstance(s, ast.Constant) and type(s.value) is int for s in (node.left, node.right)]
        return any(consts) and affine_element(node.left) and affine_element(node.right)
    return False


def is_iota(view: View) -> bool:
    """Whether ``view`` is an integer array whose elements are affine in their position (no
    storage needed: an index grid, or arithmetic of one)."""
    return view.rank > 0 and view.base is None and view.vtype.is_int and view.vtype.dtype != "bool" \
        and affine_element(view.element(probes(view.rank)))


# ---- advanced indexing -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Index:
    """One advanced index of a subscript: its value, and whether its subscripts are affine and
    proven inside the axis (else they are computed at run time)."""

    value: View
    affine: bool


def needs_rules(values: dict[int, View], store: bool) -> bool:
    """Whether a subscript's non-slice items (``values``, by position) take NumPy's rules for
    advanced indices here: several integer index arrays, an integer apart from one (the broadcast
    axes then go first), an index grid, or a store.  One integer array among slices and adjacent
    integers is a plain gather (arrays.py)."""
    arrays = [v for v in values.values() if v.rank and v.vtype.is_int and v.vtype.dtype != "bool"]
    if not arrays:
        return False
    apart = max(values) - min(values) + 1 != len(values)
    return len(arrays) > 1 or store or apart or any(is_iota(v) for v in arrays)


def advanced(lowering: Lowering, node: ast.Subscript, base: View, items: list[ast.expr],
             values: dict[int, View], store: bool) -> View:
    """``base[items]`` where some of ``values`` (the non-slice items, by position) are arrays."""
    positions = sorted(values)
    for p in positions:
        v = values[p]
        if not v.vtype.is_int or v.vtype.dtype == "bool":
            what = "boolean mask" if v.vtype.dtype == "bool" else f"index of dtype {v.vtype.dtype}"
            raise lowering.error(items[p], f"a {what} among several indices is not supported; index with integer "
                                 "arrays, slices, integers, None and '...'", "fancy indexing")
    shape, indexers = lowering.broadcast([values[p] for p in positions])
    axes: dict[int, Sym] = {}  # base axis extent per item position
    slices: dict[int, tuple[Sym, int]] = {}
    extents_of: dict[int, list[Sym]] = {}
    axis = 0
    for p, item in enumerate(items):
        if _is_newaxis(item, lowering.globals):
            extents_of[p] = [const(1)]
            continue
        axes[p] = base.extents[axis]
        axis += 1
        if isinstance(item, ast.Slice):
            start, length, step = lowering.slice(item, axes[p])
            slices[p] = (start, step)
            extents_of[p] = [length]
    ranges = _probe_ranges(shape)
    index = {p: _Index(values[p], _inside(lowering, values[p], indexers[k], axes[p], ranges, store))
             for k, p in enumerate(positions)}
    if store:
        _check_store(lowering, node, index, indexers, positions, shape)
    rest = [p for p in range(len(items)) if p not in values]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    at = sum(len(extents_of[p]) for p in rest if p < positions[0]) if adjacent else 0
    others = [e for p in rest for e in extents_of[p]]
    extents = tuple(others[:at]) + shape + tuple(others[at:])
    lowering.changed = True

    def element(idx: tuple[Sym, ...]) -> ast.expr:
        broadcast = idx[at:at + len(shape)]
        it = iter(idx[:at] + idx[at + len(shape):])
        base_idx: list[Sym] = []
        for p in range(len(items)):
            if p in index:
                k = positions.index(p)
                base_idx.append(_subscript(index[p], indexers[k](broadcast), axes[p], base))
            elif p in slices:
                start, step = slices[p]
                base_idx.append(start + next(it).scale(step))
            else:
                next(it)  # a new axis
        return base.element(tuple(base_idx))
    # advanced indexing copies in NumPy: a read has no base; a store writes the array itself
    return View(extents, base.vtype, element, base.base if store else None)


def _subscript(index: _Index, at: tuple[Sym, ...], extent: Sym, base: View) -> Sym:
    """The base subscript an index gives at a position of the broadcast shape (a run-time one
    wrapped against a view's extent: ``wrapped_in_view``)."""
    element = index.value.element(at)
    if index.value.rank == 0:  # an integer among index arrays: as a plain integer index
        value = sym_of(element)
        return extent + value if value.is_const() and value.const < 0 else value
    if index.affine:
        return affine_sym(element)
    text = ast.unparse(element)
    # an affine subscript not proven inside the axis is computed at run time (wrapped and checked)
    return atom(f"({wrapped_in_view(base, f'{NP_NAME}.int64({text})', extent)})" if affine_element(element)
                else f"({wrapped_in_view(base, text, extent)})")


def _probe_ranges(shape: tuple[Sym, ...]) -> tuple[LoopRange, ...]:
    return tuple(LoopRange(p.text, "0", e.text, 1) for p, e in zip(probes(len(shape)), shape))


def _inside(lowering: Lowering, value: View, indexer, extent: Sym, ranges: tuple[LoopRange, ...],
            store: bool) -> bool:
    """Whether every subscript an iota index gives is in ``0 <= s < extent``: non-negative proven
    (NumPy wraps negative ones: those are computed at run time), below the extent proven or
    assumed of the sizes (a call past it is refused, as a slice's extents are checked)."""
    if value.rank == 0:
        return True
    element = value.element(indexer(probes(len(ranges))))
    if not affine_element(element):
        return False
    s = affine_sym(element).text
    below = decided(f"{s} >= 0", tuple(lowering.loops) + ranges, lowering.params).proven
    return below and _require(lowering, f"{s} < {extent.text}", ranges, relational=not store)


def _require(lowering: Lowering, claim: str, ranges: tuple[LoopRange, ...], relational: bool) -> bool:
    """``lowering.require`` over the probes of the broadcast shape too: proven, or a condition
    on the sizes alone that the call-time checks enforce (a call outside it raises ArgumentError,
    as for slices whose extents must match).  ``relational``: only a condition between two sizes
    (``B.shape[0] >= A.shape[0] - 1``, arrays of one shape by design) is assumed for a read; a
    read past a constant bound (``x.shape[1] >= 8``) is checked where it runs, IndexError as NumPy."""
    verdict = decided(claim, tuple(lowering.loops) + ranges, lowering.params)
    if verdict.proven:
        return True
    if verdict.assume is None:
        return False
    nodes = list(walk(verdict.assume))
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    if any(r.var in names for r in ranges):
        return False
    sizes = {(n.value.value.id, _int_const(n.slice)) for n in nodes if isinstance(n, ast.Subscript)
             and isinstance(n.value, ast.Attribute) and isinstance(n.value.value, ast.Name)}
    if relational and len(sizes) + len(names & lowering.int_args) < 2:
        return False
    if ast.dump(verdict.assume) not in {ast.dump(a) for a in lowering.assumed}:
        lowering.assumed.append(verdict.assume)
    return True


def _check_store(lowering: Lowering, node: ast.Subscript, index: dict[int, _Index], indexers: list,
                 positions: list[int], shape: tuple[Sym, ...]) -> None:
    """A store through index arrays, each position written once: affine indices inside the array
    that tell every position apart, or, with index arrays computed at run time among them, affine
    ones that alone tell every position apart (one-hot ``Y[np.arange(n), labels] = 1``: row ``k``
    is written at ``labels[k]``, a subscript computed when the store runs, wrapped and checked as
    NumPy's)."""
    runtime = not all(i.affine for i in index.values())
    if runtime and not _distinct(index, indexers, positions, shape, affine_only=True):
        if isinstance(lowering.here, ast.AugAssign):
            raise _refuse(lowering, node, "an in-place operation through index arrays computed at run time "
                          "(x[idx] += v): NumPy's buffered x[idx] += v applies a duplicate index once, not once "
                          "per occurrence (np.add.at(x, idx, v) applies each one, and is supported); or write the loop, "
                          "for k in range(...): x[idx[k]] += v[k]")
        if _in_index_order(index):
            return
        raise _refuse(lowering, node, "a store through subscripts computed at run time without an index array; "
                      "write the loop, for k in range(...): x[idx[k]] = v[k], or index with slices or grids "
                      "(np.ogrid)")
    if not runtime and not _distinct(index, indexers, positions, shape, affine_only=False):
        raise _refuse(lowering, node, "a store through index arrays that may write one element twice "
                      "(NumPy writes duplicates in no set order); index each axis by its own grid "
                      "(i, j = np.ogrid[...]) or by slices")


def _in_index_order(index: dict[int, _Index]) -> bool:
    """Whether a store through run-time indices has index arrays (integers beside them): NumPy
    2.4 writes its positions in C order of their broadcast shape, whatever the index arrays'
    layout, a repeated position keeping the last value (``inv[perm] = np.arange(n)``,
    ``A[rows] = B``, ``A[rows, cols] = v``, ``x[idx2d] = v``; NumPy's documentation leaves the
    order of duplicates open, its mapiter takes C order), as the store's loop nest over that
    shape writes them, which dependences keep in program order: the subscript is computed at
    run time."""
    return any(i.value.rank for i in index.values())


def _distinct(index: dict[int, _Index], indexers: list, positions: list[int], shape: tuple[Sym, ...],
              affine_only: bool) -> bool:
    """Whether the (affine) indices vary with every broadcast axis of extent other than 1, so no
    two positions write one element."""
    probe = probes(len(shape))
    names = {p.text for p in probe}
    varying = []
    for k, p in enumerate(positions):
        if index[p].value.rank == 0 or affine_only and not index[p].affine:
            continue
        s = affine_sym(index[p].value.element(indexers[k](probe)))
        varying.append({a for a, c in s.terms if a in names and c})
    return all(e.is_const(1) or {probe[d].text} in varying for d, e in enumerate(shape))


def _refuse(lowering: Lowering, node: ast.AST, message: str) -> UnsupportedError:
    return lowering.error(node, f"fancy indexing: {message}", "fancy indexing")


# ---- what frontend.arrays calls --------------------------------------------------------------
def grid_of(lowering: Lowering, node: ast.expr) -> View | None:
    """An index grid as one value (``np.ogrid[a:b]``, ``np.indices(s)[0]``); None for others."""
    if is_grid(node, lowering.globals):
        lowering.changed = True
        return grid_value(lowering, node)
    if isinstance(node, ast.Subscript):
        view = grid_item(lowering, node)
        if view is not None:
            lowering.changed = True
        return view
    return None


def unpacked(lowering: Lowering, node: ast.expr) -> list[View] | None:
    """The grids ``i, j = node`` binds; None when ``node`` is not a grid."""
    return grid_views(lowering, node) if is_grid(node, lowering.globals) else None


def bindable(lowering: Lowering, view: View) -> bool:
    """Whether a name may be bound to ``view`` as a formula: an iota whose scalar locals are not
    assigned again (``r = np.arange(s, s + 3)`` then ``s = 4``: NumPy's ``r`` keeps the old ``s``)."""
    if not is_iota(view):
        return False
    steady = lowering.params | {loop.var for loop in lowering.loops} | {p.text for p in probes(view.rank)}
    names = {n.id for n in walk(view.element(probes(view.rank))) if isinstance(n, ast.Name)}
    return all(lowering.stores[n] <= 1 for n in names - steady - {NP_NAME})


INDEX_RULES = IndexRules(grid_of, unpacked, bindable, needs_rules, advanced)
