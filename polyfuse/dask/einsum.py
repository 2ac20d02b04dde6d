"""``polyfuse.einsum`` with dask operands: a blockwise graph of polyfuse.einsum calls.

Like ``dask.array.einsum``, which calls ``np.einsum`` per block: ``dask.array.blockwise`` pairs
the blocks of the operands by label, each block pair runs ``polyfuse.einsum`` (fused loop
stages, BLAS where it pays) with every label it holds, and the labels that are summed over are
kept as size-1 axes and summed across blocks with Dask's tree reduction.

``...`` is spelled out first, as numpy reads it: each operand's ellipsis axes get fresh labels,
right-aligned (an operand with fewer takes the last ones), so every block call has explicit
labels.  A label repeated in one operand (a diagonal, ``ii->i``, ``ii->``) pairs the operand's
diagonal blocks only, so the chunks of one label are unified over every axis that carries it,
in all operands (Dask's ``common_blockdim``, the refinement ``unify_chunks`` makes across
operands; ``dask.array.einsum`` stops at uneven diagonal chunks); an axis of extent 1 under a
label of a longer one broadcasts, as in numpy, and keeps its one chunk.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.errors import ArgumentError


@dataclass(frozen=True)
class EinsumBlock:
    """One block: polyfuse.einsum on the operands' blocks, summed labels kept as size-1 axes.
    ``run`` is polyfuse.einsum itself (handed in by it: this layer sits below polyfuse.tensor;
    a function pickles by name, so workers import it)."""

    run: Callable[..., Any]
    subscripts: str
    summed: int  # how many summed labels follow the output's
    options: tuple[tuple[str, Any], ...]

    def __call__(self, *blocks: np.ndarray) -> np.ndarray:
        result = np.asarray(self.run(self.subscripts, *blocks, **dict(self.options)))
        return result.reshape(result.shape + (1,) * self.summed)


def labels(subscripts: str, ranks: tuple[int, ...]) -> tuple[list[str], str]:
    """The operands' labels and the output's, ``...`` spelled out (numpy's implicit output
    without ``->``: the ellipsis axes, then the labels used once, sorted)."""
    text = subscripts.replace(" ", "")
    left, arrow, output = text.partition("->")
    inputs = left.split(",")
    if len(inputs) != len(ranks):
        raise ArgumentError(f"einsum {subscripts!r}: {len(inputs)} operand labels for {len(ranks)} operands")
    explicit = [part.replace("...", "") for part in inputs]
    if any(not part.isalpha() for part in explicit if part) or any(p.count("...") > 1 for p in inputs):
        raise ArgumentError(f"einsum {subscripts!r}: labels are letters, with at most one '...' per operand")
    widths = [rank - len(part) for part, rank in zip(explicit, ranks)]
    for part, rank, width in zip(inputs, ranks, widths):
        if width < 0 or (width and "..." not in part):
            raise ArgumentError(f"einsum {subscripts!r}: operand labels {part!r} for an array of rank {rank}")
    free = [c for c in string.ascii_letters if c not in text]
    ellipsis = "".join(free[:max([w for w, p in zip(widths, inputs) if "..." in p], default=0)])
    spelled = [part.replace("...", ellipsis[len(ellipsis) - width:] if width else "")
               for part, width in zip(inputs, widths)]
    if arrow:
        if output.count("...") > 1 or (not output.replace("...", "").isalpha() and output.replace("...", "")):
            raise ArgumentError(f"einsum {subscripts!r}: the output's labels are letters, with at most one '...'")
        return spelled, output.replace("...", ellipsis)
    every = "".join(explicit)
    return spelled, ellipsis + "".join(sorted(c for c in set(every) if every.count(c) == 1))


def unified(arrays: list[Any], inputs: list[str]) -> list[Any]:
    """The operands rechunked so that every axis carrying one label has the same chunks (axes
    of extent 1 that broadcast against a longer one keep their one chunk)."""
    from dask.array.core import common_blockdim

    extents: dict[str, set[int]] = {}
    for array, part in zip(arrays, inputs):
        for label, n in zip(part, array.shape):
            extents.setdefault(label, set()).add(int(n))
    for label, sizes in extents.items():
        if len(sizes - {1}) > 1:
            raise ArgumentError(f"einsum: label {label!r} has extents {sorted(sizes)} across the operands")
    chunks = {}
    for label, sizes in extents.items():
        longest = max(sizes)
        along = [array.chunks[axis] for array, part in zip(arrays, inputs)
                 for axis, c in enumerate(part) if c == label and array.shape[axis] == longest]
        chunks[label] = tuple(common_blockdim(along)) if len(set(along)) > 1 else along[0]
    found = []
    for array, part in zip(arrays, inputs):
        wanted = tuple(chunks[c] if array.shape[axis] == max(extents[c]) else array.chunks[axis]
                       for axis, c in enumerate(part))
        found.append(array.rechunk(wanted) if wanted != array.chunks else array)
    return found


def einsum(run: Callable[..., Any], subscripts: str, *operands: Any, dtype: Any = None, **options: Any):
    """The dask array of ``run(subscripts, *operands)``, ``run`` being polyfuse.einsum (see the
    module docstring)."""
    import dask.array as da

    arrays = [da.asarray(op) for op in operands]
    inputs, output = labels(subscripts, tuple(a.ndim for a in arrays))
    arrays = unified(arrays, inputs)
    summed = "".join(dict.fromkeys(c for part in inputs for c in part if c not in output))
    result_dtype = np.dtype(dtype) if dtype is not None else np.result_type(*(a.dtype for a in arrays))
    if dtype is not None:
        options["dtype"] = dtype
    block = EinsumBlock(run, f"{','.join(inputs)}->{output}", len(summed), tuple(sorted(options.items())))
    pairs = [x for array, part in zip(arrays, inputs) for x in (array, part)]
    rank = len(output) + len(summed)
    blocks = da.blockwise(block, output + summed, *pairs, adjust_chunks={c: 1 for c in summed},
                          dtype=result_dtype, meta=np.empty((0,) * rank, dtype=result_dtype), align_arrays=False)
    if not summed:
        return blocks
    return blocks.sum(axis=tuple(range(len(output), rank)), dtype=result_dtype)
