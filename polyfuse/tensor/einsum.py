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
loops over) is at most :data:`FALLBACK_WORK` run ``numpy.einsum`` instead: a compiled kernel has a
fixed per-call cost of tens of microseconds.  Dtypes other than float32/float64/int32/int64 also go
to numpy.  A call that is one GEMM-shaped pairwise contraction of float32/float64 operands
(``ij,jk->ik``, ``bij,bjk->bik``, ...) above that size runs ``np.matmul`` (BLAS) on transposed and
reshaped views instead of a kernel, unless ``blas=False``.  A path of several steps decides per
pairwise step (:func:`_step_choice`, the cost model): GEMM-shaped steps that are large enough run
``np.matmul``, chains of the other steps run as fused loop stages (:func:`_staged`); their
intermediates live in a :class:`Workspace` and are reused by the next call.  See docs/einsum.md.
"""

from __future__ import annotations

import functools
import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from polyfuse.errors import ArgumentError, PolyfuseError
from polyfuse.tensor.codegen import (
    SUPPORTED_DTYPES,
    Caret,
    Lines,
    build_kernel,
    check_target,
    dtype_source,
    zero_literal,
)

if TYPE_CHECKING:
    from polyfuse.explain import Explanation
    from polyfuse.kernel import Kernel

#: Calls whose naive work (product of all label sizes) is at most this run numpy.einsum.
FALLBACK_WORK = 1 << 16

_ELLIPSIS = "..."
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CACHE_LIMIT = 1024

__all__ = ["FALLBACK_WORK", "EinsumPath", "Workspace", "clear_workspaces", "einsum", "einsum_benchmarks",
           "einsum_path", "explain", "workspace_bytes"]


# ----------------------------------------------------------------------------------------------
# Parsing and checking
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Token:
    label: str  # a letter or "..."
    pos: int


@dataclass(frozen=True)
class _Parsed:
    subscripts: str
    terms: tuple[tuple[_Token, ...], ...]
    term_pos: tuple[tuple[int, int], ...]  # (start, end) of each input term
    output: tuple[_Token, ...] | None  # None: implicit output
    output_pos: int


def _error(subscripts: str, pos: int, width: int, message: str) -> ArgumentError:
    caret = Caret(subscripts, max(0, min(pos, max(0, len(subscripts) - 1))), width).render()
    return ArgumentError(f"einsum subscripts {subscripts!r}, position {pos}: {message}\n{caret}")


@functools.lru_cache(maxsize=512)
def _parse(subscripts: str, noperands: int) -> _Parsed:
    if not isinstance(subscripts, str):
        raise ArgumentError(f"einsum subscripts must be a string, got {type(subscripts).__name__}")
    arrow = subscripts.find("->")
    for pos, ch in enumerate(subscripts):
        if ch == "-" and subscripts[pos:pos + 2] != "->":
            raise _error(subscripts, pos, 1, "'-' must be followed by '>' (the output arrow '->')")
        if ch == ">" and subscripts[pos - 1:pos + 1] != "->":
            raise _error(subscripts, pos, 1, "'>' must follow '-' (the output arrow '->')")
    if arrow >= 0 and subscripts.find("->", arrow + 2) >= 0:
        second = subscripts.find("->", arrow + 2)
        raise _error(subscripts, second, 2, "subscripts may contain only one '->'")
    inputs = subscripts if arrow < 0 else subscripts[:arrow]
    terms: list[tuple[_Token, ...]] = []
    term_pos: list[tuple[int, int]] = []
    start = 0
    for part in inputs.split(","):
        terms.append(_tokens(subscripts, part, start))
        term_pos.append((start, start + len(part)))
        start += len(part) + 1
    if len(terms) != noperands:
        if len(terms) > noperands:
            pos = term_pos[noperands][0]
            raise _error(subscripts, pos, max(1, term_pos[-1][1] - pos),
                         f"the subscripts name {len(terms)} operands but {noperands} were given "
                         "(fewer operands provided to einstein sum function than specified)")
        raise _error(subscripts, len(inputs), 1,
                     f"the subscripts name {len(terms)} operands but {noperands} were given "
                     "(more operands provided to einstein sum function than specified)")
    output = None
    if arrow >= 0:
        if "," in subscripts[arrow:]:
            pos = subscripts.index(",", arrow)
            raise _error(subscripts, pos, 1, "',' in the output subscripts")
        output = _tokens(subscripts, subscripts[arrow + 2:], arrow + 2)
        seen: dict[str, int] = {}
        in_inputs = {t.label for term in terms for t in term}
        for tok in output:
            if tok.label in seen:
                raise _error(subscripts, tok.pos, len(tok.label),
                             f"output subscript '{tok.label}' appears more than once in the output")
            seen[tok.label] = tok.pos
            if tok.label != _ELLIPSIS and tok.label not in in_inputs:
                raise _error(subscripts, tok.pos, 1,
                             f"output subscript '{tok.label}' never appeared in an input")
    return _Parsed(subscripts, tuple(terms), tuple(term_pos), output, arrow + 2 if arrow >= 0 else len(subscripts))


def _tokens(subscripts: str, part: str, offset: int) -> tuple[_Token, ...]:
    tokens: list[_Token] = []
    i = 0
    while i < len(part):
        ch = part[i]
        if ch == " ":
            i += 1
            continue
        if ch == ".":
            if part[i:i + 3] != _ELLIPSIS:
                raise _error(subscripts, offset + i, 1, "'.' must be part of an ellipsis '...'")
            if any(t.label == _ELLIPSIS for t in tokens):
                raise _error(subscripts, offset + i, 3, "more than one ellipsis '...' in one term")
            tokens.append(_Token(_ELLIPSIS, offset + i))
            i += 3
            continue
        if ch not in _LETTERS:
            raise _error(subscripts, offset + i, 1,
                         f"invalid subscript {ch!r}: subscripts must be letters (a-z, A-Z), '...', ',' or '->'")
        tokens.append(_Token(ch, offset + i))
        i += 1
    return tuple(tokens)


def _ellipsis_symbol(p: int) -> str:
    return chr(0x100 + p)  # outside the letters, accepted by opt_einsum


@dataclass(frozen=True)
class _Structure:
    """The call's contraction with every ellipsis expanded and broadcasting resolved."""

    accesses: tuple[tuple[str | None, ...], ...]  # per operand axis: label, or None (size 1, broadcast)
    output: tuple[str, ...]
    sizes: dict[str, int] = field(compare=False, hash=False)
    source: dict[str, tuple[int, int]] = field(compare=False, hash=False)  # label -> (operand, axis)


def _resolve(parsed: _Parsed, shapes: tuple[tuple[int, ...], ...]) -> _Structure:
    sub = parsed.subscripts
    labels_per_op: list[list[str]] = []
    positions: list[list[tuple[int, int]]] = []
    n_ellipsis = []
    for k, (term, shape) in enumerate(zip(parsed.terms, shapes)):
        letters = [t for t in term if t.label != _ELLIPSIS]
        has_ellipsis = len(letters) != len(term)
        start, end = parsed.term_pos[k]
        if (not has_ellipsis and len(letters) != len(shape)) or len(letters) > len(shape):
            raise _error(sub, start, max(1, end - start),
                         f"operand {k} has {len(shape)} dimensions but its subscripts name {len(letters)}"
                         + ("" if has_ellipsis else " (use '...' to broadcast extra dimensions)"))
        n_ellipsis.append(len(shape) - len(letters) if has_ellipsis else 0)
    width = max(n_ellipsis, default=0)
    for k, term in enumerate(parsed.terms):
        labels: list[str] = []
        where: list[tuple[int, int]] = []
        for tok in term:
            if tok.label == _ELLIPSIS:
                for p in range(width - n_ellipsis[k], width):
                    labels.append(_ellipsis_symbol(p))
                    where.append((tok.pos, 3))
            else:
                labels.append(tok.label)
                where.append((tok.pos, 1))
        labels_per_op.append(labels)
        positions.append(where)
    ell = [_ellipsis_symbol(p) for p in range(width)]
    if parsed.output is None:
        counts: dict[str, int] = {}
        for labels in labels_per_op:
            for lab in labels:
                if lab not in ell:
                    counts[lab] = counts.get(lab, 0) + 1
        output = ell + sorted(lab for lab, c in counts.items() if c == 1)
    else:
        output = []
        for tok in parsed.output:
            output.extend(ell if tok.label == _ELLIPSIS else [tok.label])
        if width and not any(t.label == _ELLIPSIS for t in parsed.output):
            raise _error(sub, parsed.output_pos, 1,
                         "the operands have dimensions matched by '...' but the output has no '...' "
                         "to broadcast them into")
    # sizes: equal within one operand; equal or 1 across operands (1 broadcasts)
    sizes: dict[str, int] = {}
    first: dict[str, tuple[int, int]] = {}
    for k, (labels, shape) in enumerate(zip(labels_per_op, shapes)):
        own: dict[str, int] = {}
        for axis, (lab, extent) in enumerate(zip(labels, shape)):
            if lab in own and shape[own[lab]] != extent:
                pos, w = positions[k][axis]
                raise _error(sub, pos, w,
                             f"dimensions in operand {k} for collapsing index '{lab}' don't match "
                             f"({shape[own[lab]]} != {extent})")
            own.setdefault(lab, axis)
            if lab not in sizes or (sizes[lab] == 1 and extent != 1):
                sizes[lab] = extent
                first[lab] = (k, axis)
            elif extent not in (1, sizes[lab]):
                pos, w = positions[k][axis]
                k0, a0 = first[lab]
                name = "the dimension under '...'" if lab in ell else f"label '{lab}'"
                raise _error(sub, pos, w,
                             f"operands could not be broadcast together: {name} has size {sizes[lab]} "
                             f"in operand {k0} (axis {a0}) but {extent} in operand {k} (axis {axis})")
    accesses = tuple(
        tuple(None if extent == 1 and sizes[lab] != 1 else lab for lab, extent in zip(labels, shape))
        for labels, shape in zip(labels_per_op, shapes)
    )
    return _Structure(accesses, tuple(output), sizes, first)


# ----------------------------------------------------------------------------------------------
# Contraction order
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Path:
    steps: tuple[tuple[int, ...], ...]
    flops: int  # opt_einsum's estimate for the chosen order
    naive_flops: int


def _optimize_key(optimize: Any) -> Any:
    if isinstance(optimize, (list, tuple)):
        items = list(optimize)
        if items and items[0] == "einsum_path":
            items = items[1:]
        return ("path", tuple(tuple(int(i) for i in step) for step in items))
    if optimize is True or optimize is None:
        return "auto"
    if optimize is False:
        return False
    if isinstance(optimize, str):
        return optimize
    raise ArgumentError(f"optimize={optimize!r}; use True, False, an opt_einsum strategy name "
                        "('greedy', 'optimal', 'auto', ...) or an explicit path")


@functools.lru_cache(maxsize=1024)
def _contract_path(eq: str, shapes: tuple[tuple[int, ...], ...], optimize: Any) -> _Path:
    import opt_einsum

    n = len(shapes)
    if optimize is False or n == 1:
        steps: tuple[tuple[int, ...], ...] = (tuple(range(n)),)
        _, info = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=[tuple(range(n))])
        return _Path(steps, int(info.naive_cost), int(info.naive_cost))
    strategy = list(optimize[1]) if isinstance(optimize, tuple) else optimize
    try:
        path, info = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize=strategy)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise ArgumentError(f"einsum optimize={strategy!r}: {exc}") from None
    return _Path(tuple(tuple(s) for s in path), int(info.opt_cost), int(info.naive_cost))


def _equation(structure: _Structure) -> tuple[str, tuple[tuple[int, ...], ...]]:
    terms = ["".join(lab for lab in acc if lab is not None) for acc in structure.accesses]
    shapes = tuple(tuple(structure.sizes[lab] for lab in term) for term in terms)
    return ",".join(terms) + "->" + "".join(structure.output), shapes


# ----------------------------------------------------------------------------------------------
# Code generation
# ----------------------------------------------------------------------------------------------

@dataclass
class _Term:
    name: str
    labels: list[str]  # axis order; "0" entries mean a broadcast axis indexed with 0
    dtype: np.dtype
    scalar: bool = False  # a rank-0 value stored as shape (1,)

    def label_set(self) -> set[str]:
        return {lab for lab in self.labels if lab != "0"}


@dataclass
class _Step:
    inputs: list[_Term]
    out: _Term
    description: str = ""
    loops: list[str] = field(default_factory=list)
    form: str = ""


def _var(label: str) -> str:
    return label if label in _LETTERS else f"ell{ord(label) - 0x100}"


def _plan_steps(structure: _Structure, path: _Path, dtypes: tuple[np.dtype, ...],
                out_dtype: np.dtype) -> list[_Step]:
    terms = [
        _Term(f"op{k}", ["0" if lab is None else lab for lab in acc], dtypes[k], scalar=not acc)
        for k, acc in enumerate(structure.accesses)
    ]
    steps: list[_Step] = []
    for index, positions in enumerate(path.steps):
        picked = [terms[p] for p in sorted(positions)]
        for p in sorted(positions, reverse=True):
            terms.pop(p)
        keep = set(structure.output)
        for term in terms:
            keep |= term.label_set()
        last = not terms
        if last:
            labels = list(structure.output)
        else:
            labels = []
            for term in picked:
                for lab in term.labels:
                    if lab != "0" and lab in keep and lab not in labels:
                        labels.append(lab)
        dtype = out_dtype if last else np.result_type(*[t.dtype for t in picked])
        out = _Term("out" if last else f"t{index}", labels, dtype, scalar=not labels)
        terms.append(out)
        steps.append(_Step(picked, out))
    # loop orders, last step first: an intermediate is laid out in the order its consumer loops
    producers = {step.out.name: step for step in steps}
    for step in reversed(steps):
        step.form, step.loops = _loop_order(step)
        for term in step.inputs:
            if term.name in producers:
                term.labels[:] = [lab for lab in step.loops if lab in term.label_set()]
    for step in steps:
        step.form, step.loops = _loop_order(step)
        ins = ",".join("".join(_show(lab) for lab in t.labels) for t in step.inputs)
        step.description = f"{ins}->{''.join(_show(lab) for lab in step.out.labels)}"
    return steps


def _show(label: str | None) -> str:
    """A label as a step's subscripts show it: "1" for a broadcast axis (None, or "0" in a
    :class:`_Term`), "." for an ellipsis dimension."""
    if label is None or label == "0":
        return "1"
    return label if label in _LETTERS else "."


def _plain(access: tuple[str | None, ...]) -> tuple[str, ...] | None:
    """An access's labels, or None when one of its axes is a size-1 broadcast (None)."""
    labels = tuple(lab for lab in access if lab is not None)
    return labels if len(labels) == len(access) else None


def _loop_order(step: _Step) -> tuple[str, list[str]]:
    """('elementwise'|'accumulate'|'update', loop labels outermost first)."""
    out = [lab for lab in step.out.labels]
    every: list[str] = []
    for term in step.inputs:
        for lab in term.labels:
            if lab != "0" and lab not in every:
                every.append(lab)
    summed = [lab for lab in every if lab not in out]
    if not summed:
        return "elementwise", out

    def contiguous(label: str) -> bool:  # the last axis of every input that has it
        return all(t.labels[-1] == label for t in step.inputs if label in t.label_set())

    inner = [lab for lab in summed if contiguous(lab)]
    if inner:
        return "accumulate", out + [lab for lab in summed if lab != inner[-1]] + [inner[-1]]
    if out and contiguous(out[-1]):
        return "update", out[:-1] + summed + [out[-1]]
    return "accumulate", out + summed


def _generate(structure: _Structure, steps: list[_Step], subscripts: str) -> str:
    nops = len(structure.accesses)
    size = {lab: f"op{k}.shape[{axis}]" for lab, (k, axis) in structure.source.items()}
    params = ", ".join([f"op{k}" for k in range(nops)] + ["out"])
    src = Lines()
    src.add(0, f"def einsum_kernel({params}):")
    src.add(1, f'"""einsum {subscripts.replace(chr(92), "")} (generated by polyfuse.einsum)"""')
    for step in steps[:-1]:
        t = step.out
        extents = [size[lab] for lab in t.labels] or ["1"]
        shape = f"({', '.join(extents)},)"
        alloc = "zeros" if step.form == "update" else "empty"
        src.add(1, f"{t.name} = np.{alloc}({shape}, dtype={dtype_source(t.dtype)})")
    last = steps[-1]
    if last.form == "update":  # zero `out` first, so each step's nest sits next to its consumer
        depth = _loops(src, last.out.labels, 1, size)
        src.add(depth, f"{_ref(last.out)} = {zero_literal(last.out.dtype)}")
    for n, step in enumerate(steps):
        _emit_step(src, n, step, size)
    return src.text()


def _loops(src: Lines, labels: list[str], depth: int, size: dict[str, str]) -> int:
    for lab in labels:
        src.add(depth, f"for {_var(lab)} in range({size[lab]}):")
        depth += 1
    return depth


def _ref(term: _Term) -> str:
    if term.scalar:
        return f"{term.name}[0]"
    return f"{term.name}[{', '.join('0' if lab == '0' else _var(lab) for lab in term.labels)}]"


def _emit_step(src: Lines, n: int, step: _Step, size: dict[str, str]) -> None:
    product = " * ".join(_ref(t) for t in step.inputs)
    target = _ref(step.out)
    out_labels = step.out.labels
    if step.form == "elementwise":
        src.add(_loops(src, out_labels, 1, size), f"{target} = {product}")
    elif step.form == "update":  # the target was zeroed already
        src.add(_loops(src, step.loops, 1, size), f"{target} += {product}")
    else:
        acc = f"acc{n}"
        depth = _loops(src, out_labels, 1, size)
        src.add(depth, f"{acc} = {zero_literal(step.out.dtype)}")
        src.add(_loops(src, step.loops[len(out_labels):], depth, size), f"{acc} += {product}")
        src.add(depth, f"{target} = {acc}")


# ----------------------------------------------------------------------------------------------
# BLAS dispatch
# ----------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------
# Workspaces: intermediate buffers kept across calls
# ----------------------------------------------------------------------------------------------

#: A workspace keeps buffer sets for at most this many recent layouts (shape keys) ...
WORKSPACE_KEYS = 8
#: ... and at most this many sets of one layout (calls running at the same time each take one) ...
WORKSPACE_SETS = 2
#: ... and at most this many bytes in all; a set larger than this is allocated per call.
WORKSPACE_BYTES = 64 << 20

#: The buffers of one call: (shape, dtype) of each, in order.
Layout = tuple[tuple[tuple[int, ...], np.dtype], ...]

_workspaces: weakref.WeakSet[Workspace] = weakref.WeakSet()


class Workspace:
    """Scratch buffers for a call's intermediates, kept for the next call of the same layout.

    Why: a fresh multi-MiB ``np.empty`` costs its page faults on every call (the MLP spec at the
    bench sizes: 6.2 ms per call with two fresh 4 MiB intermediates, 4.35 ms when they are
    reused).  :meth:`take` hands a buffer set to one call at a time: it comes out of the pool or
    is allocated, and goes back when the call ends, so two threads calling at once get two sets.
    The pool is bounded by :data:`WORKSPACE_KEYS`, :data:`WORKSPACE_SETS` and
    :data:`WORKSPACE_BYTES` (least recently returned sets go first).  Buffers never leave the
    call: results are fresh arrays or the caller's ``out=``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: OrderedDict[Layout, list[list[np.ndarray]]] = OrderedDict()
        _workspaces.add(self)

    @contextmanager
    def take(self, layout: Layout) -> Iterator[list[np.ndarray]]:
        """A buffer set of ``layout`` for the duration of the ``with`` block (contents undefined)."""
        with self._lock:
            sets = self._free.get(layout)
            buffers = sets.pop() if sets else None
        if buffers is None:
            buffers = [np.empty(shape, dtype) for shape, dtype in layout]
        try:
            yield buffers
        finally:
            self._give_back(layout, buffers)

    def _give_back(self, layout: Layout, buffers: list[np.ndarray]) -> None:
        with self._lock:
            sets = self._free.setdefault(layout, [])
            self._free.move_to_end(layout)
            if len(sets) < WORKSPACE_SETS:
                sets.append(buffers)
            while self._free and (len(self._free) > WORKSPACE_KEYS or self._held() > WORKSPACE_BYTES):
                oldest, kept = next(iter(self._free.items()))
                if kept:
                    kept.pop(0)
                if not kept:
                    del self._free[oldest]

    def _held(self) -> int:
        return sum(b.nbytes for sets in self._free.values() for bufs in sets for b in bufs)

    def nbytes(self) -> int:
        """Bytes of the buffers this workspace keeps between calls (not those lent out now)."""
        with self._lock:
            return self._held()

    def clear(self) -> None:
        """Drop the kept buffers (lent ones come back and are kept again)."""
        with self._lock:
            self._free.clear()


def workspace_bytes() -> int:
    """Bytes that polyfuse keeps in workspaces between calls: every spec's and polyfuse.einsum's."""
    return sum(ws.nbytes() for ws in list(_workspaces))


def clear_workspaces() -> None:
    """Drop every kept workspace buffer (specs' and polyfuse.einsum's); later calls allocate afresh."""
    for ws in list(_workspaces):
        ws.clear()


#: polyfuse.einsum's intermediates (staged calls), shared by all cached plans.
_workspace = Workspace()


# ----------------------------------------------------------------------------------------------
# Per-step dispatch: BLAS steps and fused loop stages
# ----------------------------------------------------------------------------------------------

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


def _compiled(structure: _Structure, path: _Path, dtypes: tuple[np.dtype, ...], odt: np.dtype, target: str,
              fuse: str, subscripts: str) -> tuple[Kernel, str, list[_Step]]:
    """The fused kernel of a (sub-)einsum, from the cache or freshly built."""
    key = (structure, dtypes, odt, path.steps, target, fuse)
    built = _kernels.get(key)
    if built is None:
        steps = _plan_steps(structure, path, dtypes, odt)
        source = _generate(structure, steps, subscripts)
        kernel = build_kernel(source, "einsum_kernel", "einsum", target=target, fuse=fuse)
        built = (kernel, source, steps)
        if len(_kernels) >= _CACHE_LIMIT:
            _kernels.clear()
        _kernels[key] = built
    return built


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


# ----------------------------------------------------------------------------------------------
# Plans and the call path
# ----------------------------------------------------------------------------------------------

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


_plans: dict[tuple, _Plan] = {}
_kernels: dict[tuple, tuple[Kernel, str, list[_Step]]] = {}


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


def einsum(subscripts: str, *operands: Any, out: np.ndarray | None = None, dtype: Any = None,
           optimize: Any = True, target: str = "cpu", fuse: str = "smart", blas: bool = True) -> Any:
    """``numpy.einsum(subscripts, *operands)`` as a compiled, fused polyfuse kernel.

    Same semantics as numpy.einsum: explicit and implicit output, repeated labels (diagonals,
    traces), ``...`` and size-1 broadcasting, any number of operands, ``out=`` and ``dtype=``.
    ``optimize``: ``True`` (opt_einsum's ``"auto"``), ``False`` (one loop nest over all labels),
    an opt_einsum strategy name, or an explicit path such as ``["einsum_path", (0, 1), (0, 1)]``.
    Small calls (see :data:`FALLBACK_WORK`) and unsupported dtypes run numpy.einsum.
    ``blas``: a call that is one GEMM-shaped contraction of two float32/float64 operands (every
    label a batch, contracted or free label) runs ``np.matmul`` (BLAS); in a path of several
    steps, the large GEMM-shaped steps run ``np.matmul`` and the others fused loop stages;
    ``blas=False`` always runs the single fused loop program.
    """
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


# ----------------------------------------------------------------------------------------------
# Introspection
# ----------------------------------------------------------------------------------------------

@dataclass
class EinsumPath:
    """What :func:`einsum` does for one call: order, FLOPs, fusion, fallback."""

    subscripts: str
    path: list[str | tuple[int, ...]]  # numpy style: ["einsum_path", (0, 1), ...]
    steps: list[str]  # each pairwise step, e.g. "ki,k->ki" ("." marks an ellipsis dimension)
    forms: list[str]  # elementwise | accumulate | update, per step
    flops: int
    naive_flops: int
    fused: list[dict[str, Any]]  # explain()["fusion"] of the generated kernel
    generated_nests: int  # top-level loop nests in the generated source
    loop_nests: int  # top-level loop nests after fusion
    fallback: str | None  # why calls with these arguments run numpy.einsum, or None
    source: str  # the generated kernel source
    loop_code: str
    dispatch: str | None = None  # "dispatched to BLAS matmul: ..." when calls run np.matmul, or None
    choices: list[str] = field(default_factory=list)  # per pairwise step: BLAS or fused loops, and why

    def __str__(self) -> str:
        lines = [f"einsum {self.subscripts}",
                 f"  order:        {self.path[1:]}",
                 f"  flops:        {self.flops} (naive {self.naive_flops})"]
        for n, (step, form) in enumerate(zip(self.steps, self.forms)):
            lines.append(f"  step {n}:       {step}  [{form}]")
        lines.append(f"  loop nests:   {self.generated_nests} generated -> {self.loop_nests} after fusion")
        for d in self.fused:
            verdict = "fused" if d.get("fused") else "not fused"
            lines.append(f"  fusion:       {', '.join(d['first'])} | {', '.join(d['second'])}: "
                         f"{verdict} -- {d['reason']}")
        for n, choice in enumerate(self.choices):
            lines.append(f"  dispatch {n}:   {choice}")
        if self.fallback:
            runs = f"numpy.einsum ({self.fallback})"
        elif self.choices:
            runs = f"BLAS steps + fused loops ({self.dispatch})"
        elif self.dispatch:
            runs = f"BLAS matmul ({self.dispatch})"
        else:
            runs = "polyfuse kernel"
        lines.append(f"  runs:         {runs}")
        return "\n".join(lines)


def _explained(subscripts: str, operands: tuple, out: Any, dtype: Any, optimize: Any, target: str,
               fuse: str, blas: bool) -> tuple[_Plan, _Plan, Explanation | None]:
    ops = _as_arrays(operands)
    actual = _plan(subscripts, ops, out, dtype, optimize, target, fuse, blas=bool(blas))
    compiled = actual if actual.kind == "kernel" else _plan(subscripts, ops, out, dtype, optimize, target,
                                                           fuse, force=True)
    if compiled.kind != "kernel":
        return actual, compiled, None
    assert compiled.kernel is not None, "a kernel plan has its kernel"
    args = []
    for op in ops:
        op = op.astype(compiled.cast) if compiled.cast is not None else op
        args.append(op.reshape(1) if op.ndim == 0 else op)
    dest = np.empty(compiled.out_shape or (1,), dtype=out.dtype if out is not None else compiled.out_dtype)
    return actual, compiled, compiled.kernel.explain(*args, dest)


def einsum_path(subscripts: str, *operands: Any, out: Any = None, dtype: Any = None, optimize: Any = True,
                target: str = "cpu", fuse: str = "smart", blas: bool = True) -> EinsumPath:
    """The contraction order, its FLOP count and the fusion polyfuse applies, for these operands.

    ``dispatch`` says when calls with these arguments run BLAS matmul instead of the loops (which
    are still compiled and described, as ``blas=False`` would run them)."""
    try:
        actual, compiled, explanation = _explained(subscripts, operands, out, dtype, optimize, target, fuse,
                                                   blas)
    except PolyfuseError as exc:
        raise exc.with_traceback(None) from None
    fallback = actual.reason if actual.kind == "numpy" else None
    dispatch = actual.reason if actual.kind in ("blas", "staged") else None
    choices = [c.describe() for c in actual.choices]
    if explanation is None:
        return EinsumPath(subscripts, ["einsum_path"], [], [], 0, 0, [], 0, 0, fallback, "", "", dispatch,
                          choices)
    path = compiled.path
    assert path is not None, "a kernel plan has its contraction path"
    return EinsumPath(
        subscripts, ["einsum_path", *path.steps], [s.description for s in compiled.steps],
        [s.form for s in compiled.steps], path.flops, path.naive_flops, list(explanation["fusion"]),
        sum(line.startswith("    for ") for line in compiled.source.splitlines()),
        explanation.fused_loop_nests(), fallback, compiled.source, explanation["loop code"], dispatch,
        choices,
    )


def explain(subscripts: str, *operands: Any, out: Any = None, dtype: Any = None, optimize: Any = True,
            target: str = "cpu", fuse: str = "smart", blas: bool = True) -> Explanation:
    """``explain()`` of the generated kernel, with an ``einsum`` section and the generated source
    in front.  The ``einsum`` section says whether calls with these arguments run numpy or BLAS
    matmul instead."""
    from polyfuse.explain import Explanation

    try:
        actual, compiled, explanation = _explained(subscripts, operands, out, dtype, optimize, target, fuse,
                                                   blas)
    except PolyfuseError as exc:
        raise exc.with_traceback(None) from None
    runs = {"kernel": "polyfuse kernel", "numpy": f"numpy.einsum ({actual.reason})",
            "blas": f"BLAS matmul ({actual.reason})",
            "staged": f"BLAS steps + fused loops ({actual.reason})"}[actual.kind]
    head: dict[str, Any] = {"subscripts": subscripts, "runs": runs}
    for n, choice in enumerate(actual.choices):
        head[f"dispatch {n}"] = choice.describe()
    if compiled.kind == "kernel":
        assert compiled.path is not None, "a kernel plan has its contraction path"
        head["order"] = str(list(compiled.path.steps))
        head["flops"] = f"{compiled.path.flops} (naive {compiled.path.naive_flops})"
        for n, step in enumerate(compiled.steps):
            head[f"step {n}"] = f"{step.description} [{step.form}] -> {step.out.name}"
    sections: tuple = (("einsum", head),)
    if explanation is None:
        return Explanation(sections)
    return Explanation(sections + (("generated source", compiled.source),) + explanation.sections)


# ----------------------------------------------------------------------------------------------
# Benchmarks (wired into ``polyfuse bench`` by its owner)
# ----------------------------------------------------------------------------------------------

def _stepwise(subscripts: str, path: list[str | tuple[int, ...]] | Literal[False]) -> Callable[..., Any]:
    def run(*ops: np.ndarray) -> Any:
        return np.einsum(subscripts, *ops, optimize=path)
    return run


def einsum_benchmarks(preset: str = "quick", seed: int = 0) -> list[tuple]:
    """``(name, polyfuse_callable, numpy_optimize_callable, numpy_stepwise_callable, args)`` rows.

    ``numpy_optimize`` is ``numpy.einsum(..., optimize=True)``; ``numpy_stepwise`` is
    ``numpy.einsum`` following polyfuse's contraction order one pairwise step at a time
    (``optimize=<that path>``; numpy may hand a step to BLAS); for the specs it is the statements
    as separate numpy expressions with plain (``optimize=False``) einsums.
    ``preset``: "test" (tiny), "quick" or "bench".
    """
    from polyfuse.tensor.spec import spec

    rng = np.random.default_rng(seed)
    scale = {"test": 0, "quick": 1, "bench": 2}[preset]
    n = (8, 96, 256)[scale]
    b = (2, 16, 32)[scale]
    r = (3, 12, 24)[scale]
    rows: list[tuple] = []

    def add(name: str, subscripts: str, *ops: np.ndarray) -> None:
        path = einsum_path(subscripts, *ops).path
        rows.append((name, functools.partial(einsum, subscripts),
                     functools.partial(np.einsum, subscripts, optimize=True),
                     _stepwise(subscripts, path if len(path) > 1 else False), ops))

    def rand(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape)

    add("einsum batched matmul bij,bjk->bik", "bij,bjk->bik", rand(b, n, n), rand(b, n, n))
    add("einsum bilinear bi,bij,bj->b", "bi,bij,bj->b", rand(4 * b, n), rand(4 * b, n, n), rand(4 * b, n))
    add("einsum ki,k,kj,k->ij", "ki,k,kj,k->ij", rand(4 * n, n), rand(4 * n), rand(4 * n, n), rand(4 * n))
    add("einsum tensor train", "ia,iajb,jbkc,kc->", rand(n // 2, r), rand(n // 2, r, n // 2, r),
        rand(n // 2, r, n // 2, r), rand(n // 2, r))

    mlp = spec(MLP_SPEC)
    X, W1, b1, W2 = rand(4 * n, n), rand(n, 2 * n), rand(2 * n), rand(2 * n, n // 2)

    def mlp_np_opt(X: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray) -> np.ndarray:
        return np.einsum("ij,jl->il", np.maximum(np.einsum("ik,kj->ij", X, W1, optimize=True) + b1, 0), W2,
                         optimize=True)

    def mlp_np_step(X: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray) -> np.ndarray:
        return np.einsum("ij,jl->il", np.maximum(np.einsum("ik,kj->ij", X, W1) + b1, 0), W2)

    rows.append(("spec two-layer MLP", lambda X, W1, b1, W2: mlp(X=X, W1=W1, b1=b1, W2=W2),
                 mlp_np_opt, mlp_np_step, (X, W1, b1, W2)))

    att = spec(ATTENTION_SPEC)
    Q, K, V = rand(2 * n, 64), rand(2 * n, 64), rand(2 * n, 64)

    def att_np(Q: np.ndarray, K: np.ndarray, V: np.ndarray, optimize: bool) -> np.ndarray:
        S = np.einsum("id,jd->ij", Q, K, optimize=optimize) * (1.0 / 8.0)
        P = np.exp(S - S.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        return np.einsum("ij,jv->iv", P, V, optimize=optimize)

    rows.append(("spec row-wise attention", lambda Q, K, V: att(Q=Q, K=K, V=V, scale=1.0 / 8.0),
                 functools.partial(att_np, optimize=True), functools.partial(att_np, optimize=False),
                 (Q, K, V)))
    att_fast = spec(ATTENTION_SPEC, fastmath=True)  # reassociated (vectorized) max, sum and exp
    rows.append(("spec attention, fastmath=True", lambda Q, K, V: att_fast(Q=Q, K=K, V=V, scale=1.0 / 8.0),
                 functools.partial(att_np, optimize=True), functools.partial(att_np, optimize=False),
                 (Q, K, V)))
    return rows


MLP_SPEC = """
H[i, j] = relu(sum[k](X[i, k] * W1[k, j]) + b1[j])
Y[i, l] = sum[j](H[i, j] * W2[j, l])
"""

ATTENTION_SPEC = """
S[i, j] = sum[d](Q[i, d] * K[j, d]) * scale
M[i] = max[j](S[i, j])
E[i, j] = exp(S[i, j] - M[i])
Z[i] = sum[j](E[i, j])
O[i, v] = sum[j](E[i, j] * V[j, v]) / Z[i]
"""

