"""The Dask graph of a plan, built with dask's own API only.

Per exchange: every chunked array is cut into the plan's chunks (a split cut's along the axes
it moves, one chunk elsewhere); the arrays every split cut moves are made together, one
``blockwise`` task per block (``_bundled``: Dask fuses their producers into it, so a block's
inputs are made on one worker).  Then one task per block (``_run_blocks``, a graph layer of
our own over Dask's keys) takes each array's own block and, from the neighbouring blocks, a
slice task per ghost zone (along every split axis and corner, none past the array's ends:
what ``dask.array.overlap.overlap(boundary="none")`` cuts; the kernel's own bounds apply
there), puts them together (the one copy the kernel needs) and runs ``BlockRun`` (the compiled
kernel, then the ghost zones cut off); one ``blockwise`` per output picks it out of the
block's results.  Arrays of different shapes meet by cut: a matrix's rows with a vector's
chunks; an array no split cut moves reaches every block whole.  An array longer than its
split's reference (``A`` of ``n + 1`` beside ``B`` of ``n``) gets as much more depth on the
right, and its last chunk holds the difference; an array the kernel only adds to, along a
split that does not move it, comes back as one partial per block along it, added by
``dask.array``'s ``sum``.  The exchanges of a time loop chain: each one's outputs are the next
one's inputs.  ``BlockRun`` holds the kernel, which pickles as its source and options
(polyfuse.kernel.KernelRecipe): no compiled code crosses the network.

Why not ``overlap`` + ``blockwise`` (until session 15): ``overlap`` made each array's block
with its ghost zones a task of its own, a full copy held in memory (or spilled, or moved to
another worker) until the kernel's task ran, and independent producers of one block's arrays
ran on different workers; out of core (chain, 8192^2 in 1024^2 blocks, 2 workers of 512 MiB)
the workers moved about 800 MiB between them per run, against 2 MiB of ghost zones (and 96 MiB
of whole blocks Dask's scheduler still moves) now (``docs/dask.md``, "Measured").
"""

from __future__ import annotations

import operator
import string
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.dask.plan import DaskPlan, Exchange
from polyfuse.dask.problem import Split
from polyfuse.dask.reduce import Reduction
from polyfuse.errors import UnsupportedError

LETTERS = string.ascii_letters


@dataclass(frozen=True)
class BlockRun:
    """Runs the kernel on one block of every chunked array and trims the ghost zones.

    Called with the blocks of ``chunked`` and then, per split cut, a one-element array holding
    the block's position along it (dask's blockwise has no ``block_id``).  Returns the blocks
    of the written arguments, then of the new arrays the kernel returns, then each returned
    reduction's partial result for the block as a ``(1, ..., 1)`` array.  Where a chunk lies in
    its block, and how much longer each array's block is, come from the plan's ``Split``
    records (polyfuse.dask.problem), as the plan's checks had them."""

    kernel: Any
    names: tuple[str, ...]  # the kernel's parameters, in order
    statics: tuple[tuple[str, Any], ...]  # numpy arrays and scalars: the same in every block
    chunked: tuple[str, ...]
    splits: tuple[Split, ...]  # the plan's split cuts: chunks, extent differences, summed arrays
    lefts: tuple[int, ...]  # each split's ghost depths in this exchange (of its reference array)
    rights: tuple[int, ...]
    written: tuple[str, ...]  # the written arguments, in the order the block hands them back
    results: tuple[str, ...] = ()  # then the new arrays the kernel returns
    partials: tuple[tuple[str, str], ...] = ()  # each returned reduction's name (among ``returned``)
    # and dtype: the block returns its partial
    returned: tuple[str, ...] = ()  # the names of the kernel's return value, flattened
    bounds: tuple[tuple[str, str], ...] = ()  # per split: the guarded kernel's chunk start and
    # end arguments (polyfuse.dask.guard), given the chunk's place in the block

    def __call__(self, *parts: np.ndarray) -> Any:
        blocks, positions = parts[:len(self.chunked)], parts[len(self.chunked):]
        return self.run(blocks, [int(np.asarray(p).ravel()[0]) for p in positions])

    def run(self, blocks: Any, where: list[int], fresh: tuple[bool, ...] = ()) -> Any:
        """The kernel on one block (``where``: its position along each split cut); ``fresh``
        says per array that its block is a private C-ordered copy the kernel may write."""
        values = dict(self.statics)
        for k, (name, block) in enumerate(zip(self.chunked, blocks)):
            block = self._trimmed(name, block, where)
            private = k < len(fresh) and fresh[k] and block.flags.c_contiguous
            # blocks may be views of other tasks' data: the kernel writes only its own copies
            values[name] = (block if private else np.array(block, order="C", copy=True)) if name in self.written \
                else np.ascontiguousarray(block)
        for name in self.written:
            if any(where[k] > 0 for k in self._summed_over(name)):  # the first block along them adds to the input
                values[name] = np.zeros_like(values[name])
        chunk = {}
        for k, (lo, hi) in enumerate(self.bounds):
            split, w = self.splits[k], where[k]
            start = split.inside(w, self.lefts[k])
            last = w == len(split.chunks) - 1  # owns the rest of a longer array
            chunk[lo], chunk[hi] = start, np.iinfo(np.int64).max // 2 if last else start + split.chunks[w]
        value = self.kernel(*(values[n] for n in self.names), **chunk)
        returned = dict(zip(self.returned, _flat(value, len(self.returned))))
        found = [_partial(values[name][self._keep(name, values[name].ndim, where)], len(self._summed_over(name)))
                 for name in self.written]
        found += [np.asarray(returned[name])[self._keep(name, np.ndim(returned[name]), where)]
                  for name in self.results]
        found += [np.full((1,) * len(where), returned[name], dtype=dtype) for name, dtype in self.partials]
        return tuple(found)

    def _summed_over(self, name: str) -> tuple[int, ...]:
        """The splits that do not move written array ``name`` but sum it over their chunks."""
        return tuple(k for k, split in enumerate(self.splits) if name in split.summed)

    def _trimmed(self, name: str, block: np.ndarray, where: list[int]) -> np.ndarray:
        """The block of an array shorter than its split's reference cut to the reference's
        block less the difference (the overlap brought no ghost zone, or too much, there)."""
        cut = [slice(None)] * block.ndim
        for axis, k in enumerate(split_axes(self.splits, name, block.ndim)):
            if k is None or self.splits[k].offset(name) >= 0:
                continue
            start, end = self.splits[k].block(where[k], self.lefts[k], self.rights[k])
            cut[axis] = slice(0, max(0, end - start + self.splits[k].offset(name)))
        return block[tuple(cut)]

    def _keep(self, name: str, ndim: int, where: list[int]) -> tuple[slice, ...]:
        """The chunk's own part of an output's block (the last chunk of an array longer than
        the reference holds the difference)."""
        keep = []
        for k in split_axes(self.splits, name, ndim):
            if k is None:
                keep.append(slice(None))
                continue
            split, w = self.splits[k], where[k]
            start = split.inside(w, self.lefts[k])
            keep.append(slice(start, start + split.chunks_for(name)[w]))
        return tuple(keep)


def _partial(block: np.ndarray, summed: int) -> np.ndarray:
    """A block with a length-1 axis per split it is summed over (Dask sums along them)."""
    return block.reshape(block.shape + (1,) * summed) if summed else block


def _flat(value: Any, count: int) -> list[Any]:
    """The kernel's return value as a flat list (``count`` names: 1 is the value itself)."""
    if count == 1 and not isinstance(value, tuple):
        return [value]
    found: list[Any] = []
    for item in value if isinstance(value, tuple) else (value,):
        found.extend(_flat(item, 2) if isinstance(item, tuple) else [item])
    return found


def _offsets(plan: DaskPlan, name: str, ndim: int) -> tuple[int, ...]:
    """Each axis of array ``name``: its extent minus the reference's along the split that moves
    it (0 where none does)."""
    return tuple(0 if k is None else plan.splits[k].offset(name) for k in split_axes(plan.splits, name, ndim))


def _summed(plan: DaskPlan) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each written array summed over splits that do not move it, and those splits."""
    found: dict[str, list[int]] = {}
    for k, split in enumerate(plan.splits):
        for name in split.summed:
            found.setdefault(name, []).append(k)
    return tuple((name, tuple(ks)) for name, ks in found.items())


def split_axes(splits: tuple[Split, ...], name: str, ndim: int) -> tuple[int | None, ...]:
    """Each axis of array ``name``: the index of the split cut that moves it, or None."""
    axes: list[int | None] = [None] * ndim
    for index, split in enumerate(splits):
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
        axes = split_axes(plan.splits, name, np.ndim(values[name]))
        try:
            found[name] = "".join(LETTERS[s] if s is not None else next(fresh) for s in axes)
        except StopIteration:
            raise UnsupportedError(f"{plan.kernel}: too many array axes for one dask graph") from None
    return found


def _bundled(values: dict[str, Any], plan: DaskPlan, apart: tuple[str, ...] = ()) -> dict[str, Any]:
    """The chunked arrays in the plan's chunks; those every split moves (two or more) as picks of
    one ``blockwise`` task per block that holds the block of each.  Why: the kernel's task needs
    the block of every array, and Dask places independent producers (``from_zarr``, a
    generator, ``da.random``) of the same block on different workers, so that whole blocks
    travel between workers; a bundle task fuses those producers (Dask's blockwise fusion), so
    a block's inputs are made on one worker and only the thin ghost zones travel.  Arrays
    ``apart`` (written whole by most blocks: ``plan.overwritten``) are made only for the blocks
    that read them, so not in the bundle."""
    import dask.array as da

    arrays = {name: da.asarray(values[name]).rechunk(plan.chunks_of(name, values[name].shape))
              for name in plan.chunked}
    every = set(range(len(plan.splits)))
    moved = [n for n in plan.chunked if set(split_axes(plan.splits, n, arrays[n].ndim)) >= every and n not in apart]
    if len(moved) < 2:
        return arrays
    index = _indices(values, plan)
    letters = LETTERS[:len(plan.splits)]
    pairs: list[Any] = []
    for name in moved:
        pairs += [arrays[name], index[name]]
    bundle = da.blockwise(_bundle, letters, *pairs, dtype=object, concatenate=True, align_arrays=False,
                          adjust_chunks={letter: (1,) * len(s.chunks) for letter, s in zip(letters, plan.splits)},
                          meta=np.empty((0,) * len(letters), dtype=object), token=f"polyfuse-{plan.kernel}-bundle")
    for position, name in enumerate(moved):
        array, own = arrays[name], index[name]
        axes = split_axes(plan.splits, name, array.ndim)
        arrays[name] = da.blockwise(
            _pick, own, bundle, letters, position, None, dtype=array.dtype,
            new_axes={own[a]: array.shape[a] for a in range(array.ndim) if axes[a] is None},
            adjust_chunks={own[a]: array.chunks[a] for a in range(array.ndim) if axes[a] is not None},
            meta=np.empty((0,) * array.ndim, dtype=array.dtype), token=f"polyfuse-{plan.kernel}-{name}-block")
    return arrays


def _bundle(*blocks: np.ndarray) -> np.ndarray:
    """The blocks of several arrays as one task's result (a 0-d object array holding the tuple:
    dask concatenates nothing of it)."""
    held = np.empty((), dtype=object)
    held[()] = blocks
    return held


def _pick(bundle: np.ndarray, position: int) -> np.ndarray:
    return bundle[()][position]


def _run_blocks(run: BlockRun, values: dict[str, Any], plan: DaskPlan, exchange: Exchange):
    """``run`` on every block: a dask array over the split cuts (a tuple per block).

    Each block's task takes its own block of every chunked array and, from the neighbouring
    blocks, only the ghost zones (a slice task each, along every split axis and corner: as
    ``dask.array.overlap`` with ``boundary="none"`` cuts them), and puts them together itself
    (``_ghosted``): the one copy the kernel needs anyway.  ``overlap`` made that copy a task of
    its own per array and block, held in memory (or spilled, or moved to another worker) until
    the kernel's task ran."""
    import itertools

    from dask.array.core import Array
    from dask.highlevelgraph import HighLevelGraph
    from dask.tokenize import tokenize

    empty = dict(plan.overwritten) if exchange is plan.exchanges[0] else {}
    arrays = _bundled(values, plan, tuple(empty))
    name = f"polyfuse-{plan.kernel}-{tokenize(run, *(arrays[n] for n in plan.chunked), exchange)}"
    ghost = f"{name}-ghost"
    layers: dict[Any, Any] = {}
    counts = [len(s.chunks) for s in plan.splits]
    depths = {n: _depths(plan, exchange, n, arrays[n].ndim) for n in plan.chunked}
    for where in itertools.product(*(range(c) for c in counts)):
        parts = []
        for n in plan.chunked:
            array, depth = arrays[n], depths[n]
            axes = split_axes(plan.splits, n, array.ndim)
            sides = [_sides(where[k], counts[k], depth[a]) if k is not None else (0,) for a, k in enumerate(axes)]
            if where in empty.get(n, ()):  # the kernel writes this chunk whole and reads none of it
                parts.append(_Empty(_block_shape(array, axes, where, sides, depth), array.dtype))
                continue
            pieces: dict[tuple[int, ...], Any] = {}
            for offsets in itertools.product(*sides):
                index = tuple(where[k] + o if k is not None else 0 for k, o in zip(axes, offsets))
                key = (array.name, *index)
                if any(offsets):
                    cut = tuple(slice(None) if o == 0 else slice(-depth[a][0], None) if o < 0
                                else slice(0, depth[a][1]) for a, o in enumerate(offsets))
                    key, layers[(ghost, n, *where, *offsets)] = (ghost, n, *where, *offsets), (operator.getitem, key, cut)
                pieces[offsets] = key
            parts.append(_nested(pieces, sides))
        layers[(name, *where)] = (_ghosted, run, list(where), *parts)
    graph = HighLevelGraph.from_collections(name, layers, dependencies=[arrays[n] for n in plan.chunked])
    return Array(graph, name, tuple(s.chunks for s in plan.splits), meta=np.empty((0,) * len(counts), dtype=object))


@dataclass(frozen=True)
class _Empty:
    """A block the kernel writes whole and never reads: made empty in the task."""

    shape: tuple[int, ...]
    dtype: Any


def _block_shape(array, axes, where, sides, depth) -> tuple[int, ...]:
    """The shape of an array's block with the ghost zones ``sides`` gives it."""
    shape = []
    for a, k in enumerate(axes):
        extent = array.chunks[a][where[k]] if k is not None else array.shape[a]
        shape.append(extent + (depth[a][0] if -1 in sides[a] else 0) + (depth[a][1] if 1 in sides[a] else 0))
    return tuple(shape)


def _depths(plan: DaskPlan, exchange: Exchange, name: str, ndim: int) -> list[tuple[int, int]]:
    """Each axis of array ``name``: its ghost depth on each side (an array longer than its split's
    reference brings its extra elements on the right)."""
    offsets = _offsets(plan, name, ndim)
    return [(0, 0) if s is None else (exchange.axes[s].left, max(0, exchange.axes[s].right + offsets[a]))
            for a, s in enumerate(split_axes(plan.splits, name, ndim))]


def _sides(k: int, count: int, depth: tuple[int, int]) -> tuple[int, ...]:
    """Which neighbours of block ``k`` (of ``count``) along an axis give it a ghost zone: -1 the
    one before, 1 the one after (none past the array's ends)."""
    return tuple(o for o, keep in ((-1, depth[0] > 0 and k > 0), (0, True), (1, depth[1] > 0 and k < count - 1))
                 if keep)


def _nested(pieces: dict[tuple[int, ...], Any], sides: list[tuple[int, ...]]) -> Any:
    """The pieces as nested lists, one level per axis (``np.block``'s layout); the block's own
    key where it has no ghost zone."""
    if len(pieces) == 1:
        return next(iter(pieces.values()))

    def level(prefix: tuple[int, ...]) -> Any:
        if len(prefix) == len(sides):
            return pieces[prefix]
        return [level(prefix + (o,)) for o in sides[len(prefix)]]
    return level(())


def _ghosted(run: BlockRun, where: list[int], *parts: Any) -> Any:
    """``run`` on one block: each array's pieces put together (a fresh copy the kernel may
    write), and the block's position along each split cut."""
    fresh = tuple(isinstance(p, (list, _Empty)) for p in parts)
    arrays = [np.ascontiguousarray(np.block(p)) if isinstance(p, list) else
              np.empty(p.shape, p.dtype) if isinstance(p, _Empty) else p for p in parts]
    return run.run(arrays, where, fresh)


def run_exchange(kernel, values: dict[str, Any], plan: DaskPlan, exchange: Exchange,
                 returned: tuple[str, ...] = (), bounds: tuple[tuple[str, str], ...] = ()
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """One graph step: the new dask arrays of the written arguments and of the new arrays the
    kernel returns, and per returned reduction the dask array of the blocks' partials."""
    import dask.array as da

    call = dict(values)
    if exchange.steps is not None and plan.steps is not None:
        call[plan.steps.loop.argument] = exchange.steps
    statics = tuple((n, v) for n, v in call.items() if n not in plan.chunked)
    shapes = {n: tuple(values[n].shape) for n in plan.written} | dict(plan.results)
    written = tuple((n, split_axes(plan.splits, n, len(shapes[n]))) for n in plan.written)
    results = tuple((n, split_axes(plan.splits, n, len(shape))) for n, shape in plan.results)
    summed = _summed(plan)
    run = BlockRun(kernel, tuple(call), statics, plan.chunked, plan.splits, tuple(h.left for h in exchange.axes),
                   tuple(h.right for h in exchange.axes), plan.written, tuple(n for n, _ in plan.results),
                   partials=tuple((r.result, r.dtype) for r in plan.reductions), returned=returned, bounds=bounds)
    blocks = _run_blocks(run, values, plan, exchange)
    split_letters = LETTERS[:len(plan.splits)]
    outputs = {}
    for position, (name, axes) in enumerate(written + results):
        dtype = values[name].dtype if name in values else np.dtype(plan.result_dtypes[name])
        letters = iter(LETTERS[len(plan.splits):])
        index = "".join(LETTERS[s] if s is not None else next(letters) for s in axes)
        own = {letter: shapes[name][axis] for axis, letter in enumerate(index) if axes[axis] is None}
        longer = {LETTERS[s]: plan.splits[s].chunks_for(name) for s in axes if s is not None
                  and plan.splits[s].offset(name)}
        over = dict(summed).get(name, ())  # one partial per block along these: Dask's tree sum adds them
        longer |= {LETTERS[k]: (1,) * len(plan.splits[k].chunks) for k in over}
        index += "".join(LETTERS[k] for k in over)
        value = da.blockwise(operator.getitem, index, blocks, split_letters, position, None,
                             new_axes=own, adjust_chunks=longer or None, dtype=dtype,
                             meta=np.empty((0,) * len(index), dtype=dtype),
                             token=f"polyfuse-{plan.kernel}-{name}")
        outputs[name] = value.sum(axis=tuple(range(len(axes), len(index))), dtype=dtype) if over else value
    partials = {}
    ones = {LETTERS[k]: (1,) * len(s.chunks) for k, s in enumerate(plan.splits)}
    for position, r in enumerate(plan.reductions, start=len(written + results)):
        partials[r.result] = da.blockwise(operator.getitem, split_letters, blocks, split_letters, position, None,
                                          adjust_chunks=ones, dtype=r.dtype,
                                          meta=np.empty((0,) * len(plan.splits), dtype=r.dtype),
                                          token=f"polyfuse-{plan.kernel}-partials-{r.result}")
    return outputs, partials


def build(kernel, values: dict[str, Any], plan: DaskPlan, returned: tuple[str, ...] = (),
          bounds: tuple[tuple[str, str], ...] = ()):
    """Every exchange in turn; returns the final dask arrays of the written arguments and the
    new arrays the kernel returns, and its returned reductions (a 0-d dask array each, by name).
    ``bounds``: ``kernel`` is a guarded variant taking each split's chunk bounds (polyfuse.dask.guard)."""
    current = dict(values)
    partials: dict[str, Any] = {}
    for exchange in plan.exchanges:  # a kernel returning reductions runs one exchange
        outputs, partials = run_exchange(kernel, current, plan, exchange, returned, bounds)
        current.update(outputs)
    names = plan.written + tuple(n for n, _ in plan.results)
    totals = {r.result: _combine(plan, r, partials[r.result]) for r in plan.reductions}
    return {name: current[name] for name in names}, totals


def _combine(plan: DaskPlan, reduction: Reduction, partials):
    """The blocks' partial results of one reduction combined in order by Dask's tree reduction
    with the kernel's own operation (polyfuse.dask.reduce)."""
    import dask.array as da

    from polyfuse.dask.reduce import Fold, keep

    if not plan.splits:
        return partials  # one block: its partial is the result
    fold = Fold(reduction.op, reduction.dtype)
    return da.reduction(partials, keep, fold, combine=fold, axis=tuple(range(partials.ndim)), dtype=reduction.dtype,
                        concatenate=True, name=None, meta=np.empty((), dtype=reduction.dtype))
