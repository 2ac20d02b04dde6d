"""numba with threads, for the loops table: ``numba.njit(parallel=True)`` of the suite kernel with
``prange`` on its outermost loops whose iterations are independent.

polyfuse runs its parallel loops on threads while ``numba.njit`` runs on one, so the headline
speedup mixes threads with code quality.  This builds the numba version a careful numba user would
write: every ``range`` loop written as ``prange``, then polyfuse's own check of each such claim
(``explain()["prange claims"]``: no dependence of the function as written crosses the loop's
iterations) keeps ``prange`` on the outermost loops where it holds and puts ``range`` back
elsewhere (a time loop stays serial, the loops inside it get ``prange``).  A kernel with no such
loop has no parallel numba version.  Its outputs are checked against serial numba's like the
others, so a wrong claim would show as a MISMATCH.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import textwrap
from collections.abc import Callable
from typing import Any

_serial = itertools.count()


def _every_loop_prange(func: Callable) -> str:
    """``func``'s source, undecorated, with every ``range`` loop written ``prange`` (unparsed, so
    that line numbers stay put when :func:`_retag` rewrites it)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef)
    fdef.decorator_list = []
    return _retag(ast.unparse(tree) + "\n", lambda loop: True)


def _retag(text: str, keep: Callable[[ast.For], bool]) -> str:
    """``text`` with ``prange`` for the ``range``/``prange`` loops ``keep`` selects, ``range`` else."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) \
                and node.iter.func.id in ("range", "prange"):
            node.iter.func.id = "prange" if keep(node) else "range"
    return ast.unparse(tree) + "\n"


def _define(func: Callable, text: str) -> Callable:
    import numba

    filename = f"<polyfuse-bench-prange-{next(_serial)}-{func.__name__}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace: dict[str, Any] = dict(func.__globals__)
    namespace["prange"] = numba.prange
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the suite's own kernel, rewritten
    return namespace[func.__name__]


def parallel_loops(func: Callable, args: tuple, text: str | None = None) -> list[int]:
    """Lines (in ``text``, default :func:`_every_loop_prange`'s) of the outermost loops whose
    iterations are independent, as polyfuse's dependence analysis of the function as written decides."""
    from polyfuse.kernel import kernel

    text = _every_loop_prange(func) if text is None else text
    every = _define(func, text)
    claims = kernel(every, target="python", cache=False).explain(*args).to_dict().get("prange claims", [])
    holds = {c["line"] for c in claims if c["parallel"]}
    chosen: list[int] = []

    def visit(stmts: list[ast.stmt], inside: bool) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.For):
                take = not inside and stmt.lineno in holds
                if take:
                    chosen.append(stmt.lineno)
                visit(stmt.body, inside or take)
            elif isinstance(stmt, ast.If):
                visit(stmt.body, inside)
                visit(stmt.orelse, inside)

    tree = ast.parse(text)
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef)
    visit(fdef.body, False)
    return chosen


def numba_parallel(func: Callable, args: tuple) -> tuple[Callable, list[int]] | None:
    """``numba.njit(parallel=True)`` of ``func`` with ``prange`` on its independent outermost
    loops, and their lines; None when no loop qualifies."""
    import numba

    every = _every_loop_prange(func)
    lines = parallel_loops(func, args, every)
    if not lines:
        return None
    text = _retag(every, lambda loop: loop.lineno in lines)
    return numba.njit(parallel=True)(_define(func, text)), lines
