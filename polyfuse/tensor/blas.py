"""BLAS dispatch: a GEMM-shaped pairwise contraction as one ``np.matmul`` on views.

Takes a two-operand structure (batch, free and contracted labels); :func:`_gemm` gives the
:class:`_Gemm` form (the transposes and reshapes that make it one batched matmul), or None when
it is not GEMM-shaped; :func:`run_matmul` runs it, into ``out=`` when given.
:func:`matmul_plan` is the same from subscripts and shapes, for polyfuse.tensor.spec's BLAS
steps.  Separate because both einsum and spec use it, and it decides nothing about *whether* a
step is worth BLAS (that is einsum_plan's and einsum_staging's cost model).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from polyfuse.tensor.einsum_parse import _parse, _plain, _resolve, _Structure

_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@dataclass(frozen=True)
class _Gemm:
    """One pairwise contraction as ``np.matmul``: batch labels first, then free-of-A x contracted
    for A and contracted x free-of-B for B; the free and contracted groups are merged by reshape."""

    perm_a: tuple[int, ...]  # A's axes in the order batch, free of A, contracted
    perm_b: tuple[int, ...]  # B's axes in the order batch, contracted, free of B
    a_shape: tuple[int, ...]  # batch sizes + (M, K)
    b_shape: tuple[int, ...]  # batch sizes + (K, N)
    mm_shape: tuple[int, ...]  # batch sizes + (M, N): the matmul result
    split_shape: tuple[int, ...]  # batch sizes + free-of-A sizes + free-of-B sizes
    out_perm: tuple[int, ...]  # split_shape's axes -> the output's order
    to_split: tuple[int, ...]  # the output's axes -> split_shape's order (out= views)

    def describe(self) -> str:
        return f"np.matmul {self.a_shape} @ {self.b_shape} -> {self.mm_shape}"


def _gemm(structure: _Structure) -> _Gemm | None:
    """The matmul form of a two-operand contraction, or None when it is not GEMM-shaped."""
    if len(structure.accesses) != 2:
        return None
    acc_a, acc_b = (_plain(acc) for acc in structure.accesses)
    if acc_a is None or acc_b is None:  # size-1 broadcasting
        return None
    if len(set(acc_a)) != len(acc_a) or len(set(acc_b)) != len(acc_b):  # diagonals
        return None
    la, lb, lo = set(acc_a), set(acc_b), set(structure.output)
    if (la | lb) - lo - (la & lb):  # a label summed inside one operand only
        return None
    contracted = [lab for lab in acc_a if lab in lb and lab not in lo]
    if not contracted:
        return None
    out = structure.output
    batch = [lab for lab in out if lab in la and lab in lb]
    free_a = [lab for lab in out if lab in la and lab not in lb]
    free_b = [lab for lab in out if lab in lb and lab not in la]
    size = structure.sizes
    bshape = tuple(size[lab] for lab in batch)
    m = math.prod(size[lab] for lab in free_a)
    n = math.prod(size[lab] for lab in free_b)
    k = math.prod(size[lab] for lab in contracted)
    split = batch + free_a + free_b
    return _Gemm(
        perm_a=tuple(acc_a.index(lab) for lab in batch + free_a + contracted),
        perm_b=tuple(acc_b.index(lab) for lab in batch + contracted + free_b),
        a_shape=bshape + (m, k), b_shape=bshape + (k, n), mm_shape=bshape + (m, n),
        split_shape=tuple(size[lab] for lab in split),
        out_perm=tuple(split.index(lab) for lab in out),
        to_split=tuple(out.index(lab) for lab in split),
    )


def run_matmul(gemm: _Gemm, a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``gemm`` (from :func:`_gemm` or :func:`matmul_plan`) on ``a`` and ``b``, into ``out`` when
    given; ``out`` must not overlap ``a`` or ``b``."""
    a = _view(a, gemm.perm_a, gemm.a_shape)  # a view where the layout allows
    b = _view(b, gemm.perm_b, gemm.b_shape)
    if out is not None:
        # write straight into out when it can be viewed as the matmul result (a reshape that has
        # to copy shares no memory with out; numpy>=1.26 has no reshape(copy=False))
        dest = _view(out, gemm.to_split, gemm.mm_shape)
        if dest is out or out.size == 0 or np.may_share_memory(dest, out):
            np.matmul(a, b, out=dest)
            return out
        out[...] = np.matmul(a, b).reshape(gemm.split_shape).transpose(gemm.out_perm)
        return out
    return np.matmul(a, b).reshape(gemm.split_shape).transpose(gemm.out_perm)


_IDENTITY = tuple(tuple(range(n)) for n in range(65))  # numpy arrays have at most 64 axes


def _view(x: np.ndarray, perm: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray:
    """``x.transpose(perm).reshape(shape)``, skipping the steps that change nothing (they cost a
    few tenths of a microsecond each, on every BLAS step of every row block)."""
    if perm != _IDENTITY[len(perm)]:
        x = x.transpose(perm)
    return x if x.shape == shape else x.reshape(shape)


@functools.lru_cache(maxsize=1024)
def matmul_plan(subscripts: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> _Gemm | None:
    """The ``np.matmul`` form of a two-operand einsum for these shapes, or None when it is not
    GEMM-shaped (used by polyfuse.spec's BLAS steps, which skip einsum's per-call checks)."""
    return _gemm(_resolve(_parse(subscripts, 2), (shape_a, shape_b)))
