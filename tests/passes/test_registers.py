"""Register tiles (polyfuse.tiling.choose_register_tile) and their promotion to a local array
(polyfuse.registers): chosen where legal, results bitwise equal to the Python function."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, StmtCall, exclusive_bound
from polyfuse.passes.astgen import top_level_loops
from polyfuse.runtime import threads as runtime_threads
from polyfuse.runtime.variant import evaluate_int


def matmul(C, A, B):
    for i in range(C.shape[0]):
        for k in range(A.shape[1]):
            for j in range(C.shape[1]):
                C[i, j] += A[i, k] * B[k, j]


def gram(m, n, data, out):
    """A transposed product whose inputs are contiguous along both tile loops."""
    for i in range(m):
        for j in range(m):
            for k in range(n):
                out[i, j] += data[k, i] * data[k, j]


def triangular_product(A, B):
    """trmm: the reduction's range depends on a tile loop (k > i), so no register tile."""
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            for k in range(i + 1, B.shape[0]):
                B[i, j] += A[k, i] * B[k, j]


def matvec(y, A, x):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            y[j] += A[i, j] * x[i]


def _operands(rng, ni, nk, nj, dtype=np.float64):
    return (rng.random((ni, nj)).astype(dtype), rng.random((ni, nk)).astype(dtype),
            rng.random((nk, nj)).astype(dtype))


def _register_tiles(kernel, *args):
    return kernel.explain(*args)["register tiles"]


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_matmul_gets_a_register_tile_kept_in_a_local_array(target):
    rng = np.random.default_rng(0)
    C, A, B = _operands(rng, 9, 7, 35)
    kernel = polyfuse.kernel(matmul, target=target, verify=True, blas=False)  # the loops, not BLAS
    records = _register_tiles(kernel, C, A, B)
    tile = next(r for r in records if "reductions" in r)
    assert tile["loops"] == ("i", "k", "j") and tile["reductions"] == ("k",)
    assert tile["sizes"][0] == 4 and tile["sizes"][2] >= 4
    promotion = next(r for r in records if "local" in r)
    assert promotion["array"] == "C" and promotion["shape"] == (4, tile["sizes"][2])
    code = kernel.explain(C, A, B)["loop code"]
    assert "_copy_in" in code and "_copy_out" in code
    expected = C.copy()
    matmul(expected, A, B)
    kernel(C, A, B)
    assert np.array_equal(C, expected)  # the same operations in the same order


def test_register_tiles_are_reported_apart_from_the_kernels_own_arrays(monkeypatch):
    monkeypatch.setenv("POLYFUSE_REGISTER_NARROWER_TILES", "1")  # default off: a tile of each width
    rng = np.random.default_rng(1)
    C, A, B = _operands(rng, 8, 5, 32)
    memory = polyfuse.kernel(matmul, blas=False).local_memory(C, A, B)
    assert memory["allocated"] == {} and memory["declared"] == {}
    vector_bytes = polyfuse.options.vector_bytes()
    vectors = max(2, polyfuse.options.register_tile_sums(vector_bytes) // 4)
    # 4 rows of the full width, then of each narrower one (the columns outside full tiles)
    widths = [vectors >> n for n in range(vectors.bit_length())]
    assert sorted(memory["register tiles"].values()) == sorted(4 * w * vector_bytes for w in widths)


@pytest.mark.parametrize("sums", ["", "8", "16"])
def test_register_tile_width_follows_the_vector_registers(monkeypatch, sums):
    """4 rows of half the ISA's vector registers (``POLYFUSE_REGISTER_TILE_SUMS`` sets the
    count): 4 x 2 vectors with AVX2's 16 registers, 4 x 4 with AVX-512's 32; the same sums as
    the Python function at widths around the tile's (partial tiles on both loops)."""
    monkeypatch.setenv("POLYFUSE_REGISTER_TILE_SUMS", sums)
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    rng = np.random.default_rng(8)
    for nj in (16, 31, 32, 70):
        C, A, B = _operands(rng, 10, 6, nj)
        kernel = polyfuse.kernel(matmul, blas=False)
        tile = next(r for r in _register_tiles(kernel, C, A, B) if "reductions" in r)
        assert tile["sizes"] == (4, 1, 8 * (2 if sums == "8" else 4))
        expected = C.copy()
        matmul(expected, A, B)
        kernel(C, A, B)
        assert np.array_equal(C, expected)


def test_a_bad_register_tile_sums_setting_is_an_argument_error(monkeypatch):
    monkeypatch.setenv("POLYFUSE_REGISTER_TILE_SUMS", "many")
    with pytest.raises(polyfuse.ArgumentError, match="POLYFUSE_REGISTER_TILE_SUMS"):
        polyfuse.options.register_tile_sums(64)


@pytest.mark.parametrize("registers", [True, False])
def test_registers_option_turns_tiles_off(registers):
    rng = np.random.default_rng(2)
    C, A, B = _operands(rng, 8, 5, 32)
    kernel = polyfuse.kernel(matmul, target="python", registers=registers)
    assert bool(_register_tiles(kernel, C, A, B)) is registers
    assert ("registers=0" in kernel.options.key()) is (not registers)


def test_environment_turns_tiles_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_REGISTER_TILES", "0")
    rng = np.random.default_rng(3)
    C, A, B = _operands(rng, 8, 5, 32)
    assert _register_tiles(polyfuse.kernel(matmul, target="python"), C, A, B) == []


def test_no_register_tile_when_the_reduction_range_depends_on_a_tile_loop():
    rng = np.random.default_rng(4)
    A, B = rng.random((20, 20)), rng.random((20, 24))
    kernel = polyfuse.kernel(triangular_product, target="python", verify=True)
    assert _register_tiles(kernel, A, B) == []
    expected = B.copy()
    triangular_product(A, expected)
    kernel(A, B)
    assert np.array_equal(B, expected)


def test_no_register_tile_for_a_one_row_tile():
    """A matrix-vector product streams A row by row; a one-row tile would only walk columns."""
    rng = np.random.default_rng(5)
    A, x, y = rng.random((20, 40)), rng.random(20), rng.random(40)
    assert _register_tiles(polyfuse.kernel(matvec, target="python"), y, A, x) == []


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_gram_matrix_tile_rows_stay_rows(target):
    rng = np.random.default_rng(6)
    data, out = rng.random((13, 37)), rng.random((37, 37))
    kernel = polyfuse.kernel(gram, target=target, verify=True, blas=False)
    assert any("local" in r for r in _register_tiles(kernel, 37, 13, data, out))
    expected = out.copy()
    gram(37, 13, data, expected)
    kernel(37, 13, data, out)
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("knob", ["1", "0"])
def test_register_tiles_sit_in_cache_tiles_and_prefer_the_widest_vectors(monkeypatch, knob):
    """A register-tiled nest without ``tile=True`` gets cache tiles around its register tiles
    (``POLYFUSE_REGISTER_CACHE_TILES``) and its functions LLVM's widest vectors, the width the
    tiles are sized for (``POLYFUSE_REGISTER_TILES_WIDE``); both 0: neither.  Bitwise the Python
    function's results either way, across the cache tiles' edges (128 rows, terms and columns
    with an L2 of 1 MiB)."""
    monkeypatch.setenv("POLYFUSE_REGISTER_CACHE_TILES", knob)
    monkeypatch.setenv("POLYFUSE_REGISTER_TILES_WIDE", knob)
    monkeypatch.setenv("POLYFUSE_L2_BYTES", "1M")
    rng = np.random.default_rng(7)
    for ni, nk, nj in ((130, 9, 40), (5, 260, 270)):
        C, A, B = _operands(rng, ni, nk, nj)
        kernel = polyfuse.kernel(matmul, blas=False)
        tile = next(r for r in _register_tiles(kernel, C, A, B) if "reductions" in r)
        assert ("inside cache tiles 128 x 128 x 128" in tile["reason"]) is (knob == "1")
        if polyfuse.options.vector_bytes() == 64:
            assert ('"prefer-vector-width"="512"' in kernel.inspect_llvm(C, A, B)) is (knob == "1")
        expected = C.copy()
        matmul(expected, A, B)
        kernel(C, A, B)
        assert np.array_equal(C, expected)


@pytest.mark.parametrize("knob", ["1", "0"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_columns_outside_full_tiles_get_narrower_register_tiles(monkeypatch, knob, dtype):
    """The column count is a parameter: a product of 24 float64 columns has no full 4 x 32 tile,
    so its columns run in a 4 x 16 and a 4 x 8 tile (float32: 24 columns, one 4 x 16 tile and
    the partial loops), each kept in registers (``POLYFUSE_REGISTER_NARROWER_TILES``; 0: the
    partial tiles' loops only).  Bitwise the Python function's results, for column counts on
    and off every width."""
    monkeypatch.setenv("POLYFUSE_REGISTER_NARROWER_TILES", knob)
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    monkeypatch.setenv("POLYFUSE_REGISTER_TILE_SUMS", "16")
    rng = np.random.default_rng(9)
    kernel = polyfuse.kernel(matmul, blas=False)
    lanes = 64 // np.dtype(dtype).itemsize
    for nj in (3, 8, 24, 40, 57):
        C, A, B = _operands(rng, 11, 5, nj, dtype)
        expected = C.copy()
        matmul(expected, A, B)
        kernel(C, A, B)
        assert np.array_equal(C, expected)
    shapes = {r["shape"] for r in _register_tiles(kernel, C, A, B) if "local" in r}
    assert shapes == ({(4, 4 * lanes), (4, 2 * lanes), (4, lanes)} if knob == "1" else {(4, 4 * lanes)})


@settings(max_examples=25, deadline=None)
@given(ni=st.integers(0, 21), nk=st.integers(0, 6), nj=st.integers(0, 40),
       dtype=st.sampled_from([np.float64, np.float32, np.int64]), threads=st.sampled_from([1, 2]))
def test_register_tiles_match_python_for_any_shape(ni, nk, nj, dtype, threads):
    rng = np.random.default_rng(ni * 1000 + nk * 100 + nj)
    C, A, B = _operands(rng, ni, nk, nj, dtype)
    if dtype is np.int64:
        C, A, B = (rng.integers(-9, 9, x.shape) for x in (C, A, B))
    expected = C.copy()
    matmul(expected, A, B)
    previous = runtime_threads._num_threads  # (None, the default: get_num_threads() would pin it)
    polyfuse.set_num_threads(threads)
    try:
        polyfuse.kernel(matmul)(C, A, B)
    finally:
        runtime_threads._num_threads = previous
    assert np.array_equal(C, expected)


# ---- the loop AST around register tiles --------------------------------------------------------

def _loop(var: str, stop: ir.Expr, body) -> For:
    return For(var, ir.int_const(0), ir.Compare("<", ir.Var(var, ir.INT), stop), 1, body, parallel=True)


def test_top_level_guards_move_into_loop_bounds():
    n = ir.Var("n", ir.INT)
    guard = ir.Compare(">=", n, ir.int_const(16))
    loop = _loop("_t0", n, StmtCall("S0", (ir.Var("_t0", ir.INT),)))
    flat = top_level_loops(Block((If(guard, Block((loop, StmtCall("S1", ())))), loop)))
    assert len(flat) == 3
    guarded, call, plain = flat
    assert isinstance(guarded, For) and guarded.parallel and plain == loop
    assert isinstance(call, If) and call.cond == guard
    stop = exclusive_bound(guarded)
    assert stop is not None
    assert evaluate_int(stop, {"n": 20}) == 20 and evaluate_int(stop, {"n": 12}) == 0


def test_guards_with_an_else_branch_stay():
    guard = ir.Compare(">=", ir.Var("n", ir.INT), ir.int_const(1))
    node = If(guard, StmtCall("S0", ()), StmtCall("S1", ()))
    assert top_level_loops(node) == (node,)
