"""User-facing exceptions.

Every error a user can trigger is a :class:`PolyfuseError`; bugs in polyfuse itself are
:class:`InternalError`.  Errors about the user's source carry its location and render it the way
a compiler does: ``file:line:col``, the line, and carets under the construct.
"""

from __future__ import annotations

from dataclasses import dataclass


class PolyfuseError(Exception):
    """Base class of every exception polyfuse raises on purpose."""


@dataclass(frozen=True)
class SourceSpan:
    """Where a construct sits in the user's file (1-based line, 0-based columns)."""

    filename: str
    line: int
    col: int
    end_col: int
    text: str  # the full source line
    # where the construct sits in a helper polyfuse writes itself (frontend/builtin_helpers.py),
    # inlined at this span: the user's call as written and what the call supports
    inlined: str = ""
    # the user's helper whose line this is, inlined into the kernel (frontend/rewrite.py): shown as
    # a Python traceback shows a function, ``File "f.py", line 3, col 5, in helper``
    function: str = ""

    def render(self) -> str:
        width = max(1, self.end_col - self.col)
        caret = " " * self.col + "^" * width
        where = f", in {self.function}" if self.function else ""
        return f'  File "{self.filename}", line {self.line}, col {self.col + 1}{where}\n    {self.text}\n    {caret}'

    def location(self) -> str:
        return f"{self.filename}:{self.line}:{self.col + 1}"


class UnsupportedError(PolyfuseError, NotImplementedError):
    """The kernel uses a construct outside the supported subset (see docs/subset.md)."""

    def __init__(self, message: str, span: SourceSpan | None = None, construct: str = "") -> None:
        self.span = span
        self.construct = construct
        self.reason = message
        if span is not None and span.inlined:
            message = f"{span.inlined}: {message}"
        text = message if span is None else f"{span.location()}: {message}\n{span.render()}"
        super().__init__(text)


class ArgumentError(PolyfuseError, ValueError):
    """A kernel was called with arguments it cannot run on (dtype, rank, size, aliasing)."""


class InternalError(PolyfuseError, RuntimeError):
    """A bug in polyfuse: an invariant between stages did not hold."""


class VerificationError(InternalError):
    """A transformed schedule violates a dependence (caught by the verifier)."""
