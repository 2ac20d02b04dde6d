"""Helpers defined inside the kernel (part of ``frontend.rewrite``, before the passes that read
calls).

numba users write small helpers where they use them::

    def kernel(x, lo, hi):
        n = x.shape[0]
        def wrap(i):
            return (i + n) % n
        sq = lambda v: v * v
        ...

A ``def`` (or ``name = lambda ...``) at the top level of the kernel's body is taken out of the
body and inlined at its calls as a module-level helper is (``rewrite.Inliner``: parameters bound
to the call's arguments, recursion refused by name) where

- the body binds its name only there and uses it only as the function of calls;
- it has no decorator (or numba's ``njit``/``jit``), no ``global``/``nonlocal``/``yield``, no
  ``def`` or ``lambda`` inside, and its defaults are number constants;
- every name it reads that the kernel binds is an argument the body never binds again, a local
  the body binds once, by a plain assignment at its top level before the ``def``, or another such
  helper.  Python's closure reads the variable when the helper is called; those names cannot
  change after the ``def``, so the inlined read at the call is the same value.

Anything else stays in the body and is refused where it stands, with the reason.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass
from typing import Protocol

from polyfuse.errors import UnsupportedError

from .source import KernelSource, copy_tree, walk


class Rewriter(Protocol):
    source: KernelSource
    globals: dict
    args: set[str]
    local_helpers: dict

    def fresh(self, name: str) -> str: ...
    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError: ...


_NUMBA_DECORATORS = frozenset(("njit", "jit"))


@dataclass
class _Local:
    """One helper defined in the body: its ``def`` (a lambda made one) and the statement."""

    name: str
    func: ast.FunctionDef
    stmt: ast.stmt
    why_not: str = ""


def local_helpers(rw: Rewriter, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without the helpers it defines at its top level (module docstring), their calls
    naming each one's function object in ``rw.globals``; others are left for the refusal."""
    found = [local for stmt in body if (local := _local(stmt)) is not None]
    if not found:
        return body
    stores = _store_counts(body)
    names = {local.name for local in found}
    fixed = _fixed_before(rw, body)
    for local in found:
        local.why_not = _why_not(local, stores, names, fixed, body, rw.args)
    taken = [local for local in found if not local.why_not]
    if not taken:
        _refuse(rw, found)
    namespace = {k: v for k, v in rw.globals.items() if k not in stores and k not in rw.args}
    renamed: dict[str, str] = {}
    for local in taken:
        fn = _function(rw, local, namespace)
        namespace[local.name] = fn
        renamed[local.name] = rw.fresh(f"{local.name}_helper")
        rw.globals[renamed[local.name]] = fn
        rw.local_helpers[fn] = KernelSource(local.func, rw.source.filename, rw.source.first_line, rw.source.lines,
                                            rw.source.indent, rw.source.text)
    dropped = {id(local.stmt) for local in taken}
    out = [stmt for stmt in body if id(stmt) not in dropped]
    for stmt in out:
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id in renamed and isinstance(node.ctx, ast.Load):
                node.id = renamed[node.id]
    _refuse(rw, [local for local in found if local.why_not])
    return out


def _refuse(rw: Rewriter, left: list[_Local]) -> None:
    for local in left:
        kind = "lambda" if isinstance(local.stmt, ast.Assign) else "nested function"
        raise rw.error(local.stmt, f"{kind}: helper {local.name!r} defined inside the kernel is inlined only "
                       f"where it is pure enough to inline: {local.why_not}; or define it at module level", kind)


def _local(stmt: ast.stmt) -> _Local | None:
    """The helper ``stmt`` defines: ``def name(...)`` or ``name = lambda ...``."""
    if isinstance(stmt, ast.FunctionDef):
        return _Local(stmt.name, stmt, stmt)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Lambda):
        lam = stmt.value
        ret = ast.copy_location(ast.Return(lam.body), lam.body)
        func = ast.parse(f"def {stmt.targets[0].id}(): pass").body[0]  # (each Python's own fields)
        assert isinstance(func, ast.FunctionDef)
        func.args, func.body = lam.args, [ret]
        return _Local(stmt.targets[0].id, ast.copy_location(func, stmt), stmt)
    return None


def _store_counts(body: list[ast.stmt]) -> dict[str, int]:
    """How many times the body binds each name (a ``def`` binds its name; its own locals are
    not the kernel's)."""
    counts: dict[str, int] = {}

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            counts[node.name] = counts.get(node.name, 0) + 1
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in body:
        visit(stmt)
    return counts


def _fixed_before(rw: Rewriter, body: list[ast.stmt]) -> dict[int, set[str]]:
    """For each top-level statement (by id): the locals bound by a plain assignment at the top
    level before it."""
    fixed: dict[int, set[str]] = {}
    seen: set[str] = set()
    for stmt in body:
        fixed[id(stmt)] = set(seen)
        if isinstance(stmt, ast.Assign) and not isinstance(stmt.value, ast.Lambda):
            seen.update(n.id for t in stmt.targets for n in walk(t) if isinstance(n, ast.Name))
    return fixed


def _why_not(local: _Local, stores: dict[str, int], names: set[str], fixed: dict[int, set[str]],
             body: list[ast.stmt], args: set[str]) -> str:
    """Why ``local`` cannot be inlined ("" where it can)."""
    func = local.func
    if stores.get(local.name, 0) != 1 or local.name in args:
        return f"the kernel binds {local.name!r} again"
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        last = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if last not in _NUMBA_DECORATORS:
            return "a decorator other than numba's njit/jit"
    for node in walk(ast.Module(body=func.body, type_ignores=[])):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return "it declares global or nonlocal names"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "it is a generator"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return "it defines a function inside itself"
    args_ = func.args
    if any(not _number(d) for d in [*args_.defaults, *args_.kw_defaults] if d is not None):
        return "a default that is not a number constant"
    params = {a.arg for a in [*args_.posonlyargs, *args_.args, *args_.kwonlyargs, args_.vararg, args_.kwarg]
              if a is not None}
    own = params | {n.id for n in walk(ast.Module(body=func.body, type_ignores=[]))
                    if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    before = fixed[id(local.stmt)]
    for node in walk(ast.Module(body=func.body, type_ignores=[])):
        if not isinstance(node, ast.Name) or node.id in own or node.id in names:
            continue
        if node.id in args and stores.get(node.id, 0) == 0:
            continue
        if node.id in stores and not (stores[node.id] == 1 and node.id in before):
            return (f"it reads the kernel's {node.id!r}, which the kernel binds more than once, in a loop or "
                    "after the helper")
    for stmt in body:
        if stmt is local.stmt:
            continue
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id == local.name and isinstance(node.ctx, ast.Load) \
                    and not _called(stmt, node):
                return f"the kernel uses {local.name!r} other than by calling it"
    return ""


def _called(stmt: ast.stmt, name: ast.Name) -> bool:
    """Whether ``name`` is the function of a call in ``stmt``."""
    return any(isinstance(n, ast.Call) and n.func is name for n in walk(stmt))


def _number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, bool)


def _function(rw: Rewriter, local: _Local, namespace: dict) -> types.FunctionType:
    """The helper as a function object of ``namespace`` (no closure: the names it reads from the
    kernel are read at the inlined call); its ``__qualname__`` names the kernel."""
    func = copy_tree(local.func)
    func.decorator_list = []
    module = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    exec(compile(module, rw.source.filename, "exec"), namespace)  # noqa: S102 (the user's own def)
    fn = namespace.pop(local.name)
    fn.__qualname__ = f"{rw.source.tree.name}.<locals>.{local.name}"
    return fn
