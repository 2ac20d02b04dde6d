"""A kernel whose returned reduction updates only its block's own chunk.

A block runs the kernel on its chunk plus a ghost zone.  When the reduction's update sits in a
loop that also runs over the ghost zone (after a time loop, ``m = max(m, A[i])`` over the
whole block; or inside it, ``s += B[i]`` every step), the block's partial would count its
neighbours' updates too (and, after a time loop, read their edges' inexact values).
polyfuse.dask.halo finds that case with isl (the block runs more updates than its chunk owns,
but every one it owns) and the block then runs this variant: the same function with the
update wrapped in ``if lo <= i < hi`` for the update's loop of each split cut, ``lo``/``hi``
new trailing int arguments (the chunk's place in the block).  An affine condition restricts the
statement's domain (docs/subset.md), so the variant compiles like the original; its other
statements, and so the values the update reads, are unchanged.

A kernel that returns a view of an argument (``return B.T``) runs per block as a variant
whose ``return`` gives the argument itself in the view's place (``block_variant``): on a block
the view would be of the block's array; the client takes it from the argument's new dask
array instead (polyfuse.dask.views).

The variant is made from the function's own source (frontend.source.read_source), executed under a
``linecache``-registered file name with the original's globals, and wrapped with the original's
decorator options; it pickles as any kernel does (polyfuse.kernel.KernelRecipe).
"""

from __future__ import annotations

import ast
import itertools
import types
from typing import Any

from polyfuse.errors import SourceSpan, UnsupportedError
from polyfuse.frontend.source import read_source, register_source
from polyfuse.model.scop import Statement

_serial = itertools.count()


def bound_names(fn: Any, count: int) -> tuple[tuple[str, str], ...]:
    """``count`` pairs of fresh parameter names (a chunk's start and end per split cut)."""
    taken = set(fn.__code__.co_varnames) | set(fn.__code__.co_names)
    pairs = []
    for k in itertools.count():
        lo, hi = f"_pf_chunk_lo{k}", f"_pf_chunk_hi{k}"
        if lo not in taken and hi not in taken:
            pairs.append((lo, hi))
        if len(pairs) == count:
            return tuple(pairs)
    raise AssertionError("unreachable")


def guarded(kernel: Any, update: Statement, iterators: tuple[str, ...]) -> Any:
    """``kernel`` with ``update`` run only where ``lo_k <= iterators[k] < hi_k`` (see the module
    docstring); the new arguments are named by ``bound_names(kernel.py_func, len(iterators))``."""
    return block_variant(kernel, updates=((update, iterators),))


def block_variant(kernel: Any, *, updates: tuple[tuple[Statement, tuple[str, ...]], ...] = (),
                  returns: Any = None, returns_span: SourceSpan | None = None) -> Any:
    """``kernel`` as a block runs it: each reduction's update restricted to the chunk along its
    iterators (one per split cut, see ``guarded``; the chunk-bound arguments are shared), and
    every view of an argument the kernel ``returns`` replaced by the argument itself (a view of
    a block's array is not the view of the whole: the client slices it from the argument's new
    dask array, polyfuse.dask.views)."""
    fn = kernel.py_func
    source = read_source(fn)  # parsed under the frontend's AST lock, as every parse of polyfuse
    fdef = source.tree
    names: list[str] = []
    for update, iterators in updates:
        refusal = UnsupportedError("on dask arrays this reduction's update runs over the blocks' ghost zones, and "
                                   "only an update written in the kernel's own function (not an inlined helper) "
                                   "can be restricted to the block's chunk", update.span, update.source_line)
        if fn.__closure__ or update.span is None or update.span.filename != fn.__code__.co_filename:
            raise refusal
        bounds = bound_names(fn, len(iterators))
        if not _wrap(fdef, update.span.line - source.first_line + 1, _condition(iterators, bounds)):
            raise refusal
        names = [lo_hi for pair in bounds for lo_hi in pair]
    if returns is not None:
        refusal = UnsupportedError("on dask arrays a returned view must be written in the kernel's own `return` "
                                   "(a tuple of values, not a tuple made elsewhere)", returns_span, "return")
        if fn.__closure__ or returns_span is None or returns_span.filename != fn.__code__.co_filename:
            raise refusal
        if not _unview(fdef, returns_span.line - source.first_line + 1, returns):
            raise refusal
    fdef.decorator_list = []
    if fdef.args.defaults:  # the source stays valid Python; the function's defaults are set below
        fdef.args.defaults.extend(ast.Constant(0) for _ in names)
    fdef.args.args.extend(ast.arg(arg=n) for n in names)
    text = ast.unparse(ast.fix_missing_locations(fdef)) + "\n"
    filename = f"<polyfuse-dask-block-{next(_serial)}-{fn.__name__}>"
    register_source(filename, text)
    code = compile(text, filename, "exec")
    inner = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == fn.__name__)
    defaults = fn.__defaults__ + (0,) * len(names) if fn.__defaults__ else None  # the new trailing arguments'
    variant = types.FunctionType(inner, fn.__globals__, fn.__name__, defaults)
    variant.__qualname__ = f"{fn.__qualname__}_dask_block"
    variant.__module__ = fn.__module__
    return type(kernel)(variant, **kernel.init_options)  # polyfuse.Kernel (a stage above this one)


def _unview(node: ast.AST, line: int, returns: Any) -> bool:
    """Replace, in the ``return`` on ``line``, each returned view by the argument it views."""
    for child in ast.walk(node):
        if isinstance(child, ast.Return) and child.lineno == line and child.value is not None:
            value = _argument_for_views(child.value, returns)
            if value is None:
                return False
            child.value = value
            return True
    return False


def _argument_for_views(expr: ast.expr, returns: Any) -> ast.expr | None:
    """``expr`` with the items ``returns`` describes as views replaced by the argument's name
    (None: the expression is not written as the tuple the kernel returns)."""
    if isinstance(returns, tuple):
        if not isinstance(expr, ast.Tuple) or len(expr.elts) != len(returns):
            return None
        items = []
        for element, item in zip(expr.elts, returns):
            replaced = _argument_for_views(element, item)
            if replaced is None:
                return None
            items.append(replaced)
        return ast.Tuple(elts=items, ctx=ast.Load())
    if returns.how == "view":
        return ast.Name(returns.name, ast.Load())
    return expr


def _condition(iterators: tuple[str, ...], bounds: tuple[tuple[str, str], ...]) -> ast.expr:
    tests: list[ast.expr] = [
        ast.Compare(left=ast.Name(lo, ast.Load()), ops=[ast.LtE(), ast.Lt()],
                    comparators=[ast.Name(it, ast.Load()), ast.Name(hi, ast.Load())])
        for it, (lo, hi) in zip(iterators, bounds)]
    return tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)


def _wrap(node: ast.AST, line: int, test: ast.expr) -> bool:
    """Wrap the statement on ``line`` (of the dedented source) in ``if test:``; found or not."""
    for field in ("body", "orelse"):
        body = getattr(node, field, None)
        if not isinstance(body, list):
            continue
        for index, stmt in enumerate(body):
            if isinstance(stmt, (ast.Assign, ast.AugAssign)) and stmt.lineno == line:
                body[index] = ast.If(test=test, body=[stmt], orelse=[])
                return True
            if _wrap(stmt, line, test):
                return True
    return False
