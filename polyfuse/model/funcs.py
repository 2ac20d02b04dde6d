"""The elementwise functions an ``ir.Call`` may name, and how each library spells them.

``Call.func`` is a canonical name (the C library's where there is one: ``asin``, ``atan2``,
``tgamma``); ``Call.lib`` says whose semantics apply: ``"np"`` (numpy: NaN and a warning on domain
errors, the argument's float width kept) or ``"math"`` (Python floats; raises on domain errors in
Python).  The frontend maps user spellings to canonical names with ``NP_NAMES``/``MATH_NAMES``;
the Python backend maps them back with ``np_name``/``math_name``; the LLVM backend calls the
libm function ``LIBM`` names (``f``-suffixed for float32) where it has no exact instruction.
"""

from __future__ import annotations

# numpy spelling -> canonical name (ufuncs that become ``ir.Call``)
NP_NAMES = {
    "sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan",
    "tanh": "tanh", "power": "pow", "pow": "pow", "floor": "floor", "ceil": "ceil", "fabs": "fabs",
    "trunc": "trunc", "rint": "rint", "log1p": "log1p", "expm1": "expm1", "log2": "log2",
    "log10": "log10", "exp2": "exp2", "sinh": "sinh", "cosh": "cosh", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
    "asin": "asin", "acos": "acos", "atan": "atan", "asinh": "asinh", "acosh": "acosh",
    "atanh": "atanh", "arctan2": "atan2", "atan2": "atan2", "hypot": "hypot", "copysign": "copysign",
    "fmod": "fmod", "cbrt": "cbrt", "maximum": "maximum", "minimum": "minimum", "fmax": "fmax",
    "fmin": "fmin", "sign": "sign", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "logaddexp": "logaddexp",
    "logaddexp2": "logaddexp2",
}

# math spelling -> canonical name
MATH_NAMES = {
    "sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan",
    "tanh": "tanh", "pow": "pow", "floor": "floor", "ceil": "ceil", "fabs": "fabs", "trunc": "trunc",
    "log1p": "log1p", "expm1": "expm1", "log2": "log2", "log10": "log10", "exp2": "exp2",
    "sinh": "sinh", "cosh": "cosh", "asin": "asin", "acos": "acos", "atan": "atan", "asinh": "asinh",
    "acosh": "acosh", "atanh": "atanh", "atan2": "atan2", "hypot": "hypot", "copysign": "copysign",
    "fmod": "fmod", "cbrt": "cbrt", "erf": "erf", "erfc": "erfc", "gamma": "tgamma",
    "lgamma": "lgamma", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
}

BINARY = frozenset({"pow", "atan2", "hypot", "copysign", "fmod", "maximum", "minimum", "fmax", "fmin",
                    "logaddexp", "logaddexp2"})
PREDICATES = frozenset({"isnan", "isinf", "isfinite"})

# canonical names the C library provides (the LLVM backend calls these, or an LLVM intrinsic)
LIBM = frozenset({
    "sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "pow", "floor", "ceil", "fabs", "trunc", "rint",
    "log1p", "expm1", "log2", "log10", "exp2", "sinh", "cosh", "asin", "acos", "atan", "asinh",
    "acosh", "atanh", "atan2", "hypot", "copysign", "fmod", "cbrt", "erf", "erfc", "tgamma", "lgamma",
})

# the one-argument functions the LLVM backend inlines as vectorizable arithmetic under vector_math
# (backends/cpu/vector_math.py); the loop-order pass splits them out of reduction loops
VECTOR_MATH = frozenset({"exp", "log", "tanh", "expm1", "log1p", "exp2", "log2", "log10", "sin", "cos",
                         "atan2", "erf", "tan", "sinh", "cosh", "atan", "asin", "acos", "asinh", "acosh",
                         "atanh", "cbrt", "erfc", "hypot"})

_NP_SPELLING = {"pow": "power", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
                "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2"}
_MATH_SPELLING = {"tgamma": "gamma"}


def np_name(func: str) -> str:
    return _NP_SPELLING.get(func, func)


def math_name(func: str) -> str:
    return _MATH_SPELLING.get(func, func)


def arity(func: str) -> int:
    return 2 if func in BINARY else 1
