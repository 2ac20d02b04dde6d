"""A local that starts as ``None`` and is tested with ``is None`` (part of ``frontend.rewrite``).

numba code keeps "nothing found yet" as ``None``::

    last = None                           last = False
                                          last_none = True
    for i in range(n):                    for i in range(n):
        if x[i] > t:                          if x[i] > t:
            last = i              ->              last = i
                                                  last_none = False
    return -1 if last is None else last   return -1 if last_none else last

The local gets a flag that each binding sets, ``is None`` / ``is not None`` read the flag, and the
``None`` becomes ``False``, the weakest Python number, which takes the type of the values bound
later.  Taken only where ``name = None`` is one statement of the body's top level, no other
binding is ``None``, and every other read of the name is one Python makes only where it is not
None (``_guarded``): after ``name is not None and`` / ``name is None or`` in the same test, in
the branch of an ``if`` or ``a if c else b`` that the test ``name is (not) None`` guards, after
``if name is None: return ...`` in the same block, or after a binding of it earlier in the same
block.  Anything else is left as written, for the checker to refuse at the ``None``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .source import map_blocks, walk


def none_locals(body: list[ast.stmt], fresh: Callable[[str], str]) -> list[ast.stmt]:
    """``body`` with each local that starts as ``None`` written with a flag (the module)."""
    for stmt in body:
        name = _none_binding(stmt)
        if name is None or not _rewritable(body, name, stmt):
            continue
        flag = fresh(f"{name}_none")
        body = _Flagged(name, flag, stmt).block(body)
    return body


def _none_binding(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and _is_none(stmt.value):
        return stmt.targets[0].id
    return None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _none_test(node: ast.expr, name: str) -> bool | None:
    """True for ``name is None``, False for ``name is not None``, None for anything else."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Name) \
            and node.left.id == name and _is_none(node.comparators[0]) and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
        return isinstance(node.ops[0], ast.Is)
    return None


def _rewritable(body: list[ast.stmt], name: str, start: ast.stmt) -> bool:
    """One ``None`` binding (``start``), no other binding of ``name`` but plain ``name = value``
    statements, and every read of it guarded (``_Guards``)."""
    nodes = [n for stmt in body for n in walk(stmt)]
    plain = {id(n.targets[0]) for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name
             and (n is start or not _is_none(n.value))}
    if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) and id(n) not in plain
           for n in nodes):
        return False
    if any(isinstance(n, ast.Assign) and id(n.targets[0]) in plain and _not_a_number(n.value) for n in nodes):
        return False  # an array or a tuple: the checker's refusal of the None names it
    guards = _Guards(name)
    guards.block(body, False)
    return guards.ok


_ARRAY_METHODS = frozenset(("copy", "astype", "reshape", "ravel", "flatten", "transpose", "view"))
_ARRAY_CALLS = frozenset(("zeros", "ones", "empty", "full", "array", "asarray", "arange", "linspace", "zeros_like",
                          "ones_like", "empty_like", "full_like", "copy", "concatenate", "stack", "where"))


def _not_a_number(value: ast.expr) -> bool:
    """Whether a bound value is surely no number: a tuple, list, slice or an array's making."""
    if isinstance(value, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
                          ast.GeneratorExp)):
        return True
    if isinstance(value, ast.Subscript):
        return any(isinstance(n, ast.Slice) for n in walk(value.slice))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr in _ARRAY_METHODS or value.func.attr in _ARRAY_CALLS and \
            isinstance(value.func.value, ast.Name) and value.func.value.id in ("np", "numpy")
    return False


class _Guards:
    """Walks the body knowing where ``name`` is surely not None; ``ok`` turns False at a read
    that is not so (``name is None`` tests themselves read the flag, not the name)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ok = True

    def block(self, stmts: list[ast.stmt], bound: bool) -> None:
        for stmt in stmts:
            bound = self.stmt(stmt, bound)

    def stmt(self, stmt: ast.stmt, bound: bool) -> bool:
        """Whether ``name`` is surely bound to a number after ``stmt``, given ``bound`` before."""
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == self.name:
            self.expr(stmt.value, bound)
            return not _is_none(stmt.value)
        if isinstance(stmt, ast.If):
            test = _none_test(stmt.test, self.name)
            self.expr(stmt.test, bound)
            self.block(stmt.body, bound or test is False)
            self.block(stmt.orelse, bound or test is True)
            if test is True and stmt.body and isinstance(stmt.body[-1], (ast.Return, ast.Raise)) and not stmt.orelse:
                return True  # if name is None: return ...: not None after it
            return bound
        if isinstance(stmt, (ast.For, ast.While)):
            self.expr(stmt.iter if isinstance(stmt, ast.For) else stmt.test, bound)
            self.block(stmt.body, bound)
            self.block(stmt.orelse, bound)
            return bound
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                self.expr(child, bound)
            elif isinstance(child, ast.stmt):
                self.stmt(child, bound)
        return bound

    def expr(self, node: ast.expr, bound: bool) -> None:
        if _none_test(node, self.name) is not None:
            return
        if isinstance(node, ast.Name) and node.id == self.name:
            self.ok = self.ok and bound
            return
        if isinstance(node, ast.BoolOp):
            for value in node.values:
                self.expr(value, bound)
                test = _none_test(value, self.name)
                bound = bound or (test is True if isinstance(node.op, ast.Or) else test is False)
            return
        if isinstance(node, ast.IfExp):
            test = _none_test(node.test, self.name)
            self.expr(node.test, bound)
            self.expr(node.body, bound or test is False)
            self.expr(node.orelse, bound or test is True)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, bound)


class _Flagged:
    """The rewrite: ``name = None`` -> ``name = False; flag = True``, each ``name = v`` followed
    by ``flag = False``, ``name is None`` -> ``flag``, ``name is not None`` -> ``not flag``."""

    def __init__(self, name: str, flag: str, start: ast.stmt) -> None:
        self.name, self.flag, self.start = name, flag, start

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            out += self.stmt(stmt)
        return out

    def _set(self, value: bool, like: ast.stmt) -> ast.stmt:
        made = ast.Assign([ast.Name(self.flag, ast.Store())], ast.Constant(value))
        for node in walk(made):
            ast.copy_location(node, like)
        return made

    def stmt(self, stmt: ast.stmt) -> list[ast.stmt]:
        if stmt is self.start:
            assert isinstance(stmt, ast.Assign)
            stmt.value = ast.copy_location(ast.Constant(False), stmt.value)
            return [stmt, self._set(True, stmt)]
        map_blocks(stmt, self.block, ("body", "orelse"))
        _Tests(self.name, self.flag).visit(stmt)
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == self.name:
            return [stmt, self._set(False, stmt)]
        return [stmt]


class _Tests(ast.NodeTransformer):
    """``name is None`` -> ``flag``, ``name is not None`` -> ``not flag`` (statements' own
    expressions: nested blocks are done by ``_Flagged``)."""

    def __init__(self, name: str, flag: str) -> None:
        self.name, self.flag = name, flag

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.expr) else v for v in value])
            elif isinstance(value, ast.expr):
                setattr(node, field, self.visit(value))
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        test = _none_test(node, self.name)
        if test is None:
            return self.generic_visit(node)  # type: ignore[return-value]
        flag = ast.copy_location(ast.Name(self.flag, ast.Load()), node)
        return flag if test else ast.copy_location(ast.UnaryOp(ast.Not(), flag), node)
