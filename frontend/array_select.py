"""``np.select(condlist, choicelist, default=0)`` (part of frontend.arrays' lowering, fe32).

The conditions and choices are list (or tuple) displays of one length, not empty; each condition
a boolean value (NumPy refuses others with TypeError).  NumPy's result dtype is ``result_type``
of the choices and the default, Python ``int``/``float``/``complex`` numbers weak and everything
else as ``np.asarray`` makes it (NumPy's own rule in ``np.select``); every element is the first
choice whose condition holds, else the default, all broadcast together: ``np.where(c1, v1,
np.where(c2, v2, ..., default))`` element by element with each value converted to that dtype
first (NumPy's ``np.full`` and ``np.copyto`` casts).  NumPy makes a Python int an int64 array
before it converts it (``np.broadcast_arrays``): into a narrower integer result the default
wraps (``np.full`` casts unsafely: 256 into uint8 is 0), a choice wraps into a signed result
and is NumPy's TypeError into an unsigned one (``np.copyto``'s ``same_kind`` casting), refused.
"""

from __future__ import annotations

import ast

import numpy as np

from .arrays import NP_NAME, UNKNOWN, Lowering, View
from .scalars import SUPPORTED
from .types import INTS, VType


def select(lw: Lowering, node: ast.Call) -> View:
    names = ("condlist", "choicelist", "default")
    if len(node.args) > 3:
        raise lw.error(node, "np.select() with more arguments than condlist, choicelist, default", "np.select")
    given: dict[str, ast.expr] = dict(zip(names, node.args))
    for kw in node.keywords:
        if kw.arg not in names or kw.arg in given:
            raise lw.error(node, f"np.select() with {kw.arg}= is not supported", "np.select")
        given[str(kw.arg)] = kw.value
    conds, choices = given.get("condlist"), given.get("choicelist")
    if not isinstance(conds, (ast.List, ast.Tuple)) or not isinstance(choices, (ast.List, ast.Tuple)) \
            or len(conds.elts) != len(choices.elts) or not conds.elts:
        raise lw.error(node, "np.select() of other than two list displays of one length, not empty "
                       "(np.select([c1, c2], [v1, v2], default))", "np.select")
    tests = [lw.value(c) for c in conds.elts]
    for part, test in zip(conds.elts, tests):
        if test.vtype.dtype != "bool":
            raise lw.error(part, "np.select() condition that is not boolean (NumPy raises TypeError)", "np.select")
    default = given.get("default", ast.Constant(0))
    values = [lw.value(v) for v in [*choices.elts, default]]
    if any(v.vtype == UNKNOWN for v in values):
        raise lw.error(node, "cannot tell the dtype of np.select()'s choices here", "np.select")
    if not any(v.rank for v in tests + values):
        raise lw.error(node, "np.select() of scalars alone (NumPy returns a 0-d array)", "np.select")
    dtype = np.result_type(*[_example(v.vtype) if v.rank == 0 else np.ones((), v.vtype.dtype) for v in values]).name
    if dtype not in SUPPORTED:
        raise lw.error(node, f"np.select() gives {dtype}, which polyfuse does not support", "np.select")
    wide = [dtype in INTS and dtype != "int64" and v.rank == 0 and v.vtype.weak and v.vtype.dtype == "int64"
            for v in values]  # Python ints, int64 arrays in NumPy's select
    for part, python_int in zip(choices.elts, wide):
        if python_int and dtype.startswith("uint"):
            raise lw.error(part, f"a Python int among np.select()'s choices of a {dtype} result (NumPy raises "
                           f"TypeError: it cannot cast int64 to {dtype} with casting='same_kind'); convert it "
                           "first", "np.select")
    cast = "bool_" if dtype == "bool" else dtype
    count = len(tests)

    def call(name: str, args: list[ast.expr]) -> ast.expr:
        return ast.Call(ast.Attribute(ast.Name(NP_NAME, ast.Load()), name, ast.Load()), args, [])

    def make(*elements: ast.expr) -> ast.expr:
        def converted(e: ast.expr, k: int) -> ast.expr:  # an int64 array's element casts, wrapping
            return call(cast, [call("int64", [e]) if wide[k] else e])
        result = converted(elements[-1], count)
        for k in reversed(range(count)):
            result = call("where", [elements[k], converted(elements[count + k], k), result])
        return result
    return lw.elementwise(make, tests + values, VType(dtype, False))


def _example(t: VType):
    if t.dtype == "bool":
        return np.bool_(True)  # (NumPy's select makes a Python bool an array: strong)
    if t.weak:
        return 1j if t.dtype.startswith("complex") else 1.0 if t.dtype.startswith("float") else 1
    return np.ones((), t.dtype)
