"""The register tiles for float64 products with few columns (backends/cpu/register_gemm.py),
called from ``ROW_GEMM`` (backends/cpu/blas.py): against NumPy within BLAS's tolerance (rtol
1e-10), on the edges of the tiles (rows past the last tile of 6, columns past the last vector of
8 and the last panel of 32), leading dimensions wider than the rows, ``alpha``, sums and rows cut
into blocks (forced by a pretend small L2), and through kernels on one and two threads."""

from __future__ import annotations

import ctypes
import math

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


def _routine(l2_bytes: int | None = None, l3_bytes: int = 0, packed: bool = tiles.PACKED):
    """The tiles as a ctypes function: the process's, or compiled for pretend cache sizes."""
    if l2_bytes is None:
        address = blas.tiles_address()
    else:
        address = tiles.compile_tiles(l2_bytes, blas._ENGINES, packed, l3_bytes)
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
def test_kernels_with_the_tiles_match_numpy(forced, func, make, count):
    """Whole products and their rows cut among two threads (forced teams) take the tiles."""
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
    assert blas.tiles_address.cache_info().currsize == 1  # ROW_GEMM asked for the tiles


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
