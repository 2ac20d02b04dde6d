"""Expression rules of the CUDA backend: IR -> numba.cuda kernel source (Python text).

Like ``ir.to_python`` but for code that ``numba.cuda.jit`` compiles: ``math.*`` instead of numpy,
explicit ``numba`` casts wherever numba's typing would differ from numpy's (float32, int32: numba
widens small ints to int64), and device helper functions for the operators whose Python meaning
numba does not give on its own (``//``/``%`` by zero give 0 as in numpy, float ``floor``/``ceil``
stay floats, Python's ``min``/``max`` NaN behaviour, integer ``**`` with a negative exponent,
shifts by counts outside the dtype's width).

Names the generated code relies on: ``_cuda`` (numba.cuda), ``_nb`` (numba), ``_math`` (math),
``_INF``/``_NAN``; helper functions are emitted once per module from ``HELPERS``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from polyfuse.model import funcs, ir

NUMBA_TYPES = {"float64": "_nb.float64", "float32": "_nb.float32", "int64": "_nb.int64",
               "int32": "_nb.int32", "int16": "_nb.int16", "int8": "_nb.int8", "uint64": "_nb.uint64",
               "uint32": "_nb.uint32", "uint16": "_nb.uint16", "uint8": "_nb.uint8", "bool": "_nb.boolean"}
_WIDE = ("float64", "int64", "bool")  # numba's own result types; every other dtype is cast back
#: the ir.Check errors the device records (the others are refused): a Python int outside the dtype
#: it meets, and a Python number divided by zero (frontend/scalars.py division_checked)
DEVICE_CHECKS = ("OverflowError", "ZeroDivisionError")
#: and the one ValueError that is a value's own check, not an assert that later code relies on:
#: ``int(v)`` / a float stored into an integer element of NaN (frontend/scalars.py _float_store_checks)
DEVICE_VALUE_ERRORS = ("cannot convert float NaN to integer",)


def on_device(error: str, message: str | None) -> bool:
    """Does the device record this check (exprs._Check), where codegen refuses the others?"""
    return error in DEVICE_CHECKS or error == "ValueError" and (message or "").startswith(DEVICE_VALUE_ERRORS)
ERROR_CELL = "_pf_errors"  # a kernel parameter: two int64, the failed check's code and value
_BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32, "int64": 64, "uint64": 64}

HELPERS = {
    "_overflow": '''
@_cuda.jit(device=True)
def _overflow(errors, failed, code):
    """An OverflowError check (ir.Check): the first failure of a call records its code and
    value in ``errors``, which the host reads after the kernels (backends/cuda/codegen.py); 0."""
    if failed != 0:
        if _cuda.atomic.compare_and_swap(errors, 0, code) == 0:
            errors[1] = failed
    return failed - failed
''',
    "_ifloordiv": '''
@_cuda.jit(device=True)
def _ifloordiv(a, b):
    """Python int ``a // b``; by zero gives 0 (numpy)."""
    if b == 0:
        return a - a
    return a // b
''',
    "_imod": '''
@_cuda.jit(device=True)
def _imod(a, b):
    """Python int ``a % b`` (sign of b); by zero gives 0 (numpy)."""
    if b == 0:
        return a - a
    return a % b
''',
    "_ipow": '''
@_cuda.jit(device=True)
def _ipow(a, b):
    """Integer ``a ** b`` by repeated squaring; a negative exponent gives 0 (as the CPU backend)."""
    result = a - a + 1
    if b < 0:
        return result - 1
    while b > 0:
        if b & 1:
            result = result * a
        a = a * a
        b = b >> 1
    return result
''',
    "_ffloordiv": '''
@_cuda.jit(device=True)
def _ffloordiv(a, b):
    """Python float ``a // b`` as numpy's npy_divmod computes it: ``(a - fmod(a, b)) / b`` snapped
    to an integer (``1.0 // 0.1`` is 9.0, where ``floor(1.0 / 0.1)`` is 10.0; ``inf // 2.0`` is
    NaN); a zero ``b`` gives ``a / b``."""
    if b == 0:
        return a / b
    if a - a != 0:  # an infinite or NaN a: NaN (the simulator's math.fmod would raise)
        return a - a
    mod = _math.fmod(a, b)
    div = (a - mod) / b
    if mod != 0 and ((b < 0) != (mod < 0)):
        div = div - 1
    if div != 0:
        floored = _ffloor(div)
        if div - floored > 0.5:
            floored = floored + 1
        return floored
    return _math.copysign(div - div, a / b)
''',
    "_fmod": '''
@_cuda.jit(device=True)
def _fmod(a, b):
    """Python float ``a % b`` as numpy's npy_divmod: the result (a zero too) has the sign of b;
    an infinite or NaN ``a``, or a zero ``b``, gives NaN (the simulator's math.fmod would raise)."""
    if b == 0 or a - a != 0:
        return _math.nan
    m = _math.fmod(a, b)
    if m == 0:
        return _math.copysign(m, b)  # a zero remainder takes b's sign
    if (m < 0) != (b < 0):
        m = m + b
    return m
''',
    "_ffloor": '''
@_cuda.jit(device=True)
def _ffloor(x):
    """``floor`` that stays a float (numba's math.floor returns an int); NaN and inf pass through,
    and so does a zero's sign (``np.floor(-0.0)`` is -0.0; a floor has its argument's sign)."""
    if abs(x) < 4503599627370496.0:
        return _math.copysign(x - x + _math.floor(x), x)
    return x
''',
    "_fceil": '''
@_cuda.jit(device=True)
def _fceil(x):
    """``ceil`` that stays a float, with its argument's sign (``np.ceil(-0.5)`` is -0.0)."""
    if abs(x) < 4503599627370496.0:
        return _math.copysign(x - x + _math.ceil(x), x)
    return x
''',
    "_pmin": '''
@_cuda.jit(device=True)
def _pmin(a, b):
    """Python ``min(a, b)``: ``b if b < a else a`` (NaN handling as in Python)."""
    return b if b < a else a
''',
    "_pmax": '''
@_cuda.jit(device=True)
def _pmax(a, b):
    return b if b > a else a
''',
    "_shl": '''
@_cuda.jit(device=True)
def _shl(a, b, width):
    """numpy's ``a << b`` for a ``width``-bit dtype: 0 for counts outside [0, width) (LLVM's shl,
    which numba emits, is poison there).  Every return has the type of ``a << b``: a literal
    such as ``a - a - 1`` would unify uint64 with int64 into float64."""
    if b >= 0 and b < width:
        return a << b
    shifted = a << 1
    return shifted ^ shifted
''',
    "_shr": '''
@_cuda.jit(device=True)
def _shr(a, b, width):
    """numpy's ``a >> b``: the sign fill (-1 or 0; unsigned 0) for counts outside [0, width)."""
    if b >= 0 and b < width:
        return a >> b
    return (a >> (width - 1)) >> 1
''',
}
HELPERS.update({
    "_ftrunc": '''
@_cuda.jit(device=True)
def _ftrunc(x):
    """C ``trunc`` that stays a float with the sign of x (numba's math.trunc returns an int)."""
    if abs(x) < 4503599627370496.0:
        return _math.copysign(x - x + _math.trunc(x), x)
    return x
''',
    "_frint": '''
@_cuda.jit(device=True)
def _frint(x):
    """Round half to even, as C ``rint`` and ``np.rint``."""
    if not abs(x) < 4503599627370496.0:
        return x
    r = _ffloor(x)
    d = x - r
    if d > 0.5 or (d == 0.5 and _math.fmod(r, 2.0) != 0):
        r = r + 1
    return _math.copysign(r, x)
''',
    "_exp2": '''
@_cuda.jit(device=True)
def _exp2(x):
    """2 ** x as np.exp2: 0 below -1100 and -inf, inf above 1100 and inf, NaN kept (pow(2.0 + x - x, x)
    was NaN at infinities and pow(0, x) for |x| >= 2**53, where x + 2.0 - x loses the 2)."""
    if x < -1100.0:
        return 0.0
    if x > 1100.0:
        return _INF
    return _math.pow(2.0, x)
''',
    "_cbrt": '''
@_cuda.jit(device=True)
def _cbrt(x):
    """Cube root: pow of |x| and one Newton step (within a few ulp; NaN, inf and zeros exact)."""
    if x == 0 or not abs(x) < _INF:
        return x
    y = _math.pow(abs(x), 1.0 / 3.0)
    y = y - (y * y * y - abs(x)) / (3 * y * y)
    return _math.copysign(y, x)
''',
    "_npmaximum": '''
@_cuda.jit(device=True)
def _npmaximum(a, b):
    """``np.maximum``: NaN propagates."""
    if a != a or a > b:
        return a
    return b
''',
    "_npminimum": '''
@_cuda.jit(device=True)
def _npminimum(a, b):
    if a != a or a < b:
        return a
    return b
''',
    "_npfmax": '''
@_cuda.jit(device=True)
def _npfmax(a, b):
    """``np.fmax``: a NaN loses unless both are NaN."""
    if a >= b or b != b:
        return a
    return b
''',
    "_npfmin": '''
@_cuda.jit(device=True)
def _npfmin(a, b):
    if a <= b or b != b:
        return a
    return b
''',
    "_npsign": '''
@_cuda.jit(device=True)
def _npsign(x):
    """``np.sign`` of an integer: -1, 0 or 1 in x's type (floats: ``_npfsign``)."""
    if x > 0:
        return x - x + 1
    if x < 0:
        return x - x - 1
    if x == 0:
        return x - x
    return x
''',
    "_npfsign": '''
@_cuda.jit(device=True)
def _npfsign(x):
    """``np.sign`` of a float: -1.0 or 1.0, infinities included (``x - x + 1`` of an infinite ``x``
    is NaN), 0.0 for both zeros; NaN stays NaN. The caller narrows float32."""
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    if x == 0:
        return x - x
    return x
''',
    "_ifmod": '''
@_cuda.jit(device=True)
def _ifmod(a, b):
    """Integer C ``fmod`` (sign of a); by zero gives 0 (numpy)."""
    if b == 0:
        return a - a
    r = a % b
    if r != 0 and ((r < 0) != (a < 0)):
        r = r - b
    return r
''',
    "_nppower": '''
@_cuda.jit(device=True)
def _nppower(x, y):
    """``np.power``: an exponent of 0.5 takes numpy's sqrt fast path."""
    if y == 0.5:
        return _math.sqrt(x) if x >= 0 else _NAN
    return _math.pow(x, y)
''',
    "_logaddexp": '''
@_cuda.jit(device=True)
def _logaddexp(x, y):
    """numpy's npy_logaddexp."""
    if x == y:
        return x + 0.6931471805599453
    t = x - y
    if t > 0:
        return x + _math.log1p(_math.exp(-t))
    if t <= 0:
        return y + _math.log1p(_math.exp(t))
    return t
''',
    "_logaddexp2": '''
@_cuda.jit(device=True)
def _logaddexp2(x, y):
    """numpy's npy_logaddexp2."""
    if x == y:
        return x + 1.0
    t = x - y
    if t > 0:
        return x + 1.4426950408889634 * _math.log1p(_exp2(-t))
    if t <= 0:
        return y + 1.4426950408889634 * _math.log1p(_exp2(t))
    return t
''',
})
_HELPER_DEPS = {"_ffloordiv": ("_ffloor",), "_frint": ("_ffloor",), "_logaddexp2": ("_exp2",)}
_CALL_HELPERS = {"floor": "_ffloor", "ceil": "_fceil", "trunc": "_ftrunc", "rint": "_frint", "exp2": "_exp2",
                 "cbrt": "_cbrt", "maximum": "_npmaximum", "minimum": "_npminimum", "fmax": "_npfmax",
                 "fmin": "_npfmin", "sign": "_npsign", "logaddexp": "_logaddexp",
                 "logaddexp2": "_logaddexp2"}


def helper_source(names: set[str]) -> str:
    """Source of the helpers ``names`` (and what they call), in a stable order."""
    wanted = set(names)
    for name in list(names):
        wanted.update(_HELPER_DEPS.get(name, ()))
    return "".join(HELPERS[n] for n in HELPERS if n in wanted)


def is_float(dtype: str) -> bool:
    return dtype.startswith("float")


class ExprRenderer:
    """Renders IR expressions; ``cells`` are local scalars kept in 1-element device arrays,
    ``registers`` local scalars kept in kernel variables (one per thread)."""

    def __init__(self, cells: set[str], registers: set[str],
                 checks: tuple[tuple[str, str | None], ...] = ()) -> None:
        self.cells = cells
        self.registers = registers
        self.checks = checks  # the OverflowError checks' (error, message), by code - 1
        self.helpers: set[str] = set()
        # accesses the current statement reads from a promoted copy: (array, index) -> renders
        # the copy's access from the rendered subscripts (set per statement by the code generator)
        self.redirect: dict[tuple[str, tuple], Callable[[list[str]], str]] = {}

    def render(self, expr: ir.Expr) -> str:
        return getattr(self, f"_{type(expr).__name__}")(expr)

    def cast(self, text: str, dtype: str) -> str:
        return f"{NUMBA_TYPES[dtype]}({text})"

    def _narrow(self, text: str, dtype: str) -> str:
        """Keep float32/int32 results at their width (numba would widen some of them)."""
        return text if dtype in _WIDE else self.cast(text, dtype)

    # ---- leaves ----------------------------------------------------------------------------
    def _Const(self, e: ir.Const) -> str:
        if e.dtype == "bool":
            return "True" if e.value else "False"
        if is_float(e.dtype):
            value = float(e.value)
            text = "_NAN" if math.isnan(value) else ("_INF" if value == math.inf else
                                                     "(-_INF)" if value == -math.inf else repr(value))
        else:
            text = repr(int(e.value))
        return text if e.dtype in _WIDE else self.cast(text, e.dtype)

    def _Var(self, e: ir.Var) -> str:
        return f"{e.name}[0]" if e.name in self.cells else e.name

    def _Load(self, e: ir.Load) -> str:
        return self.access(e.array, e.index)

    def _Check(self, e: ir.Check) -> str:
        """Only the OverflowError check of a Python int meeting a narrower integer dtype reaches
        here, and Python's ZeroDivisionError of two Python numbers (codegen refuses the others): 0,
        its first failure recorded in the error cell, which the host raises after the kernels (the
        value may be another thread's than Python's first)."""
        assert on_device(e.error, e.message), e
        self.helpers.add("_overflow")
        code = 1 + self.checks.index((e.error, e.message))
        return f"_overflow({ERROR_CELL}, {self.render(e.operand)}, {code})"

    def access(self, array: str, index: tuple[ir.Expr, ...]) -> str:
        if not index:
            return array if array in self.registers else f"{array}[0]"
        subscripts = [self.render(i) for i in index]
        promoted = self.redirect.get((array, index))
        if promoted is not None:
            return promoted(subscripts)
        return f"{array}[{', '.join(subscripts)}]"

    # ---- operators -------------------------------------------------------------------------
    def _BinOp(self, e: ir.BinOp) -> str:
        a, b = self.render(e.lhs), self.render(e.rhs)
        floating = is_float(e.dtype)
        if e.op in ("+", "-", "*", "/"):
            text = f"({a} {e.op} {b})"
        elif e.op == "**":
            if floating:
                text = f"_math.pow({a}, {b})"
            else:
                text = self._helper("_ipow", a, b)
        elif e.op == "//":
            text = self._helper("_ffloordiv" if floating else "_ifloordiv", a, b)
        elif e.op == "%":
            text = self._helper("_fmod" if floating else "_imod", a, b)
        elif e.op in ("min", "max"):
            text = self._helper(f"_p{e.op}", a, b)
        elif e.op in ("&", "|", "^"):
            text = f"({a} {e.op} {b})"
        elif e.op in ("<<", ">>"):
            text = self._helper("_shl" if e.op == "<<" else "_shr", a, b, str(_BITS[e.dtype]))
        else:  # pragma: no cover - the frontend has no other operators
            raise NotImplementedError(e.op)
        return self._narrow(text, e.dtype)

    def _helper(self, name: str, *args: str) -> str:
        self.helpers.add(name)
        return f"{name}({', '.join(args)})"

    def _Unary(self, e: ir.Unary) -> str:
        value = self.render(e.operand)
        if e.op == "not":
            return f"(not {value})"
        text = {"neg": f"(-{value})", "invert": f"(~{value})"}.get(e.op, f"abs({value})")
        return self._narrow(text, e.dtype)

    def _Compare(self, e: ir.Compare) -> str:
        return f"({self.render(e.lhs)} {e.op} {self.render(e.rhs)})"

    def _BoolOp(self, e: ir.BoolOp) -> str:
        return "(" + f" {e.op} ".join(self.render(v) for v in e.values) + ")"

    def _Select(self, e: ir.Select) -> str:
        return f"({self.render(e.then)} if {self.render(e.cond)} else {self.render(e.otherwise)})"

    def _Call(self, e: ir.Call) -> str:
        args = [self.render(a) for a in e.args]
        kind = e.args[0].dtype
        if e.func == "pow" and e.lib == "np":  # of integers NumPy's integer power, wrapping
            text = self._helper("_nppower" if is_float(e.dtype) else "_ipow", *args)
        elif e.func == "fmod" and not is_float(kind):
            text = self._helper("_ifmod", *args)
        elif e.func == "sign" and is_float(kind):
            text = self._helper("_npfsign", *args)
        elif e.func in _CALL_HELPERS:
            text = self._helper(_CALL_HELPERS[e.func], *args)
        else:
            text = f"_math.{funcs.math_name(e.func)}({', '.join(args)})"
        return self._narrow(text, e.dtype)

    def _Cast(self, e: ir.Cast) -> str:
        value = self.render(e.operand)
        if e.operand.dtype == e.dtype:
            return value
        if e.dtype == "bool":
            return f"({value} != 0)"
        if e.operand.dtype == "int64" and e.dtype in _BITS:  # a C cast, which wraps (the simulator's
            value = self.cast(value, "int64")                # np.int8(300) of a Python int raises)
        return self.cast(value, e.dtype)
