"""A bound on the isl work one optional transformation may spend.

isl counts its elementary operations; past the bound it fails with an error, which callers treat
as "don't transform" (keep the schedule they had).  Programs full of modulo constraints can
otherwise make scheduling or a legality check take minutes.  ``POLYFUSE_ISL_BUDGET`` overrides
the bound (0 = unlimited).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

import islpy as isl

from polyfuse import options

_lock = threading.RLock()
_active = threading.local()  # how many bounded blocks this thread is inside
ISL_LOCK = threading.RLock()  # polyfuse's isl work shares one context; isl is not thread-safe
T = TypeVar("T")


def clock() -> float:
    """The compiling thread's CPU seconds, for ``Deadline``'s safety net only (tests make it
    slow): other jobs on a loaded machine do not count."""
    return time.thread_time()


def budget() -> int:
    """Operations one optional transformation may spend (``options.isl_operations``)."""
    return options.isl_operations()


class BudgetExceeded(Exception):
    """isl gave up (its operation budget ran out): the caller keeps its untransformed choice."""


@dataclass
class Deadline:
    """How much optional isl work one compile may do, counted so that the answer does not depend
    on the machine's speed or load.

    isl's operation counter bounds each optional transformation (``bounded``), but not the number
    of them: a program whose domains split into hundreds of pieces has many transformations that
    each run out of operations, and would spend minutes.  So the compile keeps a tally: an
    outermost ``bounded`` block or a ``metered`` analysis that runs out of operations (any isl
    error: islpy does not say which, and a quota met while isl parses text reads as a syntax
    error) charges its whole grant to ``spent``, and every optional block charges one to ``blocks``.  Once either
    tally passes its bound (``operations``, ``max_blocks``), a ``bounded`` or ``Meter.exact``
    block refuses to start (``BudgetExceeded``) and the transformation keeps its legal choice;
    the same program makes the same refusals on any machine.

    ``seconds`` is a safety net on time (``POLYFUSE_COMPILE_SECONDS``: the compiling thread's CPU
    seconds, so that other jobs' load hardly counts), far above what any program within the
    tallies takes: it is only met where isl spends long without counting (the scheduler's ILP,
    footprints; the slowest regression program compiles in 12 s).  ``timed_out`` counts the
    refusals it made: such a compile depends on the machine's speed, so explain() says so and it
    is not written to the disk cache."""

    seconds: float | None
    operations: int | None = None
    max_blocks: int | None = None
    started: float = field(default_factory=lambda: clock())
    spent: int = 0
    blocks: int = 0
    skipped: int = 0
    timed_out: int = 0

    def passed(self) -> bool:
        return self.seconds is not None and clock() - self.started > self.seconds

    def exhausted(self) -> bool:
        """The deterministic tallies are spent (the same on every machine)."""
        return ((self.operations is not None and self.spent >= self.operations)
                or (self.max_blocks is not None and self.blocks >= self.max_blocks))

    def refuse(self) -> None:
        """Raise ``BudgetExceeded`` if no more optional isl work may start; else count a block."""
        if self.exhausted():
            self.skipped += 1
            raise BudgetExceeded("past the compile's budget for optional isl work")
        if self.passed():
            self.skipped += 1
            self.timed_out += 1
            raise BudgetExceeded(f"past the compile deadline of {self.seconds:g} s")
        self.blocks += 1

    @contextmanager
    def active(self) -> Iterator[None]:
        previous = getattr(_active, "deadline", None)
        _active.deadline = self
        try:
            yield
        finally:
            _active.deadline = previous

    def note(self) -> str:
        if not self.skipped:
            return ""
        if self.timed_out:
            return (f"the compile passed its {self.seconds:g} s safety net for optional work "
                    f"(POLYFUSE_COMPILE_SECONDS): {self.skipped} optional analyses or "
                    "transformations were skipped, each keeping the legal choice it had; this "
                    "depends on the machine's speed, so the result is not cached")
        return (f"the compile spent its budget for optional isl work ({self.spent:,} operations "
                f"of transformations that ran out of theirs, {self.blocks} blocks; "
                "POLYFUSE_COMPILE_OPERATIONS): "
                f"{self.skipped} optional analyses or transformations were skipped, each keeping "
                "the legal choice it had")


@contextmanager
def compile_memo() -> Iterator[None]:
    """Scope of ``per_compile``'s memo: one compile (a compile inside it gets its own)."""
    previous = getattr(_active, "memo", None)
    _active.memo = {}
    try:
        yield
    finally:
        _active.memo = previous


def current_memo() -> dict | None:
    """The memo of the compile running on this thread (``compile_memo``); None outside one."""
    return getattr(_active, "memo", None)


def per_compile(key: tuple, make: Callable[[], T]) -> T:
    """``make()``, kept for the rest of the compile (``compile_memo``); made anew outside one.

    isl counts the operations of building an object in the block that builds it: one kept for
    the process (it was ``functools.cache``) would count in the first compile that asked for it
    and in no later one, so a block near its bound could transform a program alone and keep
    its fallback after other compiles (or the reverse).  Kept per compile, every compile of a
    program counts the same operations whatever ran before it in the process."""
    memo = getattr(_active, "memo", None)
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


def _refuse_past_deadline() -> None:
    deadline = getattr(_active, "deadline", None)
    if deadline is not None:
        deadline.refuse()


def _charge(grant: int) -> None:
    """An outermost block or meter ran out of its ``grant`` operations: the compile's tally."""
    deadline = getattr(_active, "deadline", None)
    if deadline is not None:
        deadline.spent += grant


@contextmanager
def bounded(ctx: isl.Context, operations: int | None = None) -> Iterator[None]:
    """Run the isl calls of one optional transformation with at most ``operations`` operations.

    islpy does not say why an isl call failed, so any isl error in the block counts as the budget
    running out: the transformation is skipped, which is always safe.

    A block inside another one (dependences recomputed within a bounded transformation) spends
    the outer block's budget: isl has one operation counter per context, and resetting it would
    lift the outer bound."""
    limit = budget() if operations is None else operations
    _refuse_past_deadline()
    with _lock:
        outermost = not getattr(_active, "depth", 0)
        if outermost:
            ctx.reset_operations()
            ctx.set_max_operations(limit)
            _active.quota = False
        _active.depth = getattr(_active, "depth", 0) + 1
        try:
            yield
        except isl.Error as exc:
            _active.quota = True  # any isl error counts as the budget running out (above)
            raise BudgetExceeded(str(exc)) from None
        finally:
            _active.depth -= 1
            if outermost:
                ctx.set_max_operations(0)
                ctx.reset_operations()
                if _active.quota:
                    _charge(limit)


class Meter:
    """One operation budget shared by a sequence of isl analyses that each have a fallback
    (the dependence analysis: one exact dataflow per array and kind).

    Each ``exact()`` block spends from the same counter; once it is spent, every later block
    fails at its first operation, so the whole sequence costs at most ``operations`` plus its
    fallbacks.  ``fallback()`` lifts the bound for a fallback's own (cheap, required) isl calls,
    except inside a ``bounded`` block, whose bound must hold."""

    def __init__(self, ctx: isl.Context, operations: int | None = None) -> None:
        self.ctx = ctx
        self.limit = budget() if operations is None else operations
        self.nested = bool(getattr(_active, "depth", 0))
        self._shared: dict[str, object] = {}

    def shared(self, name: str, make):
        """``make()``, computed once per meter (what the fallbacks of one analysis share)."""
        if name not in self._shared:
            self._shared[name] = make()
        return self._shared[name]

    @contextmanager
    def exact(self) -> Iterator[None]:
        """isl calls that may give up (``BudgetExceeded``) when the shared budget is spent."""
        _refuse_past_deadline()
        try:
            yield
        except isl.Error as exc:
            _active.quota = True
            raise BudgetExceeded(str(exc)) from None

    @contextmanager
    def fallback(self) -> Iterator[None]:
        """isl calls that must finish: run without the shared bound (it is kept when nested)."""
        if self.nested:
            yield
            return
        self.ctx.set_max_operations(0)
        try:
            yield
        finally:
            self.ctx.set_max_operations(self.limit)


@contextmanager
def metered(ctx: isl.Context, operations: int | None = None) -> Iterator[Meter]:
    """A ``Meter`` over the block (inside a ``bounded`` block: the outer bound and counter)."""
    meter = Meter(ctx, operations)
    if meter.nested:
        yield meter
        return
    with _lock:
        ctx.reset_operations()
        ctx.set_max_operations(meter.limit)
        _active.depth = 1
        _active.quota = False
        try:
            yield meter
        finally:
            _active.depth = 0
            ctx.set_max_operations(0)
            ctx.reset_operations()
            if _active.quota:
                _charge(meter.limit)
