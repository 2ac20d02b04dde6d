"""``for v in range(a, b, s)`` with a step that is not an integer constant (part of
``frontend.desugar``): a sieve's ``for j in range(i * i, n + 1, i)``.

Loops have constant steps in the model and in the region code, so the loop is written over its
iteration count, which is Python's ``len(range(a, b, s))``::

    _pf_ra, _pf_rs = a, s                  # evaluated once, before the loop, as range() does
    assert _pf_rs != 0, "range() arg 3 must not be zero"
    for _pf_rt in range(max(0, (b - _pf_ra + _pf_rs - 1) // _pf_rs) if _pf_rs > 0
                        else max(0, (_pf_ra - b - _pf_rs - 1) // -_pf_rs)):
        v2 = _pf_ra + _pf_rt * _pf_rs      # the loop variable, renamed in the body
        body

The count is not affine, so the loop is kept as written (``frontend.opaque``) with its
subscripts checked where they run.  A zero step raises ``AssertionError`` with Python's message
(Python raises ``ValueError``); a float step or bound stays a float count, which ``range()``
refuses where it stands.

A slice store of a constant with such a step, a sieve's ``is_p[i * i::i] = False`` (``X`` a
1-d array), is the loop it means, ``for t in range(a, min(b, len(X)), s): X[t] = False``
(``strided_store``), after an assert that the step is positive and the bounds given are not
negative (``AssertionError`` where Python would count them from the end or walk backwards:
refused where it runs, never a different set of elements).
"""

from __future__ import annotations

import ast

from .source import walk


def constant_step(node: ast.expr) -> bool:
    """Whether ``node`` is an integer literal (``2``, ``-1``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def variable_step(rw, node: ast.For) -> list[ast.stmt] | None:
    """The statements for a ``range`` loop whose step is not a literal; None for other loops."""
    it = node.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and it.func.id not in rw.globals and len(it.args) == 3 and not it.keywords
            and isinstance(node.target, ast.Name) and not node.orelse) or constant_step(it.args[2]):
        return None
    start, stop, step = it.args
    ra, rs, rt, var = (rw.fresh(n) for n in ("_pf_ra", "_pf_rs", "_pf_rt", node.target.id))
    text = (f"{ra} = 0\n{rs} = 0\n"
            f"assert {rs} != 0, 'range() arg 3 must not be zero'\n"
            f"for {rt} in range(max(0, (STOP - {ra} + {rs} - 1) // {rs}) if {rs} > 0 "
            f"else max(0, ({ra} - STOP - {rs} - 1) // -{rs})):\n"
            f"    {var} = {ra} + {rt} * {rs}\n")
    first, second, check, loop = ast.parse(text).body
    assert isinstance(first, ast.Assign) and isinstance(second, ast.Assign) and isinstance(loop, ast.For)
    first.value, second.value = start, step
    loop.iter = _Stop(stop, rw).visit(loop.iter)
    loop.body += [_Renamed(node.target.id, var).visit(stmt) for stmt in node.body]
    for stmt in (first, second, check, loop):
        for part in walk(stmt):
            if isinstance(part, (ast.expr, ast.stmt)) and not hasattr(part, "lineno"):
                ast.copy_location(part, node)
    return [first, second, check, loop]


class _Stop(ast.NodeTransformer):
    """Each ``STOP`` placeholder -> a copy of the stop expression."""

    def __init__(self, stop: ast.expr, rw) -> None:
        self.stop, self.rw = stop, rw

    def visit_Name(self, node: ast.Name):
        return self.rw.copy(self.stop) if node.id == "STOP" else node


class _Renamed(ast.NodeTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name):
        if node.id == self.old:
            node.id = self.new
        return node


def strided_store(rw, node: ast.Assign, rank: int | None) -> list[ast.stmt] | None:
    """``X[a:b:s] = c`` (``X`` a name of ``rank`` 1, ``s`` not a literal, ``c`` a number or bool
    literal) -> an assert and a ``range`` loop with that step (above); None for any other store."""
    target = node.targets[0] if len(node.targets) == 1 else None
    value = node.value.operand if isinstance(node.value, ast.UnaryOp) and isinstance(node.value.op, ast.USub) \
        else node.value
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and rank == 1
            and isinstance(target.slice, ast.Slice) and target.slice.step is not None
            and not constant_step(target.slice.step) and isinstance(value, ast.Constant)
            and type(value.value) in (int, float, bool)):
        return None
    name, sl = target.value.id, target.slice
    step = sl.step
    assert step is not None
    t = rw.fresh("_pf_st")
    lower = ast.unparse(sl.lower) if sl.lower is not None else "0"
    extent = f"{name}.shape[0]"
    upper = f"min({ast.unparse(sl.upper)}, {extent})" if sl.upper is not None else extent
    tests = [f"({ast.unparse(step)}) > 0"] + [f"({ast.unparse(b)}) >= 0" for b in (sl.lower, sl.upper)
                                                 if b is not None]
    text = (f"assert {' and '.join(tests)}, 'a slice step computed at run time must be positive and its bounds "
            f"not negative here (polyfuse writes {ast.unparse(target)} as a loop)'\n"
            f"for {t} in range({lower}, {upper}, {ast.unparse(step)}):\n"
            f"    {name}[{t}] = 0\n")
    check, loop = ast.parse(text).body
    assert isinstance(loop, ast.For) and isinstance(loop.body[0], ast.Assign)
    loop.body[0].value = node.value
    for stmt in (check, loop):
        for part in walk(stmt):
            if isinstance(part, (ast.expr, ast.stmt)):
                ast.copy_location(part, node)
    return [check, *(variable_step(rw, loop) or [loop])]
