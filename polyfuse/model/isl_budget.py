"""A bound on the isl work one optional transformation may spend.

isl counts its elementary operations; past the bound it fails with an error, which callers treat
as "don't transform" (keep the schedule they had).  Programs full of modulo constraints can
otherwise make scheduling or a legality check take minutes.  ``POLYFUSE_ISL_BUDGET`` overrides
the bound (0 = unlimited).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import islpy as isl

from polyfuse import options

_lock = threading.RLock()
_active = threading.local()  # how many bounded blocks this thread is inside
ISL_LOCK = threading.RLock()  # polyfuse's isl work shares one context; isl is not thread-safe


def budget() -> int:
    """Operations one optional transformation may spend (``options.isl_operations``)."""
    return options.isl_operations()


class BudgetExceeded(Exception):
    """isl gave up (its operation budget ran out): the caller keeps its untransformed choice."""


@dataclass
class Deadline:
    """The time one compile's optional isl work may start in (None: no limit).

    isl's operation counter bounds each optional transformation, but not the number of them, and
    some isl work (the scheduler's ILP, footprints) hardly counts: a program whose domains split
    into hundreds of pieces could spend minutes in checks that each stay within budget.  Inside
    ``active()``, a ``bounded`` block or a ``Meter.exact`` block that starts after ``seconds``
    raises ``BudgetExceeded`` at once, so the transformation is skipped (always legal) and the
    compile finishes with what it has.  ``skipped`` counts those refusals: a compile that had any
    depends on the machine's speed and load, so it is not written to the disk cache."""

    seconds: float | None
    started: float = field(default_factory=time.perf_counter)
    skipped: int = 0

    def passed(self) -> bool:
        return self.seconds is not None and time.perf_counter() - self.started > self.seconds

    @contextmanager
    def active(self) -> Iterator[None]:
        previous = getattr(_active, "deadline", None)
        _active.deadline = self
        try:
            yield
        finally:
            _active.deadline = previous

    def note(self) -> str:
        return (f"the compile passed its {self.seconds:g} s deadline for optional work "
                f"(POLYFUSE_COMPILE_SECONDS): {self.skipped} optional analyses or transformations "
                "were skipped, each keeping the legal choice it had") if self.skipped else ""


def _refuse_past_deadline() -> None:
    deadline = getattr(_active, "deadline", None)
    if deadline is not None and deadline.passed():
        deadline.skipped += 1
        raise BudgetExceeded(f"past the compile deadline of {deadline.seconds:g} s")


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
        _active.depth = getattr(_active, "depth", 0) + 1
        try:
            yield
        except isl.Error as exc:
            raise BudgetExceeded(str(exc)) from None
        finally:
            _active.depth -= 1
            if outermost:
                ctx.set_max_operations(0)
                ctx.reset_operations()


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
        try:
            yield meter
        finally:
            _active.depth = 0
            ctx.set_max_operations(0)
            ctx.reset_operations()
