"""Plans: what one (subscripts, shapes, dtypes, options) combination runs, and why.

Takes the operands and options of a call; runs the stages in order (parse and check, contraction
order, then the choice) and gives a :class:`_Plan`: numpy.einsum (small or unsupported calls),
one BLAS matmul (a GEMM-shaped call), BLAS steps and fused loop stages (einsum_staging), or the one
fused kernel (code generation).  The plan's ``reason`` is the decision's record.  Separate from
the call path (polyfuse.tensor.einsum), which caches and runs plans, and from introspection,
which describes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from polyfuse.errors import ArgumentError
from polyfuse.tensor.blas import _BLAS_DTYPES, _Gemm, _gemm
from polyfuse.tensor.codegen import SUPPORTED_DTYPES, check_target
from polyfuse.tensor.einsum_gen import _compiled, _Step
from polyfuse.tensor.einsum_order import _contract_path, _equation, _optimize_key, _Path
from polyfuse.tensor.einsum_parse import _parse, _resolve, _show, _Structure
from polyfuse.tensor.einsum_staging import StepChoice, _row_wise_gemvs, _Stage, _stage_layout, _staged
from polyfuse.tensor.workspace import Layout

if TYPE_CHECKING:
    from polyfuse.kernel import Kernel


#: Calls whose naive work (product of all label sizes) is at most this run numpy.einsum.
FALLBACK_WORK = 1 << 16


@dataclass
class _Plan:
    """What one (subscripts, shapes, dtypes, options) combination runs."""

    kind: Literal["kernel", "numpy", "blas", "staged"]
    reason: str
    out_shape: tuple[int, ...]
    out_dtype: np.dtype
    kernel: Kernel | None = None
    source: str = ""
    steps: list[_Step] = field(default_factory=list)
    path: _Path | None = None
    structure: _Structure | None = None
    cast: np.dtype | None = None  # dtype= given: operands are converted first
    gemm: _Gemm | None = None  # kind == "blas": how the operands become one np.matmul
    stages: list[_Stage] = field(default_factory=list)  # kind == "staged": BLAS and loop stages
    layout: Layout = ()  # kind == "staged": the workspace buffers of the intermediates
    choices: list[StepChoice] = field(default_factory=list)  # kind == "staged": per pairwise step


def _plan(subscripts: str, operands: tuple[np.ndarray, ...], out: np.ndarray | None, dtype: Any,
          optimize: Any, target: str, fuse: str, force: bool = False, blas: bool = True) -> _Plan:
    check_target(target)
    parsed = _parse(subscripts, len(operands))
    structure = _resolve(parsed, tuple(op.shape for op in operands))
    out_shape = tuple(structure.sizes[lab] for lab in structure.output)
    if out is not None and out.shape != out_shape:
        raise ArgumentError(f"einsum {subscripts!r}: out has shape {out.shape}, the result has shape {out_shape}")
    opt = _optimize_key(optimize)
    cast = None if dtype is None else np.dtype(dtype)
    res = cast if cast is not None else np.result_type(*operands)
    in_dtypes = tuple(op.dtype for op in operands)
    if cast is not None and not all(np.can_cast(d, cast, "safe") for d in in_dtypes):
        return _Plan("numpy", "dtype= needs an unsafe cast (numpy decides)", out_shape, res)
    if out is not None and not np.can_cast(res, out.dtype, "safe"):
        return _Plan("numpy", "out= needs an unsafe cast (numpy decides)", out_shape, res)
    dtypes = in_dtypes if cast is None else (cast,) * len(operands)
    odt = res if out is None else out.dtype
    if any(d not in SUPPORTED_DTYPES for d in (*dtypes, res, odt)):
        return _Plan("numpy", "dtype outside float32/float64/int32/int64", out_shape, res)
    work = math.prod(structure.sizes.values())
    if not force and work <= FALLBACK_WORK:
        return _Plan("numpy", f"work {work} (product of all label sizes) <= FALLBACK_WORK={FALLBACK_WORK}: "
                     "numpy.einsum is faster than a compiled call at this size", out_shape, res)
    eq, shapes = _equation(structure)
    path = _contract_path(eq, shapes, opt)
    if blas and not force and odt == res and all(d in _BLAS_DTYPES for d in (*dtypes, res)):
        gemm = _gemm(structure)
        if gemm is not None:
            shown = ",".join("".join(_show(lab) for lab in acc) for acc in structure.accesses)
            shown += "->" + "".join(_show(lab) for lab in structure.output)
            reason = (f"dispatched to BLAS matmul: GEMM-shaped contraction {shown} "
                      f"(work {work} > FALLBACK_WORK={FALLBACK_WORK}), "
                      f"{gemm.describe()}; blas=False runs the generated loops")
            return _Plan("blas", reason, out_shape, res, path=path, structure=structure, cast=cast,
                         gemm=gemm)
    if (blas and not force and len(path.steps) > 1 and odt == res and len(set(dtypes)) == 1
            and res in _BLAS_DTYPES and dtypes[0] == res):
        order = _row_wise_gemvs(structure, path, eq, shapes, opt)
        staged = _staged(structure, order, res, target, fuse, subscripts)
        if staged is not None:
            stages, choices = staged
            on_blas = sum(c.blas for c in choices)
            reason = (f"{on_blas} of {len(choices)} pairwise steps on BLAS, the rest in "
                      f"{sum(st.gemm is None for st in stages)} fused loop stage(s); blas=False runs "
                      "one fused program")
            return _Plan("staged", reason, out_shape, res, path=order, structure=structure, cast=cast,
                         stages=stages, choices=choices, layout=_stage_layout(stages, res, structure.sizes))
    kernel, source, steps = _compiled(structure, path, dtypes, odt, target, fuse, subscripts)
    reason = f"work {work} > FALLBACK_WORK={FALLBACK_WORK}" if not force else "compiled on request"
    return _Plan("kernel", reason, out_shape, res, kernel, source, steps, path, structure, cast)


def _as_arrays(operands: tuple) -> tuple[np.ndarray, ...]:
    return tuple(op if type(op) is np.ndarray else np.asarray(op) for op in operands)
