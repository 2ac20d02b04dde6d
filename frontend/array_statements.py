"""NumPy statements that change an array in place, written as the assignments they equal
(frontend/arrays.py: lower_stmt): ``x.sort()``.  (``np.copyto(dst, src, where=mask)``'s value,
pure syntax, is built in arrays.py itself, which this module imports.)"""

from __future__ import annotations

import ast
import copy

from .checker import module_of


def _located(tree: ast.stmt, where: ast.AST) -> ast.stmt:
    for part in ast.walk(tree):
        if isinstance(part, (ast.expr, ast.stmt)):
            ast.copy_location(part, where)
    return tree


class _SortInPlace(ast.NodeTransformer):
    def __init__(self, rw) -> None:
        self.rw = rw

    def visit_Expr(self, stmt: ast.Expr) -> ast.stmt:
        call = stmt.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "sort"):
            return stmt
        target = call.func.value
        if module_of(target, self.rw.globals) is not None or not isinstance(target, (ast.Name, ast.Subscript)):
            return stmt
        names = ("axis", "kind", "order")
        given = dict(zip(names, call.args))
        for kw in call.keywords:
            if kw.arg not in names or kw.arg in given:
                raise self.rw.error(call, f"x.sort() with {kw.arg}= is not supported", "x.sort")
            given[str(kw.arg)] = kw.value
        if len(call.args) > 2 or "order" in given:
            raise self.rw.error(call, "x.sort() with order= (structured arrays) or more than axis and kind",
                                "x.sort")
        np_ = self.rw.numpy_alias()
        sorted_copy = ast.Call(ast.Attribute(ast.Name(np_, ast.Load()), "sort", ast.Load()),
                               [copy.deepcopy(target)], [ast.keyword(k, v) for k, v in given.items()])
        store = ast.Subscript(copy.deepcopy(target), ast.Constant(Ellipsis), ast.Store())
        return _located(ast.Assign([store], sorted_copy), stmt)


def sort_in_place(rw, body: list[ast.stmt]) -> list[ast.stmt]:
    """``x.sort()`` as a statement (``axis=``, ``kind=`` as NumPy's method takes them; ``x`` a
    name or a subscript of one, not a module) is ``x[...] = np.sort(x, axis, kind)``: the
    sorted copy stored back through ``x`` (a view too), which the passes after this one lower
    as any ``np.sort`` and any store."""
    walker = _SortInPlace(rw)
    return [walker.visit(stmt) for stmt in body]
