"""Tuples of numbers as arguments: each element an argument of its own.

Third-party kernels take shapes and window sizes as tuples (parakeet's
``local_maxima(data, wsize)`` with ``wsize = (3, 3)``, ``def tile(x, shape): np.zeros(shape)``).
A call's tuple of numbers is unpacked into one scalar argument per element (``unpack_tuples``,
the runtime half; the length is part of the signature through the parts' names), and in the
lifted ``def`` the parameter becomes those parameters, each read of the tuple the display
``(wsize_pf0, wsize_pf1)`` and ``len(wsize)`` its length (``expand_parameters``, the frontend
half).  From there the displays are what the rest of the frontend reads (zip, ``np.ndindex``,
subscripts, shapes); integer elements are integer arguments, so they can bound loops and size
arrays.  Binding the parameter again is refused (its reads are the display).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import re
from typing import Any

from polyfuse.errors import ArgumentError
from polyfuse.model.scop import Argument

from .checker import is_number
from .source import KernelSource

_PART = re.compile(r"(.+)_pf(\d+)$")


def part_name(name: str, k: int) -> str:
    return f"{name}_pf{k}"


def unpack_tuples(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with each non-empty tuple of numbers replaced by its elements (the same dict
    when there is none)."""
    if not any(type(v) is tuple for v in values.values()):
        return values
    out: dict[str, Any] = {}
    for name, value in values.items():
        if type(value) is not tuple:
            out[name] = value
            continue
        if not value or not all(map(is_number, value)):
            raise ArgumentError(f"argument {name!r} is the tuple {value!r}; a kernel takes tuples of numbers "
                                "(ints, floats, complex numbers, bools), not empty")
        parts = {part_name(name, k): item for k, item in enumerate(value)}
        clash = next((part for part in parts if part in values), None)
        if clash is not None:
            raise ArgumentError(f"argument {name!r} is a tuple, whose elements are passed as {clash!r}, "
                                "which is also the name of a parameter; rename that parameter")
        out.update(parts)
    return out


def expand_parameters(source: KernelSource, arguments: tuple[Argument, ...]) -> KernelSource:
    """``source`` with each tuple parameter (its elements in ``arguments``) replaced by them."""
    given = {a.name for a in arguments}
    lengths: dict[str, int] = {}
    for a in arguments:
        match = _PART.match(a.name)
        if match and match.group(1) not in given:
            lengths[match.group(1)] = max(lengths.get(match.group(1), 0), int(match.group(2)) + 1)
    params = {a.arg for a in source.tree.args.args}
    lengths = {name: n for name, n in lengths.items() if name in params}
    if not lengths:
        return source
    tree = copy.deepcopy(source.tree)
    new: list[ast.arg] = []
    for param in tree.args.args:
        parts = [param] if param.arg not in lengths else \
            [ast.arg(part_name(param.arg, k)) for k in range(lengths[param.arg])]
        new.extend(ast.copy_location(p, param) for p in parts)
    tree.args.args = new  # (defaults belong to the last parameters: still the same ones)
    source = dataclasses.replace(source, tree=tree)
    tree.body = [_Displays(source, lengths).visit(stmt) for stmt in tree.body]
    return source


class _Displays(ast.NodeTransformer):
    """Reads of a tuple parameter -> the display of its elements; ``len(t)`` -> its length."""

    def __init__(self, source: KernelSource, lengths: dict[str, int]) -> None:
        self.source, self.lengths = source, lengths

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], ast.Name) and node.args[0].id in self.lengths:
            return ast.copy_location(ast.Constant(self.lengths[node.args[0].id]), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.lengths:
            return node
        if not isinstance(node.ctx, ast.Load):
            raise self.source.error(node, f"tuple parameter {node.id!r} bound again; a tuple argument's "
                                    "elements are arguments of the kernel: use a new name", "tuple argument")
        parts: list[ast.expr] = [ast.copy_location(ast.Name(part_name(node.id, k), ast.Load()), node)
                 for k in range(self.lengths[node.id])]
        return ast.copy_location(ast.Tuple(parts, ast.Load()), node)
