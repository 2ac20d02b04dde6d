"""Scalar calls in value expressions: ``np.*`` ufuncs, ``math.*`` functions and casts.

Result dtypes are not tabulated: numpy itself is asked, on example values of the argument types
(Python numbers for weak values, numpy scalars for strong ones), so a kernel types every call
exactly as the undecorated function does under NEP 50.  ``math.*`` converts its arguments to
Python floats and returns Python numbers (weak).  Compositions (``np.square``, ``np.where``,
``np.deg2rad``, ...) are lowered to existing IR nodes here, so backends only
see ``ir.Call`` for the functions of ``polyfuse/model/funcs.py``.
"""

from __future__ import annotations

import ast
import cmath
import dataclasses
import functools
import math
import warnings
from collections.abc import Callable

import numpy as np

from polyfuse.model import funcs, ir

from .complex_power import complex_power
from .source import location_key
from .types import COMPLEX, FLOATS, INTS, WEAK_COMPLEX, WEAK_FLOAT, WEAK_INT, VType

SUPPORTED = FLOATS + INTS + ("bool",) + COMPLEX
# numpy functions lowered to other IR nodes here (not ir.Call)
_NP_COMPOSED = {"where": 3, "abs": 1, "absolute": 1, "negative": 1, "positive": 1, "square": 1,
                "reciprocal": 1, "deg2rad": 1, "rad2deg": 1, "radians": 1, "degrees": 1,
                "real": 1, "imag": 1, "conj": 1, "conjugate": 1, "angle": 1}
# numpy's bitwise ufuncs, lowered to the operators' IR (the bitwise_*shift/invert names: numpy 2 aliases)
_NP_BITWISE = {name: symbol for name, symbol in (
    ("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^"), ("left_shift", "<<"), ("right_shift", ">>"),
    ("bitwise_left_shift", "<<"), ("bitwise_right_shift", ">>")) if hasattr(np, name)}
_NP_INVERT = tuple(name for name in ("invert", "bitwise_not", "bitwise_invert") if hasattr(np, name))
_NP_COMPOSED.update({**dict.fromkeys(_NP_BITWISE, 2), **dict.fromkeys(_NP_INVERT, 1)})
_MATH_COMPOSED = {"degrees": 1, "radians": 1}
# the functions of complex values the backends compute (np.* and cmath.*); others are refused
COMPLEX_FUNCS = ("exp", "log", "sqrt")
_CMATH = COMPLEX_FUNCS + ("phase",)


def np_scalar_type(name: str) -> str | None:
    """The dtype name of ``np.<name>`` when it is a supported numpy scalar type (a cast)."""
    obj = getattr(np, name, None)
    if isinstance(obj, type) and issubclass(obj, np.generic):
        dtype = np.dtype(obj).name
        return dtype if dtype in SUPPORTED else None
    return None


def is_supported(module: str, name: str) -> bool:
    """Whether ``module.name(...)`` may appear in a value expression (for the subset checker)."""
    if module == "math":
        return name in funcs.MATH_NAMES or name in _MATH_COMPOSED
    if module == "cmath":
        return name in _CMATH
    return name in funcs.NP_NAMES or name in _NP_COMPOSED or np_scalar_type(name) is not None


def module_constant(module: str, name: str) -> float | complex | None:
    """``math.pi``, ``np.inf``, ``cmath.infj``, ...: float and complex constants of math, cmath and
    numpy (weak, Python numbers)."""
    value = getattr({"math": math, "cmath": cmath}.get(module, np), name, None)
    return value if type(value) in (float, complex) else None


def arity(module: str, name: str) -> int:
    if module == "np" and name in _NP_COMPOSED:
        return _NP_COMPOSED[name]
    if module == "math" and name in _MATH_COMPOSED or module == "cmath":
        return 1
    if module == "np" and np_scalar_type(name) is not None:
        return 1
    table = funcs.MATH_NAMES if module == "math" else funcs.NP_NAMES
    return funcs.arity(table[name])


def vtype(expr: ir.Expr) -> VType:
    return VType(expr.dtype, expr.weak)


class ScalarCalls:
    """Lowers one call; ``ex`` is the ExpressionLifter (coerce, truth and located errors)."""

    def __init__(self, ex, node: ast.Call | ast.Attribute) -> None:
        self.ex = ex
        self.node = node
        self.spelled = ast.unparse(node.func if isinstance(node, ast.Call) else node)

    def error(self, message: str) -> Exception:
        return self.ex.lifter.error(self.node, message, f"call to {self.spelled}")

    # ---- typing ------------------------------------------------------------------------------
    def numpy_result(self, np_func, args: list[ir.Expr]) -> VType:
        """The dtype numpy gives ``np_func(*args)`` for these argument types (always strong)."""
        examples = [_example(vtype(a)) for a in args]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                dtype = np.asarray(np_func(*examples)).dtype.name
        except (TypeError, ValueError) as exc:
            kinds = ", ".join(a.dtype for a in args)
            raise self.error(f"{self.spelled}() is not defined by numpy for ({kinds}): {exc}") from None
        if dtype not in SUPPORTED:
            kinds = ", ".join(a.dtype for a in args)
            raise self.error(f"{self.spelled}() of ({kinds}) gives {dtype}, which polyfuse does not "
                             "support; convert the argument first (for example with np.float32(x))")
        return VType(dtype, False)

    # ---- numpy -------------------------------------------------------------------------------
    def np_call(self, name: str, args: list[ir.Expr]) -> ir.Expr:
        cast = np_scalar_type(name)
        if cast is not None:
            return self.cast(args[0], VType(cast, False))
        if name in _NP_BITWISE:
            return self.np_bitwise(getattr(np, name), _NP_BITWISE[name], args)
        if name in _NP_INVERT:
            return self.np_invert(args)
        if name in _NP_COMPOSED:
            return getattr(self, f"np_{name}")(args)
        canonical = funcs.NP_NAMES[name]
        result = self.numpy_result(getattr(np, name), args)
        if result.is_complex or any(vtype(a).is_complex for a in args):
            return self.complex_call(canonical, args, result, "np")
        if canonical in funcs.PREDICATES:
            return ir.Call(canonical, (self.ex.coerce(args[0], _unweak(args[0])),), "bool", False, "np")
        check_int_literals(self.ex.lifter, self.node, tuple(args), result)  # np.fmax(x_uint8[i], -3): OverflowError
        if canonical == "pow" and not result.is_float:
            base, exponent = (self.ex.coerce(a, result) for a in range_checked(self.ex.lifter, tuple(args), result, self.node))
            return ir.BinOp("**", base, exponent, result.dtype, False)
        if canonical in ("floor", "ceil", "trunc", "rint") and not result.is_float:
            return self.ex.coerce(args[0], result)  # numpy 2 keeps integers as they are
        if not result.is_float and canonical not in ("maximum", "minimum", "fmax", "fmin", "sign", "fmod"):
            raise self.error(f"{self.spelled}() of {args[0].dtype} gives {result.dtype}, not a float")
        checked = range_checked(self.ex.lifter, tuple(args), result, self.node)  # np.maximum(x_int8, s): OverflowError
        return ir.Call(canonical, tuple(self.ex.coerce(a, result) for a in checked), result.dtype, False, "np")

    def complex_call(self, canonical: str, args: list[ir.Expr], result: VType, lib: str) -> ir.Expr:
        """np.exp/log/sqrt and cmath.exp/log/sqrt of complex values; numpy's other ufuncs of
        complex values (np.sin, np.power, ...) are refused rather than computed differently."""
        if canonical == "pow" and result.is_complex:  # numpy's npy_cpow, also of Python numbers
            base, exponent = (self.ex.coerce(a, result) for a in args)
            return complex_power(base, exponent, args[1], result, python=False)
        if canonical not in COMPLEX_FUNCS or not result.is_complex:
            kinds = ", ".join(a.dtype for a in args)
            raise self.error(f"{self.spelled}() of ({kinds}) is not supported for complex values; "
                             f"complex functions are np.exp, np.log, np.sqrt (also cmath's), np.power, np.abs, "
                             "np.angle, np.real, np.imag and np.conj")
        return ir.Call(canonical, (self.ex.coerce(args[0], result),), result.dtype, result.weak, lib)

    def part(self, arg: ir.Expr, which: str) -> ir.Expr:
        """``z.real``, ``z.imag``, ``np.real(z)``: a float of the component width (weak for a
        Python complex); of a real number, the number itself (``.real``) or a zero (``.imag``)."""
        t = vtype(arg)
        if not t.is_complex:
            if which == "real":
                return arg
            return self.ex.coerce(ir.Const(0, "int64", True), VType(arg.dtype, t.weak)) \
                if arg.dtype != "bool" else ir.Const(False, "bool", t.weak)
        return ir.Call(which, (arg,), component(arg.dtype), t.weak)

    def np_real(self, args: list[ir.Expr]) -> ir.Expr:  # np.real(v) is v.real
        return self.part(args[0], "real")

    def np_imag(self, args: list[ir.Expr]) -> ir.Expr:
        return self.part(args[0], "imag")

    def np_conj(self, args: list[ir.Expr]) -> ir.Expr:
        result = self.numpy_result(np.conj, args)
        arg = self.ex.coerce(args[0], result)
        return ir.Call("conj", (arg,), result.dtype, False) if result.is_complex else arg

    np_conjugate = np_conj

    def np_angle(self, args: list[ir.Expr]) -> ir.Expr:
        """numpy's angle: ``arctan2(z.imag, z.real)`` (a real argument is a complex with imag 0)."""
        result = self.numpy_result(np.angle, args)
        if not vtype(args[0]).is_complex:
            arg = self.ex.coerce(args[0], result)
            zero = ir.Const(0.0, result.dtype, False)
            return ir.Call("atan2", (zero, arg), result.dtype, False, "np")
        real = self.ex.coerce(self.part(args[0], "real"), result)
        imag = self.ex.coerce(self.part(args[0], "imag"), result)
        return ir.Call("atan2", (imag, real), result.dtype, False, "np")

    def cmath_call(self, name: str, args: list[ir.Expr]) -> ir.Expr:
        """cmath converts its argument to a Python complex and returns one (weak); phase is
        ``math.atan2(z.imag, z.real)``."""
        if args[0].dtype == "bool":
            args = [self.ex.coerce(args[0], WEAK_INT)]
        z = self.ex.coerce(args[0], WEAK_COMPLEX)
        if name == "phase":
            parts = tuple(self.part(z, which) for which in ("imag", "real"))
            return ir.Call("atan2", parts, "float64", True, "math")
        return ir.Call(name, (z,), "complex128", True, "cmath")

    def np_where(self, args: list[ir.Expr]) -> ir.Expr:
        # both values are computed before np.where runs: every read must be in bounds (unguarded)
        result = self.numpy_result(np.where, args)
        cond = self.ex.truth(args[0])
        then, otherwise = (self.ex.coerce(self.wrapped(a, result), result) for a in args[1:])
        return ir.Select(cond, then, otherwise, result.dtype, False, guarded=False)

    def wrapped(self, arg: ir.Expr, result: VType) -> ir.Expr:
        """A Python int as np.where converts it to a narrower integer ``result``: its int64
        value cast, wrapping (np.where(c, x_uint8[i], 256) is 0 there; NumPy 2 raises only
        where a ufunc meets such an int)."""
        if not (arg.weak and arg.dtype == "int64") or result.weak or result.dtype not in INTS:
            return arg
        value = _int_literal(arg)
        if value is not None:
            return ir.Const(int(np.array(value, "int64").astype(result.dtype)), result.dtype, False)
        return ir.Cast(arg, "int64", False)

    def np_abs(self, args: list[ir.Expr]) -> ir.Expr:
        result = self.numpy_result(np.absolute, args)
        if vtype(args[0]).is_complex:  # the magnitude, hypot(re, im) as numpy computes it
            return ir.Unary("abs", args[0], result.dtype, False)
        arg = self.ex.coerce(args[0], result)
        return arg if result.dtype == "bool" else ir.Unary("abs", arg, result.dtype, False)

    np_absolute = np_abs

    def np_negative(self, args: list[ir.Expr]) -> ir.Expr:
        result = self.numpy_result(np.negative, args)
        return ir.Unary("neg", self.ex.coerce(args[0], result), result.dtype, False)

    def np_positive(self, args: list[ir.Expr]) -> ir.Expr:
        return self.ex.coerce(args[0], self.numpy_result(np.positive, args))

    def np_square(self, args: list[ir.Expr]) -> ir.Expr:
        result = self.numpy_result(np.square, args)
        arg = self.ex.coerce(args[0], result)
        if result.dtype == "bool":
            return arg
        return ir.BinOp("*", arg, arg, result.dtype, False)

    def np_reciprocal(self, args: list[ir.Expr]) -> ir.Expr:
        result = self.numpy_result(np.reciprocal, args)
        if not (result.is_float or result.is_complex):
            raise self.error(f"np.reciprocal of {args[0].dtype} is integer division in numpy; "
                             "write 1.0 / x for a float result")
        one = ir.Const(1.0, result.dtype, False)
        return ir.BinOp("/", one, self.ex.coerce(args[0], result), result.dtype, False)

    def np_bitwise(self, ufunc, symbol: str, args: list[ir.Expr]) -> ir.Expr:
        """``np.bitwise_and(a, b)``, ``np.left_shift(a, b)``, ...: the operator, in the dtype numpy
        gives (a numpy value even of two Python ints)."""
        result = self.numpy_result(ufunc, args)
        check_int_literals(self.ex.lifter, self.node, tuple(args), result)
        lhs, rhs = (self.ex.coerce(a, result) for a in range_checked(self.ex.lifter, tuple(args), result, self.node))
        return ir.BinOp(symbol, lhs, rhs, result.dtype, False)

    def np_invert(self, args: list[ir.Expr]) -> ir.Expr:
        """``np.invert(x)`` (``np.bitwise_not``): all bits flipped; of a bool (Python's too), ``not``."""
        result = self.numpy_result(np.invert, args)
        arg = self.ex.coerce(args[0], result)
        return ir.Unary("not" if result.dtype == "bool" else "invert", arg, result.dtype, False)

    def _scaled(self, args: list[ir.Expr], np_func, factors: tuple[float, float]) -> ir.Expr:
        """x * factor, the factor computed in the result's width (npy_deg2rad, npy_rad2deg)."""
        result = self.numpy_result(np_func, args)
        if not result.is_float:
            raise self.error(f"{self.spelled}() of {args[0].dtype} gives {result.dtype}")
        factor = factors[0] if result.dtype == "float64" else factors[1]
        arg = self.ex.coerce(args[0], result)
        return ir.BinOp("*", arg, ir.Const(factor, result.dtype, False), result.dtype, False)

    def np_deg2rad(self, args):
        return self._scaled(args, np.deg2rad, (math.pi / 180.0, _F32_DEG2RAD))

    def np_rad2deg(self, args):
        return self._scaled(args, np.rad2deg, (180.0 / math.pi, _F32_RAD2DEG))

    np_radians = np_deg2rad
    np_degrees = np_rad2deg

    # ---- math --------------------------------------------------------------------------------
    def math_call(self, name: str, args: list[ir.Expr]) -> ir.Expr:
        if any(vtype(a).is_complex for a in args):
            raise self.error(f"{self.spelled}() of a complex value raises TypeError in Python; "
                             "use cmath or np functions")
        if name in ("floor", "ceil", "trunc") and all(a.dtype in INTS or a.dtype == "bool" for a in args):
            return self.ex.coerce(args[0], WEAK_INT)  # math.floor(int) is the int itself
        floats = tuple(self.ex.coerce(a, WEAK_FLOAT) for a in args)
        if name == "degrees":  # CPython: x / (pi / 180)
            return ir.BinOp("/", floats[0], ir.Const(math.pi / 180.0, "float64", True), "float64", True)
        if name == "radians":  # CPython: x * (pi / 180)
            return ir.BinOp("*", floats[0], ir.Const(math.pi / 180.0, "float64", True), "float64", True)
        canonical = funcs.MATH_NAMES[name]
        if canonical in funcs.PREDICATES:
            return ir.Call(canonical, floats, "bool", True, "math")  # Python bools
        call = ir.Call(canonical, floats, "float64", True, "math")
        if canonical in ("floor", "ceil", "trunc"):  # Python ints
            return ir.Cast(call, "int64", True)
        return call

    # ---- casts -------------------------------------------------------------------------------
    def cast(self, arg: ir.Expr, target: VType) -> ir.Expr:
        """``int(x)``, ``bool(x)``, ``float(x)``, ``np.float32(x)``, ``np.uint8(x)``, ...: C-style
        conversion (floats truncate toward zero, integers wrap), as numpy casts."""
        if target.dtype == "bool":
            return self.ex.coerce(self.ex.truth(arg), target)
        if vtype(arg).is_complex and not target.is_complex:
            raise self.error(f"{self.spelled}() of a complex value (a TypeError in Python, the imaginary "
                             "part dropped with a warning in numpy); take .real or abs() first")
        if arg.dtype == "bool":
            arg = self.ex.coerce(arg, WEAK_INT)
        literal = _int_literal(arg)
        if literal is not None:  # np.int64(-1): the int Python computed first
            arg = ir.Const(literal, "int64", True)
        if isinstance(arg, ir.Const) and target.dtype in INTS:
            return self.const_to_int(arg, target)
        if target.dtype in INTS and not target.weak and arg.weak and arg.dtype in FLOATS:
            # np.uint8(v) of a Python float: NumPy converts through its Python int, as it assigns one
            # into an element (NaN ValueError, 300.0 or -1.0 OverflowError; a NumPy float is cast)
            flags = _float_store_checks(arg, target.dtype, located(self.ex.lifter, self.node))
            flag = functools.reduce(lambda a, b: ir.BinOp("+", a, b, "int64", True), flags)
            return ir.BinOp("+", ir.Cast(flag, target.dtype, False), self.ex.coerce(arg, target), target.dtype, False)
        if target == WEAK_INT and arg.dtype in FLOATS:
            # int(v) of any float, as Python converts it: NaN ValueError, an infinity OverflowError, and a
            # value outside int64 (a Python int compiled code cannot hold) OverflowError as C long's
            flags = _float_store_checks(arg, "int64", located(self.ex.lifter, self.node))
            flag = functools.reduce(lambda a, b: ir.BinOp("+", a, b, "int64", True), flags)
            return ir.BinOp("+", flag, self.ex.coerce(arg, target), "int64", True)
        if target.dtype in INTS and not target.weak:  # np.uint8(s) of a Python int s = 300: OverflowError
            arg, = range_checked(self.ex.lifter, (arg,), target, self.node)
        if target == VType("int64", False) and _runtime_python_int(arg):
            return ir.Cast(arg, "int64", False)  # np.int64(s): a numpy int, which a later cast wraps
        return self.ex.coerce(arg, target)

    def const_to_int(self, arg: ir.Const, target: VType) -> ir.Expr:
        """``np.uint8(300)`` raises in numpy 2; ``np.int8(3.7)`` truncates; ``np.uint8(np.int64(300))``
        wraps (a cast of a numpy integer): fold it as numpy does."""
        info = np.iinfo(target.dtype)
        if not arg.weak and arg.dtype in INTS:
            return ir.Const(int(np.array(arg.value, arg.dtype).astype(target.dtype)), target.dtype, target.weak)
        value = math.trunc(arg.value) if isinstance(arg.value, float) and math.isfinite(arg.value) else arg.value
        if not isinstance(value, int) or not info.min <= value <= info.max:
            raise self.error(f"{value} is out of bounds for {target.dtype} (numpy raises OverflowError "
                             "or gives an undefined value)")
        return ir.Const(value, target.dtype, target.weak)


def _example(t: VType):
    if t.dtype == "bool":
        return np.bool_(True)
    if t.weak:
        return 1j if t.is_complex else 1.0 if t.is_float else 1
    return np.ones((), t.dtype)[()]


def component(dtype: str) -> str:
    """The dtype of a complex dtype's real and imaginary parts."""
    return ir.COMPONENT[dtype]


def _unweak(expr: ir.Expr) -> VType:
    return VType(expr.dtype, expr.weak)


_F32_DEG2RAD = float(np.float32(np.float32(math.pi) / np.float32(180.0)))
_F32_RAD2DEG = float(np.float32(np.float32(180.0) / np.float32(math.pi)))


def comparison_type(lhs: ir.Expr, rhs: ir.Expr, common: VType) -> VType:
    """numpy 2 compares a Python int with a small integer dtype by value (``uint8 < 300`` is True,
    ``uint8 > -1`` too): compare in int64, which holds both, instead of wrapping the int."""
    weak_int = any(e.weak and e.dtype == "int64" for e in (lhs, rhs))
    if weak_int and not common.weak and common.dtype in INTS and common.dtype not in ("int64", "uint64"):
        return VType("int64", False)
    return common


def check_int_literals(lifter, node: ast.AST, operands: tuple[ir.Expr, ...], result: VType) -> None:
    """A Python int literal outside the range of the integer dtype it meets: numpy 2 raises
    OverflowError (``A_uint8[i] + 300``, ``A_uint8[i] - -1``), so refuse it rather than wrap."""
    if result.weak or result.dtype not in INTS:
        return
    info = np.iinfo(result.dtype)
    for operand in operands:
        value = _int_literal(operand)
        if value is not None and not info.min <= value <= info.max:
            raise lifter.error(node, f"Python integer {value} is out of bounds for {result.dtype} "
                               "(numpy raises OverflowError); convert explicitly, e.g. np.int16(x)",
                               "integer literal out of range")


def range_checked(lifter, operands: tuple[ir.Expr, ...], result: VType,
                  node: ast.AST | None = None) -> tuple[ir.Expr, ...]:
    """``operands`` of an operation of type ``result``, each Python int that is not a constant
    (an int argument, a loop variable, a size, a local computed from them, ``int(x[i])``)
    checked where it runs against ``result``'s range: numpy 2 raises OverflowError where a
    Python int does not fit the integer dtype it meets (``x_int32 + 2**40``, ``x_uint8[i] + s``
    with ``s = -1``, ``x_int8[i] + i`` from ``i = 128``); the check is 0 and leaves the value as
    it is.  ``node``: where the operation is written, named in the error."""
    if result.weak or result.dtype not in INTS or result.dtype == "int64":
        return operands
    where = "" if node is None else located(lifter, node)
    return tuple(_checked_int(operand, result.dtype, where) if _runtime_python_int(operand) else operand
                 for operand in operands)


def _python_message(operation) -> str:
    """The message this Python's ZeroDivisionError of ``operation`` has (they differ by version)."""
    try:
        operation()
    except ZeroDivisionError as error:
        return str(error)
    raise AssertionError("no ZeroDivisionError")


#: Python's ZeroDivisionError messages: true division of two ints, of a float; a float's // and %;
#: an int's // and % (ov50)
_DIVISION_MESSAGES = {("/", True): _python_message(lambda: 1 / 0), ("/", False): _python_message(lambda: 1.0 / 0.0),
                      ("//", False): _python_message(lambda: 1.0 // 0.0), ("%", False): _python_message(lambda: 1.0 % 0.0),
                      ("//", True): _python_message(lambda: 1 // 0), ("%", True): _python_message(lambda: 1 % 0)}
#: the builtin divmod's of floats (an int's is its ``//``'s: frontend.desugar makes ``(a // b, a % b)``)
_DIVMOD_MESSAGE = _python_message(lambda: divmod(1.0, 0.0))


def division_checked(lifter, symbol: str, lhs: ir.Expr, rhs: ir.Expr, divisor: ir.Expr, node: ast.AST,
                     nonzero: Callable[[], bool] | None = None) -> ir.Expr:
    """``divisor`` (``rhs`` converted to the result's dtype) with Python's check where ``lhs symbol
    rhs`` divides two Python numbers: a true division, a float's ``//`` / ``%``, by zero (-0.0
    too), and two Python ints' ``//`` / ``%`` by 0, raise ZeroDivisionError as CPython does (where
    either is a NumPy number NumPy gives inf, NaN or 0, unchecked).  The check is 0 (a select of
    ``d`` either way after it).  Not checked: a nonzero literal divisor, ``1.0 + math.exp(-x)``,
    and an int divisor ``nonzero`` proves never 0 (isl, over the statement's domain: ``i + 1``
    for ``i`` in ``range(n)``)."""
    ints = divisor.dtype in INTS and symbol in ("//", "%")
    key = (symbol, ints or symbol == "/" and lhs.dtype not in FLOATS and rhs.dtype not in FLOATS)
    if not (lhs.weak and rhs.weak) or not (ints or divisor.dtype in FLOATS) or key not in _DIVISION_MESSAGES:
        return divisor
    if surely_nonzero(divisor):  # x / 2.0, 1.0 / (1.0 + math.exp(-x)), i // 3: no check
        return divisor
    if ints and nonzero is not None and nonzero():  # 7 // (i + 1) for i >= 0
        return divisor
    zero = ir.Compare("==", divisor, ir.Const(0 if ints else 0.0, divisor.dtype, True))
    message = _DIVMOD_MESSAGE if not ints and location_key(node) in lifter.source.divmods else _DIVISION_MESSAGES[key]
    return _checked(lifter, divisor, zero, message, node)  # (divisor is weak: both operands are Python's)


#: Python's ZeroDivisionError of 0 to a negative power (ints and floats alike)
_POWER_MESSAGE = _python_message(lambda: 0.0 ** -1.0)
_INT_KINDS = (1, 3)  # the kinds (frontend.returns python_kind) of a Python int and bool


def kind_checked(lifter, symbol: str, base: ir.Expr, divisor: ir.Expr, kinds: tuple[ir.Expr, ir.Expr],
                 node: ast.AST) -> ir.Expr:
    """``divisor`` (the right operand of ``base symbol divisor``, both converted to the result's
    dtype) with Python's ZeroDivisionError where both operands hold Python numbers where it runs,
    as ``kinds`` say (each 0 for a NumPy scalar, 1 to 4 a Python int, float, bool, complex: a
    constant, or a flagged local's flag, frontend.returns ``inherited_flag``): ``s / w`` of ``s =
    0`` then ``s += x[k]`` for ``k`` in ``range(w)`` is Python's ``0 / 0`` for ``w == 0``, NumPy's
    nan only where the loop ran.  ``/``, ``//``, ``%`` by zero (the message of two ints where
    both are ints or bools), and ``**`` of 0 by a negative exponent (not ``-inf``: Python gives
    inf).  ``divisor`` itself where ``symbol`` raises no ZeroDivisionError."""
    python = _all(_kind_test(kind, (0,), False) for kind in kinds)
    if python is False or symbol not in ("/", "//", "%", "**") or divisor.dtype not in INTS + FLOATS:
        return divisor
    if symbol == "**":
        if base.dtype not in FLOATS or surely_nonzero(base) or not negative_power(divisor):
            return divisor
        negative = ir.BoolOp("and", (ir.Compare("<", divisor, ir.Const(0.0, divisor.dtype, True)),
                                     ir.Compare("!=", divisor, ir.Const(-math.inf, divisor.dtype, True))))
        fails = _all((python, ir.Compare("==", base, ir.Const(0.0, base.dtype, True)), negative))
        return _checked(lifter, divisor, fails, _POWER_MESSAGE, node)
    zero = ir.Compare("==", divisor, ir.Const(0 if divisor.dtype in INTS else 0.0, divisor.dtype, True))
    ints = _all(_kind_test(kind, _INT_KINDS, True) for kind in kinds)
    if symbol == "/" or divisor.dtype in FLOATS:  # (a float's // and % have their own words)
        floats = _all((python, zero, _not(ints)))
        message = _DIVMOD_MESSAGE if location_key(node) in lifter.source.divmods else _DIVISION_MESSAGES[(symbol, False)]
        divisor = _checked(lifter, divisor, floats, message, node)
    return _checked(lifter, divisor, _all((python, zero, ints)), _DIVISION_MESSAGES[(symbol, True)], node)


_COMPLEX_DIVISION_MESSAGE = _python_message(lambda: 1j / 0)
_COMPLEX_POWER_MESSAGE = _python_message(lambda: 0j ** -1.0)
_PYTHON_KINDS = (1, 2, 3, 4)  # frontend.returns python_kind: a Python int, float, bool, complex


def complex_checked(lifter, symbol: str, base: ir.Expr, right: ir.Expr, kinds: tuple[ir.Expr | None, ir.Expr | None],
                    float64_right: bool, node: ast.AST) -> ir.Expr:
    """``base`` (the left operand of a complex ``/`` or ``**``, both converted to the complex
    result) with CPython's ZeroDivisionError where Python's complex computes it (``kinds``: each
    operand's, None where NumPy's on every path): two Python numbers, or a Python complex before an
    np.float64 (``float64_right``), a float subclass that complex takes first (frontend.types
    ``complex_result``).  ``/`` by 0, and 0 to a negative or complex power (``0j ** -1``, ``0j **
    1j``; ``0j ** 0j`` is 1); NumPy's inf/nan elsewhere."""
    lhs_kind, rhs_kind = kinds
    if lhs_kind is None:
        return base
    by_python = False if rhs_kind is None else _kind_test(rhs_kind, _PYTHON_KINDS, True)
    by_float64 = float64_right and _kind_test(lhs_kind, (4,), True)
    python = _all((_kind_test(lhs_kind, _PYTHON_KINDS, True), _any((by_python, by_float64))))
    zero = ir.complex_const(0j, base.dtype, True)
    if symbol == "/":
        return _checked(lifter, base, _all((python, ir.Compare("==", right, zero))), _COMPLEX_DIVISION_MESSAGE, node)
    part, real_zero = ir.COMPONENT[base.dtype], ir.Const(0.0, ir.COMPONENT[base.dtype], True)
    real, imag = (ir.Call(which, (right,), part, True) for which in ("real", "imag"))
    refused = ir.BoolOp("or", (ir.Compare("<", real, real_zero), ir.Compare("!=", imag, real_zero)))
    return _checked(lifter, base, _all((python, ir.Compare("==", base, zero), refused)), _COMPLEX_POWER_MESSAGE, node)


def negative_power(exponent: ir.Expr) -> bool:
    """May ``exponent`` be one that Python refuses for a base 0 (negative, not ``-inf``): any but
    a literal (``x ** 2``, ``s ** 0.5``: never)."""
    value = _any_literal(exponent)
    return value is None or value < 0 and value != -math.inf


def _any_literal(expr: ir.Expr) -> int | float | None:
    """The value of a literal, converted to a dtype or not (``np.float64(2.0)`` of ``x[i] ** 2``)."""
    if isinstance(expr, ir.Cast):
        return _any_literal(expr.operand)
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        inner = _any_literal(expr.operand)
        return None if inner is None else -inner
    return expr.value if isinstance(expr, ir.Const) and isinstance(expr.value, (int, float)) else None


Test = ir.Expr | bool  # a condition, or one known when compiling


def _kind_test(kind: ir.Expr, values: tuple[int, ...], among: bool) -> Test:
    """Whether ``kind`` is (``among``) or is not one of ``values``; a bool where it is a constant."""
    if isinstance(kind, ir.Const):
        return (int(kind.value) in values) == among
    tests = tuple(ir.Compare("==" if among else "!=", kind, ir.Const(v, kind.dtype, False)) for v in values)
    return tests[0] if len(tests) == 1 else ir.BoolOp("or" if among else "and", tests)


def _all(tests) -> Test:
    """The conjunction of ``tests``, folded where some are known."""
    parts = []
    for test in tests:
        if test is False:
            return False
        if test is not True:
            parts.append(test)
    return True if not parts else parts[0] if len(parts) == 1 else ir.BoolOp("and", tuple(parts))


def _any(tests) -> Test:
    """The disjunction of ``tests``, folded where some are known."""
    parts = []
    for test in tests:
        if test is True:
            return True
        if test is not False:
            parts.append(test)
    return False if not parts else parts[0] if len(parts) == 1 else ir.BoolOp("or", tuple(parts))


def _not(test: Test) -> Test:
    return not test if isinstance(test, bool) else ir.Compare("==", test, ir.Const(False, "bool", False))


def _checked(lifter, value: ir.Expr, fails: Test, message: str, node: ast.AST) -> ir.Expr:
    """``value`` with a ZeroDivisionError raised where ``fails`` holds: a select of ``value``
    either way after the check (the python target's Python float stays one, where ``d -
    np.float64(0)`` would make it a NumPy float, whose ``** 1000`` gives inf, not OverflowError)."""
    if fails is False:
        return value
    failed = ir.int_const(1) if fails is True else ir.Select(fails, ir.int_const(1), ir.int_const(0), ir.INT, True)
    flag = ir.Check(failed, ir.int_const(1), "", 0, message=message + located(lifter, node), error="ZeroDivisionError")
    return ir.Select(ir.Compare("==", flag, ir.int_const(0)), value, value, value.dtype, value.weak)


def located(lifter, node: ast.AST) -> str:
    """``node``'s place in the user's file, as an error shows it (a line, then the source)."""
    span = lifter.source.span(node)
    return f"\n{span.render()}"


def exact_extreme(name: str, lhs: ir.Expr, rhs: ir.Expr, common: VType, where: str = "") -> ir.Expr | None:
    """``min(x_int32[i], s)`` / ``max(...)`` of a Python int that may not fit ``common``, the
    integer dtype NEP 50 gives: Python compares by value and returns the operand it chose, so
    compute in int64 (exact) and check the choice fits (a Python int outside ``common`` raises
    OverflowError where it then meets the dtype; the element always fits).  None: nothing to do
    (no such int; a literal that fits compares exactly in ``common``)."""
    if common.weak or common.dtype not in INTS or common.dtype in ("int64", "uint64"):
        return None
    info = np.iinfo(common.dtype)
    risky = False
    for operand in (lhs, rhs):
        if operand.weak and operand.dtype == "int64":
            value = _int_literal(operand)
            risky = risky or value is None or not info.min <= value <= info.max
    if not risky:
        return None
    wide = tuple(e if e.dtype == "int64" else ir.Cast(e, "int64", False) for e in (lhs, rhs))
    return _checked_int(ir.BinOp(name, wide[0], wide[1], "int64", True), common.dtype, where)


def _runtime_python_int(expr: ir.Expr) -> bool:
    """A Python int known only where it runs: every weak int64 value but a literal (the
    literals are refused when compiling, check_int_literals)."""
    return expr.weak and expr.dtype == "int64" and _int_literal(expr) is None


def _checked_int(expr: ir.Expr, dtype: str, where: str = "") -> ir.Expr:
    """``expr + check``: the check raises NumPy's OverflowError, with the value, where ``expr``
    is outside ``dtype``; it is 0 elsewhere (the value is never 0 where it fails, and the
    backends record the failing operand, ir.Check.VALUE)."""
    info = np.iinfo(dtype)
    low = ir.Compare("<", expr, ir.int_const(int(info.min)))
    outside: ir.Expr = low
    if info.max < np.iinfo(np.int64).max:
        outside = ir.BoolOp("or", (low, ir.Compare(">", expr, ir.int_const(int(info.max)))))
    failed = ir.Select(outside, _strong(expr), ir.int_const(0), ir.INT, False)
    flag = ir.Check(failed, ir.int_const(1), "", 0, message=f"Python integer {ir.Check.VALUE} out of bounds for "
                    f"{dtype}{where}", error="OverflowError")
    return ir.BinOp("+", expr, flag, "int64", True)


def _strong(expr: ir.Expr) -> ir.Expr:
    """A weak int64 expression's value as the strong int64 a Select of ints holds."""
    return ir.Cast(expr, "int64", False)


def surely_nonzero(expr: ir.Expr) -> bool:
    """Is ``expr`` nonzero for every input (NaN counts as nonzero: it is no division by zero)?  A
    nonzero literal, or a positive one plus a value that is never negative (rounding keeps the sum
    at least the literal)."""
    value = _number_literal(expr)
    if value is not None:
        return value != 0
    if isinstance(expr, ir.BinOp) and expr.op == "+":
        return any((_number_literal(a) or 0) > 0 and _never_negative(b)
                   for a, b in ((expr.lhs, expr.rhs), (expr.rhs, expr.lhs)))
    return isinstance(expr, ir.Cast) and expr.dtype in FLOATS and surely_nonzero(expr.operand)


def _never_negative(expr: ir.Expr) -> bool:
    """Is ``expr`` at least 0 or NaN for every input: ``exp``, ``sqrt``, ``abs``, ``x * x``, sums and
    products of such, a literal at least 0."""
    value = _number_literal(expr)
    if value is not None:
        return value >= 0
    if isinstance(expr, ir.Call):
        return expr.func in ("exp", "sqrt", "fabs", "absolute", "exp2")
    if isinstance(expr, ir.Unary):
        return expr.op in ("abs", "numpy_abs")
    if isinstance(expr, ir.BinOp) and expr.op in ("+", "*"):
        return expr.op == "*" and expr.lhs == expr.rhs or _never_negative(expr.lhs) and _never_negative(expr.rhs)
    return isinstance(expr, ir.Cast) and expr.dtype in FLOATS and _never_negative(expr.operand)


def _number_literal(expr: ir.Expr) -> int | float | None:
    """The value of a Python int or float literal, ``-2.0`` too."""
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        inner = _number_literal(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, ir.Const) and expr.weak and isinstance(expr.value, (int, float)):
        return expr.value
    return None


def _int_literal(expr: ir.Expr) -> int | None:
    """The value of a Python int literal, ``-1`` and ``~0`` too (Python computes them before numpy
    sees them)."""
    if isinstance(expr, ir.Unary) and expr.op in ("neg", "invert"):
        inner = _int_literal(expr.operand)
        return None if inner is None else -inner if expr.op == "neg" else ~inner
    if isinstance(expr, ir.Const) and expr.weak and expr.dtype == "int64":
        return int(expr.value)
    return None


def element_store_checked(lifter, value: ir.Expr, stored: ir.Expr, dtype: str, node: ast.AST) -> ir.Expr:
    """``stored`` (``value`` converted to ``dtype``) with NumPy 2's checks of one scalar assigned
    into one element (``y[i] = expr`` as the user wrote it): into a signed integer NumPy takes
    the scalar's Python int (a float truncated) and raises where it does not fit, where a NumPy
    integer into an unsigned one wraps as a cast does (``x_uint8[i] = np.int64(-1)`` is 255);
    a Python float raises into either (a Python int was checked before: range_checked).  The
    checks are 0 where the value fits and come first, so the python target raises before it
    converts; nothing is added where every value of ``value``'s dtype fits ``dtype``."""
    if dtype not in INTS or value.dtype not in INTS and value.dtype not in FLOATS:
        return stored
    signed = np.iinfo(dtype).min < 0
    if value.dtype in INTS:
        if not signed or value.weak or _fits(dtype, value.dtype):
            return stored
        flags = _int_store_checks(value, dtype, located(lifter, node))
    elif signed or value.weak:
        flags = _float_store_checks(value, dtype, located(lifter, node))
    else:
        return stored
    flag = functools.reduce(lambda a, b: ir.BinOp("+", a, b, "int64", True), flags)
    return ir.BinOp("+", ir.Cast(flag, dtype, False), stored, dtype, False)


def _fits(dtype: str, other: str) -> bool:
    """Does the integer dtype ``dtype`` hold every value of ``other``?"""
    mine, theirs = np.iinfo(dtype), np.iinfo(other)
    return mine.min <= theirs.min and theirs.max <= mine.max


def _int_store_checks(value: ir.Expr, dtype: str, where: str) -> list[ir.Expr]:
    """A NumPy integer into a signed ``dtype`` it may not fit: a uint64 above the int64 range is
    too large for NumPy's C long; any other value outside ``dtype`` is out of its bounds."""
    checks: list[ir.Expr] = []
    wide = value
    if value.dtype == "uint64":
        huge = ir.Compare(">", value, ir.Const(2**63 - 1, "uint64", False))
        checks.append(_flag(huge, "OverflowError", f"Python int too large to convert to C long{where}"))
        wide = ir.Select(huge, ir.Const(0, "uint64", False), value, "uint64", False)
    wide = wide if wide.dtype == "int64" else ir.Cast(wide, "int64", False)
    info = np.iinfo(dtype)
    outside: list[ir.Expr] = []
    if info.min > np.iinfo(np.int64).min:
        outside.append(ir.Compare("<", wide, ir.Const(int(info.min), "int64", False)))
    if info.max < np.iinfo(np.int64).max:
        outside.append(ir.Compare(">", wide, ir.Const(int(info.max), "int64", False)))
    if outside:
        failed = outside[0] if len(outside) == 1 else ir.BoolOp("or", tuple(outside))
        checks.append(_value_flag(failed, wide, dtype, where))
    return checks


def _float_store_checks(value: ir.Expr, dtype: str, where: str) -> list[ir.Expr]:
    """A float into an integer element as NumPy assigns it, ``int(v)`` first: NaN raises
    ValueError, an infinity and a value outside C long's range OverflowError, and a truncated
    value outside ``dtype`` OverflowError with the value (the four cases are disjoint)."""
    v = value if value.dtype == "float64" else ir.Cast(value, "float64", False)

    def number(x: float) -> ir.Const:
        return ir.Const(float(x), "float64", False)

    def cmp(op: str, x: float) -> ir.Compare:
        return ir.Compare(op, v, number(x))

    inf, edge = math.inf, float(2**63)
    top = float(2**64) if dtype == "uint64" else edge  # (uint64 takes a Python int up to 2**64)
    checks: list[ir.Check] = [_flag(ir.Compare("!=", v, v), "ValueError", f"cannot convert float NaN to integer{where}"),
              _flag(ir.BoolOp("or", (cmp("==", inf), cmp("==", -inf))), "OverflowError",
                    f"cannot convert float infinity to integer{where}"),
              _flag(ir.BoolOp("or", (ir.BoolOp("and", (cmp(">=", top), cmp("<", inf))),
                                     ir.BoolOp("and", (cmp("<", -edge), cmp(">", -inf))))),
                    "OverflowError", f"Python int too large to convert to C long{where}")]
    info = np.iinfo(dtype)
    low, high = float(int(info.min) - 1), float(int(info.max) + 1)  # exact in float64 below 64 bits
    outside: list[ir.Expr] = []
    if info.bits < 64 or info.min == 0:
        outside.append(ir.BoolOp("and", (cmp("<=", low), cmp(">=", -edge))))
    if info.bits < 64:
        outside.append(ir.BoolOp("and", (cmp(">=", high), cmp("<", edge))))
    if outside:
        failed = outside[0] if len(outside) == 1 else ir.BoolOp("or", tuple(outside))
        truncated = ir.Cast(ir.Select(failed, v, number(0.0), "float64", False), "int64", False)
        checks.append(_value_flag(failed, truncated, dtype, where))
    # where any of them fails: NaN, or outside the values that fit (ir.Check.guard)
    below = cmp("<=", low) if info.bits < 64 or info.min == 0 else cmp("<", -edge)
    above = cmp(">=", high) if info.bits < 64 else cmp(">=", top)
    guard = ir.BoolOp("or", (ir.Compare("!=", v, v), below, above))
    return [dataclasses.replace(check, guard=guard) for check in checks]


def _flag(failed: ir.Expr, error: str, message: str) -> ir.Check:
    """A check that raises ``error(message)`` where ``failed`` holds (its operand 1 there)."""
    operand = ir.Select(failed, ir.int_const(1), ir.int_const(0), ir.INT, True)
    return ir.Check(operand, ir.int_const(1), "", 0, message=message, error=error)


def _value_flag(failed: ir.Expr, wide: ir.Expr, dtype: str, where: str) -> ir.Check:
    """NumPy's *Python integer V out of bounds for dtype* where ``failed`` holds, V the int64
    ``wide`` (never 0 there)."""
    operand = ir.Select(failed, wide, ir.int_const(0), ir.INT, False)
    return ir.Check(operand, ir.int_const(1), "", 0, message=f"Python integer {ir.Check.VALUE} out of bounds for "
                    f"{dtype}{where}", error="OverflowError")
