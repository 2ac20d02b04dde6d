"""Affine integer expressions: Python AST -> (isl text, polyfuse IR).

Subscripts, loop bounds and conditions must be affine in loop variables, integer arguments and
array extents (``X.shape[d]``): sums of those times integer constants, ``//`` and ``%`` by a
positive constant, and ``min``/``max``.  Anything else raises UnsupportedError at its position.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from polyfuse.model import ir
from polyfuse.model.scop import shape_param


@dataclass(frozen=True)
class Affine:
    text: str  # isl syntax
    expr: ir.Expr  # the same value as polyfuse IR (int64)
    const: int | None = None  # the value when it is a compile-time constant


class AffineConverter:
    """Converts one expression; ``names`` maps allowed identifiers to their isl names."""

    def __init__(self, names: dict[str, str], arrays: dict[str, int], error: Callable) -> None:
        self.names = names
        self.arrays = arrays  # array name -> rank, for X.shape[d]
        self.error = error

    def convert(self, node: ast.expr) -> Affine:
        handler = getattr(self, f"_{type(node).__name__}", None)
        if handler is None:
            raise self.error(node, f"non-affine expression {ast.unparse(node)!r}")
        return handler(node)

    def _Constant(self, node: ast.Constant) -> Affine:
        if type(node.value) is not int:
            raise self.error(node, f"non-integer constant {node.value!r} in an affine expression")
        return _const(node.value)

    def _Name(self, node: ast.Name) -> Affine:
        if node.id not in self.names:
            raise self.error(
                node,
                f"{node.id!r} is not a loop variable or integer argument; subscripts, bounds and "
                "conditions must be affine in those and X.shape[d]",
            )
        name = self.names[node.id]
        return Affine(name, ir.Var(node.id if name == node.id else name, ir.INT))

    def _Subscript(self, node: ast.Subscript) -> Affine:
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr == "shape" and isinstance(base.value, ast.Name):
            array = base.value.id
            axis = cast(int, node.slice.value)  # type: ignore[attr-defined]  # checked constant by the subset checker
            if array not in self.arrays or not 0 <= axis < self.arrays[array]:
                raise self.error(node, f"{ast.unparse(node)} is not an axis of an array argument")
            name = shape_param(array, axis)
            return Affine(name, ir.Var(name, ir.INT))
        raise self.error(node, f"array element {ast.unparse(node)} used in an affine expression")

    def _UnaryOp(self, node: ast.UnaryOp) -> Affine:
        inner = self.convert(node.operand)
        if isinstance(node.op, ast.UAdd):
            return inner
        if isinstance(node.op, ast.USub):
            if inner.const is not None:
                return _const(-inner.const)
            return Affine(f"(-{inner.text})", ir.Unary("neg", inner.expr, ir.INT, True))
        raise self.error(node, f"{ast.unparse(node)!r} is not an integer expression")

    def _BinOp(self, node: ast.BinOp) -> Affine:
        lhs, rhs = self.convert(node.left), self.convert(node.right)
        op = node.op
        if lhs.const is not None and rhs.const is not None and isinstance(
            op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
        ):
            if isinstance(op, (ast.FloorDiv, ast.Mod)) and rhs.const == 0:
                raise self.error(node, "division by zero in an affine expression")
            return _const(_fold(op, lhs.const, rhs.const))
        if isinstance(op, (ast.Add, ast.Sub)):
            sym = "+" if isinstance(op, ast.Add) else "-"
            return Affine(f"({lhs.text} {sym} {rhs.text})", _bin(sym, lhs, rhs))
        if isinstance(op, ast.Mult):
            if lhs.const is None and rhs.const is None:
                raise self.error(node, f"product of two variables {ast.unparse(node)!r} is not affine")
            return Affine(f"({lhs.text} * {rhs.text})", _bin("*", lhs, rhs))
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            if rhs.const is None or rhs.const <= 0:
                raise self.error(node, f"{ast.unparse(node)!r}: // and % need a positive constant divisor")
            if isinstance(op, ast.FloorDiv):
                return Affine(f"floor(({lhs.text})/{rhs.const})", _bin("//", lhs, rhs))
            return Affine(f"(({lhs.text}) mod {rhs.const})", _bin("%", lhs, rhs))
        raise self.error(node, f"operator in {ast.unparse(node)!r} is not affine")

    def _Call(self, node: ast.Call) -> Affine:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("min", "max"):
            parts = [self.convert(a) for a in node.args]
            text, expr = parts[0].text, parts[0].expr
            for part in parts[1:]:
                text = f"{func.id}({text}, {part.text})"
                expr = ir.BinOp(func.id, expr, part.expr, ir.INT, True)
            return Affine(text, expr)
        raise self.error(node, f"call {ast.unparse(node)!r} in an affine expression")


def _const(value: int) -> Affine:
    return Affine(str(value) if value >= 0 else f"({value})", ir.int_const(value), value)


def _bin(op: str, lhs: Affine, rhs: Affine) -> ir.Expr:
    return ir.BinOp(op, lhs.expr, rhs.expr, ir.INT, True)


def _fold(op: ast.operator, a: int, b: int) -> int:
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, ast.FloorDiv):
        return a // b
    return a % b
