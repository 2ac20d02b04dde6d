"""A bound on the isl work one optional transformation may spend.

isl counts its elementary operations; past the bound it fails with an error, which callers treat
as "don't transform" (keep the schedule they had).  Programs full of modulo constraints can
otherwise make scheduling or a legality check take minutes.  ``POLYFUSE_ISL_BUDGET`` overrides
the bound (0 = unlimited).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import islpy as isl

from polyfuse import options

_lock = threading.RLock()
ISL_LOCK = threading.RLock()  # polyfuse's isl work shares one context; isl is not thread-safe


def budget() -> int:
    """Operations one optional transformation may spend (``options.isl_operations``)."""
    return options.isl_operations()


class BudgetExceeded(Exception):
    """isl gave up (its operation budget ran out): the caller keeps its untransformed choice."""


@contextmanager
def bounded(ctx: isl.Context, operations: int | None = None) -> Iterator[None]:
    """Run the isl calls of one optional transformation with at most ``operations`` operations.

    islpy does not say why an isl call failed, so any isl error in the block counts as the budget
    running out: the transformation is skipped, which is always safe."""
    limit = budget() if operations is None else operations
    with _lock:
        ctx.reset_operations()
        ctx.set_max_operations(limit)
        try:
            yield
        except isl.Error as exc:
            raise BudgetExceeded(str(exc)) from None
        finally:
            ctx.set_max_operations(0)
            ctx.reset_operations()
