"""Rows of time-tiled out-of-place sweeps end with one vector step over their last elements
instead of a scalar remainder (backends/cpu/llvm.py ``row_tail_lanes``, ``_emit_row_tail``):
which loops, and Python's bits on rows of every length around the vector's (in-place sweeps,
left as they were, too)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU, compiled_suite_kernel

import polyfuse
from polyfuse.bench.suite import heat_3d, jacobi_1d, jacobi_2d
from polyfuse.model.loop_ast import For, StmtCall, nodes

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def _innermost(program):
    return [n for n in nodes(program.root) if isinstance(n, For) and not any(
        isinstance(m, For) for m in nodes(n.body))]


def _lanes(name):
    from polyfuse.backends.cpu.llvm import row_tail_lanes

    _, _, _, variant = compiled_suite_kernel(name)
    program = variant.stages["loop ast"]
    return program, [row_tail_lanes(program, loop) for loop in _innermost(program)]


def test_out_of_place_sweeps_get_row_tails_and_in_place_ones_do_not(monkeypatch):
    monkeypatch.delenv("POLYFUSE_ROW_TAILS", raising=False)
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "0")  # a fused row reads what it writes
    program, lanes = _lanes("jacobi-1d")  # (the whole-row side's fused row loop is serial: none)
    parallel = [loop.parallel for loop in _innermost(program)]
    assert program.time_tiled and any(parallel) and all((v == 8) == p for v, p in zip(lanes, parallel))
    # fdtd-2d: ey[i, j] = ey[i, j] - ... reads what it writes, a repeated iteration would change
    # it; its ey[0, j] = fict[t] does not
    program, lanes = _lanes("fdtd-2d")
    in_place = [any(program.statement(c.statement).array in program.statement(c.statement).sources()
                    for c in nodes(loop.body) if isinstance(c, StmtCall)) for loop in _innermost(program)]
    assert program.time_tiled and any(in_place) and not all(in_place)
    assert all((v == 0) == own for v, own in zip(lanes, in_place))
    _, lanes = _lanes("gemm")  # not time tiled
    assert not any(lanes)


def test_the_knob_turns_them_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_ROW_TAILS", "0")
    _, lanes = _lanes("jacobi-1d")
    assert lanes and not any(lanes)


def _in_place_2d(tsteps, n, A, B):
    for t in range(tsteps):
        for i in range(1, n):
            for j in range(n):
                A[i, j] = A[i, j] - 0.5 * (B[i, j] - B[i - 1, j])
        for i in range(n - 1):
            for j in range(n - 1):
                B[i, j] = B[i, j] - 0.7 * (A[i, j + 1] - A[i, j] + A[i + 1, j] - A[i, j])


@pytest.mark.parametrize("func, shapes", [
    (jacobi_1d, [(9, 4), (10, 4), (11, 4), (17, 4), (19, 4), (600, 9)]),  # rows of 2..598 points
    (heat_3d, [(9, 2), (10, 2), (11, 3), (19, 2)]),
    (_in_place_2d, [(9, 3), (10, 3), (11, 4), (18, 3), (21, 2)]),
])
def test_every_row_length_gives_pythons_bits(func, shapes):
    kernel = polyfuse.kernel(func, cache=False)
    rng = np.random.default_rng(0)
    for n, tsteps in shapes:
        shape = {jacobi_1d: (n,), heat_3d: (n, n, n), _in_place_2d: (n, n)}[func]
        A, B = rng.random(shape), rng.random(shape)
        ours, expected = (A.copy(), B.copy()), (A.copy(), B.copy())
        kernel(tsteps, n, *ours)
        func(tsteps, n, *expected)
        for a, e in zip(ours, expected):
            np.testing.assert_array_equal(a, e)


def _at_offset(values, offset):
    """``values`` copied into a buffer so that its first element lies ``offset`` elements past a
    64-byte boundary (the row heads' peel then varies with it)."""
    buf = np.empty(values.size + 16)
    start = (-buf.ctypes.data % 64) // 8 + offset
    view = buf[start:start + values.size].reshape(values.shape)
    view[...] = values
    return view


@pytest.mark.parametrize("func, sizes", [
    (jacobi_1d, [(5, 30), (3, 41), (4, 3200)]),  # whole rows (n <= 3074 here) and time tiles
    (jacobi_2d, [(2, 30)]),
])
def test_row_heads_give_pythons_bits_at_every_alignment(monkeypatch, func, sizes):
    # rows of at least 2 vectors get a head: a wrong peel would skip or misplace iterations
    monkeypatch.setenv("POLYFUSE_ROW_HEADS", "2")
    monkeypatch.setenv("POLYFUSE_ROW_HEADS_ALIKE", "0")  # heads where A and B lie apart too
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "0")  # jacobi-1d's tiles: a row per sweep, with heads
    kernel = polyfuse.kernel(func, cache=False)
    rng = np.random.default_rng(1)
    for tsteps, n in sizes:
        shape = (n,) if func is jacobi_1d else (n, n)
        A, B = rng.random(shape), rng.random(shape)
        for offset in (range(8) if func is jacobi_1d else (0, 3, 5)):
            ours = (_at_offset(A, offset), _at_offset(B, (offset * 3) % 8))
            expected = (A.copy(), B.copy())
            kernel(tsteps, n, *ours)
            func(tsteps, n, *expected)
            for a, e in zip(ours, expected):
                np.testing.assert_array_equal(a, e)


def test_row_heads_for_arrays_laid_out_alike_give_pythons_bits(monkeypatch):
    # POLYFUSE_ROW_HEADS_ALIKE (default): heads only where A and B start alike modulo 64 bytes;
    # the rows with and without heads both run here (offsets alike, then apart)
    monkeypatch.setenv("POLYFUSE_ROW_HEADS", "2")
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    kernel = polyfuse.kernel(jacobi_2d, cache=False)
    rng = np.random.default_rng(2)
    A, B = rng.random((30, 30)), rng.random((30, 30))
    for a_offset, b_offset in ((3, 3), (5, 5), (3, 6)):
        ours = (_at_offset(A, a_offset), _at_offset(B, b_offset))
        expected = (A.copy(), B.copy())
        kernel(2, 30, *ours)
        jacobi_2d(2, 30, *expected)
        for a, e in zip(ours, expected):
            np.testing.assert_array_equal(a, e)
    args = (2, 30, np.zeros((30, 30)), np.zeros((30, 30)))
    alike = kernel.inspect_llvm(*args, optimized=False)
    monkeypatch.setenv("POLYFUSE_ROW_HEADS_ALIKE", "0")
    assert polyfuse.kernel(jacobi_2d, cache=False).inspect_llvm(*args, optimized=False) != alike


def test_row_heads_are_in_the_code_only_with_the_knob(monkeypatch):
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "0")  # the tiles' rows, one per sweep
    args = (3, 41, np.zeros(41), np.zeros(41))
    text = {}
    for knob in ("0", "2"):
        monkeypatch.setenv("POLYFUSE_ROW_HEADS", knob)
        text[knob] = polyfuse.kernel(jacobi_1d, cache=False).inspect_llvm(*args, optimized=False)
    tails = 'i32 1}, !{!"llvm.loop.unroll.disable"}'  # ROW_TAIL's loop metadata: tails and heads
    assert text["0"].count(tails) < text["2"].count(tails)


def test_a_row_with_heads_has_one_copy_of_its_loop_and_tail(monkeypatch):
    # _headed_row: the head's step, then the counted loop and the tail once, from a start the
    # head chose (POLYFUSE_ONE_ROW_COPY=0: a copy of both for each of the head's three cases)
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    monkeypatch.setenv("POLYFUSE_ROW_HEADS", "2")
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "0")  # one row loop per sweep, as written
    args = (3, 41, np.zeros(41), np.zeros(41))
    main = '!{!"llvm.loop.interleave.count", i32 1}}'  # ROW_MAIN's loop metadata
    counts = {}
    for knob in ("0", "1"):
        monkeypatch.setenv("POLYFUSE_ONE_ROW_COPY", knob)
        counts[knob] = polyfuse.kernel(jacobi_1d, cache=False).inspect_llvm(*args, optimized=False).count(main)
    assert counts["1"] > 0 and counts["0"] == 3 * counts["1"]
