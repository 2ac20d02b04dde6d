"""Function and string parameters: one compiled kernel per function object or string.

Third-party kernels take functions as parameters, often as defaults (parakeet's
``def local_maxima(data, wsize, mode=wrap)``, ``wrap`` a module-level function) or in the call
(``apply(x, op=np.tanh)``).  A function is no run-time value of compiled code, but it is fixed for
a call: ``polyfuse.kernel`` compiles the function body once per tuple of such function objects
(``specialise``), as if the parameter were a global name bound to the function.  Its calls then
inline as any helper's (a plain ``def``), or call the NumPy/math function (``module_attribute``);
anything the body does with it that a global function could not do is refused there.

A string argument (``mode='wrap'``, ``method="linear"``) is such a constant too: the kernel is
compiled once per string, each read of the parameter is the string, and comparisons of strings
(``mode == 'wrap'``, ``mode in ('wrap', 'clip')``) are decided then, so ``if mode == 'wrap':``
keeps one branch.

``specialise`` (the runtime half) builds the function that is compiled: the same code, whose
globals bind the parameters' names and whose signature lacks them; ``drop_parameters`` (the
frontend half, before the rewrite) removes them from the ``def`` that is lifted.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import types

import numpy as np

from .source import KernelSource, walk
from .tuple_args import part_name

#: The attribute of a specialised function naming the parameters its globals bind.
BOUND = "__polyfuse_bound_functions__"


_VALUES = (np.ndarray, int, float, complex, bool, tuple)  # what calls pass most: no function (fast)


def is_function(value: object) -> bool:
    """A value a kernel takes as a constant of its compiled code: a Python function (a numba
    dispatcher's ``py_func`` is one), a NumPy function or ufunc, a builtin such as ``math.sqrt``
    or ``abs``, a NumPy scalar type (``dtype=np.float32``), a string (``mode='wrap'``: its
    comparisons with other strings are decided when compiling) or None."""
    kind = type(value)
    if kind in _VALUES:
        return False
    if value is None or kind is str:
        return True
    if isinstance(value, type) and issubclass(value, np.generic):
        return True  # a dtype: dtype=np.float32
    value = getattr(value, "py_func", value)
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) \
        or (callable(value) and type(value).__module__ == "numpy")  # np.sum, np.linalg.norm


def specialise(fn: types.FunctionType, functions: dict[str, object],
               tuples: dict[str, int] | None = None) -> types.FunctionType:
    """``fn`` with ``functions`` (parameter -> function) bound as globals: the same code and
    source, a signature without those parameters (the kernel's call binds the rest), and each
    tuple parameter of ``tuples`` (parameter -> length) as its elements' parameters
    (frontend/tuple_args.py; a default tuple of that length gives them defaults).  ValueError
    where such a signature cannot be (elements without defaults after a parameter with one)."""
    bound = {name: value if value is None or type(value) is str else getattr(value, "py_func", value)
             for name, value in functions.items()}
    special = types.FunctionType(fn.__code__, {**fn.__globals__, **bound}, fn.__name__, fn.__defaults__,
                                 fn.__closure__)
    special.__qualname__, special.__module__ = fn.__qualname__, fn.__module__
    signature = inspect.signature(fn)
    parameters: list[inspect.Parameter] = []
    for p in signature.parameters.values():
        length = (tuples or {}).get(p.name)
        if length is None:
            parameters += [] if p.name in bound else [p]
            continue
        defaults = p.default if type(p.default) is tuple and len(p.default) == length else None
        parameters += [p.replace(name=part_name(p.name, k), default=inspect.Parameter.empty if defaults is None
                                 else defaults[k]) for k in range(length)]
    special.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    setattr(special, BOUND, tuple(bound))
    return special


def bound_texts(fn) -> str:
    """``name=module.qualname`` of each function ``fn`` binds (for the disk cache's key: two
    ufuncs have no source text to tell them apart)."""
    parts = []
    for name in getattr(fn, BOUND, ()):
        value = fn.__globals__[name]
        if value is None or type(value) is str:
            parts.append(f"{name}={value!r}")
            continue
        where = getattr(value, "__module__", None) or type(value).__name__
        parts.append(f"{name}={where}.{getattr(value, '__qualname__', getattr(value, '__name__', '?'))}")
    return " ".join(parts)


def drop_parameters(source: KernelSource, fn) -> KernelSource:
    """``source`` without the parameters ``fn`` binds to functions, strings or None
    (``specialise``), and without their defaults: from here on their names are globals (a
    string's reads are the string, a None's ``is None`` tests decided: ``_Nones``); and
    ``x is None`` of any other parameter the body never binds is False."""
    names = set(getattr(fn, BOUND, ()))
    stored = {n.id for n in walk(source.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    others = {a.arg for a in source.tree.args.args} - names - stored
    if not names and not _tests_none(source.tree, {a.arg for a in source.tree.args.args}):
        return source
    tree = copy.deepcopy(source.tree)
    tree.body = [_NoneTests(others, False).visit(stmt) for stmt in tree.body]
    for name in sorted({a.arg for a in tree.args.args} - names):  # not None (until bound again)
        tree.body = _none_until_bound(tree.body, name, False)
    if not names:
        return dataclasses.replace(source, tree=tree)
    args = tree.args
    first_default = len(args.args) - len(args.defaults)
    kept = [(k, a) for k, a in enumerate(args.args) if a.arg not in names]
    args.defaults = [args.defaults[k - first_default] for k, _ in kept if k >= first_default]
    args.args = [a for _, a in kept]
    strings = {name: fn.__globals__[name] for name in names if type(fn.__globals__[name]) is str}
    if strings:
        tree.body = [_Strings(source, strings).visit(stmt) for stmt in tree.body]
    for name in sorted(n for n in names if fn.__globals__[n] is None):
        tree.body = _none_until_bound(tree.body, name, True)
        _check_unbound(source, tree.body, name)
    return dataclasses.replace(source, tree=tree)


def _check_unbound(source: KernelSource, body: list[ast.stmt], name: str) -> None:
    """Refuse a read of the None parameter ``name`` before the top-level statement that binds it."""
    for stmt in body:
        nodes = [n for n in walk(stmt) if isinstance(n, ast.Name) and n.id == name]
        read = next((n for n in nodes if isinstance(n.ctx, ast.Load)), None)
        if read is not None:
            raise source.error(read, f"parameter {name!r} is None here (its value in this call); pass it, or "
                               f"bind it first ('if {name} is None: {name} = ...')", "None argument")
        if nodes:
            return


def _tests_none(tree: ast.FunctionDef, names: set[str]) -> bool:
    return any(isinstance(n, ast.Compare) and _none_test(n, names) is not None for n in walk(tree))


def _none_test(node: ast.Compare, names: set[str]) -> bool | None:
    """For ``p is None`` (True) or ``p is not None`` (False) with ``p`` in ``names``; else None."""
    if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot)):
        return None
    a, b = node.left, node.comparators[0]
    name = a if isinstance(a, ast.Name) else b
    other = b if name is a else a
    if not (isinstance(name, ast.Name) and name.id in names and isinstance(other, ast.Constant)
            and other.value is None):
        return None
    return isinstance(node.ops[0], ast.Is)


class _NoneTests(ast.NodeTransformer):
    """``p is None`` / ``p is not None`` of ``names`` -> what they are when each is None (``none``)
    or is not."""

    def __init__(self, names: set[str], none: bool) -> None:
        self.names, self.none = names, none

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        test = _none_test(node, self.names)
        return node if test is None else ast.copy_location(ast.Constant(test == self.none), node)


def _none_until_bound(body: list[ast.stmt], name: str, none: bool) -> list[ast.stmt]:
    """``name`` is None (``none``: a default ``out=None``) or is not, until the body binds it:
    its ``is None`` tests in the top-level statements before the first one that binds it are
    decided, and a top-level ``if`` decided so is replaced by the branch it takes
    (``if out is None: out = np.empty_like(x)`` binds ``out`` at the top level).  A None's other
    reads before that are left: the name is unbound there, and refused as such."""
    out: list[ast.stmt] = []
    for k, stmt in enumerate(body):
        stmt = _NoneTests({name}, none).visit(stmt)
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Constant) and type(stmt.test.value) is bool:
            taken = stmt.body if stmt.test.value else stmt.orelse
            rest = [] if taken and isinstance(taken[-1], ast.Return) else body[k + 1:]  # (nothing runs after)
            return out + _none_until_bound(taken + rest, name, none)
        out.append(stmt)
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(stmt)):
            return out + body[k + 1:]
    return out


class _Strings(ast.NodeTransformer):
    """Reads of a string parameter -> the string; comparisons of strings (``mode == 'wrap'``,
    ``mode in ('wrap', 'clip')``, ``not``/``and``/``or`` of them) -> ``True``/``False``, as Python
    decides them.  Binding the parameter again is refused."""

    def __init__(self, source: KernelSource, strings: dict[str, str]) -> None:
        self.source, self.strings = source, strings

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.strings:
            return node
        if not isinstance(node.ctx, ast.Load):
            raise self.source.error(node, f"string parameter {node.id!r} bound again; a string argument is a "
                                    "constant of the compiled kernel: use a new name", "string argument")
        return ast.copy_location(ast.Constant(self.strings[node.id]), node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        values = [_strings(side) for side in [node.left, *node.comparators]]
        if any(v is None for v in values) or not all(type(op) in _DECIDED for op in node.ops):
            return node
        try:
            decided = all(_DECIDED[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:]))
        except TypeError:  # ('a',) in 'abc': Python's TypeError, left to the checker to refuse
            return node
        return ast.copy_location(ast.Constant(decided), node)


def _strings(node: ast.expr) -> str | tuple[str, ...] | None:
    """A string constant, or a tuple/list display of them."""
    if isinstance(node, ast.Constant) and type(node.value) is str:
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) and type(e.value) is str
                                                        for e in node.elts):
        return tuple(str(e.value) for e in node.elts if isinstance(e, ast.Constant))
    return None


_DECIDED = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
