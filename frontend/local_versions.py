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
  is float32, as NumPy's is after the first iteration, and stays a register) where each value
  it is given is exact in that type and a Python number (a NumPy scalar of another dtype computes
  in its own: an np.int8 in an int16 local wraps in int8 where it is read), or each read of the local meets the value as that type
  would (``reads_typed``: with a value of the type, to which NumPy converts a Python number, or
  stored into an array of it: ``m = 1e30; m = min(m, x_f32[j])``, then ``out_f32[i] = m``;
  an integer in a float64 local the same).  A Python float or int exact in a float32 local (``t =
  3.0``, then ``if x[i] > 5: t = x_f32[i]``) is held only so too (or returned) where the loop's
  data choose its type (``_data_varying``): Python's ``t * 0.1`` computes in float64.
  Otherwise it is split as above, its versions and kind carried by the loop (``loop_splits``);
  ``check_loop_locals`` refuses what cannot be split (a loop kept as written).
- values of one dtype, Python's and NumPy's (``max(1.0, np.max(x))``), split only where
  ``weakness_seen``: elsewhere they compute alike, and the local keeps one type.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

import numpy as np

from polyfuse.model import ir, region
from polyfuse.model.scop import isl_name

from . import source
from .returns import RESULT_PREFIX, STRONG, _exact_ints
from .types import VType, coerced, promote, vtype

VERSION_PREFIX = "__version"
KIND_PREFIX = "__kind_"


def version_name(name: str, k: int) -> str:
    return f"{VERSION_PREFIX}{k}_{name}"


@dataclass(frozen=True)
class LocalWrite:
    """One assignment to a local scalar: the types of the values it may give (``leaves``: a
    choice of branches of different types gives each branch's), the constant it gives (None
    where it is not one), the constant each leaf gives (``leaf_constants``, None where a leaf is
    not one: ``0`` of ``cur = max(0, cur + x[i])``), whether it runs inside a loop, and whether
    the loop's data may choose the type it leaves (``varies``: it stands under a data-dependent
    ``if`` inside its outermost loop, is a choice (``m = max(m, f[j])``) or reads a local split
    into versions)."""

    node: ast.AST
    name: str
    leaves: tuple[VType, ...]
    constant: float | int | None
    in_loop: bool
    leaf_constants: tuple[float | int | None, ...] = ()
    varies: bool = False


def local_write(expressions, node: ast.AST, name: str, value: ir.Expr, in_loop: bool,
                varies: bool = False) -> LocalWrite:
    """The record of ``name = value`` (``node``) for ``split_locals`` and ``check_loop_locals``."""
    parts = leaves(expressions, value)
    python: tuple[VType, ...] = ()
    if len({vtype(e) for e in parts}) > 1 or name in expressions.lifter.split:  # (a copy u = s stays flagged)
        python = tuple(t for e in parts for t in _python_types(expressions, e) if t != vtype(e))
    return LocalWrite(node, name, tuple(vtype(e) for e in parts) + python, constant_of(value), in_loop,
                      tuple(constant_of(e) for e in parts), varies)


_WEAK_DTYPES = {1: "int64", 2: "float64", 3: "bool", 4: "complex128"}  # a flag's Python kinds


def _flagged_leaf(expressions, e: ir.Expr) -> str | None:
    """The flagged local (frontend.returns ``STRONG``) a leaf reads as itself (``u = s if c else
    3``: ``s``), whose flag says whether it holds NumPy's scalar or a Python number."""
    if isinstance(e, ir.Load) and not e.index and e.array in expressions.lifter.flagged:
        return e.array
    return None


def _leaf_kinds(expressions, e: ir.Expr) -> list[tuple[int, VType]]:
    """The flag's kinds a leaf may have (0 NumPy's, 1 to 4 a Python int, float, bool, complex) and
    the type its value then has: a flagged local's kinds (``s = 0`` then ``s += x[k]``: a Python
    int where no ``k`` ran, an np.float64 else), any other leaf's own type only."""
    name = _flagged_leaf(expressions, e)
    if name is None:
        return [(0, vtype(e))]
    kinds = expressions.lifter.flag_python_kinds(name)
    return [(0, vtype(e))] + [(k, VType(_WEAK_DTYPES[k], True)) for k in kinds]


def _python_types(expressions, e: ir.Expr) -> list[VType]:
    return [t for _, t in _leaf_kinds(expressions, e)]


def _by_flag(expressions, e: ir.Expr, piece, dtype: str, weak: bool) -> ir.Expr:
    """``piece(t)`` of the type ``t`` the leaf ``e`` has, chosen at run time by its local's flag
    where it is a flagged local's read (``_leaf_kinds``): Python's ``u = s`` keeps ``s``'s
    Python int, not the float64 local's NumPy scalar."""
    kinds = _leaf_kinds(expressions, e)
    out = piece(kinds[0][1])
    if len(kinds) == 1:
        return out
    name = _flagged_leaf(expressions, e)
    assert name is not None
    if expressions.scope.loop_vars:  # its flag set in place, so that a loop reads the iteration's
        expressions.lifter.flag_reads.add(name)
    expressions.record_read(f"{STRONG}{name}[]")
    flag = ir.Load(STRONG + name, (), "int8", False)
    for kind, t in kinds[1:]:
        chosen = piece(t)
        if chosen != out:
            out = ir.Select(ir.Compare("==", flag, ir.Const(kind, "int8", False)), chosen, out, dtype, weak)
    return out


def leaves(expressions, expr: ir.Expr) -> list[ir.Expr]:
    """The branches of ``expr`` where it is a choice of branches of different types, else itself."""
    split = expressions.split_of(expr)
    if split is None:
        return [expr]
    return leaves(expressions, split[1]) + leaves(expressions, split[2])


def split_locals(writes: list[LocalWrite], weakness_seen) -> dict[str, tuple[VType, ...]]:
    """The locals given values of different types, none of them inside a loop: name -> the
    types, in a fixed order (the first assigned first).  Values of one dtype that differ only in
    being Python's or NumPy's (``max(1.0, np.max(x))``) split only where ``weakness_seen(dtype)``
    (``weakness_seen``): elsewhere they compute alike and the local keeps one type, as before."""
    looped = {write.name for write in writes if write.in_loop}
    return {name: ts for name, ts in _types(writes).items()
            if len(ts) > 1 and name not in looped
            and (len({t.dtype for t in ts}) > 1 or ts[0].dtype == "bool" or weakness_seen(ts[0].dtype))}


def weakness_seen(lifter):
    """``dtype -> bool``: whether a Python number of ``dtype`` computes differently from NumPy's
    scalar of it somewhere in this pass of the kernel: where a value of another dtype meets it
    whose promotion with the two differs (a Python float with an ``np.float32`` gives float32,
    an ``np.float64`` float64; ``weak_observers``), or where the kernel returns a scalar (whose
    Python type is the answer's) or keeps a loop as written (its values are not seen here)."""
    if lifter.returns is not None and _returns_scalar(lifter.returns) \
            or any(s.region is not None for s in lifter.statements):
        return lambda dtype: True
    dtypes = {a.dtype for a in lifter.arguments.values()} | {a.dtype for a in lifter.arrays.values()}
    for statement in lifter.statements:
        dtypes.update(e.dtype for e in ir.distinct_nodes(statement.value))
    return lambda dtype: any(weak_observers(dtype, other) for other in dtypes)


def weak_observers(dtype: str, other: str) -> bool:
    """Whether a value of dtype ``other`` promotes differently with a Python number of ``dtype``
    than with NumPy's scalar of it."""
    against = VType(other, False)
    return promote(VType(dtype, True), against).dtype != promote(VType(dtype, False), against).dtype


def _returns_scalar(returns) -> bool:
    if isinstance(returns, tuple):
        return any(_returns_scalar(r) for r in returns)
    return returns.how == "scalar"


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
    def version(e: ir.Expr, held: VType) -> int:  # (a Python kind no version holds yet: the leaf's type's)
        return _version_of(versions, held if held in versions else vtype(e))

    out = []
    for k, t in enumerate(versions):
        if not keep:
            other = _one(t)
        else:
            expressions.record_read(f"{version_name(name, k)}[]")
            other = ir.Load(version_name(name, k), (), t.dtype, t.weak)

        def leaf(e: ir.Expr, k: int = k, t: VType = t, other: ir.Expr = other) -> ir.Expr:
            return _by_flag(expressions, e, lambda held: coerced(e, t) if version(e, held) == k else other,
                            t.dtype, t.weak)
        out.append(_per_leaf(expressions, value, leaf, t.dtype, t.weak))

    def kind(e: ir.Expr) -> ir.Expr:
        return _by_flag(expressions, e, lambda held: ir.Const(version(e, held), "int8", False), "int8", False)
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


def _holds(t: VType, constant, m: VType) -> bool:
    """Whether a value of type ``t`` (the constant ``constant`` where not None) is exact in a
    local of type ``m``, and computes as it does in its own type where only its dtype changes
    (a float32 value in a float64 local does not: ``t * 0.1`` rounds differently)."""
    if t.dtype == m.dtype or t.dtype == "bool":
        return True
    if m.is_complex or t.is_complex:
        return True  # (not tracked: complex locals)
    if not t.weak:
        # a NumPy scalar computes in its own dtype where it is read: an np.int8 in an int16 or
        # float32 local wraps in int8 in Python (a * M_i8[i]: cp39), an np.float32 in a float64
        # one rounds in float32 (t * 0.1)
        return False
    if t.is_int and m.is_int:
        # a Python int that is not a constant (a loop variable, a size) in a local of a narrower
        # NumPy int is a Python int where it is read: i - x_i8[j] wraps in int8, not in the
        # local's int16 (found by cp38, seed 32006); a constant or an int64 local computes alike
        # but for the returned type (strength flags) and float32 operands (not followed here).
        # (a Python int numpy cannot convert raises there: not followed here)
        return not (t.weak and not m.weak and constant is None and m.dtype != "int64")
    if constant is not None and m.is_float:
        with np.errstate(over="ignore"):
            return math.isnan(constant) or float(np.dtype(m.dtype).type(constant)) == constant
    if t.is_int and m.is_float:
        return _exact_ints(np.dtype(t.dtype), np.dtype(m.dtype))
    return False


def check_loop_locals(lifter, writes: list[LocalWrite], split: dict[str, tuple[VType, ...]],
                      returned: frozenset[str] = frozenset()) -> None:
    """Refuse a local assigned inside a loop that is given a value its one type does not hold
    exactly (see the module docstring), unless every read of it meets the value as its one type
    would (``reads_typed``: where Python's number converts to that type), and cannot be split
    (``loop_splits``: a loop kept as written).  Refuse too a local the final return gives back
    by name (``returned``) that a loop kept as written assigns a NumPy value of another dtype
    than its one type (``t = x[0] > 0``, then ``t = x[i]`` in a loop with ``break``: Python
    returns ``np.False_`` where the loop never assigns, the one type gave ``0.0``; cf50)."""
    for write, message in _loop_refusals(lifter, writes, split, leaf_constants=True):
        raise lifter.error(write.node, message, "local of several types")
    for name, types in _types(writes).items():
        one = lifter.scalar_type(name)
        if name in returned and name in lifter.opaque_scalars and name not in split \
                and _returns_another_dtype(one, types):
            write = next(w for w in writes if w.name == name and any(not t.weak and t.dtype != one.dtype
                                                                     for t in w.leaves))
            other = next(t for t in write.leaves if not t.weak and t.dtype != one.dtype)
            what = "the value returned" if name.startswith("_pf_") else f"local {name!r}"
            raise lifter.error(write.node, f"{what} is a {_spelled(other)} here and a {_spelled(one)} elsewhere, "
                               "with a loop kept as written between: Python returns the type of the value last "
                               "assigned, which this kernel cannot follow there; convert to one type where it is "
                               f"assigned (np.{one.dtype}(...), float(...))", "local of several types")


def loop_splits(lifter, writes: list[LocalWrite], split: dict[str, tuple[VType, ...]],
                settled: bool, returned: frozenset[str] = frozenset(),
                earlier: dict[str, tuple[VType, ...]] | None = None) -> dict[str, tuple[VType, ...]]:
    """The locals assigned inside loops split as those outside loops are (one version per type,
    carried from one iteration to the next with the kind): those ``check_loop_locals`` would
    refuse with one type, and those split already (each read of which is a choice now), except
    a local a loop kept as written assigns (``opaque_scalars``).  The others keep one type, and
    their loops stay reductions and registers.  New ones only once the pass's types are
    ``settled`` (an earlier pass reads a local in the type of its first values).  A local the
    final return gives back by name (``returned``) is split too where one of its NumPy values
    is of another dtype than the one type (``m = 0.5`` then ``if x[i] > m: m = x[i]`` of an
    ``int32`` ``x``: Python returns ``np.int32`` where an element won, the float ``0.5`` where
    none did; the one type was float64 on both paths).  The types of the lift's ``earlier``
    passes count there too: a pass reads the local in its one type, so ``s = 0``, ``for i: s +=
    x_i32[i]``, ``for i in range(1, n): s = s * 0.5`` gives ``s + x_i32[i]`` as float64 once the
    type is settled, while Python returns the ``np.int32`` the first loop left where the second
    runs no iteration (cp50: it came back ``np.float64``); a local the return reads (``return s +
    1``) counts as one it gives back."""
    looped = {write.name for write in writes if write.in_loop}
    names = {name for name in split if name in looped}
    if settled:
        names |= {write.name for write, _ in _loop_refusals(lifter, writes, split)}
        names |= {name for name, ts in seen_types(writes, earlier or {}).items() if name in returned
                  and name in looped and name not in split and _returns_another_dtype(lifter.scalar_type(name), ts)}
    return {name: ts for name, ts in _types(writes).items()  # (the first assigned first)
            if name in names and len(ts) > 1 and name not in lifter.opaque_scalars}


def _returns_another_dtype(one: VType | None, types: tuple[VType, ...]) -> bool:
    """Whether a NumPy value of ``types`` is returned as another scalar type by ``one``."""
    return one is not None and any(not t.weak and t.dtype != one.dtype for t in types)


def seen_types(writes: list[LocalWrite], earlier: dict[str, tuple[VType, ...]]) -> dict[str, tuple[VType, ...]]:
    """``earlier``'s types of each local and those of ``writes`` after them."""
    out = dict(earlier)
    for name, ts in _types(writes).items():
        out[name] = out.get(name, ()) + tuple(t for t in ts if t not in out.get(name, ()))
    return out


def _types(writes: list[LocalWrite]) -> dict[str, tuple[VType, ...]]:
    """Each local's types, the first assigned first."""
    types: dict[str, list[VType]] = {}
    for write in writes:
        seen = types.setdefault(write.name, [])
        seen.extend(t for t in write.leaves if t not in seen)
    return {name: tuple(ts) for name, ts in types.items()}


def _loop_refusals(lifter, writes: list[LocalWrite], split: dict[str, tuple[VType, ...]],
                   leaf_constants: bool = False) -> list[tuple[LocalWrite, str]]:
    """What ``check_loop_locals`` refuses: (the assignment, the message), per local.  With
    ``leaf_constants`` (a loop kept as written, which cannot split the local) a constant branch
    of a choice holds as a constant assigned alone does (``cur = max(0, cur + x[i])`` in a loop
    with ``break``: the ``0`` is exact in the float64 local, as ``cur = 0`` before the loop is),
    where no float or complex value of the kernel promotes differently with the branch's Python
    number than with the local's type (a float32 does: ``0 * f32[j]`` is float32, the float64
    local's ``0.0`` gives float64); elsewhere such a local is split, each version in Python's
    type."""
    unheld: dict[str, tuple[LocalWrite, VType, VType]] = {}
    soft: dict[str, tuple[LocalWrite, VType, VType]] = {}
    python: dict[str, tuple[LocalWrite, VType, VType]] = {}  # a Python number in a NumPy local of its dtype
    looped = {write.name for write in writes if write.in_loop}
    for write in writes:
        m = lifter.scalar_type(write.name)
        if write.name in split or m is None:
            continue
        relaxed = leaf_constants and write.leaf_constants and _float_reads_alike(lifter, write.leaves, m)
        constants = write.leaf_constants if relaxed else (write.constant,) * len(write.leaves)
        t = next((t for t, c in zip(write.leaves, constants) if not _holds(t, c, m)), None)
        if t is None and not m.weak and m.dtype != "float64":
            # a Python float (or int) exact in a float32 local still computes in float64 where it
            # meets another Python number (3.0 * 0.1 and 3 * 0.1 are 0.30000000000000004 in
            # Python): held only where each read meets float32 values, is stored or is returned
            # (``reads_typed``)
            t = next((t for t in write.leaves
                      if t.weak and (t.is_float or t.is_int and m.is_float) and t.dtype != m.dtype), None)
            if t is not None:
                soft.setdefault(write.name, (write, t, m))
                continue
        if t is None and not m.weak and write.name in looped:
            # (a Python bool computes as np.bool_ with every NumPy scalar: not a weak one in NEP 50)
            same = next((t for t in write.leaves if t.weak and t.dtype == m.dtype), None)
            if same is not None:
                python.setdefault(write.name, (write, same, m))
        if t is not None and (write.name not in unheld or write.in_loop and not unheld[write.name][0].in_loop):
            unheld[write.name] = (write, t, m)  # (named at the first such write in a loop)
    varying = _data_varying(writes)
    out = []
    maybe = set(unheld) | set(soft)
    for name, (write, t, m) in soft.items():  # (not followed in a loop kept as written: as before)
        if name in unheld or name not in varying or name in lifter.opaque_scalars:
            continue
        if not reads_typed(lifter, name, maybe, _converting(lifter, m.dtype, maybe), returned=True):
            unheld[name] = (write, t, m)
    for name, (write, t, m) in python.items():
        if name not in unheld and m.dtype == "bool" and _meets_its_dtype(lifter, name, m.dtype, maybe):
            out.append((write, f"local {name!r} is given a Python bool here and a np.bool elsewhere, inside a loop "
                        "kept as written, and is added to (or multiplied by, ...) a Python bool or number: True + "
                        "True is the int 2, np.True_ + np.True_ is np.True_, which this kernel cannot follow there; "
                        "convert where it is assigned (np.bool_(...), or int(...) for a count)"))
        elif name not in unheld and _meets_its_dtype(lifter, name, m.dtype, maybe):
            out.append((write, f"local {name!r} is given a {_spelled(t)} here and a {_spelled(m)} elsewhere, inside "
                        f"a loop kept as written, and meets a value whose dtype the {_spelled(t)} takes (NEP 50: "
                        f"0.5 * np.float32(x) is a np.float32, np.float64(0.5) * np.float32(x) a np.float64), which "
                        f"this kernel cannot follow there; convert to one type where it is assigned "
                        f"(np.{m.dtype}(...)) or use a separate local for each type"))
    for name, (write, t, m) in unheld.items():
        if m.weak or not reads_typed(lifter, name, set(unheld), _converting(lifter, m.dtype, set(unheld))):
            out.append((write, f"local {name!r} is given a {_spelled(t)} here and a {_spelled(m)} elsewhere, inside "
                        f"a loop kept as written: Python's value has the type of the last value assigned, which "
                        f"this kernel cannot follow there (one type, {_spelled(m)}, would change the value where it "
                        f"is read other than with {_spelled(m)} values or stored into an array); convert to one type "
                        f"where it is assigned (np.{m.dtype}(...), float(...)) or use a separate local for each type"))
    return out


def _meets_its_dtype(lifter, name: str, dtype: str, unheld: set[str]) -> bool:
    """Whether the local ``name`` of NumPy's ``dtype`` that may hold a Python number of that dtype
    (``w = 0.0``, then ``w += s`` in a loop) computes differently as the one and as the other
    somewhere (NEP 50): a read of it meets, in an operator or a call, a value whose dtype a
    Python number takes and NumPy's scalar does not (``w + s`` of an np.float32 ``s``: Python's
    ``w`` becomes the float32 sum; cp3701), in the statements and in the bodies of loops kept as
    written.  A copy of it into another local of the user's (whose kind no flag follows; the
    kernel's own ``__`` copies follow it), unchanged or by arithmetic with Python numbers that keeps
    its kind (``_keeps_kind``), is read the same way where neither is returned (``holders``):
    ``u = (s or (s + 0.5))`` then ``o[i] = u * 0.1`` computes alike (fe53), as ccl_two_pass_4's
    ``root = _find(eq, lab)`` then ``remap[lab] = remap[root]`` of an int32 ``remap`` (fe53b)."""
    def alike(e: ir.Expr) -> bool:  # e promotes a Python number of dtype as NumPy's scalar
        if isinstance(e, ir.Select):
            return alike(e.then) and alike(e.otherwise)
        if isinstance(e, ir.BinOp) and e.op in ("min", "max"):
            return alike(e.lhs) and alike(e.rhs)
        if isinstance(e, (ir.Cast, ir.Unary)) and not alike(e.operand):
            return False
        return not weak_observers(dtype, e.dtype) and not _may_be(e, unheld)

    answers: dict[int, tuple[ir.Expr, bool]] = {}  # meets by shared node (ir.by_node; one held set per call)
    kinds: dict[int, tuple[ir.Expr, bool]] = {}  # _keeps_kind's, likewise

    def meets(e: ir.Expr, held: set[str]) -> bool:
        if dtype == "bool":  # (lifter.bool_sums: u + u, u + True, which the lifter writes as or)
            return bool(held & lifter.bool_sums) or _adds_python_bools(e, held)
        return ir.by_node(answers, e, lambda e: meets_node(e, held))

    def meets_node(e: ir.Expr, held: set[str]) -> bool:
        parts = ir.children(e) if not isinstance(e, ir.Select) else (e.then, e.otherwise)
        keeps = [_keeps_kind(c, held, kinds) for c in parts]
        if any(keeps) and not all(alike(c) for c, k in zip(parts, keeps) if not k):
            return True
        return any(meets(c, held) for c in ir.children(e))

    def holders() -> set[str] | None:
        """``name`` and the user's locals it is copied into keeping its kind, directly or through
        another (``root = a`` of an inlined ``_find(eq, a)``, ``u = (s or (s + 0.5))``), whose kind
        shows only where they are read: None where a copy's kind may show otherwise (it is
        returned or stored into a result, or is a local of the kernel's own that does not follow
        the copy: only ``name``'s own kind has flags)."""
        held, seen = {name}, -1
        shown = lifter.returned_names(lifter.source) | lifter.returned_reads(lifter.source)
        while len(held) != seen:
            seen = len(held)
            for array, value in copies:
                target = lifter.arrays.get(array)
                if array in held or target is None or not target.is_scalar or not _keeps_kind(value, held, {}):
                    continue
                own = array.startswith("__") or array in lifter.flagged  # (results: RESULT_PREFIX)
                if own and _keeps_kind(value, {name}, {}):
                    continue  # the kernel's own copies of name follow its kind
                if own or array in shown:
                    return None
                held.add(array)
        return held

    values, copies = [], []
    for statement in lifter.statements:
        if statement.region is None:
            values.append(statement.value)
            copies.append((statement.array, statement.value))
            continue
        body = statement.region.body
        values.extend(region.expressions(body))
        copies.extend((op.array, op.value) for op in region.ops(body) if isinstance(op, region.Assign) and not op.index)
    dtypes = {a.dtype for a in lifter.arguments.values()} | {a.dtype for a in lifter.arrays.values()}
    dtypes.update(e.dtype for e in ir.distinct_nodes(*values))
    if dtype != "bool" and not any(weak_observers(dtype, other) for other in dtypes):
        return False
    held = holders()
    if held is None:
        return True
    return any(meets(value, held) for value in values)


def _data_varying(writes: list[LocalWrite]) -> set[str]:
    """The locals whose type a loop's data may choose (``LocalWrite.varies``: ``t = 3.0``, then
    ``if x[i] > 5: t = x_f32[i]``; ``m = min(m, x_f32[i])``; ``s += t * 0.1`` of that ``t``
    once it is split).  Elsewhere a Python float exact in a float32 local (``s = 0.0; for k: s
    += A_f32[i, k] * B_f32[k, j]``) reaches a read past the loop only where the loop runs no
    iteration: not followed (as before, so that such a product still folds into BLAS)."""
    return {w.name for w in writes if w.in_loop and w.varies}


def _float_reads_alike(lifter, types: tuple[VType, ...], m: VType) -> bool:
    """Whether every float or complex dtype of the kernel (its arguments, arrays and values)
    promotes with each of ``types`` as with the local's type ``m``."""
    dtypes = {a.dtype for a in lifter.arguments.values()} | {a.dtype for a in lifter.arrays.values()}
    for statement in lifter.statements:
        dtypes.update(e.dtype for e in ir.distinct_nodes(statement.value))
    others = [VType(d, False) for d in dtypes if np.dtype(d).kind in "fc"]
    return all(promote(t, o).dtype == promote(m, o).dtype for t in types for o in others)


def _converting(lifter, dtype: str, unheld: set[str]):
    """An operand that converts a Python number met with it to ``dtype`` (NEP 50): a value of
    ``dtype`` in Python too (not a constant, ``-2.0`` too, or value converted to it by this kernel:
    ``max(x_f32[i], -2.0 + s)`` of a float64 ``s`` holding an np.float32 is float32 in Python; cf50),
    nor a local that may hold a Python number (``w = 0.0``, then ``w += s`` of an ``s`` that is an
    np.float32 or an np.float64: Python's ``w`` is the float32 sum there; cp3701)."""
    unheld = unheld | {n for n, kinds in lifter.strengths.items() if kinds - {0}}

    def meets(e: ir.Expr) -> bool:
        if isinstance(e, ir.Select):  # (a local of several types read: each version's value)
            return meets(e.then) and meets(e.otherwise)
        return e.dtype == dtype and not e.weak and not _may_be(e, unheld) and constant_of(e) is None \
            and not isinstance(e, (ir.Const, ir.Var)) and not (isinstance(e, ir.Cast) and e.operand.dtype != dtype)
    return meets


def reads_typed(lifter, name: str, unheld: set[str], meets, returned: bool = False) -> bool:
    """Whether every read of the local ``name`` gives the same result whichever of its possible
    types its value has: where it meets an operand for which ``meets`` holds in arithmetic, a
    comparison, min or max, or is stored into an array or back into itself, through ``-``,
    ``abs``, min, max and choices, which give the value itself.  ``unheld``: the locals that may
    hold such values.  A float32 local (``meets``: a float32 value, to which NumPy converts a
    Python number, NEP 50): ``m = 1e30; for j: m = min(m, x_f32[j])``, then ``out[i] = m``: yes;
    ``return m``, ``m * 0.5`` or ``np.tanh(m)``: no.  An integer in a float64 local likewise
    (``acc = max(acc, i)``, then ``o64[0] = acc`` or ``acc + x64[i]``: NumPy converts it there).
    ``returned``: a return of the local reads it alike (its values are exact in its type).  An
    integer local as a run-time subscript (``eq[a]``) is read alike: only its value counts.  The
    operations of a loop kept as written are read as statements are (before fe53 any read there
    counted as unlike: union-find's ``while eq[a] != a: a = eq[a]`` of an int64 ``eq``, the helper
    called with an int32 label, was refused)."""
    answers: dict[bool, dict[int, tuple[ir.Expr, bool]]] = {True: {}, False: {}}  # by shared node

    def typed(e: ir.Expr, safe: bool) -> bool:
        return ir.by_node(answers[safe], e, lambda e: typed_node(e, safe))

    def typed_node(e: ir.Expr, safe: bool) -> bool:  # safe: e's value is met where its type is not seen
        if isinstance(e, ir.Load) and e.array == name and not e.index:
            return safe
        if isinstance(e, ir.BinOp) and e.op in ("min", "max"):  # one of the operands, compared
            return typed(e.lhs, safe and meets(e.rhs)) and typed(e.rhs, safe and meets(e.lhs))
        if isinstance(e, (ir.BinOp, ir.Compare)) and e.op not in ("<<", ">>", "&", "|", "^"):
            return typed(e.lhs, meets(e.rhs)) and typed(e.rhs, meets(e.lhs))
        if isinstance(e, ir.Select):
            return typed(e.cond, False) and typed(e.then, safe) and typed(e.otherwise, safe)
        if isinstance(e, ir.Unary) and e.op in ("neg", "abs"):
            return typed(e.operand, safe)
        if isinstance(e, ir.Cast) and e.dtype == e.operand.dtype:
            return typed(e.operand, safe)
        if isinstance(e, ir.Index) and np.dtype(m_dtype).kind in "iu":  # a subscript: its value only counts
            return typed(e.operand, True) and all(typed(c, False) for c in ir.children(e)[1:])
        return all(typed(c, False) for c in ir.children(e))

    def region_typed(body: tuple) -> bool:  # a loop kept as written: each operation read as a statement
        for op in region.ops(body):
            if isinstance(op, region.Assign):
                target = lifter.arrays.get(op.array)
                stored = op.array == name or target is not None and bool(target.shape) \
                    or returned and op.array.startswith(RESULT_PREFIX)
                if not (typed(op.value, stored) and all(typed(i, False) for i in op.index)):
                    return False
            elif isinstance(op, (region.While, region.IfElse)):
                if not typed(op.cond, False):
                    return False
            elif isinstance(op, region.ForRange):
                if not (typed(op.start, False) and typed(op.stop, False)):
                    return False
            elif not isinstance(op, (region.Break, region.Continue)):
                return False  # (a product or LAPACK call kept whole: not followed)
        return True

    m_dtype = lifter.scalar_type(name).dtype if lifter.scalar_type(name) is not None else "float64"
    if not returned and lifter.returns is not None and name in _returned_names(lifter.returns):
        return False
    for statement in lifter.statements:
        if statement.region is not None:
            read = statement.reads.union(statement.writes).range().get_set_list()
            if any(read.get_at(k).get_tuple_name() == isl_name(name) for k in range(read.n_set())) \
                    and not region_typed(statement.region.body):
                return False
            continue
        target = lifter.arrays.get(statement.array)
        stored = statement.array == name or target is not None and bool(target.shape) \
            or returned and statement.array.startswith(RESULT_PREFIX)
        if not typed(statement.value, stored):
            return False
    return True


def _may_be(e: ir.Expr, names: set[str]) -> bool:
    """Whether ``e``'s value may be the value of one of the locals ``names`` itself."""
    if isinstance(e, ir.Load):
        return e.array in names and not e.index
    if isinstance(e, ir.BinOp) and e.op in ("min", "max"):
        return _may_be(e.lhs, names) or _may_be(e.rhs, names)
    if isinstance(e, ir.Select):
        return _may_be(e.then, names) or _may_be(e.otherwise, names)
    if isinstance(e, (ir.Unary, ir.Cast)):
        return _may_be(e.operand, names)
    return False


_ARITHMETIC = frozenset(("+", "-", "*", "/", "//", "%", "**"))


def _keeps_kind(e: ir.Expr, names: set[str], memo: dict[int, tuple[ir.Expr, bool]] | None = None) -> bool:
    """Whether ``e`` is a Python number wherever one of the locals ``names`` holds one and NumPy's scalar
    wherever it holds NumPy's: the local itself (``_may_be``), or arithmetic of such a value with
    Python numbers (``s * 2.0``, ``s + i``: a Python float times 2.0 stays one, an np.float64
    stays NumPy's), so that ``s * 2.0 + f32[i]`` is Python's float32 sum where ``s`` is Python's
    (wrong before fe53: the float64 sum in a loop kept as written).  ``memo``: answers by shared
    node for one ``names`` (a DAG's tree may be exponentially larger than it, cs53)."""
    if memo is not None:
        return ir.by_node(memo, e, lambda e: _keeps_kind_node(e, names, memo))
    return _keeps_kind_node(e, names, None)


def _keeps_kind_node(e: ir.Expr, names: set[str], memo: dict[int, tuple[ir.Expr, bool]] | None) -> bool:
    if isinstance(e, ir.BinOp) and e.op in _ARITHMETIC:
        lhs, rhs = _keeps_kind(e.lhs, names, memo), _keeps_kind(e.rhs, names, memo)
        return (lhs or rhs) and (lhs or _python_number(e.lhs)) and (rhs or _python_number(e.rhs))
    if isinstance(e, ir.BinOp) and e.op in ("min", "max"):
        return _keeps_kind(e.lhs, names, memo) or _keeps_kind(e.rhs, names, memo)
    if isinstance(e, ir.Select):
        return _keeps_kind(e.then, names, memo) or _keeps_kind(e.otherwise, names, memo)
    if isinstance(e, (ir.Unary, ir.Cast)):
        return _keeps_kind(e.operand, names, memo)
    return _may_be(e, names)


def _adds_python_bools(e: ir.Expr, names: set[str]) -> bool:
    """Whether ``e`` does arithmetic of one of the bool locals ``names`` with a Python number or bool, or
    with itself (``u + u``, ``u * 1.5``, ``t += u``): Python's bools add as ints (``True + True`` is
    2), NumPy's as a logical or (``np.True_ + np.True_`` is ``np.True_``), and a Python bool with
    a Python number gives a Python number where NumPy's gives its scalar.  With a NumPy value
    both compute as NumPy's bool (NEP 50: ``True + np.int8(1)`` is ``np.int8(2)``)."""
    kinds: dict[int, tuple[ir.Expr, bool]] = {}

    def adds(n: ir.Expr) -> bool:
        if isinstance(n, ir.BinOp) and n.op in _ARITHMETIC:
            lhs, rhs = _keeps_kind(n.lhs, names, kinds), _keeps_kind(n.rhs, names, kinds)
            return lhs and (rhs or _python_number(n.rhs)) or rhs and _python_number(n.lhs)
        return isinstance(n, ir.Unary) and n.op in ("neg", "invert") and _keeps_kind(n.operand, names, kinds)
    return any(adds(n) for n in ir.distinct_nodes(e))


def _python_number(e: ir.Expr) -> bool:
    """Whether ``e`` may be a Python number: a weak value, or a constant (a literal that met the
    local's NumPy type is lifted in that type: ``s * 2.0`` of a float64 ``s``)."""
    return e.weak or constant_of(e) is not None


def _returned_names(returns) -> set[str]:
    if isinstance(returns, tuple):
        return set().union(*(_returned_names(r) for r in returns))
    return {returns.name, returns.strong_flag}


def _spelled(t: VType) -> str:
    if t.weak:
        return {"bool": "Python bool", "int64": "Python int", "float64": "Python float"}.get(t.dtype, "Python complex")
    return f"np.{t.dtype}"


__all__ = ["LocalWrite", "check_loop_locals", "leaves", "local_write", "loop_splits", "reads_typed", "split_locals",
           "version_read", "version_targets", "version_values", "weakness_seen"]
