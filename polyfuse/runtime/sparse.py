"""scipy.sparse matrices in a call: unpacked into the plain arguments the kernel is compiled for.

A CSR matrix ``A`` becomes ``A__csr_data``, ``A__csr_indices``, ``A__csr_indptr`` (its arrays, as
scipy stores them: unsorted indices and duplicates included) and ``A__csr_minor`` (its number of
columns), in ``A``'s place (model/scop.py ``sparse_part``); a CSC matrix the same with ``csc``, its
indptr counting columns.  The kernel reads the arrays with run-time subscripts, which are
bounds-checked as any are, so a malformed matrix raises IndexError rather than reading outside.
"""

from __future__ import annotations

from typing import Any

from polyfuse.errors import ArgumentError
from polyfuse.model.scop import SPARSE_FORMATS, sparse_part

INDEX_DTYPES = ("int32", "int64")


def is_sparse(value: object) -> bool:
    """A scipy.sparse matrix or array, recognised without importing scipy."""
    return type(value).__module__.startswith("scipy.sparse") and hasattr(value, "format")


def unpack_sparse(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with each sparse matrix replaced by its parts (the same dict when there is none)."""
    if not any(map(is_sparse, values.values())):
        return values
    out: dict[str, Any] = {}
    for name, value in values.items():
        if not is_sparse(value):
            out[name] = value
            continue
        parts = _parts(name, value)
        clash = next((part for part in parts if part in values), None)
        if clash is not None:
            raise ArgumentError(f"argument {name!r} is a sparse matrix, whose parts are passed as {clash!r}, "
                                "which is also the name of a parameter; rename that parameter")
        out.update(parts)
    return out


def _parts(name: str, value: Any) -> dict[str, Any]:
    fmt = value.format
    if fmt not in SPARSE_FORMATS:
        raise ArgumentError(
            f"argument {name!r} is a scipy.sparse {type(value).__name__} (format {fmt!r}); kernels take sparse "
            f"matrices in the {' and '.join(SPARSE_FORMATS)} formats: pass {name}.tocsr()"
        )
    data, indices, indptr = value.data, value.indices, value.indptr
    if indices.dtype.name not in INDEX_DTYPES or indptr.dtype != indices.dtype:
        raise ArgumentError(f"argument {name!r}: sparse index arrays of dtype {indices.dtype}/{indptr.dtype}; "
                            f"scipy makes them {' or '.join(INDEX_DTYPES)}, both the same")
    rows, cols = value.shape
    major, minor = (rows, cols) if fmt == "csr" else (cols, rows)
    if data.ndim != 1 or indices.shape != data.shape or indptr.shape != (major + 1,):
        raise ArgumentError(f"argument {name!r}: a {fmt} matrix of shape {value.shape} with data {data.shape}, "
                            f"indices {indices.shape} and indptr {indptr.shape} (scipy's check_format would "
                            "refuse it)")
    return {sparse_part(name, fmt, "data"): data, sparse_part(name, fmt, "indices"): indices,
            sparse_part(name, fmt, "indptr"): indptr, sparse_part(name, fmt, "minor"): int(minor)}
