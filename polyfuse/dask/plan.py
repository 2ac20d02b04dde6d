"""The plan for one call on dask arrays: which axes are split, their ghost depths, the chunks
(rechunked when a chunk is thinner than its halo) and the time steps per exchange.

Runs on the client only, at the call's sizes: the kernel is lifted and its dependences computed
once per signature (the same analysis the compiler runs), then polyfuse.dask.halo and
polyfuse.dask.steps decide.  The workers only run the compiled kernel.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from typing import Any

import islpy as isl
import numpy as np

from polyfuse.analysis.dependences import Dependences, compute_dependences
from polyfuse.dask.cuts import Cut, find_cuts
from polyfuse.dask.halo import AxisHalo, chunk_needs, halo_for_axis
from polyfuse.dask.problem import Problem, Split, fixed
from polyfuse.dask.reduce import Reduction, accumulated, reduction_of
from polyfuse.dask.steps import StepChoice, TimeLoop, candidate_steps, estimate, time_loop
from polyfuse.errors import ArgumentError, UnsupportedError
from polyfuse.frontend import lift
from polyfuse.model.isl_budget import ISL_LOCK
from polyfuse.model.scop import Returned, Scop, isl_name, shape_param
from polyfuse.runtime.signature import argument_of, is_dask_array
from polyfuse.runtime.variant import size_value


@dataclass(frozen=True)
class Exchange:
    """One graph step: the kernel runs on every block with ``steps`` as its step count (None:
    the kernel has no time loop) and these ghost depths."""

    steps: int | None
    axes: tuple[AxisHalo, ...]


@dataclass(frozen=True)
class DaskPlan:
    """Everything decided for one call; ``render()`` is what ``polyfuse.dask.explain`` prints."""

    kernel: str
    chunked: tuple[str, ...]  # array arguments made into blocks (dask arrays, numpy ones a split cut moves)
    written: tuple[str, ...]  # those the kernel writes: the graph's outputs
    chunks: tuple[tuple[int, ...], ...]  # of the reference array (the first written, else chunked), after rechunks
    rechunked: tuple[int, ...]  # its axes whose chunks were merged to hold their ghost zone
    exchanges: tuple[Exchange, ...]
    steps: StepChoice | None
    reductions: tuple[Reduction, ...] = ()  # returned reductions: per-block partials, then a tree each
    splits: tuple[Split, ...] = ()  # the loop dimensions cut into chunks, in the order of exchanges' axes
    merged: tuple[tuple[str, int, str], ...] = ()  # (array, axis, why) put into one chunk: loop not split
    whole: tuple[str, ...] = ()  # arrays no split loop indexes: every block gets all of each
    results: tuple[tuple[str, tuple[int, ...]], ...] = ()  # new arrays the kernel returns, and their shapes
    result_types: tuple[tuple[str, str], ...] = ()  # and their dtypes
    # written arguments the kernel never reads, and the blocks (positions along the splits) whose
    # chunk of each it writes whole: those blocks start from an empty array, not the argument's
    overwritten: tuple[tuple[str, frozenset[tuple[int, ...]]], ...] = ()

    @property
    def guarded(self) -> bool:
        """Blocks run the reductions' updates on their own chunk only (polyfuse.dask.guard)."""
        return any(h.guarded for e in self.exchanges for h in e.axes)

    @property
    def result_dtypes(self) -> dict[str, str]:
        return dict(self.result_types)

    def chunks_of(self, name: str, shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """The chunks array ``name`` (of this ``shape``) is cut into before its ghost zones."""
        return _chunks_of(name, shape, self.splits)

    def render(self) -> str:
        lines = [f"== dask plan: {self.kernel} ==",
                 f"chunked arrays: {', '.join(self.chunked)}; outputs: "
                 f"{', '.join(self.written + tuple(n for n, _ in self.results))}",
                 f"chunks: {self.chunks}" + (f" (rechunked axes {list(self.rechunked)}: a chunk was "
                                             "thinner than its ghost zone)" if self.rechunked else "")]
        first = self.exchanges[0]
        split = [a.axis for a in first.axes]
        lines.append(f"split axes: {split if split else 'none (one chunk per axis)'}")
        for a, x, why in self.merged:
            lines.append(f"one chunk: {a} axis {x} ({why})")
        if self.whole and self.splits:
            lines.append(f"whole in every block: {', '.join(self.whole)}")
        for split_, halo in zip(self.splits, first.axes):
            lines.append(f"- axis {halo.axis}: ghost depth left {halo.left}, right {halo.right}"
                         + ("" if halo.closure_exact else " (isl's flow closure was inexact: a superset)"))
            if len(split_.cut.members) > 1:
                lines.append(f"    cut together: {split_.cut.label}")
            for array in split_.summed:
                lines.append(f"    {array}: summed along it (each block adds its chunk's updates, into zeros past "
                             "the first block; Dask's tree sum adds the partials: for floats in another order "
                             "than the loop, hence reassociate=True)")
            for array, d in split_.offsets:
                lines.append(f"    {array}: {abs(d)} {'longer' if d > 0 else 'shorter'} along it than the "
                             f"reference, in every block (its last chunk {split_.chunks_for(array)[-1]})")
            for need in halo.needs:
                lines.append(f"    {need.array}: reads need left {need.left}, right {need.right}")
            lines.append("    loops moving with the axis: "
                         + ", ".join(f"{s}:{it}" for s, it in halo.iterators))
        for r in self.reductions:
            lines.append(f"reduction: {r.variable} {r.op}= ... in {r.statement}: per-block partials, "
                         "combined by dask.array.reduction (a tree)")
            if self.guarded:
                lines.append(f"    {r.statement} runs on each block's own chunk only (its loop also runs over "
                             "the ghost zones: polyfuse.dask.guard)")
        if self.steps is not None:
            s = self.steps
            lines.append(f"time loop: {s.loop.iterator} over {s.loop.param}={s.total}; {s.steps} step(s) per "
                         f"exchange, {len(s.exchanges)} exchange(s) ({s.reason})")
            for option in s.options:
                depths = ", ".join(f"axis {a}: {left}/{right}" for a, left, right in option.depths)
                mark = " <- chosen" if option.steps == s.steps else ""
                lines.append(f"    k={option.steps}: {option.exchanges} exchanges, depths {depths}, "
                             f"model {option.seconds * 1e3:.1f} ms{mark}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class Analysis:
    """The kernel's lifted Scop and dependences for one signature (cached on the kernel)."""

    scop: Scop
    deps: Dependences


def analysis(kernel, values: dict[str, Any]) -> Analysis:
    """Lift and analyse the kernel for these arguments' signature (numpy stand-ins of the dask
    arrays: only dtype, rank and layout matter)."""
    arguments = tuple(argument_of(name, _standin(value)) for name, value in values.items())
    zero_d = next((a.name for a in arguments if a.kind == "array" and a.rank == 0), None)
    if zero_d is not None:
        raise ArgumentError(f"argument {zero_d!r} is a 0-d array; dask calls take none: pass a Python number instead")
    key = tuple((a.name, a.kind, a.dtype, a.rank) for a in arguments)
    cache = kernel._dask_analyses
    found = cache.get(key)
    if found is None:
        with ISL_LOCK:
            scop = lift(kernel.py_func, arguments)
            found = cache[key] = Analysis(scop, compute_dependences(scop))
    return found


def _standin(value: Any) -> Any:
    if is_dask_array(value):
        return np.empty((0,) * value.ndim, dtype=value.dtype)
    return value


def make_plan(kernel, values: dict[str, Any], *, steps_per_exchange: int | None = None,
              reassociate: bool = False) -> DaskPlan:
    """Decide cuts, chunks, ghost depths and time steps for this call (see the module docstring)."""
    found = analysis(kernel, values)
    scop, deps = found.scop, found.deps
    if any(r.how == "prefix" for r in returned_values(scop)):  # buf[:k], np.array(list): k from the whole run
        raise UnsupportedError(f"{kernel.py_func.__name__} returns buf[:k] or np.array of a list built by append, "
                               "whose length is known only once the whole array was seen: on dask arrays run it "
                               "on a numpy array (x.compute())")
    if scop.counts or any(size.source is None for size in scop.sizes):  # a chunk's elements in C order
        raise UnsupportedError(f"{kernel.py_func.__name__} reshapes an array so that its elements regroup, or "
                               "allocates a product of extents: on dask arrays that needs the whole array (run it "
                               "on numpy arrays)")
    name = kernel.py_func.__name__
    dasks = tuple(n for n, v in values.items() if is_dask_array(v))
    written, reductions, results = _outputs(name, scop, values, dasks, reassociate)
    outputs = written + results  # the arrays each block hands back
    seeds = [(n, axis) for n in written + tuple(d for d in dasks if d not in written)
             for axis in range(values[n].ndim)]
    env = _param_values(scop, values, dasks)
    scalars = tuple((n, v) for n, v in values.items() if isinstance(v, (int, float, np.integer, np.floating)))
    new_shapes = result_shapes(scop, env, results)
    sums = _sums(scop, written, reassociate) if not reductions else {}
    layout = split_cuts(name, find_cuts(scop, seeds), values, outputs, new_shapes, sums)
    chunked = dasks + tuple(n for n in layout.promoted if n not in dasks)
    ints = tuple(n for n, v in values.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool))
    # a returned reduction or new array holds the last exchange's value only: one exchange
    summing = any(s.summed for s in layout.splits)  # partials of one exchange are not the next one's input
    loop = time_loop(scop, deps, ints) if not reductions and not results and not summing else None
    reference = written[0] if written else dasks[0]
    splits = layout.splits

    problems: dict[int | None, Problem] = {}

    def problem(step_count: int | None) -> Problem:
        """The kernel at the call's sizes with ``step_count`` time steps, made once (its isl
        work, the flow closure first, is cached on it)."""
        if step_count not in problems:
            sizes = dict(env)
            if loop is not None and step_count is not None:
                sizes[loop.param] = step_count
            problems[step_count] = Problem(scop, deps, tuple(sizes.items()), chunked, outputs,
                                           tuple(dict.fromkeys(r.statement for r in reductions)), splits,
                                           scalars=scalars)
        return problems[step_count]

    choice = None
    if loop is not None:
        total = int(env[loop.param])
        choice = _choose_steps(problem, loop, total, splits, values[reference], reference, values,
                               steps_per_exchange)
        counts: tuple[int | None, ...] = choice.exchanges or (0,)
    else:
        if steps_per_exchange is not None:
            raise ArgumentError(f"steps_per_exchange: {name} has no time loop that can "
                                "be split (one loop around the whole body over an int argument)")
        counts = (None,)
    splits, thin = _fit_chunks(problem(counts[0]), splits)
    exchanges = []
    for count in dict.fromkeys(counts):
        axes = tuple(halo_for_axis(problem(count), s.cut, s.chunks) for s in splits)
        exchanges.append((count, axes))
    by_count = dict(exchanges)
    shapes = {n: values[n].shape for n in chunked} | new_shapes
    chunks = _chunks_of(reference, shapes[reference], splits)
    rechunked = tuple(a for s in thin if (a := s.axis_of(reference)) is not None)
    whole = tuple(n for n in chunked if not any(s.cut.axis_of(n) is not None for s in splits))
    overwritten = _overwritten(problem(counts[0]), splits, written, shapes) if loop is None else ()
    return DaskPlan(name, chunked, written, chunks, rechunked,
                    tuple(Exchange(c, by_count[c]) for c in counts), choice, reductions, splits,
                    layout.merged, whole, tuple((n, shapes[n]) for n in results),
                    tuple((n, scop.array(n).dtype) for n in results), overwritten)


def _overwritten(problem: Problem, splits: tuple[Split, ...], written: tuple[str, ...],
                 shapes: dict[str, tuple[int, ...]]) -> tuple[tuple[str, frozenset[tuple[int, ...]]], ...]:
    """Per written argument that no statement reads (``out`` in ``out[i, j] = f(A, i, j)``), the
    blocks whose chunk of it the kernel writes whole (isl, at the call's sizes): such a block's
    kernel reads none of the argument's values, so the graph hands it an empty array (its
    producer runs only for the blocks that keep some of its values: the array's edges)."""
    import itertools

    read = {m.get_tuple_name(isl.dim_type.out) for m in _maps(problem.scop.reads())}
    summed = {a for s in splits for a in s.summed}
    found = []
    for name in written:
        if name in read or name in summed:
            continue
        writes = fixed(problem.scop.writes(), problem.env).range()
        elements = next((x for x in _sets(writes) if x.get_tuple_name() == name), None)
        if elements is None:
            continue
        elements = elements.project_out(isl.dim_type.param, 0, elements.dim(isl.dim_type.param))
        blocks = set()
        for where in itertools.product(*(range(len(s.chunks)) for s in splits)):
            box = []
            for axis, extent in enumerate(shapes[name]):
                k = next((k for k, s in enumerate(splits) if s.cut.axis_of(name) == axis), None)
                lo, size = (0, extent) if k is None else (splits[k].lo(where[k]), splits[k].chunks_for(name)[where[k]])
                box.append(f"{lo} <= a{axis} < {lo + size}")
            xs = ", ".join(f"a{axis}" for axis in range(len(shapes[name])))
            chunk = isl.Set.read_from_str(elements.get_ctx(), f"{{ {name}[{xs}] : {' and '.join(box) or 'true'} }}")
            if chunk.is_subset(elements):
                blocks.add(where)
        if blocks:
            found.append((name, frozenset(blocks)))
    return tuple(found)


def _maps(union: isl.UnionMap) -> list[isl.Map]:
    found: list[isl.Map] = []
    union.foreach_map(found.append)
    return found


def _sets(union: isl.UnionSet) -> list[isl.Set]:
    found: list[isl.Set] = []
    union.foreach_set(found.append)
    return found


def _outputs(name: str, scop: Scop, values: dict[str, Any], dasks: tuple[str, ...], reassociate: bool):
    """What each block hands back: the arguments the kernel writes (all dask arrays), its
    returned reductions (each scalar it returns, once) and the new arrays it returns."""
    written_all = {a for s in scop.statements for a in s.targets}
    written = tuple(n for n in values if n in written_all)
    for array in written:
        if array not in dasks:
            raise ArgumentError(f"{name} writes {array!r}: on dask arrays every array "
                                "it writes must be a dask array (its new value is returned)")
    _not_passed_twice(name, written, values, dasks)
    returned = returned_values(scop)
    scalars = {r.name: r for r in returned if r.how == "scalar"}.values()  # ``return s, s``: one reduction
    reductions = tuple(reduction_of(scop, r, reassociate=reassociate) for r in scalars)
    return written, reductions, tuple(r.name for r in returned if r.how == "array")


def _not_passed_twice(name: str, written: tuple[str, ...], values: dict[str, Any], dasks: tuple[str, ...]) -> None:
    """One dask array object passed for two arguments, one of them written, is refused as numpy
    arguments that share memory are: the kernel on numpy arrays would read its own writes
    through the other name, while each block here reads the values the call was given.  Two
    objects are two values, even of one name (``from_array`` names equal contents alike)."""
    for array in written:
        other = next((o for o in dasks if o != array and values[o] is values[array]), None)
        if other is not None:
            raise ArgumentError(f"arguments {other!r} and {array!r} of {name} are the same dask array and {array!r} "
                                f"is written by the kernel; pass separate arrays (e.g. {array}.map_blocks(np.copy))")


def returned_values(scop: Scop) -> list[Returned]:
    """What the kernel returns, flattened (a tuple's items in order); views of arguments are
    left out (they are sliced from the argument's new value: polyfuse.dask.views)."""
    found: list[Returned] = []

    def walk(value) -> None:
        if isinstance(value, tuple):
            for item in value:
                walk(item)
        elif value is not None and value.how != "view":
            found.append(value)

    walk(scop.returns)
    return found


def result_shapes(scop: Scop, env: dict[str, int], results: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
    """The shapes of the new arrays the kernel returns, at this call's sizes (isl evaluates
    their extents; an extent that is not affine in the sizes is refused)."""
    shapes = {}
    for name in results:
        info = scop.array(name)
        if len(info.extent_texts) != info.rank:
            raise UnsupportedError(f"on dask arrays the extents of the returned array {name!r} must be affine "
                                   "in the arguments' sizes", scop.returns_span, "return")
        shapes[name] = tuple(_evaluate(scop, text, env) for text in info.extent_texts)
    return shapes


def _evaluate(scop: Scop, text: str, env: dict[str, int]) -> int:
    params = ", ".join(env)
    point = isl.Set.read_from_str(scop.context.get_ctx(), f"[{params}] -> {{ [x] : x = {text} }}")
    point = fixed(point, env)
    if not point.is_singleton():
        raise UnsupportedError(f"on dask arrays the extent {text} of a returned array must be fixed by the "
                               "arguments' sizes", scop.returns_span, "return")
    return point.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()


@dataclass(frozen=True)
class Layout:
    """Which cuts are split (and their unified chunks), which axes are merged into one chunk
    because their loop is not split, and which numpy arguments are cut like dask arrays."""

    splits: tuple[Split, ...]  # before thin chunks are merged (plan._fit_chunks)
    merged: tuple[tuple[str, int, str], ...]  # (array, axis, why)
    promoted: tuple[str, ...]


def _sums(scop: Scop, written: tuple[str, ...], reassociate: bool) -> dict[str, bool]:
    """The written arrays the kernel only adds to (polyfuse.dask.reduce.accumulated), and
    whether a loop may be split into partial sums of each: integers always (int64 wraps the
    same in any order), floats with ``reassociate=True`` (the additions change order)."""
    found = {}
    for array in written:
        dtype = accumulated(scop, array)
        if dtype is not None:
            found[array] = reassociate or not dtype.startswith(("float", "complex"))
    return found


def split_cuts(name: str, cuts: tuple[Cut, ...], values: dict[str, Any], written: tuple[str, ...],
               new_shapes: dict[str, tuple[int, ...]], sums: dict[str, bool] | None = None) -> Layout:
    """Split a cut where its arrays have several chunks along it, and, for a kernel that
    writes arrays, where it moves every one of them: along a loop that indexes no written array
    (``j`` in ``y[i] += A[i, j] * x[j]``), or not all of them, every block would write the same
    elements, so the cut's axes are merged into one chunk (reported).  The chunks are those of
    the cut's reference array (its first output): the arrays' chunk boundaries inside its
    extent, refined in common; an array of another extent differs in its last chunk only
    (``Split.offsets``).  No array axis may move with two split cuts; that is refused, named.
    A cut that leaves out only arrays the kernel adds to (``sums``: ``y[i] += A[i, j] * x[j]``
    along ``j``) is split where ``sums`` allows it: each block adds its chunk's updates into
    zeros, and Dask sums the partials (``Split.summed``)."""
    from dask.array.core import common_blockdim

    split: list[Split] = []
    merged: list[tuple[str, int, str]] = []
    promoted: list[str] = []
    for cut in cuts:
        members = [(a, x) for a, x in cut.members if hasattr(values.get(a), "shape")]
        extents = {a: int(values[a].shape[x]) for a, x in members}
        extents |= {a: new_shapes[a][x] for a, x in cut.members if a in new_shapes}  # returned new arrays
        reference = next((a for a in written if a in extents), members[0][0] if members else None)
        if reference is None:
            continue
        along = extents[reference]
        chunks = [_clipped(values[a].chunks[x], along) for a, x in members if is_dask_array(values[a])]
        several = any(len(c) > 1 for c in chunks)
        if not several:
            continue
        left_out = [w for w in written if cut.axis_of(w) is None]
        sums = sums or {}
        summed = bool(left_out) and all(sums.get(w) for w in left_out)
        if left_out and not summed:
            loop = ", ".join(cut.loops) or "-"
            why = (f"loop {loop} indexes no written array" if len(left_out) == len(written) else
                   f"{', '.join(left_out)} {'is' if len(left_out) == 1 else 'are'} written but not indexed by loop {loop}")
            if all(w in sums for w in left_out):
                why += ("; a float sum split along it would add in another order: "
                        "polyfuse.dask.call(..., reassociate=True) sums per-chunk partials")
            merged.extend((a, x, why) for a, x in members if is_dask_array(values[a]) and len(values[a].chunks[x]) > 1)
            continue
        for member in members:
            other = next((s.cut for s in split if member in s.cut.members), None)
            if other is not None:
                raise UnsupportedError(f"{name}: cannot cut {member[0]} consistently: its axis {member[1]} moves with "
                                       f"{cut.label} and with {other.label}; keep it in one chunk")
        differ = tuple((a, n - along) for a, n in extents.items() if n != along)
        common = list(common_blockdim(chunks))
        shortest = min((d for _, d in differ), default=0)
        while len(common) > 1 and common[-1] + shortest < 1:  # a shorter array keeps an element in its last chunk
            common[-2:] = [common[-2] + common[-1]]
        if len(common) < 2:
            continue
        split.append(Split(cut, tuple(common), differ, tuple(left_out) if summed else ()))
        promoted.extend(a for a, _ in members if not is_dask_array(values[a]))
    cut_along = {member for s in split for member in s.cut.members}
    merged = [(a, x, why) for a, x, why in merged if (a, x) not in cut_along]  # another loop cuts it
    return Layout(tuple(split), tuple(merged), tuple(dict.fromkeys(promoted)))


def _clipped(chunks: tuple[int, ...], extent: int) -> tuple[int, ...]:
    """``chunks``' boundaries that lie inside ``[0, extent)``, as chunks summing to ``extent``
    (an array longer than the reference loses its extra elements' boundaries, a shorter one's
    last chunk reaches the reference's end)."""
    bounds, at = [], 0
    for size in chunks[:-1]:
        at += size
        if 0 < at < extent:
            bounds.append(at)
    found, last = [], 0
    for b in bounds + [extent]:
        found.append(b - last)
        last = b
    return tuple(found)


def _chunks_of(name: str, shape: tuple[int, ...], splits: tuple[Split, ...]) -> tuple[tuple[int, ...], ...]:
    """The chunks of array ``name`` in the plan: a split cut's along its axes, one chunk elsewhere."""
    chunks: list[tuple[int, ...]] = [(int(n),) for n in shape]
    for s in splits:
        axis = s.cut.axis_of(name)
        if axis is not None:
            chunks[axis] = s.chunks_for(name)
    return tuple(chunks)


def _param_values(scop: Scop, values: dict[str, Any], chunked: tuple[str, ...]) -> dict[str, int]:
    """Every isl parameter's value at this call: array extents and int arguments."""
    env: dict[str, int] = {}
    for name, value in values.items():
        shape = getattr(value, "shape", None)
        if shape is not None:
            for axis, extent in enumerate(shape):
                env[shape_param(name, axis)] = int(extent)
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            env[isl_name(name)] = int(value)
    for size in scop.sizes:  # at the whole arrays' extents (a block computes its own: problem.local_sizes)
        env[size.name] = size_value(size, dict(values))
    return {p: env[p] for p in scop.params if p in env}


def _fit_chunks(problem: Problem, splits: tuple[Split, ...]) -> tuple[tuple[Split, ...], tuple[Cut, ...]]:
    """Merge chunks thinner than their ghost zone (dask's overlap reads only the neighbours).
    An array longer by ``d`` along the cut exchanges ``d`` more on the right; one shorter by
    ``d`` needs ``d`` more elements in every chunk (its last chunk is ``d`` shorter).  Returns
    the splits with their fitted chunks, and the cuts whose chunks were merged."""
    from dask.array.overlap import ensure_minimum_chunksize

    fitted, thin = list(splits), []
    for index, split in enumerate(splits):
        sizes = split.chunks
        if len(sizes) < 2:
            continue
        halo = halo_for_axis(problem, split.cut, sizes, final=False)
        differ = [d for _, d in split.offsets] + [0]
        longer, shorter = max(differ), max(-min(differ), 0)
        depth = max(halo.left, halo.right + longer) + shorter + (1 if shorter else 0)
        if depth and min(sizes) < depth:
            total = sum(sizes)  # dask raises for a depth past the array's extent: one chunk then
            chunks = tuple(ensure_minimum_chunksize(depth, sizes)) if depth <= total else (total,)
            fitted[index] = replace(split, chunks=chunks)
            thin.append(split.cut)
    return tuple(fitted), tuple(thin)


def _choose_steps(problem, loop: TimeLoop, total: int, splits: tuple[Split, ...], array, reference: str, values,
                  forced: int | None) -> StepChoice:
    """Steps per exchange: forced, or the cheapest candidate under the cost model (depths of
    the middle chunk of each split cut stand for all; blocks counted in the reference array)."""
    if forced is not None and (not isinstance(forced, int) or forced < 1):
        raise ArgumentError(f"steps_per_exchange must be a positive int (got {forced!r})")
    written = problem(1).written
    itemsize = max(values[n].dtype.itemsize for n in written) if written else 8
    chunks = _chunks_of(reference, array.shape, splits)
    options = []
    for k in ([min(forced, max(total, 1))] if forced is not None else candidate_steps(total)):
        depths = _middle_depths(problem(k), splits, reference)
        options.append(estimate(k, total, chunks, depths, itemsize, len(problem(k).chunked)))
    if forced is not None:
        return StepChoice(loop, total, options[0].steps, f"steps_per_exchange={forced}", tuple(options))
    best = min(options, key=lambda o: (o.seconds, o.steps))
    return StepChoice(loop, total, best.steps, "cost model", tuple(options))


def _middle_depths(problem: Problem, splits: tuple[Split, ...], reference: str) -> dict[int, tuple[int, int]]:
    depths = {}
    for split in splits:
        sizes, axis = split.chunks, split.cut.axis_of(reference)
        if len(sizes) < 2 or axis is None:
            continue
        middle = len(sizes) // 2
        lo = sum(sizes[:middle])
        needs = chunk_needs(problem, split.cut, lo, lo + sizes[middle], middle == len(sizes) - 1)
        depths[axis] = (max((a.left for a in needs.arrays), default=0),
                        max((a.right for a in needs.arrays), default=0))
    return depths


def bound_values(kernel, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The call's arguments by parameter name."""
    try:
        bound = inspect.signature(kernel.py_func).bind(*args, **kwargs)
    except TypeError as exc:
        raise ArgumentError(f"{kernel.py_func.__name__}(): {exc}") from None
    return dict(bound.arguments)
