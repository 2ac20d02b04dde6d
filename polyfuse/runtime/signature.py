"""Call signatures: what a compiled kernel is specialized on (dtype, rank, layout, scalar kind)."""

from __future__ import annotations

import numbers

import numpy as np

from polyfuse.errors import ArgumentError
from polyfuse.model.scop import Argument

SUPPORTED_DTYPES = ("float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "bool", "complex64", "complex128")


def argument_of(name: str, value: object) -> Argument:
    """The signature entry of one call argument; raises ArgumentError for unsupported values."""
    if isinstance(value, np.ndarray):
        if type(value) is not np.ndarray:
            _refuse_subclass(name, value)
        return _array_argument(name, value.dtype, value.shape, value.flags.c_contiguous)
    if is_device_array(value):
        dtype, shape, strides = _device_layout(value)
        return _array_argument(name, dtype, shape, _c_contiguous(shape, strides, dtype.itemsize))
    if isinstance(value, bool):  # a weak bool under NEP 50; before int, which it subclasses
        return Argument(name, "bool", "int64")
    if isinstance(value, np.generic):
        return _numpy_scalar_argument(name, value)
    if isinstance(value, numbers.Integral):
        return Argument(name, "int", "int64")
    if isinstance(value, numbers.Real):
        return Argument(name, "float", "float64")
    if isinstance(value, numbers.Complex):
        return Argument(name, "complex", "complex128")
    raise ArgumentError(
        f"argument {name!r} has type {type(value).__name__}; kernels take numpy arrays "
        f"({', '.join(SUPPORTED_DTYPES)}), ints, floats, complex numbers and bools"
    )


def _refuse_subclass(name: str, value: np.ndarray) -> None:
    """A masked array with masked elements or an np.matrix, whose elements and indexing differ
    from their data's (an np.memmap, a masked array of no masked element, is read as its data;
    a subclass is checked at every call: kernel._dispatch_key)."""
    if isinstance(value, np.ma.MaskedArray) and np.ma.getmask(value) is not np.ma.nomask and value.mask.any():
        raise ArgumentError(f"argument {name!r} is a masked array (np.ma) with masked elements: a kernel reads its "
                            f"data and would ignore the mask; pass {name}.filled(value) or {name}.compressed()")
    if isinstance(value, np.matrix):
        raise ArgumentError(f"argument {name!r} is an np.matrix, whose rows stay 2-d and whose * is a matrix "
                            f"product; pass np.asarray({name})")


def _numpy_scalar_argument(name: str, value: np.generic) -> Argument:
    """np.float32(0.5), np.int8(3), ...: numpy scalars keep their dtype in arithmetic (NEP 50),
    so the signature records it; the value itself travels as an int64 or a float64."""
    dtype = value.dtype
    if dtype.kind == "b":
        return Argument(name, "bool", "int64", numpy_scalar="bool")
    if dtype.kind in "iu" and dtype.name in SUPPORTED_DTYPES:
        return Argument(name, "int", "int64", numpy_scalar=dtype.name)
    if dtype.kind == "f" and dtype.name in SUPPORTED_DTYPES:
        return Argument(name, "float", "float64", numpy_scalar=dtype.name)
    if dtype.kind == "c" and dtype.name in SUPPORTED_DTYPES:
        return Argument(name, "complex", "complex128", numpy_scalar=dtype.name)
    raise ArgumentError(f"argument {name!r} is a numpy {dtype} scalar; scalar arguments may be ints, floats, "
                        "complex numbers, bools and numpy scalars of the bool, integer, float32/float64 and "
                        "complex64/complex128 dtypes")


def _array_argument(name: str, dtype: np.dtype, shape: tuple[int, ...], c_contiguous: bool) -> Argument:
    ndim = len(shape)
    if dtype.name not in SUPPORTED_DTYPES:
        raise ArgumentError(
            f"argument {name!r} has dtype {dtype}; supported array dtypes are {', '.join(SUPPORTED_DTYPES)}"
        )
    if not dtype.isnative:
        raise ArgumentError(f"argument {name!r} has dtype {dtype.str} (non-native byte order); compiled code reads "
                            f"native numbers: pass {name}.astype({name}.dtype.newbyteorder('='))")
    return Argument(name, "array", dtype.name, ndim, "C" if c_contiguous else "A", unit_axes=unit_axes(shape))


def unit_axes(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of extent 1 (NumPy broadcasts them)."""
    return tuple(d for d, extent in enumerate(shape) if extent == 1) if 1 in shape else ()


def is_dask_array(value: object) -> bool:
    """A dask array, recognised without importing dask."""
    return type(value).__module__.startswith("dask.array") and hasattr(value, "chunks")


def is_device_array(value: object) -> bool:
    """A GPU array: ``__cuda_array_interface__`` (numba, CuPy, ...) or numba's CUDA simulator arrays."""
    return getattr(value, "__cuda_array_interface__", None) is not None or bool(getattr(value, "__cuda_ndarray__", False))


def _device_layout(value) -> tuple[np.dtype, tuple[int, ...], tuple[int, ...] | None]:
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        strides = interface.get("strides")
        return np.dtype(interface["typestr"]), tuple(interface["shape"]), None if strides is None else tuple(strides)
    return np.dtype(value.dtype), tuple(value.shape), tuple(value.strides)


def _c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...] | None, itemsize: int) -> bool:
    if strides is None:
        return True
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent > 1 and stride != expected:
            return False
        expected *= extent
    return True


def signature_key(arguments: tuple[Argument, ...]) -> str:
    """Stable text naming a signature, e.g. ``A:float64[2,C] n:int``."""
    parts = []
    for a in arguments:
        units = f",1@{'.'.join(map(str, a.unit_axes))}" if a.unit_axes else ""
        parts.append(f"{a.name}:{a.dtype}[{a.rank},{a.layout}{units}]" if a.kind == "array"
                     else f"{a.name}:{_scalar_key(a)}")
    return " ".join(parts)


def _scalar_key(a: Argument) -> str:
    """``int``, ``float``, ``complex``, ``bool`` for Python scalars; ``np.<dtype>`` for numpy's."""
    return f"np.{a.numpy_scalar}" if a.numpy_scalar else a.kind


def device_span(value) -> tuple[int, int]:
    """[first byte, last byte + 1) a device array may touch (for overlap checks without copies)."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:  # the simulator's arrays wrap host memory
        host = np.asarray(value)
        low, high = np.byte_bounds(host) if hasattr(np, "byte_bounds") else np.lib.array_utils.byte_bounds(host)
        return low, high
    start = interface["data"][0]
    dtype, shape, strides = _device_layout(value)
    if not shape or 0 in shape:
        return start, start
    strides = strides or tuple(int(np.prod(shape[d + 1:])) * dtype.itemsize for d in range(len(shape)))
    low = start + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    high = start + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + dtype.itemsize
    return low, high
