"""The kernel's final ``return``: what ``Kernel.__call__`` hands back.

- an argument's name returns the caller's object itself (``return y`` after writing into it);
- a local array's name makes that array a *result*: allocated fresh on every call, never
  contracted or pooled, because it escapes the kernel;
- any other value (``s``, ``s / n``, ``x[0]``) is stored by one more top-level statement into a
  0-d result ``__return<k>``, read after the run and given the Python type the undecorated
  function's value has (a weak value is a Python ``float``/``int``, a strong one a numpy scalar);
- a tuple returns a tuple of these.
Only a final top-level ``return`` reaches here (the subset checker refuses the others).
"""

from __future__ import annotations

import ast
import dataclasses

from polyfuse.model.scop import ArrayInfo, Returned, ReturnValue

from .source import walk

RESULT_PREFIX = "__return"
STRONG = "__strong_"  # a local's flag: was the value last assigned to it a NumPy scalar? (frontend.lift)


def lift_return(lifter, node: ast.Return, scope) -> tuple[ReturnValue | None, list]:
    """The returned value's description and the statements that compute its scalars."""
    value = node.value
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return None, []
    nodes: list = []
    returned = _lift_value(lifter, node, value, scope, nodes)
    if nodes:
        lifter.nest += 1
    return returned, nodes


def _lift_value(lifter, node: ast.Return, value: ast.expr, scope, nodes: list) -> ReturnValue:
    if isinstance(value, ast.Tuple):
        return tuple(_lift_value(lifter, node, v, scope, nodes) for v in value.elts)
    if isinstance(value, ast.Name):
        if value.id in lifter.arguments:
            return Returned("arg", value.id)
        info = lifter.arrays.get(value.id)
        if info is not None and not info.is_scalar:
            if info.kind == "local":
                lifter.arrays[value.id] = dataclasses.replace(info, kind="result")
            return Returned("array", value.id)
        if value.id in lifter.flagged:  # a Python number on some paths, a NumPy scalar on others
            returned = _lift_scalar(lifter, node, value, scope, nodes)
            flag = _lift_scalar(lifter, node, ast.copy_location(ast.Name(STRONG + value.id, ast.Load()), value),
                                scope, nodes)
            return dataclasses.replace(returned, strong_flag=flag.name)
    return _lift_scalar(lifter, node, value, scope, nodes)


def _lift_scalar(lifter, node: ast.Return, value: ast.expr, scope, nodes: list) -> Returned:
    """``__return<k>[()] = value`` as a top-level statement of the kernel."""
    expressions = lifter.expressions(scope)
    converted = expressions.convert(value)
    name = f"{RESULT_PREFIX}{sum(1 for a in lifter.arrays if a.startswith(RESULT_PREFIX))}"
    lifter.arrays[name] = ArrayInfo(name, converted.dtype, (), "result")
    target = ast.Subscript(ast.Name(name, ast.Load()), ast.Tuple([], ast.Load()), ast.Store())
    for sub in walk(target):
        ast.copy_location(sub, value)
    nodes.append(lifter.add_statement(node, target, converted, scope, expressions))
    if converted.weak:
        pytype = "complex" if converted.dtype.startswith("complex") else \
            "float" if converted.dtype.startswith("float") else "pybool" if converted.dtype == "bool" else "int"
    else:
        pytype = converted.dtype
    return Returned("scalar", name, pytype)
