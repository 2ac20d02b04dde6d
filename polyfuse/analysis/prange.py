"""Whether each loop written with ``prange`` has independent iterations, for ``explain()``.

numba trusts ``prange``; polyfuse decides parallelism from dependences, as for every loop, so a
``prange`` loop that carries a dependence (a reduction into ``out[j]``) runs serially and gives
Python's result.  This records, per ``prange`` loop, whether the kernel as written carries a
dependence across its iterations, and which, judged as numba runs ``prange``: flow dependences,
and false ones on every array, kernel-local arrays included (numba shares an array allocated
outside the loop among its threads; polyfuse gives each thread its own copy, but the claim is
about the code as written).  False dependences on scalar locals do not count: numba makes a
scalar assigned in the loop body private to each iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polyfuse.analysis.dependences import Dependences
from polyfuse.model.scop import PrangeLoop, Scop


@dataclass(frozen=True)
class PrangeClaim:
    line: int
    iterator: str
    parallel: bool
    claim: str  # the sentence explain() shows


def prange_claims(scop: Scop, deps: Dependences) -> tuple[PrangeClaim, ...]:
    scalars = {a.name for a in scop.arrays if a.kind == "local" and a.rank == 0}
    return tuple(_claim(loop, deps, scalars) for loop in scop.prange_loops)


def _claim(loop: PrangeLoop, deps: Dependences, scalars: set[str]) -> PrangeClaim:
    carried = sorted({f"{d.kind} on {d.array}" for d in deps.items
                      if (d.kind == "RAW" or d.array not in scalars) and _carries(loop, d.relation)})
    if not carried:
        return PrangeClaim(loop.line, loop.iterator, True, "holds: no dependence crosses its iterations")
    return PrangeClaim(loop.line, loop.iterator, False,
                       f"does not hold: its iterations depend on each other ({', '.join(carried)}); "
                       "the dependences decide the order, as in Python")


def _carries(loop: PrangeLoop, relation: isl.UnionMap) -> bool:
    """Whether a dependence between statements inside ``loop`` links two of its iterations."""
    inside = set(loop.statements)
    found: list[bool] = []

    def check(dep: isl.Map) -> None:
        if dep.get_tuple_name(isl.dim_type.in_) not in inside or dep.get_tuple_name(isl.dim_type.out) not in inside:
            return
        for k in range(loop.depth):
            dep = dep.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        same = dep.equate(isl.dim_type.in_, loop.depth, isl.dim_type.out, loop.depth)
        if not dep.subtract(same).is_empty():
            found.append(True)

    relation.foreach_map(check)
    return bool(found)
