"""Memory traffic of a fusion candidate, as numbers for the fusion decisions.

Two estimates per candidate pair of loops, in bytes, as expressions of the kernel's sizes (a
kernel is compiled once per signature, for every size):

- ``saved``: one pass over memory for each array both loops touch.  Apart, the second loop
  reads again what the first one read or wrote; fused, it finds those elements in cache, as
  long as one iteration's data stays there.
- ``footprint``: the data one iteration of the fused loop touches: per array, the bounding box
  of its elements (the largest over the loop's iterations), which must fit in cache for the
  saving to happen.

``kernel.explain(*args)`` evaluates both at the call's sizes and sets the footprint against the
cache sizes of ``polyfuse.hardware``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import islpy as isl
import numpy as np

from polyfuse.model import ir
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.isl_parts import maps_of


@dataclass(frozen=True)
class Traffic:
    """Byte estimates of one fusion candidate, as Python expressions of the kernel's sizes."""

    shared: tuple[str, ...]  # arrays both loops touch
    saved_bytes: str  # one pass over each shared array
    #: what one iteration's footprint is computed from, as isl text: (context, the statements'
    #: accesses, the fused loop's values, bytes per element by array).  Only ``explain()`` reads
    #: the footprint, so it is computed there (``footprint_text``), not in every compile: isl's
    #: parametric maxima took 0.2 s of conv_bn_relu's 1.2 s compile.
    footprint_of: tuple[str, str, str, tuple[tuple[str, int], ...]]


def fusion_traffic(scop, first: tuple[str, ...], second: tuple[str, ...], values: isl.UnionMap) -> Traffic:
    """Traffic estimates for fusing the loops of statements ``first`` and ``second``; ``values``
    maps each statement to the fused loop's (and its enclosing loops') values."""
    shared = tuple(sorted(_arrays(scop, first) & _arrays(scop, second)))
    saved = _sum(_array_bytes(scop, name) for name in shared)
    accesses = isl.UnionMap.empty(scop.context.get_space())
    for name in first + second:
        stmt = scop.statement(name)
        accesses = accesses.union(stmt.reads).union(stmt.writes)
    itemsizes = {}
    for access in maps_of(accesses):
        array = access.get_tuple_name(isl.dim_type.out)
        if array is not None and array not in itemsizes:
            itemsizes[array] = int(np.dtype(scop.array(array).dtype).itemsize)
    footprint_of = (scop.context.to_str(), accesses.to_str(), values.to_str(), tuple(sorted(itemsizes.items())))
    return Traffic(shared, ir.to_python(saved), footprint_of)


#: footprint_text's answers by their inputs (text)
_FOOTPRINTS: dict[tuple, str | None] = {}


def footprint_text(traffic: dict[str, Any]) -> str | None:
    """The bytes one iteration of the fused loop touches, as a Python expression of the sizes, for
    a fusion record's ``traffic`` (``asdict`` of a ``Traffic``); None when isl cannot bound it.
    Parses isl text: call it where the compile's isl work may run (``kernel.explain``)."""
    inputs = traffic["footprint_of"]
    if inputs not in _FOOTPRINTS:
        context_text, accesses_text, values_text, itemsizes = inputs
        context = isl.Set(context_text)
        try:
            with bounded(context.get_ctx()):
                footprint = _iteration_footprint(context, isl.UnionMap(accesses_text), isl.UnionMap(values_text),
                                                 dict(itemsizes))
        except BudgetExceeded:
            footprint = None
        if len(_FOOTPRINTS) > 256:
            _FOOTPRINTS.clear()
        _FOOTPRINTS[inputs] = None if footprint is None else ir.to_python(footprint)
    return _FOOTPRINTS[inputs]


def evaluate(text: str | None, sizes: dict[str, Any]) -> int | None:
    """Bytes of an estimate at these sizes (None when it cannot be evaluated)."""
    if text is None:
        return None
    names = {k: int(v) for k, v in sizes.items() if isinstance(v, (int, np.integer))}
    try:
        # our own integer expressions (ir.to_python of sizes): names, + - * // %, min, max
        return int(eval(text, {"__builtins__": {}, "min": min, "max": max}, names))  # noqa: S307
    except (NameError, TypeError, ZeroDivisionError, ValueError):
        return None


def _arrays(scop, statements: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for name in statements:
        stmt = scop.statement(name)
        if stmt.region is not None:  # a loop kept as written: every array it may touch
            found.update(a for a in set(stmt.targets) | stmt.sources() if scop.array(a).rank)
            continue
        if stmt.index:
            found.add(stmt.array)
        found.update(e.array for e in ir.walk(stmt.value) if isinstance(e, ir.Load) and e.index)
    return found


def _array_bytes(scop, name: str) -> ir.Expr:
    info = scop.array(name)
    result: ir.Expr = ir.int_const(np.dtype(info.dtype).itemsize)
    for extent in info.shape:
        result = ir.BinOp("*", result, extent, ir.INT, True)
    return result


def _iteration_footprint(context: isl.Set, accesses: isl.UnionMap, values: isl.UnionMap,
                         itemsizes: dict[str, int]) -> ir.Expr | None:
    """Bytes one value of ``values`` touches: per array the bounding box of its elements."""
    per_iteration = values.reverse().apply_range(accesses)
    build = isl.AstBuild.from_context(context)
    parts: list[ir.Expr] = []
    for access in maps_of(per_iteration):
        array = access.get_tuple_name(isl.dim_type.out)
        if array is None or access.dim(isl.dim_type.out) == 0:
            continue
        elements: ir.Expr = ir.int_const(itemsizes[array])
        for axis in range(access.dim(isl.dim_type.out)):
            extent = access.dim_max(axis).sub(access.dim_min(axis)).add_constant_val(isl.Val(1))
            largest = isl.Map.from_pw_aff(extent).range().dim_max(0).coalesce()
            elements = ir.BinOp("*", elements, _expr(build, largest), ir.INT, True)
        parts.append(elements)
    return _sum(parts)


def _expr(build: isl.AstBuild, value: isl.PwAff) -> ir.Expr:
    from polyfuse.model.isl_expr import expr_from_isl

    return expr_from_isl(build.expr_from_pw_aff(value))


def _sum(parts) -> ir.Expr:
    total: ir.Expr = ir.int_const(0)
    for part in parts:
        total = part if total == ir.int_const(0) else ir.BinOp("+", total, part, ir.INT, True)
    return total
