"""Cache-sized tiling (opt-in, tile=True): footprint model and correctness of tiled code."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import assert_same_arrays, copy_args

import polyfuse
from polyfuse.bench import suite
from polyfuse.compiler import compile_loop_program
from polyfuse.options import Options
from polyfuse.runtime.signature import argument_of
from polyfuse.schedule.tiling import choose_tile_sizes, footprint

TILED = ["gemm", "2mm", "3mm", "trmm", "syrk", "doitgen", "matmul_bias_relu", "attention_rows"]


def _stages(name: str, dtype=np.float64, **options):
    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    args = tuple(a.astype(dtype) if isinstance(a, np.ndarray) else a for a in args)
    params = inspect.signature(spec.func).parameters
    arguments = tuple(argument_of(n, v) for n, v in zip(params, args))
    options.setdefault("blas", False)  # the loops' tiles (products written as loops run on BLAS otherwise)
    return compile_loop_program(spec.func, arguments, Options(**options))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("name", TILED)
def test_tiled_kernels_match_the_function(name, target):
    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(3), **spec.sizes["test"])
    expected = copy_args(args)
    spec.func(*expected)
    actual = copy_args(args)
    polyfuse.kernel(spec.func, target=target, tile=True, verify=True)(*actual)
    assert_same_arrays(expected, actual)


def test_gemm_is_tiled_and_fits_the_budget():
    stages = _stages("gemm", tile=True)
    choices = [c for c in stages["schedule"].tiling if c.sizes]
    assert choices, "gemm's (i, k, j) nest should be tiled"
    for choice in choices:
        assert choice.footprint_bytes <= choice.budget_bytes
        assert choice.sizes[-1] >= 32  # the vector dimension keeps a long tile


def test_tiling_is_off_by_default():
    assert not _stages("gemm")["schedule"].tiling


def test_footprint_counts_each_array_once_per_distinct_access():
    stages = _stages("gemm", tile=True)
    scop = stages["lift"]
    update = [s for s in scop.statements if "A[i, k]" in s.source_line][0]
    size = footprint(scop, ("i", "k", "j"), (update.name,), (4, 8, 16))
    # C[i, j] (read and written: one access), A[i, k], B[k, j], float64
    assert size == (4 * 16 + 4 * 8 + 8 * 16) * 8


def test_float32_tiles_hold_twice_the_elements():
    budget = 64 * 1024
    volumes = {}
    for dtype in (np.float64, np.float32):
        scop = _stages("gemm", dtype=dtype, tile=True)["lift"]
        update = [s for s in scop.statements if "A[i, k]" in s.source_line][0]
        choice = choose_tile_sizes(scop, ("i", "k", "j"), (update.name,), budget)
        assert choice is not None and choice.footprint_bytes <= budget
        volumes[dtype] = int(np.prod(choice.sizes))
        same_tile = footprint(scop, ("i", "k", "j"), (update.name,), (8, 8, 32))
        assert same_tile == (8 * 32 + 8 * 8 + 8 * 32) * np.dtype(dtype).itemsize
    assert volumes[np.float32] >= 2 * volumes[np.float64] * 0.9


@pytest.mark.parametrize("name", ["jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d", "seidel-2d"])
def test_time_tiled_stencils_match_the_function(name):
    """fuse='max' + tile=True tiles isl's skewed permutable bands: time tiling."""
    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(4), **spec.sizes["test"])
    expected = copy_args(args)
    spec.func(*expected)
    actual = copy_args(args)
    kernel = polyfuse.kernel(spec.func, target="cpu", fuse="max", tile=True, verify=True)
    kernel(*actual)
    assert_same_arrays(expected, actual)


def test_jacobi_2d_gets_a_time_tile_loop():
    spec = suite.get("jacobi-2d")
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    code = polyfuse.kernel(spec.func, fuse="max", tile=True).explain(*args)["loop code"]
    assert code.splitlines()[0].startswith("for ") and "range(0, tsteps, 16)" in code.splitlines()[0]


def _transpose(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[j, i] = A[i, j] + 1.0


def _mirror(m, c, cov):
    for i in range(m):
        for j in range(i, m):
            cov[i, j] /= c
            cov[j, i] = cov[i, j]


def _permute(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            for k in range(A.shape[2]):
                B[k, j, i] = A[i, j, k]


def _copy(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = A[i, j] + 1.0


def _tiles(kernel, *args) -> list[str]:
    return [c["reason"] for c in kernel.explain(*args)["tiling"] if c["sizes"]]


def test_transposing_copies_run_in_square_tiles_on_the_team(forced):
    """``B[j, i] = A[i, j]``, covariance's mirror over a triangle and ``B[k, j, i] = A[i, j, k]``
    (the loops of i and k tiled, j between them): square tiles of the two loops
    (schedule/tiling.py ``choose_transpose_tile``), sizes off the tile side (partial tiles at
    both edges, the triangle's diagonal tiles), on two threads: the user's bits."""
    from polyfuse.runtime import threads

    threads.set_num_threads(2)
    rng = np.random.default_rng(7)
    for fn, args in ((_transpose, (rng.random((37, 45)), np.zeros((45, 37)))),
                     (_mirror, (41, 3.0, rng.random((41, 41)))),
                     (_permute, (rng.random((19, 3, 35)), np.zeros((35, 3, 19))))):
        kernel = polyfuse.kernel(fn, cache=False)
        for _ in range(2):  # the first call measures the serial run; the team runs the second
            expected, actual = copy_args(args), copy_args(args)
            fn(*expected)
            kernel(*actual)
            assert_same_arrays(expected, actual)
        assert [r.split(":")[0] for r in _tiles(kernel, *args)] == ["blocked transpose"]
        assert sum(kernel.compile(*args).backend.phase_runs.values()) >= 1


def test_copies_that_transpose_nothing_and_the_knob_stay_untiled(monkeypatch):
    A, B = np.ones((20, 30)), np.zeros((20, 30))
    assert not _tiles(polyfuse.kernel(_copy, cache=False), A, B)
    monkeypatch.setenv("POLYFUSE_TRANSPOSE_TILES", "0")
    assert not _tiles(polyfuse.kernel(_transpose, cache=False), A, B.T.copy())
