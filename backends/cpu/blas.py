"""Matrix products (model/region.py ``Matmul``) as one BLAS ``?gemm`` call from the JIT.

BLAS is the library NumPy itself calls where it can be found, else SciPy's ``cython_blas``
(runtime/linalg_library.py decides): the Fortran routines' addresses are registered with LLVM
under the names declared here, so the optimised IR in the disk cache holds no address.  Fortran
BLAS is column-major, numbers are passed by pointer, sizes are the library's INTEGER (64-bit in
NumPy's ILP64 OpenBLAS, 32-bit in SciPy's).  Whether a product can run there is decided per call from
the operands' strides: each of ``op(A)``, ``op(B)`` must be a matrix with one unit-stride axis
(either one: the other is its leading dimension, ``op`` transposes where needed), and ``C``
one with unit stride down its columns, or along its rows (then BLAS computes ``C^T = B^T A^T``).
A matrix times its own transpose (``X.T @ X``: one operand the other transposed at the same
address) is ``?syrk`` and a copy of its triangle, as NumPy's matmul decides per call.
Anything else (a strided slice, a reversed view, sizes over 2^31), and products too small for
a library call to pay, run :meth:`Matmul.loops` instead, compiled in place.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import logging
import threading
from dataclasses import dataclass, replace
from typing import Any

from llvmlite import ir as ll
from polyfuse.backends.cpu import register_gemm as tiles
from polyfuse.backends.cpu.fortran import FortranCaller, fortran_int

from polyfuse.model import ir
from polyfuse.model import region as rg
from polyfuse.model.region import BLAS_MIN_WORK, GEMM_MIN_WORK
from polyfuse.options import (
    machine,
    narrow_gemm,
    product_twins,
    register_gemm,
    shared_packing,
    stack_row_gemm,
    tile_buffers,
)
from polyfuse.runtime import cache
from polyfuse.runtime.linalg_library import library, thread_count_functions

_I64 = ll.IntType(64)
_I8 = ll.IntType(8)
_REALS = {"float64": ("d", ll.DoubleType()), "float32": ("s", ll.FloatType())}
_KINDS = ("gemm", "gemv", "dot", "syrk")
_BYTES = {"float64": 8, "float32": 4}
_OPTIONAL = ("syr2k", "trmm", "symm")  # used where the library has it, else the loops run

PREFIX = "polyfuse.blas."

#: A product into a row-major result of at most ``NARROW_MAX_COLS`` columns, at least
#: ``NARROW_MIN_ROWS`` rows and a sum of at least ``NARROW_MIN_DEPTH`` terms runs as ``?gemm``
#: with m = its rows into a column-major buffer, copied into the result after
#: (``row_gemm_module``).  NumPy's own call for a row-major ``C = A @ B`` is column-major
#: ``C^T = B^T A^T``, m = C's columns; OpenBLAS 0.3.31 (SkylakeX kernels on this Zen 4) runs few
#: columns faster the other way round: one thread, process CPU ms, min of 15-30 interleaved,
#: load 6-8 on 2 cores (docs/performance.md, *Products with few columns*): 1024 x 1100 @ 1100 x
#: 64 3.42-3.72 against 3.11-3.21 (six address and content draws), 512 rows 1.95 / 1.65, 128
#: columns 6.38 / 5.88, 2048 x 2048 @ 2048 x 128 25.7 / 22.9, 4096 x 512 @ 512 x 32 4.41 / 4.07;
#: 256 columns even or worse (11.9 / 11.5 at depth 1100, 10.6 / 10.8 at 1024), 256 rows even,
#: 128 rows and 64-256 terms even or worse.  float64 only: ``?sgemm`` runs the other way 20-65%
#: slower (1024 x 1100 @ 1100 x 64 1.52 / 1.93 ms, 2048 x 2048 @ 2048 x 128 11.1 / 13.3).
NARROW_MAX_COLS = 128
NARROW_MIN_ROWS = 512
NARROW_MIN_DEPTH = 512


def symbol(dtype: str, kind: str) -> str:
    return PREFIX + _REALS[dtype][0] + kind


@functools.cache
def blas_pointers() -> dict[str, int]:
    """``{symbol: address}`` of the gemm, gemv and dot routines, or {} without a BLAS."""
    found = library()
    if found is None:
        return {}
    pointers = {symbol(dtype, kind): found.address(letter + kind)
                for dtype, (letter, _) in _REALS.items() for kind in _KINDS}
    if not all(pointers.values()):
        return {}
    optional = {symbol(dtype, kind): found.address(letter + kind)
                for dtype, (letter, _) in _REALS.items() for kind in _OPTIONAL}
    return pointers | {name: address for name, address in optional.items() if address}


def _int_max() -> int:
    return 2 ** (fortran_int().width - 1) - 1


def available() -> bool:
    return bool(blas_pointers())


def register_symbols(llvm) -> None:
    """Make the gemm routines known to the JIT linker (before a module using them is finalised).
    ``ROW_GEMM`` is no library routine: a kernel that calls it has its module (``row_gemm_text``)
    in its own engine (llvm.py ``load_artifact``)."""
    for name, address in blas_pointers().items():
        llvm.add_symbol(name, address)
    # (``ROW_GEMM``'s module with the tiles asks this function for their address: a pointer, no code)
    llvm.add_symbol(TILES_RESOLVER, ctypes.cast(_RESOLVER, ctypes.c_void_p).value)
    counter = blas_thread_counter()
    if counter:
        llvm.add_symbol(THREAD_COUNT, counter)


#: NumPy's OpenBLAS ``openblas_get_num_threads`` (C ``int (void)``) under this name, for
#: ``ROW_GEMM``'s test of the library's thread count (``row_gemm_module``)
THREAD_COUNT = PREFIX + "threads"


def blas_thread_counter() -> int:
    """The address of the library's thread-count getter (``THREAD_COUNT``), 0 where polyfuse
    cannot read the count (another library than NumPy's OpenBLAS)."""
    functions = thread_count_functions()
    return 0 if functions is None else ctypes.cast(functions[0], ctypes.c_void_p).value or 0  # type: ignore[arg-type]


#: ``?dgemm``'s arguments and meaning, for a product whose C is NumPy's row-major result seen
#: column-major (m = its columns, n = its rows), beta = 0: with few columns (``NARROW_*``) it
#: computes the transpose instead (m = the rows) into a column-major heap buffer, the leading
#: dimension one cache line longer than the rows (at 1024 rows of doubles the columns would start
#: 8 KiB apart, all in one set of the L1 cache, and the copy reading a row of the buffer, one
#: element per column, thrashed it: 0.20 ms of a 3.5 ms product instead of ~0.05), then copies it
#: into C; ``?dgemm`` itself otherwise, and where ``malloc`` fails.
ROW_GEMM = symbol("float64", "rowgemm")
ROW_GEMM_MODULE = "polyfuse.rowgemm"  # the name of its module (the JIT's object cache keys by it)
_ENGINES: list = []  # the engines holding the register tiles' machine code, kept for the process


#: A product smaller than this (rows x columns x terms) keeps ``?dgemm`` in ``ROW_GEMM``: OpenBLAS's
#: small-matrix kernels won below it (64^3: 0.011 ms against the register tiles' 0.014; 96^3
#: 0.033 / 0.036; 128 x 64 x 128: 0.047 / 0.042)
TILES_MIN_WORK = 1 << 20


@functools.cache
def row_gemm_text(with_tiles: bool) -> str:
    """``ROW_GEMM``'s module, printed, for the library's INTEGER (``with_tiles``: products that
    fit the register tiles run there first, ``row_gemm_tiles``, while the library is on one
    thread where polyfuse can read its count)."""
    return str(row_gemm_module(fortran_int(), with_tiles, counted=with_tiles and bool(blas_thread_counter())))


def row_gemm_tiles() -> bool:
    """Does ``ROW_GEMM`` try the register tiles: ``POLYFUSE_REGISTER_GEMM`` on an AVX-512 host."""
    return register_gemm() and tiles.host_has_lanes()


#: A product of at least this many multiply-adds through ``ROW_GEMM`` takes the tiles only while
#: the library is on one thread (``row_gemm_module``'s ``counted``); a smaller one takes them
#: whatever the library's count: the tiles run it in about ``parallel.MIN_PARALLEL_SECONDS``
#: (0.2 ms), the runtime's bar for waking threads, or less (one thread, thread CPU time, min of
#: 15, ``taskset -c 1``, load 8: 200 x 200 @ 200 x 210, 8.4M, 0.23 ms, 36 G multiply-adds/s)
THREADS_MIN_WORK = 1 << 23


#: ``ROW_GEMM`` asks this function for the register tiles' address on the first product that
#: takes them (then keeps it): their machine code (LLVM's code generator, ~80 ms of CPU) is made only
#: in the processes that use it, not in every one that registers BLAS
TILES_RESOLVER = PREFIX + "dregtiles.resolve"
_RESOLVING = threading.Lock()


@functools.cache
def tiles_address() -> int:
    """``REG_GEMM`` compiled for the host (its engine kept for the process), its machine code
    kept in the disk cache (``tiles_cache_key``): a process whose first product takes the tiles
    loads it there instead of building and generating it again (~140 ms of CPU)."""
    key = tiles_cache_key() if cache.enabled() else None
    known = cache.load(key) if key is not None else None
    objects = None if key is None else (known if isinstance(known, bytes) else None,
                                        lambda data: cache.store(key, data))
    return tiles.compile_tiles(machine().l2, _ENGINES, l3_bytes=machine().l3, objects=objects)


def tiles_cache_key() -> str:
    """The disk cache's key of the tiles' machine code: polyfuse's code and tools (``versions``),
    the host CPU (``cpu_key``), the caches the blocks are sized to and the knobs compiled in."""
    text = (f"format={cache.FORMAT} register tiles {tiles.MODULE}\n{cache.versions()}\n{cache.cpu_key()}\n"
            f"l2={machine().l2} l3={machine().l3} packed={tiles.PACKED} shared={shared_packing()} "
            f"buffers={tile_buffers()}")
    return hashlib.sha256(text.encode()).hexdigest()


def _resolve_tiles() -> int:
    """``tiles_address()``, or 0 (``ROW_GEMM`` then calls ``?dgemm``, and asks again next time:
    answered at once) where it cannot be made."""
    with _RESOLVING:
        if _FAILED:
            return 0
        try:
            return tiles_address()
        except Exception:  # noqa: BLE001 - the product still runs, on BLAS
            _FAILED.append(True)
            logging.getLogger("polyfuse").exception("the register tiles could not be compiled")
            return 0


_FAILED: list[bool] = []


_RESOLVER = ctypes.CFUNCTYPE(ctypes.c_int64)(_resolve_tiles)


def row_gemm_module(integer: ll.IntType, with_tiles: bool = False, counted: bool = False) -> ll.Module:
    """The module defining ``ROW_GEMM`` for the library's INTEGER ``integer`` (``with_tiles``:
    products that fit ``tiles``, backends/cpu/register_gemm.py, run there; ``counted``: from
    ``THREADS_MIN_WORK`` multiply-adds only while the library's thread count, read at each such
    call through ``THREAD_COUNT``, is 1).

    Why ``counted``: the tiles run on the calling thread alone.  A product that reaches
    ``ROW_GEMM`` with the library on several threads is one that polyfuse meant for them (a
    product of all rows in the "library" mode of ``parallel.run_blas_site``, or outside any
    measured site), and on one thread it ran at one core's speed: 3mm at bench sizes on 2 cores
    5.1-5.6 ms in that mode, its one-thread time, against NumPy's 3.2 for the same three
    ``?dgemm`` calls (docs/performance.md, *Products on 2 threads*).  Polyfuse's own one-BLAS-thread
    runs (the "serial" and "rows" modes, ``linalg_library.blas_on_one_thread``) and a process
    that limits the library to one thread (threadpoolctl) still take the tiles."""
    module = ll.Module(name="polyfuse.rowgemm")
    real, i8p, intp = ll.DoubleType(), _I8.as_pointer(), integer.as_pointer()
    ptr = real.as_pointer()
    kind = ll.FunctionType(ll.VoidType(), [i8p, i8p, intp, intp, intp, ptr, ptr, intp, ptr, intp, ptr, ptr, intp])
    gemm = ll.Function(module, kind, name=symbol("float64", "gemm"))
    malloc = ll.Function(module, ll.FunctionType(i8p, [_I64]), name="malloc")
    free = ll.Function(module, ll.FunctionType(ll.VoidType(), [i8p]), name="free")
    function = ll.Function(module, kind, name=ROW_GEMM)
    ta, tb, m_at, n_at, k_at, alpha, a, lda, b_, ldb, beta, c, ldc_at = function.args
    b = ll.IRBuilder(function.append_basic_block("entry"))
    m, n, k, ldc = (b.sext(b.load(x), _I64) if integer.width < 64 else b.load(x) for x in (m_at, n_at, k_at, ldc_at))

    def within(x, low, high):
        return b.and_(b.icmp_signed(">=", x, ll.Constant(_I64, low)), b.icmp_signed("<=", x, ll.Constant(_I64, high)))

    if with_tiles:
        _try_tiles(b, function, (m, n, k, ldc), counted)
    pad = 64 // _BYTES["float64"]
    narrow = b.and_(b.fcmp_ordered("==", b.load(beta), ll.Constant(real, 0.0)), within(m, 2, NARROW_MAX_COLS))
    narrow = b.and_(narrow, b.and_(within(n, NARROW_MIN_ROWS, 2 ** (integer.width - 1) - 1 - pad),
                                   within(k, NARROW_MIN_DEPTH, 2 ** 62)))
    ld = b.add(n, ll.Constant(_I64, pad))
    trying, plain, work = (function.append_basic_block(name) for name in ("try", "plain", "work"))
    b.cbranch(narrow, trying, plain)
    b.position_at_end(trying)
    buffer = b.call(malloc, [b.mul(b.mul(ld, m), ll.Constant(_I64, _BYTES["float64"]))])
    b.cbranch(b.icmp_unsigned("==", buffer, ll.Constant(i8p, None)), plain, work)
    b.position_at_end(plain)
    b.call(gemm, list(function.args))
    b.ret_void()
    b.position_at_end(work)
    flipped = []
    for t in (tb, ta):  # op(X)^T = op'(X), op' the other of 'N' and 'T'
        slot = b.alloca(_I8)
        b.store(b.select(b.icmp_unsigned("==", b.load(t), ll.Constant(_I8, ord("N"))), ll.Constant(_I8, ord("T")),
                         ll.Constant(_I8, ord("N"))), slot)
        flipped.append(slot)
    ld_at = b.alloca(integer)
    b.store(b.trunc(ld, integer) if integer.width < 64 else ld, ld_at)
    source = b.bitcast(buffer, ptr)
    b.call(gemm, [*flipped, n_at, m_at, k_at, alpha, b_, ldb, a, lda, beta, source, ld_at])
    with _counted(b, n, "row") as r:  # C[col, r] (column-major, ldc) = buffer[r, col]
        column = b.gep(c, [b.mul(r, ldc)])
        with _counted(b, m, "col") as col:
            b.store(b.load(b.gep(source, [b.add(b.mul(col, ld), r)])), b.gep(column, [col]))
    b.call(free, [buffer])
    b.ret_void()
    return module


def _try_tiles(b: ll.IRBuilder, function: ll.Function, sizes: tuple, counted: bool = False) -> None:
    """``ROW_GEMM``'s first test: a product with beta = 0, alpha != 0, both operands row-major
    (``?dgemm``'s 'N', 'N' on ``C^T = B^T A^T``), 1 .. ``tiles.MAX_COLS`` columns and at least
    ``TILES_MIN_WORK`` multiply-adds (``counted``: and under ``THREADS_MIN_WORK``, or the library
    on one thread) runs the register tiles and returns (their address asked of ``TILES_RESOLVER``
    on first use, kept in a global); anything else, or no address, goes on to the next test, where
    ``b`` is left."""
    module = function.module
    ta, tb, _, _, _, alpha, a, lda, b_, ldb, beta, c, _ = function.args
    m, n, k, ldc = sizes
    real = ll.DoubleType()

    def wide(at):
        value = b.load(at)
        return b.sext(value, _I64) if value.type.width < 64 else value

    def plain(flag):
        return b.icmp_unsigned("==", b.load(flag), ll.Constant(_I8, ord("N")))

    ok = b.and_(b.fcmp_ordered("==", b.load(beta), ll.Constant(real, 0.0)),
                b.fcmp_unordered("!=", b.load(alpha), ll.Constant(real, 0.0)))
    ok = b.and_(ok, b.and_(plain(ta), plain(tb)))
    ok = b.and_(ok, b.and_(b.icmp_signed(">=", m, ll.Constant(_I64, 1)),
                           b.icmp_signed("<=", m, ll.Constant(_I64, tiles.MAX_COLS))))
    ok = b.and_(ok, b.and_(b.icmp_signed(">=", n, ll.Constant(_I64, 1)), b.icmp_signed(">=", k, ll.Constant(_I64, 1))))
    ok = b.and_(ok, b.icmp_signed(">=", b.mul(b.mul(m, n), k), ll.Constant(_I64, TILES_MIN_WORK)))
    ask, known, run, rest = (function.append_basic_block(name) for name in ("tiles_ask", "tiles_known", "tiles",
                                                                            "not_tiles"))
    slot = ll.GlobalVariable(module, _I64, name=tiles.REG_GEMM + ".address")
    slot.linkage, slot.initializer = "internal", ll.Constant(_I64, 0)
    resolver = ll.Function(module, ll.FunctionType(_I64, []), name=TILES_RESOLVER)
    if counted:  # (read after the cheap tests: a product that fails them never asks the library)
        sized, asking = (function.append_basic_block(name) for name in ("tiles_size", "tiles_threads"))
        b.cbranch(ok, sized, rest)
        b.position_at_end(sized)
        small = b.icmp_signed("<", b.mul(b.mul(m, n), k), ll.Constant(_I64, THREADS_MIN_WORK))
        b.cbranch(small, known, asking)
        b.position_at_end(asking)
        count = b.call(ll.Function(module, ll.FunctionType(ll.IntType(32), []), name=THREAD_COUNT), [])
        b.cbranch(b.icmp_signed("<=", count, ll.Constant(ll.IntType(32), 1)), known, rest)
    else:
        b.cbranch(ok, known, rest)
    b.position_at_end(known)
    address = b.load_atomic(slot, "monotonic", 8)
    before = b.block
    b.cbranch(b.icmp_unsigned("==", address, ll.Constant(_I64, 0)), ask, run)
    b.position_at_end(ask)
    asked = b.call(resolver, [])
    b.store_atomic(asked, slot, "monotonic", 8)
    b.cbranch(b.icmp_unsigned("==", asked, ll.Constant(_I64, 0)), rest, run)
    b.position_at_end(run)
    found = b.phi(_I64)
    found.add_incoming(address, before)
    found.add_incoming(asked, ask)
    routine = b.inttoptr(found, tiles.KIND.as_pointer())
    b.call(routine, [n, m, k, b.load(alpha), b_, wide(ldb), a, wide(lda), c, ldc])
    b.ret_void()
    b.position_at_end(rest)


class MatmulEmitter(FortranCaller):
    """``emit(op)``: the per-call layout test, the BLAS call where it passes, the loops elsewhere."""

    chunk_window: tuple | None = None  # (first, last) row while a chunk's product is emitted
    # where the chunk's window is every row (the serial run), while one copy serves both: an i1
    # (``POLYFUSE_PRODUCT_TWINS``)
    whole_window: Any = None
    whole_stack = False  # while a stack's one product of all its rows is emitted (``stack``)

    def emit(self, op: rg.Matmul) -> None:
        if not available():
            self.regions.emit(op.loops())
            return
        window = getattr(self.cg, "row_window", None)
        if op.batch:  # (the stack's own products, one by one, are not a chunk's rows)
            self.cg.row_window = None
            try:
                self.stack(op, window)
            finally:
                self.cg.row_window = window
            return
        exprs = self.cg.exprs
        rows, cols, depth = (exprs.emit(e) for e in (op.rows, op.cols, op.depth))
        out, a, b = (self.operand(x, op.variables) for x in (op.out, op.a, op.b))
        if window is None:
            self.product(op, (rows, cols, depth), (out, a, b))
            return
        first, last = window
        partial = self.b.or_(self.b.icmp_signed("!=", first, ll.Constant(_I64, 0)),
                             self.b.icmp_signed("!=", last, rows))
        if not (op.triangle or product_twins()):
            # the serial run is the window of every row: one copy of the layout tests, the calls
            # and the loops (NumPy's A.T @ A test only there, see ``product``)
            self.whole_window = self.b.not_(partial)
            self.rows_of(op, window, (cols, depth), (out, a, b))
            self.whole_window = None
            return
        with self.b.if_else(partial) as (then, otherwise):
            with then:
                self.rows_of(op, window, (cols, depth), (out, a, b))
            with otherwise:  # the serial run: every row, on the threads the library has at the time
                self.product(op, (rows, cols, depth), (out, a, b))

    def rows_of(self, op: rg.Matmul, window: tuple, sizes: tuple, operands: tuple) -> None:
        """Rows ``first <= r < last`` of the product, not all of them (a chunk of a phase that
        phases.row_chunked cut by rows): BLAS on those rows, or the loops over them.  The team's
        caller has put the library on one thread for the whole team run
        (``linalg_library.blas_on_one_thread``, backends/cpu/parallel.py): each chunk's call runs
        on its own thread."""
        if op.triangle:
            self.triangle_rows(op, window, sizes, operands)
            return
        first, last = window
        out, a, b = operands
        shifted = [replace(x, base=self.b.gep(x.base, [self.b.mul(first, x.stride(op.variables[0]))]))
                   for x in (out, a)]
        self.chunk_window = (first, last)
        self.product(op, (self.b.sub(last, first), *sizes), (shifted[0], shifted[1], b))
        self.chunk_window = None

    def triangle_rows(self, op: rg.Matmul, window: tuple, sizes: tuple, operands: tuple) -> None:
        """Rows ``first <= r < last`` of ``op``'s triangle of an array times itself: the block on
        the diagonal (rows and columns ``first .. last``) on ``?syrk``, the rest of those rows
        (columns from ``last`` for the upper triangle, before ``first`` for the lower) on
        ``?gemm``; the triangle's loops over those rows where a layout test fails, the work is
        under ``BLAS_MIN_WORK`` or no buffer can be had.  A pair (``op.pair``, syr2k's ``a[r] . b[c]
        + b[r] . a[c]``) runs its block on ``?syr2k`` and the rest as two ``?gemm``, the second
        adding to the first.  A strict triangle (``op.offset``, see
        :meth:`strict_way`) is the rows of the triangle of the product one row and column larger,
        its block's diagonal (which the loops never write) saved in a heap buffer and put back."""
        first, last = window
        cols, depth = sizes
        out, a, b = operands
        r, c, s = op.variables
        bld = self.b
        one = ll.Constant(_I64, 1)
        strides = (o_r, o_c, a_r, a_s, b_s, b_c) = (out.stride(r), out.stride(c), a.stride(r), a.stride(s),
                                                   b.stride(s), b.stride(c))
        n = cols
        if op.offset > 0:  # out[r, c + 1] += a[r] . a[c + 1]: out and b one column back
            n, out, b = bld.add(cols, one), replace(out, base=bld.gep(out.base, [bld.neg(o_c)])), \
                replace(b, base=bld.gep(b.base, [bld.neg(b_c)]))
        elif op.offset < 0:  # out[r + 1, c] += a[r + 1] . a[c]: out and a one row back, rows one later
            n, out, a = bld.add(cols, one), replace(out, base=bld.gep(out.base, [bld.neg(o_r)])), \
                replace(a, base=bld.gep(a.base, [bld.neg(a_r)]))
            first, last = bld.add(first, one), bld.add(last, one)

        def at(x: _Operand, offset) -> _Operand:
            return replace(x, base=bld.gep(x.base, [offset]))

        k = bld.sub(last, first)
        start, width = (last, bld.sub(n, last)) if op.triangle == "upper" else (ll.Constant(_I64, 0), first)
        block_a, block_b = at(a, bld.mul(first, a_r)), at(b, bld.mul(first, b_c))
        block_out = at(out, bld.add(bld.mul(first, o_r), bld.mul(first, o_c)))
        rest_out = at(out, bld.add(bld.mul(first, o_r), bld.mul(start, o_c)))
        shape, rest_a, rest_b = (k, width, depth), at(a, bld.mul(start, a_r)), at(b, bld.mul(start, b_c))
        blocks: tuple = (block_out.base, block_a.base)
        rests = [self.rest_forms(shape, (o_r, o_c), (a_r, a_s), (b_s, b_c), (block_a, rest_b))]
        if op.pair:  # the block on ?syr2k, the rest a[r] . b[c] + b[r] . a[c]: two ?gemm
            block, blocks = self.syr2k_form(k, depth, strides), (*blocks, block_b.base)
            rests.append(self.rest_forms(shape, (o_r, o_c), (b_c, b_s), (a_s, a_r), (block_b, rest_a)))
        else:
            block = self.syrk_form(k, k, depth, block_a, block_b, strides)
        work = bld.mul(bld.mul(k, bld.add(k, width)), depth)
        ok = bld.icmp_signed(">=", work, ll.Constant(_I64, BLAS_MIN_WORK))
        for extent in (k, depth, width):
            ok = bld.and_(ok, bld.and_(bld.icmp_signed(">=", extent, ll.Constant(_I64, 0 if extent is width else 1)),
                                       bld.icmp_signed("<=", extent, ll.Constant(_I64, _int_max()))))
        ok = bld.and_(ok, self.all_ok(block[1:]))
        for direct, swapped, _ in rests:
            ok = bld.and_(ok, bld.or_(self.all_ok(direct[1:]), self.all_ok(swapped[1:])))
        if op.alpha is not None:
            ok = bld.and_(ok, self.plain_scale(op))
        saved = ll.Constant(_I8.as_pointer(), None)
        if op.offset:  # a buffer for the block's diagonal: none, the loops
            size = bld.mul(bld.select(ok, k, one), ll.Constant(_I64, _BYTES[op.dtype]))
            saved = bld.call(self.libc("malloc", _I8.as_pointer(), [_I64]), [size])
            ok = bld.and_(ok, bld.icmp_unsigned("!=", saved, ll.Constant(_I8.as_pointer(), None)))
        self.chunk_window = window
        with bld.if_else(ok) as (then, otherwise):
            with then:
                if op.pair:
                    self.syr2k(op, block, blocks)
                else:
                    self.block_product(op, block, blocks, saved)
                with bld.if_then(bld.icmp_signed(">", width, ll.Constant(_I64, 0))):
                    for second, (direct, swapped, (row_part, col_part)) in enumerate(rests):
                        # (a pair's second product adds to the first's: beta = 1)
                        with bld.if_else(self.all_ok(direct[1:])) as (plain, transposed):
                            with plain:
                                self.gemm(op, direct, (rest_out.base, row_part.base, col_part.base), adds=bool(second))
                            with transposed:
                                self.gemm(op, swapped, (rest_out.base, col_part.base, row_part.base), adds=bool(second))
            with otherwise:
                self.regions.emit(self.fallback_loops(op))
        if op.offset:
            self.b.call(self.libc("free", ll.VoidType(), [_I8.as_pointer()]), [saved])
        self.chunk_window = None

    def rest_forms(self, sizes: tuple, out_strides: tuple, row_strides: tuple, col_strides: tuple,
                   parts: tuple) -> tuple:
        """(direct, swapped, parts): the ``?gemm`` forms of ``out[r, c] += x[r, s] * y[c, s]`` for a
        chunk's rows off its diagonal block, ``x`` (element (r, s) at ``r * row_strides[0] + s *
        row_strides[1]``) the block's rows, ``y`` (element (s, c) at ``s * col_strides[0] + c *
        col_strides[1]``) the rest's; swapped: ``out^T = y x^T`` for a row-major ``out``."""
        k, width, depth = sizes
        o_r, o_c = out_strides
        (x_r, x_s), (y_s, y_c) = row_strides, col_strides
        direct = [(k, width, depth), self.plain(k, o_r, width, o_c), self.matrix(k, x_r, depth, x_s),
                  self.matrix(depth, y_s, width, y_c)]
        swapped = [(width, k, depth), self.plain(width, o_c, k, o_r), self.matrix(width, y_c, depth, y_s),
                   self.matrix(depth, x_s, k, x_r)]
        return direct, swapped, parts

    def block_product(self, op: rg.Matmul, form: list, pointers: tuple, saved) -> None:
        """:meth:`triangle` on a block of ``triangle_rows``; for a strict triangle, the block's
        diagonal kept in ``saved`` around it."""
        if not op.offset:
            self.triangle(op, form, pointers)
            return
        real = _REALS[op.dtype][1]
        (n, _), (_, _, ldc), _, _ = form
        c_ptr = self.b.bitcast(pointers[0], real.as_pointer())
        step = self.b.add(ldc, ll.Constant(_I64, 1))  # one of C's strides is 1 (n > 1), the other ldc
        diagonal = self.b.bitcast(saved, real.as_pointer())
        with self.counted(ll.Constant(_I64, 0), n) as t:
            self.b.store(self.b.load(self.b.gep(c_ptr, [self.b.mul(t, step)])), self.b.gep(diagonal, [t]))
        self.triangle(op, form, pointers)
        with self.counted(ll.Constant(_I64, 0), n) as t:
            self.b.store(self.b.load(self.b.gep(diagonal, [t])), self.b.gep(c_ptr, [self.b.mul(t, step)]))

    def stack(self, op: rg.Matmul, window: tuple | None = None) -> None:
        """A stack of products (``X3 @ W``): one product of all its rows (columns) where the
        batch strides of the stacked operand and of ``out`` chain onto its row (column) stride,
        as in C-ordered arrays; else a loop over the batch, one product per matrix.  ``window``
        (``first``, ``last``): a chunk of the stack cut by its outermost batch axis
        (phases.stack_cut), the products at ``first <= batch[0] < last`` only."""
        r, c, s = op.variables
        names = tuple(var for var, _ in op.batch)
        out, a, b = (self.operand(x, op.variables + names) for x in (op.out, op.a, op.b))
        rows, cols, depth, *extents = (self.cg.exprs.emit(e) for e in (op.rows, op.cols, op.depth,
                                                                       *(extent for _, extent in op.batch)))
        if window is not None:  # the outermost batch axis from ``first``: every operand moved there
            first, last = window
            out, a, b = (replace(x, base=self.b.gep(x.base, [self.b.mul(first, x.stride(names[0]))]))
                         for x in (out, a, b))
            extents[0] = self.b.sub(last, first)
        on_rows = any(ir.linear_coefficient(e, var) for e in op.a.index for var in names)
        stacked, other, axis = (a, b, r) if on_rows else (b, a, c)
        count = rows if on_rows else cols
        # a stack of one-element rows (columns) would collapse into what the static shape takes for ?dot
        ok = ll.Constant(ll.IntType(1), int(not _is_one(op.rows if on_rows else op.cols)))
        one = ll.Constant(_I64, 1)
        span_x, span_o = self.b.mul(stacked.stride(axis), count), self.b.mul(out.stride(axis), count)
        for var, extent in zip(reversed(names), reversed(extents)):  # innermost first
            single = self.b.icmp_signed("<=", extent, one)
            chained = self.b.and_(self.b.icmp_signed("==", stacked.stride(var), span_x),
                                  self.b.icmp_signed("==", out.stride(var), span_o))
            chained = self.b.and_(chained, self.b.icmp_signed("==", other.stride(var), ll.Constant(_I64, 0)))
            ok = self.b.and_(ok, self.b.or_(single, chained))
            span_x = self.b.select(single, span_x, self.b.mul(stacked.stride(var), extent))
            span_o = self.b.select(single, span_o, self.b.mul(out.stride(var), extent))
            count = self.b.mul(count, extent)
        sizes = (count, cols, depth) if on_rows else (rows, count, depth)
        with self.b.if_else(ok) as (then, otherwise):
            with then:
                # one call for the whole stack (or a chunk's part of it), on the library's threads
                # or, in a chunk, on one BLAS thread; through ROW_GEMM (``POLYFUSE_STACK_ROW_GEMM``),
                # whose register tiles take it only with the library on one thread (they run on
                # the calling thread alone: doitgen on 2 threads, 5.2 ms through OpenBLAS's
                # threads, 7.2-8.6 through the tiles before ROW_GEMM read the library's count)
                self.whole_stack, saved = True, self.whole_stack
                try:
                    self.product(op, sizes, (out, a, b))
                finally:
                    self.whole_stack = saved
            with otherwise:
                self.regions.emit(self.stack_loops(op, window))

    def stack_loops(self, op: rg.Matmul, window: tuple | None) -> tuple[rg.Op, ...]:
        """A loop over the stack, one product per matrix: over ``window`` of the outermost batch
        axis where there is one."""
        nest: tuple[rg.Op, ...] = (replace(op, batch=()),)
        for k, (var, extent) in reversed(list(enumerate(op.batch))):
            start: ir.Expr = ir.int_const(0)
            if k == 0 and window is not None:
                first, last = (f"{var}.window{j}" for j in range(2))
                self.cg.values[first], self.cg.values[last] = window
                start, extent = ir.Var(first, ir.INT), ir.Var(last, ir.INT)
            nest = (rg.ForRange(var, start, extent, 1, nest),)
        return nest

    def product(self, op: rg.Matmul, sizes: tuple, operands: tuple) -> None:
        """The BLAS call for ``rows x depth @ depth x cols`` at the operands' addresses and
        strides where the layout test passes, else ``op``'s loops."""
        rows, cols, depth = sizes
        out, a, b = operands
        r, c, s = op.variables
        o_r, o_c = out.stride(r), out.stride(c)
        a_r, a_s = a.stride(r), a.stride(s)
        b_s, b_c = b.stride(s), b.stride(c)
        work = self.b.mul(self.b.mul(rows, cols), depth)
        # NumPy calls ?dot at every length: so do we (a loop product of one element accumulates: ?gemv)
        dot = _is_one(op.rows) and _is_one(op.cols) and not op.accumulate and op.alpha is None  # ?dot: no scale
        plain = not (dot or op.triangular or op.in_place or op.pair or op.triangle or _is_one(op.rows)
                     or _is_one(op.cols))  # a matrix times a matrix: ?gemm (or ?syrk for A.T @ A)
        # NumPy's ``A @ B`` (NumPy itself calls ?gemm at every size) from GEMM_MIN_WORK; a product
        # written as loops keeps the loops' bits (each sum in index order) below BLAS_MIN_WORK
        least = GEMM_MIN_WORK if plain and not op.accumulate else BLAS_MIN_WORK
        worth = ll.Constant(ll.IntType(1), 1) if dot else self.b.icmp_signed(">=", work, ll.Constant(_I64, least))
        for extent in (rows, cols, depth):
            inside = self.b.and_(self.b.icmp_signed(">=", extent, ll.Constant(_I64, 1)),
                                 self.b.icmp_signed("<=", extent, ll.Constant(_I64, _int_max())))
            worth = self.b.and_(worth, inside)
        if op.alpha is not None:
            worth = self.b.and_(worth, self.plain_scale(op))
        if op.check is not None:  # (else the loops: the term is NumPy's order of a scaled operand)
            worth = self.b.and_(worth, self.cg.exprs.emit(op.check))
        ways: list[Any]
        if op.triangular and op.mirror is not None:  # out += alpha * G @ (T + T.T): ?symm on T's copy
            self.symmetric(op, worth, sizes, operands)
            return
        if op.triangular:  # out += alpha * T @ G (or G @ T): ?trmm on copies, where the library has it
            has = symbol(op.dtype, "trmm") in blas_pointers()
            yes = (ll.Constant(ll.IntType(1), 1), None, None)
            ways = [([(rows, cols, depth), yes], (out, a, b), "triangular")] if has else []
        elif op.in_place:  # out = (I + T) @ out or out @ (I + T): ?trmm where the library has it, else the loops
            has = symbol(op.dtype, "trmm") in blas_pointers()
            if has:  # (OpenBLAS's ?trmm multiplies zeros of T's other triangle too: all_finite)
                real = _REALS[op.dtype][1]
                worth = self.b.and_(worth, self.all_finite(out, r, c, (rows, cols), real))
            tri = a if op.in_place == "left" else b
            ways = [(self.trmm_form(op, (rows, cols), (o_r, o_c), (a_r, a_s) if op.in_place == "left" else (b_s, b_c)),
                     (out.base, tri.base), "trmm")] if has else []
        elif op.pair:  # one triangle of a @ b.T + b @ a.T: ?syr2k where the library has it, else the loops
            has = symbol(op.dtype, "syr2k") in blas_pointers()
            ways = [(self.syr2k_form(rows, depth, (o_r, o_c, a_r, a_s, b_s, b_c)),
                                (out.base, a.base, b.base), "syr2k")] if has else []
        elif op.triangle:  # one triangle of a @ a.T: ?syrk, or the loops (a ?gemm would write the other)
            strides = (o_r, o_c, a_r, a_s, b_s, b_c)
            if op.offset:  # a strict triangle: of the product one row larger, its diagonal kept
                ways = [self.strict_way(op, (rows, depth), (out, a, b), strides)]
            else:
                ways = [(self.syrk_form(rows, cols, depth, a, b, strides), (out.base, a.base), "triangle")]
        elif dot:  # out[0] = sum a[s] * b[s]: two vectors
            ways = [([(depth,), self.vector(depth, a_s), self.vector(depth, b_s)], (a.base, b.base, out.base), "dot")]
        elif _is_one(op.cols):  # out[r] = sum a[r, s] * b[s]: a matrix times a vector
            ways = [(self.gemv_form(rows, a_r, depth, a_s, b_s, o_r), (a.base, b.base, out.base), "gemv")]
        elif _is_one(op.rows):  # out[c] = sum a[s] * b[s, c]: B^T times a vector
            ways = [(self.gemv_form(cols, b_c, depth, b_s, a_s, o_c), (b.base, a.base, out.base), "gemv")]
        else:  # C column-major: C = op(A) op(B); C row-major: C^T = op(B^T) op(A^T)
            direct = [(rows, cols, depth), self.plain(rows, o_r, cols, o_c), self.matrix(rows, a_r, depth, a_s),
                      self.matrix(depth, b_s, cols, b_c)]
            swapped = [(cols, rows, depth), self.plain(cols, o_c, rows, o_r), self.matrix(cols, b_c, depth, b_s),
                       self.matrix(depth, a_s, rows, a_r)]
            # (a row-major C of float64 through ROW_GEMM, which takes the narrow way for few columns)
            # (a whole stack too: ROW_GEMM's tiles only where the library runs on one thread)
            through = not self.whole_stack or stack_row_gemm()
            row_major = "rowgemm" if op.dtype == "float64" and narrow_gemm() and through else "gemm"
            ways = [(direct, (out.base, a.base, b.base), "gemm"), (swapped, (out.base, b.base, a.base), row_major)]
            if not op.accumulate and op.alpha is None and (self.chunk_window is None
                                                           or self.whole_window is not None):
                # a fresh product (beta = 0) of all rows: NumPy's A.T @ A test first (a chunk's
                # rows of A against all of B are not one: where one copy serves a chunk and the
                # serial run, the test holds on the serial run only)
                symmetric: list[Any] = [(self.syrk_form(rows, cols, depth, a, b, (o_r, o_c, a_r, a_s, b_s, b_c)),
                                         (out.base, a.base), "syrk", self.whole_window)]
                ways = symmetric + ways
        self.first_way(op, worth, ways)

    def plain_scale(self, op: rg.Matmul):
        """Is ``op``'s alpha finite and not zero?  Else its loops run: BLAS returns at once for
        alpha = 0 (``C`` as it was, where ``alpha * a * b`` of an inf or a NaN is NaN in the loops)
        and scales the sum, not each term, by an inf (each term with a zero factor is NaN in the
        loops, the sum times inf is inf where other terms are not zero)."""
        real = _REALS[op.dtype][1]
        alpha = self.cg.exprs.emit(op.alpha)
        finite = self.b.fcmp_ordered("==", self.b.fsub(alpha, alpha), ll.Constant(real, 0.0))
        return self.b.and_(finite, self.b.fcmp_ordered("!=", alpha, ll.Constant(real, 0.0)))

    def all_finite(self, x: _Operand, row: str, col: str, extents: tuple, real):
        """Are the ``extents[0] x extents[1]`` elements of ``x`` at ``row``, ``col`` all finite?
        The copies of a strict triangle that ``?trmm`` and ``?symm`` multiply hold zeros where the
        loops read nothing, and ``0 * inf`` is NaN: so those calls take an operand with an inf or
        a NaN nowhere, and the loops run where it has one.  One pass over the operand, along its
        shorter stride inside (symm at 1000 x 1000: about 1 ms of its 100)."""
        bld = self.b
        bad = self.slot(ll.IntType(1), ll.Constant(ll.IntType(1), 0))
        zero = ll.Constant(real, 0.0)

        def scan(outer: int) -> None:
            inner = 1 - outer
            with self.counted(ll.Constant(_I64, 0), extents[outer]) as u:
                with self.counted(ll.Constant(_I64, 0), extents[inner]) as v:
                    at = self.element(x, row, col, real)(*((v, u) if outer else (u, v)))
                    nonfinite = bld.fcmp_unordered("!=", bld.fmul(bld.load(at), zero), zero)
                    bld.store(bld.or_(bld.load(bad), nonfinite), bad)

        def magnitude(v):
            return bld.select(bld.icmp_signed("<", v, ll.Constant(_I64, 0)), bld.neg(v), v)

        rows_inside = bld.icmp_signed("<=", magnitude(x.stride(row)), magnitude(x.stride(col)))
        with bld.if_else(rows_inside) as (by_rows, by_cols):
            with by_rows:
                scan(1)
            with by_cols:
                scan(0)
        return bld.not_(bld.load(bad))

    def first_way(self, op: rg.Matmul, worth, ways: list) -> None:
        """The first of ``ways`` whose layout test passes, else the loops."""
        if not ways:
            self.regions.emit(self.fallback_loops(op))
            return
        (form, pointers, kind, *only), rest = ways[0], ways[1:]
        ok = self.b.and_(worth, self.all_ok(form[1:]))
        if only and only[0] is not None:  # (a way for the serial run only: ``whole_window``)
            ok = self.b.and_(ok, only[0])
        with self.b.if_else(ok) as (then, otherwise):
            with then:
                {"gemm": self.gemm, "rowgemm": self.row_gemm, "gemv": self.gemv, "dot": self.dot, "syrk": self.syrk,
                 "triangle": self.triangle, "syr2k": self.syr2k, "strict": self.strict,
                 "trmm": self.trmm, "triangular": self.triangular_product}[kind](op, form, pointers)
            with otherwise:
                self.first_way(op, worth, rest)

    def symmetric(self, op: rg.Matmul, worth, sizes: tuple, operands: tuple) -> None:
        """``out += alpha * G @ (T + T.T)`` (or ``(T + T.T) @ G``; ``op.mirror``): T's strict
        triangle copied into a column-major buffer with a zero diagonal (only the triangle
        ``op.factor`` names: ``?symm`` reads no other), then ``?symm(side, uplo, m, n, alpha, S,
        lds, G, ldg, 1, out, ldout)`` on ``out`` as it is, column by column (``out = G @ S``:
        side 'R'; ``S @ G``: 'L') or row by row (the transposes: the other side).  ``?symm`` has
        no transposed general operand: G stored otherwise than ``out`` is copied into the
        buffer too, in ``out``'s order.  Elsewhere (``out`` not a BLAS matrix, too little work,
        no buffer, no ``?symm``) the loops of both products, as for any product."""
        rows, cols, depth = sizes
        out, a, b = operands
        r, c, s = op.variables
        bld = self.b
        general, tri = (a, b) if op.triangular == "b" else (b, a)
        g_rows, g_cols = (r, s) if op.triangular == "b" else (s, c)
        g_extents = (rows, depth) if op.triangular == "b" else (depth, cols)
        by_cols = self.plain(rows, out.stride(r), cols, out.stride(c))  # (ok, -, ld)
        by_rows = self.plain(cols, out.stride(c), rows, out.stride(r))
        g_by_cols = self.plain(g_extents[0], general.stride(g_rows), g_extents[1], general.stride(g_cols))
        g_by_rows = self.plain(g_extents[1], general.stride(g_cols), g_extents[0], general.stride(g_rows))
        direct = by_cols[0]
        in_place = bld.select(direct, g_by_cols[0], g_by_rows[0])
        ok = bld.and_(worth, bld.or_(by_cols[0], by_rows[0]))
        if symbol(op.dtype, "symm") not in blas_pointers():
            ok = ll.Constant(ll.IntType(1), 0)
        done = self.slot(ll.IntType(1), ll.Constant(ll.IntType(1), 0))
        finite = self.slot(ll.IntType(1), ll.Constant(ll.IntType(1), 0))
        with bld.if_then(ok):
            real = _REALS[op.dtype][1]
            bld.store(self.all_finite(general, g_rows, g_cols, g_extents, real), finite)
        with bld.if_then(bld.load(finite)):
            order = self.cg.exprs.emit(op.rows if op.triangular == "a" else op.cols)  # T is order x order
            g_size = bld.select(in_place, ll.Constant(_I64, 0), bld.mul(g_extents[0], g_extents[1]))
            size = bld.mul(bld.add(bld.mul(order, order), g_size), ll.Constant(_I64, _BYTES[op.dtype]))
            tbuf = bld.call(self.libc("malloc", _I8.as_pointer(), [_I64]), [size])
            with bld.if_then(bld.icmp_unsigned("!=", tbuf, ll.Constant(_I8.as_pointer(), None))):
                real = _REALS[op.dtype][1]
                t_ptr = bld.bitcast(tbuf, real.as_pointer())
                copy = bld.gep(t_ptr, [bld.mul(order, order)])
                with bld.if_then(bld.not_(in_place)):  # G into the buffer after T, in out's order
                    self.copy_general(direct, g_extents, self.element(general, g_rows, g_cols, real), copy)
                g_ptr = bld.select(in_place, bld.bitcast(general.base, real.as_pointer()), copy)
                lead = bld.select(direct, g_extents[0], g_extents[1])
                lead = bld.select(bld.icmp_signed(">", lead, ll.Constant(_I64, 1)), lead, ll.Constant(_I64, 1))
                g_ld = bld.select(in_place, bld.select(direct, g_by_cols[2], g_by_rows[2]), lead)
                self.copy_triangle(op.factor, order, self.element(tri, *((r, s) if op.triangular == "a" else (s, c)),
                                                                  real), t_ptr, real)
                self.symm_call(op, (direct, order, t_ptr), (rows, cols),
                               (g_ptr, g_ld), (out.base, bld.select(direct, by_cols[2], by_rows[2])))
                bld.call(self.libc("free", ll.VoidType(), [_I8.as_pointer()]), [tbuf])
                bld.store(ll.Constant(ll.IntType(1), 1), done)
        with bld.if_then(bld.not_(bld.load(done))):
            self.regions.emit(self.fallback_loops(op))

    def copy_general(self, by_cols, extents: tuple, source, target) -> None:
        """``target`` holds the ``extents[0] x extents[1]`` matrix ``source(i, j)`` column by
        column (``by_cols``) or row by row, without gaps."""
        bld = self.b
        zero = ll.Constant(_I64, 0)
        with self.counted(zero, extents[0]) as i:
            with self.counted(zero, extents[1]) as j:
                at = bld.select(by_cols, bld.add(i, bld.mul(j, extents[0])), bld.add(j, bld.mul(i, extents[1])))
                bld.store(bld.load(source(i, j)), bld.gep(target, [at]))

    def symm_call(self, op: rg.Matmul, buffer: tuple, extents: tuple, general: tuple, out: tuple) -> None:
        """:meth:`symmetric`'s ``?symm`` call: ``direct`` (``out`` column by column) or on the
        transposes, the symmetric matrix at ``t_ptr`` (``order`` x ``order``)."""
        direct, order, t_ptr = buffer
        rows, cols = extents
        (g_ptr, g_ld), (out_ptr, out_ld) = general, out
        real = _REALS[op.dtype][1]
        bld = self.b
        letter = functools.partial(ll.Constant, _I8)
        left = bld.icmp_unsigned("!=", direct, ll.Constant(ll.IntType(1), int(op.triangular == "b")))
        alpha, beta = self.scales(op)
        self.b.call(self.declare(op.dtype, "symm"), [
            self.slot(_I8, bld.select(left, letter(ord("L")), letter(ord("R")))),
            self.slot(_I8, letter(ord("U" if op.factor == "upper" else "L"))),
            self.integer(bld.select(direct, rows, cols)), self.integer(bld.select(direct, cols, rows)), alpha,
            t_ptr, self.integer(order), g_ptr, self.integer(g_ld), beta, bld.bitcast(out_ptr, real.as_pointer()),
            self.integer(out_ld)])

    def fallback_loops(self, op: rg.Matmul) -> tuple[rg.Op, ...]:
        """``op``'s loops, over the rows of ``chunk_window`` only where there is one."""
        loops = op.loops()
        if self.chunk_window is None:
            return loops
        first, last = (f"{op.variables[0]}.window{k}" for k in range(2))
        self.cg.values[first], self.cg.values[last] = self.chunk_window
        windowed: list[rg.Op] = []
        for outer in loops:  # over r (a mirror's loops, after op's own: over its rows too)
            assert isinstance(outer, rg.ForRange)
            windowed.append(replace(outer, start=ir.Var(first, ir.INT), stop=ir.Var(last, ir.INT)))
        assert isinstance(loops[0], rg.ForRange) and loops[0].var == op.variables[0]
        return tuple(windowed)

    # ---- layouts -------------------------------------------------------------------------
    def operand(self, x: rg.Operand, variables: tuple[str, ...]) -> _Operand:
        """The address of ``x`` at r = c = s = 0 and its stride along each of them, in elements
        (enclosing loop variables keep their values)."""
        base, strides = self.cg.arrays[x.array]
        zero: dict[str, ir.Expr] = {name: ir.int_const(0) for name in variables}
        offset = ll.Constant(_I64, 0)
        per_var: dict[str, Any] = {}
        for expr, stride in zip(x.index, strides):
            offset = self.b.add(offset, self.b.mul(self.cg.exprs.emit(ir.substitute(expr, zero)), stride))
            for name in variables:
                coefficient = ir.linear_coefficient(expr, name)
                assert coefficient is not None, "the frontend builds affine operands"
                if coefficient:
                    term = self.b.mul(ll.Constant(_I64, coefficient), stride)
                    per_var[name] = self.b.add(per_var[name], term) if name in per_var else term
        return _Operand(self.b.gep(base, [offset]), per_var)

    def matrix(self, rows, row_stride, cols, col_stride) -> tuple:
        """(ok, transposed, leading dimension) of the column-major ``rows x cols`` matrix whose
        element (i, j) is at ``i * row_stride + j * col_stride``: as stored (unit row stride), or
        as the transpose of a stored ``cols x rows`` matrix (unit column stride).  An axis of
        extent 1 takes any stride; a leading dimension must be at least the stored rows."""
        plain_ok, plain_ld = self.plain(rows, row_stride, cols, col_stride)[0::2]
        trans_ok, trans_ld = self.plain(cols, col_stride, rows, row_stride)[0::2]
        ld = self.b.select(plain_ok, plain_ld, trans_ld)
        return self.b.or_(plain_ok, trans_ok), self.b.not_(plain_ok), ld

    def plain(self, rows, row_stride, cols, col_stride) -> tuple:
        """(ok, False, leading dimension) for a column-major ``rows x cols`` matrix as stored."""
        one = ll.Constant(_I64, 1)
        at_least = self.b.select(self.b.icmp_signed(">", rows, one), rows, one)
        unit_rows = self.b.or_(self.b.icmp_signed("==", row_stride, one), self.b.icmp_signed("<=", rows, one))
        single_col = self.b.icmp_signed("<=", cols, one)
        ld_ok = self.b.and_(self.b.icmp_signed(">=", col_stride, at_least),
                            self.b.icmp_signed("<=", col_stride, ll.Constant(_I64, _int_max())))
        ok = self.b.and_(unit_rows, self.b.or_(single_col, ld_ok))
        ld = self.b.select(single_col, at_least, col_stride)
        return ok, ll.Constant(ll.IntType(1), 0), ld

    def vector(self, extent, stride) -> tuple:
        """(ok, False, increment) of a vector: a positive stride (any when it has one element)."""
        one = ll.Constant(_I64, 1)
        single = self.b.icmp_signed("<=", extent, one)
        positive = self.b.and_(self.b.icmp_signed(">=", stride, one),
                               self.b.icmp_signed("<=", stride, ll.Constant(_I64, _int_max())))
        return self.b.or_(single, positive), ll.Constant(ll.IntType(1), 0), self.b.select(single, one, stride)

    def gemv_form(self, rows, row_stride, depth, depth_stride, x_stride, y_stride) -> list:
        """[(rows, depth), M, x, y] for ``y[i] = sum M[i, s] * x[s]``."""
        return [(rows, depth), self.matrix(rows, row_stride, depth, depth_stride),
                self.vector(depth, x_stride), self.vector(rows, y_stride)]

    def syrk_form(self, rows, cols, depth, a, b, strides) -> list:
        """[(n, k), C, A, same] for NumPy's own test (its matmul and dot): ``A @ A.T`` -- one
        operand the other transposed at the same address, one stored row by row and the other
        column by column -- runs as ``?syrk`` into the upper triangle of a row-major result (or of a
        column-major one: the result is symmetric), whose lower triangle is then copied from it.  ``A`` (``n x k``, element (r, s) at ``r * a_r +
        s * a_s``) is NumPy's ``NoTrans`` when its rows have unit stride (Fortran then sees
        ``A^T`` and is told 'T'), else ``Trans`` ('N')."""
        o_r, o_c, a_r, a_s, b_s, b_c = strides
        bld = self.b

        def eq(x, y):
            return bld.icmp_signed("==", x, y)

        same_matrix = bld.and_(bld.and_(eq(bld.ptrtoint(a.base, _I64), bld.ptrtoint(b.base, _I64)), eq(rows, cols)),
                               bld.and_(eq(a_r, b_c), eq(a_s, b_s)))
        a_rows = self.plain(depth, a_s, rows, a_r)  # NumPy's NoTrans: Fortran's A^T, depth x rows
        a_cols = self.plain(rows, a_r, depth, a_s)  # NumPy's Trans
        b_rows = self.plain(cols, b_c, depth, b_s)  # the other operand's NoTrans
        lda = bld.select(a_rows[0], a_rows[2], a_cols[2])
        a_ok = bld.and_(bld.or_(a_rows[0], a_cols[0]), bld.xor(a_rows[0], b_rows[0]))
        # C is symmetric, so its own transpose: a column-major C (C.T[:, :] = A @ A.T) serves as well
        by_rows, by_cols = self.plain(cols, o_c, rows, o_r), self.plain(rows, o_r, cols, o_c)
        # (ok, stored row by row, ldc): Fortran sees a row-major C transposed
        c_form = (bld.or_(by_rows[0], by_cols[0]), by_rows[0], bld.select(by_rows[0], by_rows[2], by_cols[2]))
        return [(rows, depth), c_form, (a_ok, a_rows[0], lda), (same_matrix, None, None)]

    def strict_way(self, op: rg.Matmul, sizes: tuple, operands: tuple, strides: tuple) -> tuple:
        """(form, pointers, "strict") for a triangle whose columns start one after its rows
        (``op.offset`` 1: correlation's ``range(i + 1, m)``; -1: rows one after the columns): the
        triangle with its diagonal of the product one row and column larger, whose operands
        start one row (column) earlier -- there the same matrix, where ``syrk_form``'s test of
        one matrix passes."""
        rows, depth = sizes
        out, a, b = operands
        o_r, o_c, a_r, a_s, b_s, b_c = strides
        bld = self.b
        n = bld.add(rows, ll.Constant(_I64, 1))
        if op.offset > 0:  # out[r, c + 1] += a[r] . a[c + 1]: out and b one column back
            whole, a, b = bld.gep(out.base, [bld.neg(o_c)]), a, _Operand(bld.gep(b.base, [bld.neg(b_c)]), b.steps)
        else:  # out[r + 1, c] += a[r + 1] . a[c]: out and a one row back
            whole, a, b = bld.gep(out.base, [bld.neg(o_r)]), _Operand(bld.gep(a.base, [bld.neg(a_r)]), a.steps), b
        return self.syrk_form(n, n, depth, a, b, strides), (whole, a.base), "strict"

    def trmm_form(self, op: rg.Matmul, sizes: tuple, out_strides: tuple, t_strides: tuple) -> list:
        """[(m, n, side), B, T] for ``out = (I + T) @ out`` ("left") or ``out @ (I + T)``: B is
        ``out`` as stored by columns (then side is the product's own) or by rows (Fortran sees
        ``out^T = out^T @ (I + T^T)``: the other side); T (element (x, y) at ``x * t_x + y * t_y``)
        as stored by columns or transposed."""
        rows, cols = sizes
        o_r, o_c = out_strides
        bld = self.b
        n_t = rows if op.in_place == "left" else cols
        by_cols, by_rows = self.plain(rows, o_r, cols, o_c), self.plain(cols, o_c, rows, o_r)
        b_form = (bld.or_(by_cols[0], by_rows[0]), bld.not_(by_cols[0]), bld.select(by_cols[0], by_cols[2], by_rows[2]))
        m, n = bld.select(by_cols[0], rows, cols), bld.select(by_cols[0], cols, rows)
        return [(m, n, n_t), b_form, self.matrix(n_t, t_strides[0], n_t, t_strides[1])]

    def syr2k_form(self, rows, depth, strides) -> list:
        """[(n, k), C, (ok, trans, lda), (ok, trans, ldb)] for ``sum a[r, s] * b[c, s] + b[r, s] *
        a[c, s]``: both ``n x k`` matrices (element (r, s) at ``r * a_r + s * a_s``, and at
        ``r * b_c + s * b_s``) stored alike, by rows ('T': Fortran sees them ``k x n``) or by
        columns ('N')."""
        o_r, o_c, a_r, a_s, b_s, b_c = strides
        bld = self.b
        a_rows, a_cols = self.plain(depth, a_s, rows, a_r), self.plain(rows, a_r, depth, a_s)
        b_rows, b_cols = self.plain(depth, b_s, rows, b_c), self.plain(rows, b_c, depth, b_s)
        by_rows_ab = bld.and_(a_rows[0], b_rows[0])
        ok = bld.or_(by_rows_ab, bld.and_(a_cols[0], b_cols[0]))
        lda = bld.select(by_rows_ab, a_rows[2], a_cols[2])
        ldb = bld.select(by_rows_ab, b_rows[2], b_cols[2])
        by_rows, by_cols = self.plain(rows, o_c, rows, o_r), self.plain(rows, o_r, rows, o_c)
        c_form = (bld.or_(by_rows[0], by_cols[0]), by_rows[0], bld.select(by_rows[0], by_rows[2], by_cols[2]))
        return [(rows, depth), c_form, (ok, by_rows_ab, lda), (ok, by_rows_ab, ldb)]

    def all_ok(self, parts) -> object:
        ok = parts[0][0]
        for part in parts[1:]:
            ok = self.b.and_(ok, part[0])
        return ok

    # ---- the call ------------------------------------------------------------------------
    def gemm(self, op: rg.Matmul, form: list, pointers: tuple, kind: str = "gemm", adds: bool = False) -> None:
        """``?gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)``; ``form`` is
        [(m, n, k), C, op(A), op(B)] and ``pointers`` (C, A, B); ``kind`` "rowgemm": the same call
        through :func:`row_gemm_module`'s routine; ``adds``: beta = 1 whatever ``op`` says."""
        real = _REALS[op.dtype][1]
        (m, n, k), (_, _, ldc), (_, trans_a, lda), (_, trans_b, ldb) = form
        c_ptr, a_ptr, b_ptr = (self.b.bitcast(p, real.as_pointer()) for p in pointers)
        alpha, beta = self.scales(op)
        if adds:
            beta = self.slot(real, ll.Constant(real, 1.0))
        args = [self.char(trans_a), self.char(trans_b), *(self.integer(v) for v in (m, n, k)),
                alpha, a_ptr, self.integer(lda), b_ptr, self.integer(ldb), beta, c_ptr, self.integer(ldc)]
        self.b.call(self.declare(op.dtype, kind), args)

    def row_gemm(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """NumPy's ``?gemm`` call for a row-major C (``C^T = B^T A^T``) through ``ROW_GEMM``."""
        self.gemm(op, form, pointers, "rowgemm")

    def syrk(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """``?syrk('L', trans, n, k, 1, A, lda, 0, C, ldc)`` -- NumPy's ``cblas_?syrk(RowMajor,
        Upper, ...)`` as Fortran sees it -- then, as NumPy does, each element below the diagonal of
        the row-major result copied from its mirror image above."""
        real = _REALS[op.dtype][1]
        (n, k), (_, _, ldc), (_, trans, lda), _ = form
        c_ptr, a_ptr = (self.b.bitcast(p, real.as_pointer()) for p in pointers)
        alpha, beta = self.scales(op)
        lower = self.slot(_I8, ll.Constant(_I8, ord("L")))
        self.b.call(self.declare(op.dtype, "syrk"), [lower, self.char(trans), self.integer(n), self.integer(k), alpha,
                                                     a_ptr, self.integer(lda), beta, c_ptr, self.integer(ldc)])
        with self.counted(ll.Constant(_I64, 0), n) as i:
            with self.counted(self.b.add(i, ll.Constant(_I64, 1)), n) as j:
                above = self.b.gep(c_ptr, [self.b.add(self.b.mul(i, ldc), j)])
                self.b.store(self.b.load(above), self.b.gep(c_ptr, [self.b.add(self.b.mul(j, ldc), i)]))

    def triangle(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """``?syrk(uplo, trans, n, k, alpha, A, lda, 1, C, ldc)`` on the triangle the loops
        update, and nothing else: out (r, c) is Fortran's (r, c) for a column-major C, its (c, r)
        for a row-major one, so the lower triangle (c <= r) is 'L' or 'U'."""
        real = _REALS[op.dtype][1]
        (n, k), (_, by_rows, ldc), (_, trans, lda), _ = form
        c_ptr, a_ptr = (self.b.bitcast(p, real.as_pointer()) for p in pointers)
        alpha, beta = self.scales(op)
        uplo = self.uplo(op, by_rows)
        self.b.call(self.declare(op.dtype, "syrk"), [uplo, self.char(trans), self.integer(n), self.integer(k), alpha,
                                                     a_ptr, self.integer(lda), beta, c_ptr, self.integer(ldc)])

    def strict(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """:meth:`triangle` on the larger product of :meth:`strict_way`, its diagonal (which the
        loops never write) saved before in a heap buffer and put back after; the loops where
        that buffer cannot be had."""
        real = _REALS[op.dtype][1]
        (n, _), (_, _, ldc), _, _ = form
        c_ptr = self.b.bitcast(pointers[0], real.as_pointer())
        step = self.b.add(ldc, ll.Constant(_I64, 1))  # one of C's strides is 1 (n > 1), the other ldc
        size = self.b.mul(n, ll.Constant(_I64, _BYTES[op.dtype]))
        saved = self.b.call(self.libc("malloc", _I8.as_pointer(), [_I64]), [size])
        with self.b.if_else(self.b.icmp_unsigned("==", saved, ll.Constant(_I8.as_pointer(), None))) as (none, got):
            with none:
                self.regions.emit(op.loops())
            with got:
                diagonal = self.b.bitcast(saved, real.as_pointer())
                with self.counted(ll.Constant(_I64, 0), n) as t:
                    self.b.store(self.b.load(self.b.gep(c_ptr, [self.b.mul(t, step)])), self.b.gep(diagonal, [t]))
                self.triangle(op, form, pointers)
                with self.counted(ll.Constant(_I64, 0), n) as t:
                    self.b.store(self.b.load(self.b.gep(diagonal, [t])), self.b.gep(c_ptr, [self.b.mul(t, step)]))
                self.b.call(self.libc("free", ll.VoidType(), [_I8.as_pointer()]), [saved])

    def triangular_product(self, op: rg.Matmul, form: list, operands: tuple) -> None:
        """``out += alpha * T @ G`` ("a" triangular) or ``alpha * G @ T``: T's strict triangle
        copied into a column-major buffer with a zero diagonal, G into another (only the
        elements the loops read), ``?trmm`` (diagonal as stored) on them, the result added to
        ``out``; the loops where the buffers cannot be had or G holds an inf or a NaN (the zeros
        of the copy of T would make NaNs of them that the loops never compute: ``all_finite``)."""
        (rows, cols, depth), _ = form
        out, a, b = operands
        r, c, s = op.variables
        real = _REALS[op.dtype][1]
        bld = self.b
        left = op.triangular == "a"
        n = rows if left else cols  # T is n x n, G (and the result) rows x cols
        tri, gen = (a, b) if left else (b, a)
        gx, gy = (s, c) if left else (r, s)
        width = ll.Constant(_I64, _BYTES[op.dtype])
        tbuf = self.b.call(self.libc("malloc", _I8.as_pointer(), [_I64]), [bld.mul(bld.mul(n, n), width)])
        wbuf = self.b.call(self.libc("malloc", _I8.as_pointer(), [_I64]), [bld.mul(bld.mul(rows, cols), width)])
        null = ll.Constant(_I8.as_pointer(), None)
        missing = bld.or_(bld.icmp_unsigned("==", tbuf, null), bld.icmp_unsigned("==", wbuf, null))
        with bld.if_else(missing) as (none, got):
            with none:
                self.regions.emit(op.loops())
            with got:
                t_ptr, w_ptr = (bld.bitcast(p, real.as_pointer()) for p in (tbuf, wbuf))
                with bld.if_else(self.all_finite(gen, gx, gy, (rows, cols), real)) as (
                        finite, nonfinite):
                    with nonfinite:  # (the zeros of T's copy would multiply an inf or a NaN)
                        self.regions.emit(op.loops())
                    with finite:
                        self.trmm_added(op, (rows, cols, n), (out, tri, gen), (t_ptr, w_ptr))
        for block in (tbuf, wbuf):
            bld.call(self.libc("free", ll.VoidType(), [_I8.as_pointer()]), [block])  # free(NULL) is nothing

    def trmm_added(self, op: rg.Matmul, sizes: tuple, operands: tuple, buffers: tuple) -> None:
        """:meth:`triangular_product`'s copies, ``?trmm`` on them and the sum into ``out``."""
        rows, cols, n = sizes
        out, tri, gen = operands
        t_ptr, w_ptr = buffers
        r, c, s = op.variables
        real = _REALS[op.dtype][1]
        bld = self.b
        left = op.triangular == "a"
        tx, ty = (r, s) if left else (s, c)
        gx, gy = (s, c) if left else (r, s)
        self.copy_triangle(op.factor, n, self.element(tri, tx, ty, real), t_ptr, real)
        with self.counted(ll.Constant(_I64, 0), cols) as y:
            with self.counted(ll.Constant(_I64, 0), rows) as x:
                bld.store(bld.load(self.element(gen, gx, gy, real)(x, y)),
                          bld.gep(w_ptr, [bld.add(x, bld.mul(y, rows))]))
        letter = functools.partial(ll.Constant, _I8)
        alpha, _ = self.scales(op)
        self.b.call(self.declare(op.dtype, "trmm"), [
            self.slot(_I8, letter(ord("L" if left else "R"))),
            self.slot(_I8, letter(ord("U" if op.factor == "upper" else "L"))),
            self.slot(_I8, letter(ord("N"))), self.slot(_I8, letter(ord("N"))), self.integer(rows),
            self.integer(cols), alpha, t_ptr, self.integer(n), w_ptr, self.integer(rows)])
        put = self.element(out, r, c, real)
        with self.counted(ll.Constant(_I64, 0), cols) as y:
            with self.counted(ll.Constant(_I64, 0), rows) as x:
                at = put(x, y)
                total = bld.fadd(bld.load(at), bld.load(bld.gep(w_ptr, [bld.add(x, bld.mul(y, rows))])))
                bld.store(total, at)

    def element(self, x: _Operand, row: str, col: str, real):
        """``(i, j) -> address`` of ``x``'s element at ``row = i``, ``col = j``."""
        base = self.b.bitcast(x.base, real.as_pointer())
        return lambda i, j: self.b.gep(base, [self.b.add(self.b.mul(i, x.stride(row)), self.b.mul(j, x.stride(col)))])

    def copy_triangle(self, factor: str, n, source, target, real) -> None:
        """``target`` (n x n, column-major) holds the strict triangle of ``source(i, j)`` that
        ``factor`` names ("upper": j > i) and zeros on its diagonal."""
        bld = self.b
        zero = ll.Constant(_I64, 0)
        with self.counted(zero, n) as y:
            first, stop = (zero, y) if factor == "upper" else (bld.add(y, ll.Constant(_I64, 1)), n)
            with self.counted(first, stop) as x:
                bld.store(bld.load(source(x, y)), bld.gep(target, [bld.add(x, bld.mul(y, n))]))
            bld.store(ll.Constant(real, 0.0), bld.gep(target, [bld.add(y, bld.mul(y, n))]))

    def libc(self, name: str, result, params: list):
        module = self.cg.module
        if name in module.globals:
            return module.globals[name]
        return ll.Function(module, ll.FunctionType(result, params), name=name)

    def trmm(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """``?trmm(side, uplo, transa, 'U', m, n, 1, T, ldt, B, ldb)``: B = op(T) B (side 'L') or
        B op(T), T's stored triangle ('U' / 'L') that the loops read, its diagonal taken as 1."""
        real = _REALS[op.dtype][1]
        (m, n, _), (_, by_rows, ldb), (_, t_trans, ldt) = form
        b_ptr, t_ptr = (self.b.bitcast(p, real.as_pointer()) for p in pointers)
        bld = self.b
        letter = functools.partial(ll.Constant, _I8)
        left = ll.Constant(ll.IntType(1), int(op.in_place == "left"))
        side = self.slot(_I8, bld.select(bld.xor(left, by_rows), letter(ord("L")), letter(ord("R"))))
        own, mirrored = (letter(ord("U")), letter(ord("L"))) if op.factor == "upper" else (letter(ord("L")),
                                                                                          letter(ord("U")))
        uplo = self.slot(_I8, bld.select(t_trans, mirrored, own))
        one = self.slot(real, ll.Constant(real, 1.0))
        self.b.call(self.declare(op.dtype, "trmm"), [side, uplo, self.char(bld.xor(t_trans, by_rows)),
                                                     self.slot(_I8, letter(ord("U"))), self.integer(m),
                                                     self.integer(n), one, t_ptr, self.integer(ldt), b_ptr,
                                                     self.integer(ldb)])

    def syr2k(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """``?syr2k(uplo, trans, n, k, alpha, A, lda, B, ldb, 1, C, ldc)`` on the triangle the
        loops update (uplo as in :meth:`triangle`)."""
        real = _REALS[op.dtype][1]
        (n, k), (_, by_rows, ldc), (_, trans, lda), (_, _, ldb) = form
        c_ptr, a_ptr, b_ptr = (self.b.bitcast(p, real.as_pointer()) for p in pointers)
        alpha, beta = self.scales(op)
        uplo = self.uplo(op, by_rows)
        self.b.call(self.declare(op.dtype, "syr2k"), [uplo, self.char(trans), self.integer(n), self.integer(k), alpha,
                                                      a_ptr, self.integer(lda), b_ptr, self.integer(ldb), beta,
                                                      c_ptr, self.integer(ldc)])

    def uplo(self, op: rg.Matmul, by_rows):
        """The slot of Fortran's 'L' or 'U' for ``op``'s triangle of a C stored by rows or columns."""
        lower, upper = ll.Constant(_I8, ord("L")), ll.Constant(_I8, ord("U"))
        own, mirrored = (lower, upper) if op.triangle == "lower" else (upper, lower)
        return self.slot(_I8, self.b.select(by_rows, mirrored, own))

    @contextlib.contextmanager
    def counted(self, start, stop):
        """``for i in range(start, stop)``: the body is emitted inside the ``with``."""
        with _counted(self.b, stop, "pf_syrk", start=start) as i:
            yield i

    def gemv(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """``?gemv(trans, m, n, alpha, M, ld, x, incx, beta, y, incy)`` for ``y = alpha M x + beta y``;
        ``form`` is [(rows, depth), M, x, y] and ``pointers`` (M, x, y).  A transposed M is stored
        depth x rows."""
        real = _REALS[op.dtype][1]
        (rows, depth), (_, trans, ld), (_, _, incx), (_, _, incy) = form
        m_ptr, x_ptr, y_ptr = (self.b.bitcast(p, real.as_pointer()) for p in pointers)
        m, n = self.b.select(trans, depth, rows), self.b.select(trans, rows, depth)
        alpha, beta = self.scales(op)
        args = [self.char(trans), self.integer(m), self.integer(n), alpha, m_ptr, self.integer(ld), x_ptr,
                self.integer(incx), beta, y_ptr, self.integer(incy)]
        self.b.call(self.declare(op.dtype, "gemv"), args)

    def scales(self, op: rg.Matmul) -> tuple:
        """Slots of (alpha, beta): (1, 0) for ``out = a @ b``; (alpha, 1) when it accumulates."""
        real = _REALS[op.dtype][1]
        alpha = ll.Constant(real, 1.0) if op.alpha is None else self.cg.exprs.emit(op.alpha)
        return self.slot(real, alpha), self.slot(real, ll.Constant(real, 1.0 if op.accumulate else 0.0))

    def dot(self, op: rg.Matmul, form: list, pointers: tuple) -> None:
        """``out = 0 + ?dot(n, x, incx, y, incy)``: NumPy's ``x @ y`` of two vectors with positive
        strides calls the same routine at any length (others: a loop in index order, as our
        fallback), so the sum comes out in its order, bit for bit when the library is NumPy's own
        (runtime/linalg_library.py; SciPy's OpenBLAS build may round strided ones differently)."""
        assert not op.accumulate, "an accumulating product of one element runs ?gemv (product())"
        real = _REALS[op.dtype][1]
        (n,), (_, _, incx), (_, _, incy) = form
        x_ptr, y_ptr, out_ptr = (self.b.bitcast(p, real.as_pointer()) for p in pointers)
        value = self.b.call(self.declare(op.dtype, "dot"), [self.integer(n), x_ptr, self.integer(incx), y_ptr,
                                                            self.integer(incy)])
        self.b.store(self.b.fadd(ll.Constant(real, 0.0), value), out_ptr)  # NumPy: sum = 0; sum += ?dot

    def declare(self, dtype: str, kind: str):
        name = symbol(dtype, kind)
        module = self.cg.module
        if name in module.globals:
            return module.globals[name]
        ptr = _REALS[dtype][1].as_pointer()
        intp, i8p = self.int.as_pointer(), _I8.as_pointer()
        if kind == "dot":
            return ll.Function(module, ll.FunctionType(_REALS[dtype][1], [intp, ptr, intp, ptr, intp]), name=name)
        gemm = [i8p, i8p, intp, intp, intp, ptr, ptr, intp, ptr, intp, ptr, ptr, intp]
        params = {"gemm": gemm, "rowgemm": gemm,
                  "syrk": [i8p, i8p, intp, intp, ptr, ptr, intp, ptr, ptr, intp],
                  "syr2k": [i8p, i8p, intp, intp, ptr, ptr, intp, ptr, intp, ptr, ptr, intp],
                  "trmm": [i8p, i8p, i8p, i8p, intp, intp, ptr, ptr, intp, ptr, intp],
                  "symm": [i8p, i8p, intp, intp, ptr, ptr, intp, ptr, intp, ptr, ptr, intp],
                  "gemv": [i8p, intp, intp, ptr, ptr, intp, ptr, intp, ptr, ptr, intp]}[kind]
        return ll.Function(module, ll.FunctionType(ll.VoidType(), params), name=name)

    def char(self, transposed):
        letter = self.b.select(transposed, ll.Constant(_I8, ord("T")), ll.Constant(_I8, ord("N")))
        return self.slot(_I8, letter)


@contextlib.contextmanager
def _counted(b: ll.IRBuilder, stop, name: str, start=None):
    """``for i in range(start or 0, stop)`` at ``b``: the body is emitted inside the ``with``."""
    start = ll.Constant(_I64, 0) if start is None else start
    before = b.block
    head, body, done = (b.append_basic_block(f"{name}_{part}") for part in ("head", "body", "done"))
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(_I64)
    i.add_incoming(start, before)
    b.cbranch(b.icmp_signed("<", i, stop), body, done)
    b.position_at_end(body)
    yield i
    i.add_incoming(b.add(i, ll.Constant(_I64, 1)), b.block)
    b.branch(head)
    b.position_at_end(done)


def _is_one(expr: ir.Expr) -> bool:
    return isinstance(expr, ir.Const) and expr.value == 1


@dataclass(frozen=True)
class _Operand:
    """An operand's address at r = c = s = 0 and its stride per variable (absent: 0, a vector)."""

    base: Any
    steps: dict[str, Any]

    def stride(self, name: str):
        return self.steps.get(name, ll.Constant(_I64, 0))
