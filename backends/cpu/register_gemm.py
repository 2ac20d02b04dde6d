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
with a mask.  Each element of ``C`` is ``alpha`` times its sum, each block's terms in order, one
rounding per term (the FMA), as ``?gemm`` sums in its own blocked order: the same within BLAS's
tolerance (docs/subset.md, *Matrix products*).

Only for hosts with AVX-512 (the vector of 8 doubles is one register there; with 16 registers of
4 doubles the tiles would spill) and only where measured to win: at most ``MAX_COLS`` columns.
"""

from __future__ import annotations

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
#: NumPy's call and jax.jit (docs/performance.md): 64 columns 2.69 ms against OpenBLAS's 3.64,
#: 256 columns 10.6 against 11.6, 1024 columns 22.8 against 20.9 (wide products: packing wins)
MAX_COLS = 256
REG_GEMM = "polyfuse.blas.dregtiles"

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


def compile_tiles(l2_bytes: int, engines: list) -> int:
    """The address of ``REG_GEMM`` compiled for the host: LLVM's code generator only (the IR is
    already vectors; the -O3 pipeline took ~0.9 s for no gain; this takes ~80 ms of CPU), its
    engine appended to ``engines`` (kept for the process)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = ll.Module(name="polyfuse.regtiles")
    module.triple = llvm.get_process_triple()
    define(module, l2_bytes)
    parsed = llvm.parse_assembly(str(module))
    target = llvm.Target.from_triple(module.triple).create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3)
    engine = llvm.create_mcjit_compiler(parsed, target)
    engine.finalize_object()
    engines.append(engine)
    return engine.get_function_address(REG_GEMM)


def define(module: ll.Module, l2_bytes: int) -> ll.Function:
    """``REG_GEMM(rows, cols, depth, alpha, A, lda, B, ldb, C, ldc)`` in ``module``: the caller
    guarantees rows, cols, depth >= 1 and the row-major layouts above (lda, ldb, ldc the rows'
    strides in elements); the sums run in blocks of ``depth_block(l2_bytes)`` terms."""
    function = ll.Function(module, KIND, name=REG_GEMM)
    for argument in function.args[4:9:2]:
        argument.add_attribute("noalias")
    _Emitter(module, function, l2_bytes).emit()
    return function


class _Emitter:
    """The routine's loops, one method per level: blocks of rows and panels, tiles, one tile."""

    def __init__(self, module: ll.Module, function: ll.Function, l2_bytes: int) -> None:
        self.function = function
        self.depth_block = depth_block(l2_bytes)
        self.l2_doubles = l2_bytes // 8
        (self.rows, self.cols, self.depth, alpha, self.a, self.lda, self.b_, self.ldb, self.c,
         self.ldc) = function.args
        self.b = ll.IRBuilder(function.append_basic_block("entry"))
        self.alpha = self._splat(alpha)
        ptr = _REAL.as_pointer()
        self.fma = ll.Function(module, ll.FunctionType(_VEC, [_VEC, _VEC, _VEC]), name="llvm.fma.v8f64")
        self.masked_load = ll.Function(module, ll.FunctionType(_VEC, [ptr, _I32, _MASK, _VEC]),
                                       name="llvm.masked.load.v8f64.p0")
        self.masked_store = ll.Function(module, ll.FunctionType(ll.VoidType(), [_VEC, ptr, _I32, _MASK]),
                                        name="llvm.masked.store.v8f64.p0")

    def emit(self) -> None:
        """Block by block of rows (``row_block``), panel by panel of ``PANEL`` columns; the last
        panel's vectors (1 to ``PANEL / LANES``, the last of them masked) picked by a switch."""
        b = self.b
        block = self.row_block()
        with self._loop(ll.Constant(_I64, 0), self.rows, block, "rows") as first:
            last = b.select(b.icmp_signed("<", b.sub(self.rows, first), block), self.rows, b.add(first, block))
            with self._loop(ll.Constant(_I64, 0), self.cols, PANEL, "panel") as column:
                width = b.select(b.icmp_signed("<", b.sub(self.cols, column), _int(PANEL)),
                                 b.sub(self.cols, column), _int(PANEL))
                vectors = b.sdiv(b.add(width, _int(LANES - 1)), _int(LANES))
                tail = b.sub(width, b.mul(b.sub(vectors, _int(1)), _int(LANES)))  # 1 .. LANES columns
                mask = b.bitcast(b.trunc(b.sub(b.shl(_int(1), tail), _int(1)), _I8), _MASK)
                done = self.function.append_basic_block("panel_done")
                switch = b.switch(vectors, done)
                for count in range(1, PANEL // LANES + 1):
                    case = self.function.append_basic_block(f"panel_{count}")
                    switch.add_case(_int(count), case)
                    b.position_at_end(case)
                    self.panel((first, last), column, count, mask)
                    b.branch(done)
                b.position_at_end(done)
        b.ret_void()

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

    def tile(self, row, rows: int, column, vectors: int, mask, terms: tuple) -> None:
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


def _int(value: int) -> ll.Constant:
    return ll.Constant(_I64, value)
