"""The Dask graph of a plan, built with dask's own API only.

Per exchange: every chunked array is cut into the plan's chunks (a split cut's along the axes
it moves, one chunk elsewhere) and gets its ghost zones with ``dask.array.overlap.overlap``
(``boundary="none"``: nothing is invented past the array's ends, the kernel's own bounds
apply there); ``dask.array.blockwise`` pairs the blocks by cut (one index letter per split
cut, so arrays of different shapes meet: a matrix's rows with a vector's chunks; an array no
split cut moves reaches every block whole) and runs ``BlockRun`` on each (the compiled kernel
on copies of the blocks, then the ghost zones cut off); one ``blockwise`` per output picks it
out of the block's results.  The exchanges of a time loop chain: each one's outputs are the next
one's inputs.  ``BlockRun`` holds the kernel, which pickles as its source and options
(polyfuse.kernel.KernelRecipe): no compiled code crosses the network.
"""

from __future__ import annotations

import operator
import string
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.dask.plan import DaskPlan, Exchange
from polyfuse.errors import UnsupportedError

LETTERS = string.ascii_letters


@dataclass(frozen=True)
class BlockRun:
    """Runs the kernel on one block of every chunked array and trims the ghost zones.

    Called with the blocks of ``chunked`` and then, per split cut, a one-element array holding
    the block's position along it (dask's blockwise has no ``block_id``)."""

    kernel: Any
    names: tuple[str, ...]  # the kernel's parameters, in order
    statics: tuple[tuple[str, Any], ...]  # numpy arrays and scalars: the same in every block
    chunked: tuple[str, ...]
    written: tuple[tuple[str, tuple[int | None, ...]], ...]  # per output: each axis's split (None: whole)
    lefts: tuple[int, ...]  # each split's left ghost depth
    chunks: tuple[tuple[int, ...], ...]  # each split's chunks
    partial: str | None = None  # a returned reduction's dtype: the block returns its partial

    def __call__(self, *parts: np.ndarray) -> Any:
        blocks, positions = parts[:len(self.chunked)], parts[len(self.chunked):]
        where = [int(np.asarray(p).ravel()[0]) for p in positions]
        outputs = {name for name, _ in self.written}
        values = dict(self.statics)
        for name, block in zip(self.chunked, blocks):
            # blocks may be views of other tasks' data: the kernel writes only its own copies
            values[name] = np.array(block, order="C", copy=True) if name in outputs else (
                np.ascontiguousarray(block))
        result = self.kernel(*(values[n] for n in self.names))
        if self.partial is not None:
            return np.full((1,) * len(where), result, dtype=self.partial)
        return tuple(values[name][self._keep(axes, where)] for name, axes in self.written)

    def _keep(self, axes: tuple[int | None, ...], where: list[int]) -> tuple[slice, ...]:
        keep = []
        for split in axes:
            if split is None:
                keep.append(slice(None))
                continue
            start = self.lefts[split] if where[split] > 0 else 0
            keep.append(slice(start, start + self.chunks[split][where[split]]))
        return tuple(keep)


def _axes(plan: DaskPlan, name: str, ndim: int) -> tuple[int | None, ...]:
    """Each axis of array ``name``: the index of the split cut that moves it, or None."""
    axes: list[int | None] = [None] * ndim
    for index, split in enumerate(plan.splits):
        axis = split.cut.axis_of(name)
        if axis is not None:
            axes[axis] = index
    return tuple(axes)


def _indices(values: dict[str, Any], plan: DaskPlan) -> dict[str, str]:
    """blockwise's index of every chunked array: a split's letter along the axes it moves, a
    letter of the array's own (one chunk) elsewhere."""
    fresh = iter(LETTERS[len(plan.splits):])
    found = {}
    for name in plan.chunked:
        axes = _axes(plan, name, np.ndim(values[name]))
        try:
            found[name] = "".join(LETTERS[s] if s is not None else next(fresh) for s in axes)
        except StopIteration:
            raise UnsupportedError(f"{plan.kernel}: too many array axes for one dask graph") from None
    return found


def _blocks(values: dict[str, Any], plan: DaskPlan, exchange: Exchange):
    """Every chunked array cut into the plan's chunks, with its ghost zones."""
    import dask.array as da
    from dask.array.overlap import overlap

    blocks = []
    for name in plan.chunked:
        value = values[name]
        array = da.asarray(value).rechunk(plan.chunks_of(name, value.shape))
        depth = {axis: (exchange.axes[s].left, exchange.axes[s].right)
                 for axis, s in enumerate(_axes(plan, name, array.ndim)) if s is not None}
        if depth:
            array = overlap(array, depth=depth, boundary={a: "none" for a in depth})
        blocks.append(array)
    return blocks


def _run_blocks(run: BlockRun, values: dict[str, Any], plan: DaskPlan, exchange: Exchange, dtype, per_block):
    """``run`` on every block: a dask array over the split cuts (``per_block``: each split's
    chunks of the result)."""
    import dask.array as da

    index = _indices(values, plan)
    pairs: list[Any] = []
    for name, block in zip(plan.chunked, _blocks(values, plan, exchange)):
        pairs += [block, index[name]]
    for k, split in enumerate(plan.splits):
        pairs += [da.from_array(np.arange(len(split.chunks)), chunks=1), LETTERS[k]]
    out = LETTERS[:len(plan.splits)]
    return da.blockwise(run, out, *pairs, dtype=dtype, concatenate=True, align_arrays=False,
                        adjust_chunks={LETTERS[k]: per_block(s) for k, s in enumerate(plan.splits)},
                        meta=np.empty((0,) * len(out), dtype=dtype), token=f"polyfuse-{plan.kernel}")


def run_exchange(kernel, values: dict[str, Any], plan: DaskPlan, exchange: Exchange) -> dict[str, Any]:
    """One graph step: the written arrays' new dask arrays."""
    import dask.array as da

    call = dict(values)
    if exchange.steps is not None and plan.steps is not None:
        call[plan.steps.loop.argument] = exchange.steps
    statics = tuple((n, v) for n, v in call.items() if n not in plan.chunked)
    written = tuple((n, _axes(plan, n, values[n].ndim)) for n in plan.written)
    run = BlockRun(kernel, tuple(call), statics, plan.chunked, written,
                   tuple(h.left for h in exchange.axes), tuple(s.chunks for s in plan.splits))
    results = _run_blocks(run, values, plan, exchange, object, lambda s: s.chunks)
    split_letters = LETTERS[:len(plan.splits)]
    index = _indices(values, plan)
    outputs = {}
    for position, (name, axes) in enumerate(written):
        dtype = values[name].dtype
        own = {letter: int(values[name].shape[axis]) for axis, letter in enumerate(index[name]) if axes[axis] is None}
        outputs[name] = da.blockwise(operator.getitem, index[name], results, split_letters, position, None,
                                     new_axes=own, dtype=dtype, meta=np.empty((0,) * values[name].ndim, dtype=dtype),
                                     token=f"polyfuse-{plan.kernel}-{name}")
    return outputs


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
    exchange = plan.exchanges[0]
    statics = tuple((n, v) for n, v in values.items() if n not in plan.chunked)
    run = BlockRun(kernel, tuple(values), statics, plan.chunked, (), tuple(h.left for h in exchange.axes),
                   tuple(s.chunks for s in plan.splits), reduction.dtype)
    partials = _run_blocks(run, values, plan, exchange, reduction.dtype, lambda s: (1,) * len(s.chunks))
    if not plan.splits:
        return partials  # one block: its partial is the result
    fold = Fold(reduction.op, reduction.dtype)
    return da.reduction(partials, keep, fold, combine=fold, axis=tuple(range(partials.ndim)), dtype=reduction.dtype,
                        concatenate=True, name=None, meta=np.empty((), dtype=reduction.dtype))
