"""``polyfuse.einsum`` with dask operands: a blockwise graph of polyfuse.einsum calls.

Like ``dask.array.einsum``, which calls ``np.einsum`` per block: ``dask.array.blockwise`` pairs
the blocks of the operands by label (chunks of one label are unified across operands), each
block pair runs ``polyfuse.einsum`` (fused loop stages, BLAS where it pays) with every label it
holds, and the labels that are summed over are kept as size-1 axes and summed across blocks
with Dask's tree reduction.
"""

from __future__ import annotations

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


def labels(subscripts: str, count: int) -> tuple[list[str], str]:
    """The operands' labels and the output's (numpy's implicit rule without ``->``)."""
    text = subscripts.replace(" ", "")
    if "." in text:
        raise ArgumentError(f"einsum {subscripts!r}: '...' is not supported on dask arrays yet")
    left, arrow, output = text.partition("->")
    inputs = left.split(",")
    if len(inputs) != count:
        raise ArgumentError(f"einsum {subscripts!r}: {len(inputs)} operand labels for {count} operands")
    for part in inputs:
        if len(set(part)) != len(part):
            raise ArgumentError(f"einsum {subscripts!r}: a label repeated in one operand ({part!r}: a "
                                "diagonal) is not supported on dask arrays yet")
    if not arrow:
        every = "".join(inputs)
        output = "".join(sorted(c for c in set(every) if every.count(c) == 1))
    return inputs, output


def einsum(run: Callable[..., Any], subscripts: str, *operands: Any, dtype: Any = None, **options: Any):
    """The dask array of ``run(subscripts, *operands)``, ``run`` being polyfuse.einsum (see the
    module docstring)."""
    import dask.array as da

    inputs, output = labels(subscripts, len(operands))
    arrays = [da.asarray(op) for op in operands]
    summed = "".join(dict.fromkeys(c for part in inputs for c in part if c not in output))
    result_dtype = np.dtype(dtype) if dtype is not None else np.result_type(*(a.dtype for a in arrays))
    if dtype is not None:
        options["dtype"] = dtype
    block = EinsumBlock(run, f"{','.join(inputs)}->{output}", len(summed), tuple(sorted(options.items())))
    pairs = [x for array, part in zip(arrays, inputs) for x in (array, part)]
    rank = len(output) + len(summed)
    blocks = da.blockwise(block, output + summed, *pairs, adjust_chunks={c: 1 for c in summed},
                          dtype=result_dtype, meta=np.empty((0,) * rank, dtype=result_dtype), align_arrays=True)
    if not summed:
        return blocks
    return blocks.sum(axis=tuple(range(len(output), rank)), dtype=result_dtype)
