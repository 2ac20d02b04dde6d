"""Kernels across processes: a Kernel pickles as its function, its source and its options,
never as compiled code.

A Dask worker (or any process) that unpickles a kernel gets one Kernel per distinct kernel and
process (so every task of a graph shares its compiled variants), and compiles it on first use:
a disk-cache load when another process compiled it already.  The function's source travels
with it and is registered in ``linecache`` where the file is not readable (another machine,
``__main__``), so polyfuse can read it there.
"""

from __future__ import annotations

import linecache
import os
import threading
from dataclasses import dataclass
from typing import Any

_KERNELS: dict[tuple, Any] = {}  # per process: recipe key -> Kernel
_LOCK = threading.Lock()


@dataclass(frozen=True)
class KernelRecipe:
    """What a kernel is made from: the function (pickled by reference or, with cloudpickle,
    by value), the lines of the file it is in, and the decorator's options."""

    fn: Any
    filename: str
    lines: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]

    def key(self) -> tuple:
        code = self.fn.__code__
        return (self.filename, code.co_firstlineno, self.fn.__qualname__, hash(self.lines), self.options)


def recipe_of(kernel) -> KernelRecipe:
    fn = kernel.py_func
    filename = fn.__code__.co_filename
    if os.path.exists(filename):
        filename = os.path.abspath(filename)  # the receiving process may run elsewhere
    return KernelRecipe(fn, filename, tuple(linecache.getlines(filename)), tuple(sorted(kernel.init_options.items())))


def rebuild(recipe: KernelRecipe):
    """The process's Kernel for ``recipe`` (made on first use)."""
    from polyfuse.kernel import Kernel

    key = recipe.key()
    with _LOCK:
        found = _KERNELS.get(key)
        if found is None:
            fn = recipe.fn
            if fn.__code__.co_filename != recipe.filename:
                # cloudpickle renames the code of functions it pickles by value (``__main__``)
                fn.__code__ = fn.__code__.replace(co_filename=recipe.filename)
            if recipe.lines and not os.path.exists(recipe.filename):
                text_size = sum(len(line) for line in recipe.lines)
                linecache.cache[recipe.filename] = (text_size, None, list(recipe.lines), recipe.filename)
            found = _KERNELS[key] = Kernel(fn, **dict(recipe.options))
    return found
