"""Joins in NumPy array statements: np.concatenate, np.stack, np.hstack, np.vstack, np.dstack,
np.column_stack, np.tile; and np.repeat.

Called by :class:`frontend.arrays.Lowering` for those calls through :data:`JOIN_RULES`
(frontend.lift hands it in: this module builds on arrays.py, as array_linalg.py does).  Each function first becomes one :class:`Join`: its pieces, each
brought to the result's rank the way NumPy brings them (``atleast_2d`` for vstack, a new axis for
stack, ...), laid end to end along one axis.  Piece ``j`` fills the result's indices
``offset_j <= k < offset_{j+1}`` along that axis, so the join is one plain affine store per
piece, which the scheduler fuses like any other statement::

    a = np.hstack((ax, ay))     ->   for pf_i1 in range(ax.shape[0]):
    # ax, ay: (n, 1)                     for pf_i2 in range(1):
                                             pf_join3[pf_i1, pf_i2] = ax[pf_i1, pf_i2]
                                     for pf_i4 in range(ay.shape[0]):
                                         for pf_i5 in range(1):
                                             pf_join3[pf_i4, pf_i5 + 1] = ay[pf_i4, pf_i5]

``out[...] = np.concatenate(...)`` stores the pieces straight into ``out`` where nothing in them
reads ``out``; any other use reads a fresh local array the pieces were stored into first, as
NumPy builds the joined array before using it.  Shapes follow NumPy's rules: every piece has the
same rank, and its extents off the joined axis equal the others' (compared at compile time where
both are constants, otherwise assumed and checked per call, ``Lowering.mismatch``: NumPy's
ValueError there is polyfuse's ArgumentError).  The dtype is the one the NumPy function itself
gives arrays of the pieces' dtypes (``dtype=``/``casting=`` as NumPy takes them).

``np.tile(A, reps)`` with constant ``reps`` is a Join of copies of ``A``, one per block.
``np.repeat(a, r, axis)`` with a constant ``r`` is no Join: its element ``k`` along the axis is
``a``'s element ``k // r``, computed where it is read (an affine subscript, so it fuses and
vectorizes like a slice).

Why stores rather than a select on the index inside the element (``a[k] if k < n else
b[k - n]``, which would need no temporary): measured on the cpu target, the select in the inner
loop kept LLVM from vectorizing (``np.exp(np.concatenate((A, B), axis=1))`` of 2000 x 2500 took
15.7-16.8 ms against 9-12 ms stored, ``np.sqrt(np.concatenate((a, b))).sum()`` 9.4-11.6 ms
against 7.8-8.8), and was no faster where the work is only memory traffic.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .arrays import JOINS, NP_NAME, UNKNOWN, JoinRules, Lowering, Sym, View, _store, const, leaf, smax, sym_of
from .checker import module_of
from .extent_facts import is_affine
from .source import walk
from .types import VType

_MOST_COPIES = 64  # np.tile makes one loop nest per copy; more copies than this are refused
_OPTIONS = {"concatenate": ("axis", "dtype", "casting"), "stack": ("axis", "dtype", "casting"),
            "hstack": ("dtype", "casting"), "vstack": ("dtype", "casting"), "dstack": (), "column_stack": ()}


@dataclass(frozen=True)
class Join:
    """``pieces`` (each of the result's rank) placed side by side: piece ``j``'s element ``k``
    is the result's element ``offsets[j] + k`` (one offset per axis; a concatenation moves the
    pieces along one axis, np.tile along several).  ``extents`` and ``vtype`` are the result's."""

    pieces: tuple[View, ...]
    offsets: tuple[tuple[Sym, ...], ...]
    extents: tuple[Sym, ...]
    vtype: VType

    def at(self, j: int, idx: tuple[Sym, ...]) -> tuple[Sym, ...]:
        """The result's index of piece ``j``'s element ``idx``."""
        return tuple(i + o for i, o in zip(idx, self.offsets[j]))


# ---- entry points -----------------------------------------------------------------------------
def join_value(lw: Lowering, node: ast.Call, name: str) -> View:
    """The value of ``np.<name>(...)``: a fresh local array the pieces are stored into (in
    ``lw.pre``), read like any other temporary."""
    return _stored(lw, node, join_of(lw, node, name))


def _stored(lw: Lowering, node: ast.Call, j: Join) -> View:
    dtype = lw.temp_dtype(node, View(j.extents, j.vtype, lambda idx: ast.Constant(0)))  # refuses unknown ones
    array = lw.fresh("join")
    lw.allocate(array, j.extents, dtype)
    result = leaf(array, j.extents, dtype)
    lw.pre.extend(piece_stores(lw, j, result, dtype))
    return result


def store_join(lw: Lowering, stmt: ast.Assign, target: View) -> list[ast.stmt] | None:
    """``target = np.<join>(...)`` stored piece by piece into ``target`` (None when the value is
    not a join); through the join's value and ``lw.store`` where the join broadcasts into
    ``target`` or a piece reads ``target``'s array (NumPy joins before it writes)."""
    call = stmt.value
    if target.rank == 0 or not is_join(lw, call):
        return None
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
    j = join_of(lw, call, call.func.attr)
    broadcast = len(j.extents) != target.rank or any(e.is_const(1) and e.text != t.text
                                                     for e, t in zip(j.extents, target.extents))
    if broadcast or any(_reads(piece, target.base) for piece in j.pieces):
        return lw.store(stmt, target, _stored(lw, call, j))
    shape = View(j.extents, j.vtype, lambda idx: ast.Constant(0))
    lw.broadcast_to(call, target.extents, shape)  # the extents NumPy requires equal
    lw.changed = True
    return piece_stores(lw, j, target, lw.temp_dtype(call, shape))


def is_join(lw: Lowering, node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in JOINS \
        and module_of(node.func.value, lw.globals) == "np"


def piece_stores(lw: Lowering, j: Join, target: View, dtype: str) -> list[ast.stmt]:
    """One loop nest per piece, storing its elements, converted to ``dtype`` (the join's), into
    ``target``."""
    out: list[ast.stmt] = []
    for k, piece in enumerate(j.pieces):
        def body(idx: tuple[Sym, ...], k: int = k, piece: View = piece) -> list[ast.stmt]:
            return [ast.Assign([_store(target.element(j.at(k, idx)))], _cast(piece, dtype, idx))]
        out.extend(lw.nest(piece.extents, body))
    return out


# ---- the join a call means --------------------------------------------------------------------
def join_of(lw: Lowering, node: ast.Call, name: str) -> Join:
    """``np.<name>(pieces, ...)`` as a Join, its arguments checked as NumPy checks them."""
    if name == "tile":
        return tile_of(lw, node)
    what = f"np.{name}"
    options = lw.keywords(node, ("axis", "out") + _OPTIONS[name])
    positional = ("arrays", "axis") if "axis" in _OPTIONS[name] else ("arrays",)
    if not node.args or len(node.args) > len(positional) or set(options) & set(positional[:len(node.args)]):
        raise lw.error(node, f"{what}() takes {' and '.join(positional)} positionally", what)
    if "out" in options:
        raise lw.error(node, f"{what}() with out=; write out[...] = {what}(...) instead", what)
    if "axis" in options and "axis" not in _OPTIONS[name]:
        raise lw.error(node, f"{what}() takes no axis=", what)
    seq = node.args[0]
    if not isinstance(seq, (ast.List, ast.Tuple)) or not seq.elts \
            or any(isinstance(e, ast.Starred) for e in seq.elts):
        raise lw.error(seq, f"{what}() of other than a non-empty list or tuple written in the call "
                       f"({what}((a, b)), {what}([x, [0.0]]))", what)
    views = [lw.listed(e, None, f"a list in {what}() of") if isinstance(e, (ast.List, ast.Tuple))
             else lw.value(e) for e in seq.elts]
    axis_node = node.args[1] if len(node.args) > 1 else options.get("axis", ast.Constant(0))
    pieces, axis = _shaped(lw, node, name, views, axis_node)
    extents = _extents(lw, node, what, pieces, axis)
    starts = [const(0)]
    for piece in pieces:
        starts.append(starts[-1] + _length(lw, piece.extents[axis]))
    extents[axis] = starts[-1]
    offsets = tuple(tuple(start if d == axis else const(0) for d in range(len(extents))) for start in starts[:-1])
    vtype = _dtype(lw, node, name, pieces, options)
    return Join(tuple(pieces), offsets, tuple(extents), vtype)


def tile_of(lw: Lowering, node: ast.Call) -> Join:
    """``np.tile(A, reps)`` with constant ``reps``: ``A`` with axes of extent 1 put in front up
    to ``len(reps)`` axes (``reps`` padded with 1s in front up to ``A``'s), one copy of it per
    block of the result (at most ``_MOST_COPIES``)."""
    lw.keywords(node, ())
    if len(node.args) != 2:
        raise lw.error(node, "np.tile() takes an array and the repetitions", "np.tile")
    given, reps_node = node.args
    a = lw.listed(given, None, "np.tile() of a list") if isinstance(given, (ast.List, ast.Tuple)) else lw.value(given)
    items = reps_node.elts if isinstance(reps_node, (ast.Tuple, ast.List)) else [reps_node]
    counts = [_int(i) for i in items]
    if counts and None in counts and not any(c is not None and c < 0 for c in counts):
        spread = _tile_spread(lw, node, a, items, counts)
        if spread is not None:
            return spread
    if not counts or any(c is None or c < 0 for c in counts):
        raise lw.error(reps_node, "np.tile() repetitions must be non-negative integer constants (or a tuple of "
                       "them); a size (np.tile(x, (n, 1))) only along a new leading axis or one of extent 1, "
                       "with 1 along the others", "np.tile")
    reps = [1] * (a.rank - len(counts)) + [c for c in counts if c is not None]
    rank = len(reps)
    x = _placed(lw, a, rank, list(range(rank - a.rank, rank)))
    if np.prod(reps) > _MOST_COPIES:
        raise lw.error(reps_node, f"np.tile() of {np.prod(reps)} copies (each is a loop nest; at most "
                       f"{_MOST_COPIES}); write a loop over the copies, or index with %", "np.tile")
    lengths = [_length(lw, e) for e in x.extents]
    offsets = tuple(tuple(n.scale(b) for n, b in zip(lengths, block))
                    for block in itertools.product(*(range(r) for r in reps)))
    extents = tuple(e if r == 1 else n.scale(r) for e, n, r in zip(x.extents, lengths, reps))
    vtype = _numpy_type(lw, node, lambda x: np.tile(x, reps), [x])
    return Join((x,) * len(offsets), offsets, extents, vtype)


def _tile_spread(lw: Lowering, node: ast.Call, a: View, items: list[ast.expr], counts: list[int | None]) -> Join | None:
    """``np.tile(x, (n, 1))`` with repetitions that are sizes: where every repetition other than
    a constant 1 falls on an axis of extent 1 (a new leading one), the tile is ``x`` broadcast
    along those axes, one piece (each count assumed non-negative, checked per call); None for
    any other tile."""
    rank = max(len(items), a.rank)
    given = [const(c) if c is not None else sym_of(i) for c, i in zip(counts, items)]
    reps = [const(1)] * (rank - len(items)) + given
    x = _placed(lw, a, rank, list(range(rank - a.rank, rank)))
    spread = [d for d, r in enumerate(reps) if not r.is_const(1)]
    if not all(x.extents[d].is_const(1) and lw.assumable(f"{reps[d].text} >= 0") for d in spread):
        return None
    for d in spread:
        lw.require(f"{reps[d].text} >= 0")
    extents = tuple(reps[d] if d in spread else e for d, e in enumerate(x.extents))

    def element(idx: tuple[Sym, ...]) -> ast.expr:
        return x.element(tuple(const(0) if d in spread else k for d, k in enumerate(idx)))

    vtype = _numpy_type(lw, node, lambda v: np.tile(v, (1,) * rank), [x])
    return Join((View(extents, x.vtype, element),), (tuple(const(0) for _ in extents),), extents, vtype)


def repeat_value(lw: Lowering, node: ast.Call, a: View, rest: list[ast.expr]) -> View:
    """``np.repeat(a, repeats, axis=None)`` / ``a.repeat(repeats, axis)`` with a constant count:
    element ``k`` along the axis is ``a``'s element ``k // repeats`` (a copy; ``axis=None``, which
    flattens, only of a vector or a scalar)."""
    given = dict(zip(("repeats", "axis"), rest))
    for kw, value in lw.keywords(node, ("repeats", "axis")).items():
        if kw in given:
            raise lw.error(node, f"np.repeat() given {kw} twice", "np.repeat")
        given[kw] = value
    if "repeats" not in given or len(rest) > 2:
        raise lw.error(node, "np.repeat() takes an array, the repetitions and an axis", "np.repeat")
    count: int | Sym | None = _int(given["repeats"])
    if count is None:
        count = _count_argument(lw, given["repeats"])
    if count is None or (isinstance(count, int) and count < 0):
        raise lw.error(given["repeats"], "np.repeat() repetitions must be one non-negative integer constant or an "
                       "integer expression of arguments and sizes that does not change in a loop (an array of "
                       "counts gives a data-dependent shape)", "np.repeat")
    axis_node = given.get("axis", ast.Constant(None))
    if isinstance(axis_node, ast.Constant) and axis_node.value is None:
        if a.rank > 1:
            raise lw.error(node, f"np.repeat() of a {a.rank}-d array without axis= (NumPy flattens it first; "
                           "polyfuse does not reshape)", "np.repeat")
        a, axis = _placed(lw, a, 1, []) if a.rank == 0 else a, 0
    else:
        axis = _axis(lw, axis_node, "np.repeat", a.rank)
    if isinstance(count, Sym):  # a count known at the call: the extent is a size the call computes
        counted = count
        extents = tuple(lw.size_product([_length(lw, e), counted]) if d == axis else e
                        for d, e in enumerate(a.extents))

        def by_count(i: Sym) -> Sym:  # a subscript computed at run time (never with a count of 0: no elements)
            return sym_of(ast.parse(f"({i.text}) // ({counted.text})", mode="eval").body)
    else:
        number = count
        extents = tuple(_length(lw, e).scale(number) if d == axis else e for d, e in enumerate(a.extents))

        def by_count(i: Sym) -> Sym:
            return i.floordiv(number) if number > 1 else i
    lw.changed = True

    def element(idx: tuple[Sym, ...]) -> ast.expr:
        return a.element(tuple(by_count(i) if d == axis else i for d, i in enumerate(idx)))

    return View(extents, VType(a.vtype.dtype, False), element)


def _shaped(lw: Lowering, node: ast.Call, name: str, views: list[View],
            axis_node: ast.expr) -> tuple[list[View], int]:
    """The pieces at the result's rank, and the axis they join along, as NumPy's ``name`` makes
    them: concatenate as they are, stack with a new axis, the others through atleast_Nd."""
    what = f"np.{name}"
    if name == "hstack":  # atleast_1d; along axis 0 when the first is 1-d, else along axis 1
        pieces = [_placed(lw, v, 1, []) if v.rank == 0 else v for v in views]
        return _same_rank(lw, node, what, pieces), 0 if pieces[0].rank == 1 else 1
    if name == "vstack":  # atleast_2d: a vector is a row
        pieces = [_placed(lw, v, 2, [] if v.rank == 0 else [1]) if v.rank < 2 else v for v in views]
        return _same_rank(lw, node, what, pieces), 0
    if name == "dstack":  # atleast_3d: a vector is (1, n, 1), a matrix (m, n, 1)
        pieces = [_placed(lw, v, 3, [[], [1], [0, 1]][v.rank]) if v.rank < 3 else v for v in views]
        return _same_rank(lw, node, what, pieces), 2
    if name == "column_stack":  # a vector is a column
        pieces = [_placed(lw, v, 2, [] if v.rank == 0 else [0]) if v.rank < 2 else v for v in views]
        return _same_rank(lw, node, what, pieces), 1
    rank = _same_rank(lw, node, what, views)[0].rank
    if name == "stack":  # every piece of one shape, a new axis of extent 1 where the axis says
        axis = _axis(lw, axis_node, what, rank + 1)
        return [_placed(lw, v, rank + 1, [d for d in range(rank + 1) if d != axis]) for v in views], axis
    if rank == 0:
        raise lw.error(node, f"{what}() of scalars (NumPy refuses zero-dimensional arrays); use np.array([...]) "
                       "or np.hstack", what)
    if isinstance(axis_node, ast.Constant) and axis_node.value is None:
        if rank != 1:
            raise lw.error(axis_node, f"{what}(..., axis=None) of {rank}-d arrays (NumPy flattens them first; "
                           "polyfuse does not reshape)", what)
        return views, 0
    return views, _axis(lw, axis_node, what, rank)


def _placed(lw: Lowering, v: View, rank: int, placed: list[int]) -> View:
    """``v`` with ``rank`` axes: its axis ``d`` at ``placed[d]``, the others of extent 1."""
    extents = tuple(v.extents[placed.index(d)] if d in placed else const(1) for d in range(rank))
    return lw.regrouped(v, list(range(v.rank)), placed, extents)


def _same_rank(lw: Lowering, node: ast.Call, what: str, pieces: list[View]) -> list[View]:
    ranks = sorted({p.rank for p in pieces})
    if len(ranks) > 1:
        raise lw.error(node, f"{what}() of arrays of {' and '.join(map(str, ranks))} dimensions (NumPy requires "
                       "one number of dimensions and raises ValueError)", what)
    return pieces


def _axis(lw: Lowering, axis_node: ast.expr, what: str, rank: int) -> int:
    axis = _int(axis_node)
    if axis is None or not -rank <= axis < rank:
        raise lw.error(axis_node, f"{what}() axis= must be an integer constant in [-{rank}, {rank}) here",
                       what)
    return axis % rank


def _extents(lw: Lowering, node: ast.Call, what: str, pieces: list[View], axis: int) -> list[Sym]:
    """The result's extents off ``axis`` (the first piece's), each piece's made equal to them."""
    extents = list(pieces[0].extents)
    for piece in pieces[1:]:
        for d, (mine, theirs) in enumerate(zip(extents, piece.extents)):
            if d == axis or mine.text == theirs.text:
                continue
            if mine.is_const() and theirs.is_const():
                raise lw.error(node, f"{what}(): the pieces' extents along axis {d} differ ({mine.const} and "
                               f"{theirs.const}; NumPy raises ValueError)", what)
            lw.mismatch(mine, theirs, node)
    return extents


def _length(lw: Lowering, e: Sym) -> Sym:
    """A piece's extent along the joined axis as a count: a slice's length may come out negative
    where NumPy's is 0 (``x[1:]`` of an empty ``x``), which must not move the next piece back."""
    if e.opaque is None and e.const >= 0 and all(c > 0 for _, c in e.terms):
        return e
    return e if lw.proven(f"{e.text} >= 0") else smax(const(0), e)


def _dtype(lw: Lowering, node: ast.Call, name: str, pieces: list[View], options: dict[str, ast.expr]) -> VType:
    """What NumPy's own function gives for arrays of the pieces' dtypes (a list piece counts as
    the array NumPy makes of it), under ``dtype=``/``casting=``."""
    keywords: dict[str, object] = {}
    if "dtype" in options:
        dtype = lw.dtype_given(options["dtype"])
        if dtype is None:
            raise lw.error(options["dtype"], f"np.{name}() dtype= must name a numpy dtype", f"np.{name}")
        keywords["dtype"] = dtype
    if "casting" in options:
        casting = options["casting"]
        if not (isinstance(casting, ast.Constant) and casting.value in ("no", "equiv", "safe", "same_kind",
                                                                        "unsafe")):
            raise lw.error(casting, f"np.{name}() casting= must be a string constant NumPy knows", f"np.{name}")
        keywords["casting"] = casting.value
    function = getattr(np, name)
    return _numpy_type(lw, node, lambda *xs: function(xs, **keywords), pieces)


def _numpy_type(lw: Lowering, node: ast.Call, function: Callable, pieces: list[View]) -> VType:
    """``lw.numpy_type`` with every piece an array (a Python number has become one already)."""
    if any(p.vtype.dtype == "unknown" for p in pieces):
        return UNKNOWN
    return lw.numpy_type(node, function, [View(p.extents, VType(p.vtype.dtype, False), p.element) for p in pieces])


def _cast(piece: View, dtype: str, idx: tuple[Sym, ...]) -> ast.expr:
    element = piece.element(idx)
    if piece.vtype.dtype == dtype and not piece.vtype.weak:
        return element
    cast = ast.Attribute(ast.Name(NP_NAME, ast.Load()), "bool_" if dtype == "bool" else dtype, ast.Load())
    return ast.Call(cast, [element], [])


def _reads(piece: View, array: str | None) -> bool:
    probes = tuple(const(0) for _ in piece.extents)
    return array is not None and any(isinstance(n, ast.Name) and n.id == array
                                     for n in walk(piece.element(probes)))


def _count_argument(lw: Lowering, node: ast.expr) -> Sym | None:
    """``np.repeat``'s count as a Sym when it is affine in integer arguments and sizes (``n``,
    ``k + 1``; not a loop variable): non-negative, assumed and checked per call (NumPy raises
    ValueError for negative repeats; so does the ArgumentError), or None."""
    written = lw.known_extents(node)  # resets lw.changed, which repeat_value sets after
    if not is_affine(written, lw.params):
        return None
    count = sym_of(written)
    return count if lw.require(f"{count.text} >= 0") else None


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


JOIN_RULES = JoinRules(join_value, store_join, repeat_value)

__all__ = ["JOIN_RULES", "Join", "join_of", "join_value", "repeat_value", "store_join"]
