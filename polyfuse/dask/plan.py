"""The plan for one call on dask arrays: which axes are split, their ghost depths, the chunks
(rechunked when a chunk is thinner than its halo) and the time steps per exchange.

Runs on the client only, at the call's sizes: the kernel is lifted and its dependences computed
once per signature (the same analysis the compiler runs), then polyfuse.dask.halo and
polyfuse.dask.steps decide.  The workers only run the compiled kernel.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.analysis.dependences import Dependences, compute_dependences
from polyfuse.dask.halo import AxisHalo, Problem, chunk_needs, halo_for_axis
from polyfuse.dask.reduce import Reduction, reduction_of
from polyfuse.dask.steps import StepChoice, TimeLoop, candidate_steps, estimate, time_loop
from polyfuse.errors import ArgumentError, UnsupportedError
from polyfuse.frontend import lift
from polyfuse.model.isl_budget import ISL_LOCK
from polyfuse.model.scop import Scop, isl_name, shape_param
from polyfuse.runtime.signature import argument_of, is_dask_array


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
    chunked: tuple[str, ...]  # dask array arguments, cut into blocks
    written: tuple[str, ...]  # those the kernel writes: the graph's outputs
    chunks: tuple[tuple[int, ...], ...]  # after any rechunk
    rechunked: tuple[int, ...]  # axes whose chunks were merged to hold their ghost zone
    exchanges: tuple[Exchange, ...]
    steps: StepChoice | None
    reduction: Reduction | None = None  # a returned reduction: per-block partials, then a tree

    def render(self) -> str:
        lines = [f"== dask plan: {self.kernel} ==",
                 f"chunked arrays: {', '.join(self.chunked)}; outputs: {', '.join(self.written)}",
                 f"chunks: {self.chunks}" + (f" (rechunked axes {list(self.rechunked)}: a chunk was "
                                             "thinner than its ghost zone)" if self.rechunked else "")]
        first = self.exchanges[0]
        split = [a.axis for a in first.axes]
        lines.append(f"split axes: {split if split else 'none (one chunk per axis)'}")
        for halo in first.axes:
            lines.append(f"- axis {halo.axis}: ghost depth left {halo.left}, right {halo.right}"
                         + ("" if halo.closure_exact else " (isl's flow closure was inexact: a superset)"))
            for need in halo.needs:
                lines.append(f"    {need.array}: reads need left {need.left}, right {need.right}")
            lines.append("    loops moving with the axis: "
                         + ", ".join(f"{s}:{it}" for s, it in halo.iterators))
        if self.reduction is not None:
            r = self.reduction
            lines.append(f"reduction: {r.variable} {r.op}= ... in {r.statement}: per-block partials, "
                         "combined by dask.array.reduction (a tree)")
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
    """Decide chunks, ghost depths and time steps for this call (see the module docstring)."""
    found = analysis(kernel, values)
    scop, deps = found.scop, found.deps
    chunked = tuple(name for name, v in values.items() if is_dask_array(v))
    shapes = {values[name].shape for name in chunked}
    if len(shapes) != 1:
        raise ArgumentError(f"{kernel.py_func.__name__}: the dask array arguments must have one shape "
                            f"(got {sorted(shapes)}); pass small arrays as numpy arrays")
    written_all = {a for s in scop.statements for a in s.targets}
    written = tuple(name for name in values if name in written_all)
    for name in written:
        if name not in chunked:
            raise ArgumentError(f"{kernel.py_func.__name__} writes {name!r}: on dask arrays every array "
                                "it writes must be a dask array (its new value is returned)")
    reduction = None
    if scop.returns is not None and not _returns_argument(scop.returns):
        if written:
            raise UnsupportedError(f"{kernel.py_func.__name__} writes {', '.join(written)} and returns a value: "
                                   "on dask arrays a kernel does one or the other so far")
        reduction = reduction_of(scop, reassociate=reassociate)
    chunks = values[chunked[0]].chunks
    ints = tuple(name for name, v in values.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool))
    loop = time_loop(scop, deps, ints) if reduction is None else None
    env = _param_values(scop, values, chunked)
    rank = values[chunked[0]].ndim

    def problem(step_count: int | None) -> Problem:
        sizes = dict(env)
        if loop is not None and step_count is not None:
            sizes[loop.param] = step_count
        return Problem(scop, deps, tuple(sizes.items()), chunked, written, rank,
                       reduction.statement if reduction is not None else None)

    choice = None
    if loop is not None:
        total = int(env[loop.param])
        choice = _choose_steps(problem, loop, total, chunks, values, steps_per_exchange)
        counts: tuple[int | None, ...] = choice.exchanges or (0,)
    else:
        if steps_per_exchange is not None:
            raise ArgumentError(f"steps_per_exchange: {kernel.py_func.__name__} has no time loop that can "
                                "be split (one loop around the whole body over an int argument)")
        counts = (None,)
    chunks, rechunked = _fit_chunks(problem(counts[0]), chunks)
    exchanges = []
    for count in dict.fromkeys(counts):
        axes = tuple(halo_for_axis(problem(count), axis, chunks[axis])
                     for axis in range(rank) if len(chunks[axis]) > 1)
        exchanges.append((count, axes))
    by_count = dict(exchanges)
    return DaskPlan(kernel.py_func.__name__, chunked, written, chunks, rechunked,
                    tuple(Exchange(c, by_count[c]) for c in counts), choice, reduction)


def _returns_argument(returns) -> bool:
    return getattr(returns, "how", "") == "arg"


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
    return {p: env[p] for p in scop.params if p in env}


def _fit_chunks(problem: Problem, chunks: tuple[tuple[int, ...], ...]):
    """Merge chunks thinner than their ghost zone (dask's overlap reads only the neighbours)."""
    from dask.array.overlap import ensure_minimum_chunksize

    fitted, rechunked = list(chunks), []
    for axis, sizes in enumerate(chunks):
        if len(sizes) < 2:
            continue
        halo = halo_for_axis(problem, axis, sizes)
        depth = max(halo.left, halo.right)
        if depth and min(sizes) < depth:
            fitted[axis] = tuple(ensure_minimum_chunksize(depth, sizes))
            rechunked.append(axis)
    return tuple(fitted), tuple(rechunked)


def _choose_steps(problem, loop: TimeLoop, total: int, chunks, values, forced: int | None) -> StepChoice:
    """Steps per exchange: forced, or the cheapest candidate under the cost model (depths of
    the middle chunk of each split axis stand for all)."""
    if forced is not None and (not isinstance(forced, int) or forced < 1):
        raise ArgumentError(f"steps_per_exchange must be a positive int (got {forced!r})")
    written = problem(1).written
    itemsize = max(values[n].dtype.itemsize for n in written) if written else 8
    options = []
    for k in ([min(forced, max(total, 1))] if forced is not None else candidate_steps(total)):
        depths = _middle_depths(problem(k), chunks)
        options.append(estimate(k, total, chunks, depths, itemsize, len(problem(k).chunked)))
    if forced is not None:
        return StepChoice(loop, total, options[0].steps, f"steps_per_exchange={forced}", tuple(options))
    best = min(options, key=lambda o: (o.seconds, o.steps))
    return StepChoice(loop, total, best.steps, "cost model", tuple(options))


def _middle_depths(problem: Problem, chunks) -> dict[int, tuple[int, int]]:
    depths = {}
    for axis, sizes in enumerate(chunks):
        if len(sizes) < 2:
            continue
        middle = len(sizes) // 2
        lo = sum(sizes[:middle])
        needs = chunk_needs(problem, axis, lo, lo + sizes[middle])
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
