"""Getting a kernel's source and pointing at pieces of it in error messages."""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import threading
from dataclasses import dataclass, field
from typing import Any

from polyfuse.errors import SourceSpan, UnsupportedError

#: One conversion between source and Python AST objects at a time.  CPython 3.11 keeps the AST
#: converter's recursion depth per interpreter, not per thread, so two threads parsing at once can
#: fail with "SystemError: AST constructor recursion depth mismatch" (cpython gh-106905; it failed
#: tests/runtime/test_concurrent_compiles.py while one thread read a kernel's source for its cache
#: key and another lifted).  Every ``ast.parse`` of polyfuse goes through :func:`parse`, and the
#: frontend's whole lift holds the lock too (compiler.FRONTEND_LOCK is this lock).
AST_LOCK = threading.RLock()


def parse(text: str, mode: str = "exec") -> Any:
    """``ast.parse`` under :data:`AST_LOCK`."""
    with AST_LOCK:
        return ast.parse(text, mode=mode)


#: The values ``copy.deepcopy`` returns as they are (its atomic types that an AST holds).
_ATOMIC = frozenset((type(None), int, float, bool, complex, str, bytes, type(Ellipsis)))


def copy_tree(node: Any) -> Any:
    """``copy.deepcopy(node)`` for an AST (or a list of them), in 40% of its time: the same
    copy, node by node (a node shared within ``node`` shared in the copy, every attribute copied,
    ``type(n)()`` then its ``__dict__`` as deepcopy's ``__reduce_ex__`` path does), written out
    for the node and list types and handed to deepcopy, with the same memo, for anything else (a
    NumPy number in a Constant).  tests/frontend/test_copy_tree.py compares the two."""
    return _copied(node, {})


def _copied(value: Any, memo: dict[int, Any]) -> Any:
    kind = type(value)
    if kind in _ATOMIC:
        return value
    found = memo.get(id(value), memo)
    if found is not memo:
        return found
    if kind is list:
        items: list[Any] = []
        memo[id(value)] = items
        items.extend(_copied(item, memo) for item in value)
        return items
    if isinstance(value, ast.AST) and kind.__reduce_ex__ is ast.AST.__reduce_ex__ \
            and getattr(value, "__deepcopy__", None) is None:
        new = kind()
        memo[id(value)] = new
        fields = {name: _copied(item, memo) for name, item in value.__dict__.items()}
        new.__dict__.update(fields)
        return new
    return copy.deepcopy(value, memo)


@dataclass(frozen=True)
class ReturnedPrefixes:
    """Values returned as ``buf[:k]`` (frontend.growing_lists): each position in the final
    return's tuple where a buffer stands, its count at the next position, with the dtype an
    empty result takes (``np.array([])``'s float64; "" for the buffer's own); ``single`` when
    the kernel returns one value, not a tuple."""

    at: tuple[tuple[int, str], ...]
    single: bool


@dataclass(frozen=True)
class KernelSource:
    """The parsed ``def`` of a kernel and enough to locate its nodes in the user's file."""

    tree: ast.FunctionDef
    filename: str
    first_line: int  # file line of the source's first line
    lines: tuple[str, ...]  # the dedented source lines
    indent: int  # columns removed by dedent
    text: str
    # nodes inlined from helper functions (frontend.rewrite): id(node) -> (node, the helper's
    # source), so their errors point at the helper's own lines; the node is kept alive here
    foreign: dict[int, tuple[ast.AST, KernelSource]] = field(
        default_factory=dict, compare=False, hash=False, repr=False)
    # for loops written with prange (frontend.rewrite made them range loops): id(node) -> node
    pranges: dict[int, ast.AST] = field(default_factory=dict, compare=False, hash=False, repr=False)
    # lists built by append (frontend.growing_lists): buffer -> the locals its items are assigned
    # to, whose types make the buffer's dtype; and the values returned as prefixes of buffers
    list_items: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, hash=False, repr=False)
    prefixes: ReturnedPrefixes | None = field(default=None, compare=False, hash=False, repr=False)

    # a helper of polyfuse's own (frontend/builtin_helpers.py): each of its nodes is located at
    # this span, the outermost call in the user's code that led to it
    at: SourceSpan | None = field(default=None, compare=False, hash=False, repr=False)
    # the location of a call of such a helper -> its span, for the helper's nodes that a later
    # pass copied (they carry the call's location, frontend/rewrite.py: Helper._origin)
    inlined: dict[tuple[int, int, int, int], SourceSpan] = field(
        default_factory=dict, compare=False, hash=False, repr=False)

    def span(self, node: ast.AST) -> SourceSpan:
        if self.at is not None:
            return self.at
        origin = self.foreign.get(id(node))
        if origin is not None and origin[0] is node:
            return origin[1].span(node)
        at = self.inlined.get(location_key(node)) if self.inlined else None
        if at is not None:
            return at
        lineno = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", lineno)
        end_col = getattr(node, "end_col_offset", col + 1)
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        if end_line != lineno:
            end_col = len(line)
        return SourceSpan(
            filename=self.filename,
            line=self.first_line + lineno - 1,
            col=col + self.indent,
            end_col=end_col + self.indent,
            text=(" " * self.indent + line).rstrip(),
        )

    def error(self, node: ast.AST, message: str, construct: str = "") -> UnsupportedError:
        """An UnsupportedError located at ``node``; ``construct`` defaults to the node's text."""
        return UnsupportedError(message, self.span(node), construct or _describe(node))


def location_key(node: ast.AST) -> tuple[int, int, int, int]:
    """``node``'s line and column span, as a key."""
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), getattr(node, "end_lineno", 0) or 0,
            getattr(node, "end_col_offset", 0) or 0)


def read_source(fn) -> KernelSource:
    """Parse the source of ``fn``; works for files and for code registered in ``linecache``."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as exc:
        raise UnsupportedError(
            f"cannot read the source of {getattr(fn, '__name__', fn)!r}: {exc}; "
            "polyfuse compiles Python functions defined in a file (or registered in linecache)"
        ) from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    module = parse(text)
    defs = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    if not defs:
        raise UnsupportedError(f"{fn.__name__!r} is not a plain 'def' function (lambdas are not supported)")
    return KernelSource(defs[0], filename, first_line, tuple(text.splitlines()), indent, text)


def _describe(node: ast.AST) -> str:
    text = ast.unparse(node) if isinstance(node, (ast.expr, ast.stmt)) else type(node).__name__
    first = text.splitlines()[0] if text else type(node).__name__
    return first if len(first) <= 60 else first[:57] + "..."
