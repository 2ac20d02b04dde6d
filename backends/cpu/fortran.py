"""What BLAS and LAPACK calls from the JIT share (blas.py, lapack.py): Fortran passes every
number by reference, and every INTEGER has the width of the library runtime/linalg_library.py
found (64-bit in NumPy's ILP64 OpenBLAS, 32-bit in SciPy's)."""

from __future__ import annotations

from llvmlite import ir as ll

from polyfuse.runtime.linalg_library import library


def fortran_int() -> ll.IntType:
    """The library's INTEGER: sizes, strides, increments, leading dimensions, pivots, info."""
    found = library()
    return ll.IntType(32 if found is None else found.int_bits)


class FortranCaller:
    """Stack slots for a routine's by-reference arguments, in the function being emitted."""

    def __init__(self, regions) -> None:
        self.regions = regions  # backends/cpu/region.RegionEmitter
        self.cg = regions.cg
        self.int = fortran_int()

    @property
    def b(self) -> ll.IRBuilder:
        return self.cg.builder

    def slot(self, kind, value):
        """A stack slot holding ``value``."""
        slot = self.cg.alloca_builder.alloca(kind)
        self.b.store(value, slot)
        return slot

    def integer(self, value):
        """A stack slot holding the int64 ``value`` as the library's INTEGER."""
        return self.slot(self.int, value if self.int.width == 64 else self.b.trunc(value, self.int))
