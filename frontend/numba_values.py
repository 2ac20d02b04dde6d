"""The values numba helpers give back, as the undecorated kernel sees them (part of
``frontend.rewrite``).

The undecorated kernel calls an ``@njit`` helper through numba, which returns a scalar boxed as
a Python number: ``sq(x[0])`` of ``@njit def sq(v): return v * v`` is the Python ``float`` 0.0
where the plain function would give ``np.float64(0.0)``, and ``s = 0.0; s += sq(x[i])`` stays a
``float``.  The inliner marks such a call's value ``_pf_numba_value(v)`` (each item of a
returned tuple display), which the lowering reads as ``v`` for an array and, for a scalar, as
the Python number of ``v``'s kind (``float``, ``int``, ``bool``, ``complex``: the weak value).
Numba gives a helper one return type, the unification of its returns (``x.max() if x.size
else 1.5`` of an int64 ``x`` is a float), which the promotion of polyfuse's result local
matches for these kinds.

:func:`unmarked` then drops the mark wherever the kind cannot change what Python computes, so
that the passes that read sizes, subscripts and loop bounds see the helper's value as before:
everywhere except the values of assignments to names, returns, and the arithmetic, choices,
``min``/``max``/``abs`` and tuple displays within them; and where the value is a Python number
already (a constant, ``x.shape[0]``, ``len(x)`` and arithmetic of those).
"""

from __future__ import annotations

import ast

BOXED = "_pf_numba_value"
#: ``_pf_tuple_index(k)``: ``k`` as it indexes a tuple display (frontend.tuples), an integer or a
#: bool; the lowering refuses another dtype (Python's TypeError) (kept here, a module every pass may import)
TUPLE_INDEX = "_pf_tuple_index"


def is_boxed(node: ast.AST) -> bool:
    """Whether ``node`` is the mark ``_pf_numba_value(v)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == BOXED \
        and len(node.args) == 1


def boxed(value: ast.expr) -> ast.expr:
    """``value`` (an inlined numba helper's) marked; a tuple display item by item."""
    if isinstance(value, ast.Tuple):
        return ast.copy_location(ast.Tuple([boxed(e) for e in value.elts], value.ctx), value)
    call = ast.Call(ast.Name(BOXED, ast.Load()), [value], [])
    for part in (call, call.func):
        ast.copy_location(part, value)
    return call


def unmarked(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with the marks dropped where the kind of the value cannot matter."""
    for stmt in body:
        _statement(stmt)
    return body


def _statement(stmt: ast.stmt) -> None:
    for name, value in ast.iter_fields(stmt):
        if isinstance(value, list):
            for k, item in enumerate(value):
                if isinstance(item, ast.stmt):
                    _statement(item)
                elif isinstance(item, ast.expr):
                    value[k] = _expr(item, False)
        elif isinstance(value, ast.expr):
            setattr(stmt, name, _expr(value, name == "value" and _keeps(stmt)))


def _keeps(stmt: ast.stmt) -> bool:
    """Whether the kind of ``stmt``'s value can reach what the kernel computes or returns."""
    if isinstance(stmt, ast.Return):
        return True
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        return isinstance(target, ast.Name) or isinstance(target, ast.Tuple) and all(
            isinstance(e, ast.Name) for e in target.elts)
    return False


def _carries(node: ast.expr, field: str) -> bool:
    """Whether ``node``'s ``field`` passes its value's kind on to ``node``'s value."""
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Tuple)):
        return True
    if isinstance(node, ast.IfExp):
        return field != "test"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("min", "max", "abs") and field == "args"
    return False


def _expr(node: ast.expr, keep: bool) -> ast.expr:
    if is_boxed(node):
        assert isinstance(node, ast.Call)
        node.args[0] = arg = _expr(node.args[0], keep)
        return node if keep and not _python_number(arg) else arg
    for name, value in ast.iter_fields(node):
        inner = keep and _carries(node, name)
        if isinstance(value, list):
            for k, item in enumerate(value):
                if isinstance(item, ast.expr):
                    value[k] = _expr(item, inner)
        elif isinstance(value, ast.expr):
            setattr(node, name, _expr(value, inner))
    return node


def _python_number(node: ast.expr) -> bool:
    """Whether ``node`` is a Python number whatever the arrays: a constant, ``x.shape[d]``,
    ``len(x)``, and arithmetic of those."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex))
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "len"
    if isinstance(node, ast.BinOp):
        return _python_number(node.left) and _python_number(node.right)
    if isinstance(node, ast.UnaryOp):
        return _python_number(node.operand)
    return False
