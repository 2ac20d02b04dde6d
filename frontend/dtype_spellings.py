"""Other spellings of the supported dtypes -> the one the frontend reads.

Third-party NumPy code names dtypes many ways: ``np.bool_``, ``np.double``, ``np.intp``,
``dtype='bool'``, ``astype("float32")``, ``np.zeros(n, 'f8')``, and passes the shape of an
allocation by keyword (parakeet's ``np.ones(shape=data.shape, dtype='bool')``).  Each is what
``np.dtype`` makes of it, so this pass writes ``np.<name>`` for any spelling whose
``np.dtype(...)`` is a supported dtype (``np.float64``, ``np.bool``, ...), and moves ``shape=`` of
``np.empty/zeros/ones/full`` to its position.  A spelling NumPy reads as another dtype (``'f2'``,
``np.longdouble``) is left as written, to be refused where it is read.
"""

from __future__ import annotations

import ast

import numpy as np

from .checker import module_of

_SUPPORTED = {"float64", "float32", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8",
              "bool", "complex64", "complex128"}
_SHAPED = ("empty", "zeros", "ones", "full")  # allocators whose first parameter is ``shape``


def dtype_name(spelling: object) -> str | None:
    """The supported dtype NumPy reads ``spelling`` (a string or a NumPy scalar type) as."""
    try:
        name = np.dtype(spelling).name  # type: ignore[call-overload]
    except TypeError:
        return None
    return name if name in _SUPPORTED else None


class DtypeSpellings(ast.NodeTransformer):
    """``np.bool_`` -> ``np.bool``, ``dtype='f8'`` -> ``dtype=np.float64``, ``np.ones(shape=s)`` ->
    ``np.ones(s)`` (see the module docstring).  ``np_alias``: a name bound to numpy."""

    def __init__(self, globals_: dict, np_alias: str) -> None:
        self.globals, self.np_alias = globals_, np_alias

    def canonical(self, node: ast.expr, name: str) -> ast.expr:
        return ast.copy_location(ast.Attribute(ast.Name(self.np_alias, ast.Load()), name, ast.Load()), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and module_of(node.value, self.globals) == "np":
            value = getattr(np, node.attr, None)
            if isinstance(value, type) and issubclass(value, np.generic):
                name = dtype_name(value)
                if name is not None and name != node.attr:
                    return self.canonical(node, name)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        self.generic_visit(node)
        node.func = func  # a cast keeps its spelling (np.bool_(x)); only what it holds is rewritten
        for kw in node.keywords:
            if kw.arg == "dtype":
                kw.value = self.string(kw.value)
        if isinstance(func, ast.Attribute) and func.attr == "astype" and node.args:
            node.args[0] = self.string(node.args[0])
        if isinstance(func, ast.Attribute) and func.attr in _SHAPED and module_of(func.value, self.globals) == "np":
            shape = next((kw for kw in node.keywords if kw.arg == "shape"), None)
            if shape is not None and not node.args:
                node.args = [shape.value]
                node.keywords = [kw for kw in node.keywords if kw is not shape]
            dtype_at = 2 if func.attr == "full" else 1
            if len(node.args) > dtype_at:
                node.args[dtype_at] = self.string(node.args[dtype_at])
        return node

    def string(self, node: ast.expr) -> ast.expr:
        """A dtype given as a string, as ``np.<name>``."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = dtype_name(node.value)
            if name is not None:
                return self.canonical(node, name)
        return node
