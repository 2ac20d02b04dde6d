"""``a ** b`` of complex values whose exponent is not a constant integer (part of
``frontend.expressions``; constant integer exponents are numpy's binary powering, in the backends).

What the undecorated function computes depends on who computes it, so both are written out of
functions the backends already have:

- **numpy** (either side a numpy value: an array element, a numpy scalar): ``npy_cpow``, whose
  general case is the C library's ``cpow``, which glibc computes as ``cexp(b * clog(a))``; before
  it, ``b == 0`` gives ``1``, and a zero ``a`` gives ``0`` where ``b.real > 0`` and ``nan+nanj``
  otherwise.
- **Python** (two Python numbers: ``complex(x, y) ** 2.5``): CPython's ``_Py_c_pow``, in polar
  form from ``hypot``, ``pow``, ``atan2``, ``exp``, ``log``, ``cos`` and ``sin``; ``b == 0`` gives
  ``1``, a zero ``a`` gives ``0`` (where Python raises ``ZeroDivisionError``, for a complex ``b``
  or a negative one, compiled code gives ``0`` where ``b.real > 0`` and ``nan+nanj`` otherwise).

Both check for an exponent that is an integer only when it is a constant: numpy (for ``|n| < 100``)
and CPython (for ``|n| <= 100``) multiply out an integer exponent found at run time, where this
code takes the general formula, which agrees to within a few units in the last place.
"""

from __future__ import annotations

from polyfuse.model import ir

from .types import VType


def complex_power(a: ir.Expr, b: ir.Expr, exponent: ir.Expr, result: VType, *, python: bool) -> ir.Expr:
    """``a ** b`` with ``a`` and ``b`` of the complex type ``result`` (``exponent`` is ``b`` as
    written): CPython's algorithm where ``python`` (two Python numbers), numpy's otherwise.  A
    constant integer exponent in [-MAX_POWER, MAX_POWER] is left to the backends (numpy's binary
    powering)."""
    n = int_power(exponent)
    if n is not None:
        return ir.BinOp("**", a, ir.complex_const(n, result.dtype, result.weak), result.dtype, result.weak)
    c, part = result.dtype, ir.COMPONENT[result.dtype]
    ar, ai, br, bi = _parts(a, b, part, result.weak)
    zero = ir.Const(0.0, part, result.weak)
    b_zero = ir.BoolOp("and", (ir.Compare("==", br, zero), ir.Compare("==", bi, zero)))
    a_zero = ir.BoolOp("and", (ir.Compare("==", ar, zero), ir.Compare("==", ai, zero)))
    nan = float("nan")
    at_zero = ir.Select(ir.Compare(">", br, zero), ir.complex_const(0j, c, result.weak),
                        ir.complex_const(complex(nan, nan), c, result.weak), c, result.weak)
    general = _python_pow(ar, ai, br, bi, part, c) if python else _numpy_pow(a, b, c)
    return ir.Select(b_zero, ir.complex_const(1 + 0j, c, result.weak),
                     ir.Select(a_zero, at_zero, general, c, result.weak), c, result.weak)


def _parts(a: ir.Expr, b: ir.Expr, part: str, weak: bool) -> tuple[ir.Expr, ...]:
    return tuple(ir.Call(which, (z,), part, weak) for z in (a, b) for which in ("real", "imag"))


def _numpy_pow(a: ir.Expr, b: ir.Expr, c: str) -> ir.Expr:
    """glibc's ``cpow``: ``cexp(b * clog(a))``."""
    product = ir.BinOp("*", b, ir.Call("log", (a,), c, False, "np"), c, False)
    return ir.Call("exp", (product,), c, False, "np")


def _python_pow(ar: ir.Expr, ai: ir.Expr, br: ir.Expr, bi: ir.Expr, part: str, c: str) -> ir.Expr:
    """CPython's ``_Py_c_pow`` of two Python complex numbers (float64 parts, weak)."""
    def call(name: str, *args: ir.Expr) -> ir.Expr:
        return ir.Call(name, args, part, True, "math")

    def mul(x: ir.Expr, y: ir.Expr) -> ir.Expr:
        return ir.BinOp("*", x, y, part, True)

    zero = ir.Const(0.0, part, True)
    vabs = call("hypot", ar, ai)
    at = call("atan2", ai, ar)
    length = call("pow", vabs, br)
    phase = mul(at, br)
    has_imag = ir.Compare("!=", bi, zero)
    length = ir.Select(has_imag, ir.BinOp("/", length, call("exp", mul(at, bi)), part, True), length, part, True)
    phase = ir.Select(has_imag, ir.BinOp("+", phase, mul(bi, call("log", vabs)), part, True), phase, part, True)
    return ir.Call("complex", (mul(length, call("cos", phase)), mul(length, call("sin", phase))), c, True, "py")


MAX_POWER = 99  # numpy multiplies out integer powers below 100 (npy_cpow)


def int_power(expr: ir.Expr) -> int | None:
    """The value of a constant integer exponent (``2``, ``-3``, ``2.0``), or None."""
    if isinstance(expr, ir.Unary) and expr.op == "neg":
        inner = int_power(expr.operand)
        return None if inner is None else -inner
    value: complex | float | None = ir.complex_value(expr)
    if isinstance(value, complex):
        value = value.real if value.imag == 0 else None
    elif isinstance(expr, ir.Const) and not isinstance(expr.value, bool):
        value = expr.value
    if value is None or not float(value).is_integer() or abs(value) > MAX_POWER:
        return None
    return int(value)
