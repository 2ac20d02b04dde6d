"""Getting a kernel's source and pointing at pieces of it in error messages."""

from __future__ import annotations

import ast
import copy
import inspect
import linecache
import re
import textwrap
import threading
import types
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from polyfuse.errors import SourceSpan, UnsupportedError
from polyfuse.model.names import in_user_names

#: One conversion between source and Python AST objects at a time.  CPython 3.11 keeps the AST
#: converter's recursion depth per interpreter, not per thread, so two threads parsing at once can
#: fail with "SystemError: AST constructor recursion depth mismatch" (cpython gh-106905; it failed
#: tests/runtime/test_concurrent_compiles.py while one thread read a kernel's source for its cache
#: key and another lifted).  Every ``ast.parse`` of polyfuse goes through :func:`parse`, and the
#: frontend's whole lift holds the lock too (compiler.FRONTEND_LOCK is this lock).
AST_LOCK = threading.RLock()


def parse(text: str, mode: str = "exec") -> Any:
    """``ast.parse`` under :data:`AST_LOCK`, each choice the user wrote marked (``written``)."""
    with AST_LOCK:
        tree = ast.parse(text, mode=mode)
    for node in walk(tree):
        kind = _WRITTEN.get(type(node))
        if kind is not None and (not isinstance(node, ast.Call) or _is_builtin_extreme(node)):
            node.__class__ = kind
    return tree


class IfExp(ast.IfExp):
    """``a if c else b`` as the user wrote it: its value has the type of the branch Python
    takes (frontend.expressions ``select``).  The frontend's own choices (``np.maximum``'s,
    ``np.where``'s elements) stay ``ast.IfExp``: one promoted type, as NumPy's ufuncs give.
    Copies keep the class (``copy_tree``, ``copy.deepcopy``); a pass that builds a new IfExp
    of the user's branches makes one promoted type of it again."""


class BoolOp(ast.BoolOp):
    """``a and b`` / ``a or b`` as the user wrote it: the value is the deciding operand's, in
    its own type (as ``IfExp``)."""


class Call(ast.Call):
    """A call of the builtin ``min`` or ``max`` as the user wrote it: Python returns the operand
    it chose, in its own type (as ``IfExp``)."""


_WRITTEN: dict[type, type] = {ast.IfExp: IfExp, ast.BoolOp: BoolOp, ast.Call: Call}


def _is_builtin_extreme(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id in ("min", "max")


def written(node: ast.AST) -> bool:
    """Whether ``node`` is a choice the user wrote (typed per branch), not one the frontend made."""
    return type(node) in (IfExp, BoolOp, Call)


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


def bound_names(target: ast.expr) -> set[str]:
    """The names an assignment to ``target`` binds (``a, b = ...``: both; ``x[i] = ...``: none)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for elt in target.elts for name in bound_names(elt)}
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    return set()


def store_counts(body: list[ast.stmt]) -> Counter[str]:
    """How many times ``body`` binds (or deletes) each name, at any depth."""
    return Counter(n.id for stmt in body for n in walk(stmt) if isinstance(n, ast.Name)
                   and not isinstance(n.ctx, ast.Load))


def counted_loop(loop: ast.For) -> bool:
    """Whether ``loop`` runs over ``range(...)`` or ``prange(...)`` (``numba.prange`` too, under
    any module name): a counted loop, whose variable stays a loop variable."""
    func = loop.iter.func if isinstance(loop.iter, ast.Call) else None
    return (isinstance(func, ast.Name) and func.id in ("range", "prange")) \
        or (isinstance(func, ast.Attribute) and func.attr == "prange")

def map_blocks(stmt: ast.stmt, rewrite: Callable[[list[ast.stmt]], list[ast.stmt]],
               fields: tuple[str, ...] = ("body", "orelse", "finalbody")) -> None:
    """Replace each statement list that ``stmt`` nests under ``fields`` (an if's or a loop's
    bodies, a try's) by ``rewrite(list)``, in place: the recursion of the frontend's block passes."""
    for name in fields:
        inner = getattr(stmt, name, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            setattr(stmt, name, rewrite(inner))


#: Fields that hold a name, a number or a string in every node class that has them (Python's
#: ASDL: identifier, int, string, constant), never a node: ``walk`` does not look in them.
_LEAF_FIELDS = frozenset({"id", "attr", "arg", "name", "asname", "module", "level", "type_comment",
                          "is_async", "simple", "conversion", "kind", "tag"})
#: Per node class, the fields ``walk`` looks in: its ``_fields`` less the leaf ones (and a
#: Constant's value, which is a Python value).
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(cls: type) -> tuple[str, ...]:
    """``_NODE_FIELDS[cls]``, made on a class's first walk."""
    leaves = _LEAF_FIELDS | {"value"} if issubclass(cls, ast.Constant) else _LEAF_FIELDS
    fields = _NODE_FIELDS[cls] = tuple(name for name in cls._fields if name not in leaves)  # type: ignore[attr-defined]
    return fields


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)`` in about half its time: the same nodes in the same order (breadth
    first, each node's children in field order, a node's children taken before the node is
    yielded, so a caller may change the node it is handed), without ``ast.iter_child_nodes``'s
    two nested generators per node, and looking only in the fields that can hold a node (a
    table per node class).  The frontend walks every kernel's tree dozens of times (each pass
    asks its own questions of the whole body); tests/frontend/test_copy_tree.py compares the
    two walks."""
    todo = [node]  # (a list grown while it is iterated: the queue, without deque's calls)
    put, node_fields, AST = todo.append, _NODE_FIELDS, ast.AST
    for node in todo:
        cls = node.__class__
        fields = node_fields[cls] if cls in node_fields else _node_fields(cls)
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        put(item)
            elif isinstance(value, AST):
                put(value)
        yield node


@dataclass(frozen=True)
class ReturnedPrefixes:
    """Values returned as ``buf[:k]`` (frontend.growing_lists): each position in the final
    return's tuple where a buffer stands, its count at the next position, with the dtype an
    empty result takes (``np.array([])``'s float64; "" for the buffer's own); ``single`` when
    the kernel returns one value, not a tuple; ``copied`` the positions returned as a copy of the
    prefix (``buf[:k].copy()``, a boolean-mask selection, ``np.array`` of a list: new arrays in
    Python, not views of a larger buffer)."""

    at: tuple[tuple[int, str], ...]
    single: bool
    copied: tuple[int, ...] = ()  # the positions whose value is a new array in Python: a copy comes back


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
    # np.bincount calls whose x reads a NumPy call polyfuse writes as a helper with loops
    # (frontend/call_sizes.py: written_arguments): id(call) -> (call, x as the user wrote it with
    # its locals written out, those bound once, those bound again at the top level), for the call
    # to compute the result's length
    written_x: dict[int, tuple[ast.AST, ast.expr, frozenset[str], frozenset[str]]] = field(
        default_factory=dict, compare=False, hash=False, repr=False)
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
    # the locations of the asserts written for the user's ``raise ValueError("...")`` (frontend/
    # numba_idioms.py), whose ("ValueError", "...") message raises that exception where it runs
    raises: set[tuple[int, int, int, int]] = field(default_factory=set, compare=False, hash=False, repr=False)
    # the locations of the builtin ``divmod(a, b)`` calls frontend.desugar made ``(a // b, a % b)``:
    # a float's division by zero there raises Python's ZeroDivisionError of divmod ("float divmod()")
    divmods: set[tuple[int, int, int, int]] = field(default_factory=set, compare=False, hash=False, repr=False)
    # names frontend.rewrite gave a binding of the user's name (``u = u.copy()`` binds ``u_2``):
    # fresh name -> the user's, which error messages show
    user_names: dict[str, str] = field(default_factory=dict, compare=False, hash=False, repr=False)
    # into the rewrite: the user's locals the lift's dataflow check found read before any
    # assignment (polyfuse/compiler.py); out of it: the names frontend.unbound_locals gave those
    # it flags and checks, and the names later passes made of them (their storage starts at
    # zero, frontend/lift.py)
    unbound: frozenset[str] = field(default=frozenset(), compare=False, hash=False, repr=False)

    def span(self, node: ast.AST) -> SourceSpan:
        if self.at is not None:
            return self.at
        origin = self.foreign.get(id(node))
        if origin is not None and origin[0] is node:
            span = origin[1].span(node)
            helper = origin[1].tree.name
            if span.inlined or origin[1].at is not None or helper == self.tree.name:
                return span
            return replace(span, function=helper)  # the user's helper, inlined
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
        message = in_user_names(message, self.user_names)  # the user's own names, never ours
        return UnsupportedError(message, self.span(node), in_user_names(construct or _describe(node), self.user_names))


def location_key(node: ast.AST) -> tuple[int, int, int, int]:
    """``node``'s line and column span, as a key."""
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), getattr(node, "end_lineno", 0) or 0,
            getattr(node, "end_col_offset", 0) or 0)


#: the first line of a function's source as inspect.findsource accepts it (a decorator or the def)
_DEF_LINE = re.compile(r"\s*(@|def\s|async\s+def\s)")


def _last_code_line(code: types.CodeType) -> int:
    """The last source line any instruction of ``code`` or of the code nested in it comes from."""
    last = max((line for _, _, line in code.co_lines() if line is not None), default=code.co_firstlineno)
    nested = (_last_code_line(c) for c in code.co_consts if isinstance(c, types.CodeType))
    return max([last, *nested])


#: the text of every function polyfuse generated and compiles again later (dask block variants,
#: einsum kernels, kernels unpickled where their file is gone), by fake filename: ``linecache``
#: alone is not a store (``linecache.clearcache()``, which IPython and some tests call, empties it,
#: and the variant's next signature could not be read).
_REGISTERED: dict[str, list[str]] = {}


def register_source(filename: str, text: str | list[str]) -> None:
    """Make ``text`` the source of ``filename`` for polyfuse, ``inspect`` and tracebacks, also
    after ``linecache.clearcache()``."""
    lines = text.splitlines(True) if isinstance(text, str) else list(text)
    _REGISTERED[filename] = lines
    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)


def _restore_registered(filename: str) -> None:
    """Put a registered source back into ``linecache`` where something emptied it."""
    if filename in _REGISTERED and filename not in linecache.cache:
        register_source(filename, _REGISTERED[filename])


def file_lines(filename: str, module_globals: dict | None = None) -> list[str]:
    """``linecache.getlines``, with a registered source put back where something emptied it."""
    _restore_registered(filename)
    return linecache.getlines(filename, module_globals)


def _lines_from_code(fn) -> tuple[list[str], int] | None:
    """The function's lines and first line number, ending at its last instruction (None where
    the lines do not start with a ``def`` or a decorator, or go on past that instruction)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return None
    filename = inspect.getsourcefile(fn)
    lines = file_lines(filename, fn.__globals__) if filename else []
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines) or not _DEF_LINE.match(lines[start]):
        return None
    end = _last_code_line(code)
    indent = len(lines[start]) - len(lines[start].lstrip())
    for line in lines[end:]:
        text = line.strip()
        if text and not text.startswith("#"):
            if len(line) - len(line.lstrip()) > indent:
                return None  # a statement without instructions (pass) after the last one
            break
    return lines[start:end], start + 1


def _parsed(lines: list[str]) -> tuple[str, ast.Module] | None:
    """The dedented text of ``lines`` and its AST (None if it does not parse)."""
    text = textwrap.dedent("".join(lines))
    try:
        return text, parse(text)
    except SyntaxError:
        return None


def _source(fn) -> tuple[list[str], int, str, ast.Module]:
    """``inspect.getsourcelines(fn)``, the dedented text and its AST.

    inspect finds where a function ends by tokenizing it, and tokenize compiles its regular
    expressions on its first use in a process (~3.5 ms of CPU, 10-25 ms of wall time on the
    loaded 2-core machine: most of the first kernel's source reading, compiled or loaded from
    the disk cache).  The code object says where the function's last instruction is: when the
    lines after it up to the next one at the ``def``'s indentation or less are blank or comments,
    and the lines up to it parse, inspect's block ends there too.  A line after it at the
    ``def``'s indentation or less but inside a bracket or a string (a closing parenthesis in
    column 0) leaves the lines before it unparsable; in that case, as in any other, inspect
    decides."""
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        _restore_registered(code.co_filename)  # inspect finds a fake filename only in linecache
    fast = _lines_from_code(fn)
    if fast is not None and (parsed := _parsed(fast[0])) is not None:
        return (*fast, *parsed)
    lines, first_line = inspect.getsourcelines(fn)
    text = textwrap.dedent("".join(lines))
    return lines, first_line, text, parse(text)


def source_lines(fn) -> tuple[list[str], int]:
    """``inspect.getsourcelines(fn)``, without its tokenizer where the code object suffices."""
    lines, first_line, _, _ = _source(fn)
    return lines, first_line


def read_source(fn) -> KernelSource:
    """Parse the source of ``fn``; works for files and for code registered in ``linecache``."""
    try:
        lines, first_line, text, module = _source(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as exc:
        raise UnsupportedError(
            f"cannot read the source of {getattr(fn, '__name__', fn)!r}: {exc}; "
            "polyfuse compiles Python functions defined in a file (or registered in linecache)"
        ) from None
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    defs = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    coroutines = [n for n in module.body if isinstance(n, ast.AsyncFunctionDef)]
    if not defs and coroutines:  # located at its def line, as any construct
        located = KernelSource(ast.FunctionDef(coroutines[0].name, coroutines[0].args, [], [], None),  # type: ignore[call-arg]
                               filename, first_line, tuple(text.splitlines()), indent, text)
        raise located.error(coroutines[0], "unsupported construct: async def makes the kernel a coroutine, whose "
                            "body runs when it is awaited; a kernel is a plain def", "async def")
    if not defs:
        raise UnsupportedError(f"{fn.__name__!r} is not a plain 'def' function (lambdas are not supported)")
    _check_same_function(fn, defs[0], filename, first_line)
    return KernelSource(defs[0], filename, first_line, tuple(text.splitlines()), indent, text)


def _check_same_function(fn, node: ast.FunctionDef, filename: str, first_line: int) -> None:
    """Refuse source that is not ``fn``'s: the file changed since the module was imported (lines
    added above the function), so its code object's first line now falls in another function,
    which inspect walks back to.  Compiling that one would run another kernel than Python runs
    (fe53: test_batches gave another function's result while batch_fe53.py was being edited)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return
    arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
    names = tuple(a.arg for a in arguments)
    expected = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if node.name == code.co_name and names == expected:
        return
    raise UnsupportedError(
        f"cannot read the source of {code.co_name!r}: {filename}:{first_line} now holds "
        f"'def {node.name}({', '.join(names)})', not 'def {code.co_name}({', '.join(expected)})': the file "
        "changed since the function was defined; reload its module (importlib.reload) or restart")


def _describe(node: ast.AST) -> str:
    text = ast.unparse(node) if isinstance(node, (ast.expr, ast.stmt)) else type(node).__name__
    first = text.splitlines()[0] if text else type(node).__name__
    return first if len(first) <= 60 else first[:57] + "..."
