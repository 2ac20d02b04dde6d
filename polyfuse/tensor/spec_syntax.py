"""The spec language's vocabulary: its reserved names, its error, its syntax tree.

:class:`SpecError` points at line:col of the spec text; the tree nodes (:class:`Num`,
:class:`Name`, :class:`Access`, :class:`Bin`, :class:`Neg`, :class:`Call`, :class:`Reduce`) keep
source positions so later stages can point there too.  :func:`_children` and :func:`_walk`
visit a right-hand side.  Separate because every other spec module (parser, analysis, code
generation, staging, the callable) reads these and nothing else of each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

from polyfuse.errors import ArgumentError
from polyfuse.tensor.codegen import Caret

REDUCTIONS = ("sum", "max", "min", "prod")
#: names a tensor or scalar input may not have (they mean something in the generated kernel)
RESERVED = frozenset({"np", "math", "range", "float", "int", "abs", "min", "max", "spec_kernel", "True",
                      "False", "None"})
#: elementwise functions: name -> (min args, max args)
FUNCTIONS = {
    "exp": (1, 1), "log": (1, 1), "sqrt": (1, 1), "tanh": (1, 1), "sin": (1, 1), "cos": (1, 1),
    "abs": (1, 1), "relu": (1, 1), "sigmoid": (1, 1), "min": (2, 99), "max": (2, 99), "pow": (2, 2),
}


class SpecError(ArgumentError):
    """A spec that cannot be compiled or called: syntax, indices, shapes.  Points at line:col."""

    def __init__(self, message: str, text: str = "", offset: int | None = None, width: int = 1) -> None:
        self.reason = message
        self.line = self.col = None
        if offset is not None and text:
            caret = Caret(text, offset, width)
            self.line, col = caret.line_col()
            self.col = col + 1
            message = f"spec line {self.line}, col {self.col}: {message}\n{caret.render()}"
        super().__init__(message)


@dataclass(frozen=True)
class Num:
    value: float | int
    pos: int


@dataclass(frozen=True)
class Name:  # an index variable used as a value, or a scalar input
    name: str
    pos: int


@dataclass(frozen=True)
class Index:
    """An affine subscript: sum(coef * var) + const."""

    coefs: tuple[tuple[str, int], ...]
    const: int
    pos: int
    end: int
    var_pos: tuple[tuple[str, int], ...] = ()

    @property
    def plain(self) -> str | None:
        if self.const == 0 and len(self.coefs) == 1 and self.coefs[0][1] == 1:
            return self.coefs[0][0]
        return None


@dataclass(frozen=True)
class Access:
    tensor: str
    index: tuple[Index, ...]
    pos: int
    end: int


@dataclass(frozen=True)
class Bin:
    op: str
    lhs: Expr
    rhs: Expr
    pos: int


@dataclass(frozen=True)
class Neg:
    operand: Expr
    pos: int


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    pos: int


@dataclass(frozen=True)
class Reduce:
    op: str
    vars: tuple[tuple[str, int], ...]  # (name, pos)
    body: Expr
    pos: int
    end: int = -1  # one past the closing parenthesis


#: A node of a statement's right-hand side.
Expr: TypeAlias = Num | Name | Access | Bin | Neg | Call | Reduce


def _children(node: Expr) -> tuple[Expr, ...]:
    """The operands of ``node``, in source order (a reduction's is its body)."""
    if isinstance(node, Bin):
        return node.lhs, node.rhs
    if isinstance(node, Neg):
        return (node.operand,)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Reduce):
        return (node.body,)
    return ()


def _walk(node: Expr) -> Iterator[Expr]:
    yield node
    for child in _children(node):
        yield from _walk(child)


@dataclass
class Statement:
    target: str
    indices: tuple[tuple[str, int], ...]
    expr: Expr
    pos: int
    end: int
    extents: dict[str, str] = field(default_factory=dict)  # index -> extent source (in input shapes)
