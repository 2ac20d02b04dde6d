"""Sizes the call computes from its arguments: integer expressions isl cannot state.

``np.linspace(xmin, xmax, int(xn))`` of a float argument, ``count = (L - w) // f + 1`` with an
integer argument ``f``, ``nt = int(T / dt)``: the value does not change while the kernel runs,
but it is not affine in the integer arguments and sizes.  Such an expression becomes a new isl
parameter (``pf_size...``, like ``X.shape[d]``) whose value the call computes before anything
runs by evaluating the expression as Python would (``runtime.variant.size_value``), with the
arguments' values (the kernel must never assign those arguments).  The forms are few on purpose, so that value is the one the undecorated
function computes: names of integer and float64 arguments, sizes ``X.shape[d]`` of array
arguments, number constants, ``+ - * / // %`` and unary minus, and the calls ``int``,
``round`` (one argument), ``abs``, ``min``, ``max``, ``math.floor/ceil/trunc/sqrt`` and
``np.floor/ceil/sqrt``; the whole must be an ``int``.
"""

from __future__ import annotations

import ast

from polyfuse.model.scop import Argument

from .checker import module_of

_INT_CALLS = {"int": "int", "round": "int", "abs": None, "min": None, "max": None}
_NP, _MATH = "pf_np", "pf_math"  # the modules' names in the source (scop.SIZE_NAMESPACE)
_MODULE_CALLS = {(_MATH, "floor"): "int", (_MATH, "ceil"): "int", (_MATH, "trunc"): "int",
                 (_MATH, "sqrt"): "float", (_NP, "floor"): "float", (_NP, "ceil"): "float",
                 (_NP, "sqrt"): "float"}


def call_time_source(node: ast.expr, arguments: tuple[Argument, ...], globals_: dict,
                     assigned: set[str]) -> str | None:
    """Python source computing ``node`` from the arguments (modules written ``pf_np`` and
    ``pf_math``, as in ``scop.SIZE_NAMESPACE``), when it is an integer expression of the forms above of
    arguments the kernel never assigns (``assigned``: then the value at the call is the value
    there); None otherwise."""
    kinds = {a.name: "int" if a.kind == "int" else "float" for a in arguments if a.name not in assigned
             and (a.kind == "int" or (a.kind == "float" and a.numpy_scalar in ("", "float64")))}
    arrays = {a.name: a.rank for a in arguments if a.kind == "array" and a.name not in assigned}
    canonical = _Canonical(globals_)
    written = canonical.visit(ast.parse(ast.unparse(node), mode="eval").body)
    if _kind(written, kinds, arrays) != "int":
        return None
    return ast.unparse(written)


class _Canonical(ast.NodeTransformer):
    """Module references written ``pf_np.`` and ``pf_math.`` (``numpy.floor`` -> ``pf_np.floor``)."""

    def __init__(self, globals_: dict) -> None:
        self.globals = globals_

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        module = {"np": _NP, "math": _MATH}.get(module_of(node.value, self.globals) or "")
        if module is not None:
            return ast.Attribute(ast.Name(module, ast.Load()), node.attr, ast.Load())
        return self.generic_visit(node)


def _kind(node: ast.expr, kinds: dict[str, str], arrays: dict[str, int]) -> str | None:
    """'int' or 'float' for the value of ``node`` as Python computes it; None outside the forms."""
    if isinstance(node, ast.Constant):
        return {int: "int", float: "float"}.get(type(node.value))
    if isinstance(node, ast.Name):
        return kinds.get(node.id)
    if isinstance(node, ast.Subscript):  # X.shape[d] of an array argument
        base, axis = node.value, node.slice
        ok = isinstance(base, ast.Attribute) and base.attr == "shape" and isinstance(base.value, ast.Name) \
            and base.value.id in arrays and isinstance(axis, ast.Constant) and type(axis.value) is int \
            and -arrays[base.value.id] <= axis.value < arrays[base.value.id]
        return "int" if ok else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _kind(node.operand, kinds, arrays)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv,
                                                            ast.Mod)):
        sides = [_kind(node.left, kinds, arrays), _kind(node.right, kinds, arrays)]
        if None in sides:
            return None
        return "float" if isinstance(node.op, ast.Div) or "float" in sides else "int"
    if isinstance(node, ast.Call) and not node.keywords:
        args = [_kind(a, kinds, arrays) for a in node.args]
        if not node.args or None in args:
            return None
        func = node.func
        if isinstance(func, ast.Name) and func.id in _INT_CALLS:
            if func.id in ("int", "round") and len(args) != 1 or func.id == "abs" and len(args) != 1:
                return None
            return _INT_CALLS[func.id] or ("float" if "float" in args else "int")
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and len(args) == 1:
            return _MODULE_CALLS.get((func.value.id, func.attr))
    return None
