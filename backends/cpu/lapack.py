"""``np.linalg`` routines (model/region.py ``Lapack``) as one LAPACK call from the JIT.

LAPACK is the library products call (runtime/linalg_library.py): NumPy's own OpenBLAS where it
is found, so the results are NumPy's bits, else SciPy's ``scipy.linalg.cython_lapack``.  Its
function pointers are registered with LLVM under the names declared here, so the optimised IR in
the disk cache holds no address.  NumPy's ``np.linalg`` calls the same routines (?potrf for
cholesky, ?gesv for solve and inv, ?getrf for det and slogdet, dgelsd for lstsq, dgeqrf + dorgqr
for qr, dsyevd for eigh and eigvalsh, dgesdd for svd; d for every real dtype, z for every complex
one) on the same column-major copies, with NumPy's workspace queries (the blocked routines take
their block size from lwork, so the same lwork gives the same bits).  The frontend made every matrix a kernel-local
row-major buffer holding the transpose (Fortran's order): its row stride is the leading
dimension.  Fortran passes every number by pointer; every INTEGER is the library's width (64-bit
in NumPy's ILP64 OpenBLAS, 32-bit in SciPy's), the pivots buffer is int64 whatever the width (32-bit
pivots are widened in place after getrf).
"""

from __future__ import annotations

import functools

from llvmlite import ir as ll
from polyfuse.backends.cpu.fortran import FortranCaller

from polyfuse.errors import UnsupportedError
from polyfuse.model import region as rg
from polyfuse.runtime.linalg_library import library

_I64 = ll.IntType(64)
_I32 = ll.IntType(32)
_I8 = ll.IntType(8)
# np.linalg computes every real dtype in double (the d routines), every complex one in complex128
# (z): buffers are passed by address, so a complex one is passed as the double* of its parts
_ELEMENTS = {"float64": ll.DoubleType(), "complex128": ll.DoubleType()}
_ROUTINES = tuple(rg.LAPACK_LETTERS["float64"] + routine for routine in (*rg.LAPACK_ROUTINES, "orgqr")) + tuple(
    rg.LAPACK_LETTERS["complex128"] + routine for routine in rg.LAPACK_ROUTINES if routine not in rg.LAPACK_REAL_ONLY)

PREFIX = "polyfuse.lapack."
MISSING = ("LAPACK (np.linalg) from NumPy's OpenBLAS or scipy.linalg.cython_lapack, neither of which is usable here "
           "(POLYFUSE_BLAS=none turns both off); install scipy, or use target='python'")


@functools.cache
def lapack_pointers() -> dict[str, int]:
    """``{symbol: address}`` of the routines in the library products call, or {} without one
    that has them all."""
    found = library()
    if found is None:
        return {}
    pointers = {PREFIX + name: found.address(name) for name in _ROUTINES}
    return pointers if all(pointers.values()) else {}


def register_symbols(llvm) -> None:
    """Make the routines known to the JIT linker (before a module using them is finalised); a
    kernel from the disk cache that calls them cannot load where no LAPACK is found."""
    found = lapack_pointers()
    if not found:
        raise UnsupportedError(f"this kernel calls {MISSING}")
    for name, address in found.items():
        llvm.add_symbol(name, address)


class LapackEmitter(FortranCaller):
    """``emit(op)``: the routine's call on the op's buffers, its ``info`` stored as int64, and
    for getrf the diagonal scan of NumPy's slogdet (region operations, emitted as any)."""

    def emit(self, op: rg.Lapack) -> None:
        if not lapack_pointers():
            raise UnsupportedError(f"{op.call}() runs on {MISSING}", self.regions.span, op.call)
        n = self.integer(self.cg.exprs.emit(op.n))
        info = self.cg.alloca_builder.alloca(self.int)
        {"potrf": self.potrf, "getrf": self.getrf, "gesv": self.gesv, "gelsd": self.gelsd, "geqrf": self.geqrf,
         "syevd": self.syevd, "gesdd": self.gesdd}[op.routine](op, n, info)
        self.b.store(self.widen(self.b.load(info)), self.cg.arrays[op.info][0])
        if op.pivots:
            self.widen_pivots(op)
        if op.routine == "getrf":  # the scan reads info and the pivots
            self.regions.emit(op.slogdet())

    def widen(self, value):
        return value if value.type == _I64 else self.b.sext(value, _I64)

    def widen_pivots(self, op: rg.Lapack) -> None:
        """32-bit pivots, written over the first half of the int64 buffer, made int64 in place:
        from the last one down, so each is read before its slot is written."""
        if self.int.width == 64:
            return
        b, one = self.b, ll.Constant(_I64, 1)
        base = self.cg.arrays[op.pivots][0]
        narrow = b.bitcast(base, _I32.as_pointer())
        wide = b.bitcast(base, _I64.as_pointer())
        count = self.cg.exprs.emit(op.n)
        head, body, done = (b.append_basic_block(f"pf_pivots_{part}") for part in ("head", "body", "done"))
        start = b.block
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(_I64)
        i.add_incoming(count, start)
        b.cbranch(b.icmp_signed(">", i, ll.Constant(_I64, 0)), body, done)
        b.position_at_end(body)
        last = b.sub(i, one)
        b.store(b.sext(b.load(b.gep(narrow, [last])), _I64), b.gep(wide, [last]))
        i.add_incoming(last, body)
        b.branch(head)
        b.position_at_end(done)

    def potrf(self, op: rg.Lapack, n, info) -> None:
        """``dpotrf('L', n, a, lda, info)``."""
        self.call(op, [self.slot(_I8, ll.Constant(_I8, ord("L"))), n, self.pointer(op.a, op.dtype),
                       self.leading(op.a), info])

    def getrf(self, op: rg.Lapack, n, info) -> None:
        """``dgetrf(n, n, a, lda, ipiv, info)`` (:meth:`emit` adds NumPy's slogdet scan)."""
        self.call(op, [n, n, self.pointer(op.a, op.dtype), self.leading(op.a), self.pivots(op), info])

    def gesv(self, op: rg.Lapack, n, info) -> None:
        """``dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)``; a vector ``b`` has ldb max(1, n)."""
        ldb = self.leading(op.b) if op.b_rank == 2 else self.at_least_one(op.n)
        self.call(op, [n, self.integer(self.cg.exprs.emit(op.nrhs)), self.pointer(op.a, op.dtype), self.leading(op.a),
                       self.pivots(op), self.pointer(op.b, op.dtype), ldb, info])

    def call(self, op: rg.Lapack, args: list):
        return self.b.call(self.declare(op, [arg.type for arg in args]), args)

    def gelsd(self, op: rg.Lapack, n, info) -> None:
        """``dgelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info)`` as NumPy
        calls it: a workspace query first (lwork = -1), then the optimal workspaces (malloc'd for
        the call, freed after) and the call; the rank stored as int64."""
        assert op.m is not None, "gelsd has m rows"
        b, integer = self.b, self.int
        real = _ELEMENTS[op.dtype]
        rank = self.cg.alloca_builder.alloca(integer)
        lwork = self.slot(integer, ll.Constant(integer, -1))
        work_query, iwork_query = self.cg.alloca_builder.alloca(real), self.cg.alloca_builder.alloca(integer)
        rcond = b.bitcast(self.cg.arrays[op.rcond][0], real.as_pointer())
        head = [self.integer(self.cg.exprs.emit(op.m)), n, self.integer(self.cg.exprs.emit(op.nrhs)),
                self.pointer(op.a, op.dtype), self.leading(op.a), self.pointer(op.b, op.dtype), self.leading(op.b),
                self.pointer(op.s, op.dtype), rcond, rank]
        routine = self.declare(op, [arg.type for arg in head + [work_query, lwork, iwork_query, info]])
        b.call(routine, head + [work_query, lwork, iwork_query, info])
        one = ll.Constant(integer, 1)
        words = b.fptosi(b.load(work_query), integer)  # NumPy: (fortran_int)work_size_query
        words = b.select(b.icmp_signed(">", words, one), words, one)
        ints = b.load(iwork_query)
        ints = b.select(b.icmp_signed(">", ints, one), ints, one)
        b.store(words, lwork)
        work = self.malloc(b.mul(self.widen(words), ll.Constant(_I64, 8)))
        iwork = self.malloc(b.mul(self.widen(ints), ll.Constant(_I64, integer.width // 8)))
        b.call(routine, head + [b.bitcast(work, real.as_pointer()), lwork, b.bitcast(iwork, integer.as_pointer()), info])
        for block in (work, iwork):
            b.call(self.libc("free", ll.VoidType(), [_I8.as_pointer()]), [block])
        b.store(self.widen(b.load(rank)), self.cg.arrays[op.rank][0])

    def geqrf(self, op: rg.Lapack, n, info) -> None:
        """NumPy's qr: ``dgeqrf(m, n, a, lda, tau, work, lwork, info)`` (R in ``a``'s upper
        triangle), then for Q the reflectors copied into ``u`` and ``dorgqr(m, mc, min(m, n), u,
        ldu, tau, work, lwork, info)``; each with a workspace query first and lwork at least
        ``max(1, n)``, as umath_linalg's init_geqrf / init_gqr_common; ``tau`` malloc'd for the call."""
        m, count = self.cg.exprs.emit(op.rows()), self.cg.exprs.emit(op.n)
        k = self.b.select(self.b.icmp_signed("<", m, count), m, count)
        tau = self.malloc(self.b.mul(self.at_least(k, 1), ll.Constant(_I64, 8)))
        taus = self.b.bitcast(tau, _ELEMENTS[op.dtype].as_pointer())
        rows = self.integer(m)
        self.with_workspace("dgeqrf", [rows, n, self.pointer(op.a, op.dtype), self.leading(op.a), taus], [info],
                            floor=count)
        if op.u:
            self.regions.emit(op.q_copy())
            columns = self.integer(self.cg.exprs.emit(op.u_columns()))
            self.with_workspace("dorgqr", [rows, columns, self.integer(k), self.pointer(op.u, op.dtype),
                                           self.leading(op.u), taus], [info], floor=count)
        self.free(tau)

    def syevd(self, op: rg.Lapack, n, info) -> None:
        """NumPy's eigh / eigvalsh: ``dsyevd(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork,
        info)``, both workspaces from one query (umath_linalg's init_evd)."""
        flags = [self.slot(_I8, ll.Constant(_I8, ord(op.jobz))), self.slot(_I8, ll.Constant(_I8, ord(op.uplo)))]
        self.with_workspace("dsyevd", [*flags, n, self.pointer(op.a, op.dtype), self.leading(op.a),
                                       self.pointer(op.s, op.dtype)], [info], integers=True)

    def gesdd(self, op: rg.Lapack, n, info) -> None:
        """NumPy's svd: ``dgesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork,
        info)`` with iwork of ``8 min(m, n)`` (umath_linalg's init_gesdd); for jobz "N" one
        element stands for U and V^H.  Where "A" meets an empty matrix, U and V^H are identities."""
        m, count = self.cg.exprs.emit(op.rows()), self.cg.exprs.emit(op.n)
        k = self.b.select(self.b.icmp_signed("<", m, count), m, count)
        ints = self.malloc(self.b.mul(self.at_least(self.b.mul(k, ll.Constant(_I64, 8)), 1),
                                      ll.Constant(_I64, self.int.width // 8)))
        if op.jobz == "N":
            dummy = self.cg.alloca_builder.alloca(_ELEMENTS[op.dtype])
            one = ll.Constant(self.int, 1)
            u, ldu, vt, ldvt = dummy, self.slot(self.int, one), dummy, self.slot(self.int, one)
        else:
            u, ldu = self.pointer(op.u, op.dtype), self.leading(op.u)
            vt, ldvt = self.pointer(op.vt, op.dtype), self.leading(op.vt)
        head = [self.slot(_I8, ll.Constant(_I8, ord(op.jobz))), self.integer(m), n, self.pointer(op.a, op.dtype),
                self.leading(op.a), self.pointer(op.s, op.dtype), u, ldu, vt, ldvt]
        self.with_workspace("dgesdd", head, [self.b.bitcast(ints, self.int.as_pointer()), info])
        self.free(ints)
        if op.jobz == "A":
            self.regions.emit(op.empty_identities())

    def with_workspace(self, symbol: str, head: list, tail: list, *, floor=None, integers: bool = False) -> None:
        """``symbol(*head, work, lwork, *tail)`` (``*head, work, lwork, iwork, liwork, *tail`` with
        ``integers``) as NumPy calls it: a workspace query (lwork = -1), the sizes it returns
        (``(fortran_int)work[0]``, at least 1 and at least ``floor``), malloc'd, the call, freed."""
        b, integer, real = self.b, self.int, ll.DoubleType()
        minus = ll.Constant(integer, -1)
        lwork, work_query = self.slot(integer, minus), self.cg.alloca_builder.alloca(real)
        extra: list = []
        if integers:
            extra = [self.cg.alloca_builder.alloca(integer), self.slot(integer, minus)]
        routine = self.declare_named(symbol, [arg.type for arg in [*head, work_query, lwork, *extra, *tail]])
        b.call(routine, [*head, work_query, lwork, *extra, *tail])
        words = self.widen(b.fptosi(b.load(work_query), integer))  # NumPy: (fortran_int)work_size_query
        words = self.at_least(words, 1)
        if floor is not None:
            words = b.select(b.icmp_signed(">", words, floor), words, floor)
        b.store(words if integer.width == 64 else b.trunc(words, integer), lwork)
        work = self.malloc(b.mul(words, ll.Constant(_I64, 8)))
        blocks = [work]
        if integers:
            ints = self.at_least(self.widen(b.load(extra[0])), 1)
            b.store(ints if integer.width == 64 else b.trunc(ints, integer), extra[1])
            blocks.append(self.malloc(b.mul(ints, ll.Constant(_I64, integer.width // 8))))
            extra = [b.bitcast(blocks[1], integer.as_pointer()), extra[1]]
        b.call(routine, [*head, b.bitcast(work, real.as_pointer()), lwork, *extra, *tail])
        for block in blocks:
            self.free(block)

    def at_least(self, value, floor: int):
        """The int64 ``value``, ``floor`` where it is less."""
        bound = ll.Constant(_I64, floor)
        return self.b.select(self.b.icmp_signed(">", value, bound), value, bound)

    def free(self, block) -> None:
        self.b.call(self.libc("free", ll.VoidType(), [_I8.as_pointer()]), [block])

    def malloc(self, size):
        return self.b.call(self.libc("malloc", _I8.as_pointer(), [_I64]), [size])

    def libc(self, name: str, result, params: list):
        module = self.cg.module
        if name in module.globals:
            return module.globals[name]
        return ll.Function(module, ll.FunctionType(result, params), name=name)

    def pointer(self, array: str, dtype: str):
        return self.b.bitcast(self.cg.arrays[array][0], _ELEMENTS[dtype].as_pointer())

    def pivots(self, op: rg.Lapack):
        """The int64 pivots buffer as the library's INTEGER array (:meth:`widen_pivots`)."""
        return self.b.bitcast(self.cg.arrays[op.pivots][0], self.int.as_pointer())

    def leading(self, array: str):
        """The leading dimension of a local holding a column-major matrix: its row stride (at
        least 1, as LAPACK requires even of an empty matrix)."""
        stride = self.cg.arrays[array][1][0]
        one = ll.Constant(_I64, 1)
        return self.integer(self.b.select(self.b.icmp_signed(">=", stride, one), stride, one))

    def at_least_one(self, n):
        value = self.cg.exprs.emit(n)
        one = ll.Constant(_I64, 1)
        return self.integer(self.b.select(self.b.icmp_signed(">=", value, one), value, one))

    def declare(self, op: rg.Lapack, params: list):
        return self.declare_named(op.symbol, params)

    def declare_named(self, symbol: str, params: list):
        name = PREFIX + symbol
        module = self.cg.module
        if name in module.globals:
            return module.globals[name]
        return ll.Function(module, ll.FunctionType(ll.VoidType(), params), name=name)

