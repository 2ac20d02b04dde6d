"""Locals assigned values of different types: one version of the local per type.

Python's local has the type of the value last assigned to it (``t = f32[0]`` on one path,
``t = 0.1`` on another: an ``np.float32`` or the float 0.1), so no one static type is exact:
the promotion (float32 here) rounds 0.1, and a float64 would compute ``t + 1`` of the float32
in float64.  Input: every assignment to a local scalar in the previous pass of lift's fixpoint
(``Lifter.writes``: the types of the values it may give).  What this module guarantees:

- a local assigned outside every loop only (no value carried from one iteration to the next)
  whose values differ in type is *split*: each assignment writes one local per type
  (``__version<k>_t``: the value into the version of its type; ``version_values``) and a kind local
  (``__kind_t = k``); each read is the choice ``__version0_t if __kind_t == 0 else ...``, a
  choice the user could have written, so frontend.expressions pushes consumers into each
  branch until the types agree (a store, a comparison) and a return takes the branch's type
  (frontend.returns ``_lift_split``).  Exact: each version holds its values in their own type.
- a local assigned inside a loop keeps one type (the promotion: ``s = 0.0; for i: s += f32[i]``
  is float32, as NumPy's is after the first iteration, and stays a register).  Where a value
  it is given may not be exact in that type (a float32 in a float64 local, a Python float
  other than a constant float32 holds in a float32 one), ``check_loop_locals`` refuses the
  kernel; an integer given to a float local beyond the integers the float holds exactly
  raises UnsupportedError where it runs (``exact_int``).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

import numpy as np

from polyfuse.model import ir

from . import source
from .returns import _exact_ints
from .types import VType, coerced, vtype

VERSION_PREFIX = "__version"
KIND_PREFIX = "__kind_"


def version_name(name: str, k: int) -> str:
    return f"{VERSION_PREFIX}{k}_{name}"


@dataclass(frozen=True)
class LocalWrite:
    """One assignment to a local scalar: the types of the values it may give (``leaves``: a
    choice of branches of different types gives each branch's), the constant it gives (None
    where it is not one), whether it runs inside a loop, and whether an integer it gives was
    checked for exactness (``exact_int``)."""

    node: ast.AST
    name: str
    leaves: tuple[VType, ...]
    constant: float | int | None
    in_loop: bool
    checked: bool = False


def leaves(expressions, expr: ir.Expr) -> list[ir.Expr]:
    """The branches of ``expr`` where it is a choice of branches of different types, else itself."""
    split = expressions.split_of(expr)
    if split is None:
        return [expr]
    return leaves(expressions, split[1]) + leaves(expressions, split[2])


def split_locals(writes: list[LocalWrite]) -> dict[str, tuple[VType, ...]]:
    """The locals given values of different types, none of them inside a loop: name -> the
    types, in a fixed order (the first assigned first)."""
    types: dict[str, list[VType]] = {}
    looped: set[str] = set()
    for write in writes:
        if write.in_loop:
            looped.add(write.name)
        seen = types.setdefault(write.name, [])
        seen.extend(t for t in write.leaves if t not in seen)
    return {name: tuple(ts) for name, ts in types.items()
            if len(ts) > 1 and name not in looped}


def _version_of(versions: tuple[VType, ...], t: VType) -> int:
    """Which version holds a value of type ``t`` (while the fixpoint runs, a type not seen
    yet goes to one of its dtype, else the first)."""
    if t in versions:
        return versions.index(t)
    return next((k for k, v in enumerate(versions) if v.dtype == t.dtype), 0)


def _one(t: VType) -> ir.Expr:
    """A harmless value for a version that does not hold this run's value (read, never
    chosen: 1 keeps an eagerly evaluated ``n // t`` or ``log(t)`` of the unchosen branch quiet)."""
    if t.is_complex:
        return ir.complex_const(1, t.dtype, t.weak)
    return ir.Const(True if t.dtype == "bool" else 1, t.dtype, t.weak)


def _per_leaf(expressions, expr: ir.Expr, leaf, dtype: str, weak: bool) -> ir.Expr:
    split = expressions.split_of(expr)
    if split is None:
        return leaf(expr)
    select, then, otherwise = split
    return ir.Select(select.cond, _per_leaf(expressions, then, leaf, dtype, weak),
                     _per_leaf(expressions, otherwise, leaf, dtype, weak), dtype, weak, select.guarded)


def version_values(expressions, name: str, value: ir.Expr, versions: tuple[VType, ...],
                   keep: bool) -> list[ir.Expr]:
    """What one assignment of ``value`` to ``name`` writes, in ``version_targets``' order: each
    version (its value where this run's value has its type, else 1), then the kind.  Where the
    value reads the local (``keep``: ``t += 1``), a version not written on a path keeps its old
    value there instead of 1, since the value written into a later version may read it (each
    assignment writes every version, so those were all assigned on any path that reads them)."""
    out = []
    for k, t in enumerate(versions):
        if not keep:
            other = _one(t)
        else:
            expressions.record_read(f"{version_name(name, k)}[]")
            other = ir.Load(version_name(name, k), (), t.dtype, t.weak)

        def leaf(e: ir.Expr, k: int = k, t: VType = t, other: ir.Expr = other) -> ir.Expr:
            return coerced(e, t) if _version_of(versions, vtype(e)) == k else other
        out.append(_per_leaf(expressions, value, leaf, t.dtype, t.weak))

    def kind(e: ir.Expr) -> ir.Expr:
        return ir.Const(_version_of(versions, vtype(e)), "int8", False)
    return out + [_per_leaf(expressions, value, kind, "int8", False)]


def version_targets(name: str, versions: tuple[VType, ...], like: ast.AST) -> list[ast.Name]:
    """The locals one assignment to ``name`` writes, in ``version_values``' order."""
    names = [version_name(name, k) for k in range(len(versions))] + [KIND_PREFIX + name]
    return [ast.copy_location(ast.Name(n, ast.Store()), like) for n in names]


def version_read(node: ast.Name, versions: tuple[VType, ...]) -> ast.expr:
    """A read of a split local as the user could have written it: ``__version0_t if
    __kind_t == 0 else __version1_t`` (nested for more types)."""
    def at(k: int) -> ast.expr:
        read = ast.copy_location(ast.Name(version_name(node.id, k), ast.Load()), node)
        if k == len(versions) - 1:
            return read
        kind = ast.copy_location(ast.Name(KIND_PREFIX + node.id, ast.Load()), node)
        test = ast.copy_location(ast.Compare(kind, [ast.Eq()], [ast.copy_location(ast.Constant(k), node)]), node)
        return ast.copy_location(source.IfExp(test, read, at(k + 1)), node)
    return at(0)


def constant_of(expr: ir.Expr) -> float | int | None:
    """The value of a constant (``0.0``, ``-np.inf``, ``-1``), else None."""
    if isinstance(expr, ir.Const) and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        inner = constant_of(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, ir.Cast):
        return constant_of(expr.operand)
    return None


def _holds(t: VType, constant, m: VType, checked: bool) -> bool:
    """Whether a value of type ``t`` (the constant ``constant`` where not None) is exact in a
    local of type ``m``, and computes as it does in its own type where only its dtype changes
    (a float32 value in a float64 local does not: ``t * 0.1`` rounds differently)."""
    if t.dtype == m.dtype or t.dtype == "bool":
        return True
    if m.is_complex or t.is_complex:
        return True  # (not tracked: complex locals)
    if t.is_int and m.is_int:
        return True  # (a Python int numpy cannot convert raises there: not followed here)
    if constant is not None and m.is_float:
        with np.errstate(over="ignore"):
            return math.isnan(constant) or float(np.dtype(m.dtype).type(constant)) == constant
    if t.is_int and m.is_float:  # checked where it runs (exact_int), unless a choice gave it
        return checked or _exact_ints(np.dtype(t.dtype), np.dtype(m.dtype))
    return False


def check_loop_locals(lifter, writes: list[LocalWrite], split: dict[str, tuple[VType, ...]]) -> None:
    """Refuse a local assigned inside a loop that is given a value its one type does not hold
    exactly (see the module docstring)."""
    for write in writes:
        if write.name in split:
            continue
        m = lifter.scalar_type(write.name)
        if m is None:
            continue
        for t in write.leaves:
            if _holds(t, write.constant, m, write.checked):
                continue
            raise lifter.error(write.node, f"local {write.name!r} is given a {_spelled(t)} here and a "
                               f"{_spelled(m)} elsewhere, inside a loop: Python's value has the type of the "
                               f"last value assigned, which this kernel cannot follow from one iteration to "
                               f"the next (one type, {_spelled(m)}, would change the value); convert to one "
                               f"type where it is assigned (np.{m.dtype}(...), float(...)) or use a "
                               "separate local for each type", "local of several types")


def _spelled(t: VType) -> str:
    if t.weak:
        return {"bool": "Python bool", "int64": "Python int", "float64": "Python float"}.get(t.dtype, "Python complex")
    return f"np.{t.dtype}"


def exact_int(lifter, expressions, node: ast.AST, name: str, value: ir.Expr, local: VType) -> ir.Expr | None:
    """``value`` (an integer given to the float local ``name``), raising UnsupportedError where
    it is beyond the integers the float holds exactly, instead of rounding it; None where no
    check is needed (a constant, an integer type the float holds)."""
    from .returns import _checked_exact

    t = VType(value.dtype, value.weak)
    if not (t.is_int and t.dtype != "bool" and local.is_float) or constant_of(value) is not None \
            or _exact_ints(np.dtype(t.dtype), np.dtype(local.dtype)):
        return None
    stored = ir.Cast(value, local.dtype, False)
    bits = np.finfo(np.dtype(local.dtype)).nmant + 1
    return _checked_exact(expressions, node, value, local.dtype, stored, text=(
        f"local {name!r} is given an integer here beyond 2**{bits}, which this kernel holds as a "
        f"{local.dtype} (the local is given floats elsewhere); convert to one type where it is assigned"),
        construct="local of several types")


__all__ = ["LocalWrite", "check_loop_locals", "exact_int", "leaves", "split_locals",
           "version_read", "version_targets", "version_values"]
