"""A float64 product with few columns in vector registers, without BLAS (``REG_GEMM``).

``C = alpha * A @ B`` for row-major ``A`` (rows x depth), ``B`` (depth x cols) and ``C``
(rows x cols), each with unit stride along its rows, is what NumPy's row-major call
(``ROW_GEMM``, blas.py) receives for ``P @ V`` and ``R @ W2``.  OpenBLAS's kernels (SkylakeX's,
on this Zen 4) run such products with few columns 5-90% slower than they could: XLA's
(``jax.jit``) and this routine's are even (docs/performance.md, *Products with few columns in
registers*).

The routine walks ``A`` in blocks of rows whose terms fit half the L2 cache (``row_block``),
each block's columns in panels of ``PANEL`` columns (``PANEL / LANES`` vectors), and each panel's
rows in tiles of ``TILE_ROWS`` rows: a tile's ``TILE_ROWS x PANEL / LANES`` vectors of sums
stay in registers across a block of terms, each step loading one row of the panel of ``B``
(one to four vectors) and one element of each of the tile's rows of ``A`` (broadcast), and
multiplying them in with FMAs.  Nothing is packed: the block of ``A`` stays in L2 while the
panels pass, a panel's block of terms of ``B`` (``depth_block x PANEL`` doubles, a quarter of the
L2) while the tiles run down the rows; the next block of terms adds to ``C``.  The rows past the
last whole tile run as tiles of one row; the columns past the last whole vector load and store
with a mask.

From ``PACK_MIN_COLS`` columns the panels are packed (the Goto/BLIS order): the columns go in
blocks of ``col_block`` (a quarter of the L3 holds their ``depth_block`` rows), each block of
terms of such a block of ``B`` is copied once, panel by panel where a panel is first used, rows
contiguous, into a 64-byte aligned buffer (``malloc``), and every block of rows of ``A`` streams
the packed panels (a row of an unpacked panel of a wide ``B`` lies on a new page, past the
prefetchers, and was read from L3 again for every row block).  A failed ``malloc`` runs the
unpacked routine.  Calls running at the same time on the same ``B`` (a product's rows cut among
polyfuse's threads, each chunk one call) share one packed copy of all of ``B``
(``POLYFUSE_SHARED_PACKING``, ``_SharedPacking``): each panel is packed once, by the first call that needs it, instead of
once per call, as Goto/BLIS share the packed panel among threads that split the rows.

Each element of ``C`` is ``alpha`` times its sum, each block's terms in order, one rounding per
term (the FMA), as ``?gemm`` sums in its own blocked order: the same within BLAS's tolerance
(docs/subset.md, *Matrix products*).

Only for hosts with AVX-512 (the vector of 8 doubles is one register there; with 16 registers of
4 doubles the tiles would spill) and only where measured to win: at most ``MAX_COLS`` columns.
"""

from __future__ import annotations

import ctypes
import os

import llvmlite.binding as llvm
from llvmlite import ir as ll

from polyfuse.hardware import llvm_host, llvm_host_has
from polyfuse.options import shared_packing, tile_buffers

LANES = 8  # doubles per vector (AVX-512)
#: rows of C per register tile: 6 x 4 = 24 vectors of sums (of 32 registers).  Against 4 rows
#: (16 sums), interleaved, load 10-11: 1024 x 1100 x 64 2.63-2.67 ms against 2.84-2.92,
#: 1024 x 1024 x 256 9.76-10.09 against 9.94-10.07, 2048 x 2048 x 128 19.7-20.4 against
#: 20.7-21.1; 8 rows x 16 columns lost on wide products (24.0 against 22.2 at 1024 columns)
TILE_ROWS = 6
PANEL = 32  # columns of B per panel
#: The most columns ``ROW_GEMM`` gives the routine: one thread, process CPU, interleaved with
#: NumPy's call and jax.jit (docs/performance.md): with packed panels 1024 x 512 x 1024 19.8 ms
#: against OpenBLAS's 21.0, 1024 x 1024 x 2048 78.6 against 81.2, but 2048^3 332 against 322
#: and 256 x 2048 x 4096 85.5 against 83.8 (unpacked, 1024 columns lost: 22.8 against 20.9)
MAX_COLS = 1024
REG_GEMM = "polyfuse.blas.dregtiles"
MODULE = "polyfuse.regtiles"  # the name of the tiles' module
#: copy each block of terms of a panel of ``B`` into a contiguous, aligned buffer on the stack
#: (``depth_block x PANEL`` doubles) that the tiles of a block of rows stream
PACKED = True
#: products with fewer columns run unpacked (1024 x 1100 x 64: packed 2.59-2.71 ms against 2.53-2.65)
PACK_MIN_COLS = 128

# Calls at the same time on the same ``B`` (the row chunks of one product on polyfuse's threads)
# share one packed copy of it: each panel is packed once, by the first call that needs it, the
# others wait for it or use it (``_SharedPacking``); instead of every call packing all of ``B``.
# Compiled in where ``POLYFUSE_SHARED_PACKING`` is on (options.py ``shared_packing``, default on).
#: the largest packed copy of ``B`` (all its blocks) that calls share; wider ones pack privately
SHARED_MAX_BYTES = 32 << 20
#: concurrent shared copies (products running at once on different ``B``\ s)
SLOTS = 4
#: the table of shared copies and its functions, by these names in the tiles' module (the tests
#: hold a slot open with them)
TABLE, JOIN, LEAVE = "polyfuse.regtiles.slots", "polyfuse.regtiles.join", "polyfuse.regtiles.leave"
_FIELDS = 16  # i64s per slot: users, joinable, B, ldb, cols, depth, buffer, states, joins
_TABLE_LENGTH = SLOTS * _FIELDS + 8  # the slots, then the lock
_LIBC = "polyfuse.regtiles.libc."  # malloc, calloc, free, sched_yield (``llvm.add_symbol``)
#: the C library's own malloc, calloc and free, which the buffer cache calls (``define_buffer_cache``)
_C = "polyfuse.regtiles.c."
#: freed buffers the tiles keep for their next calls (``POLYFUSE_TILE_BUFFERS``): two threads' private
#: copies and a shared one, and one more
BUFFER_SLOTS = 4
BUFFER_MIN_BYTES = 1 << 16  # smaller blocks (the panels' states) go back to the C library
BUFFER_MAX_BYTES = 1 << 25  # larger ones too: at most 4 x 32 MiB kept
_HEADER = 64  # bytes before each block the cache hands out: its size (keeps the 16-byte alignment)
_I1, _I8, _I32, _I64 = ll.IntType(1), ll.IntType(8), ll.IntType(32), ll.IntType(64)
_REAL = ll.DoubleType()
_VEC = ll.VectorType(_REAL, LANES)
_MASK = ll.VectorType(_I1, LANES)
_PTR = _REAL.as_pointer()
#: REG_GEMM(rows, cols, depth, alpha, A, lda, B, ldb, C, ldc)
KIND = ll.FunctionType(ll.VoidType(), [_I64, _I64, _I64, _REAL, _PTR, _I64, _PTR, _I64, _PTR, _I64])


def host_has_lanes() -> bool:
    """Does the host have the 512-bit vectors the routine's tiles are sized for?"""
    return llvm_host_has("avx512f")


def depth_block(l2_bytes: int) -> int:
    """Terms of the sums per pass over a panel: its rows of ``B`` in a quarter of the L2 cache
    (1024 on a 1 MiB L2: at 2048 terms, a 512 KiB panel, 1024 x 2048 @ 2048 x 256 took 25.5 ms
    against OpenBLAS's 23.2)."""
    return max(LANES, l2_bytes // 4 // (PANEL * 8))


def col_block(l2_bytes: int, l3_bytes: int) -> int:
    """Columns of ``B`` per packed block (a multiple of ``PANEL``): ``depth_block`` of their rows
    in a quarter of the L3 cache (twice the L2 where the L3 is not known)."""
    room = l3_bytes // 4 if l3_bytes > 0 else 2 * l2_bytes
    return max(PANEL, room // (depth_block(l2_bytes) * 8) // PANEL * PANEL)


def compile_tiles(l2_bytes: int, engines: list, packed: bool = PACKED, l3_bytes: int = 0,
                  shared: bool | None = None, objects: tuple | None = None) -> int:
    """The address of ``REG_GEMM`` compiled for the host: LLVM's code generator only (the IR is
    already vectors; the -O3 pipeline took ~0.9 s for no gain; this takes ~100 ms of CPU, and
    building the IR ~35), its engine appended to ``engines`` (kept for the process).
    ``objects``: (the machine code made earlier for these settings on this host, or None; a
    function given the machine code made now): with the former, nothing is built or generated
    (the engine loads it, as a kernel's from the disk cache)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    libc = ctypes.CDLL(None)
    for name in ("malloc", "calloc", "free", "sched_yield"):
        llvm.add_symbol(_LIBC + name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
        llvm.add_symbol(_C + name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
    known, emitted = objects or (None, None)
    sharing = shared_packing() if shared is None else shared
    if known is not None:  # (MCJIT needs a module that defines the name to load its object)
        parsed = llvm.parse_assembly(f'define void @"{REG_GEMM}"() {{\n  ret void\n}}\n')
    else:
        module = ll.Module(name=MODULE)
        module.triple = llvm.get_process_triple()
        define(module, l2_bytes, packed, l3_bytes, sharing)
        parsed = llvm.parse_assembly(str(module))
    parsed.name = MODULE  # (the object cache's key)
    parsed.triple = llvm.get_process_triple()
    cpu, features = llvm_host()
    target = llvm.Target.from_triple(parsed.triple).create_target_machine(cpu=cpu, features=features, opt=3)
    engine = llvm.create_mcjit_compiler(parsed, target)
    if objects is not None:
        engine.set_object_cache(lambda _, data: emitted and emitted(bytes(data)), lambda _: known)
    engine.finalize_object()
    engines.append(engine)
    table = engine.get_global_value_address(TABLE) if packed and sharing else 0
    if table:
        header = _HEADER if tile_buffers() else 0
        os.register_at_fork(after_in_child=lambda: forget_shared_copies(table, header))
    return engine.get_function_address(REG_GEMM)


def forget_shared_copies(table: int, header: int = 0) -> None:
    """In a child process just forked: the table of shared copies (at ``table``) emptied and its
    lock freed.  The parent's threads that held copies are not in the child, which could
    otherwise wait forever for a panel one of them was packing, or join a copy packed before the
    child changed its ``B``; their buffers are freed (``header``: the buffer cache's bytes before
    each block, ``define_buffer_cache``)."""
    slots = (ctypes.c_int64 * _TABLE_LENGTH).from_address(table)
    free = ctypes.CDLL(None).free
    free.argtypes = [ctypes.c_void_p]
    for slot in range(SLOTS):
        if slots[slot * _FIELDS] > 0:
            for k in (6, 7):
                if slots[slot * _FIELDS + k]:
                    free(slots[slot * _FIELDS + k] - header)
    ctypes.memset(table, 0, ctypes.sizeof(slots))


def define(module: ll.Module, l2_bytes: int, packed: bool = PACKED, l3_bytes: int = 0,
           shared: bool = False) -> ll.Function:
    """``REG_GEMM(rows, cols, depth, alpha, A, lda, B, ldb, C, ldc)`` in ``module``: the caller
    guarantees rows, cols, depth >= 1 and the row-major layouts above (lda, ldb, ldc the rows'
    strides in elements); the sums run in blocks of ``depth_block(l2_bytes)`` terms."""
    def routine(name: str, packs: bool, unpacked=None) -> ll.Function:
        function = ll.Function(module, KIND, name=name)
        for argument in function.args[4:9:2]:
            argument.add_attribute("noalias")
        _Emitter(module, function, (l2_bytes, l3_bytes), packs, unpacked, shared and packs).emit()
        return function

    if not packed:
        return routine(REG_GEMM, False)
    if tile_buffers():
        define_buffer_cache(module)
    unpacked = routine(REG_GEMM + ".unpacked", False)
    unpacked.linkage = "internal"
    return routine(REG_GEMM, True, unpacked)


def define_buffer_cache(module: ll.Module) -> None:
    """The tiles' ``malloc``, ``calloc`` and ``free`` (the names ``_Emitter`` and
    ``_SharedPacking`` declare) as internal functions of ``module`` over a cache of
    ``BUFFER_SLOTS`` freed blocks, each taken or put back by one atomic exchange (no lock: a call
    that finds no slot uses the C library).  Every block carries its size in a ``_HEADER`` before
    what the caller gets; ``malloc`` takes the first cached block at least as large (a smaller
    one it finds goes back to the C library) or makes one, ``calloc`` always makes one (zeroed),
    ``free`` keeps a block of ``BUFFER_MIN_BYTES`` to ``BUFFER_MAX_BYTES`` in a free slot.  Why:
    glibc gives a freed 2.4 MB block back to the system (``munmap``, or a trimmed heap), so each
    call's packed copy faulted its pages in again (matmul_bias_relu's rows: docs/performance.md,
    session 31)."""
    i8p = _I8.as_pointer()
    c_malloc = _declare(module, ll.FunctionType(i8p, [_I64]), name=_C + "malloc")
    c_calloc = _declare(module, ll.FunctionType(i8p, [_I64, _I64]), name=_C + "calloc")
    c_free = _declare(module, ll.FunctionType(ll.VoidType(), [i8p]), name=_C + "free")
    slots_type = ll.ArrayType(i8p, BUFFER_SLOTS)
    slots = ll.GlobalVariable(module, slots_type, name="polyfuse.regtiles.buffers")
    slots.linkage, slots.initializer = "internal", ll.Constant(slots_type, None)
    null = ll.Constant(i8p, None)

    def function(name: str, kind: ll.FunctionType) -> tuple[ll.Function, ll.IRBuilder]:
        made = ll.Function(module, kind, name=_LIBC + name)
        made.linkage = "internal"
        return made, ll.IRBuilder(made.append_basic_block("entry"))

    def size_of(b: ll.IRBuilder, block) -> ll.Value:
        return b.load(b.bitcast(block, _I64.as_pointer()))

    def handed(b: ll.IRBuilder, block, size) -> ll.Value:  # (the header written, the block past it)
        b.store(size, b.bitcast(block, _I64.as_pointer()))
        return b.gep(block, [_int(_HEADER)])

    def slot(b: ll.IRBuilder, k: int) -> ll.Value:
        return b.gep(slots, [ll.Constant(_I32, 0), ll.Constant(_I32, k)])

    malloc, b = function("malloc", ll.FunctionType(i8p, [_I64]))
    wanted = malloc.args[0]
    for k in range(BUFFER_SLOTS):
        block = b.atomic_rmw("xchg", slot(b, k), null, "acq_rel")
        with b.if_then(b.icmp_unsigned("!=", block, null)):
            fits = b.icmp_signed(">=", size_of(b, block), wanted)
            with b.if_else(fits) as (then, otherwise):
                with then:
                    b.ret(b.gep(block, [_int(_HEADER)]))
                with otherwise:
                    b.call(c_free, [block])
    block = b.call(c_malloc, [b.add(wanted, _int(_HEADER))])
    with b.if_then(b.icmp_unsigned("==", block, null)):
        b.ret(null)
    b.ret(handed(b, block, wanted))

    calloc, b = function("calloc", ll.FunctionType(i8p, [_I64, _I64]))
    size = b.mul(calloc.args[0], calloc.args[1])
    block = b.call(c_calloc, [b.add(size, _int(_HEADER)), _int(1)])
    with b.if_then(b.icmp_unsigned("==", block, null)):
        b.ret(null)
    b.ret(handed(b, block, size))

    free, b = function("free", ll.FunctionType(ll.VoidType(), [i8p]))
    with b.if_then(b.icmp_unsigned("==", free.args[0], null)):
        b.ret_void()
    block = b.gep(free.args[0], [_int(-_HEADER)])
    size = size_of(b, block)
    kept = b.and_(b.icmp_signed(">=", size, _int(BUFFER_MIN_BYTES)), b.icmp_signed("<=", size, _int(BUFFER_MAX_BYTES)))
    with b.if_then(kept):
        for k in range(BUFFER_SLOTS):
            pair = b.cmpxchg(slot(b, k), null, block, "acq_rel", "monotonic")
            with b.if_then(b.extract_value(pair, 1)):
                b.ret_void()
    b.call(c_free, [block])
    b.ret_void()


class _Emitter:
    """The routine's loops, one method per level: blocks of rows and panels, tiles, one tile."""

    def __init__(self, module: ll.Module, function: ll.Function, caches: tuple, packed: bool,
                 unpacked: ll.Function | None, shared: bool = False) -> None:
        self.function = function
        self.packed, self.unpacked = packed, unpacked
        self.sharing = _SharedPacking(module) if shared else None
        if packed:
            i8p = _I8.as_pointer()
            self.malloc = _declare(module, ll.FunctionType(i8p, [_I64]), name=_LIBC + "malloc")
            self.calloc = _declare(module, ll.FunctionType(i8p, [_I64, _I64]), name=_LIBC + "calloc")
            self.free = _declare(module, ll.FunctionType(ll.VoidType(), [i8p]), name=_LIBC + "free")
            self.yields = (_declare(module, ll.FunctionType(ll.VoidType(), []), name="llvm.x86.sse2.pause"),
                           _declare(module, ll.FunctionType(_I32, []), name=_LIBC + "sched_yield"))
        l2_bytes, l3_bytes = caches
        self.depth_block = depth_block(l2_bytes)
        self.col_block = col_block(l2_bytes, l3_bytes)
        self.l2_doubles = l2_bytes // 8
        (self.rows, self.cols, self.depth, alpha, self.a, self.lda, self.b_, self.ldb, self.c,
         self.ldc) = function.args
        self.b = ll.IRBuilder(function.append_basic_block("entry"))
        self.alpha = self._splat(alpha)
        ptr = _REAL.as_pointer()
        self.fma = _declare(module, ll.FunctionType(_VEC, [_VEC, _VEC, _VEC]), name="llvm.fma.v8f64")
        self.masked_load = _declare(module, ll.FunctionType(_VEC, [ptr, _I32, _MASK, _VEC]),
                                       name="llvm.masked.load.v8f64.p0")
        self.masked_store = _declare(module, ll.FunctionType(ll.VoidType(), [_VEC, ptr, _I32, _MASK]),
                                        name="llvm.masked.store.v8f64.p0")

    def emit(self) -> None:
        """Unpacked: block by block of rows (``row_block``), panel by panel of ``PANEL`` columns,
        each panel's blocks of terms.  Packed: block by block of terms, all of its panels of ``B``
        packed first, then block by block of rows, panel by panel."""
        b = self.b
        if self.packed:
            self.emit_packed()
            return
        block = self.row_block()
        with self._loop(ll.Constant(_I64, 0), self.rows, block, "rows") as first:
            last = b.select(b.icmp_signed("<", b.sub(self.rows, first), block), self.rows, b.add(first, block))
            self.panels(lambda column, count, mask: self.panel((first, last), column, count, mask), "panel")
        b.ret_void()

    def emit_packed(self) -> None:
        """The Goto/BLIS order: the columns in blocks of ``col_block``, each in blocks of
        ``depth_block`` terms, each in blocks of rows of ``A``, whose tiles run panel by panel on
        packed panels of ``B`` (rows contiguous, 64-byte aligned, the masked-off columns zeros;
        from L2, prefetched: a row of an unpacked panel of a wide ``B`` is a new page).  A panel
        is packed where it is first used (``_ensure``: a state per panel and block
        of terms, 0 unpacked, 1 being packed, 2 packed).  The buffer is a copy of all of ``B``
        that the calls running at the same time on the same ``B`` share (``emit_shared``), or
        this call's own (``malloc``), one block of columns and terms at a time (the panel of
        columns ``c ..`` at ``(c - left) x terms``); where ``malloc`` fails, the unpacked
        routine runs."""
        b = self.b
        narrow, wide_enough = (self.function.append_basic_block(name) for name in ("narrow", "wide"))
        b.cbranch(b.icmp_signed("<", self.cols, _int(PACK_MIN_COLS)), narrow, wide_enough)
        b.position_at_end(wide_enough)
        all_panels = b.sdiv(b.add(self.cols, _int(PANEL - 1)), _int(PANEL))
        blocks = b.sdiv(b.add(self.depth, _int(self.depth_block - 1)), _int(self.depth_block))
        states_count = b.mul(blocks, all_panels)
        terms = b.select(b.icmp_signed("<", self.depth, _int(self.depth_block)), self.depth, _int(self.depth_block))
        works = self.function.append_basic_block("packed")
        incoming = []  # (raw, states, slot, member, shared?) and the block they come from
        if self.sharing is not None:
            private = self.function.append_basic_block("private")
            incoming.append(self.emit_shared(private, all_panels, states_count, works))
            b.position_at_end(private)
        wide = b.select(b.icmp_signed("<", self.cols, _int(self.col_block)), self.cols, _int(self.col_block))
        panels = b.sdiv(b.add(wide, _int(PANEL - 1)), _int(PANEL))
        raw = b.call(self.malloc, [b.add(b.mul(b.mul(terms, panels), _int(PANEL * 8)), _int(64))])
        states = b.call(self.calloc, [states_count, _int(4)])
        failed = b.or_(b.icmp_unsigned("==", b.ptrtoint(raw, _I64), _int(0)),
                       b.icmp_unsigned("==", b.ptrtoint(states, _I64), _int(0)))
        no_memory = self.function.append_basic_block("no_memory")
        incoming.append(((b.ptrtoint(raw, _I64), b.ptrtoint(states, _I64), _int(-1), _int(0), ll.Constant(_I1, 0)),
                         b.block))
        b.cbranch(failed, no_memory, works)
        b.position_at_end(no_memory)
        b.call(self.free, [raw])
        b.call(self.free, [states])
        b.branch(narrow)
        b.position_at_end(narrow)
        b.call(self.unpacked, list(self.function.args))
        b.ret_void()
        b.position_at_end(works)
        raw, states, slot, member, shared = (b.phi(t) for t in (_I64, _I64, _I64, _I64, _I1))
        for values, block in incoming:
            for phi, value in zip((raw, states, slot, member, shared), values):
                phi.add_incoming(value, block)
        buffer = b.inttoptr(b.and_(b.add(raw, _int(63)), _int(-64)), _PTR)
        state_at = b.inttoptr(states, _I32.as_pointer())
        # where a panel lies: shared, (c x depth + s x PANEL); this call's own, (c - left) x terms
        panel_stride = b.select(shared, self.depth, terms)
        block = self.row_block()
        with self._loop(ll.Constant(_I64, 0), self.cols, self.col_block, "columns") as left:
            right = b.select(b.icmp_signed("<", b.sub(self.cols, left), _int(self.col_block)), self.cols,
                             b.add(left, _int(self.col_block)))
            count = b.sdiv(b.add(b.sub(right, left), _int(PANEL - 1)), _int(PANEL))
            offset = b.sdiv(b.mul(count, self.eighths(member)), _int(8))  # where this call starts
            origin = b.select(shared, _int(0), left)
            with self._loop(ll.Constant(_I64, 0), self.depth, self.depth_block, "terms") as start:
                stop = b.select(b.icmp_signed("<", b.sub(self.depth, start), _int(self.depth_block)), self.depth,
                                b.add(start, _int(self.depth_block)))
                span = (start, stop, b.icmp_signed("!=", start, _int(0)))
                row_of_states = b.mul(b.sdiv(start, _int(self.depth_block)), all_panels)
                shift = b.select(shared, b.mul(start, _int(PANEL)), _int(0))
                with self._loop(ll.Constant(_I64, 0), self.rows, block, "rows") as first:
                    last = b.select(b.icmp_signed("<", b.sub(self.rows, first), block), self.rows,
                                    b.add(first, block))
                    whole = b.add(first, b.mul(b.sdiv(b.sub(last, first), _int(TILE_ROWS)), _int(TILE_ROWS)))

                    def tiles(column, vectors, mask):
                        packed = b.gep(buffer, [b.add(b.mul(b.sub(column, origin), panel_stride), shift)])
                        state = b.gep(state_at, [b.add(row_of_states, b.sdiv(column, _int(PANEL)))])
                        _ensure(b, self.yields, state, lambda: self.pack(packed, column, vectors, mask, span))
                        with self._loop(first, whole, TILE_ROWS, f"ptiles{vectors}") as row:
                            self.tile(row, TILE_ROWS, column, vectors, mask, span, packed)
                        with self._loop(whole, last, 1, f"prest{vectors}") as row:
                            self.tile(row, 1, column, vectors, mask, span, packed)
                    self.panels(tiles, "tile_panel", (left, right), (count, offset))
        mine, theirs, done = (self.function.append_basic_block(name) for name in ("own", "leave", "done"))
        b.cbranch(shared, theirs, mine)
        b.position_at_end(theirs)
        if self.sharing is not None:
            b.call(self.sharing.leave, [slot])
        b.branch(done)
        b.position_at_end(mine)
        b.call(self.free, [b.inttoptr(raw, _I8.as_pointer())])
        b.call(self.free, [b.inttoptr(states, _I8.as_pointer())])
        b.branch(done)
        b.position_at_end(done)
        b.ret_void()

    def eighths(self, member):
        """Where the ``member``-th call that joined a shared copy starts each block's panels, in
        eighths of them: 0, 1/2, 1/4, 3/4, 1/8, ... (the bits of ``member % 8`` reversed), so
        that each call packs the panels up to where another started, and calls seldom wait."""
        b = self.b
        low = b.and_(member, _int(7))
        turned = _int(0)
        for bit in range(3):
            turned = b.or_(turned, b.shl(b.and_(b.lshr(low, _int(bit)), _int(1)), _int(2 - bit)))
        return turned

    def emit_shared(self, private, all_panels, states_count, works) -> tuple:
        """The copy of all of ``B`` shared by the calls running at the same time on the same
        ``B`` (``_SharedPacking.join``), the panel of columns ``c ..`` and terms ``s ..`` at
        ``c x depth + s x PANEL``: to ``works`` with it, or to ``private`` where none can be had
        (larger than ``SHARED_MAX_BYTES``, no free slot, no memory).  The calls that joined
        walk each block's panels from different ones (``eighths``: the second from the middle),
        so that each packs about its share of them.  The
        sums are those of this call's own buffer, bit for bit (the same tiles, only the panels'
        addresses differ)."""
        b, sharing = self.b, self.sharing
        assert sharing is not None
        size = b.add(b.mul(b.mul(self.depth, all_panels), _int(PANEL * 8)), _int(64))
        fits, joined = (self.function.append_basic_block(name) for name in ("fits", "joined"))
        b.cbranch(b.icmp_signed("<=", size, _int(SHARED_MAX_BYTES)), fits, private)
        b.position_at_start(self.function.entry_basic_block)  # (an alloca elsewhere is dynamic: a frame
        member_at = b.alloca(_I64)  # pointer, one register fewer for the tiles' loops)
        b.position_at_end(fits)
        slot = b.call(sharing.join, [b.ptrtoint(self.b_, _I64), self.ldb, self.cols, self.depth, size,
                                      states_count, member_at])
        b.cbranch(b.icmp_signed("<", slot, _int(0)), private, joined)
        b.position_at_end(joined)
        raw, states = (b.load(sharing.field(b, slot, k)) for k in (6, 7))
        member = b.load(member_at)
        b.branch(works)
        return (raw, states, slot, member, ll.Constant(_I1, 1)), joined

    def panels(self, body, name: str, columns: tuple | None = None, rotated: tuple | None = None) -> None:
        """``body(column, vectors, mask)`` for each panel of ``PANEL`` columns; the last panel's
        vectors (1 to ``PANEL / LANES``, the last of them masked) picked by a switch.  ``rotated``
        (the panels' count, a first one): from that panel on, round to the one before it."""
        b = self.b
        left, right = columns or (ll.Constant(_I64, 0), self.cols)
        if rotated is None:
            walk = self._loop(left, right, PANEL, name)
        else:
            count, offset = rotated
            walk = self._loop(ll.Constant(_I64, 0), count, 1, name)
        with walk as column:
            if rotated is not None:
                turn = b.add(column, offset)
                turn = b.select(b.icmp_signed(">=", turn, count), b.sub(turn, count), turn)
                column = b.add(left, b.mul(turn, _int(PANEL)))
            width = b.select(b.icmp_signed("<", b.sub(right, column), _int(PANEL)),
                             b.sub(right, column), _int(PANEL))
            vectors = b.sdiv(b.add(width, _int(LANES - 1)), _int(LANES))
            tail = b.sub(width, b.mul(b.sub(vectors, _int(1)), _int(LANES)))  # 1 .. LANES columns
            mask = b.bitcast(b.trunc(b.sub(b.shl(_int(1), tail), _int(1)), _I8), _MASK)
            done = self.function.append_basic_block(f"{name}_done")
            switch = b.switch(vectors, done)
            for count in range(1, PANEL // LANES + 1):
                case = self.function.append_basic_block(f"{name}_{count}")
                switch.add_case(_int(count), case)
                b.position_at_end(case)
                body(column, count, mask)
                b.branch(done)
            b.position_at_end(done)

    def row_block(self):
        """Rows of ``A`` per block, a multiple of ``TILE_ROWS``: their terms of one block of the
        sums in half the L2 cache, so that every panel reads them from there (doitgen's
        11000 x 120 @ 120 x 120, panel by panel over all rows, read its 10 MB ``A`` four times
        from memory: 10% slower than OpenBLAS, which packs it once)."""
        b = self.b
        terms = b.select(b.icmp_signed("<", self.depth, _int(self.depth_block)), self.depth,
                         _int(self.depth_block))
        rows = b.sdiv(_int(self.l2_doubles // 2), terms)
        rows = b.mul(b.sdiv(rows, _int(TILE_ROWS)), _int(TILE_ROWS))
        return b.select(b.icmp_signed("<", rows, _int(TILE_ROWS)), _int(TILE_ROWS), rows)

    def panel(self, rows: tuple, column, vectors: int, mask) -> None:
        """Rows ``first <= r < last`` of the panel, one block of ``depth_block`` terms of the sums
        after the other: tiles of ``TILE_ROWS`` rows, then tiles of one row; the first block
        stores its sums, the later ones add theirs to them."""
        b = self.b
        first, last = rows
        whole = b.add(first, b.mul(b.sdiv(b.sub(last, first), _int(TILE_ROWS)), _int(TILE_ROWS)))
        with self._loop(ll.Constant(_I64, 0), self.depth, self.depth_block, f"terms{vectors}") as start:
            stop = b.select(b.icmp_signed("<", b.sub(self.depth, start), _int(self.depth_block)), self.depth,
                            b.add(start, _int(self.depth_block)))
            terms = (start, stop, b.icmp_signed("!=", start, _int(0)))
            with self._loop(first, whole, TILE_ROWS, f"tiles{vectors}") as row:
                self.tile(row, TILE_ROWS, column, vectors, mask, terms)
            with self._loop(whole, last, 1, f"rest{vectors}") as row:
                self.tile(row, 1, column, vectors, mask, terms)

    def pack(self, buffer, column, vectors: int, mask, terms: tuple) -> None:
        """The panel's rows ``start <= k < stop`` of ``B`` copied to ``buffer``, row after row of
        ``vectors`` vectors (the masked-off columns as zeros), for the tiles to stream."""
        start, stop, _ = terms
        b = self.b
        with self._loop(start, stop, 1, f"pack{vectors}") as step:
            source = b.gep(self.b_, [b.add(b.mul(step, self.ldb), column)])
            target = b.gep(buffer, [b.mul(b.sub(step, start), _int(vectors * LANES))])
            for v in range(vectors):
                part = self.load(b.gep(source, [_int(v * LANES)]), mask if v == vectors - 1 else None)
                b.store(part, b.bitcast(b.gep(target, [_int(v * LANES)]), _VEC.as_pointer()), align=64)

    def tile(self, row, rows: int, column, vectors: int, mask, terms: tuple, packed=None) -> None:
        """``rows x vectors`` sums over the terms ``start <= k < stop`` in registers, then
        ``alpha`` times them stored, or added to ``C`` (``adds``, true after the first block of
        terms: C's old values are loaded either way, once per tile; the last vector with ``mask``)."""
        start, stop, adds = terms
        b = self.b
        a_rows = [b.gep(self.a, [b.mul(b.add(row, _int(r)), self.lda)]) for r in range(rows)]
        before = b.block
        body = self.function.append_basic_block("tile_body")
        after = self.function.append_basic_block("tile_done")
        b.branch(body)
        b.position_at_end(body)
        step = b.phi(_I64)
        sums = [[b.phi(_VEC) for _ in range(vectors)] for _ in range(rows)]
        if packed is not None:
            panel_row = b.gep(packed, [b.mul(b.sub(step, start), _int(vectors * LANES))])
            parts = [b.load(b.bitcast(b.gep(panel_row, [_int(v * LANES)]), _VEC.as_pointer()), align=64)
                     for v in range(vectors)]
        else:
            panel_row = b.gep(self.b_, [b.add(b.mul(step, self.ldb), column)])
            parts = [self.load(b.gep(panel_row, [_int(v * LANES)]), mask if v == vectors - 1 else None)
                     for v in range(vectors)]
        new = []
        for r in range(rows):
            element = self._splat(b.load(b.gep(a_rows[r], [step])))
            new.append([b.call(self.fma, [element, parts[v], sums[r][v]]) for v in range(vectors)])
        next_step = b.add(step, _int(1))
        step.add_incoming(start, before)
        step.add_incoming(next_step, body)
        for r in range(rows):
            for v in range(vectors):
                sums[r][v].add_incoming(ll.Constant(_VEC, None), before)
                sums[r][v].add_incoming(new[r][v], body)
        b.cbranch(b.icmp_signed("<", next_step, stop), body, after)
        b.position_at_end(after)
        for r in range(rows):
            out = b.gep(self.c, [b.add(b.mul(b.add(row, _int(r)), self.ldc), column)])
            for v in range(vectors):
                at, lanes = b.gep(out, [_int(v * LANES)]), mask if v == vectors - 1 else None
                value = b.fmul(self.alpha, new[r][v])
                self.store(b.select(adds, b.fadd(self.load(at, lanes), value), value), at, lanes)

    def load(self, at, mask):
        b = self.b
        if mask is None:
            return b.load(b.bitcast(at, _VEC.as_pointer()), align=8)
        return b.call(self.masked_load, [at, ll.Constant(_I32, 8), mask, ll.Constant(_VEC, None)])

    def store(self, value, at, mask) -> None:
        b = self.b
        if mask is None:
            b.store(value, b.bitcast(at, _VEC.as_pointer()), align=8)
        else:
            b.call(self.masked_store, [value, at, ll.Constant(_I32, 8), mask])

    def _splat(self, scalar):
        b = self.b
        one = b.insert_element(ll.Constant(_VEC, ll.Undefined), scalar, ll.Constant(_I32, 0))
        return b.shuffle_vector(one, ll.Constant(_VEC, ll.Undefined), ll.Constant(ll.VectorType(_I32, LANES), None))

    def _loop(self, start, stop, step, name: str):
        return _Loop(self.b, start, stop, step, name)


class _SharedPacking:
    """The module's table of packed copies of ``B`` that calls running at the same time share:
    ``SLOTS`` slots of ``_FIELDS`` i64s (users, joinable, B, ldb, cols, depth, buffer, states,
    joins) under one spin lock.  ``join`` finds a joinable slot of the same ``B`` (address, row
    stride, columns, terms) or takes a free one (its buffer from ``malloc``, its panels' states
    zeroed by ``calloc``); ``leave`` makes it unjoinable (a call that finished used every panel,
    so a later call, which may come after ``B`` changed, never reads them) and frees it with its
    last user.  A call that joins while another is under way reads ``B`` while that one does:
    the packed panels are what it would read itself, unless ``B`` changes under both (a race in
    the caller's program, as it would be for NumPy)."""

    def __init__(self, module: ll.Module) -> None:
        i8p = _I8.as_pointer()
        self.malloc = _declare(module, ll.FunctionType(i8p, [_I64]), name=_LIBC + "malloc")
        self.calloc = _declare(module, ll.FunctionType(i8p, [_I64, _I64]), name=_LIBC + "calloc")
        self.free = _declare(module, ll.FunctionType(ll.VoidType(), [i8p]), name=_LIBC + "free")
        self.sched_yield = _declare(module, ll.FunctionType(_I32, []), name=_LIBC + "sched_yield")
        self.pause = _declare(module, ll.FunctionType(ll.VoidType(), []), name="llvm.x86.sse2.pause")
        self.table = ll.GlobalVariable(module, ll.ArrayType(_I64, _TABLE_LENGTH), name=TABLE)
        self.table.initializer = ll.Constant(ll.ArrayType(_I64, _TABLE_LENGTH), None)
        self.table.align = 64
        self.lock = self.table.gep([ll.Constant(_I32, 0), ll.Constant(_I32, SLOTS * _FIELDS)])  # (its last i64)
        self.join = self._join(module)
        self.leave = self._leave(module)

    def field(self, b: ll.IRBuilder, slot, k: int):
        index = b.add(b.mul(slot, _int(_FIELDS)), _int(k)) if not isinstance(slot, int) else _int(slot * _FIELDS + k)
        return b.gep(self.table, [ll.Constant(_I32, 0), index])

    def _locked(self, b: ll.IRBuilder) -> None:
        """Spin until the lock is this thread's (``pause`` between tries, ``sched_yield`` every 64)."""
        function = b.function
        entry = b.block
        spin, wait, rest, held = (function.append_basic_block(f"lock_{n}") for n in ("spin", "wait", "yield", "held"))
        b.branch(spin)
        b.position_at_end(spin)
        tries = b.phi(_I64)
        tries.add_incoming(_int(0), entry)
        pair = b.cmpxchg(self.lock, _int(0), _int(1), "acquire", "monotonic")
        b.cbranch(b.extract_value(pair, 1), held, wait)
        b.position_at_end(wait)
        b.call(self.pause, [])
        more = b.add(tries, _int(1))
        tries.add_incoming(more, wait)
        tries.add_incoming(more, rest)
        b.cbranch(b.icmp_unsigned("==", b.and_(more, _int(63)), _int(0)), rest, spin)
        b.position_at_end(rest)
        b.call(self.sched_yield, [])
        b.branch(spin)
        b.position_at_end(held)

    def _join(self, module: ll.Module) -> ll.Function:
        """``join(B, ldb, cols, depth, bytes, states, member*)``: the slot (or -1) and, in
        ``member``, how many calls joined it before this one."""
        kind = ll.FunctionType(_I64, [_I64] * 6 + [_I64.as_pointer()])
        function = ll.Function(module, kind, name=JOIN)
        key, (size, count, member) = function.args[:4], function.args[4:]
        b = ll.IRBuilder(function.append_basic_block("entry"))
        self._locked(b)
        done = function.append_basic_block("done")
        results = []
        for slot in range(SLOTS):  # a slot of the same B still open to joiners
            fields = [b.load(self.field(b, slot, k)) for k in range(6)]
            same = b.and_(b.icmp_signed(">", fields[0], _int(0)), b.icmp_unsigned("!=", fields[1], _int(0)))
            for have, want in zip(fields[2:], key):
                same = b.and_(same, b.icmp_unsigned("==", have, want))
            join, skip = function.append_basic_block(f"join{slot}"), function.append_basic_block(f"next{slot}")
            b.cbranch(same, join, skip)
            b.position_at_end(join)
            b.store(b.add(fields[0], _int(1)), self.field(b, slot, 0))
            joins = b.load(self.field(b, slot, 8))
            b.store(joins, member)
            b.store(b.add(joins, _int(1)), self.field(b, slot, 8))
            results.append((_int(slot), b.block))
            b.branch(done)
            b.position_at_end(skip)
        for slot in range(SLOTS):  # a free slot, its buffers allocated
            take, skip = function.append_basic_block(f"take{slot}"), function.append_basic_block(f"full{slot}")
            b.cbranch(b.icmp_signed("==", b.load(self.field(b, slot, 0)), _int(0)), take, skip)
            b.position_at_end(take)
            raw = b.call(self.malloc, [size])
            states = b.call(self.calloc, [count, _int(4)])
            failed = b.or_(b.icmp_unsigned("==", b.ptrtoint(raw, _I64), _int(0)),
                           b.icmp_unsigned("==", b.ptrtoint(states, _I64), _int(0)))
            ok, bad = function.append_basic_block(f"taken{slot}"), function.append_basic_block(f"nomem{slot}")
            b.cbranch(failed, bad, ok)
            b.position_at_end(bad)
            b.call(self.free, [raw])
            b.call(self.free, [states])
            results.append((_int(-1), b.block))
            b.branch(done)
            b.position_at_end(ok)
            values = [_int(1), _int(1), *key, b.ptrtoint(raw, _I64), b.ptrtoint(states, _I64), _int(1)]
            for k, value in enumerate(values):
                b.store(value, self.field(b, slot, k))
            b.store(_int(0), member)
            results.append((_int(slot), b.block))
            b.branch(done)
            b.position_at_end(skip)
        results.append((_int(-1), b.block))
        b.branch(done)
        b.position_at_end(done)
        result = b.phi(_I64)
        for value, block in results:
            result.add_incoming(value, block)
        b.store_atomic(_int(0), self.lock, "release", 8)
        b.ret(result)
        return function

    def _leave(self, module: ll.Module) -> ll.Function:
        """``leave(slot)``: closed to joiners; freed by its last user."""
        function = ll.Function(module, ll.FunctionType(ll.VoidType(), [_I64]), name=LEAVE)
        slot = function.args[0]
        b = ll.IRBuilder(function.append_basic_block("entry"))
        self._locked(b)
        b.store(_int(0), self.field(b, slot, 1))
        users = b.sub(b.load(self.field(b, slot, 0)), _int(1))
        b.store(users, self.field(b, slot, 0))
        last, done = function.append_basic_block("last"), function.append_basic_block("done")
        b.cbranch(b.icmp_signed("==", users, _int(0)), last, done)
        b.position_at_end(last)
        for k in (6, 7):
            b.call(self.free, [b.inttoptr(b.load(self.field(b, slot, k)), _I8.as_pointer())])
        b.branch(done)
        b.position_at_end(done)
        b.store_atomic(_int(0), self.lock, "release", 8)
        b.ret_void()
        return function


class _Loop:
    """``for i in range(start, stop, step)`` at the builder (``step`` a positive number or
    value): the body is emitted in the ``with``."""

    def __init__(self, b: ll.IRBuilder, start, stop, step, name: str) -> None:
        self.b, self.start, self.stop, self.step, self.name = b, start, stop, step, name

    def __enter__(self):
        b = self.b
        before = b.block
        self.head, body, self.done = (b.function.append_basic_block(f"{self.name}_{part}")
                                      for part in ("head", "body", "done"))
        b.branch(self.head)
        b.position_at_end(self.head)
        self.i = b.phi(_I64)
        self.i.add_incoming(self.start, before)
        b.cbranch(b.icmp_signed("<", self.i, self.stop), body, self.done)
        b.position_at_end(body)
        return self.i

    def __exit__(self, *exc) -> None:
        b = self.b
        step = _int(self.step) if isinstance(self.step, int) else self.step
        self.i.add_incoming(b.add(self.i, step), b.block)
        b.branch(self.head)
        b.position_at_end(self.done)


def _ensure(b: ll.IRBuilder, yields: tuple, state, pack) -> None:
    """Before a panel's use: packed (state 2) goes on; unpacked (0) is claimed (1) and packed
    by ``pack()`` here (by this call alone where its buffer is its own); being packed by
    another call is waited for (``pause``,
    ``sched_yield`` every 256 tries)."""
    function = b.function
    pause, sched_yield = yields
    ready, claim, packing, wait, rest = (function.append_basic_block(f"panel_{n}")
                                         for n in ("ready", "claim", "pack", "wait", "yield"))
    b.cbranch(b.icmp_signed("==", b.load_atomic(state, "acquire", 4), ll.Constant(_I32, 2)), ready, claim)
    b.position_at_end(claim)
    pair = b.cmpxchg(state, ll.Constant(_I32, 0), ll.Constant(_I32, 1), "acq_rel", "acquire")
    b.cbranch(b.extract_value(pair, 1), packing, wait)
    b.position_at_end(packing)
    pack()
    b.store_atomic(ll.Constant(_I32, 2), state, "release", 4)
    b.branch(ready)
    b.position_at_end(wait)
    tries = b.phi(_I64)
    tries.add_incoming(_int(0), claim)
    b.call(pause, [])
    more = b.add(tries, _int(1))
    spin = function.append_basic_block("panel_spin")
    tries.add_incoming(more, spin)
    tries.add_incoming(more, rest)
    b.cbranch(b.icmp_signed("==", b.load_atomic(state, "acquire", 4), ll.Constant(_I32, 2)), ready, spin)
    b.position_at_end(spin)
    b.cbranch(b.icmp_unsigned("==", b.and_(more, _int(255)), _int(0)), rest, wait)
    b.position_at_end(rest)
    b.call(sched_yield, [])
    b.branch(wait)
    b.position_at_end(ready)


def _declare(module: ll.Module, kind: ll.FunctionType, name: str) -> ll.Function:
    """The function ``name`` of ``module``, declared if it is not yet."""
    known = module.globals.get(name)
    return known if isinstance(known, ll.Function) else ll.Function(module, kind, name=name)


def _int(value: int) -> ll.Constant:
    return ll.Constant(_I64, value)
