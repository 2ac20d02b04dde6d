"""``polyfuse.spec`` with dask inputs: the spec runs on each block, planned from its loop kernel.

A spec is several statements whose index names are local to each one, so unlike einsum there
are no labels to pair the operands' blocks by.  The spec's generated loop kernel (the fused
kernel a numpy call runs) has the access relations that say which axes move together: the
plan of a kernel call on dask arrays (polyfuse.dask.plan and .cuts) decides the split loops,
their chunks and the arrays every block gets whole (a weight matrix), exactly as for a kernel.
Each block then runs the *spec* on its blocks (``SpecBlock``: BLAS steps and fused loop steps
where they pay, as a numpy call does), writing into the block's outputs.  A split loop that no
output is indexed by (a summed index such as ``k`` in ``X[i, k] * W[k, j]``) is not split: its
axes are merged into one chunk, so every output element is summed in one block, in the order
a numpy call sums it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.errors import ArgumentError

_SPECS: dict[tuple, Any] = {}  # this process's specs by recipe: built once, shared by its tasks
_LOCK = threading.Lock()


@dataclass(frozen=True)
class SpecBlock:
    """Runs the spec on one block, called like its loop kernel (arrays, scalars, outputs).

    Pickles as the spec's text and options (``recipe``) and ``build``, the ``Spec`` class
    (handed in by polyfuse.tensor.spec: this layer sits below it; a class pickles by name);
    a worker process builds the spec once."""

    build: Callable[..., Any]
    recipe: tuple[tuple[str, Any], ...]  # polyfuse.spec's arguments

    def __call__(self, *values: Any) -> None:
        spec = spec_of(self.build, self.recipe)
        given = len(spec.inputs)
        outputs = {name: out if spec._rank(name) else out.reshape(())  # a view: the kernel's (1,) buffer
                   for name, out in zip(spec.outputs, values[given:])}
        spec(*values[:given], **outputs)


def recipe_of(spec) -> tuple[tuple[str, Any], ...]:
    dtype = None if spec.dtype is None else spec.dtype.name
    options = (("text", spec.text), ("outputs", tuple(spec.outputs)), ("dtype", dtype), ("target", spec.target),
               ("fuse", spec.fuse), ("blas", spec.blas),
               ("fastmath", spec.fastmath))
    with _LOCK:
        _SPECS.setdefault(options, spec)
    return options


def spec_of(build: Callable[..., Any], recipe: tuple[tuple[str, Any], ...]):
    """This process's spec for ``recipe`` (the caller's own in the process that made it)."""
    with _LOCK:
        found = _SPECS.get(recipe)
    if found is None:
        options = dict(recipe)
        built = build(options.pop("text"), list(options.pop("outputs")), **options)
        with _LOCK:
            found = _SPECS.setdefault(recipe, built)
    return found


def call(spec, args: tuple, kwargs: dict[str, Any]):
    """``spec(*args, **kwargs)`` with dask inputs: dask arrays of the outputs (a 0-d one for a
    rank-0 output), one or a tuple in ``spec.outputs`` order."""
    from polyfuse.dask import call_values

    kernel, call_args, shapes = _as_kernel_call(spec, args, kwargs)
    result = call_values(kernel, call_args, runner=SpecBlock(type(spec), recipe_of(spec)))
    results = result if isinstance(result, tuple) else (result,)
    out = [r if shapes[name] else r[0] for name, r in zip(spec.outputs, results)]
    return out[0] if len(out) == 1 else tuple(out)


def explain(spec, *args: Any, **kwargs: Any):
    """The plan (``polyfuse.dask.DaskPlan``) a call of ``spec`` with these dask inputs builds:
    the cuts of its loop kernel, their chunks, the arrays every block gets whole."""
    from polyfuse.dask import explain_values

    kernel, call_args, _ = _as_kernel_call(spec, args, kwargs)
    return explain_values(kernel, call_args)


def _as_kernel_call(spec, args: tuple, kwargs: dict[str, Any]):
    """The spec's loop kernel and its arguments for this call: the inputs (cast to the spec's
    dtype), the scalars, and the outputs as single-chunk ``da.zeros`` (the plan cuts them);
    and the outputs' shapes."""
    import dask.array as da

    values, given_out = spec._bind(args, kwargs)
    if given_out:
        raise ArgumentError(f"spec: outputs ({', '.join(given_out)}) cannot be given with dask inputs "
                            "(the results are dask arrays)")
    arrays = {name: _as_array(values[name]) for name in spec.arrays}
    for name, value in arrays.items():
        if value.ndim != spec._analysis.ranks[name]:
            raise ArgumentError(f"spec: input {name!r} has {value.ndim} dimensions but the spec indexes it "
                                f"with {spec._analysis.ranks[name]}")
    dtype = spec._dtype_of(arrays)
    arrays = {n: a if a.dtype == dtype else a.astype(dtype) for n, a in arrays.items()}
    scalars = {name: float(values[name]) for name in spec.scalars}
    shapes = spec._validate(arrays)
    outputs = {name: da.zeros(shapes[name] or (1,), dtype=dtype, chunks=-1) for name in spec.outputs}
    return spec.kernel(dtype), {**arrays, **scalars, **outputs}, shapes


def _as_array(value: Any) -> Any:
    from polyfuse.runtime.signature import is_dask_array

    return value if is_dask_array(value) else np.asarray(value)
