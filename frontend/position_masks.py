"""Positions of nonzero elements used as an index array (part of ``frontend.rewrite``, before
``unique_loops``; fe34).

``idx = np.where(c)[0]`` has a length that depends on the data.  Indexing an array with it,
``x[idx]``, selects the same elements, in the same order, as the boolean mask ``c != 0`` does
(the positions are increasing and each appears once), so such a read, store or augmented store
is written as a mask selection, whose rules the lowering and ``selection_loops`` already have::

    idx = np.where(x > 0)[0]          _pf_pos = x > 0
    y = x[idx] * 2           ->       y = x[_pf_pos] * 2
    w[idx] += 1.0                     w[_pf_pos] += 1.0

The mask is computed where ``idx`` is bound (``c`` itself where it is a comparison, else ``c !=
0``, a fresh array: NaN counts as nonzero, as in ``np.nonzero``), so later writes into what ``c``
reads do not change it.  The forms: ``np.where(c)[0]``, ``np.nonzero(c)[0]``,
``c.nonzero()[0]`` and ``np.flatnonzero(c)`` of a ``c`` the arguments tell is 1-d, bound once to a
name nothing writes through; the uses rewritten are ``a[idx]`` (``a`` a name) in the statements
after the binding in its block, and the read ``a[idx, j]`` (basic indices after ``idx``) as
``a[:, j][mask]``.  Where no other use of ``idx`` remains the binding is dropped;
other uses (``len(idx)``, ``idx[0]``, ``for i in idx``) stay for ``unique_loops``.

NumPy's ``a[idx]`` needs only ``a`` longer than the largest position; the mask needs ``a``'s
first axis as long as ``c``: an ``a`` of another length raises the mask's AssertionError
(*boolean index did not match*) where the read stands, not a value.
"""

from __future__ import annotations

import ast
import copy

from .checker import module_of
from .data_sized import _is_np, shape_of
from .selection_loops import _Facts

_COMPOUND_FIELDS = ("body", "orelse", "finalbody")


def position_masks(rw, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each ``a[idx]`` of positions ``idx`` (see the module) a mask selection."""
    facts = _Facts(body, rw.globals)
    return _block(rw, body, facts)


def _block(rw, stmts: list[ast.stmt], facts: _Facts) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for k, stmt in enumerate(stmts):
        for field in _COMPOUND_FIELDS:
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, field, _block(rw, inner, facts))
        condition = _positions_of(rw, stmt, facts)
        if condition is None:
            out.extend(_index_tuple(rw, stmts, k, facts))
            continue
        assert isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
        name = stmt.targets[0].id
        mask_name = rw.fresh("_pf_pos")
        uses = _Uses(rw, name, mask_name)
        for later in stmts[k + 1:]:
            uses.visit(later)
        if not uses.count:
            out.append(stmt)
            continue
        mask = copy.deepcopy(condition) if isinstance(condition, ast.Compare) else \
            ast.Compare(copy.deepcopy(condition), [ast.NotEq()], [ast.Constant(0)])
        out.append(ast.copy_location(ast.Assign([rw.placed(ast.Name(mask_name, ast.Store()), stmt)],
                                                rw.placed(mask, stmt)), stmt))
        if facts.loads.get(name, 0) > uses.count:  # other uses: unique_loops' forms, or refused there
            out.append(stmt)
    return out


def _index_tuple(rw, stmts: list[ast.stmt], at: int, facts: _Facts) -> list[ast.stmt]:
    """``inds = np.where(c)`` (or ``np.nonzero(c)``, ``c.nonzero()``) of a ``c`` of rank r, used
    as ``X[inds] = V`` in the statements after it (the imputation idiom ``X[inds] =
    np.take(col_mean, inds[1])``): the binding becomes ``mask = c != 0`` and each such store
    ``X[...] = np.where(mask, V', X)``, where ``V'`` reads ``v[inds[k]]`` / ``np.take(v, inds[k])``
    of a 1-d ``v`` as ``v`` along axis k (the element at a position is ``v[its k-th index]``)
    and ``Y[inds]`` as ``Y``.  The statements returned replace ``stmts[at]`` (the stores after it
    are rewritten in ``stmts``); ``[stmts[at]]`` where it is not such a binding, and ``inds``
    stays bound where other uses remain."""
    stmt = stmts[at]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return [stmt]
    name, call = stmt.targets[0].id, stmt.value
    if facts.counts.get(name) != 1 or name in facts.through or not isinstance(call, ast.Call) or call.keywords \
            or not isinstance(call.func, ast.Attribute) or call.func.attr not in ("where", "nonzero"):
        return [stmt]
    if module_of(call.func.value, rw.globals) == "np" and len(call.args) == 1:
        condition = call.args[0]
    elif call.func.attr == "nonzero" and not call.args:
        condition = call.func.value
    else:
        return [stmt]
    shape = shape_of(rw, condition, _is_np(rw, facts.bindings))
    if shape is None or shape.rank < 1:
        return [stmt]
    mask_name = rw.fresh("_pf_pos")
    removed = 0
    is_numpy = _is_np(rw, facts.bindings)
    for k in range(at + 1, len(stmts)):
        made = _tuple_store(rw, stmts[k], name, mask_name, shape.rank, is_numpy)
        if made is not None:
            removed += sum(1 for n in ast.walk(stmts[k]) if isinstance(n, ast.Name) and n.id == name)
            stmts[k] = made
    if not removed:
        return [stmt]
    mask = ast.Compare(copy.deepcopy(condition), [ast.NotEq()], [ast.Constant(0)])
    binding = ast.copy_location(ast.Assign([rw.placed(ast.Name(mask_name, ast.Store()), stmt)],
                                           rw.placed(mask, stmt)), stmt)
    return [binding, stmt] if facts.loads.get(name, 0) > removed else [binding]


def _tuple_store(rw, stmt: ast.stmt, name: str, mask: str, rank: int, is_numpy) -> ast.stmt | None:
    """``X[name] = V`` (``X`` of the mask's rank) as ``X[...] = np.where(mask, V', X)`` (see
    ``_index_tuple``); None where ``stmt`` is not such a store or ``V`` reads ``name`` another way."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)):
        return None
    target = stmt.targets[0]
    if not (isinstance(target.value, ast.Name) and isinstance(target.slice, ast.Name) and target.slice.id == name):
        return None
    array = shape_of(rw, target.value, is_numpy)
    if array is None or array.rank != rank:
        return None
    value = _Spread(rw, name, rank, is_numpy).visit(rw.copy(stmt.value))
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
        return None
    func = rw.placed(ast.Attribute(ast.Name(rw.numpy_alias(), ast.Load()), "where", ast.Load()), stmt.value)
    old = rw.placed(ast.Name(target.value.id, ast.Load()), target)
    where = ast.copy_location(ast.Call(func, [rw.placed(ast.Name(mask, ast.Load()), target.slice), value, old], []),
                              stmt.value)
    store = rw.placed(ast.Subscript(ast.Name(target.value.id, ast.Load()), ast.Constant(...), ast.Store()), target)
    return ast.copy_location(ast.Assign([store], where), stmt)


class _Spread(ast.NodeTransformer):
    """``v[name[k]]`` / ``np.take(v, name[k])`` of a 1-d ``v`` -> ``v`` along axis k of the mask
    (``v[None, :]`` for k = 1 of a 2-d mask), ``Y[name]`` -> ``Y``; other reads stay."""

    def __init__(self, rw, name: str, rank: int, is_numpy) -> None:
        self.rw, self.name, self.rank, self.is_numpy = rw, name, rank, is_numpy

    def vector(self, v: ast.expr) -> bool:
        """``v`` a name not known to be of another rank than 1 (a ``v`` of more axes makes the
        np.where of more axes than the store, which the lowering refuses, as NumPy raises)."""
        shape = shape_of(self.rw, v, self.is_numpy) if isinstance(v, ast.Name) else None
        return isinstance(v, ast.Name) and (shape is None or shape.rank == 1)

    def axis(self, node: ast.expr) -> int | None:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int \
                and -self.rank <= node.slice.value < self.rank:
            return node.slice.value % self.rank
        return None

    def along(self, v: ast.expr, axis: int, like: ast.AST) -> ast.expr:
        if self.rank == 1:
            return v
        items: list[ast.expr] = [ast.Slice(None, None, None) if d == axis else ast.Constant(None)
                                 for d in range(self.rank)]
        return self.rw.placed(ast.Subscript(v, ast.Tuple(items, ast.Load()), ast.Load()), like)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        axis = self.axis(node.slice)
        if axis is not None and self.vector(node.value):
            return self.along(node.value, axis, node)
        if isinstance(node.slice, ast.Name) and node.slice.id == self.name and isinstance(node.value, ast.Name):
            return node.value
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "take" and len(node.args) == 2 \
                and not node.keywords and module_of(node.func.value, self.rw.globals) == "np":
            axis, v = self.axis(node.args[1]), node.args[0]
            if axis is not None and isinstance(v, ast.Name):  # np.take of the flattened v
                ravel = ast.Attribute(ast.Name(self.rw.numpy_alias(), ast.Load()), "ravel", ast.Load())
                return self.along(self.rw.placed(ast.Call(ravel, [v], []), node), axis, node)
        self.generic_visit(node)
        return node


def _positions_of(rw, stmt: ast.stmt, facts: _Facts) -> ast.expr | None:
    """``c`` of ``name = np.where(c)[0]`` (and the other forms) with ``c`` 1-d, ``name`` bound
    once and not written through; None for any other statement."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    if facts.counts.get(name) != 1 or name in facts.through:
        return None
    condition = _condition(rw, value)
    if condition is None:
        return None
    shape = shape_of(rw, condition, _is_np(rw, facts.bindings))
    if shape is None or shape.rank != 1:
        return None
    return condition


def _condition(rw, value: ast.expr) -> ast.expr | None:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "flatnonzero" \
            and module_of(value.func.value, rw.globals) == "np" and len(value.args) == 1 and not value.keywords:
        return value.args[0]
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value == 0
            and type(value.slice.value) is int and isinstance(value.value, ast.Call) and not value.value.keywords):
        return None
    call = value.value
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in ("where", "nonzero"):
        return None
    if module_of(call.func.value, rw.globals) == "np":
        return call.args[0] if len(call.args) == 1 else None
    if call.func.attr == "nonzero" and not call.args:
        return call.func.value
    return None


class _Uses(ast.NodeTransformer):
    """``a[name]`` (a name ``a``) as ``a[mask]``; ``count``: how many it rewrote."""

    def __init__(self, rw, name: str, mask: str) -> None:
        self.rw, self.name, self.mask, self.count = rw, name, mask, 0

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.value, ast.Name):
            return node
        if isinstance(node.slice, ast.Name) and node.slice.id == self.name:
            self.count += 1
            node.slice = self.rw.placed(ast.Name(self.mask, ast.Load()), node.slice)
            return node
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
        if isinstance(node.ctx, ast.Load) and items and isinstance(items[0], ast.Name) and items[0].id == self.name \
                and not any(isinstance(n, ast.Name) and n.id == self.name for item in items[1:] for n in ast.walk(item)) \
                and not any(isinstance(item, (ast.Starred, ast.Constant)) and not _int(item) for item in items[1:]):
            # a[idx, j] (basic indices after it): a[:, j][mask], the rows picked from the whole column
            self.count += 1
            rest = ast.Subscript(node.value, ast.Tuple([ast.Slice(None, None, None), *items[1:]], ast.Load()),
                                 ast.Load())
            made = ast.Subscript(self.rw.placed(rest, node), self.rw.placed(ast.Name(self.mask, ast.Load()), node),
                                 ast.Load())
            return self.rw.placed(made, node)
        return node


def _int(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int
