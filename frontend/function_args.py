"""Function-valued parameters: one compiled kernel per function object.

Third-party kernels take functions as parameters, often as defaults (parakeet's
``def local_maxima(data, wsize, mode=wrap)``, ``wrap`` a module-level function) or in the call
(``apply(x, op=np.tanh)``).  A function is no run-time value of compiled code, but it is fixed for
a call: ``polyfuse.kernel`` compiles the function body once per tuple of such function objects
(``specialise``), as if the parameter were a global name bound to the function.  Its calls then
inline as any helper's (a plain ``def``), or call the NumPy/math function (``module_attribute``);
anything the body does with it that a global function could not do is refused there.

``specialise`` (the runtime half) builds the function that is compiled: the same code, whose
globals bind the parameters' names and whose signature lacks them; ``drop_parameters`` (the
frontend half, before the rewrite) removes them from the ``def`` that is lifted.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import types

import numpy as np

from .source import KernelSource

#: The attribute of a specialised function naming the parameters its globals bind.
BOUND = "__polyfuse_bound_functions__"


def is_function(value: object) -> bool:
    """A value a kernel takes as a function parameter: a Python function (a numba dispatcher's
    ``py_func`` is one), a NumPy ufunc or a builtin such as ``math.sqrt`` or ``abs``."""
    value = getattr(value, "py_func", value)
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc))


def specialise(fn: types.FunctionType, functions: dict[str, object]) -> types.FunctionType:
    """``fn`` with ``functions`` (parameter -> function) bound as globals: the same code and
    source, a signature without those parameters (the kernel's call binds the rest)."""
    bound = {name: getattr(value, "py_func", value) for name, value in functions.items()}
    special = types.FunctionType(fn.__code__, {**fn.__globals__, **bound}, fn.__name__, fn.__defaults__,
                                 fn.__closure__)
    special.__qualname__, special.__module__ = fn.__qualname__, fn.__module__
    signature = inspect.signature(fn)
    special.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for p in signature.parameters.values() if p.name not in bound])
    setattr(special, BOUND, tuple(bound))
    return special


def bound_texts(fn) -> str:
    """``name=module.qualname`` of each function ``fn`` binds (for the disk cache's key: two
    ufuncs have no source text to tell them apart)."""
    parts = []
    for name in getattr(fn, BOUND, ()):
        value = fn.__globals__[name]
        where = getattr(value, "__module__", None) or type(value).__name__
        parts.append(f"{name}={where}.{getattr(value, '__qualname__', getattr(value, '__name__', '?'))}")
    return " ".join(parts)


def drop_parameters(source: KernelSource, fn) -> KernelSource:
    """``source`` without the parameters ``fn`` binds to functions (``specialise``), and without
    their defaults: from here on their names are globals."""
    names = set(getattr(fn, BOUND, ()))
    if not names:
        return source
    tree = copy.deepcopy(source.tree)
    args = tree.args
    first_default = len(args.args) - len(args.defaults)
    kept = [(k, a) for k, a in enumerate(args.args) if a.arg not in names]
    args.defaults = [args.defaults[k - first_default] for k, _ in kept if k >= first_default]
    args.args = [a for _, a in kept]
    return dataclasses.replace(source, tree=tree)
