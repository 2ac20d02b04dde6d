"""Global NumPy arrays a kernel reads: constants frozen when the kernel first compiles.

numba freezes a global array into the compiled code: its values are read when the function is
compiled, and later changes to the global are not seen; the array is read-only there.  polyfuse
does the same through hidden arguments.  ``global_arrays`` finds the module-level arrays that the
kernel, or a helper it calls, reads; ``polyfuse.kernel``'s first call copies each (read-only,
C order) and compiles ``with_frozen_parameters(fn, names)``: the same code, whose signature starts
with one parameter per array, named as the global (a helper of another module: ``frozen_name``),
so every later call passes the same copies.  ``add_frozen_parameters`` (the frontend half, before
the rewrite) puts those parameters in the ``def`` that is lifted; ``check_not_written`` refuses a
write of one (numba refuses it too), at the write.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import types
from collections.abc import Callable

import numpy as np

from .source import KernelSource, read_source, walk

#: The attribute of a function compiled with frozen arrays: the names of its hidden parameters.
FROZEN = "__polyfuse_frozen_arrays__"
#: The prefix of a global tuple's hidden array (read where it is indexed by a computed value).
TUPLE_PREFIX = "_pf_tuple_"
_TUPLE_TYPES = (int, float, bool)


def number_tuple(value: object) -> type | None:
    """The element type of a global tuple of Python numbers all of one type (``OFFSETS = (-1, 0,
    1)``: ``int``), which a kernel reads as a constant as numba does; None for anything else."""
    if type(value) is not tuple or not value:
        return None
    kinds = {type(v) for v in value}
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind in _TUPLE_TYPES else None


def number_table(value: object) -> tuple[type, tuple[int, ...]] | None:
    """The element type and shape of a global tuple of tuples (of tuples ...) of Python numbers
    of one type, all rows of one length (``DIRS = ((0, 1), (1, 0), (0, -1), (-1, 0))``: ``int``,
    ``(4, 2)``), a constant table as numba reads it; None for anything else (flat tuples too)."""
    if type(value) is not tuple or not value or not all(type(v) is tuple for v in value):
        return None
    rows = [number_table(v) if v and type(v[0]) is tuple else _flat_row(v) for v in value]
    first = rows[0]
    if first is None or any(r != first for r in rows):
        return None
    return first[0], (len(value), *first[1])


def _flat_row(value: tuple) -> tuple[type, tuple[int, ...]] | None:
    kind = number_tuple(value)
    return None if kind is None else (kind, (len(value),))


def constant_tuple(value: object) -> type | None:
    """The element type of a flat (``number_tuple``) or nested (``number_table``) global tuple."""
    table = number_table(value)
    return table[0] if table is not None else number_tuple(value)


def frozen_name(module: str, kernel_module: str, name: str) -> str:
    """The hidden parameter for global ``name`` of ``module``: the name itself for the kernel's
    own module, else one that names the module (two modules may hold arrays of one name)."""
    if module == kernel_module:
        return name
    return "_pf_global_" + "".join(c if c.isalnum() else "_" for c in module) + "_" + name


def global_arrays(fn: types.FunctionType, helper_of: Callable[[ast.expr, dict], types.FunctionType | None],
                  source_of: Callable[[types.FunctionType], KernelSource] = read_source) -> dict[str, np.ndarray]:
    """Hidden parameter -> the global array it stands for, for each module-level NumPy array that
    ``fn`` or a helper it calls (``helper_of``: the function a call names, frontend.rewrite's
    ``helper_function``) reads; empty where none.  ``source_of`` parses a function (a caller that
    has parsed ``fn`` already passes its own)."""
    kernel_module = fn.__globals__.get("__name__", "")
    found: dict[str, np.ndarray] = {}
    seen: set[int] = set()
    todo = [fn]
    while todo:
        func = todo.pop()
        if id(func.__code__) in seen:
            continue
        seen.add(id(func.__code__))
        try:
            tree = source_of(func).tree
        except Exception:  # noqa: BLE001 - no source: the compile says so, not this scan
            continue
        own = {a.arg for a in tree.args.args} | {n.id for n in walk(tree)
                                                 if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        module = func.__globals__.get("__name__", "")
        for node in walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in own:
                value = func.__globals__.get(node.id)
                if isinstance(value, np.ndarray):
                    found.setdefault(frozen_name(module, kernel_module, node.id), value)
                elif constant_tuple(value) is not None:  # its elements at computed indices
                    found.setdefault(frozen_name(module, kernel_module, TUPLE_PREFIX + node.id), np.array(value))
            if isinstance(node, ast.Call):
                helper = helper_of(node.func, func.__globals__)
                if helper is not None:
                    todo.append(helper)
    return found


def frozen_copy(value: np.ndarray) -> np.ndarray:
    """The constant a kernel reads for a global array: a read-only C-ordered copy of its values
    now (numba's compile-time freeze)."""
    frozen = np.array(value, copy=True, order="C")
    frozen.setflags(write=False)
    return frozen


def with_frozen_parameters(fn: types.FunctionType, names: tuple[str, ...]) -> types.FunctionType:
    """``fn``'s code with a signature that starts with ``names`` (the hidden array parameters)."""
    special = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    special.__qualname__, special.__module__ = fn.__qualname__, fn.__module__
    signature = inspect.signature(fn)
    hidden = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in names]
    special.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=hidden + list(signature.parameters.values()))
    setattr(special, FROZEN, names)
    for attribute in ("__polyfuse_bound_functions__",):  # a specialised function's bound names
        if hasattr(fn, attribute):
            setattr(special, attribute, getattr(fn, attribute))
    return special


def add_frozen_parameters(source: KernelSource, fn) -> KernelSource:
    """``source`` whose ``def`` starts with the hidden parameters of ``fn`` (``FROZEN``)."""
    names = getattr(fn, FROZEN, ())
    if not names:
        return source
    tree = copy.deepcopy(source.tree)
    first = tree.args.args[0] if tree.args.args else tree
    tree.args.args[:0] = [ast.copy_location(ast.arg(name), first) for name in names]
    return dataclasses.replace(source, tree=tree)


def check_not_written(source: KernelSource, fn) -> None:
    """Refuse a store into a frozen global array (after the lowering: views and NumPy statements
    are element stores of the array by then)."""
    names = set(getattr(fn, FROZEN, ()))
    if not names:
        return
    for node in walk(source.tree):
        target = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            target = node.value
            while isinstance(target, ast.Subscript):
                target = target.value
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            target = node.target
        if isinstance(target, ast.Name) and target.id in names:
            raise source.error(node, f"{target.id!r} is a global NumPy array, which the kernel reads as a constant "
                               "frozen when it compiles (as numba does; numba refuses writes to it too); pass the "
                               "array as an argument to write it", "write to a global array")
