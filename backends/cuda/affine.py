"""Exact affine arithmetic on loop-AST expressions, for the CUDA backend's promotion decisions.

A ``Linear`` is ``const + sum(coef * name)`` over integer variable names.  ``linear(expr)``
gives one for the affine integer expressions isl's AST generator and the frontend produce
(``+``, ``-``, ``*`` by a constant, negation, integer constants and variables) and ``None`` for
anything else (``//``, ``min``, loads, floats), which callers treat as "not analysable".

Footprints are intervals: a name standing for a thread offset, a chunk offset or an inner loop
counter ranges over ``[0, extent)`` with a compile-time ``extent``; every other name is uniform
(the same for all threads of a block at the point where data is staged).
"""

from __future__ import annotations

from dataclasses import dataclass

from polyfuse.model import ir


@dataclass(frozen=True)
class Linear:
    """``const + sum(coef * name for name, coef in terms)``; ``terms`` sorted, no zero coefs."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(terms: dict[str, int], const: int = 0) -> Linear:
        return Linear(tuple(sorted((n, c) for n, c in terms.items() if c)), const)

    def coef(self, name: str) -> int:
        return dict(self.terms).get(name, 0)

    def names(self) -> set[str]:
        return {n for n, _ in self.terms}

    def __add__(self, other: Linear) -> Linear:
        terms = dict(self.terms)
        for name, coef in other.terms:
            terms[name] = terms.get(name, 0) + coef
        return Linear.of(terms, self.const + other.const)

    def scale(self, factor: int) -> Linear:
        return Linear.of({n: c * factor for n, c in self.terms}, self.const * factor)

    def drop(self, names: set[str]) -> Linear:
        """The same form without the terms over ``names``."""
        return Linear.of({n: c for n, c in self.terms if n not in names}, self.const)

    def substitute(self, values: dict[str, Linear]) -> Linear:
        out = Linear((), self.const)
        for name, coef in self.terms:
            out = out + (values[name].scale(coef) if name in values else Linear(((name, coef),)))
        return out

    def render(self) -> str:
        """Python text (for generated kernels)."""
        parts = [name if c == 1 else f"{c} * {name}" for name, c in self.terms]
        text = " + ".join(parts)
        if self.const or not parts:
            text = f"{text} + {self.const}" if parts else str(self.const)
        return text.replace("+ -", "- ")


def constant(value: int) -> Linear:
    return Linear((), int(value))


def variable(name: str, coef: int = 1) -> Linear:
    return Linear.of({name: coef})


def linear(expr: ir.Expr) -> Linear | None:
    """The affine form of an integer expression, or None when it is not affine."""
    if isinstance(expr, ir.Const):
        return constant(expr.value) if isinstance(expr.value, int) and not isinstance(expr.value, bool) else None
    if isinstance(expr, ir.Var):
        return variable(expr.name) if not expr.dtype.startswith("float") else None
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        inner = linear(expr.operand)
        return inner.scale(-1) if inner is not None else None
    if isinstance(expr, ir.Cast) and expr.dtype.startswith("int"):
        return linear(expr.operand)
    if isinstance(expr, ir.BinOp) and expr.op in ("+", "-", "*"):
        return _binop(expr.op, linear(expr.lhs), linear(expr.rhs))
    return None


def _binop(op: str, a: Linear | None, b: Linear | None) -> Linear | None:
    if a is None or b is None:
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a + b.scale(-1)
    if not a.terms:
        return b.scale(a.const)
    if not b.terms:
        return a.scale(b.const)
    return None  # a product of two variables


@dataclass(frozen=True)
class Interval:
    """The values of a ``Linear`` whose offset names range over ``[0, extent)``:
    ``low`` (uniform, without offsets) up to ``low + extent - 1``."""

    low: Linear
    extent: int


def interval(form: Linear, extents: dict[str, int]) -> Interval:
    """Smallest interval holding ``form`` while each offset ``name`` of ``extents`` ranges over
    ``[0, extents[name])``; the other names are uniform and stay in ``low``."""
    low = form.drop(set(extents))
    span = 0
    for name, coef in form.terms:
        if name in extents:
            reach = coef * (extents[name] - 1)
            span += abs(reach)
            low = low + constant(min(0, reach))
    return Interval(low, span + 1)
