"""The pieces of isl union objects as Python lists (isl hands them out through callbacks)."""

from __future__ import annotations

import islpy as isl


def maps_of(union: isl.UnionMap) -> list[isl.Map]:
    """The maps of ``union``, one per pair of spaces, in isl's order."""
    maps: list[isl.Map] = []
    union.foreach_map(maps.append)
    return maps


def sets_of(union: isl.UnionSet) -> list[isl.Set]:
    """The sets of ``union``, one per space, in isl's order."""
    sets: list[isl.Set] = []
    union.foreach_set(sets.append)
    return sets
