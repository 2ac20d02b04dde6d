"""``np.linalg`` routines (model/region.py ``Lapack``) as one LAPACK call from the JIT.

LAPACK comes from SciPy's ``scipy.linalg.cython_lapack``, as BLAS does for products
(backends/cpu/blas.py): its function pointers are registered with LLVM under the names declared
here, so the optimised IR in the disk cache holds no address.  NumPy's ``np.linalg`` calls the
same routines (dpotrf for cholesky, dgesv for solve and inv, dgetrf for det and slogdet, in
double for every real dtype) on the same column-major copies, so the results agree with NumPy's up
to the LAPACK build.  The frontend
made every matrix a kernel-local row-major buffer holding the transpose (Fortran's order): its
row stride is the leading dimension.  Fortran passes every number by pointer; sizes are 32-bit.
"""

from __future__ import annotations

import ctypes
import functools

from llvmlite import ir as ll

from polyfuse.errors import UnsupportedError
from polyfuse.model import region as rg

_I64 = ll.IntType(64)
_I32 = ll.IntType(32)
_I8 = ll.IntType(8)
_REALS = {"float64": ll.DoubleType()}  # np.linalg computes every real dtype in double: the d routines
_ROUTINES = tuple("d" + routine for routine in rg.LAPACK_ROUTINES)

PREFIX = "polyfuse.lapack."


@functools.cache
def lapack_pointers() -> dict[str, int]:
    """``{symbol: address}`` of the routines, or {} when SciPy's cython_lapack is missing."""
    try:
        from scipy.linalg import cython_lapack
    except ImportError:
        return {}
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    found = {}
    for name in _ROUTINES:
        capsule = cython_lapack.__pyx_capi__[name]
        found[PREFIX + name] = get_pointer(capsule, get_name(capsule))
    return found


def register_symbols(llvm) -> None:
    """Make the routines known to the JIT linker (before a module using them is finalised); a
    kernel from the disk cache that calls them cannot load where SciPy's LAPACK is missing."""
    found = lapack_pointers()
    if not found:
        raise UnsupportedError("this kernel calls LAPACK (np.linalg) from scipy.linalg.cython_lapack, which is not "
                               "installed here; install scipy, or use target='python'")
    for name, address in found.items():
        llvm.add_symbol(name, address)


class LapackEmitter:
    """``emit(op)``: the routine's call on the op's buffers, its ``info`` stored as int64, and
    for getrf the diagonal scan of NumPy's slogdet (region operations, emitted as any)."""

    def __init__(self, regions) -> None:
        self.regions = regions  # backends/cpu/region.RegionEmitter
        self.cg = regions.cg

    @property
    def b(self) -> ll.IRBuilder:
        return self.cg.builder

    def emit(self, op: rg.Lapack) -> None:
        if not lapack_pointers():
            raise UnsupportedError(f"{op.call}() runs on LAPACK from scipy.linalg.cython_lapack, which is not "
                                   "installed here; install scipy, or use target='python'", self.regions.span, op.call)
        n = self.int32(self.cg.exprs.emit(op.n))
        info = self.cg.alloca_builder.alloca(_I32)
        {"potrf": self.potrf, "getrf": self.getrf, "gesv": self.gesv, "gelsd": self.gelsd}[op.routine](op, n, info)
        self.b.store(self.b.sext(self.b.load(info), _I64), self.cg.arrays[op.info][0])
        if op.routine == "getrf":  # the scan reads info
            self.regions.emit(op.slogdet())

    def potrf(self, op: rg.Lapack, n, info) -> None:
        """``dpotrf('L', n, a, lda, info)``."""
        self.call(op, [self.slot(_I8, ll.Constant(_I8, ord("L"))), n, self.pointer(op.a, op.dtype),
                       self.leading(op.a), info])

    def getrf(self, op: rg.Lapack, n, info) -> None:
        """``dgetrf(n, n, a, lda, ipiv, info)`` (:meth:`emit` adds NumPy's slogdet scan)."""
        self.call(op, [n, n, self.pointer(op.a, op.dtype), self.leading(op.a), self.pointer(op.pivots, "int32"), info])

    def gesv(self, op: rg.Lapack, n, info) -> None:
        """``dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)``; a vector ``b`` has ldb max(1, n)."""
        ldb = self.leading(op.b) if op.b_rank == 2 else self.at_least_one(op.n)
        self.call(op, [n, self.int32(self.cg.exprs.emit(op.nrhs)), self.pointer(op.a, op.dtype), self.leading(op.a),
                       self.pointer(op.pivots, "int32"), self.pointer(op.b, op.dtype), ldb, info])

    def call(self, op: rg.Lapack, args: list):
        return self.b.call(self.declare(op, [arg.type for arg in args]), args)

    def gelsd(self, op: rg.Lapack, n, info) -> None:
        """``dgelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info)`` as NumPy
        calls it: a workspace query first (lwork = -1), then the optimal workspaces (malloc'd for
        the call, freed after) and the call; the rank stored as int64."""
        assert op.m is not None, "gelsd has m rows"
        b = self.b
        rank = self.cg.alloca_builder.alloca(_I32)
        lwork = self.slot(_I32, ll.Constant(_I32, -1))
        work_query, iwork_query = self.cg.alloca_builder.alloca(_REALS[op.dtype]), self.cg.alloca_builder.alloca(_I32)
        rcond = b.bitcast(self.cg.arrays[op.rcond][0], _REALS[op.dtype].as_pointer())
        head = [self.int32(self.cg.exprs.emit(op.m)), n, self.int32(self.cg.exprs.emit(op.nrhs)),
                self.pointer(op.a, op.dtype), self.leading(op.a), self.pointer(op.b, op.dtype), self.leading(op.b),
                self.pointer(op.s, op.dtype), rcond, rank]
        routine = self.declare(op, [arg.type for arg in head + [work_query, lwork, iwork_query, info]])
        b.call(routine, head + [work_query, lwork, iwork_query, info])
        one = ll.Constant(_I32, 1)
        words = b.fptosi(b.load(work_query), _I32)  # NumPy: (fortran_int)work_size_query
        words = b.select(b.icmp_signed(">", words, one), words, one)
        ints = b.load(iwork_query)
        ints = b.select(b.icmp_signed(">", ints, one), ints, one)
        b.store(words, lwork)
        work = self.malloc(b.mul(b.sext(words, _I64), ll.Constant(_I64, 8)))
        iwork = self.malloc(b.mul(b.sext(ints, _I64), ll.Constant(_I64, 4)))
        b.call(routine, head + [b.bitcast(work, _REALS[op.dtype].as_pointer()), lwork,
                                b.bitcast(iwork, _I32.as_pointer()), info])
        for block in (work, iwork):
            b.call(self.libc("free", ll.VoidType(), [_I8.as_pointer()]), [block])
        b.store(b.sext(b.load(rank), _I64), self.cg.arrays[op.rank][0])

    def malloc(self, size):
        return self.b.call(self.libc("malloc", _I8.as_pointer(), [_I64]), [size])

    def libc(self, name: str, result, params: list):
        module = self.cg.module
        if name in module.globals:
            return module.globals[name]
        return ll.Function(module, ll.FunctionType(result, params), name=name)

    def pointer(self, array: str, dtype: str):
        base = self.cg.arrays[array][0]
        return self.b.bitcast(base, (_I32 if dtype == "int32" else _REALS[dtype]).as_pointer())

    def leading(self, array: str):
        """The leading dimension of a local holding a column-major matrix: its row stride (at
        least 1, as LAPACK requires even of an empty matrix)."""
        stride = self.cg.arrays[array][1][0]
        one = ll.Constant(_I64, 1)
        return self.slot(_I32, self.b.trunc(self.b.select(self.b.icmp_signed(">=", stride, one), stride, one), _I32))

    def at_least_one(self, n):
        value = self.cg.exprs.emit(n)
        one = ll.Constant(_I64, 1)
        return self.slot(_I32, self.b.trunc(self.b.select(self.b.icmp_signed(">=", value, one), value, one), _I32))

    def declare(self, op: rg.Lapack, params: list):
        name = PREFIX + op.symbol
        module = self.cg.module
        if name in module.globals:
            return module.globals[name]
        return ll.Function(module, ll.FunctionType(ll.VoidType(), params), name=name)

    def slot(self, kind, value):
        """A stack slot holding ``value`` (Fortran passes every number by reference)."""
        slot = self.cg.alloca_builder.alloca(kind)
        self.b.store(value, slot)
        return slot

    def int32(self, value):
        return self.slot(_I32, self.b.trunc(value, _I32))
