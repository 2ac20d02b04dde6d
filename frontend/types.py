"""numpy promotion rules (NEP 50) for the static types of kernel expressions.

Python scalars (literals, loop variables, int/float arguments, math.* results) are *weak*: they
adopt the dtype of the numpy value they meet, exactly as in the undecorated function.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from polyfuse.model import ir
from polyfuse.model.scop import Argument

FLOATS = ("float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
COMPLEX = ("complex64", "complex128")


@dataclass(frozen=True)
class VType:
    dtype: str
    weak: bool

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOATS

    @property
    def is_complex(self) -> bool:
        return self.dtype in COMPLEX

    @property
    def is_int(self) -> bool:
        return self.dtype in INTS or self.dtype == "bool"


WEAK_INT = VType("int64", True)
WEAK_FLOAT = VType("float64", True)
WEAK_COMPLEX = VType("complex128", True)
BOOL = VType("bool", False)


def argument_type(arg: Argument) -> VType:
    """The type of a scalar argument: a Python number or bool is weak, a numpy scalar strong."""
    if arg.numpy_scalar:
        return VType(arg.numpy_scalar, False)
    return {"int": WEAK_INT, "float": WEAK_FLOAT, "complex": WEAK_COMPLEX, "bool": VType("bool", True)}[arg.kind]


def casts(src: VType, dst: str, casting: Literal["same_kind", "unsafe"]) -> bool:
    """Whether numpy's ``casting`` rule stores a ``src`` value into a ``dst`` array (np.copyto): a
    Python number (weak) goes by value into its kind and the kinds above it (an int into any
    integer, float or complex dtype; nothing but a bool into bool), a numpy value by np.can_cast."""
    if casting == "unsafe":
        return True
    if src.weak:
        kinds = {"bool": "biufc", "int64": "iufc", "float64": "fc", "complex128": "c"}[src.dtype]
        return np.dtype(dst).kind in kinds
    return bool(np.can_cast(np.dtype(src.dtype), np.dtype(dst), casting))


def _example(t: VType):
    if t.weak:  # a Python bool stays one: np.where(c, True, False) is a numpy bool
        return 0j if t.is_complex else 0.0 if t.is_float else True if t.dtype == "bool" else 0
    return np.dtype(t.dtype)


def promote(a: VType, b: VType) -> VType:
    """The type of ``a <op> b`` for + - * // % ** min max."""
    if a.dtype == "bool" and a.weak:  # a Python bool is a weak int; a numpy bool is strong
        a = WEAK_INT
    if b.dtype == "bool" and b.weak:
        b = WEAK_INT
    if a.weak and b.weak:
        if a.is_complex or b.is_complex:
            return WEAK_COMPLEX
        return WEAK_FLOAT if (a.is_float or b.is_float) else WEAK_INT
    return VType(np.result_type(_example(a), _example(b)).name, False)


def complex_result(a: VType, b: VType) -> VType:
    """The type of ``a <op> b`` for + - * / ** == != where either is complex: ``promote``'s, but for a
    Python complex before an ``np.float64``, a subclass of ``float``: ``complex.__add__`` takes it
    before NumPy's reflected method is asked, so Python returns a Python complex (``0j +
    np.float64(1)``; ``np.float64(1) + 0j``, ``0j + np.float32(1)`` and ``0j + np.int64(1)`` are
    NumPy's)."""
    if a.weak and a.is_complex and not b.weak and b.dtype == "float64":
        return WEAK_COMPLEX
    return promote(a, b)


def merged(a: VType, b: VType) -> VType:
    """The one type of a local assigned values of types ``a`` and ``b``: bools stay bools
    (``found = False`` ... ``found = True``: a Python bool, where ``promote`` would add them as
    ints), strong where either is; other types as ``promote`` gives them."""
    if a.dtype == "bool" and b.dtype == "bool":
        return VType("bool", a.weak and b.weak)
    return promote(a, b)


def true_divide(a: VType, b: VType) -> VType:
    """The type of ``a / b``: integers divide into float64 (complex stays complex)."""
    t = promote(a, b)
    return t if t.is_float or t.is_complex else VType("float64", t.weak)


def float_of(t: VType) -> VType:
    """The type of np.<func>(x): floats (and complex) keep their width, integers become float64."""
    return t if t.is_float or t.is_complex else VType("float64", False)


#: numpy's ufunc for each bitwise operator (what ``a & b`` calls when either side is a numpy value)
BITWISE_UFUNCS = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor, "<<": np.left_shift,
                  ">>": np.right_shift}


def bitwise(symbol: str, a: VType, b: VType) -> VType:
    """The type of ``a <symbol> b`` for ``& | ^ << >>`` of integers and bools.

    Two Python values follow Python: bool ``& | ^`` bool is a bool, anything else an int (weak).
    Otherwise numpy's ufunc is asked on example values (a Python bool stays a bool there: numpy
    gives ``np.True_ << True`` int8 and ``x_int8 & True`` int8).  Raises TypeError where numpy
    does (floats, ``int64 & uint64``, whose common type is float64)."""
    if a.is_float or a.is_complex or b.is_float or b.is_complex:
        raise TypeError(f"unsupported operand types for {symbol}: {a.dtype} and {b.dtype}")
    if a.weak and b.weak:
        both_bool = a.dtype == b.dtype == "bool" and symbol in ("&", "|", "^")
        return VType("bool", True) if both_bool else WEAK_INT
    return VType(BITWISE_UFUNCS[symbol](_bitwise_example(a), _bitwise_example(b)).dtype.name, False)


def _bitwise_example(t: VType):
    if t.weak:
        return True if t.dtype == "bool" else 1
    return np.ones((), t.dtype)[()]


def power_hint(node: ast.expr) -> str:
    """Why ``a ** b`` of integers is a float, for errors that refuse a float where an integer
    belongs (``range(R ** K)``, ``np.mgrid[0:R ** K]``): Python gives a float for a negative
    exponent, so an exponent that is not a non-negative constant makes it one; "" otherwise."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not (
            isinstance(node.right, ast.Constant) and type(node.right.value) is int and node.right.value >= 0):
        return (f" ({ast.unparse(node)!r} is a float even of integers: Python's a ** b is a float where b is "
                "negative; write a non-negative integer constant exponent, or pass the size as an argument)")
    return ""


def vtype(expr: ir.Expr) -> VType:
    """An IR expression's type as the frontend's VType."""
    return VType(expr.dtype, expr.weak)


def _reweak(expr: ir.Expr, weak: bool) -> ir.Expr:
    return replace(expr, weak=weak)


def coerced(expr: ir.Expr, target: VType) -> ir.Expr:
    """``expr`` converted to ``target``'s dtype (a no-op when it already has it)."""
    if expr.dtype == target.dtype:
        return expr if expr.weak == target.weak else _reweak(expr, target.weak)
    if isinstance(expr, ir.Const) and target.is_complex:
        return ir.complex_const(complex(expr.value), target.dtype, target.weak)
    if isinstance(expr, ir.Const) and target.dtype != "bool":
        value = float(expr.value) if target.dtype.startswith("float") else int(expr.value)
        return ir.Const(value, target.dtype, target.weak)
    return ir.Cast(expr, target.dtype, target.weak)
