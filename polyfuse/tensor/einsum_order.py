"""The contraction order of an einsum: opt_einsum's pairwise path for the resolved structure.

Takes a :class:`~polyfuse.tensor.einsum_parse._Structure` and the ``optimize=`` argument; gives a
:class:`_Path` (the pairwise steps, opt_einsum's FLOP estimate and the naive count).  Separate
because it is the only place that asks opt_einsum, and both code generation and per-step
dispatch consume its path.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from polyfuse.errors import ArgumentError
from polyfuse.tensor.einsum_parse import _Structure


@dataclass(frozen=True)
class _Path:
    steps: tuple[tuple[int, ...], ...]
    flops: int  # opt_einsum's estimate for the chosen order
    naive_flops: int


def _optimize_key(optimize: Any) -> Any:
    if isinstance(optimize, (list, tuple)):
        items = list(optimize)
        if items and items[0] == "einsum_path":
            items = items[1:]
        return ("path", tuple(tuple(int(i) for i in step) for step in items))
    if optimize is True or optimize is None:
        return "auto"
    if optimize is False:
        return False
    if isinstance(optimize, str):
        return optimize
    raise ArgumentError(f"optimize={optimize!r}; use True, False, an opt_einsum strategy name "
                        "('greedy', 'optimal', 'auto', ...) or an explicit path")


@functools.lru_cache(maxsize=1024)
def _contract_path(eq: str, shapes: tuple[tuple[int, ...], ...], optimize: Any) -> _Path:
    import opt_einsum

    n = len(shapes)
    if optimize is False or n == 1:
        steps: tuple[tuple[int, ...], ...] = (tuple(range(n)),)
        _, info = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=[tuple(range(n))])
        return _Path(steps, int(info.naive_cost), int(info.naive_cost))
    strategy = list(optimize[1]) if isinstance(optimize, tuple) else optimize
    try:
        path, info = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=strategy)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise ArgumentError(f"einsum optimize={strategy!r}: {exc}") from None
    return _Path(tuple(tuple(s) for s in path), int(info.opt_cost), int(info.naive_cost))


def _equation(structure: _Structure) -> tuple[str, tuple[tuple[int, ...], ...]]:
    terms = ["".join(lab for lab in acc if lab is not None) for acc in structure.accesses]
    shapes = tuple(tuple(structure.sizes[lab] for lab in term) for term in terms)
    return ",".join(terms) + "->" + "".join(structure.output), shapes
