"""``np.add.at`` at index arrays selected by a mask (part of ``frontend.rewrite``, before the
builtin helpers' pass that lowers ``np.add.at`` itself).

``idx[ok]`` has a length that depends on the data, but ``np.add.at`` only walks it: NumPy's
unbuffered loop over the selected positions is the loop over all of them that skips the rest::

    ok = (idx >= 0) & (idx < n)                 ok = (idx >= 0) & (idx < n)
    np.add.at(out, idx[ok], vals[ok])    ->     _pf_at_mask = ok.copy()
                                                assert _pf_at_mask.shape[0] == idx.shape[0]  # IndexError
                                                assert _pf_at_mask.shape[0] == vals.shape[0]  # IndexError
                                                for _pf_at_k in range(idx.shape[0]):
                                                    if _pf_at_mask[_pf_at_k]:
                                                        out[idx[_pf_at_k]] += vals[_pf_at_k]

(``subtract``, ``multiply`` as ``-=``, ``*=``; ``maximum``, ``minimum`` as ``out[i] =
np.maximum(out[i], v)``), and of a 2-d ``H`` the pairs ``np.add.at(H, (ix[ok], iy[ok]), v)``.  The
value is a number (a constant, a scalar argument or a scalar expression: ``w.sum()``) or ``v[ok]``
of a 1-d ``v`` selected by the same mask, written alike; neither it nor the mask reads the target.  The mask is evaluated once, before any update,
as NumPy evaluates the arguments (a named mask copied, a scalar expression bound once); an index the mask leaves out is never read (NumPy's ``idx[ok]``
drops it before checking it).  Taken only where the ranks are told (``data_sized.shape_of``): a
1-d bool mask, 1-d index arrays and a target of one axis per index array; the index arrays and
the values are names other than the target (an update never changes what a later one reads).
Anything else is left to the helpers' pass and its refusal.
"""

from __future__ import annotations

import ast

from .data_sized import _is_np, shape_of
from .selection_loops import Rewriter, _Facts
from .source import location_key, map_blocks

_OPS = {"add": "+=", "subtract": "-=", "multiply": "*=", "maximum": "maximum", "minimum": "minimum"}


def masked_scatters(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each ``np.add.at`` (& co.) at masked index arrays written as a loop."""
    facts = _Facts(body, rw.globals)
    return _block(rw, body, facts)


def _block(rw: Rewriter, stmts: list[ast.stmt], facts: _Facts) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in stmts:
        map_blocks(stmt, lambda inner: _block(rw, inner, facts))
        made = _masked_at(rw, stmt, facts) if isinstance(stmt, ast.Expr) else None
        out.extend([stmt] if made is None else made)
    return out


def _masked_at(rw: Rewriter, stmt: ast.Expr, facts: _Facts) -> list[ast.stmt] | None:
    """The loop for ``stmt`` (see the module); None where it is anything else."""
    call = stmt.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "at"
            and isinstance(call.func.value, ast.Attribute) and call.func.value.attr in _OPS
            and isinstance(call.func.value.value, ast.Name)
            and getattr(rw.globals.get(call.func.value.value.id), "__name__", "") == "numpy"
            and len(call.args) == 3 and not call.keywords):
        return None
    target, indices, value = call.args
    items = indices.elts if isinstance(indices, ast.Tuple) else [indices]
    selected = [_selected(item) for item in items]
    if not isinstance(target, ast.Name) or not all(selected) or len(items) > 2:
        return None
    is_numpy = _is_np(rw, facts.bindings)
    mask = selected[0][1]  # type: ignore[index]
    names = [pick[0] for pick in selected]  # type: ignore[index]
    if any(ast.dump(pick[1]) != ast.dump(mask) for pick in selected):  # type: ignore[index]
        return None
    values = _selected(value)
    if values is not None and ast.dump(values[1]) != ast.dump(mask):
        return None

    def rank(node: ast.expr, boolean: bool | None = None) -> int | None:
        shape = shape_of(rw, node, is_numpy)
        return None if shape is None or boolean is not None and shape.boolean != boolean else shape.rank
    if rank(mask, True) != 1 or rank(target) != len(items) \
            or any(rank(ast.Name(n, ast.Load()), False) != 1 for n in names) \
            or (rank(ast.Name(values[0], ast.Load())) != 1 if values is not None else rank(value) != 0) \
            or target.id in names or values is not None and values[0] == target.id \
            or any(isinstance(n, ast.Name) and n.id == target.id for n in [*ast.walk(value), *ast.walk(mask)]):
        return None
    return _loop(rw, stmt, call.func.value.attr, target.id, names, mask, value, values)


def _selected(node: ast.expr) -> tuple[str, ast.expr] | None:
    """``(x, m)`` of ``x[m]``, ``x`` a name and ``m`` not a slice, tuple or constant; None otherwise."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
            and not isinstance(node.slice, (ast.Slice, ast.Tuple, ast.Constant)):
        return node.value.id, node.slice
    return None


def _loop(rw: Rewriter, stmt: ast.Expr, op: str, target: str, names: list[str], mask: ast.expr,
          value: ast.expr, values: tuple[str, ast.expr] | None) -> list[ast.stmt]:
    """The mask bound once, NumPy's IndexError where a length differs from its, then the loop."""
    np_, m, k = rw.numpy_alias(), rw.fresh("_pf_at_mask"), rw.fresh("_pf_at_k")
    at = f"{target}[{', '.join(f'{n}[{k}]' for n in names)}]"
    once = values is None and not isinstance(value, (ast.Constant, ast.Name))  # (w.sum(): evaluated once)
    scalar = rw.fresh("_pf_at_value") if once else ""
    v = f"{values[0]}[{k}]" if values is not None else scalar or f"({ast.unparse(value)})"
    update = f"{at} {_OPS[op]} {v}" if op not in ("maximum", "minimum") else f"{at} = {np_}.{op}({at}, {v})"
    checks = [f"assert {m}.shape[0] == {x}.shape[0], ('IndexError', 'boolean index did not match indexed array "
              f"along axis 0')" for x in [*names, *([values[0]] if values is not None else [])]]
    mask_value = f"{ast.unparse(mask)}.copy()" if isinstance(mask, ast.Name) else ast.unparse(mask)  # (no alias)
    first = [f"{m} = {mask_value}", *([f"{scalar} = {ast.unparse(value)}"] if once else [])]
    text = "\n".join([*first, *checks,
                      f"for {k} in range({names[0]}.shape[0]):\n    if {m}[{k}]:\n        {update}"])
    made = ast.parse(text).body
    for new in made:
        for part in ast.walk(new):
            if isinstance(part, (ast.expr, ast.stmt)):
                ast.copy_location(part, stmt)
    for check in made[len(first):-1]:
        rw.source.raises.add(location_key(check))  # type: ignore[attr-defined]  # (its IndexError kept)
    return made
