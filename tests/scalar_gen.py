"""Random scalar-expression kernels (cp36): what program_gen.py's affine programs leave out.

``expression_kernel(rng, per)`` writes ``def kern(X, Y, X2, Y2, I, J, F32, out, n)``: one loop over
the elements, and ``out[k, c] = <expr>`` for ``per`` random expressions that mix Python and NumPy
scalars of float64, float32 and int64 with ``+ - * / // % **``, ``& | ^ >>`` of integers, floor
division and modulo of negatives (integers and floats), ``math.*`` and ``np.*`` functions of one
and two arguments, ``min``/``max``/``abs``/``round``/``int``/``float``, and ``a if c else b``.
The inputs hold the special values: ``inf``, ``-inf``, NaN, ``-0.0``, a subnormal, ``1e300``,
halves (for rounding), large and negative integers.

``make_inputs(rng, m, finite=False)`` draws those inputs.  An expression is kept only where the
plain function evaluates it on every element without raising (``math.log(0.0)`` raises
ValueError in Python) and gives a real number that fits int64, so every kept expression has a
defined answer to compare with; ``finite=True`` (the CUDA simulator, whose integer conversions of
NaN are undefined on a GPU) keeps only finite inputs and results.
"""

from __future__ import annotations

import math
import random
import warnings

import numpy as np

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25, -7.25, 1e300, -1e-310, math.inf, -math.inf,
           math.nan, 2.5, -3.5, 1e-5, 100.0]
HALVES = [0.5, -0.5, 2.5, -2.5, 1.5, -1.5, 3.7, -3.7, 0.0, -0.0, 1e10]
INTS = [0, 1, -1, 2, -2, 3, -7, 7, 13, -13, 100, -100, 2**40, -(2**40)]
PARAMS = "X, Y, X2, Y2, I, J, F32"
N = 5  # the kernel's int argument

UNARY = ["math.floor({})", "math.ceil({})", "math.trunc({})", "abs({})", "math.fabs({})",
         "math.sqrt({})", "math.exp({})", "math.log({})", "math.log1p({})", "math.expm1({})",
         "math.sin({})", "math.cos({})", "math.tanh({})", "math.atan({})", "math.copysign(1.0, {})",
         "int({})", "round({})", "float({})", "(-{})", "math.isnan({})", "math.isinf({})",
         "math.isfinite({})", "np.sign({})", "np.floor({})", "np.abs({})", "np.sqrt({})", "np.exp({})",
         "np.log({})", "np.tanh({})", "np.expm1({})", "np.rint({})", "math.erf({})", "math.cbrt({})",
         "np.isnan({})", "math.gamma({})", "math.lgamma({})", "math.asinh({})"]
BINARY = ["max({}, {})", "min({}, {})", "math.fmod({}, {})", "math.atan2({}, {})", "math.hypot({}, {})",
          "math.copysign({}, {})", "math.pow({}, {})", "np.maximum({}, {})", "np.minimum({}, {})",
          "np.fmax({}, {})", "np.fmin({}, {})", "({} if {} > 0 else 1.0)", "np.arctan2({}, {})",
          "math.remainder({}, {})", "np.fmod({}, {})", "np.copysign({}, {})", "np.hypot({}, {})",
          "np.power({}, {})", "np.logaddexp({}, {})"]
FLOAT_OPS = ["+", "-", "*", "/", "//", "%", "**"]
INT_OPS = ["+", "-", "*", "//", "%", "//", "%", "&", ">>", "|", "^"]


def _leaf(r: random.Random, kind: str) -> str:
    if kind == "f":
        return r.choice(["X[k]", "Y[k]", "X[k]", "Y[k]", repr(r.choice([0.5, -1.5, 2.0, -0.0, 3.0])),
                         "float(I[k])", "F32[k]"])
    return r.choice(["I[k]", "J[k]", "I[k]", "k", "(k - 5)", str(r.choice([-3, -1, 2, 3, 5, -7])), "n"])


def _int_expr(r: random.Random, depth: int) -> str:
    c = r.random()
    if c < 0.5:
        op = r.choice(INT_OPS)
        a = expression(r, depth - 1, "i")
        if op in ("//", "%"):  # J holds no zero: Python ints raise ZeroDivisionError
            b = r.choice(["J[k]", str(r.choice([-3, 2, 3, -7, 5, -1])), "(abs(J[k]) + 1)", "n"])
        elif op == ">>":
            b = str(r.choice([1, 2, 5]))
        else:
            b = expression(r, depth - 1, "i")
        return f"({a} {op} {b})"
    if c < 0.7:
        form = r.choice(["abs({})", "min({}, 3)", "max({}, -2)", "(-{})", "np.int32({})", "int({})"])
        return form.format(expression(r, depth - 1, "i"))
    if c < 0.9:  # rounding to an integer of a finite float: halves, ties
        form = r.choice(["math.floor({})", "math.ceil({})", "int({})", "round({})", "math.trunc({})"])
        return form.format(f"({expression(r, depth - 1, 'f')} * 0 + {r.choice(['X2[k]', 'Y2[k]'])})")
    return (f"({expression(r, depth - 1, 'i')} if {expression(r, depth - 1, 'f')} < "
            f"{expression(r, depth - 1, 'i')} else {expression(r, depth - 1, 'i')})")


def expression(r: random.Random, depth: int, kind: str) -> str:
    """A random expression of ``kind`` ``'f'`` (float-ish) or ``'i'`` (integer)."""
    if depth <= 0 or r.random() < 0.25:
        return _leaf(r, kind)
    if kind == "i":
        return _int_expr(r, depth)
    c = r.random()
    if c < 0.4:
        op = r.choice(FLOAT_OPS)
        a = expression(r, depth - 1, r.choice("ffi"))
        b = expression(r, depth - 1, r.choice("ffi"))
        if op == "**":
            b = r.choice(["2", "3", "0.5", "-1", "2.0", "-2", "0", "(-0.5)", "Y[k]"])
        return f"({a} {op} {b})"
    if c < 0.75:
        return r.choice(UNARY).format(expression(r, depth - 1, r.choice("ffi")))
    form = r.choice(BINARY)
    return form.format(*[expression(r, depth - 1, r.choice("ffi")) for _ in range(form.count("{}"))])


def make_inputs(r: random.Random, m: int, finite: bool = False) -> tuple[np.ndarray, ...]:
    special = [v for v in SPECIAL if math.isfinite(v) and abs(v) < 1e200] if finite else SPECIAL
    with np.errstate(all="ignore"):
        return (np.array([r.choice(special) for _ in range(m)]),
                np.array([r.choice(special) for _ in range(m)]),
                np.array([r.choice(HALVES) for _ in range(m)]),
                np.array([r.uniform(-10, 10) for _ in range(m)]),
                np.array([r.choice(INTS) for _ in range(m)], dtype=np.int64),
                np.array([r.choice([v for v in INTS if v != 0]) for _ in range(m)], dtype=np.int64),
                np.array([r.choice(special) for _ in range(m)], dtype=np.float32))


def defined(expr: str, inputs: tuple[np.ndarray, ...], finite: bool = False) -> bool:
    """Whether the plain function gives a real number (fitting int64) for ``expr`` at every element."""
    fn = eval(f"lambda {PARAMS}, n, k: {expr}", {"np": np, "math": math})  # noqa: S307 - our own text
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for k in range(len(inputs[0])):
            try:
                v = fn(*inputs, N, k)
            except Exception:  # noqa: BLE001 - math.log(0.0), int(nan), ...: no answer to compare
                return False
            if isinstance(v, (complex, np.ndarray)) or np.iscomplexobj(v):
                return False
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**62:
                return False
            if finite and not np.isfinite(v):
                return False
    return True


def expression_kernel(r: random.Random, per: int, inputs, finite: bool = False) -> list[str]:
    """``per`` expressions (fewer if the draws keep failing) defined at every element of ``inputs``."""
    kept: list[str] = []
    for _ in range(20 * per):
        if len(kept) == per:
            break
        e = expression(r, r.randint(1, 3), r.choice("ffi"))
        if defined(e, inputs, finite):
            kept.append(e)
    return kept


def kernel_source(exprs: list[str]) -> str:
    body = "".join(f"        out[k, {c}] = {e}\n" for c, e in enumerate(exprs))
    return f"def kern({PARAMS}, out, n):\n    for k in range(X.shape[0]):\n{body}"


def same_column(expected: np.ndarray, actual: np.ndarray, rtol: float, zero_signs: bool = True) -> np.ndarray:
    """Per element: equal, both NaN, or within ``rtol``; a zero's sign must match too, unless
    ``zero_signs`` is False."""
    with np.errstate(all="ignore"):
        close = (expected == actual) | (np.isnan(expected) & np.isnan(actual)) | (
            np.abs(expected - actual) <= rtol * np.maximum(np.abs(expected), np.abs(actual)))
        signs = (np.signbit(expected) == np.signbit(actual)) | (expected != 0) | np.isnan(expected)
    return close & (signs if zero_signs else True)


def zero_signs(expr: str) -> bool:
    """Whether the sign of a zero result is defined: NumPy's own ``np.fmax(0.0, -0.0)`` is 0.0 for
    float64 scalars and -0.0 for float32 scalars and long arrays (SIMD), so the sign of equal
    zeros out of ``fmax``/``fmin`` is not compared."""
    return not any(f in expr for f in ("np.fmax", "np.fmin"))


def tolerance(expr: str) -> float:
    """float32 values and transcendentals (vector math within a few ulp of libm) get 1e-6."""
    return 1e-6 if any(s in expr for s in ("F32", "math.", "np.")) else 1e-13
