"""Boolean-mask selections used after the statement that binds them (part of ``frontend.rewrite``,
before ``Desugar``).

``p = x[x > 0]`` has a length that depends on the data.  ``frontend.arrays`` reads such a name
lazily, as ``x[mask]`` in the statement right after it (``s = p.sum()``).  Used later, in a
branch, several times or iterated, it is rewritten here: the mask is computed once where ``p``
is bound (a fresh array nothing else writes), and each later use reads the selection anew::

    p = x[x > 0]                  _pf_mask = x > 0
    s = 0.0                       p = x[_pf_mask]
    for v in p:          ->       s = 0.0
        s += v * v                for _pf_k in range(x.shape[0]):
    m = p.max() if len(p) else 0.0    if _pf_mask[_pf_k]:
                                          v = x[_pf_k]
                                          s += v * v
                                  m = x[_pf_mask].max() if int(np.count_nonzero(_pf_mask)) else 0.0

- ``for v in p`` runs over ``x`` (1-d) and skips the positions the mask leaves out, visiting the
  selected elements in order (no ``else``: ``break`` and ``continue`` keep their meaning);
- ``len(p)`` and ``p.shape[0]`` are the mask's count (of whole rows too, for a row mask), and
  ``p.size`` of a 1-d ``x``;
- any other use is ``x[_pf_mask]``, read where it stands (so the lowering's rules for a
  selection apply there: reductions, ``p[0]``).

The reads stay what they meant only while nothing changes ``x`` or ``p``: ``x`` is an array
argument, or a name bound once earlier in the same block, and neither it, nor ``p``, nor a view
of either is written (stored into, augmented, ``out=``, ``np.copyto``, a mutating method) or
bound again; ``p`` is bound once, and every use stands after its binding in the same block
(inside later statements too).  The mask must be written as one (a comparison, ``~``, ``&``,
``|``, ``^`` of masks, ``np.isnan`` and friends, or a name bound once to such an expression,
its names neither written nor bound twice):
``x[idx]`` of an integer index array is a gather, left alone.  A selection used only in the
statement right after it is left to the lowering as it was.
"""

from __future__ import annotations

import ast
import copy
import types
from collections.abc import Callable, Sequence
from typing import Protocol

from .builtin_helpers import numpy_argsort_prefix
from .checker import PREFIX_INDEX_CALL, module_of, prefix_index
from .data_sized import _is_np, selection, shape_of
from .source import copy_tree, map_blocks, walk

_MASK_FUNCTIONS = frozenset({"isnan", "isfinite", "isinf", "isneginf", "isposinf", "logical_and", "logical_or",
                             "logical_not", "logical_xor", "signbit"})
_MUTATING_METHODS = frozenset({"sort", "fill", "put", "resize", "itemset", "partition", "setfield", "byteswap"})
_COMPOUND = (ast.For, ast.While, ast.If, ast.With, ast.Try)


class Rewriter(Protocol):
    ranks: dict[str, int]
    dtypes: dict
    globals: dict
    local_extents: dict

    def fresh(self, base: str) -> str: ...

    def placed(self, node, like: ast.AST): ...

    def numpy_alias(self) -> str: ...

    def mark(self, node: ast.AST, origin) -> None: ...

    def origin(self, node: ast.AST): ...


class _Facts:
    """What the whole body tells: single bindings, binding counts, names written through."""

    def __init__(self, body: list[ast.stmt], globals_: dict | None = None) -> None:
        tree = ast.Module(body=body, type_ignores=[])
        modules = {k for k, v in (globals_ or {}).items() if isinstance(v, types.ModuleType)}
        self.counts: dict[str, int] = {}
        values: dict[str, ast.expr] = {}
        self.loads: dict[str, int] = {}
        for node in walk(tree):
            if isinstance(node, ast.Name):
                tally = self.loads if isinstance(node.ctx, ast.Load) else self.counts
                tally[node.id] = tally.get(node.id, 0) + 1
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values[node.targets[0].id] = node.value
        self.bindings = {name: value for name, value in values.items() if self.counts.get(name) == 1}
        self.through = _written_through(tree, modules)


def selection_loops(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with the later uses of each mask selection rewritten (see the module)."""
    return _block(rw, body, _Facts(body, rw.globals), False)


def unique_loops(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with its loops over ``np.unique`` rewritten (``_unique_uses``); before the
    builtin helpers' pass, which writes the ``np.sort`` it adds as loops."""
    body = _nonzero_pairs(rw, body, _Facts(body, rw.globals), True)
    body = _named_lengths(rw, body)
    return _block(rw, body, _Facts(body, rw.globals), True)


def _nonzero_pairs(rw: Rewriter, stmts: list[ast.stmt], facts: _Facts, top: bool) -> list[ast.stmt]:
    """``r, c = np.nonzero(M)`` (``np.where(M)``, ``M.nonzero()``) of a 2-d ``M`` whose rank the
    arguments tell, ``r`` and ``c`` bound once and used only in later statements of the block:
    where they are used only as ``len(r)`` (``r.size``, ``r.shape[0]``) and ``r[e]``, the flat
    positions ``f = np.flatnonzero(M)`` (C order, as NumPy's pairs) with ``len(f)`` and
    ``f[e] // M.shape[1]`` / ``f[e] % M.shape[1]``; where they are only items of returned values
    (at the top level of the body), two lists appended in a loop nest over ``M`` (``M[i, j] != 0``,
    Python's truth: NaN counts) returned as ``np.asarray(rows, dtype=np.int64)``.  Anything else
    is left as written (refused)."""
    out: list[ast.stmt] = []
    for k, stmt in enumerate(stmts):
        map_blocks(stmt, lambda inner: _nonzero_pairs(rw, inner, facts, False))
        made = _nonzero_pair(rw, stmt, facts, stmts[k + 1:], top)
        out.extend([stmt] if made is None else made)
    return out


def _nonzero_operand(rw: Rewriter, node: ast.expr) -> ast.expr | None:
    """``M`` of ``np.nonzero(M)``, ``np.where(M)`` or ``M.nonzero()``; None otherwise."""
    if not isinstance(node, ast.Call) or node.keywords or not isinstance(node.func, ast.Attribute):
        return None
    if module_of(node.func.value, rw.globals) == "np":
        return node.args[0] if node.func.attr in ("nonzero", "where") and len(node.args) == 1 else None
    return node.func.value if node.func.attr == "nonzero" and not node.args \
        and module_of(node.func.value, rw.globals) is None else None


def _nonzero_pair(rw: Rewriter, stmt: ast.stmt, facts: _Facts, later: list[ast.stmt],
                  top: bool) -> list[ast.stmt] | None:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and len(stmt.targets[0].elts) == 2 and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts)):
        return None
    M = _nonzero_operand(rw, stmt.value)
    if M is None:
        return None
    r, c = (t.id for t in stmt.targets[0].elts)  # type: ignore[attr-defined]
    names = {n.id for n in walk(M) if isinstance(n, ast.Name)}
    shape = shape_of(rw, M, _is_np(rw, facts.bindings))
    if r == c or r in names or c in names or shape is None or shape.rank != 2 \
            or facts.counts.get(r) != 1 or facts.counts.get(c) != 1 \
            or any(n in facts.through or facts.counts.get(n, 0) > 1 for n in names):
        return None
    loads = sum(isinstance(n, ast.Name) and n.id in (r, c) and isinstance(n.ctx, ast.Load)
                for s in later for n in walk(s))
    if loads != facts.loads.get(r, 0) + facts.loads.get(c, 0):
        return None  # a use elsewhere (before, in another block)
    m = rw.fresh("nz_m")
    bind_m = ast.copy_location(ast.Assign([rw.placed(ast.Name(m, ast.Store()), M)], M), stmt)
    returned = sum(isinstance(item, ast.Name) and item.id in (r, c)
                   for s in later if isinstance(s, ast.Return) and s.value is not None
                   for item in (s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]))
    np_ = rw.numpy_alias()
    if returned == loads and top:
        rows, cols, i, j = rw.fresh("nz_rows"), rw.fresh("nz_cols"), rw.fresh("nz_i"), rw.fresh("nz_j")
        text = (f"{rows} = []\n{cols} = []\n"
                f"for {i} in range({m}.shape[0]):\n"
                f"    for {j} in range({m}.shape[1]):\n"
                f"        if {m}[{i}, {j}] != 0:\n"
                f"            {rows}.append({i})\n"
                f"            {cols}.append({j})\n")
        made = [bind_m, *ast.parse(text).body]
        lists = {r: rows, c: cols}
        for s in later:
            if isinstance(s, ast.Return) and s.value is not None:
                items = s.value.elts if isinstance(s.value, ast.Tuple) else None
                for pos, item in enumerate(items if items is not None else [s.value]):
                    if isinstance(item, ast.Name) and item.id in lists:
                        new = rw.placed(ast.parse(f"{np_}.asarray({lists[item.id]}, dtype={np_}.int64)",
                                                  mode="eval").body, item)
                        if items is not None:
                            items[pos] = new
                        else:
                            s.value = new
    else:
        uses = _PairUses(r, c)
        for s in later:
            uses.visit(s)
        if uses.other or uses.found != loads:
            return None
        f = rw.fresh("nz_flat")
        flat = ast.parse(f"{f} = {np_}.flatnonzero(0)\n").body[0]
        flat.value.args = [rw.copy(M)]  # type: ignore[attr-defined]  # (its rank from the arguments)
        made = [bind_m, flat]
        for s in later:
            _PairRewrite(rw, r, c, f, m).visit(s)
    for st in made[1:]:
        for sub in walk(st):
            if "lineno" in sub._attributes:
                ast.copy_location(sub, stmt)
    for st in made:
        rw.mark(st, rw.origin(stmt))
    return made


class _PairUses(ast.NodeVisitor):
    """Counts ``len(r)`` / ``r[e]`` uses of the pair's names; notes any other."""

    def __init__(self, r: str, c: str) -> None:
        self.names, self.found, self.other = (r, c), 0, False

    def generic_visit(self, node: ast.AST) -> None:
        if any(_length_of(node, n) for n in self.names):
            self.found += 1
            return
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.names \
                and isinstance(node.ctx, ast.Load) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            self.found += 1
            self.visit(node.slice)
            return
        if isinstance(node, ast.Name) and node.id in self.names:
            self.other = True
        super().generic_visit(node)


class _PairRewrite(ast.NodeTransformer):
    def __init__(self, rw: Rewriter, r: str, c: str, flat: str, m: str) -> None:
        self.rw, self.r, self.c, self.flat, self.m = rw, r, c, flat, m

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if any(_length_of(node, n) for n in (self.r, self.c)):
            return self.rw.placed(ast.parse(f"len({self.flat})", mode="eval").body, node)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id in (self.r, self.c) and isinstance(node.ctx, ast.Load):
            op = ast.FloorDiv() if node.value.id == self.r else ast.Mod()
            index = self.visit(node.slice)
            element = ast.Subscript(self.rw.placed(ast.Name(self.flat, ast.Load()), node), index, ast.Load())
            columns = ast.parse(f"{self.m}.shape[1]", mode="eval").body
            return self.rw.placed(ast.BinOp(self.rw.placed(element, node), op, columns), node)
        return super().generic_visit(node)


def _named_lengths(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``len(np.unique(x))`` (``.size``, ``.shape[0]``) where its statement surely evaluates it
    (not inside ``a if c else b``, ``and``/``or``, a ``while`` test): ``u = np.unique(x)`` just
    before the statement, then ``len(u)``, which ``_unique_uses`` makes the count."""
    out: list[ast.stmt] = []
    for stmt in body:
        map_blocks(stmt, lambda inner: _named_lengths(rw, inner))
        parts: list[ast.AST] = [stmt] if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr,
                                                             ast.Return)) \
            else [stmt.iter] if isinstance(stmt, ast.For) else [stmt.test] if isinstance(stmt, ast.If) else []
        for part in parts:
            for node in _evaluated(part):
                if _argmax_index(node):  # v[np.argmax(c)]: the position bound first (read once, not
                    assert isinstance(node, ast.Subscript)  # once per bounds test of a checked index)
                    name = rw.fresh("at")
                    out.append(ast.copy_location(ast.Assign([rw.placed(ast.Name(name, ast.Store()), node.slice)],
                                                            node.slice), stmt))
                    node.slice = rw.placed(ast.Name(name, ast.Load()), node.slice)
                    continue
                target = _length_target(node)
                if target is None or not _is_unique(rw, target) or not isinstance(target, ast.Call):
                    continue
                name = rw.fresh("unique")
                out.append(ast.copy_location(ast.Assign([rw.placed(ast.Name(name, ast.Store()), target)],
                                                        copy.copy(target)), stmt))
                _replace_child(node, target, rw.placed(ast.Name(name, ast.Load()), target))
        out.append(stmt)
    return out


def _evaluated(node: ast.AST):
    """The nodes under ``node`` that Python surely evaluates when it evaluates ``node``."""
    yield node
    if isinstance(node, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                         ast.GeneratorExp)):
        return
    for child in ast.iter_child_nodes(node):
        yield from _evaluated(child)


def _argmax_index(node: ast.AST) -> bool:
    """Whether ``node`` is ``v[np.argmax(c)]`` (``np.argmin``, ``c.argmax()``, ``c.argmin()``;
    ``v`` and ``c`` names, no other arguments): the mode's ``vals[np.argmax(counts)]``."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load)):
        return False
    call = node.slice
    if not (isinstance(call, ast.Call) and not call.keywords and isinstance(call.func, ast.Attribute)
            and call.func.attr in ("argmax", "argmin") and isinstance(call.func.value, ast.Name)):
        return False
    if call.func.value.id in ("np", "numpy"):
        return len(call.args) == 1 and isinstance(call.args[0], ast.Name)
    return not call.args


def _length_target(node: ast.AST) -> ast.expr | None:
    """``a`` of ``len(a)``, ``a.size``, ``a.shape[0]``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    if isinstance(node, ast.Attribute) and node.attr == "size":
        return node.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return node.value.value
    return None


def _replace_child(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """``old`` (a child of ``parent`` or of its ``shape`` attribute) replaced by ``new``."""
    holder = parent.value if isinstance(parent, ast.Subscript) else parent
    for field, value in ast.iter_fields(holder):
        if value is old:
            setattr(holder, field, new)
        elif isinstance(value, list):
            for k, item in enumerate(value):
                if item is old:
                    value[k] = new


def _block(rw: Rewriter, stmts: list[ast.stmt], facts: _Facts, uniques: bool) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    bound_here: set[str] = set()
    for k, stmt in enumerate(stmts):
        map_blocks(stmt, lambda inner: _block(rw, inner, facts, uniques))
        if uniques:
            rest = stmts[k + 1:]
            unique = _unique_uses(rw, stmt, facts, rest)
            stmts[k + 1:] = rest  # (with the returned items it bound to names)
            out.extend([stmt] if unique is None else unique)
            continue
        chosen = _selection(rw, stmt, facts, bound_here, stmts[k + 1:])
        if isinstance(stmt, ast.Assign):
            bound_here.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        if chosen is None:
            out.append(stmt)
            continue
        name, array, mask = chosen
        mask_name = rw.fresh("_pf_mask")
        out.append(ast.copy_location(ast.Assign([rw.placed(ast.Name(mask_name, ast.Store()), mask)], mask), stmt))
        assert isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Subscript)
        stmt.value.slice = rw.placed(ast.Name(mask_name, ast.Load()), mask)
        out.append(stmt)
        rank = rw.ranks.get(array) if array in rw.ranks else len(rw.local_extents.get(array) or []) or None
        whole = rank == 1 or _whole_mask(rw, mask, rank, facts.bindings)
        for later in stmts[k + 1:]:
            _Uses(rw, name, array, mask_name, rank, whole).visit(later)
    return out


def _unique_uses(rw: Rewriter, stmt: ast.stmt, facts: _Facts, later: list[ast.stmt]) -> list[ast.stmt] | None:
    """``for v in np.unique(x):``, or ``u = np.unique(x)`` used later only as ``for v in u``,
    ``len(u)``, ``u.shape[0]``, ``u.size``, ``u[k]`` inside ``for k in range(len(u))`` (``k``
    never bound there again: in range): the compaction of ``np.unique`` (``frontend.data_sized``,
    a buffer of ``x``'s length and a count) where the value is made, then loops over the count;
    None for anything else."""
    if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and not stmt.orelse \
            and _is_unique(rw, stmt.iter):
        made = selection(rw, stmt.iter, facts.bindings)  # (locals bound once: their rank)
        if made is None:
            return None
        _count_loop(rw, stmt, made.buffer, made.count)
        return [*made.statements, stmt]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and _is_unique(rw, stmt.value)):
        return None
    name = stmt.targets[0].id
    if facts.bindings.get(name) is not stmt.value or name in facts.through:
        return None
    uses = _UniqueUses(name)
    # k = idx + 1 at the top level: elementwise arithmetic of the whole buffer (_sized_allocations)
    arithmetic = _Scalars(rw, facts, set(), "")
    combined = [s for s in later if isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name) and _sized_elementwise(s.value, {name}, arithmetic)]
    for s in later:
        if s in combined:
            uses.found += sum(isinstance(n, ast.Name) and n.id == name for n in walk(s.value))
        else:
            uses.visit(s)
    if uses.other or not uses.found or uses.found + uses.returned != facts.loads.get(name, 0):
        return None  # (returned alone: data_sized's returned compaction)
    made = selection(rw, stmt.value, facts.bindings)
    if made is None:
        return None
    made = _renamed(made, name)  # its IndexError names the user's variable
    arrays = _index_arrays(rw, facts)
    # np.argsort of arrays of the length (np.unique's alone: its count is 0 only where the buffer
    # is empty, so an order's elements past the count can be 0, a position of the prefix)
    sortable = isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
        and stmt.value.func.attr == "unique"
    if sortable:  # u[order]: a checked gather
        arrays |= {s.targets[0].id for s in later if isinstance(s, ast.Assign) and len(s.targets) == 1
                   and isinstance(s.targets[0], ast.Name) and _argsorted(rw, s.value) is not None}
    for s in later:
        _UniqueRewrite(rw, name, made.buffer, made.count, arrays).visit(s)
    _sized_allocations(rw, later, facts, made.buffer, made.count, sortable, arrays, combined)
    return list(made.statements)


def _renamed(made, name: str):
    """``made`` with its buffer called ``name`` (bound once, every use rewritten: free)."""
    for st in made.statements:
        for node in walk(st):
            if isinstance(node, ast.Name) and node.id == made.buffer:
                node.id = name
    return type(made)(made.statements, name, made.count)


_ALLOCATORS = ("zeros", "empty", "ones", "full")


def _sized_allocations(rw: Rewriter, later: list[ast.stmt], facts: _Facts, buffer: str, count: str,
                       sortable: bool = False, arrays: set[str] | None = None,
                       combined: Sequence[ast.Assign] = ()) -> None:
    """``a = np.zeros(len(u))`` (``empty``, ``ones``, ``full``; the length already the count):
    ``a`` is allocated with the buffer's extent, an upper bound, and its later uses read its
    first ``count`` elements: ``len(a)`` is the count, ``a[k]`` in ``for k in range(count)`` the
    element, ``a[e]`` otherwise the element checked against the count (an IndexError past it),
    ``return a`` (or an item of the returned tuple) the prefix ``a[:count]``, ``a.sum()`` (``prod``,
    ``max``, ``min``, ``mean``; ``np.sum(a)`` & co.) the reduction of the prefix.  An elementwise
    expression of such arrays and scalars (``+ - * /``, unary ``-``, ``**`` of a float or
    non-negative integer constant, ``_SIZED_UFUNCS``; the reductions and lengths above are
    scalars) bound to a name once at the top level (``freq = c / c.sum()``) is computed over the
    whole buffers (no operation there raises or traps, whatever the elements past the count hold)
    and is such an array in turn; its operands may be allocated or bound after the array whose uses
    are checked (``mean = sums / counts``, both allocated before); an item of a return at the top
    level is bound to a name first (``return u, sums / counts``; ``_returned_named``).  Where
    ``sortable`` (the count is np.unique's), ``o = np.argsort(e, kind=)`` (or its ``[::-1]``) of
    such an expression bound to a name at the top level is the order of the first ``count``
    elements of ``e``'s buffer (builtin_helpers.numpy_argsort_prefix; 0 past the count) and is
    such an array in turn, and ``a[o]`` (``u[o]``) of such arrays is elementwise: the gather of
    the whole buffer.  Any other use of ``a`` is refused at the allocation.  ``combined``: the
    assignments that read the buffer itself in such arithmetic (``k = idx + 1`` of ``idx =
    np.nonzero(c)[0]``), each refused unless taken so (their value past the count never read)."""
    sized: set[str] = set()
    scalar = _Scalars(rw, facts, sized, count)
    scalar.buffer = buffer if sortable else None
    scalar.index_arrays = arrays or set()  # a[inv]: a checked gather
    derived: set[int] = set()  # the assignments a use took as elementwise arithmetic of the arrays

    def allocation(stmt: ast.stmt) -> int:
        """The rank of ``a = np.zeros(count)`` (1) or ``np.zeros((count, e))`` (2, ``e`` not
        reading the count); 0 for any other statement."""
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
                and stmt.value.func.attr in _ALLOCATORS and module_of(stmt.value.func.value, rw.globals) == "np"
                and stmt.value.args):
            return 0
        shape = stmt.value.args[0]
        if isinstance(shape, ast.Name) and shape.id == count:
            return 1
        two = isinstance(shape, ast.Tuple) and len(shape.elts) == 2 and isinstance(shape.elts[0], ast.Name) \
            and shape.elts[0].id == count and not any(isinstance(n, ast.Name) and n.id == count
                                                      for n in walk(shape.elts[1]))
        return 2 if two else 0
    # the arrays of the length, presumed (each is checked below, any failure refuses the kernel):
    # an array's uses may combine it with one allocated or derived after it (sums / counts)
    presumed: set[str] = {buffer} if combined else set()
    scalar.ranks[buffer] = 1
    hoisted: list[ast.stmt] = []
    for stmt in later:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and (allocation(stmt) or _sized_elementwise(stmt.value, presumed, scalar)):
            presumed.add(stmt.targets[0].id)
            scalar.ranks[stmt.targets[0].id] = allocation(stmt) or _sized_rank(stmt.value, presumed, scalar)
            if sortable and _argsorted(rw, stmt.value) is not None:
                scalar.orders.add(stmt.targets[0].id)
        elif isinstance(stmt, ast.Return) and stmt.value is not None:  # return u, sums / counts: bound first
            hoisted.extend(_returned_named(rw, stmt, facts, presumed, scalar))
        hoisted.append(stmt)
    later[:] = hoisted
    if combined:  # the buffer's own arithmetic (its other uses rewritten already: _UniqueRewrite)
        seeds = _SizedUses(buffer, presumed, scalar)
        for stmt in later:
            seeds.visit(stmt)
        derived.update(seeds.derived)
        sized.add(buffer)
    for k, stmt in enumerate(later):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        allocated = allocation(stmt)
        if not allocated and id(stmt) not in derived:  # (taken before the rewrites: c.sum() is c's prefix's)
            continue
        name = stmt.targets[0].id
        rest = later[k + 1:]
        uses = _SizedUses(name, sized | presumed | {name}, scalar)
        for s in rest:
            uses.visit(s)
        derived.update(uses.derived)
        if facts.bindings.get(name) is not stmt.value or uses.other or uses.found != facts.loads.get(name, 0):
            raise rw.error(stmt.value, f"an array of np.unique's length is supported where it is then only "  # type: ignore[attr-defined]
                           f"indexed by integers, its length read, reduced, in elementwise arithmetic bound to a "
                           f"name, or returned whole: {name!r} is used otherwise or bound again",
                           "allocation of a data-dependent length")
        if allocated:
            shape = stmt.value.args  # type: ignore[attr-defined]
            at = shape[0].elts if allocated == 2 else shape
            at[0] = rw.placed(ast.parse(f"{buffer}.shape[0]", mode="eval").body, at[0])
        elif sortable:
            stmt.value = _PrefixOrders(rw, count).visit(stmt.value)
        sized.add(name)
        for s in rest:
            _SizedRewrite(rw, name, count, sized, scalar).visit(s)
    for stmt in combined:
        if id(stmt) not in derived:
            raise rw.error(stmt.value, f"elementwise arithmetic of {buffer!r} (its length depends on the data) is "  # type: ignore[attr-defined]
                           "supported bound to a name at the top level, of it, arrays of its length and numbers "
                           "(its length, constants, arguments)", "arithmetic of a data-dependent length")
    for node in (n for s in later for n in walk(s)):  # any other allocation of the length: named
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ALLOCATORS \
                and module_of(node.func.value, rw.globals) == "np" and node.args \
                and any(isinstance(n, ast.Name) and n.id == count for n in walk(node.args[0])):
            raise rw.error(node, "an array of np.unique's length is supported as an allocation bound to a name "  # type: ignore[attr-defined]
                           "at the top level of the block that binds the np.unique (a = np.zeros(len(u)), or of "
                           "rows: np.zeros((len(u), d)))",
                           "allocation of a data-dependent length")


#: NumPy functions that an elementwise expression of arrays of np.unique's length may call (no
#: integer division or remainder: computed past the count too, they must not trap)
_SIZED_UFUNCS = frozenset(("abs", "absolute", "sqrt", "exp", "log", "log1p", "expm1", "log2", "log10", "sin", "cos",
                           "tanh", "negative", "square", "maximum", "minimum", "fmax", "fmin", "hypot", "sign",
                           "floor", "ceil", "rint", "true_divide", "divide", "add", "subtract", "multiply"))


class _Scalars:
    """``scalar(node)``: is ``node`` a number beside arrays of the count's length (a constant, a
    reduction or length of one of them, the count, a name the arguments tell is a scalar)?"""

    def __init__(self, rw: Rewriter, facts: _Facts, sized: set[str], count: str) -> None:
        self.rw, self.facts, self.sized, self.count = rw, facts, sized, count
        self.orders: set[str] = set()  # the names bound to np.argsort of arrays of the length
        self.ranks: dict[str, int] = {}  # the arrays of the length: 1, or 2 (np.zeros((count, d)))
        self.index_arrays: set[str] = set()  # integer index arrays (_index_arrays): a[inv] a gather
        self.buffer: str | None = None  # np.unique's buffer, where its arrays may be argsorted

    def __call__(self, node: ast.expr, sized: set[str]) -> bool:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            return True
        if any(_unique_reduced(node, n) or _length_of(node, n) for n in sized):
            return True
        if isinstance(node, ast.Name) and node.id not in sized:
            if node.id == self.count:
                return True
            shape = shape_of(self.rw, node, _is_np(self.rw, self.facts.bindings))
            return shape is not None and shape.rank == 0
        return False


def _returned_named(rw: Rewriter, stmt: ast.Return, facts: _Facts, presumed: set[str],
                    scalar: _Scalars) -> list[ast.stmt]:
    """The items of ``stmt``'s value that are elementwise arithmetic of arrays named in
    ``presumed`` (``return u, sums / counts``) bound each to a fresh name first, in order (the
    items before them names, constants or slices of names: nothing evaluated out of its order),
    the item made
    that name; the assignments (added to ``presumed`` and ``facts``)."""
    assert stmt.value is not None
    items = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
    made: list[ast.stmt] = []
    for pos, item in enumerate(items):
        if isinstance(item, (ast.Name, ast.Constant)) or isinstance(item, ast.Subscript) \
                and isinstance(item.value, ast.Name) and isinstance(item.slice, ast.Slice):
            continue  # (u[:count]: a slice never raises)
        if not _sized_elementwise(item, presumed, scalar):
            break
        name = rw.fresh("grouped")
        bind = ast.copy_location(ast.Assign([rw.placed(ast.Name(name, ast.Store()), item)], item), stmt)
        rw.mark(bind, rw.origin(stmt))
        use = rw.placed(ast.Name(name, ast.Load()), item)
        if isinstance(stmt.value, ast.Tuple):
            stmt.value.elts[pos] = use
        else:
            stmt.value = use
        facts.bindings[name], facts.counts[name], facts.loads[name] = item, 1, 1
        presumed.add(name)
        scalar.ranks[name] = _sized_rank(item, presumed, scalar)
        made.append(bind)
    return made


def _sized_elementwise(node: ast.expr, sized: set[str], scalar: _Scalars) -> bool:
    """Whether ``node`` is elementwise arithmetic of arrays named in ``sized`` (at least one) and
    scalars (``_sized_allocations``)."""
    def reads(n: ast.expr) -> int | None:  # the sized arrays read whole; None: not elementwise
        if isinstance(n, ast.Name) and n.id in sized:
            return 1
        if _column(n) in sized and scalar.ranks.get(_column(n) or "") == 1:
            return 1  # c[:, None]: beside arrays of two axes
        if scalar.buffer is not None:
            sorted_ = _argsorted(scalar.rw, n)
            if sorted_ is not None:
                return reads(sorted_[0])
            if _order_gather(n, sized | {scalar.buffer}, scalar.orders, scalar.count, scalar.rw):
                return 1
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            left, right = reads(n.left), reads(n.right)
            return None if left is None or right is None else left + right
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            return reads(n.operand)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and isinstance(n.right, ast.Constant) \
                and (type(n.right.value) is float or type(n.right.value) is int and n.right.value >= 0):
            return reads(n.left)  # (no negative integer power: it raises for an integer base)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SIZED_UFUNCS \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in ("np", "numpy") and n.args \
                and not n.keywords:
            parts = [reads(a) for a in n.args]
            return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)
        return 0 if scalar(n, sized) else None
    found = reads(node)
    return found is not None and found > 0 and _sized_rank(node, sized, scalar) > 0


def _row_first(index: ast.expr) -> bool:
    """Whether ``index`` is ``e, j`` or ``e, :`` (two items, the first not a slice)."""
    return isinstance(index, ast.Tuple) and len(index.elts) == 2 and not isinstance(index.elts[0], ast.Slice) \
        and not (isinstance(index.elts[0], ast.Constant) and index.elts[0].value is None)


def _column(node: ast.AST) -> str | None:
    """``c`` of ``c[:, None]``; None for anything else."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Tuple) \
            and len(node.slice.elts) == 2 and isinstance(node.slice.elts[0], ast.Slice) \
            and node.slice.elts[0].lower is None and node.slice.elts[0].upper is None \
            and node.slice.elts[0].step is None and isinstance(node.slice.elts[1], ast.Constant) \
            and node.slice.elts[1].value is None:
        return node.value.id
    return None


def _sized_rank(node: ast.expr, sized: set[str], scalar: _Scalars) -> int:
    """The rank of elementwise arithmetic of arrays of the length (``_sized_elementwise``): 1 or
    2 where every array it reads whole has that rank (``c[:, None]`` of a 1-d ``c`` is of two);
    0 where they differ (``A / c`` would broadcast ``c`` along ``A``'s last axis, not its rows)."""
    def ranks(n: ast.expr) -> set[int]:
        if isinstance(n, ast.Name) and n.id in sized:
            return {scalar.ranks.get(n.id, 1)}
        if _column(n) in sized:
            return {2}
        if _argsorted(scalar.rw, n) is not None:  # np.argsort(e) of a 1-d e alone
            inner = ranks(_argsorted(scalar.rw, n)[0])  # type: ignore[index]
            return {1} if inner == {1} else {0}
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in sized | {scalar.buffer}:
            return {scalar.ranks.get(n.value.id, 1)}  # a gather by an order: rows of a 2-d array
        if isinstance(n, ast.BinOp):
            return ranks(n.left) | ranks(n.right)
        if isinstance(n, ast.UnaryOp):
            return ranks(n.operand)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SIZED_UFUNCS:
            return set().union(*(ranks(a) for a in n.args)) if n.args else set()
        return set()  # a scalar
    found = ranks(node)
    if len(found) == 1 and 0 not in found:
        return found.pop()
    return 0


class _SizedUses(ast.NodeVisitor):
    """Counts the uses of ``name`` that ``_SizedRewrite`` rewrites; notes any other."""

    def __init__(self, name: str, sized: set[str] | None = None, scalar: _Scalars | None = None) -> None:
        self.name, self.found, self.other = name, 0, False
        self.sized, self.scalar = sized or {name}, scalar
        self.derived: set[int] = set()  # the assignments of elementwise arithmetic taken (their ids)

    def elementwise(self, node: ast.expr) -> bool:
        """``node`` is elementwise arithmetic of arrays of the length: its reads of ``name`` counted."""
        if self.scalar is None or not _sized_elementwise(node, self.sized, self.scalar):
            return False
        self.found += self.reads(node)
        return True

    def reads(self, node: ast.AST) -> int:
        """The loads of ``name`` in ``node``, one for each checked gather by it (``u[o]``)."""
        if isinstance(node, ast.Name):
            return int(node.id == self.name)
        assert self.scalar is not None
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Name) and _order_gather(
                node, self.sized | {self.scalar.buffer or ""}, self.scalar.orders, self.scalar.count, self.scalar.rw):
            return self.reads(node.value) + int(any(isinstance(n, ast.Name) and n.id == self.name
                                                    for n in walk(node.slice)))
        return sum(self.reads(child) for child in ast.iter_child_nodes(node))

    def generic_visit(self, node: ast.AST) -> None:
        rows = self.scalar is not None and self.scalar.ranks.get(self.name) == 2
        if rows and isinstance(node, ast.Attribute) and node.attr == "size":  # (count times the columns)
            self.visit(node.value)
            return
        if _length_of(node, self.name):
            self.found += 1
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and self.elementwise(node.value):
            self.derived.add(id(node))
            return
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and (not isinstance(node.slice, (ast.Slice, ast.Tuple)) or rows and _row_first(node.slice)):
            self.found += 1  # a[e], and a[e, j], a[e, :] of an array of two axes
            self.visit(node.slice)
            return
        if rows and _unique_reduced(node, self.name):
            self.other = True  # (a reduction of the rows: not of the first count elements)
            return
        if isinstance(node, ast.Return) and node.value is not None:
            items = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for item in items:
                if isinstance(item, ast.Name) and item.id == self.name:
                    self.found += 1
                else:
                    self.visit(item)
            return
        if _unique_reduced(node, self.name):
            self.found += 1
            return
        if isinstance(node, ast.Name) and node.id == self.name:
            self.other = True
        super().generic_visit(node)


class _SizedRewrite(ast.NodeTransformer):
    """The uses ``_SizedUses`` counted, rewritten (see ``_sized_allocations``)."""

    def __init__(self, rw: Rewriter, name: str, count: str, sized: set[str] | None = None,
                 scalar: _Scalars | None = None) -> None:
        self.rw, self.name, self.count = rw, name, count
        self.counters: set[str] = set()
        self.sized, self.scalar = sized or {name}, scalar

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if _length_of(node, self.name):
            return self.rw.placed(ast.Name(self.count, ast.Load()), node)
        if isinstance(node, ast.For):
            node.iter = self.visit(node.iter)
            counter = _counter_over_count(node, self.count)
            if counter is not None:
                self.counters.add(counter)
            node.body = [self.visit(s) for s in node.body]
            node.orelse = [self.visit(s) for s in node.orelse]
            self.counters.discard(counter or "")
            return node
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and isinstance(node.slice, ast.Tuple) and _row_first(node.slice) \
                and self.scalar is not None and self.scalar.ranks.get(self.name) == 2:
            node.slice = self.visit(node.slice)
            assert isinstance(node.slice, ast.Tuple)
            first = node.slice.elts[0]
            if not (isinstance(first, ast.Name) and first.id in self.counters):
                node.slice.elts[0] = _checked_index(self.rw, first, self.name, self.count)
            return node
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            node.slice = self.visit(node.slice)
            orders = self.scalar.orders | self.scalar.index_arrays if self.scalar is not None else set()
            if isinstance(node.slice, ast.Name) and node.slice.id in orders:
                node.slice = _checked_gather(self.rw, node.slice, self.name, self.count)
            elif not (isinstance(node.slice, ast.Name) and node.slice.id in self.counters):
                node.slice = _checked_index(self.rw, node.slice, self.name, self.count)
            return node
        if _unique_reduced(node, self.name):  # counts.sum(): the reduction of the first count elements
            return _prefix_reduced(self.rw, node, self.name, self.count)
        if isinstance(node, ast.Return) and node.value is not None:
            prefix = f"{self.name}[:{self.count}]"
            if isinstance(node.value, ast.Name) and node.value.id == self.name:
                node.value = self.rw.placed(ast.parse(prefix, mode="eval").body, node.value)
                return node
            if isinstance(node.value, ast.Tuple):
                node.value.elts = [self.rw.placed(ast.parse(prefix, mode="eval").body, e)
                                   if isinstance(e, ast.Name) and e.id == self.name else self.visit(e)
                                   for e in node.value.elts]
                return node
        return super().generic_visit(node)


def _argsorted(rw: Rewriter, node: ast.AST) -> tuple[ast.expr, ast.expr | None, bool] | None:
    """``(e, kind, reversed)`` of ``np.argsort(e, kind=)`` (``axis=-1`` or ``0`` too, as a 1-d
    ``e`` takes them) or of its ``[::-1]``; None for anything else."""
    backwards = isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) \
        and node.slice.lower is None and node.slice.upper is None \
        and isinstance(node.slice.step, ast.UnaryOp) and isinstance(node.slice.step.op, ast.USub) \
        and isinstance(node.slice.step.operand, ast.Constant) and node.slice.step.operand.value == 1
    call = node.value if backwards else node  # type: ignore[attr-defined]
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "argsort"
            and module_of(call.func.value, rw.globals) == "np" and len(call.args) == 1
            and not isinstance(call.args[0], ast.Starred)):
        return None
    given = {k.arg: k.value for k in call.keywords}
    axis = given.pop("axis", ast.Constant(-1))
    kind = given.pop("kind", None)
    if given or not (isinstance(axis, ast.Constant) and axis.value in (-1, 0)) \
            or kind is not None and not (isinstance(kind, ast.Constant)
                                         and kind.value in ("quicksort", "mergesort", "heapsort", "stable")):
        return None
    return call.args[0], kind, backwards


def _order_gather(node: ast.AST, arrays: set[str], orders: set[str], count: str, rw: Rewriter) -> bool:
    """Whether ``node`` is ``a[o]`` of an array named in ``arrays`` and an order named in
    ``orders`` (``u[o]`` already a checked gather by ``o``: its other names the count, ``u`` and
    NumPy)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in arrays
            and not isinstance(node.slice, (ast.Slice, ast.Tuple))):
        return False
    names = {n.id for n in walk(node.slice) if isinstance(n, ast.Name)}
    return bool(names & orders) and names <= orders | {count, node.value.id, rw.numpy_alias(), "np", "numpy",
                                                       PREFIX_INDEX_CALL}


class _PrefixOrders(ast.NodeTransformer):
    """``np.argsort(e, kind=)`` (and its ``[::-1]``) -> builtin_helpers.numpy_argsort_prefix of
    ``e``'s first ``count`` elements (``_sized_allocations``)."""

    def __init__(self, rw: Rewriter, count: str) -> None:
        self.rw, self.count = rw, count

    def generic_visit(self, node: ast.AST) -> ast.AST:
        found = _argsorted(self.rw, node)
        if found is None:
            return super().generic_visit(node)
        e, kind, backwards = found
        stable = isinstance(kind, ast.Constant) and kind.value in ("stable", "mergesort")
        alias = self.rw.fresh("_pf_numpy_argsort_prefix")
        self.rw.globals[alias] = numpy_argsort_prefix
        call = self.rw.placed(ast.Call(ast.Name(alias, ast.Load()), [
            ast.Name(self.count, ast.Load()), ast.Constant(stable), ast.Constant(backwards)], []), node)
        assert isinstance(call, ast.Call)
        call.args.insert(0, self.visit(e))  # (the user's expression keeps its place)
        return call


def _range_counter(loop: ast.AST, bound_ok: Callable[[ast.Call], bool]) -> str | None:
    """The variable of ``for k in range(bound)`` whose ``range`` call passes ``bound_ok`` and
    that the body never binds."""
    if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
            and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range" and len(loop.iter.args) == 1
            and bound_ok(loop.iter)):
        return None
    k = loop.target.id
    if any(isinstance(n, ast.Name) and n.id == k and not isinstance(n.ctx, ast.Load)
           for s in loop.body for n in walk(s)):
        return None
    return k


def _counter_over_count(loop: ast.For, count: str) -> str | None:
    """The variable of ``for k in range(count)`` that the body never binds."""
    return _range_counter(loop, lambda call: isinstance(call.args[0], ast.Name) and call.args[0].id == count)


def _checked_index(rw: Rewriter, index: ast.expr, array: str, count: str) -> ast.expr:
    """``index`` into the first ``count`` elements of ``array`` as NumPy indexes an array of
    that length: a negative index counts from the count, one outside raises IndexError naming
    the index and the count (frontend.checker ``PREFIX_INDEX_CALL``)."""
    return rw.placed(prefix_index(copy_tree(index), ast.Name(count, ast.Load())), index)


def _checked_gather(rw: Rewriter, index: ast.expr, array: str, count: str) -> ast.expr:
    """``_checked_index`` of an integer index array (``u[inv]``, ``inv`` from
    ``np.unique(x, return_inverse=True)``; ``u[idx]`` of the user's ``idx``): the check made per
    element (frontend.arrays lowers the call element by element), so an index past the count
    raises NumPy's IndexError with the count, never reads the buffer past it."""
    return _checked_index(rw, index, array, count)


_INT_TYPES = frozenset(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "intp", "int_"))


def _index_arrays(rw: Rewriter, facts: _Facts) -> set[str]:
    """The names that hold an integer array for the whole body: array arguments of an integer
    dtype it never binds, and locals bound once to ``np.zeros`` (``empty``, ``ones``, ``full``)
    with an integer ``dtype=`` (``np.unique``'s ``return_inverse`` result is such a local)."""
    names = {a for a, r in rw.ranks.items() if r >= 1 and str(rw.dtypes.get(a)) in _INT_TYPES
             and not facts.counts.get(a)}
    for name, value in facts.bindings.items():
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _ALLOCATORS \
                and module_of(value.func.value, rw.globals) == "np":
            dtype = next((k.value for k in value.keywords if k.arg == "dtype"), None)
            if isinstance(dtype, ast.Attribute) and dtype.attr in _INT_TYPES and module_of(dtype.value, rw.globals) == "np" \
                    or isinstance(dtype, ast.Name) and dtype.id == "int":
                names.add(name)
    return names


def _is_unique(rw: Rewriter, node: ast.expr) -> bool:
    """``np.unique(x)``, or the positions ``np.nonzero(c)[0]``, ``np.where(c)[0]``,
    ``c.nonzero()[0]``, ``np.flatnonzero(c)`` (compactions ``data_sized.selection`` makes)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0 \
            and isinstance(node.value, ast.Call) and not node.value.keywords:
        call = node.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "nonzero" and not call.args \
                and module_of(call.func.value, rw.globals) != "np":
            return True
        return isinstance(call.func, ast.Attribute) and call.func.attr in ("nonzero", "where") \
            and module_of(call.func.value, rw.globals) == "np" and len(call.args) == 1
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("unique", "flatnonzero") \
        and module_of(node.func.value, rw.globals) == "np" and len(node.args) == 1 and not node.keywords


def _count_loop(rw: Rewriter, loop: ast.For, buffer: str, count: str) -> None:
    """``for v in u: body`` -> ``for k in range(count): v = buffer[k]; body`` in place."""
    k = rw.fresh("_pf_k")
    element = rw.placed(ast.Subscript(rw.placed(ast.Name(buffer, ast.Load()), loop.iter),
                                      rw.placed(ast.Name(k, ast.Load()), loop.iter), ast.Load()), loop.iter)
    loop.body = [ast.copy_location(ast.Assign([loop.target], element), loop), *loop.body]
    loop.target = rw.placed(ast.Name(k, ast.Store()), loop.target)
    loop.iter = rw.placed(ast.Call(ast.Name("range", ast.Load()), [rw.placed(ast.Name(count, ast.Load()), loop.iter)],
                                   []), loop.iter)


def _length_of(node: ast.AST, name: str) -> bool:
    """Whether ``node`` is ``len(name)``, ``name.shape[0]`` or ``name.size``."""
    def named(n: ast.AST) -> bool:
        return isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords:
        return named(node.args[0])
    if isinstance(node, ast.Attribute) and node.attr == "size":
        return named(node.value)
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
        and named(node.value.value) and isinstance(node.slice, ast.Constant) and node.slice.value == 0


def _counter_over(loop: ast.AST, name: str) -> str | None:
    """The variable of ``for k in range(len(name))`` (``name.size``, ``name.shape[0]``) that
    its body never binds: ``name[k]`` is in range there."""
    return _range_counter(loop, lambda call: not call.keywords and _length_of(call.args[0], name))


class _UniqueUses(ast.NodeVisitor):
    """Counts ``name``'s uses this pass rewrites (``found``) and notes any other (``other``):
    its length, loops over it and ``name[k]`` in ``for k in range(len(name))``."""

    def __init__(self, name: str) -> None:
        self.name, self.found, self.other = name, 0, False
        self.returned = 0  # return u (or u an item of the returned tuple): its first count elements
        self.counters: set[str] = set()

    def generic_visit(self, node: ast.AST) -> None:
        if _length_of(node, self.name):
            self.found += 1
            return
        if isinstance(node, ast.Return) and node.value is not None:
            for item in node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]:
                if isinstance(item, ast.Name) and item.id == self.name:
                    self.returned += 1
                else:
                    self.visit(item)
            return
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id == self.name:
            if not isinstance(node.target, ast.Name) or node.orelse:
                self.other = True
            self.found += 1
            for s in node.body:
                self.visit(s)
            return
        counter = _counter_over(node, self.name)
        if counter is not None:
            self.counters.add(counter)
            super().generic_visit(node)
            self.counters.discard(counter)
            return
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and isinstance(node.ctx, ast.Load) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            self.found += 1  # u[k] in range(len(u)), u[0], u[-1], u[e]
            self.visit(node.slice)
            return
        if _unique_reduced(node, self.name):
            self.found += 1
            return
        if isinstance(node, ast.Name) and node.id == self.name:
            self.other = True
        super().generic_visit(node)


_REDUCTIONS = ("sum", "prod", "max", "min", "mean", "argmax", "argmin", "amax", "amin")
_METHODS = _REDUCTIONS[:7]  # (np.amax / np.amin are no methods)


def _unique_end(node: ast.AST, name: str) -> int | None:
    """``k`` of ``name[k]``, ``k`` an integer constant (``u[0]``, ``u[-1]``); None otherwise."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
            and isinstance(node.ctx, ast.Load)):
        return None
    k = node.slice
    if isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub) and isinstance(k.operand, ast.Constant) \
            and type(k.operand.value) is int:
        return -k.operand.value
    return k.value if isinstance(k, ast.Constant) and type(k.value) is int else None


def _unique_reduced(node: ast.AST, name: str) -> bool:
    """Whether ``node`` is ``name.sum()`` (``prod``, ``max``, ``min``, ``mean``, ``argmax``,
    ``argmin``: the first ``count`` elements are a prefix, so their positions are the buffer's) or
    ``np.sum(name)`` & co., without other arguments."""
    if not isinstance(node, ast.Call) or node.keywords or not isinstance(node.func, ast.Attribute) \
            or node.func.attr not in _REDUCTIONS:
        return False
    func = node.func
    if not node.args:
        return isinstance(func.value, ast.Name) and func.value.id == name and func.attr in _METHODS
    return len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == name \
        and isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy")


class _UniqueRewrite(ast.NodeTransformer):
    def __init__(self, rw: Rewriter, name: str, buffer: str, count: str, arrays: set[str]) -> None:
        self.rw, self.name, self.buffer, self.count = rw, name, buffer, count
        self.arrays = arrays  # integer index arrays (``_index_arrays``): u[inv] gathers
        self.counters: set[str] = set()

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if _length_of(node, self.name):
            return self.rw.placed(ast.Name(self.count, ast.Load()), node)
        if isinstance(node, ast.Return) and isinstance(node.value, (ast.Name, ast.Tuple)):
            def prefix(item: ast.expr) -> ast.expr:  # growing_lists' returned prefix buffer[:count]
                if isinstance(item, ast.Name) and item.id == self.name:
                    return self.rw.placed(ast.parse(f"{self.buffer}[:{self.count}]", mode="eval").body, item)
                return self.visit(item)
            if isinstance(node.value, ast.Tuple):
                node.value.elts = [prefix(e) for e in node.value.elts]
            else:
                node.value = prefix(node.value)
            return node
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id == self.name:
            node.body = [self.visit(s) for s in node.body]
            _count_loop(self.rw, node, self.buffer, self.count)
            return node
        counter = _counter_over(node, self.name)
        if counter is not None:
            assert isinstance(node, ast.For)
            node.iter = self.visit(node.iter)
            self.counters.add(counter)
            node.body = [self.visit(s) for s in node.body]
            self.counters.discard(counter)
            return node
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and isinstance(node.slice, ast.Name) and node.slice.id in self.counters:
            return self.rw.placed(ast.Subscript(ast.Name(self.buffer, ast.Load()), node.slice, ast.Load()), node)
        k = _unique_end(node, self.name)
        if k is not None:  # the buffer's element, or IndexError past the count (as NumPy)
            subscript = ast.Subscript(ast.Name(self.buffer, ast.Load()),
                                      prefix_index(ast.Constant(k), ast.Name(self.count, ast.Load())), ast.Load())
            return self.rw.placed(subscript, node)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            checked = _checked_gather if isinstance(node.slice, ast.Name) and node.slice.id in self.arrays \
                else _checked_index
            index = checked(self.rw, self.visit(node.slice), self.buffer, self.count)
            return self.rw.placed(ast.Subscript(ast.Name(self.buffer, ast.Load()), index, ast.Load()), node)
        if _unique_reduced(node, self.name):  # the reduction of the first count elements
            return _prefix_reduced(self.rw, node, self.buffer, self.count)
        return super().generic_visit(node)


def _prefix_reduced(rw: Rewriter, node: ast.AST, buffer: str, count: str) -> ast.AST:
    """``buffer.sum()`` (``np.sum(buffer)`` & co.) as the reduction of its first ``count``
    elements: a selection by the mask of positions 1, 2, ... (a cumsum of ones) up to the count."""
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    b, c, np_ = buffer, count, rw.numpy_alias()
    prefix = f"{np_}.cumsum({np_}.ones_like({b}, dtype={np_}.int64)) <= {c}"
    if node.func.attr in ("argmax", "argmin"):
        # the position in the whole buffer, the elements past the count filled with the prefix's
        # own max (min): a tie the first occurrence, in the prefix, wins; a NaN of the prefix is
        # the fill too, after the prefix's first; nothing selected is the masked max's ValueError
        extreme = "max" if node.func.attr == "argmax" else "min"
        text = f"{np_}.{node.func.attr}({np_}.where({prefix}, {b}, {b}[{prefix}].{extreme}()))"
        return rw.placed(ast.parse(text, mode="eval").body, node)
    first = rw.placed(ast.parse(f"{b}[{prefix}]", mode="eval").body, node)
    if node.args:
        node.args = [first]
    else:
        node.func.value = first
    return node


def _selection(rw: Rewriter, stmt: ast.stmt, facts: _Facts, bound_here: set[str],
               later: list[ast.stmt]) -> tuple[str, str, ast.expr] | None:
    """``(p, x, mask)`` of ``p = x[mask]`` whose uses this module rewrites; None to leave it."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Subscript) and isinstance(stmt.value.value, ast.Name)):
        return None
    name, array, mask = stmt.targets[0].id, stmt.value.value.id, stmt.value.slice
    if facts.bindings.get(name) is not stmt.value or name in facts.through or array in facts.through:
        return None
    argument = array in rw.ranks and facts.counts.get(array, 0) == 0
    if not (argument or (facts.counts.get(array) == 1 and array in bound_here)):
        return None
    if not _is_mask(rw, mask, facts.bindings):
        return None
    if any(isinstance(n, ast.Name) and (n.id in facts.through or facts.counts.get(n.id, 0) > 1)
           for n in walk(mask)):  # the mask's arrays must keep their values too (_pf_mask = m may be m)
        return None
    uses = [sum(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in walk(s))
            for s in later]
    if sum(uses) == 0 or sum(uses) != facts.loads.get(name, 0):  # a use elsewhere (before, outside): left
        return None
    rank = rw.ranks.get(array) if array in rw.ranks else len(rw.local_extents.get(array) or []) or None
    if rank != 1 and not _whole_mask(rw, mask, rank, facts.bindings) \
            and any(isinstance(n, ast.Attribute) and n.attr == "size" and isinstance(n.value, ast.Name)
                    and n.value.id == name for s in later for n in walk(s)):
        return None  # (p.size of a row mask is not its count: refused as it was)
    if sum(uses[1:]) == 0 and not isinstance(later[0], _COMPOUND) and not any(
            isinstance(n, (ast.IfExp, ast.BoolOp)) for n in walk(later[0])):
        return None  # used in the statement right after, where Python surely evaluates it: as it was
    return name, array, mask


class _Uses(ast.NodeTransformer):
    """The uses of selection ``name`` (``array[mask]``) in one later statement, rewritten."""

    def __init__(self, rw: Rewriter, name: str, array: str, mask: str, rank: int | None, whole: bool) -> None:
        self.rw, self.name, self.array, self.mask, self.rank = rw, name, array, mask, rank
        self.whole = whole  # the mask has the array's rank: p.size is its count

    def load(self, ident: str, like: ast.AST) -> ast.Name:
        return self.rw.placed(ast.Name(ident, ast.Load()), like)

    def count(self, like: ast.AST) -> ast.expr:
        """``int(np.count_nonzero(mask))``: the selected elements (or rows), a Python int as len()."""
        numpy = next(k for k, v in self.rw.globals.items() if getattr(v, "__name__", "") == "numpy")
        call = ast.Call(ast.Attribute(self.load(numpy, like), "count_nonzero", ast.Load()), [self.load(self.mask, like)],
                        [])
        return self.rw.placed(ast.Call(ast.Name("int", ast.Load()), [call], []), like)

    def is_name(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == self.name and isinstance(node.ctx, ast.Load)

    def visit_Call(self, node: ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords \
                and self.is_name(node.args[0]) and "len" not in self.rw.globals and self.has_numpy():
            return self.count(node)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute):
        if node.attr == "size" and self.is_name(node.value) and self.whole and self.has_numpy():
            return self.count(node)
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and self.is_name(node.value.value) \
                and isinstance(node.slice, ast.Constant) and node.slice.value == 0 and self.has_numpy():
            return self.count(node)
        if self.is_name(node.value) and self.rank == 1 and _unique_end(node, self.name) is None:
            raise self.rw.error(node, f"{self.name!r} holds a boolean-mask selection (its length depends on the data): "  # type: ignore[attr-defined]
                                f"{ast.unparse(node)} is not supported (p[0], p[-1], len(p), reductions and "
                                f"for v in p are); loop over {self.array} where the mask is true instead",
                                "subscript of a boolean-mask selection")
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name):
        if not self.is_name(node):
            return node
        return self.rw.placed(ast.Subscript(self.load(self.array, node), self.load(self.mask, node), ast.Load()), node)

    def visit_For(self, node: ast.For):
        if not (self.is_name(node.iter) and isinstance(node.target, ast.Name) and not node.orelse and self.rank == 1):
            if self.is_name(node.iter):  # (refused where it stands: a loop over something other than range)
                node.body = [self.visit(s) for s in node.body]
                node.orelse = [self.visit(s) for s in node.orelse]
                return node
            return self.generic_visit(node)
        node.body = [self.visit(s) for s in node.body]
        k = self.rw.fresh("_pf_k")
        extent = self.rw.placed(ast.Subscript(self.rw.placed(ast.Attribute(self.load(self.array, node.iter), "shape",
                                                                           ast.Load()), node.iter),
                                              ast.Constant(0), ast.Load()), node.iter)
        element = self.rw.placed(ast.Subscript(self.load(self.array, node.iter), self.load(k, node.iter),
                                               ast.Load()), node.iter)
        first = ast.copy_location(ast.Assign([node.target], element), node)
        test = self.rw.placed(ast.Subscript(self.load(self.mask, node.iter), self.load(k, node.iter), ast.Load()),
                              node.iter)
        node.body = [ast.copy_location(ast.If(test, [first, *node.body], []), node)]
        node.target = self.rw.placed(ast.Name(k, ast.Store()), node.target)
        node.iter = self.rw.placed(ast.Call(ast.Name("range", ast.Load()), [extent], []), node.iter)
        return node

    def has_numpy(self) -> bool:
        return any(getattr(v, "__name__", "") == "numpy" for v in self.rw.globals.values())


def _whole_mask(rw: Rewriter, mask: ast.expr, rank: int | None, bindings: dict[str, ast.expr]) -> bool:
    """Whether ``mask`` (written in the selection) has rank ``rank``, as the data-sized values'
    pass tells it (the locals bound once too: ``img > t`` of ``t = img.mean()``): then the
    selection is of elements and its size the mask's count."""
    shape = shape_of(rw, mask, _is_np(rw, bindings))
    return rank is not None and shape is not None and shape.rank == rank


def _is_mask(rw: Rewriter, node: ast.expr, bindings: dict[str, ast.expr], depth: int = 0) -> bool:
    """Whether ``node`` is written as a boolean array (see the module's docstring)."""
    if depth > 8:
        return False
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _is_mask(rw, node.operand, bindings, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_mask(rw, node.left, bindings, depth + 1) and _is_mask(rw, node.right, bindings, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        module = rw.globals.get(node.func.value.id)
        return getattr(module, "__name__", "") == "numpy" and node.func.attr in _MASK_FUNCTIONS
    if isinstance(node, ast.Name) and node.id in bindings:
        return _is_mask(rw, bindings[node.id], bindings, depth + 1)
    return False


def _written_through(tree: ast.AST, modules: set[str] = frozenset()) -> set[str]:  # type: ignore[assignment]
    """Names written through (stored into, augmented, an ``out=``, ``np.copyto``'s target or a
    mutating method's object), and every name bound to a possible view of such a name or that
    such a name views (``y = x``, ``v = x[1:]``, ``t = x.T``: a write through ``y`` writes ``x``,
    and one through ``x`` changes ``v``)."""
    roots: set[str] = set()
    views: list[tuple[str, str]] = []
    for node in walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            roots.add(node.target.id)
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            root = _root(node)
            if root is not None:
                roots.add(root)
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "out":
                    roots.update(n.id for n in walk(kw.value) if isinstance(n, ast.Name))
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("copyto", *_MUTATING_METHODS):
                roots.update(n.id for a in [node.func.value, *node.args[:1]] for n in walk(a)
                             if isinstance(n, ast.Name))
        if isinstance(node, (ast.Assign, ast.For)):
            value = node.value if isinstance(node, ast.Assign) else node.iter
            base = _root(value)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if base is not None and base not in modules:  # (np.zeros(n) views nothing)
                views.extend((t, base) for target in targets for t in _bound_names(target))
    changed = True
    while changed:  # a write through a view writes its base, and a write of the base changes the view
        changed = False
        for alias, base in views:
            if (alias in roots) != (base in roots):
                roots.update((alias, base))
                changed = True
    return roots


def _bound_names(target: ast.expr) -> list[str]:
    """The names an assignment to ``target`` binds (``c[k] = ...`` binds none: it stores)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for elt in target.elts for name in _bound_names(elt)]
    return []


def _root(node: ast.expr) -> str | None:
    """The name at the root of ``x``, ``x[...]``, ``x.T``, ``x.reshape(...)`` (a possible view)."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        else:
            break
    return node.id if isinstance(node, ast.Name) else None
