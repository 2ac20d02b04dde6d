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
terms of such a block of ``B`` is copied once, panel after panel, rows contiguous, into one
64-byte aligned buffer (``malloc``), and every block of rows of ``A`` streams the packed panels
(a row of an unpacked panel of a wide ``B`` lies on a new page, past the prefetchers, and was read
from L3 again for every row block).  A failed ``malloc`` runs the unpacked routine.

Each element of ``C`` is ``alpha`` times its sum, each block's terms in order, one rounding per
term (the FMA), as ``?gemm`` sums in its own blocked order: the same within BLAS's tolerance
(docs/subset.md, *Matrix products*).

Only for hosts with AVX-512 (the vector of 8 doubles is one register there; with 16 registers of
4 doubles the tiles would spill) and only where measured to win: at most ``MAX_COLS`` columns.
"""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
from llvmlite import ir as ll

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
#: copy each block of terms of a panel of ``B`` into a contiguous, aligned buffer on the stack
#: (``depth_block x PANEL`` doubles) that the tiles of a block of rows stream
PACKED = True
#: products with fewer columns run unpacked (1024 x 1100 x 64: packed 2.59-2.71 ms against 2.53-2.65)
PACK_MIN_COLS = 128

_LIBC = "polyfuse.regtiles.libc."  # malloc and free, by these names (``llvm.add_symbol``)
_I1, _I8, _I32, _I64 = ll.IntType(1), ll.IntType(8), ll.IntType(32), ll.IntType(64)
_REAL = ll.DoubleType()
_VEC = ll.VectorType(_REAL, LANES)
_MASK = ll.VectorType(_I1, LANES)
_PTR = _REAL.as_pointer()
#: REG_GEMM(rows, cols, depth, alpha, A, lda, B, ldb, C, ldc)
KIND = ll.FunctionType(ll.VoidType(), [_I64, _I64, _I64, _REAL, _PTR, _I64, _PTR, _I64, _PTR, _I64])


def host_has_lanes() -> bool:
    """Does the host have the 512-bit vectors the routine's tiles are sized for?"""
    features = llvm.get_host_cpu_features()
    return bool(features.get("avx512f", False))


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


def compile_tiles(l2_bytes: int, engines: list, packed: bool = PACKED, l3_bytes: int = 0) -> int:
    """The address of ``REG_GEMM`` compiled for the host: LLVM's code generator only (the IR is
    already vectors; the -O3 pipeline took ~0.9 s for no gain; this takes ~80 ms of CPU), its
    engine appended to ``engines`` (kept for the process)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    libc = ctypes.CDLL(None)
    for name in ("malloc", "free"):
        llvm.add_symbol(_LIBC + name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
    module = ll.Module(name="polyfuse.regtiles")
    module.triple = llvm.get_process_triple()
    define(module, l2_bytes, packed, l3_bytes)
    parsed = llvm.parse_assembly(str(module))
    target = llvm.Target.from_triple(module.triple).create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3)
    engine = llvm.create_mcjit_compiler(parsed, target)
    engine.finalize_object()
    engines.append(engine)
    return engine.get_function_address(REG_GEMM)


def define(module: ll.Module, l2_bytes: int, packed: bool = PACKED, l3_bytes: int = 0) -> ll.Function:
    """``REG_GEMM(rows, cols, depth, alpha, A, lda, B, ldb, C, ldc)`` in ``module``: the caller
    guarantees rows, cols, depth >= 1 and the row-major layouts above (lda, ldb, ldc the rows'
    strides in elements); the sums run in blocks of ``depth_block(l2_bytes)`` terms."""
    def routine(name: str, packs: bool, unpacked=None) -> ll.Function:
        function = ll.Function(module, KIND, name=name)
        for argument in function.args[4:9:2]:
            argument.add_attribute("noalias")
        _Emitter(module, function, (l2_bytes, l3_bytes), packs, unpacked).emit()
        return function

    if not packed:
        return routine(REG_GEMM, False)
    unpacked = routine(REG_GEMM + ".unpacked", False)
    unpacked.linkage = "internal"
    return routine(REG_GEMM, True, unpacked)


class _Emitter:
    """The routine's loops, one method per level: blocks of rows and panels, tiles, one tile."""

    def __init__(self, module: ll.Module, function: ll.Function, caches: tuple, packed: bool,
                 unpacked: ll.Function | None) -> None:
        self.function = function
        self.packed, self.unpacked = packed, unpacked
        if packed:
            self.malloc = _declare(module, ll.FunctionType(_I8.as_pointer(), [_I64]), name=_LIBC + "malloc")
            self.free = _declare(module, ll.FunctionType(ll.VoidType(), [_I8.as_pointer()]), name=_LIBC + "free")
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
        """The Goto/BLIS order: for each block of ``depth_block`` terms, the block's rows of ``B``
        copied panel by panel into one buffer (``malloc``: ``terms x panels x PANEL`` doubles,
        64-byte aligned; the panel of columns ``c ..`` at ``c x terms``, its rows contiguous),
        then the rows of ``A`` in blocks, each block's tiles panel by panel streaming the packed
        panel (from L2, prefetched: a row of an unpacked panel of a wide ``B`` is a new page).
        Where ``malloc`` fails, the unpacked routine runs."""
        b = self.b
        terms = b.select(b.icmp_signed("<", self.depth, _int(self.depth_block)), self.depth, _int(self.depth_block))
        wide = b.select(b.icmp_signed("<", self.cols, _int(self.col_block)), self.cols, _int(self.col_block))
        panels = b.sdiv(b.add(wide, _int(PANEL - 1)), _int(PANEL))
        size = b.add(b.mul(b.mul(terms, panels), _int(PANEL * 8)), _int(64))
        narrow, wide_enough = (self.function.append_basic_block(name) for name in ("narrow", "wide"))
        b.cbranch(b.icmp_signed("<", self.cols, _int(PACK_MIN_COLS)), narrow, wide_enough)
        b.position_at_end(wide_enough)
        raw = b.call(self.malloc, [size])
        works = self.function.append_basic_block("buffer")
        b.cbranch(b.icmp_unsigned("==", b.ptrtoint(raw, _I64), _int(0)), narrow, works)
        b.position_at_end(narrow)
        b.call(self.unpacked, list(self.function.args))
        b.ret_void()
        b.position_at_end(works)
        aligned = b.and_(b.add(b.ptrtoint(raw, _I64), _int(63)), _int(-64))
        buffer = b.inttoptr(aligned, _PTR)
        block = self.row_block()
        with self._loop(ll.Constant(_I64, 0), self.cols, self.col_block, "columns") as left:
            right = b.select(b.icmp_signed("<", b.sub(self.cols, left), _int(self.col_block)), self.cols,
                             b.add(left, _int(self.col_block)))
            with self._loop(ll.Constant(_I64, 0), self.depth, self.depth_block, "terms") as start:
                stop = b.select(b.icmp_signed("<", b.sub(self.depth, start), _int(self.depth_block)), self.depth,
                                b.add(start, _int(self.depth_block)))
                span = (start, stop, b.icmp_signed("!=", start, _int(0)))

                def pack(column, count, mask):
                    self.pack(b.gep(buffer, [b.mul(b.sub(column, left), terms)]), column, count, mask, span)
                self.panels(pack, "pack_panel", (left, right))
                with self._loop(ll.Constant(_I64, 0), self.rows, block, "rows") as first:
                    last = b.select(b.icmp_signed("<", b.sub(self.rows, first), block), self.rows,
                                    b.add(first, block))
                    whole = b.add(first, b.mul(b.sdiv(b.sub(last, first), _int(TILE_ROWS)), _int(TILE_ROWS)))

                    def tiles(column, count, mask):
                        packed = b.gep(buffer, [b.mul(b.sub(column, left), terms)])
                        with self._loop(first, whole, TILE_ROWS, f"ptiles{count}") as row:
                            self.tile(row, TILE_ROWS, column, count, mask, span, packed)
                        with self._loop(whole, last, 1, f"prest{count}") as row:
                            self.tile(row, 1, column, count, mask, span, packed)
                    self.panels(tiles, "tile_panel", (left, right))
        b.call(self.free, [raw])
        b.ret_void()

    def panels(self, body, name: str, columns: tuple | None = None) -> None:
        """``body(column, vectors, mask)`` for each panel of ``PANEL`` columns; the last panel's
        vectors (1 to ``PANEL / LANES``, the last of them masked) picked by a switch."""
        b = self.b
        left, right = columns or (ll.Constant(_I64, 0), self.cols)
        with self._loop(left, right, PANEL, name) as column:
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


def _declare(module: ll.Module, kind: ll.FunctionType, name: str) -> ll.Function:
    """The function ``name`` of ``module``, declared if it is not yet."""
    known = module.globals.get(name)
    return known if isinstance(known, ll.Function) else ll.Function(module, kind, name=name)


def _int(value: int) -> ll.Constant:
    return ll.Constant(_I64, value)
