"""The register tiles for float64 products with few columns (backends/cpu/register_gemm.py),
called from ``ROW_GEMM`` (backends/cpu/blas.py): against NumPy within BLAS's tolerance (rtol
1e-10), on the edges of the tiles (rows past the last tile of 6, columns past the last vector of
8 and the last panel of 32), leading dimensions wider than the rows, ``alpha``, sums and rows cut
into blocks (forced by a pretend small L2), and through kernels on one and two threads."""

from __future__ import annotations

import ctypes
import functools
import math
import os
import threading

import numpy as np
import pytest
from llvmlite import ir as ll
from polyfuse.backends.cpu import blas
from polyfuse.backends.cpu import register_gemm as tiles

import polyfuse
from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not (blas.available() and tiles.host_has_lanes()),
                                reason="needs a BLAS and a host with AVX-512")
RNG = np.random.default_rng(11)
_ARGS = (ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64,
         ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)


def _routine(l2_bytes: int | None = None, l3_bytes: int = 0, packed: bool = tiles.PACKED, shared: bool | None = None):
    """The tiles as a ctypes function: the process's, or compiled for pretend cache sizes."""
    if l2_bytes is None:
        address = blas.tiles_address()
    else:
        address = tiles.compile_tiles(l2_bytes, blas._ENGINES, packed, l3_bytes, shared)
    return ctypes.CFUNCTYPE(None, *_ARGS)(address)


def _product(routine, rows, depth, cols, alpha=1.0):
    """alpha * A @ B by the tiles, from views with leading dimensions wider than their rows, into
    the middle of a larger array whose other elements must stay as they were."""
    A = RNG.standard_normal((rows, depth + 3))[:, 1:depth + 1]
    B = RNG.standard_normal((depth, cols + 5))[:, 2:cols + 2]
    C = np.full((rows + 2, cols + 9), 7.0)
    out = C[1:rows + 1, 4:cols + 4]
    routine(rows, cols, depth, alpha, A.ctypes.data, A.strides[0] // 8, B.ctypes.data, B.strides[0] // 8,
            out.ctypes.data, C.strides[0] // 8)
    np.testing.assert_allclose(out, alpha * (A @ B), rtol=1e-10, atol=1e-10)
    untouched = np.ones(C.shape, bool)
    untouched[1:rows + 1, 4:cols + 4] = False
    assert (C[untouched] == 7.0).all()


@pytest.mark.parametrize("rows, depth, cols", [
    (1, 1, 1), (3, 2, 7), (4, 5, 8), (5, 9, 9), (9, 17, 31), (8, 3, 32), (7, 4, 33), (13, 40, 100),
    (6, 11, 256), (12, 2, 24), (35, 1, 65), (7, 5, 128), (8, 13, 301)])
def test_tiles_match_numpy_on_every_edge(rows, depth, cols):
    _product(_routine(), rows, depth, cols, alpha=1.0 if cols % 2 else -2.5)


@pytest.mark.parametrize("l2_bytes", [8 * 1024, 1024])
@pytest.mark.parametrize("rows, depth, cols", [(5, 8, 20), (21, 9, 40), (6, 41, 33), (13, 100, 8), (20, 17, 70)])
def test_sums_and_rows_cut_into_blocks(l2_bytes, rows, depth, cols):
    """A pretend small L2 makes blocks of 8 terms (the first block stores, the later ones add)
    and, at 1 KiB, blocks of 6 rows (half the L2 over 8 terms, down to a multiple of 6)."""
    routine = _routine(l2_bytes=l2_bytes)
    assert tiles.depth_block(l2_bytes) == 8
    _product(routine, rows, depth, cols, alpha=0.5)


@pytest.mark.parametrize("caches, rows, depth, cols", [
    ((1024, 0), 13, 20, 130), ((1024, 0), 7, 17, 161), ((1024, 0), 20, 9, 128),
    ((8192, 65536), 9, 30, 300), ((8192, 65536), 25, 3, 520)])
def test_packed_panels_cut_into_blocks(caches, rows, depth, cols):
    """Products of at least ``PACK_MIN_COLS`` columns pack ``B``'s panels: pretend caches make
    blocks of 8 terms and of 32 (1 KiB L2, no L3) or 256 columns (64 KiB L3), the last panel
    partial."""
    assert tiles.depth_block(caches[0]) == 8
    assert tiles.col_block(*caches) == (32 if caches[1] == 0 else 256)
    _product(_routine(*caches), rows, depth, cols, alpha=-1.5)


def test_packed_and_unpacked_routines_agree_bit_for_bit():
    """Packing changes where the tiles read ``B``, not the order of any sum's terms."""
    A, B = RNG.standard_normal((14, 19)), RNG.standard_normal((19, 200))
    results = []
    for packed in (True, False):
        C = np.empty((14, 200))
        _routine(8192, 65536, packed)(14, 200, 19, 0.75, A.ctypes.data, 19, B.ctypes.data, 200, C.ctypes.data, 200)
        results.append(C)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[0], 0.75 * (A @ B), rtol=1e-10, atol=1e-10)


def _call(routine, A, B, C, first, last, alpha):
    routine(last - first, B.shape[1], A.shape[1], alpha, A[first:].ctypes.data, A.strides[0] // 8, B.ctypes.data,
            B.strides[0] // 8, C[first:].ctypes.data, C.strides[0] // 8)


def _at_once(calls: list) -> None:
    """Each call on its own thread, started together."""
    start = threading.Barrier(len(calls))

    def run(call):
        start.wait()
        call()
    team = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in team:
        thread.start()
    for thread in team:
        thread.join()


@functools.cache
def _shared_module(shared: bool):
    """The tiles for pretend caches (blocks of 8 terms and 256 columns), sharing packed panels or
    not, and (shared) the engine that holds their table of shared copies."""
    return _routine(8192, 65536, shared=shared), blas._ENGINES[-1]


@pytest.mark.parametrize("rows, depth, cols", [(31, 20, 130), (14, 17, 301), (9, 3, 129)])
def test_calls_on_one_b_share_its_packed_panels(rows, depth, cols):
    """Calls at the same time on one ``B`` (the rows cut among threads, as a product's row chunks
    run) share its packed panels: here the test holds the shared copy open (``JOIN``), so that
    the call joins second or third (it walks the panels from the middle or from a quarter, and
    packs them all), and then calls on threads at once; their sums are those of calls packing their own, bit for bit, the
    last panel partial and the terms in blocks."""
    (shared, engine), (private, _) = _shared_module(True), _shared_module(False)
    A, B = RNG.standard_normal((rows, depth)), RNG.standard_normal((depth, cols))
    want = np.empty((rows, cols))
    _call(private, A, B, want, 0, rows, -0.5)
    np.testing.assert_allclose(want, -0.5 * (A @ B), rtol=1e-10, atol=1e-10)
    join = ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_int64] * 6, ctypes.POINTER(ctypes.c_int64))(
        engine.get_function_address(tiles.JOIN))
    leave = ctypes.CFUNCTYPE(None, ctypes.c_int64)(engine.get_function_address(tiles.LEAVE))
    table = (ctypes.c_int64 * (tiles.SLOTS * 16)).from_address(engine.get_global_value_address(tiles.TABLE))
    panels, blocks = -(-cols // tiles.PANEL), -(-depth // tiles.depth_block(8192))
    for held in (1, 2):  # the call joins second (starts from the middle), or third (from 1/4)
        member = ctypes.c_int64()
        slots = [join(B.ctypes.data, cols, cols, depth, depth * panels * tiles.PANEL * 8 + 64, blocks * panels,
                      ctypes.byref(member)) for _ in range(held)]
        slot = slots[0]
        assert slot >= 0 and slots == [slot] * held and member.value == held - 1
        try:
            got = np.full((rows, cols), np.nan)
            _call(shared, A, B, got, 1, rows, -0.5)
            np.testing.assert_array_equal(got[1:], want[1:])
            assert table[slot * 16 + 8] == held + 1  # the call joined the test's copy
            _call(shared, A, B, got, 0, 1, -0.5)  # (closed to joiners once a call left: packs its own)
            assert table[slot * 16 + 8] == held + 1
            np.testing.assert_array_equal(got, want)
        finally:
            for _ in range(held):
                leave(slot)
    assert all(table[k * 16] == 0 for k in range(tiles.SLOTS))  # every copy freed
    got = np.full((rows, cols), np.nan)
    _at_once([lambda k=k: _call(shared, A, B, got, k * rows // 3, (k + 1) * rows // 3, -0.5) for k in range(3)])
    np.testing.assert_array_equal(got, want)


def test_a_forked_child_forgets_the_parents_shared_copies():
    """A copy held by a thread of the parent (here: the test's ``JOIN``) is not in the child:
    the table is emptied and its lock freed there (``forget_shared_copies``, run after a fork),
    so that the child packs its own; and the child's products are right."""
    routine, engine = _shared_module(True)
    table_at = engine.get_global_value_address(tiles.TABLE)
    table = (ctypes.c_int64 * (tiles.SLOTS * 16)).from_address(table_at)
    join = ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_int64] * 6, ctypes.POINTER(ctypes.c_int64))(
        engine.get_function_address(tiles.JOIN))
    leave = ctypes.CFUNCTYPE(None, ctypes.c_int64)(engine.get_function_address(tiles.LEAVE))
    A, B = RNG.standard_normal((8, 9)), RNG.standard_normal((9, 140))
    slot = join(B.ctypes.data, 140, 140, 9, 9 * 5 * tiles.PANEL * 8 + 64, 2 * 5, ctypes.byref(ctypes.c_int64()))
    assert slot >= 0
    pid = os.fork()
    if pid == 0:  # the child: exits 0 only if the table is empty and a product on B is right
        try:
            empty = all(table[k * 16] == 0 for k in range(tiles.SLOTS))
            B[0, 0] += 1.0  # (the parent's copy would be stale)
            C = np.empty((8, 140))
            _call(routine, A, B, C, 0, 8, 1.0)
            os._exit(0 if empty and np.allclose(C, A @ B, rtol=1e-10, atol=1e-10) else 1)
        except BaseException:
            os._exit(2)
    try:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert table[slot * 16] == 1  # the parent's copy is still there
    finally:
        leave(slot)


def test_shared_panels_never_outlive_the_calls_that_share_them():
    """Threads multiplying by their own ``B`` (changed between two of its calls) and by a common
    one, at the same time: a call never reads panels packed before its ``B`` changed."""
    routine = _shared_module(True)[0]
    common = RNG.standard_normal((12, 140))
    wrong = []

    def work(seed, own):
        rng = np.random.default_rng(seed)
        B = rng.standard_normal((9, 133)) if own else common
        for step in range(40):
            if own:
                B[...] = rng.standard_normal(B.shape)
            A = rng.standard_normal((int(rng.integers(1, 13)), B.shape[0]))
            C = np.empty((A.shape[0], B.shape[1]))
            _call(routine, A, B, C, 0, A.shape[0], 1.0)
            if not np.allclose(C, A @ B, rtol=1e-10, atol=1e-10):
                wrong.append((seed, step))
    _at_once([lambda s=s: work(s, s % 2 == 0) for s in range(4)])
    assert not wrong


def test_too_large_to_share_packs_its_own(monkeypatch):
    """A ``B`` whose packed copy exceeds ``SHARED_MAX_BYTES`` packs its own panels."""
    monkeypatch.setattr(tiles, "SHARED_MAX_BYTES", 4096)
    routine = _routine(8192, 65536, shared=True)
    A, B = RNG.standard_normal((20, 10)), RNG.standard_normal((10, 200))
    C = np.empty((20, 200))
    _at_once([lambda: _call(routine, A, B, C, 0, 7, 2.0), lambda: _call(routine, A, B, C, 7, 20, 2.0)])
    np.testing.assert_allclose(C, 2.0 * (A @ B), rtol=1e-10, atol=1e-10)


def test_the_tiles_machine_code_comes_from_the_disk_cache(monkeypatch, tmp_path):
    """The first process stores the tiles' machine code; the next loads it (nothing built or
    generated) and it computes the same products."""
    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE", raising=False)
    made = blas.tiles_address.__wrapped__()
    from polyfuse.runtime import cache
    assert isinstance(cache.load(blas.tiles_cache_key()), bytes)

    def not_again(*args, **kwargs):
        raise AssertionError("built again")
    monkeypatch.setattr(tiles, "define", not_again)
    loaded = blas.tiles_address.__wrapped__()
    if tiles.shared_packing():  # (its shared copies' table, emptied in forked children)
        assert blas._ENGINES[-1].get_global_value_address(tiles.TABLE)
    A, B = RNG.standard_normal((13, 20)), RNG.standard_normal((20, 150))
    results = []
    for address in (made, loaded):
        C = np.empty((13, 150))
        _call(ctypes.CFUNCTYPE(None, *_ARGS)(address), A, B, C, 0, 13, 1.5)
        results.append(C)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[1], 1.5 * (A @ B), rtol=1e-10, atol=1e-10)


def test_row_gemm_builds_with_and_without_the_tiles():
    """``POLYFUSE_REGISTER_GEMM=0`` (read when ``ROW_GEMM`` is built) leaves the tiles out."""
    integer = ll.IntType(64)
    assert blas.TILES_RESOLVER in str(blas.row_gemm_module(integer, with_tiles=True))
    assert blas.TILES_RESOLVER not in str(blas.row_gemm_module(integer, with_tiles=False))


def mlp(x, W1, b1, W2):
    return np.maximum(x @ W1 + b1, 0.0) @ W2


def attention(Q, K, V):
    S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]))
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    return (P / P.sum(axis=-1, keepdims=True)) @ V


def wide(A, B):
    return A @ B


def scaled_into_slice(A, B, C):
    C[1:, 3:-2] = 2.5 * A[1:] @ B


# sizes with rows x columns x terms >= TILES_MIN_WORK in the products that take the tiles
_CASES = [
    (mlp, lambda: (RNG.standard_normal((131, 90)), RNG.standard_normal((90, 100)), RNG.standard_normal(100),
                   RNG.standard_normal((100, 90)))),
    (attention, lambda: (RNG.standard_normal((130, 16)), RNG.standard_normal((120, 16)),
                         RNG.standard_normal((120, 70)))),
    (wide, lambda: (RNG.standard_normal((70, 60)), RNG.standard_normal((60, 300)))),
    (scaled_into_slice, lambda: (RNG.standard_normal((131, 80)), RNG.standard_normal((80, 105)),
                                 np.zeros((131, 110)))),
]


@pytest.mark.parametrize("func, make", _CASES, ids=[c[0].__name__ for c in _CASES])
@pytest.mark.parametrize("count", [1, 2])
def test_kernels_with_the_tiles_match_numpy(forced, monkeypatch, func, make, count):
    """Whole products and their rows cut among two threads (forced teams) take the tiles: each
    kernel's ``ROW_GEMM`` asks the resolver for their address (counted here, whatever earlier
    tests of the process asked: ``tiles_address`` itself is cached)."""
    asked, real = [], blas.tiles_address

    def counted() -> int:
        asked.append(1)
        return real()

    monkeypatch.setattr(blas, "tiles_address", counted)
    args = make()
    kernel = polyfuse.kernel(func)
    threads.set_num_threads(count)
    for _ in range(3):  # (the first call of a phase on two threads is its serial measurement)
        ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got, want = kernel(*ours), func(*theirs)
        if want is None:
            got, want = ours[-1], theirs[-1]
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    assert asked  # ROW_GEMM asked for the tiles


def test_tiles_that_cannot_be_compiled_leave_the_product_to_blas(monkeypatch, caplog):
    """The resolver answers 0 (``ROW_GEMM`` then calls ``?dgemm``), logs why once, and does not
    try again."""
    tries = []

    def broken() -> int:
        tries.append(1)
        raise RuntimeError("no target")

    monkeypatch.setattr(blas, "tiles_address", broken)
    monkeypatch.setattr(blas, "_FAILED", [])
    assert blas._resolve_tiles() == 0
    assert blas._resolve_tiles() == 0
    assert len(tries) == 1
    assert "could not be compiled" in caplog.text


@pytest.mark.parametrize("plain", ["1", "0"])
def test_row_gemm_takes_the_tiles_only_with_the_library_on_one_thread(monkeypatch, plain):
    """The tiles run on the calling thread alone: with NumPy's OpenBLAS on two threads a product
    of ``THREADS_MIN_WORK`` multiply-adds or more through ``ROW_GEMM`` is its ``?dgemm`` (NumPy's
    own bits), under ``blas_on_one_thread`` the tiles (their address asked of the resolver once
    per kernel: counted here); a smaller one takes them at any count.  (Polyfuse on one thread:
    the product runs as is, no mode measured, with ``POLYFUSE_BLAS_PLAIN_LIBRARY`` too:
    ``phases.library_here``.)"""
    from polyfuse.runtime.linalg_library import blas_on_one_thread, thread_count_functions

    monkeypatch.setenv("POLYFUSE_BLAS_PLAIN_LIBRARY", plain)
    functions = thread_count_functions()
    if functions is None or not blas.blas_thread_counter():
        pytest.skip("needs NumPy's OpenBLAS, whose thread count polyfuse reads")
    assert blas.THREAD_COUNT in blas.row_gemm_text(True)
    get, put = functions
    asked, real = [], blas.tiles_address

    def counted() -> int:
        asked.append(1)
        return real()

    monkeypatch.setattr(blas, "tiles_address", counted)
    monkeypatch.setattr(threads, "_num_threads", 1)
    A, B = RNG.standard_normal((200, 200)), RNG.standard_normal((200, 210))  # 8.4M multiply-adds
    assert 200 * 200 * 210 >= blas.THREADS_MIN_WORK
    small = (RNG.standard_normal((70, 60)), RNG.standard_normal((60, 300)))  # 1.26M: the tiles' at any count
    saved = get()
    put(2)
    try:
        if get() < 2:
            pytest.skip("the library runs on one thread here")
        big, little = polyfuse.kernel(wide, cache=False), polyfuse.kernel(wide, cache=False)
        np.testing.assert_array_equal(big(A, B), A @ B)
        assert not asked
        little(*small)
        assert asked
        asked.clear()
        with blas_on_one_thread():
            got = big(A, B)
        assert asked
        np.testing.assert_allclose(got, A @ B, rtol=1e-10, atol=1e-10)
    finally:
        put(saved)


def stacked(X, W):
    return X @ W  # a stack of products: one product of all its rows (the strides chain)


@pytest.mark.parametrize("through", ["1", "0"])
def test_a_stack_of_products_takes_the_tiles_through_row_gemm(monkeypatch, through):
    """``POLYFUSE_STACK_ROW_GEMM``: a stack's one product of all its rows (doitgen's, NumPy's
    ``X3 @ W``) goes through ``ROW_GEMM`` and so takes the tiles (under ``THREADS_MIN_WORK``: at any
    library thread count); 0 calls ``?dgemm`` itself.  NumPy's results either way (BLAS's tolerance)."""
    asked, real = [], blas.tiles_address

    def counted() -> int:
        asked.append(1)
        return real()

    monkeypatch.setattr(blas, "tiles_address", counted)
    monkeypatch.setenv("POLYFUSE_STACK_ROW_GEMM", through)
    monkeypatch.setattr(threads, "_num_threads", 1)
    X, W = RNG.standard_normal((3, 70, 64)), RNG.standard_normal((64, 90))  # 1.2M multiply-adds
    assert blas.TILES_MIN_WORK <= 3 * 70 * 64 * 90 < blas.THREADS_MIN_WORK
    kernel = polyfuse.kernel(stacked, cache=False)
    for _ in range(2):
        np.testing.assert_allclose(kernel(X, W), X @ W, rtol=1e-10, atol=1e-10)
    assert bool(asked) == (through == "1") or not blas.row_gemm_tiles()


def test_packed_copies_come_from_the_buffer_cache(monkeypatch):
    """``POLYFUSE_TILE_BUFFERS`` (default on): a call's freed packed copy stays in the cache's
    slots, the next call of the same or a smaller size takes it back, a larger one frees it and
    makes its own; from several threads at once too; every product right.  With the knob at 0
    the tiles call the C library and have no slots."""
    monkeypatch.setenv("POLYFUSE_TILE_BUFFERS", "1")
    routine = _routine(65536, 1 << 20, shared=False)
    slots = (ctypes.c_void_p * tiles.BUFFER_SLOTS).from_address(
        blas._ENGINES[-1].get_global_value_address("polyfuse.regtiles.buffers"))
    for rows, depth, cols in [(40, 300, 300), (40, 300, 300), (30, 200, 260), (40, 400, 500)]:
        A, B = RNG.standard_normal((rows, depth)), RNG.standard_normal((depth, cols))
        C = np.empty((rows, cols))
        _call(routine, A, B, C, 0, rows, 1.0)
        np.testing.assert_allclose(C, A @ B, rtol=1e-12, atol=1e-12)
        kept = [s for s in slots if s]
        assert len(kept) == 1  # (one block, the latest call's: the same one reused, or a larger one)
        assert ctypes.c_int64.from_address(kept[0]).value >= tiles.BUFFER_MIN_BYTES  # (its size, in the header)
    A, B = RNG.standard_normal((90, 300)), RNG.standard_normal((300, 300))
    got = np.full((90, 300), np.nan)
    _at_once([lambda k=k: _call(routine, A, B, got, k * 30, (k + 1) * 30, 1.0) for k in range(3)])
    np.testing.assert_allclose(got, A @ B, rtol=1e-12, atol=1e-12)
    assert 1 <= sum(1 for s in slots if s) <= 3
    monkeypatch.setenv("POLYFUSE_TILE_BUFFERS", "0")
    plain = _routine(65536, 1 << 20, shared=False)
    assert blas._ENGINES[-1].get_global_value_address("polyfuse.regtiles.buffers") == 0
    C = np.empty((40, 300))
    _call(plain, A[:40], B, C, 0, 40, 1.0)
    np.testing.assert_allclose(C, A[:40] @ B, rtol=1e-12, atol=1e-12)
