"""The front half of a compile, kept for the next variant of the same function.

The front half is the stages that read the function itself: the lift (parse, rewrite, lowering,
isl domains and accesses), the check that every scalar is assigned before it is read, and the
dependence analysis.  Their output depends on the function, the call signature and
``Options.blas_products()`` only, not on the fusion mode, the target or any other option; a
process that compiles one function under several options (``fuse="none"`` and ``"max"``,
``target="python"`` and ``"cpu"``: the test suite's corpus runs three per program, the
benchmarks and ``explain()`` of a mode after a call) lifts it once per signature.

What finds a kept front half (``lookup``'s key, then ``Kept.matches``):

- the function object itself (held, so that its ``id`` is not recycled while it is kept);
- everything the lift reads from it that may change while the object lives, compared by
  identity: its code, defaults and closure cells, and the value of every global or builtin name
  its code names (constants, ufuncs, modules, dtypes), for the helpers it calls too, transitively;
  and its source text (``read_source``: an edited file is read again);
- the call signature (the ``Argument`` records, compared whole) and ``blas_products()``;
- every ``POLYFUSE_*`` environment variable (the frontend's knobs, the isl budgets that the
  dependence analysis and the compile's deadline read).

A reused front half leaves the compile where a cold one would be: the same stage outputs (the
very objects; the later stages build new ones, through ``dataclasses.replace``), the
compile's ``Deadline`` tallies as the dependence analysis left them, and the isl objects it kept
for the rest of the compile (``isl_budget.per_compile``), so that the later stages start from the
same state.  One thing differs, and it is why the memo is off by default
(``POLYFUSE_LIFT_MEMO=1`` turns it on; the test corpus does): isl simplifies a set's internal
form in place (the same set: a redundant constraint dropped, disjuncts in another order, a
cached sample point), also while the earlier compile schedules, and islpy has no deep copy to
keep a pristine one.  So explain() may print a reused domain or dependence differently, and isl
counts other operations on it: where a transformation's isl budget is nearly spent, the
decision can differ from a cold compile's (jacobi-2d at ``POLYFUSE_ISL_BUDGET=13000``,
tests/end_to_end/test_compile_deadline.py: other tiles), so the code would depend on what
compiled before in the process.  At the default budgets, over the whole test corpus (1502
variants, 836 of them reused) the loop code, the deadline's tallies and every decision but the
printed relations were those of cold compiles.  Not kept: a front half that met the wall-clock
safety net (``Deadline.timed_out``: it depends on the machine's load) or raised (the next variant
raises again).  Only the last ``SIZE`` are kept.
"""

from __future__ import annotations

import builtins
import os
import threading
import types
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from polyfuse import options
from polyfuse.errors import UnsupportedError
from polyfuse.frontend.source import read_source
from polyfuse.model.isl_budget import Deadline, current_memo
from polyfuse.model.scop import Argument
from polyfuse.model.stages import Stages

#: How many front halves are kept (a program's variants compile one after another).
SIZE = 16
#: The stages of the front half, in order.
STAGES = ("lift", "dependences", "check locals")
_TALLIES = ("spent", "blocks", "skipped")

_lock = threading.Lock()
_kept: OrderedDict[tuple, Kept] = OrderedDict()


@dataclass(frozen=True)
class Kept:
    """One front half: what it was computed from (beyond its key) and what it left."""

    reads: tuple[Any, ...]  # what the lift reads from the function, by identity (``_reads``)
    text: str  # the function's source text
    outputs: tuple[Any, ...]  # of ``STAGES``
    tallies: tuple[int, ...]  # the deadline's ``_TALLIES`` after the dependence analysis
    memo: dict  # the isl objects the front half kept for the rest of its compile

    def matches(self, reads: tuple[Any, ...], text: str) -> bool:
        return (self.text == text and len(self.reads) == len(reads)
                and all(a is b for a, b in zip(self.reads, reads)))

    def restore(self, stages: Stages, deadline: Deadline) -> None:
        """Leave ``stages`` (``deadline`` in it, where the compiler puts it: before the
        dependences), ``deadline`` and the compile's isl memo as the front half did."""
        for name, output in zip(STAGES, self.outputs):
            if name == "dependences":
                stages.outputs["deadline"] = deadline
            stages.outputs[name] = output
            stages.seconds[name] = 0.0
        for name, value in zip(_TALLIES, self.tallies):
            setattr(deadline, name, value)
        memo = current_memo()
        if memo is not None:
            memo.update(self.memo)


@dataclass(frozen=True)
class Lookup:
    """A compile's key and what ``Kept.matches`` compares, computed once before its front half."""

    key: tuple
    reads: tuple[Any, ...]
    text: str


def lookup(fn, arguments: tuple[Argument, ...], *, blas: bool) -> Lookup | None:
    """What finds (or keeps) ``fn``'s front half for this signature; None when it is not kept
    (turned off, or no source to read: the lift raises that error)."""
    if not options.lift_memo():
        return None
    try:
        text = read_source(fn).text
    except UnsupportedError:
        return None
    knobs = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("POLYFUSE_")))
    return Lookup((id(fn), arguments, blas, knobs), _reads(fn), text)


def find(found: Lookup) -> Kept | None:
    with _lock:
        kept = _kept.get(found.key)
        if kept is None or not kept.matches(found.reads, found.text):
            return None
        _kept.move_to_end(found.key)
        return kept


def keep(found: Lookup, stages: Stages, deadline: Deadline) -> None:
    """Keep the front half ``stages`` holds (the compile has run exactly ``STAGES`` so far)."""
    memo = current_memo()
    if deadline.timed_out or memo is None:
        return
    kept = Kept(found.reads, found.text, tuple(stages.outputs[s] for s in STAGES),
                tuple(getattr(deadline, t) for t in _TALLIES), dict(memo))
    with _lock:
        _kept[found.key] = kept
        _kept.move_to_end(found.key)
        while len(_kept) > SIZE:
            _kept.popitem(last=False)


def clear() -> None:
    """Forget every kept front half."""
    with _lock:
        _kept.clear()


def _reads(fn) -> tuple[Any, ...]:
    """What the lift of ``fn`` may read from it, as objects to compare by identity: per function
    (``fn``, then each helper its code names, transitively) the function, its code, defaults and
    closure cells' contents, then the value of each name its code (nested code too) looks up in its globals or
    the builtins, in order; a name bound to nothing reads as ``_UNBOUND``."""
    out: list[Any] = []
    seen: set[int] = set()
    todo = [fn]
    while todo:
        func = todo.pop()
        if id(func) in seen:
            continue
        seen.add(id(func))
        out += [func, func.__code__, func.__defaults__, func.__kwdefaults__]
        out += [_cell(c) for c in func.__closure__ or ()]
        for name in _names(func.__code__):
            value = func.__globals__.get(name, getattr(builtins, name, _UNBOUND))
            out.append(value)
            helper = getattr(value, "py_func", value)  # a numba dispatcher's Python function
            if isinstance(helper, types.FunctionType):
                todo.append(helper)
    return tuple(out)


_UNBOUND = object()


def _cell(cell) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _UNBOUND


def _names(code: types.CodeType) -> Iterator[str]:
    """The global (and attribute) names ``code`` and the code nested in it use."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)
