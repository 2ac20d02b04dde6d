"""The one question every schedule edit asks before it is kept: is this candidate legal?

``violations`` runs the semantic check (polyfuse.analysis.verify) under isl's operation budget;
a check that runs out of budget counts as a violation, so an unproven candidate is never used.
"""

from __future__ import annotations

import islpy as isl

from polyfuse.analysis.dependences import Dependences
from polyfuse.analysis.verify import schedule_violations
from polyfuse.model.isl_budget import BudgetExceeded, bounded
from polyfuse.model.scop import Scop
from polyfuse.options import first_violation

OVER_BUDGET = "the legality check exceeded isl's operation budget"


def violations(scop: Scop, deps: Dependences, schedule: isl.Schedule, *,
               over_budget: str = OVER_BUDGET, exact: bool = True) -> list[str]:
    """What ``schedule`` breaks of ``deps`` ([] when legal); ``[over_budget]`` when isl gave up.
    ``exact=False``: a candidate that changes the order of two accesses of one element is
    refused without computing its dataflow (``schedule_violations``).  The check stops at the
    first array with a problem (``POLYFUSE_FIRST_VIOLATION``): one refuses the candidate."""
    try:
        with bounded(scop.context.get_ctx()):
            return schedule_violations(scop, deps, schedule, exact=exact, first=first_violation())
    except BudgetExceeded:
        return [over_budget]
