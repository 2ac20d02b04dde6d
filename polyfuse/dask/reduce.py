"""Reductions returned by a kernel: per-chunk partial results and Dask's tree reduction.

A kernel such as ``s = 0.0; for i ...: s += f(A, i); return s`` runs on every block (with the
ghost zone its reads need) and returns the block's partial result; the partials are combined
with the kernel's own operation by ``dask.array.reduction`` (a tree).  Exact where the
operation is associative on the values: integer ``+``/``*`` (wrapping as int64 does), ``max``
and ``min`` (with Python's ``max(m, x)``, which skips NaN as the loop does).  Float ``+`` and
``*`` change the order of the additions, so they run only with ``reassociate=True``.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
import numpy as np

from polyfuse.errors import UnsupportedError
from polyfuse.frontend.returns import SAVED, STRONG
from polyfuse.model import ir
from polyfuse.model.scop import Returned, Scop, Statement

OPS = ("+", "*", "max", "min")
IDENTITY = {"+": 0, "*": 1}


@dataclass(frozen=True)
class Reduction:
    """The returned reduction: its update statement, accumulator and operation."""

    statement: str
    variable: str
    op: str
    dtype: str
    result: str = ""  # the name of the returned value (the kernel's 0-d result)


def reduction_of(scop: Scop, returns: Returned, *, reassociate: bool) -> Reduction:
    """The kernel's returned reduction ``returns`` (a scalar it returns, alone or in a tuple),
    or UnsupportedError saying what does not fit."""
    result = next(s for s in scop.statements if s.array == returns.name)
    if not (isinstance(result.value, ir.Load) and not result.value.index):
        raise UnsupportedError("the returned value must be the accumulator itself (return s)",
                               result.span, result.source_line)
    variable = result.value.array
    writers = [s for s in scop.statements if variable in s.targets]
    updates = [s for s in writers if s.iterators]
    inits = [s for s in writers if not s.iterators]
    if len(updates) != 1 or len(inits) != 1:
        raise UnsupportedError(f"{variable!r} must be set once before its loop and updated in one "
                               "statement to be reduced chunk by chunk", writers[0].span, writers[0].source_line)
    update, init = updates[0], inits[0]
    copies = _returned_copies(scop, variable)  # ``return s, s``: each returned scalar copies it
    # ``m = max(m, x[i])``'s value saved before the loop and compared after it: they decide only
    # whether Python's result is its start value (a Python number) or a NumPy scalar, which a
    # 0-d Dask array does not carry (frontend.lift ``monotone_saves``)
    typing = {SAVED + variable, STRONG + variable}
    for stmt in scop.statements:
        if stmt not in (update, result) and stmt.name not in copies and not typing & set(stmt.targets) \
                and variable in stmt.sources():
            raise UnsupportedError(f"this statement reads the reduction's accumulator {variable!r}: on a block it "
                                   "would see the block's partial value, not the whole loop's",
                                   stmt.span, stmt.source_line)
    op = _operation(update, variable)
    start = _constant(init.value)
    if start is None or (op in IDENTITY and start != IDENTITY[op]):
        raise UnsupportedError(f"the accumulator's start must be {IDENTITY.get(op, 'a constant')} for a "
                               f"{op!r} reduction split into chunks (each chunk starts from it)",
                               init.span, init.source_line)
    if op in IDENTITY and update.value.dtype.startswith("float") and not reassociate:
        raise UnsupportedError(f"a float {op!r} reduction split into chunks adds in another order than the "
                               "loop (results differ in the last bits); pass reassociate=True to "
                               "polyfuse.dask.call to accept that", update.span, update.source_line)
    return Reduction(update.name, variable, op, update.value.dtype, returns.name)


def _returned_copies(scop: Scop, variable: str) -> set[str]:
    """The statements that copy the accumulator ``variable`` into a returned scalar, once after
    the loops (a value returned twice is two copies)."""
    scalars: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, tuple):
            for item in value:
                walk(item)
        elif value is not None and value.how == "scalar":
            scalars.add(value.name)

    walk(scop.returns)
    return {s.name for s in scop.statements if s.array in scalars and not s.iterators
            and isinstance(s.value, ir.Load) and s.value.array == variable and not s.value.index}


def _operation(update: Statement, variable: str) -> str:
    value = update.value
    if isinstance(value, ir.BinOp) and value.op in OPS:
        for mine, other in ((value.lhs, value.rhs), (value.rhs, value.lhs)):
            if (isinstance(mine, ir.Load) and mine.array == variable and not mine.index
                    and not any(isinstance(e, ir.Load) and e.array == variable for e in ir.walk(other))):
                return value.op
    raise UnsupportedError(f"the update of {variable!r} must be {variable} = {variable} op value with op "
                           "one of +, *, max, min", update.span, update.source_line)


def _constant(expr: ir.Expr) -> float | None:
    if isinstance(expr, ir.Const) and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        inner = _constant(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, ir.Cast):
        return _constant(expr.operand)
    return None


@dataclass(frozen=True)
class Fold:
    """Combines partial results in order with the kernel's operation (dask's combine and
    aggregate steps)."""

    op: str
    dtype: str

    def __call__(self, x, axis=None, keepdims=False, **_):
        values = np.asarray(x).ravel()
        total = values[0] if values.size else np.asarray(IDENTITY.get(self.op, 0), dtype=self.dtype)
        for value in values[1:]:
            total = _apply(self.op, total, value)
        result = np.asarray(total, dtype=self.dtype)
        return result.reshape((1,) * np.ndim(x)) if keepdims else result


def _apply(op: str, a, b):
    if op == "+":
        return a + b
    if op == "*":
        return a * b
    if op == "max":
        return b if b > a else a  # Python's max(a, b)
    return b if b < a else a


def keep(x, axis=None, keepdims=False, **_):
    """dask's per-chunk step: a block's partial is already one value."""
    return x if keepdims else np.asarray(x).reshape(())


def accumulated(scop: Scop, array: str) -> str | None:
    """The dtype of ``array`` when the kernel only adds to it: every statement that writes it is
    ``array[idx] = array[idx] + value`` (the same element read, ``value`` not reading the array)
    and no other statement reads it.  Its final value is then its initial value plus every
    update's ``value``, however they are grouped: a loop split into chunks can give each chunk's
    sum of updates (a partial, from zeros) and Dask add the partials.  None otherwise."""
    writers = [s for s in scop.statements if array in s.targets]
    if not writers or any(s.region is not None for s in writers):
        return None
    if any(array in s.sources() for s in scop.statements if s not in writers):
        return None
    for stmt in writers:
        value = stmt.value
        if not (isinstance(value, ir.BinOp) and value.op == "+"):
            return None
        sides = [(mine, other) for mine, other in ((value.lhs, value.rhs), (value.rhs, value.lhs))
                 if isinstance(mine, ir.Load) and mine.array == array]
        if len(sides) != 1 or any(isinstance(e, ir.Load) and e.array == array for e in ir.walk(sides[0][1])):
            return None
        if array in {e.array for i in stmt.index for e in ir.walk(i) if isinstance(e, ir.Load)}:
            return None
        if not _of(stmt.reads, array).is_equal(_of(stmt.writes, array)):
            return None  # it reads another element than the one it writes
    return scop.array(array).dtype


def _of(accesses: isl.UnionMap, array: str) -> isl.UnionMap:
    """The part of a union of access relations that touches ``array``."""
    found = isl.UnionMap.empty(accesses.get_space())
    maps: list = []
    accesses.foreach_map(lambda m: maps.append(m) if m.get_tuple_name(isl.dim_type.out) == array else None)
    for m in maps:
        found = found.union(isl.UnionMap.from_map(m))
    return found
