"""polyfuse kernels on Dask arrays: ``kernel(A, B)`` with dask array arguments builds a graph.

Calling a compiled kernel with ``dask.array`` arguments returns dask arrays (the new values of
the arrays it writes, or a 0-d array for a returned reduction) instead of computing.
``polyfuse.dask.call`` does the same with the knobs a call cannot take (``steps_per_exchange``,
``reassociate``); ``polyfuse.dask.explain`` returns the plan: split axes, ghost depths per array
and side, chunks, time steps per exchange.  ``polyfuse.einsum`` with dask operands builds a
blockwise graph (polyfuse.dask.einsum); ``polyfuse.spec`` with dask inputs runs the spec on
each block of its loop kernel's plan (polyfuse.dask.spec).  See docs/dask.md.

The pipeline: plan (client; isl on the call's sizes: polyfuse.dask.plan, .cuts, .halo, .steps) ->
graph (dask's overlap + blockwise: polyfuse.dask.graph) -> workers run the compiled kernel
per block (compiled once per worker process, from the kernel's source: polyfuse/kernel.py, KernelRecipe).
"""

from __future__ import annotations

from typing import Any

from polyfuse.dask.plan import DaskPlan, bound_values, is_dask_array, make_plan
from polyfuse.model.isl_budget import ISL_LOCK

__all__ = ["DaskPlan", "call", "explain", "is_dask_array"]


def call(kernel, *args: Any, steps_per_exchange: int | None = None, reassociate: bool = False,
         **kwargs: Any) -> Any:
    """Build the graph of ``kernel(*args, **kwargs)`` on dask arrays.

    A kernel without ``return`` gives the new value of the one array it writes, or a tuple of
    the written arrays in argument order; otherwise what it returns, on dask arrays: an
    argument's new value, a new array, a 0-d dask array for a reduction, or a tuple of them.
    ``reassociate=True`` lets a float sum or product be split into chunks (a returned
    reduction, or a sum into a written array along a loop that does not index it)."""
    return call_values(kernel, bound_values(kernel, args, kwargs), steps_per_exchange=steps_per_exchange,
                       reassociate=reassociate)


def call_values(kernel, values: dict[str, Any], *, steps_per_exchange: int | None = None,
                reassociate: bool = False, runner: Any = None) -> Any:
    """``call`` with the arguments already bound to the kernel's parameter names; ``runner``
    (called like the kernel) runs each block instead of it (polyfuse.dask.spec)."""
    from polyfuse.dask.graph import build
    from polyfuse.dask.plan import analysis
    from polyfuse.runtime.variant import returned_specs

    plan = _plan(kernel, values, steps_per_exchange, reassociate)
    scop = analysis(kernel, values).scop
    # every value the kernel returns, flattened as a block's kernel returns them (views too)
    names = tuple(r.name for r in returned_specs(scop.returns)) if scop.returns is not None else ()
    block_kernel, bounds = runner or kernel, ()
    if plan.guarded or _has_views(scop.returns):
        block_kernel, bounds = _block_kernel(kernel, plan, scop, runner)
    outputs, totals = build(block_kernel, values, plan, names, bounds)
    if scop.returns is None:
        result = tuple(outputs[name] for name in plan.written)
        return result[0] if len(result) == 1 else result
    return _assemble(scop.returns, outputs, values, totals, scop.returns_span)


def _has_views(returns) -> bool:
    if isinstance(returns, tuple):
        return any(_has_views(item) for item in returns)
    return returns is not None and returns.how == "view"


def _block_kernel(kernel, plan: DaskPlan, scop, runner: Any):
    """The kernel as each block runs it (polyfuse.dask.guard.block_variant): its reduction's
    update restricted to the block's chunk where the plan is guarded, the views it returns
    replaced by their arguments; made once per kernel and split loops.  Also the chunk-bound
    argument names of a guarded variant."""
    from polyfuse.dask.guard import block_variant, bound_names
    from polyfuse.errors import UnsupportedError

    updates: tuple[tuple[Any, tuple[str, ...]], ...] = ()
    bounds: tuple[tuple[str, str], ...] = ()
    if plan.guarded:  # every reduction's update: one that runs on its chunk only already is unchanged
        updates = tuple((scop.statement(name), tuple(dict(h.iterators)[name] for h in plan.exchanges[0].axes))
                        for name in dict.fromkeys(r.statement for r in plan.reductions))  # ``return s, s``: once
        if runner is not None:  # a spec's block (polyfuse.dask.spec): no source to restrict
            raise UnsupportedError("a reduction whose loop runs over the ghost zones cannot run here",
                                   updates[0][0].span, updates[0][0].source_line)
        bounds = bound_names(kernel.py_func, len(plan.exchanges[0].axes))
    views = _has_views(scop.returns)
    key = ("block", tuple((u.name, its) for u, its in updates), views)
    variant = kernel._dask_plans.get(key)
    if variant is None:
        variant = kernel._dask_plans[key] = block_variant(
            kernel, updates=updates, returns=scop.returns if views else None, returns_span=scop.returns_span)
    return variant, bounds


def _assemble(returns, outputs: dict[str, Any], values: dict[str, Any], totals: dict[str, Any], span: Any) -> Any:
    """The kernel's return value on dask arrays: an argument's new value (or the argument, if
    the kernel does not write it), a view of it (polyfuse.dask.views), a new array, the
    reductions, or a tuple of them."""
    from polyfuse.dask.views import sliced_view

    if isinstance(returns, tuple):
        return tuple(_assemble(item, outputs, values, totals, span) for item in returns)
    if returns.how == "scalar":
        return totals[returns.name]
    value = outputs[returns.name] if returns.name in outputs else values[returns.name]
    return sliced_view(value, returns, values, span) if returns.how == "view" else value


def explain(kernel, *args: Any, steps_per_exchange: int | None = None, reassociate: bool = False,
            **kwargs: Any) -> DaskPlan:
    """The plan ``call`` would build for these arguments (``print`` it for the report)."""
    return explain_values(kernel, bound_values(kernel, args, kwargs), steps_per_exchange=steps_per_exchange,
                          reassociate=reassociate)


def explain_values(kernel, values: dict[str, Any], *, steps_per_exchange: int | None = None,
                   reassociate: bool = False) -> DaskPlan:
    """``explain`` with the arguments already bound (``kernel.explain`` on dask arrays)."""
    return _plan(kernel, values, steps_per_exchange, reassociate)


def _plan(kernel, values: dict[str, Any], steps_per_exchange: int | None, reassociate: bool = False) -> DaskPlan:
    """The plan for these sizes and chunks, made once (the isl work takes a fraction of a
    second; a loop that builds a graph per iteration pays it once)."""
    key = (tuple(_plan_key(v) for v in values.values()), steps_per_exchange, reassociate)
    plans = kernel._dask_plans
    plan = plans.get(key)
    if plan is None:
        with ISL_LOCK:  # polyfuse's isl work shares one context
            plan = make_plan(kernel, values, steps_per_exchange=steps_per_exchange, reassociate=reassociate)
        if len(plans) >= 64:
            plans.pop(next(iter(plans)))  # the oldest
        plans[key] = plan
    return plan


def _plan_key(value: Any) -> Any:
    if is_dask_array(value):
        return ("dask", value.shape, value.chunks, str(value.dtype))
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return ("array", value.shape, str(value.dtype))
    if isinstance(value, int):
        return ("int", value)
    return (type(value).__name__,)
