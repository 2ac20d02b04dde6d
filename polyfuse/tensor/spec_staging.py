"""Staged execution of a spec: GEMM-shaped sums on BLAS, the rest fused, in row blocks.

Takes an analysed spec; :func:`_staged_plan` splits it into BLAS steps (a top-level
``sum[k](A[...] * B[...])`` with plain subscripts, run by polyfuse.tensor.blas) and loop steps
(the consecutive remaining statements, each compiled as one fused kernel), or gives None when no
sum is GEMM-shaped.  The tunables here (``BLAS_MIN_*``, ``BLOCK_*``, ``MIN_BLOCK_ROWS``) decide,
per call, whether the staged plan runs and in how many row blocks (the callable's ``_choose`` and
``_blocking`` read them from this module).  Loop steps are compiled by a function the callable
passes in (:data:`CompileLoops`), so this module does not import the callable that imports it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

import numpy as np

from polyfuse.errors import PolyfuseError
from polyfuse.tensor.blas import matmul_plan, run_matmul
from polyfuse.tensor.spec_analysis import _Analysis
from polyfuse.tensor.spec_gen import _top_reductions
from polyfuse.tensor.spec_syntax import Access, Bin, Expr, Name, Reduce, SpecError, Statement, _walk

#: A GEMM-shaped sum runs on BLAS when its contracted extent is at least BLAS_MIN_K and its
#: work (product of all its index extents) at least BLAS_MIN_WORK; otherwise the spec runs as one
#: fused kernel.  Below these a GEMM cannot block for registers and the fused loops, which keep
#: intermediates in cache, are as fast.
BLAS_MIN_K = 16
BLAS_MIN_WORK = 1 << 16
#: A staged spec runs in row blocks when its intermediates (unblocked) would take more than this
#: many times the bytes of the call's own inputs and outputs, in as few blocks as keep a block's
#: intermediates within that budget.  Blocks are for memory first: 1.5 keeps attention's peak
#: extra memory below 0.75 N^2 doubles at N=512 (N x d operands, d=64).  Measured with reused
#: buffers (2 BLAS threads, min of 30 calls, interleaved; 1 thread: the same order), the block
#: count matters less than the block's rows: attention N=512 in blocks of 64, 103, 112, 120,
#: 128, 136, 144, 171, 256 rows and unblocked: 1.18, 1.15-1.20, 1.17, 1.18, 1.04-1.09, 1.14,
#: 1.15, 1.07-1.11, 0.99-1.01, 0.87-0.95 ms (numpy 1.07-1.13 ms); the bench MLP unblocked
#: 3.6-3.9 ms, in 2 blocks of 512 rows 3.6-3.8 ms, in 128-row blocks 4.0-4.1 ms.  So attention
#: at N=512 (4.25 MiB of intermediates, 1 MiB of Q, K, V, O) runs 4 blocks of 128 rows; the
#: MLP (8 MiB, 4.5 MiB) 2 blocks of 512 rows, with half numpy's temporaries; N=1024 attention
#: 7 blocks of 160 rows (128, 160 and 205 rows measured alike there).
BLOCK_BUDGET = 1.5
#: Intermediates up to this size never make a spec run in blocks: blocking them saves little and
#: costs 5-20% (attention at N=192 and 256, d=64: 1.13 MiB of intermediates at N=256).
BLOCK_MIN_BYTES = 2 << 20
#: Block rows are a multiple of this: the E @ V GEMM of attention blocks took 0.35 ms in blocks
#: of 128 or 160 rows, 0.38-0.42 ms in blocks of 120, 136 or 171 rows (OpenBLAS, 2 threads).
BLOCK_ALIGN = 32
#: Blocks have at least this many rows, so that each GEMM has rows to block over and the per-step
#: call costs stay small next to the work of a block (64-row blocks: +8-13% on attention).
MIN_BLOCK_ROWS = 128


class LoopKernel(Protocol):
    """What a loop step runs: some statements of the spec compiled as one fused kernel (a
    :class:`polyfuse.tensor.spec.Spec` made with ``blas=False``)."""

    outputs: tuple[str, ...]

    def run_named(self, env: dict[str, np.ndarray], scalars: dict[str, float]) -> None: ...


#: Compiles consecutive statements (their text) that return these outputs as one fused kernel.
CompileLoops: TypeAlias = Callable[[str, list[str]], LoopKernel]


@dataclass(frozen=True)
class BlasStep:
    """``target[free] = sum[...](a[...] * b[...])`` as one ``np.matmul`` (polyfuse.einsum's BLAS
    dispatch on views; ``target`` is the statement's own target when the sum is the whole
    right-hand side, else a fresh temporary that the statement's epilogue reads)."""

    target: str
    a: str
    b: str
    subscripts: str  # the contraction in einsum notation, e.g. "id,jd->ij"
    indices: dict[str, tuple[str, int]] = field(compare=False, hash=False)  # index -> (tensor, axis)
    summed: tuple[str, ...] = ()
    free: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{self.target} = einsum {self.subscripts!r} of {self.a}, {self.b} on BLAS (np.matmul)"

    def run(self, env: dict[str, np.ndarray], scalars: dict[str, float]) -> None:
        a, b, out = env[self.a], env[self.b], env[self.target]
        gemm = matmul_plan(self.subscripts, a.shape, b.shape)
        assert gemm is not None, "_gemm_sum made a GEMM-shaped contraction"
        run_matmul(gemm, a, b, out if self.free else out.reshape(()))


@dataclass(frozen=True)
class LoopStep:
    """Consecutive statements (their BLAS sums replaced by reads of the temporaries) compiled as
    one fused polyfuse kernel: a sub-spec whose outputs are what later steps read."""

    spec: LoopKernel
    text: str

    def describe(self) -> str:
        stmts = "; ".join(line.strip() for line in self.text.splitlines() if line.strip())
        return f"fused loops -> {', '.join(self.spec.outputs)}: {stmts}"

    def run(self, env: dict[str, np.ndarray], scalars: dict[str, float]) -> None:
        self.spec.run_named(env, scalars)


@dataclass
class StagedPlan:
    """How a spec with GEMM-shaped sums runs: a sequence of BLAS and loop steps."""

    steps: list[BlasStep | LoopStep]  # in order
    temps: tuple[str, ...]  # BLAS results that are not targets of the spec
    row_inputs: frozenset[str] | None  # inputs sliced by row blocks; None: no row blocking

    @property
    def produced(self) -> list[str]:
        """Arrays the steps write and later steps or the caller read (intermediates of one loop
        step stay kernel-local)."""
        names: list[str] = []
        for step in self.steps:
            names += [step.target] if isinstance(step, BlasStep) else list(step.spec.outputs)
        return names


@dataclass(frozen=True)
class SpecDecision:
    """What one call of a spec runs, and why (shown by :meth:`Spec.explain`)."""

    runs: str  # "fused kernel" | "staged"
    reason: str
    rows: int = 0  # rows of the row-blocked index (0: not row-blocked)
    block_rows: int = 0  # rows per block
    #: staged: the intermediates (temporaries and targets the caller does not get) and their
    #: shapes (a block's rows when row-blocked); they live in the spec's workspace
    buffers: tuple[tuple[str, tuple[int, ...]], ...] = ()
    blocking: str = ""  # why these row blocks (the sizes that decided)

    def describe(self) -> str:
        blocks = f"; row blocks of {self.block_rows} of {self.rows} rows" if self.block_rows else ""
        return f"{self.runs}: {self.reason}{blocks}"


def _block_rows(rows: int, fit: int) -> int:
    """Rows per block when ``fit`` rows fit the budget: as few blocks as that allows, evened
    out, each a multiple of BLOCK_ALIGN rows (never more than ``fit`` unless MIN_BLOCK_ROWS is)."""
    block = max(MIN_BLOCK_ROWS, fit // BLOCK_ALIGN * BLOCK_ALIGN)
    blocks = -(-rows // block)
    return min(block, _round_up(-(-rows // blocks), BLOCK_ALIGN))


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _mib(nbytes: int) -> str:
    return f"{nbytes / (1 << 20):.2f} MiB"


def _gemm_sum(node: Expr, order: list[str]) -> BlasStep | None:
    """The BLAS form of a top-level ``sum[k](A[...] * B[...])`` with plain subscripts, or None."""
    if not (isinstance(node, Reduce) and node.op == "sum" and isinstance(node.body, Bin)
            and node.body.op == "*" and isinstance(node.body.lhs, Access) and isinstance(node.body.rhs, Access)):
        return None
    a, b = node.body.lhs, node.body.rhs
    ia, ib = _plain_subscripts(a), _plain_subscripts(b)
    if ia is None or ib is None or len(set(ia)) != len(ia) or len(set(ib)) != len(ib):
        return None
    summed = tuple(v for v, _ in node.vars)
    if not set(summed) <= set(ia) & set(ib):  # an index summed inside one operand only
        return None
    free = tuple(v for v in order if v in set(ia) | set(ib))
    letters = {v: chr(ord("a") + n) for n, v in enumerate(dict.fromkeys(ia + ib))}
    if len(letters) > 26:
        return None
    subscripts = (f"{''.join(letters[v] for v in ia)},{''.join(letters[v] for v in ib)}->"
                  f"{''.join(letters[v] for v in free)}")
    indices = {v: (b.tensor, axis) for axis, v in enumerate(ib)}
    indices.update({v: (a.tensor, axis) for axis, v in enumerate(ia)})
    return BlasStep("", a.tensor, b.tensor, subscripts, indices, summed, free)


def _plain_subscripts(acc: Access) -> list[str] | None:
    """The index of each axis of ``acc``, or None when a subscript is not a plain index."""
    names = [ix.plain for ix in acc.index]
    plain = [name for name in names if name is not None]
    return plain if len(plain) == len(names) else None


def _blas_sums(stmt: Statement) -> list[tuple[Reduce, BlasStep]]:
    order = [n for n, _ in stmt.indices]
    found = [(node, _gemm_sum(node, order)) for node in _top_reductions(stmt.expr)]
    return [(node, step) for node, step in found if step is not None]


def _names(analysis: _Analysis) -> set[str]:
    names = set(analysis.inputs) | set(analysis.scalars) | set(analysis.defined)
    for stmt in analysis.statements:
        names |= set(stmt.extents)
    return names


def _rewrite(text: str, stmt: Statement, replaced: list[tuple[Reduce, str]]) -> str:
    """The statement's source with each BLAS sum replaced by a read of its temporary."""
    line = text[stmt.pos:stmt.end]
    for node, ref in sorted(replaced, key=lambda item: -item[0].pos):
        line = line[:node.pos - stmt.pos] + ref + line[node.end - stmt.pos:]
    return line


#: One entry of a spec's split into steps: a BLAS step, or consecutive statements as (target, text).
_Raw: TypeAlias = BlasStep | list[tuple[str, str]]


def _staged_plan(analysis: _Analysis, text: str, compile_loops: CompileLoops) -> StagedPlan | None:
    """Split the spec into BLAS steps (GEMM-shaped sums) and fused loop steps (everything else);
    None when no statement has a GEMM-shaped sum."""
    taken = _names(analysis)
    temps: list[str] = []
    raw: list[_Raw] = []
    for stmt in analysis.statements:
        sums = _blas_sums(stmt)
        if not sums:
            _pending(raw).append((stmt.target, text[stmt.pos:stmt.end]))
            continue
        order = tuple(n for n, _ in stmt.indices)
        if len(sums) == 1 and stmt.expr is sums[0][0] and sums[0][1].free == order:
            raw.append(_retarget(sums[0][1], stmt.target))  # the sum is the statement: no epilogue
            continue
        replaced: list[tuple[Reduce, str]] = []
        for node, step in sums:
            temp = _fresh(taken)
            temps.append(temp)
            raw.append(_retarget(step, temp))
            replaced.append((node, f"{temp}[{', '.join(step.free)}]" if step.free else f"{temp}[0]"))
        _pending(raw).append((stmt.target, _rewrite(text, stmt, replaced)))
    if not any(isinstance(step, BlasStep) for step in raw):
        return None
    steps: list[BlasStep | LoopStep | None] = [
        _loop_step(group, raw[n + 1:], analysis, compile_loops) if isinstance(group, list) else group
        for n, group in enumerate(raw)]
    return StagedPlan([s for s in steps if s is not None], tuple(temps), _row_inputs(analysis, raw))


def _try_staged_plan(analysis: _Analysis, text: str, compile_loops: CompileLoops) -> StagedPlan | None:
    """:func:`_staged_plan`, or None (the single fused kernel) when a rewritten loop step is not
    a valid spec; the spec itself was checked already, so this is never the user's error."""
    try:
        return _staged_plan(analysis, text, compile_loops)
    except SpecError:
        return None


def _retarget(step: BlasStep, target: str) -> BlasStep:
    return dataclasses.replace(step, target=target)


def _pending(raw: list[_Raw]) -> list[tuple[str, str]]:
    last = raw[-1] if raw else None
    if not isinstance(last, list):
        last = []
        raw.append(last)
    return last


def _fresh(taken: set[str]) -> str:
    n = 0
    while f"G{n}" in taken:
        n += 1
    taken.add(f"G{n}")
    return f"G{n}"


def _loop_step(group: list[tuple[str, str]], later: list[_Raw], analysis: _Analysis,
               compile_loops: CompileLoops) -> LoopStep | None:
    """A fused kernel for consecutive statements; it outputs what later steps (or the caller) read."""
    read_later: set[str] = set()
    for step in later:
        if isinstance(step, BlasStep):
            read_later |= {step.a, step.b}
        else:
            read_later |= {t for _, line in step for t in re.findall(r"([A-Za-z_]\w*)\s*\[", line)}
    outputs = [t for t, _ in group if t in analysis.outputs or t in read_later]
    if not outputs:
        return None  # dead statements (neither returned nor read)
    text = "\n".join(line for _, line in group)
    return LoopStep(compile_loops(text, outputs), text)


def _row_inputs(analysis: _Analysis, raw: list[_Raw]) -> frozenset[str] | None:
    """Inputs to slice when the spec runs in row blocks, or None when it cannot.

    Row blocking needs every statement's first target index (its row) to be the first, plain
    subscript of every intermediate it reads and of every BLAS temporary, and no other
    subscript (nor a value) to use the row; inputs are then either sliced by rows (first
    subscript the row) or read whole (no row in any subscript), consistently."""
    sliced: dict[str, bool] = {}
    for stmt in analysis.statements:
        if not stmt.indices:
            return None
        row = stmt.indices[0][0]
        if any(isinstance(n, Name) and n.name == row for n in _walk(stmt.expr)):
            return None
        for acc in (n for n in _walk(stmt.expr) if isinstance(n, Access)):
            by_row = _row_access(acc, row)
            if by_row is None or (acc.tensor in analysis.defined and not by_row):
                return None
            if acc.tensor not in analysis.defined and sliced.setdefault(acc.tensor, by_row) != by_row:
                return None
    for step in raw:
        if isinstance(step, BlasStep) and step.free[:1] != tuple(
                n for n, _ in _statement_of(analysis, step, raw).indices[:1]):
            return None
    return frozenset(name for name, by_row in sliced.items() if by_row)


def _row_access(acc: Access, row: str) -> bool | None:
    """True: ``row`` is the first, plain subscript only; False: unused; None: used otherwise."""
    uses = [axis for axis, ix in enumerate(acc.index) if row in dict(ix.coefs)]
    if not uses:
        return False
    return True if uses == [0] and acc.index[0].plain == row else None


def _statement_of(analysis: _Analysis, step: BlasStep, raw: list[_Raw]) -> Statement:
    """The statement a BLAS step belongs to: its target's, or the one reading its temporary."""
    if step.target in analysis.defined:
        return analysis.defined[step.target]
    for group in raw:
        if isinstance(group, list):
            for target, line in group:
                if re.search(rf"\b{step.target}\s*\[", line):
                    return analysis.defined[target]
    raise PolyfuseError(f"spec: BLAS temporary {step.target} is never read")  # pragma: no cover
