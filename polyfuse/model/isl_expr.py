"""isl AST expressions (loop bounds, guards, subscripts isl generated) as polyfuse IR."""

from __future__ import annotations

import islpy as isl

from polyfuse.errors import InternalError
from polyfuse.model import ir

_OPS = isl.ast_expr_op_type
_BINARY = {
    _OPS.add: "+", _OPS.sub: "-", _OPS.mul: "*", _OPS.div: "//", _OPS.fdiv_q: "//",
    _OPS.pdiv_q: "//", _OPS.pdiv_r: "%", _OPS.zdiv_r: "%", _OPS.min: "min", _OPS.max: "max",
}
_COMPARE = {_OPS.eq: "==", _OPS.le: "<=", _OPS.lt: "<", _OPS.ge: ">=", _OPS.gt: ">"}
_LOGIC = {_OPS.and_: "and", _OPS.and_then: "and", _OPS.or_: "or", _OPS.or_else: "or"}


def expr_from_isl(expr: isl.AstExpr) -> ir.Expr:
    """An isl AST expression as polyfuse IR (integer arithmetic, comparisons, selects)."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        return ir.int_const(int(expr.get_val().to_python()))
    if kind == isl.ast_expr_type.id:
        return ir.Var(expr.get_id().get_name(), ir.INT)
    op = expr.get_op_type()
    args = [expr_from_isl(expr.get_op_arg(i)) for i in range(expr.get_op_n_arg())]
    if op in _BINARY:
        result = args[0]
        for arg in args[1:]:
            result = ir.BinOp(_BINARY[op], result, arg, ir.INT, True)
        return result
    if op in _COMPARE:
        return ir.Compare(_COMPARE[op], args[0], args[1])
    if op in _LOGIC:
        return ir.BoolOp(_LOGIC[op], tuple(_truth(arg) for arg in args))
    if op == _OPS.minus:
        return ir.Unary("neg", args[0], ir.INT, True)
    if op in (_OPS.cond, _OPS.select):
        return ir.Select(_truth(args[0]), args[1], args[2], ir.INT, True)
    raise InternalError(f"unexpected isl AST expression {op}")


def condition_from_isl(expr: isl.AstExpr) -> ir.Expr:
    """An isl AST condition (an ``if`` guard, a ``for`` test) as a bool-typed IR expression."""
    return _truth(expr_from_isl(expr))


def _truth(expr: ir.Expr) -> ir.Expr:
    """``expr`` as a bool: isl's AST follows C, where a condition may be an integer (isl writes a
    disjunct that always holds as the literal ``1``, e.g. ``c0 >= 3 || 1``).  The IR types every
    condition as bool, so the backends see no integer operand in an ``and``/``or``/``if``."""
    if expr.dtype == ir.BOOL:
        return expr
    if isinstance(expr, ir.Const):
        return ir.Const(bool(expr.value), ir.BOOL)
    return ir.Compare("!=", expr, ir.int_const(0))
