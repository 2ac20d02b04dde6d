"""On one thread, time-tiled nests run their tiles in lexicographic order or by columns instead of
wavefronts (polyfuse/schedule/time_tiling.py ``one_thread_order``, backends/cpu/llvm.py
``KernelCodegen.emit_tile_orders``): the order is recorded, generated once beside the
wavefronts, and gives Python's bits on one thread and on a team, short and long waves."""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest
from conftest import HAS_CPU, team_runs

import polyfuse
from polyfuse.bench.suite import fdtd_2d, heat_3d, jacobi_2d, seidel_2d
from polyfuse.model.loop_ast import WALK_OUTER
from polyfuse.passes.tile_walks import tile_walk
from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")

# (kernel, tile sizes, the order they give, sizes of two calls): small tiles, so that a few time
# steps give waves over more than a quarter of the tiles along tile1 (COLUMN_WAVE_SHARE): found by
# breaking each order, these fail
CASES = [
    (jacobi_2d, "1,1,8", "lexicographic", ((2, 9), (8, 20))),
    (heat_3d, "1,1,4,8", "lexicographic", ((2, 9), (8, 20))),
    (seidel_2d, "1,1,8", "lexicographic", ((2, 9), (8, 20))),
    (fdtd_2d, "1,1,8", "lexicographic", ((2, 9), (8, 20))),
    (jacobi_2d, "1,4,8", "columns", ((2, 9), (8, 40))),
    (heat_3d, "1,4,4,8", "columns", ((2, 9), (8, 34))),
    (seidel_2d, "1,2,8", "columns", ((2, 9), (8, 24))),
    (fdtd_2d, "1,2,8", "columns", ((2, 9), (8, 24))),
]


def _args(func, tsteps, n, rng):
    if func is fdtd_2d:
        shape = (n, n + 3)
        return (tsteps, n, n + 3, rng.random(shape), rng.random(shape), rng.random(shape), rng.random(tsteps))
    shape = (n, n, n) if func is heat_3d else (n, n)
    return (tsteps, n, *(rng.random(shape) for _ in range(1 if func is seidel_2d else 2)))


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def test_the_order_is_recorded_and_generated(monkeypatch):
    monkeypatch.delenv("POLYFUSE_ONE_THREAD_TILES", raising=False)
    args = _args(jacobi_2d, 3, 10, np.random.default_rng(0))
    kernel = polyfuse.kernel(jacobi_2d, cache=False)
    (record,) = kernel.explain(*args)["time tiling"]
    # 8 x 32 x 512 tiles, skew 2: a tile slides 16 < 32 points per time tile
    assert record["applied"] and record["one_thread_order"] == "columns"
    assert "one thread: on long waves, tiles by columns" in str(kernel.explain(*args))
    program = kernel.compile(*args).stages["loop ast"]
    assert program.one_thread_tiles == {(s, "columns") for s in record["statements"]}
    assert "tiles.wave" in kernel.inspect_llvm(*args, optimized=False)
    (walk,) = program.tile_walks  # isl's tight tile loops for that order (passes/tile_walks.py)
    assert walk.order == "columns" and walk.statements == set(record["statements"])


@pytest.mark.parametrize("order", ["lexicographic", "columns"])
def test_the_walk_holds_every_tile_and_little_else(order):
    """The walk's bounds at concrete sizes enclose every tile, and on a long, thin band of tiles
    (many time steps, a small grid) hold few pairs per tile, where the box held thousands."""
    # tile0 = w - k in [0, tsteps), tile1 = k from 2 tile0 to 2 tile0 + (n - 1) // 4
    tiles = "[tsteps, n] -> { [w, k] : tsteps >= 1 and n >= 1 and 0 <= w - k < tsteps and 0 <= 4 * (k - 2 * (w - k)) < n }"
    walk = tile_walk(frozenset({"S"}), order, tiles, isl.Set("[tsteps, n] -> { : }"))
    assert walk is not None

    def value(expr, **env):
        return eval(compile(_python(expr), "<walk>", "eval"), {}, env)

    env = {"tsteps": 500, "n": 7}
    pairs = {(a, k) for a in range(value(walk.outer_lo, **env), value(walk.outer_hi, **env) + 1)
             for k in range(value(walk.inner_lo, a=a, **env), value(walk.inner_hi, a=a, **env) + 1)}
    wanted = {(w - k, k) if order == "lexicographic" else (k, w - k)
              for w in range(0, 2000) for k in range(0, 2000) if 0 <= w - k < 500 and 0 <= 4 * (k - 2 * (w - k)) < 7}
    assert len(wanted) == 1000
    assert wanted <= pairs and len(pairs) <= 2 * len(wanted)


def _python(expr) -> str:
    """A walk bound (integer IR) as Python text, its outer counter named ``a``."""
    from polyfuse.model import ir

    if isinstance(expr, ir.Const):
        return str(expr.value)
    if isinstance(expr, ir.Var):
        return "a" if expr.name == WALK_OUTER else expr.name
    if isinstance(expr, ir.Compare):
        return f"({_python(expr.lhs)} {expr.op} {_python(expr.rhs)})"
    if isinstance(expr, ir.Select):
        return f"({_python(expr.then)} if {_python(expr.cond)} else {_python(expr.otherwise)})"
    if isinstance(expr, ir.Unary):
        return f"(-{_python(expr.operand)})"
    if expr.op in ("min", "max"):
        return f"{expr.op}({_python(expr.lhs)}, {_python(expr.rhs)})"
    return f"({_python(expr.lhs)} {expr.op} {_python(expr.rhs)})"


@pytest.mark.parametrize("func, tsteps", [(heat_3d, 120), (jacobi_2d, 200)])
def test_pythons_bits_on_a_long_thin_band_of_tiles(monkeypatch, num_threads, func, tsteps):
    """Many time steps on a small grid: the box around the tiles held more than ``BOX_PER_TILE``
    pairs per tile (heat-3d ~115, jacobi-2d ~140: the wavefronts ran); the walk's tight loops run
    the lexicographic order there."""
    monkeypatch.delenv("POLYFUSE_ONE_THREAD_TILES", raising=False)
    monkeypatch.setenv("POLYFUSE_TIME_TILE_SIZES", "1,1,4,8" if func is heat_3d else "1,1,8")
    num_threads(1)
    kernel = polyfuse.kernel(func, cache=False)
    rng = np.random.default_rng(2)
    for steps, n in ((tsteps, 9), (0, 9), (1, 3), (3, 1), (40, 5)):  # and sizes with few or no tiles
        args = _args(func, steps, n, rng)
        expected = _copies(args)
        func(*expected)
        ours = _copies(args)
        kernel(*ours)
        for a, e in zip(ours, expected):
            if isinstance(e, np.ndarray):
                np.testing.assert_array_equal(a, e)
    program = kernel.compile(*args).stages["loop ast"]
    assert [w.order for w in program.tile_walks] == ["lexicographic"]


def test_a_walk_over_budget_leaves_the_box(monkeypatch, num_threads):
    """isl over its budget for the walk: no walk, the backend walks the box, same bits."""
    import polyfuse.compiler
    from polyfuse.model.isl_budget import BudgetExceeded

    def over(*args):
        raise BudgetExceeded("test")

    monkeypatch.delenv("POLYFUSE_ONE_THREAD_TILES", raising=False)
    monkeypatch.setenv("POLYFUSE_TIME_TILE_SIZES", "1,1,8")
    monkeypatch.setattr(polyfuse.compiler, "tile_walk", over)
    num_threads(1)
    kernel = polyfuse.kernel(jacobi_2d, cache=False)
    args = _args(jacobi_2d, 8, 20, np.random.default_rng(3))
    expected, ours = _copies(args), _copies(args)
    jacobi_2d(*expected)
    kernel(*ours)
    for a, e in zip(ours, expected):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(a, e)
    program = kernel.compile(*args).stages["loop ast"]
    assert program.one_thread_tiles and not program.tile_walks


def test_the_knob_keeps_the_wavefronts(monkeypatch):
    monkeypatch.setenv("POLYFUSE_ONE_THREAD_TILES", "0")
    args = _args(jacobi_2d, 3, 10, np.random.default_rng(0))
    kernel = polyfuse.kernel(jacobi_2d, cache=False)
    assert not kernel.compile(*args).stages["loop ast"].one_thread_tiles
    assert "tiles.wave" not in kernel.inspect_llvm(*args, optimized=False)


@pytest.mark.parametrize("func, tiles, order, calls", CASES)
def test_pythons_bits_on_one_thread_and_on_a_team(monkeypatch, forced, func, tiles, order, calls):
    """One kernel per case, called on one thread and then on a team of two (the thread count is
    read per call: the code does not depend on it, so one compile serves both counts)."""
    monkeypatch.delenv("POLYFUSE_ONE_THREAD_TILES", raising=False)
    monkeypatch.setenv("POLYFUSE_TIME_TILE_SIZES", tiles)
    kernel = polyfuse.kernel(func, cache=False)
    for count in (1, 2):
        threads.set_num_threads(count)
        rng = np.random.default_rng(1)
        for tsteps, n in calls:  # waves of at most 2 tiles, then of 5 or more
            args = _args(func, tsteps, n, rng)
            expected = _copies(args)
            func(*expected)
            for _ in range(3):  # the first calls at a count measure one thread against the team
                ours = _copies(args)
                kernel(*ours)
                for a, e in zip(ours, expected):
                    if isinstance(e, np.ndarray):
                        np.testing.assert_array_equal(a, e, err_msg=f"{count} threads, tsteps={tsteps}, n={n}")
            assert {o for _s, o in kernel.compile(*args).stages["loop ast"].one_thread_tiles} == {order}
        backend = kernel.compile(*args).backend
        assert (team_runs(backend) > 0) == (count == 2)  # (none on one thread)


def _peeled_sweep(T, n, A, B):
    for t in range(T):
        for i in range(0, n):
            B[i + 2] = B[i + 2] + 0.25 * (A[i + 1] + A[i + 2])
        for i in range(n - 1, 1, -1):
            A[i + 2] = A[i + 2] + 0.1 * t * B[i + 3]


def test_a_peeled_first_wavefront_is_no_tile_pair(monkeypatch):
    """With 2 x 2 tiles isl peels the first wavefront (one tile: no wavefront or tile1 loop) into
    a nest of point loops ``(t, i)`` of the tile pair's shape; walked as tiles on one thread it ran
    only i = 0 (B[3] never written, fz26)."""
    monkeypatch.delenv("POLYFUSE_ONE_THREAD_TILES", raising=False)
    monkeypatch.setenv("POLYFUSE_TIME_TILE_SIZES", "2,2")
    kernel = polyfuse.kernel(_peeled_sweep, cache=False)
    rng = np.random.default_rng(2)
    for T, n in ((1, 7), (3, 12)):
        A, B = rng.random(n + 4), rng.random(n + 4)
        ours = (T, n, A.copy(), B.copy())
        _peeled_sweep(T, n, A, B)
        kernel(*ours)
        np.testing.assert_array_equal(ours[2], A)
        np.testing.assert_array_equal(ours[3], B)
    assert kernel.compile(1, 7, A, B).stages["loop ast"].one_thread_tiles
