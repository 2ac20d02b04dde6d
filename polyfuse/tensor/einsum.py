"""``polyfuse.einsum``: numpy.einsum compiled into one fused polyfuse loop program.

A call is translated into loop-nest Python source in the supported subset (docs/subset.md):

1. the subscripts are parsed and checked against the operands (errors are
   :class:`polyfuse.ArgumentError`, a ``ValueError``, pointing at the position in the string);
2. ellipses become extra labels, size-1 axes that broadcast are indexed with ``0``;
3. the contraction order comes from ``opt_einsum.contract_path``; every pairwise step becomes one
   loop nest, intermediates are kernel-local ``np.empty`` arrays, the last step writes ``out``;
4. the source is wrapped with ``polyfuse.kernel``, so the fusion, both backends and ``explain()``
   apply unchanged.  Extents are written as ``opK.shape[d]``: one compilation serves all sizes.

Kernels are cached per (subscripts, ranks, dtypes, broadcasting pattern, contraction order,
target).  Calls whose work (the product of all label sizes, which is what numpy's plain einsum
loops over) is at most ``einsum_plan.FALLBACK_WORK`` run ``numpy.einsum`` instead: a compiled kernel has a
fixed per-call cost of tens of microseconds.  Dtypes other than float32/float64/int32/int64 also go
to numpy.  A call that is one GEMM-shaped pairwise contraction of float32/float64 operands
(``ij,jk->ik``, ``bij,bjk->bik``, ...) above that size runs ``np.matmul`` (BLAS) on transposed and
reshaped views instead of a kernel, unless ``blas=False``.  A path of several steps decides per
pairwise step (``einsum_staging._step_choice``, the cost model): GEMM-shaped steps that are large enough run
``np.matmul``, chains of the other steps run as fused loop stages (``einsum_staging._staged``); their
intermediates live in a :class:`Workspace` and are reused by the next call.  See docs/einsum.md.

The stages, one module each, in the order a call meets them:

- :mod:`~polyfuse.tensor.einsum_parse`: subscripts parsed and checked against the operands;
- :mod:`~polyfuse.tensor.einsum_order`: the contraction order (opt_einsum);
- :mod:`~polyfuse.tensor.einsum_plan`: what the call runs (numpy, BLAS, staged, one kernel), using
  :mod:`~polyfuse.tensor.blas` (matmul form), :mod:`~polyfuse.tensor.einsum_staging` (per-step dispatch,
  intermediates in a :mod:`~polyfuse.tensor.workspace`) and :mod:`~polyfuse.tensor.einsum_gen`
  (loop-nest source and kernels);
- this module: the call path, which caches plans and runs them;
- :mod:`~polyfuse.tensor.einsum_explain`: :func:`einsum_path` and :func:`explain` describe a plan.

Rows for ``polyfuse bench`` are in :mod:`polyfuse.bench.einsum_suite`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from polyfuse.errors import ArgumentError, PolyfuseError
from polyfuse.runtime.signature import is_dask_array
from polyfuse.tensor.blas import run_matmul
from polyfuse.tensor.einsum_explain import EinsumPath, einsum_path, explain
from polyfuse.tensor.einsum_gen import _CACHE_LIMIT, clear_kernels
from polyfuse.tensor.einsum_order import _optimize_key
from polyfuse.tensor.einsum_plan import _as_arrays, _Plan, _plan
from polyfuse.tensor.einsum_staging import _run_stages
from polyfuse.tensor.workspace import Workspace, clear_workspaces, workspace_bytes

__all__ = ["EinsumPath", "Workspace", "clear_caches", "clear_workspaces", "einsum", "einsum_path", "explain",
           "workspace_bytes"]


_plans: dict[tuple, _Plan] = {}


def einsum(subscripts: str, *operands: Any, out: np.ndarray | None = None, dtype: Any = None,
           optimize: Any = True, target: str = "cpu", fuse: str = "smart", blas: bool = True) -> Any:
    """``numpy.einsum(subscripts, *operands)`` as a compiled, fused polyfuse kernel.

    Same semantics as numpy.einsum: explicit and implicit output, repeated labels (diagonals,
    traces), ``...`` and size-1 broadcasting, any number of operands, ``out=`` and ``dtype=``.
    ``optimize``: ``True`` (opt_einsum's ``"auto"``), ``False`` (one loop nest over all labels),
    an opt_einsum strategy name, or an explicit path such as ``["einsum_path", (0, 1), (0, 1)]``.
    Small calls (see ``einsum_plan.FALLBACK_WORK``) and unsupported dtypes run numpy.einsum.
    ``blas``: a call that is one GEMM-shaped contraction of two float32/float64 operands (every
    label a batch, contracted or free label) runs ``np.matmul`` (BLAS); in a path of several
    steps, the large GEMM-shaped steps run ``np.matmul`` and the others fused loop stages;
    ``blas=False`` always runs the single fused loop program.
    """
    if any(map(is_dask_array, operands)):
        if out is not None:
            raise ArgumentError("einsum: out= cannot be given with dask operands (the result is a dask array)")
        from polyfuse.dask.einsum import einsum as dask_einsum

        return dask_einsum(einsum, subscripts, *operands, dtype=dtype, optimize=optimize, target=target, fuse=fuse,
                           blas=blas)
    try:
        ops = _as_arrays(operands)
        key = (subscripts, _optimize_key(optimize) if not isinstance(optimize, bool) else optimize,
               target, fuse, bool(blas), None if dtype is None else np.dtype(dtype).num,
               None if out is None else out.dtype.num,
               tuple((op.shape, op.dtype.num) for op in ops))
        plan = _plans.get(key)
        if plan is None:
            plan = _plan(subscripts, ops, out, dtype, optimize, target, fuse, blas=bool(blas))
            if len(_plans) >= _CACHE_LIMIT:
                _plans.clear()
            _plans[key] = plan
        return _run(plan, subscripts, ops, out, dtype, optimize)
    except PolyfuseError as exc:
        raise exc.with_traceback(None) from None


def _run(plan: _Plan, subscripts: str, ops: tuple[np.ndarray, ...], out: np.ndarray | None, dtype: Any,
         optimize: Any) -> Any:
    if plan.kind == "numpy":
        small = plan.reason.startswith("work")
        kwargs: dict[str, Any] = {"optimize": False if small else optimize}
        if dtype is not None:
            kwargs["dtype"] = dtype
        if out is not None:
            kwargs["out"] = out
        return np.einsum(subscripts, *ops, **kwargs)
    if out is not None and out.shape != plan.out_shape:
        raise ArgumentError(f"einsum {subscripts!r}: out has shape {out.shape}, the result has shape "
                            f"{plan.out_shape}")
    if plan.kind == "blas":
        assert plan.gemm is not None, "a BLAS plan has its matmul form"
        a, b = (op if plan.cast is None or op.dtype == plan.cast else op.astype(plan.cast) for op in ops)
        if out is not None:
            a = a.copy() if np.may_share_memory(a, out) else a
            b = b.copy() if np.may_share_memory(b, out) else b
        result = run_matmul(plan.gemm, a, b, out)
        return result[()] if out is None and result.ndim == 0 else result
    if plan.kind == "staged":
        assert plan.structure is not None, "a staged plan keeps its structure"
        args = tuple(op if plan.cast is None or op.dtype == plan.cast else op.astype(plan.cast) for op in ops)
        if out is not None:
            args = tuple(a.copy() if np.may_share_memory(a, out) else a for a in args)
        result = _run_stages(plan.stages, args, out, plan.out_dtype, plan.structure.sizes, plan.layout)
        return result[()] if out is None and result.ndim == 0 else result
    assert plan.kernel is not None, "a kernel plan has its kernel"
    result = out if out is not None else np.empty(plan.out_shape, dtype=plan.out_dtype)
    kernel_args = []
    for op in ops:
        if plan.cast is not None and op.dtype != plan.cast:
            op = op.astype(plan.cast)
        if op.ndim == 0:
            op = op.reshape(1)
        if out is not None and np.may_share_memory(op, out):
            op = op.copy()
        kernel_args.append(op)
    dest = result.reshape(1) if result.ndim == 0 else result
    plan.kernel(*kernel_args, dest)
    if out is None and result.ndim == 0:
        return result[()]
    return result


def clear_caches() -> None:
    """Forget every cached call plan and compiled kernel, so that the next call of each einsum
    plans and compiles afresh (``polyfuse bench`` does this to time first calls)."""
    _plans.clear()
    clear_kernels()
