"""Bools meet integers: every condition reaches the backends as a bool-typed IR expression.

isl's AST follows C, where a condition may be an integer: it writes a disjunct that always holds
as the literal ``1`` (``c0 >= 3 || 1``).  Translated as is, the LLVM backend got an ``or`` of an
``i1`` and an ``i64`` (regression a_llvm_operand_types, vendored in tests/end_to_end/regressions/).  The random part mixes bools into
arithmetic, comparisons, min/max and selects and compares every target with plain Python.
"""

from __future__ import annotations

import random

import islpy as isl
import numpy as np
import pytest

import polyfuse
from polyfuse.model import ir
from polyfuse.model.isl_expr import condition_from_isl, expr_from_isl
from tests.conftest import define


def _walk(expr: ir.Expr):
    yield expr
    for child in ir.children(expr):
        yield from _walk(child)


def test_isl_integer_literal_in_a_condition_becomes_a_bool():
    c0 = isl.AstExpr.from_id(isl.Id("c0"))
    three = isl.AstExpr.from_val(isl.Val(3))
    one = isl.AstExpr.from_val(isl.Val(1))
    cond = expr_from_isl(c0.ge(three).or_(one))
    assert isinstance(cond, ir.BoolOp)
    assert all(v.dtype == ir.BOOL for v in cond.values)
    assert cond.values[1] == ir.Const(True, ir.BOOL)
    assert condition_from_isl(one) == ir.Const(True, ir.BOOL)
    assert condition_from_isl(c0) == ir.Compare("!=", ir.Var("c0", ir.INT), ir.int_const(0))
    assert all(e.dtype == ir.BOOL for e in _walk(cond) if isinstance(e, (ir.BoolOp, ir.Compare)))


_BOOLS = ["(A[i] > 0.0)", "(i % 3 == 1)", "(B[i] <= A[i])", "(not (i > 2))", "((i > 1) and (A[i] < 0.5))",
          "((i == 0) or (B[i] > 0.0))"]
_GUARDS = ["i % 3 == 1", "(i > 1) and (i < n - 2)", "i != 2 or i == n - 1"]
# (numpy's bools, which the undecorated function sees, or on + and refuse unary minus: the
# shapes keep an int operand where Python and numpy agree)
_SHAPES = ["{b} + 2 * {c}", "{b} * 2 - {c}", "max({b}, {c})", "min({b}, i)", "abs({b} * 1 - {c})",
           "(1.5 if {b} else 0 - {c})", "({b} == {c}) + 0.25", "i * {c} - {b}", "({b} < {c}) * A[i]"]


def _program(seed: int) -> str:
    rng = random.Random(seed)
    expr = rng.choice(_SHAPES).format(b=rng.choice(_BOOLS), c=rng.choice(_BOOLS))
    guard = rng.choice(["", *(f"if {g}:\n            " for g in _GUARDS)])
    return f'''
def g(n, A, B, C):
    for i in range(n):
        {guard}C[i] = {expr}
'''


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("seed", range(12))
def test_bools_mixed_into_arithmetic(seed, target):
    fn = define(_program(seed))
    rng = np.random.default_rng(seed)
    n = 7
    A, B = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    C, C2 = np.zeros(n), np.zeros(n)
    fn(n, A, B, C)
    polyfuse.kernel(target=target)(fn)(n, A, B, C2)
    np.testing.assert_allclose(C2, C, rtol=1e-12, err_msg=_program(seed))
