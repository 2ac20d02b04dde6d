"""Shared by :mod:`polyfuse.einsum` and :mod:`polyfuse.spec`: turning generated loop-nest source
into a :class:`polyfuse.Kernel`.

The generated function is ordinary kernel source in the supported subset (docs/subset.md).  It
is registered in :mod:`linecache` under a unique fake filename, so ``inspect.getsource`` (which the
frontend uses) finds it, and error messages and ``explain()`` show its lines.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from polyfuse.errors import ArgumentError
from polyfuse.frontend.source import register_source

if TYPE_CHECKING:
    from polyfuse.kernel import Kernel

_serial = itertools.count()

#: dtypes the kernels compute in; anything else is handed to numpy.
SUPPORTED_DTYPES = frozenset(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))


def dtype_source(dtype: np.dtype) -> str:
    """``np.float32`` etc., as written in an ``np.empty(..., dtype=...)`` allocation."""
    return f"np.{np.dtype(dtype).name}"


def zero_literal(dtype: np.dtype) -> str:
    return "0" if np.issubdtype(dtype, np.integer) else "0.0"


def define_function(src: str, name: str, tag: str) -> Callable[..., Any]:
    """``exec`` generated source under a fake, ``linecache``-registered filename; return ``name``."""
    filename = f"<polyfuse-{tag}-{next(_serial)}>"
    register_source(filename, src)
    namespace: dict[str, Any] = {"np": np, "math": math}
    exec(compile(src, filename, "exec"), namespace)  # noqa: S102 - polyfuse-generated source
    return namespace[name]


def build_kernel(src: str, name: str, tag: str, *, target: str, fuse: str, fastmath: bool = False,
                 interleave: bool = False) -> Kernel:
    """The generated function wrapped with ``polyfuse.kernel``; ``blas=False``: the planners
    (einsum_plan.py, spec.py) already chose BLAS or these loops for each product, by their own
    cost model, and the loops they generate must stay loops."""
    from polyfuse.kernel import Kernel

    return Kernel(define_function(src, name, tag), target=target, fuse=fuse, fastmath=fastmath,
                  interleave=interleave, blas=False)


class Lines:
    """An indented source builder."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass(frozen=True)
class Caret:
    """A position in a one- or multi-line text, rendered compiler-style."""

    text: str
    offset: int  # 0-based character offset
    width: int = 1

    def line_col(self) -> tuple[int, int]:
        """1-based line, 0-based column; the end of a text that ends in newlines is the end of its
        last line (an error "at the end of the spec" points there, not past it)."""
        offset = min(self.offset, len(self.text.rstrip("\n")))
        before = self.text[:offset]
        line = before.count("\n") + 1
        col = offset - (before.rfind("\n") + 1)
        return line, col

    def render(self) -> str:
        line, col = self.line_col()
        source_line = self.text.splitlines()[line - 1] if self.text.strip() else ""
        width = max(1, min(self.width, max(1, len(source_line) - col)))
        return f"    {source_line}\n    {' ' * col}{'^' * width}"


def check_target(target: str) -> None:
    if target not in ("cpu", "python"):
        raise ArgumentError(f"target={target!r}; choose one of cpu, python")
