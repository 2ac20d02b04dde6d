"""Per-step dispatch: a multi-operand path as BLAS steps and fused loop stages.

Takes the resolved structure and its contraction order; decides for each pairwise step whether
it runs on BLAS (:func:`_step_choice`, the cost model of docs/einsum.md) and groups the rest into
chains that one fused kernel runs (:func:`_staged`); chooses the axis orders that let results
flow between stages without copies; :func:`_run_stages` runs the stages with intermediates in
einsum's :class:`~polyfuse.tensor.workspace.Workspace`.  Needs code generation (loop stages are
compiled einsums) and blas (the matmul form of a step); comes before einsum_plan, which picks
this form when a step is worth BLAS.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from polyfuse.tensor.blas import _Gemm, _gemm, run_matmul
from polyfuse.tensor.einsum_gen import _compiled
from polyfuse.tensor.einsum_order import _Path
from polyfuse.tensor.einsum_parse import _plain, _show, _Structure
from polyfuse.tensor.workspace import Layout, Workspace

if TYPE_CHECKING:
    from polyfuse.kernel import Kernel


#: A GEMM-shaped pairwise step of a multi-operand path runs on BLAS when its contracted size K
#: is at least this, and (unless it is unbatched) also its M and N: below that a GEMM cannot block
#: for registers and the fused loops, which keep the intermediate in cache, are as fast ...
BLAS_MIN_DIM = 8
#: ... and when its work batch*M*N*K is at least this (a 16x16x16 GEMM, a few microseconds of
#: BLAS, about what one BLAS call costs on top).
BLAS_MIN_WORK = 4096


@dataclass(frozen=True)
class StepChoice:
    """The decision for one pairwise step of the path: BLAS or the fused loops, and why."""

    step: int
    subscripts: str  # the step, e.g. "kj,ik->ij" ("." marks an ellipsis dimension)
    blas: bool
    reason: str
    stage: int = 0  # which stage (BLAS call or fused loop program) runs it

    def describe(self) -> str:
        where = "BLAS" if self.blas else "fused loops"
        return f"{self.subscripts}  [{where}, stage {self.stage}] {self.reason}"


@dataclass
class _Stage:
    """One call of a staged plan: a BLAS matmul (one step) or a fused kernel (a chain of steps)."""

    inputs: tuple[int, ...]  # term ids read (operands 0..n-1, then step n+s's result)
    output: int  # term id written
    labels: tuple[str, ...]  # the output's axis order
    steps: tuple[int, ...]  # the path's pairwise steps it runs
    gemm: _Gemm | None = None  # a BLAS stage
    kernel: Kernel | None = None  # a loop stage
    source: str = ""


@dataclass(frozen=True)
class _Terms:
    """The path simulated on term ids: what each step reads and which labels its result keeps."""

    labels: dict[int, tuple[str | None, ...]]  # operand id -> its access; step result id -> label set
    reads: tuple[tuple[int, ...], ...]  # per step: the term ids it consumes (in path order)

    def plain(self, term: int) -> tuple[str, ...]:
        """The labels of a term that has no broadcast axis: a step's result, or an operand of a
        GEMM-shaped step (:func:`_step_choice` checked it)."""
        labels = _plain(self.labels[term])
        assert labels is not None, f"term {term} has a size-1 broadcast axis"
        return labels


def _simulate(structure: _Structure, path: _Path) -> _Terms:
    n = len(structure.accesses)
    labels: dict[int, tuple[str | None, ...]] = dict(enumerate(structure.accesses))
    live = list(range(n))
    reads: list[tuple[int, ...]] = []
    for index, positions in enumerate(path.steps):
        picked = [live[p] for p in sorted(positions)]
        for p in sorted(positions, reverse=True):
            live.pop(p)
        keep = set(structure.output) | {lab for t in live for lab in labels[t] if lab is not None}
        found = [lab for t in picked for lab in labels[t] if lab is not None]
        labels[n + index] = tuple(dict.fromkeys(lab for lab in found if lab in keep))
        live.append(n + index)
        reads.append(tuple(picked))
    return _Terms(labels, tuple(reads))


def _step_choice(structure: _Structure, terms: _Terms, index: int) -> tuple[bool, str]:
    """BLAS or loops for one pairwise step (the cost model of docs/einsum.md)."""
    reads = terms.reads[index]
    if len(reads) != 2:
        return False, f"{len(reads)} operands"
    la, lb = (_plain(terms.labels[t]) for t in reads)
    out = set(terms.plain(len(structure.accesses) + index))
    if la is None or lb is None or len(set(la)) != len(la) or len(set(lb)) != len(lb):
        return False, "a diagonal or a broadcast axis"
    if (set(la) | set(lb)) - out - (set(la) & set(lb)):
        return False, "a label summed inside one operand"
    size = structure.sizes
    k = math.prod(size[lab] for lab in la if lab in lb and lab not in out)
    m = math.prod(size[lab] for lab in la if lab not in lb)
    n = math.prod(size[lab] for lab in lb if lab not in la)
    batch = math.prod(size[lab] for lab in la if lab in lb and lab in out)
    shape = f"batch {batch}, M {m}, N {n}, K {k}"
    if not any(lab in lb and lab not in out for lab in la):
        return False, "elementwise (nothing summed)"
    if k < BLAS_MIN_DIM or (batch > 1 and min(m, n) < BLAS_MIN_DIM):
        return False, f"{shape}: below BLAS_MIN_DIM={BLAS_MIN_DIM}"
    if batch * m * n * k < BLAS_MIN_WORK:
        return False, f"{shape}: work < BLAS_MIN_WORK={BLAS_MIN_WORK}"
    return True, f"GEMM-shaped, {shape}"


def _group(terms: _Terms, blas: list[bool], nops: int) -> list[list[int]]:
    """Stages as lists of step indices: each BLAS step alone, consecutive loop steps together
    while each reads the previous one's result (a chain that one fused kernel runs)."""
    groups: list[list[int]] = []
    for index, on_blas in enumerate(blas):
        prev = groups[-1] if groups else None
        if on_blas or prev is None or blas[prev[-1]] or nops + prev[-1] not in terms.reads[index]:
            groups.append([index])
        else:
            prev.append(index)
    return groups


def _stage_io(terms: _Terms, steps: list[int], nops: int) -> tuple[tuple[int, ...], int]:
    made = {nops + s for s in steps}
    inputs = tuple(dict.fromkeys(t for s in steps for t in terms.reads[s] if t not in made))
    return inputs, nops + steps[-1]


def _orders(structure: _Structure, terms: _Terms, stages: list[_Stage], nops: int) -> None:
    """Choose each stage output's axis order, and which operand of a BLAS step is A: the final
    result in the output's order, a BLAS result as (batch, free of A, free of B) (no transpose)
    with A and B picked so that the next BLAS step can view it as a matrix, and a loop stage's
    result in the layout its BLAS consumer can view without a copy."""
    order: dict[int, tuple[str, ...]] = {t: tuple(lab for lab in structure.accesses[t] if lab is not None)
                                         for t in range(nops)}
    final = stages[-1].output
    readers = {t: st for st in stages for t in st.inputs}
    for stage in stages:
        if stage.gemm is None:
            if stage.output == final:
                order[final] = structure.output
            continue
        a, b = stage.inputs
        options = [_gemm_orders(terms, order, x, y, stage.output) for x, y in ((a, b), (b, a))]
        scores = [_layout_score(structure, terms, order, readers.get(stage.output), pair, opt,
                                stage.output == final)
                  for pair, opt in zip(((a, b), (b, a)), options)]
        (x, y), (ox, oy, out) = ((a, b), options[0]) if scores[0] >= scores[1] else ((b, a), options[1])
        stage.inputs = (x, y)
        order.setdefault(x, ox)
        order.setdefault(y, oy)
        order[stage.output] = structure.output if stage.output == final else out
    for stage in stages:
        stage.labels = order.setdefault(stage.output, terms.plain(stage.output))
    for stage in stages:
        if stage.gemm is not None:
            a, b = stage.inputs
            sub = _Structure((order[a], order[b]), stage.labels, structure.sizes, {})
            stage.gemm = _gemm(sub)


def _gemm_orders(terms: _Terms, order: dict[int, tuple[str, ...]], a: int, b: int,
                 result: int) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(A's, B's, the result's) axis orders for ``A @ B`` that need no copy: the operands keep
    the order they have (a loop stage's result gets (batch, free, summed) or (batch, summed,
    free)), the result is (batch, free of A, free of B)."""
    out = set(terms.plain(result))
    la, lb = terms.plain(a), terms.plain(b)
    ref = order.get(a) or order.get(b) or la
    batch = [lab for lab in ref if lab in la and lab in lb and lab in out]
    summed = [lab for lab in ref if lab in la and lab in lb and lab not in out]
    free_a = [lab for lab in order.get(a, la) if lab not in lb]
    free_b = [lab for lab in order.get(b, lb) if lab not in la]
    return (order.get(a, tuple(batch + free_a + summed)), order.get(b, tuple(batch + summed + free_b)),
            tuple(batch + free_a + free_b))


def _layout_score(structure: _Structure, terms: _Terms, order: dict[int, tuple[str, ...]],
                  reader: _Stage | None, pair: tuple[int, int], orders: tuple, final: bool) -> float:
    """How good one choice of A and B is: +1 for each loop-stage operand that keeps the order of
    its inputs (a transposed layout would make its loops stride), +1 when the result needs no
    copy for the next BLAS step, +0.5 when the last result is in the output's order (else it is
    returned as a transposed view, which costs nothing without out=)."""
    kept = sum(1 for t, o in zip(pair, orders[:2]) if t not in order and o == terms.labels[t])
    fit = _fits(structure, terms, reader, orders[2], final)
    return kept + (0.5 if final else 1.0) * fit


def _fits(structure: _Structure, terms: _Terms, reader: _Stage | None, labels: tuple[str, ...],
          final: bool) -> bool:
    """Whether a BLAS result laid out as ``labels`` needs no transpose: it is the final result in
    the output's order, or its reader is a BLAS step that can view it as a matrix (the labels it
    sums form one block after the batch labels, first or last)."""
    if final:
        return labels == structure.output
    if reader is None or reader.gemm is None:
        return False
    x, y = reader.inputs
    shared = set(terms.labels[x]) & set(terms.labels[y])
    kept = set(terms.labels[reader.output])
    batch = shared & kept
    summed = shared - kept
    head, rest = labels[:len(batch)], labels[len(batch):]
    mine = [lab for lab in rest if lab in summed]
    return set(head) == batch and (set(rest[:len(mine)]) == summed or set(rest[len(rest) - len(mine):]) == summed)


def _sub_structure(structure: _Structure, terms: _Terms, order: dict[int, tuple], stage: _Stage,
                   nops: int) -> _Structure:
    """The einsum a loop stage computes: its inputs (operands keep their broadcast axes)."""
    accesses = tuple(structure.accesses[t] if t < nops else order[t] for t in stage.inputs)
    source: dict[str, tuple[int, int]] = {}
    for k, acc in enumerate(accesses):
        for axis, lab in enumerate(acc):
            if lab is not None:
                source.setdefault(lab, (k, axis))
    return _Structure(accesses, tuple(stage.labels), structure.sizes, source)


def _sub_path(terms: _Terms, stage: _Stage, nops: int) -> _Path:
    live = list(stage.inputs)
    steps: list[tuple[int, ...]] = []
    for s in stage.steps:
        positions = tuple(sorted(live.index(t) for t in terms.reads[s]))
        for p in sorted(positions, reverse=True):
            live.pop(p)
        live.append(nops + s)
        steps.append(positions)
    return _Path(tuple(steps), 0, 0)


def _staged(structure: _Structure, path: _Path, dtype: np.dtype, target: str, fuse: str,
            subscripts: str) -> tuple[list[_Stage], list[StepChoice]] | None:
    """A multi-operand path as BLAS calls and fused loop stages, or None when no step is worth
    BLAS (the fully fused program then runs)."""
    nops = len(structure.accesses)
    terms = _simulate(structure, path)
    decided = [_step_choice(structure, terms, s) for s in range(len(path.steps))]
    if not any(on_blas for on_blas, _ in decided):
        return None
    stages: list[_Stage] = []
    for steps in _group(terms, [on_blas for on_blas, _ in decided], nops):
        inputs, output = _stage_io(terms, steps, nops)
        on_blas = decided[steps[0]][0]
        stages.append(_Stage(inputs, output, (), tuple(steps), gemm=_GEMM_PENDING if on_blas else None))
    _orders(structure, terms, stages, nops)
    order = {st.output: st.labels for st in stages}
    for stage in stages:
        if stage.gemm is None:
            sub = _sub_structure(structure, terms, order, stage, nops)
            dtypes = (dtype,) * len(stage.inputs)
            stage.kernel, stage.source, _ = _compiled(sub, _sub_path(terms, stage, nops), dtypes, dtype,
                                                      target, fuse, subscripts)
    choices = [StepChoice(s, _step_text(structure, terms, s), on_blas, why,
                          next(n for n, st in enumerate(stages) if s in st.steps))
               for s, (on_blas, why) in enumerate(decided)]
    return stages, choices


#: Up to this many operands, a staged call tries every pairwise order of the same FLOP count
#: for the one with the most row-wise matrix-vector steps (4 operands: 18 orders).
ROW_WISE_MAX_OPERANDS = 4


def _row_wise_gemvs(structure: _Structure, path: _Path, eq: str, shapes: tuple[tuple[int, ...], ...],
                    opt: Any) -> _Path:
    """``path``, or a pairwise order of no more FLOPs where more of the matrix-vector BLAS
    steps contract the matrix's last axes.

    Why: BLAS streams a C-contiguous matrix faster as row-wise dot products (``M @ x``) than as
    a sum of scaled rows (``x @ M``): 1.24-1.32 ms against 1.46-1.61 ms for a 3072 x 3072 matrix
    (OpenBLAS, 2 threads; 2.0 against 2.4 ms on one).  The tensor train ``ia,iajb,jbkc,kc->``
    at the bench sizes: opt_einsum's order has one step of each kind (3.2-3.5 ms), the order
    ``jbkc,kc->jb``, ``iajb,jb->ia``, ``ia,ia->`` only row-wise ones (3.1 ms)."""
    if not isinstance(opt, str) or not 2 < len(shapes) <= ROW_WISE_MAX_OPERANDS:
        return path  # an explicit path, optimize=False, or too many orders to try
    import opt_einsum

    best, score = path, _row_wise(structure, path)
    for steps in _pair_orders(len(shapes)):
        _, info = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=list(steps))
        candidate = _Path(steps, int(info.opt_cost), int(info.naive_cost))
        if candidate.flops <= path.flops and _row_wise(structure, candidate) > score:
            best, score = candidate, _row_wise(structure, candidate)
    return best


def _pair_orders(n: int) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Every path of pairwise steps over ``n`` operands (positions in the live list)."""
    if n < 2:
        yield ()
        return
    for i in range(n):
        for j in range(i + 1, n):
            for rest in _pair_orders(n - 1):
                yield ((i, j), *rest)


def _row_wise(structure: _Structure, path: _Path) -> int:
    """How many BLAS steps of ``path`` multiply an operand matrix by a vector over the matrix's
    last axes (the vector's labels are all summed, and are the matrix's trailing labels)."""
    terms = _simulate(structure, path)
    nops = len(structure.accesses)
    count = 0
    for index, reads in enumerate(terms.reads):
        if len(reads) != 2 or not _step_choice(structure, terms, index)[0]:
            continue
        big, small = sorted(reads, key=lambda t: -math.prod(structure.sizes[lab] for lab in terms.labels[t]
                                                            if lab is not None))
        matrix, vector = terms.labels[big], set(terms.labels[small])
        if big >= nops or vector & set(terms.labels[nops + index]) or not vector < set(matrix):
            continue  # not an operand matrix times a vector it sums over
        count += set(matrix[len(matrix) - len(vector):]) == vector
    return count


def _step_text(structure: _Structure, terms: _Terms, index: int) -> str:
    ins = ",".join("".join(_show(lab) for lab in terms.labels[t])
                   for t in terms.reads[index])
    return f"{ins}->{''.join(_show(lab) for lab in terms.labels[len(structure.accesses) + index])}"


_GEMM_PENDING = _Gemm((), (), (), (), (), (), (), ())  # replaced by _orders


#: polyfuse.einsum's intermediates (staged calls), shared by all cached plans.
_workspace = Workspace()


def _stage_layout(stages: list[_Stage], dtype: np.dtype, sizes: dict[str, int]) -> Layout:
    """The workspace buffers of a staged call: every stage's result but the last one's."""
    return tuple((tuple(sizes[lab] for lab in stage.labels), dtype) for stage in stages[:-1])


def _run_stages(stages: list[_Stage], ops: tuple[np.ndarray, ...], out: np.ndarray | None,
                dtype: np.dtype, sizes: dict[str, int], layout: Layout) -> np.ndarray:
    """Run the stages; intermediates live in workspace buffers, the result is fresh or ``out``."""
    with _workspace.take(layout) as buffers:
        values: dict[int, np.ndarray] = dict(enumerate(ops))
        for stage, buffer in zip(stages, [*buffers, out]):
            args = [values.pop(t) for t in stage.inputs]
            if stage.gemm is not None:
                a, b = args
                values[stage.output] = run_matmul(stage.gemm, a, b, buffer)
                continue
            assert stage.kernel is not None, "a loop stage has its kernel (_staged compiles it)"
            dest = buffer if buffer is not None else np.empty(tuple(sizes[lab] for lab in stage.labels), dtype)
            stage.kernel(*(a.reshape(1) if a.ndim == 0 else a for a in args), dest.reshape(1) if dest.ndim == 0
                         else dest)
            values[stage.output] = dest
        return values[stages[-1].output]
