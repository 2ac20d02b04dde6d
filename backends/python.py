"""Python backend: the loop AST rendered as Python source and executed.

It is the living definition of what a loop AST means, and lets tests check any schedule against
the user's function without LLVM.  Scalars live in 0-d numpy arrays of their declared dtype.
"""

from __future__ import annotations

import cmath
import functools
import linecache
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import count
from typing import Any

import numpy as np

from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, LoopProgram, Node, StmtCall, exclusive_bound
from polyfuse.model.names import user_name
from polyfuse.model.region import render as render_region
from polyfuse.model.scop import isl_name

_serial = count()


@dataclass(frozen=True)
class PythonKernel:
    """A compiled Python-backend kernel; call it with every parameter by name."""

    source: str
    parameters: tuple[str, ...]
    function: Callable[..., None]

    def __call__(self, values: dict) -> None:
        # NumPy's RuntimeWarnings off, as the compiled targets never give them: a result whose
        # length the data decide (np.unique's) is computed over its whole buffer, and past the
        # count the elements' operations (0 / 0 of np.bincount's empty bins) warn where the
        # user's NumPy code never computes them (docs/user-guide.md, Errors)
        with np.errstate(all="ignore"):
            self.function(*(values[p] for p in self.parameters))


def parameters(program: LoopProgram) -> tuple[str, ...]:
    """Arguments, then isl parameters that are not arguments (array extents), then locals."""
    names = [a.name for a in program.arguments]
    names += [p for p in program.params if p not in names]
    names += [a.name for a in program.local_arrays()]
    return tuple(names)


def compile_python(program: LoopProgram) -> PythonKernel:
    params = parameters(program)
    lines = [f"def {program.name}({', '.join(params)}):"]
    body = _body(program, set(params))
    lines += body or ["    pass"]
    source = "\n".join(lines) + "\n"
    filename = f"<polyfuse-python-{program.name}-{next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    names = dict(program.user_names)  # an IndexError names the user's array
    namespace: dict = {"_np": np, "_math": math, "_cmath": cmath,
                       "_index": functools.partial(index_at_run_time, names=names) if names else index_at_run_time,
                       "_check": check_at_run_time}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated code
    return PythonKernel(source, params, namespace[program.name])


def _body(program: LoopProgram, params: set[str]) -> list[str]:
    """The function's lines, shared operands named ``_pf_v<n>`` (``_Text``), or with a longer
    prefix where a name of the program's starts with that one."""
    prefix = "_pf_v"
    while True:
        text = _Text(prefix)
        body: list[str] = []
        _emit(program.root, program, 1, body, text)
        if not any(name.startswith(prefix) for name in text.names | params):
            return body
        prefix += "_"


class _Text:
    """Renders each line's expressions (``ir.SharedPython``: a shared operand computed once);
    ``names``: every name the lines use besides the shared operands' (``_body`` checks them)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.serial = count()
        self.names: set[str] = set()

    def line(self, *exprs: ir.Expr) -> list[str]:
        """``exprs`` as they evaluate in one line of code, in that order."""
        shared = ir.SharedPython(exprs, self.prefix, self.serial)
        texts = [shared.render(e) for e in exprs]
        self.names |= shared.names
        return texts

    def region(self, lines: list[str]) -> list[str]:
        self.names.update(name for line in lines for name in re.findall(r"[A-Za-z_]\w*", line))
        return lines


def index_at_run_time(value, extent: int, array: str, axis: int, when: bool = True, *,
                      names: Mapping[str, str] = {}) -> int | slice:  # noqa: B006 - read only
    """A subscript computed at run time (ir.Index), wrapped and checked as numpy does; where
    ``when`` is false (a guarded store's, ir.Index.when) the empty slice: no element is read or
    written, nothing checked.  ``names``: the user's names of the frontend's (LoopProgram.user_names)."""
    if not when:
        return slice(0, 0)
    value = int(value)
    wrapped = value + extent if value < 0 else value
    if not 0 <= wrapped < extent:
        raise IndexError(index_message(value, extent, user_name(array, names), axis))
    return wrapped


def check_at_run_time(failed, message: str | None, error: str) -> int:
    """An ``assert`` (ir.Check): its error where it fails, as Python raises it there."""
    if failed:
        ir.raise_check(error, message, failed)
    return 0


def index_message(value: int, extent: int | None, array: str, axis: int) -> str:
    size = "" if extent is None else f" with size {extent}"
    return f"index {value} is out of bounds for axis {axis} of {array!r}{size}"


def _emit(node: Node, program: LoopProgram, depth: int, out: list[str], text: _Text) -> None:
    _EMITTERS[type(node)](node, program, depth, out, text)


def _emit_block(node: Block, program, depth, out, text) -> None:
    for child in node.children:
        _emit(child, program, depth, out, text)


def _emit_for(node: For, program, depth, out, text) -> None:
    pad = "    " * depth
    text.names.add(node.iterator)
    bound = exclusive_bound(node)
    if bound is not None:
        step = f", {node.step}" if node.step != 1 else ""
        init, stop = text.line(node.init, bound)
        out.append(f"{pad}for {node.iterator} in range({init}, {stop}{step}):")
        _emit(node.body, program, depth + 1, out, text)
        return
    out.append(f"{pad}{node.iterator} = {text.line(node.init)[0]}")
    out.append(f"{pad}while {text.line(node.cond)[0]}:")
    _emit(node.body, program, depth + 1, out, text)
    out.append(f"{pad}    {node.iterator} += {node.step}")


def _emit_if(node: If, program, depth, out, text) -> None:
    pad = "    " * depth
    out.append(f"{pad}if {text.line(node.cond)[0]}:")
    _emit(node.then, program, depth + 1, out, text)
    if node.otherwise is not None:
        out.append(f"{pad}else:")
        _emit(node.otherwise, program, depth + 1, out, text)


def _emit_stmt(node: StmtCall, program, depth, out, text) -> None:
    pad = "    " * depth
    stmt = program.statement(node.statement)
    for var, value in zip(stmt.iterators, node.args):
        text.names.add(isl_name(var))
        out.append(f"{pad}{isl_name(var)} = {text.line(value)[0]}")
    if stmt.region is not None:  # a loop kept as written (model/region.py)
        out.append(f"{pad}# {stmt.name}: {stmt.region.reason}, line {stmt.region.line}")
        out.extend(text.region(render_region(stmt.region.body, depth)))
        return
    value, *index = text.line(stmt.value, *stmt.index)  # (Python evaluates the value first)
    text.names.add(stmt.array)
    out.append(f"{pad}{stmt.array}[{', '.join(index) if index else '()'}] = {value}  # {stmt.name}")


_EMITTERS: dict[type, Callable[[Any, LoopProgram, int, list[str], _Text], None]] = {
    Block: _emit_block, For: _emit_for, If: _emit_if, StmtCall: _emit_stmt}
