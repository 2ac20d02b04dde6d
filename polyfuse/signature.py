"""Call signatures: what a compiled kernel is specialized on (dtype, rank, layout, scalar kind)."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import ArgumentError
from .scop import Argument

SUPPORTED_DTYPES = ("float32", "float64", "int32", "int64")


def argument_of(name: str, value: object) -> Argument:
    """The signature entry of one call argument; raises ArgumentError for unsupported values."""
    if isinstance(value, np.ndarray):
        if value.dtype.name not in SUPPORTED_DTYPES:
            raise ArgumentError(
                f"argument {name!r} has dtype {value.dtype}; supported array dtypes are "
                f"{', '.join(SUPPORTED_DTYPES)}"
            )
        if value.ndim == 0:
            raise ArgumentError(f"argument {name!r} is a 0-d array; pass a Python number instead")
        layout = "C" if value.flags.c_contiguous else "A"
        return Argument(name, "array", value.dtype.name, value.ndim, layout)
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentError(f"argument {name!r} is a bool; pass an int or a float")
    if isinstance(value, numbers.Integral):
        return Argument(name, "int", "int64")
    if isinstance(value, numbers.Real):
        return Argument(name, "float", "float64")
    raise ArgumentError(
        f"argument {name!r} has type {type(value).__name__}; kernels take numpy arrays "
        f"({', '.join(SUPPORTED_DTYPES)}), ints and floats"
    )


def signature_key(arguments: tuple[Argument, ...]) -> str:
    """Stable text naming a signature, e.g. ``A:float64[2,C] n:int``."""
    parts = []
    for a in arguments:
        parts.append(f"{a.name}:{a.dtype}[{a.rank},{a.layout}]" if a.kind == "array" else f"{a.name}:{a.kind}")
    return " ".join(parts)
