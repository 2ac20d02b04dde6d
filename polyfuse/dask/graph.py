"""The Dask graph of a plan, built with dask's own API only.

Per exchange: every chunked array gets its ghost zones with ``dask.array.overlap.overlap``
(``boundary="none"``: nothing is invented past the array's ends, the kernel's own bounds
apply there), ``map_blocks`` runs ``BlockRun`` on each block (the compiled kernel on copies
of the blocks, then the ghost zones cut off) and one ``map_blocks`` per output picks it out of
the block's results.  The exchanges of a time loop chain: each one's outputs are the next
one's inputs.  ``BlockRun`` holds the kernel, which pickles as its source and options
(polyfuse.kernel.KernelRecipe): no compiled code crosses the network.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.dask.plan import DaskPlan, Exchange


@dataclass(frozen=True)
class BlockRun:
    """Runs the kernel on one block of every chunked array and trims the ghost zones."""

    kernel: Any
    names: tuple[str, ...]  # the kernel's parameters, in order
    statics: tuple[tuple[str, Any], ...]  # numpy arrays and scalars: the same in every block
    chunked: tuple[str, ...]
    written: tuple[str, ...]
    depths: tuple[tuple[int, int, int], ...]  # (axis, left, right) of the split axes
    chunks: tuple[tuple[int, ...], ...]
    partial: str | None = None  # a returned reduction's dtype: the block returns its partial

    def __call__(self, *blocks: np.ndarray, block_id: tuple[int, ...] | None = None) -> Any:
        assert block_id is not None
        values = dict(self.statics)
        for name, block in zip(self.chunked, blocks):
            # blocks may be views of other tasks' data: the kernel writes only its own copies
            values[name] = np.array(block, order="C", copy=True) if name in self.written else (
                np.ascontiguousarray(block))
        result = self.kernel(*(values[n] for n in self.names))
        if self.partial is not None:
            return np.full((1,) * len(block_id), result, dtype=self.partial)
        keep = [slice(None)] * len(block_id)
        for axis, left, _ in self.depths:
            start = left if block_id[axis] > 0 else 0
            keep[axis] = slice(start, start + self.chunks[axis][block_id[axis]])
        return tuple(values[name][tuple(keep)] for name in self.written)


def _blocks(values: dict[str, Any], plan: DaskPlan, exchange: Exchange):
    """Every chunked array cut into the plan's chunks, with its ghost zones."""
    from dask.array.overlap import overlap

    depths = tuple((h.axis, h.left, h.right) for h in exchange.axes)
    blocks = []
    for name in plan.chunked:
        array = values[name].rechunk(plan.chunks)
        if depths:
            array = overlap(array, depth={a: (left, right) for a, left, right in depths},
                            boundary={a: "none" for a, _, _ in depths})
        blocks.append(array)
    return depths, blocks


def run_exchange(kernel, values: dict[str, Any], plan: DaskPlan, exchange: Exchange) -> dict[str, Any]:
    """One graph step: the written arrays' new dask arrays."""
    import dask.array as da

    call = dict(values)
    if exchange.steps is not None and plan.steps is not None:
        call[plan.steps.loop.argument] = exchange.steps
    rank = len(plan.chunks)
    depths, blocks = _blocks(values, plan, exchange)
    statics = tuple((n, v) for n, v in call.items() if n not in plan.chunked)
    run = BlockRun(kernel, tuple(call), statics, plan.chunked, plan.written, depths, plan.chunks)
    results = da.map_blocks(run, *blocks, dtype=object, chunks=plan.chunks,
                            meta=np.empty((0,) * rank, dtype=object), token=f"polyfuse-{plan.kernel}")
    return {name: results.map_blocks(operator.getitem, index, dtype=values[name].dtype,
                                     meta=np.empty((0,) * rank, dtype=values[name].dtype),
                                     token=f"polyfuse-{plan.kernel}-{name}")
            for index, name in enumerate(plan.written)}


def build(kernel, values: dict[str, Any], plan: DaskPlan) -> dict[str, Any]:
    """Every exchange in turn; returns the written arrays' final dask arrays."""
    current = dict(values)
    for exchange in plan.exchanges:
        current.update(run_exchange(kernel, current, plan, exchange))
    return {name: current[name] for name in plan.written}


def build_reduction(kernel, values: dict[str, Any], plan: DaskPlan):
    """A returned reduction: each block's partial result, combined in order by Dask's tree
    reduction with the kernel's own operation (polyfuse.dask.reduce)."""
    import dask.array as da

    from polyfuse.dask.reduce import Fold, keep

    reduction = plan.reduction
    assert reduction is not None
    depths, blocks = _blocks(values, plan, plan.exchanges[0])
    statics = tuple((n, v) for n, v in values.items() if n not in plan.chunked)
    run = BlockRun(kernel, tuple(values), statics, plan.chunked, (), depths, plan.chunks, reduction.dtype)
    rank = len(plan.chunks)
    partials = da.map_blocks(run, *blocks, dtype=reduction.dtype, chunks=tuple((1,) * len(c) for c in plan.chunks),
                             meta=np.empty((0,) * rank, dtype=reduction.dtype), token=f"polyfuse-{plan.kernel}")
    fold = Fold(reduction.op, reduction.dtype)
    return da.reduction(partials, keep, fold, combine=fold, axis=tuple(range(rank)), dtype=reduction.dtype,
                        concatenate=True, name=None, meta=np.empty((), dtype=reduction.dtype))
