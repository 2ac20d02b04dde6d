"""Time tiling of time-stepped stencils (polyfuse.time_tiling): bitwise results, records, knob.

Small tile sizes (``POLYFUSE_TIME_TILE_SIZES``) make full tiles, partial tiles and wavefronts all
occur at the small, odd sizes used here; one compiled variant per kernel runs every size, on one
thread and on a forced team of 2 and 3 threads (wavefronts of several tiles shared out).
"""

from __future__ import annotations

import inspect

import islpy as isl
import numpy as np
import pytest
from conftest import assert_regions_ran, copy_args, define
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.bench import suite
from polyfuse.errors import ArgumentError
from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For, If, StmtCall, calls_with_loops, nodes
from polyfuse.options import FUSED_ROWS_MIN_VECTORS, Options, vector_bytes
from polyfuse.runtime import threads
from polyfuse.runtime.variant import evaluate_int
from polyfuse.schedule import time_tiling
from polyfuse.schedule.scheduler import choose_schedule
from polyfuse.schedule.time_tiling import tile_sizes

SMALL_TILES = {"jacobi-1d": "3,8", "jacobi-2d": "3,4,8", "heat-3d": "2,3,3,8", "fdtd-2d": "3,4,8",
               "seidel-2d": "3,4,8"}
SIZES = {  # odd sizes, not multiples of the tiles; time steps 0, 1 and odd
    "jacobi-1d": [dict(tsteps=0, n=9), dict(tsteps=1, n=5), dict(tsteps=7, n=37), dict(tsteps=13, n=3)],
    "jacobi-2d": [dict(tsteps=0, n=7), dict(tsteps=1, n=11), dict(tsteps=7, n=19), dict(tsteps=5, n=3)],
    "heat-3d": [dict(tsteps=0, n=5), dict(tsteps=1, n=7), dict(tsteps=5, n=11), dict(tsteps=4, n=17)],
    "fdtd-2d": [dict(tmax=0, nx=5, ny=7), dict(tmax=1, nx=9, ny=4), dict(tmax=7, nx=17, ny=13)],
    "seidel-2d": [dict(tsteps=0, n=7), dict(tsteps=1, n=11), dict(tsteps=7, n=19), dict(tsteps=5, n=3)],
}


@pytest.fixture
def fresh(monkeypatch):
    """No disk cache: the tile sizes and the knob are set per test."""
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    return monkeypatch


def _decisions(kernel, args):
    return kernel.compile(*args).stages["schedule"].time_tiling


def _run_both(sk, kernel, sizes, seed=0, counts=(None,)):
    """The kernel against the plain function, bit for bit, on every argument; ``counts``: thread
    counts to run it on (None: as set), each call at a count after a first (measuring) one."""
    args = sk.make_args(np.random.default_rng(seed), **sizes)
    expected = copy_args(args)
    sk.func(*expected)
    saved = threads._num_threads
    try:
        for count in counts:
            if count is not None:
                threads.set_num_threads(count)
                kernel(*copy_args(args))
            actual = copy_args(args)
            assert kernel(*actual) is None
            for name, a, b in zip(sk.func.__code__.co_varnames, expected, actual):
                if isinstance(a, np.ndarray):
                    assert np.array_equal(a, b), f"{sk.name} {sizes} on {count} threads: {name} differs"
    finally:
        threads._num_threads = saved  # the count as the test found it


def wavefront_tiles(kernel, sk, args) -> int:
    """The most tiles one wavefront holds at these sizes: trips of the parallel tile loop ``_t1``
    (time_tiling: ``wavefront = tile0 + tile1 (sequential); tile1 parallel within it``), found by
    walking the loop AST's control flow, not its statements, with the call's sizes."""
    variant = kernel.compile(*args)
    assert variant.program is not None, "needs the loop AST (no disk cache)"
    env = variant.bind(dict(inspect.signature(sk.func).bind(*args).arguments))
    trips: list[int] = []
    _walk(variant.program.root, env, trips)
    return max(trips, default=0)


def _walk(node, env: dict, trips: list[int]) -> None:
    if isinstance(node, Block):
        for child in node.children:
            _walk(child, env, trips)
    elif isinstance(node, If):
        chosen = node.then if evaluate_int(node.cond, env) else node.otherwise
        if chosen is not None:
            _walk(chosen, env, trips)
    elif isinstance(node, For):
        inner = {**env, node.iterator: evaluate_int(node.init, env)}
        count = 0
        while evaluate_int(node.cond, inner):
            count += 1
            if not (node.parallel and node.iterator == "_t1"):  # the tiles themselves: not needed
                _walk(node.body, inner, trips)
            inner[node.iterator] += node.step
        if node.parallel and node.iterator == "_t1":
            trips.append(count)


@pytest.mark.parametrize("name", list(SMALL_TILES))
def test_stencils_bitwise_equal_at_odd_sizes_on_1_2_3_threads(fresh, forced, name):
    """Each size on one thread, then on a team of 2 and of 3 (forced: the serial-first rule
    would keep these sizes serial); at one size a wavefront holds at least 3 tiles, so the
    threads really share out a wavefront's tiles.  (jacobi-1d's rows fit L1 at these sizes: the
    whole-row version is off, else its untiled side runs, test_whole_row_version_* below.)"""
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", SMALL_TILES[name])
    fresh.setenv("POLYFUSE_TIME_TILE_WHOLE_ROW", "0")
    sk = suite.KERNELS[name]
    kernel = polyfuse.kernel(sk.func, verify=True)
    for k, sizes in enumerate(SIZES[name]):
        _run_both(sk, kernel, sizes, seed=k, counts=(1, 2, 3))
    args = sk.make_args(np.random.default_rng(0), **SIZES[name][-1])
    (decision,) = _decisions(kernel, args)
    assert decision.applied and decision.sizes == tuple(int(v) for v in SMALL_TILES[name].split(","))
    assert "wavefront" in decision.wavefront and "tile1 parallel" in decision.wavefront
    tiles = [wavefront_tiles(kernel, sk, sk.make_args(np.random.default_rng(0), **sizes)) for sizes in SIZES[name]]
    assert max(tiles) >= 3, tiles  # jacobi-1d, jacobi-2d, fdtd-2d: [0, 1, 3, ...]; heat-3d [1, 1, 2, 3]
    # the time-tiled phase is a parallel region, and it ran on the team: once on 2 and once on
    # 3 threads at each size where its serial run met a barrier (tsteps=0 meets none)
    backend = kernel.compile(*args).backend
    assert any(p.is_region for p in backend.artifact.phases)
    sizes_with_barriers = {key[2:] for key, t in backend.region_times.items() if t.worth_threads}
    assert len(sizes_with_barriers) >= 2
    assert_regions_ran(backend, 2 * len(sizes_with_barriers))


# off by default (ISOLATE_FULL_TILES): one stencil keeps it working; fdtd-2d took 40-120 s of CI
@pytest.mark.parametrize("name", ["jacobi-2d"])
def test_isolated_full_tiles_bitwise_equal(fresh, forced, name):
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", SMALL_TILES[name])
    fresh.setattr(time_tiling, "ISOLATE_FULL_TILES", True)
    sk = suite.KERNELS[name]
    kernel = polyfuse.kernel(sk.func, verify=True)
    for k, sizes in enumerate(SIZES[name][1:]):
        _run_both(sk, kernel, sizes, seed=k, counts=(1, 3))
    args = sk.make_args(np.random.default_rng(0), **SIZES[name][-1])
    assert "isolate" in kernel.explain(*args)["schedule"]["tree"]


def test_default_sizes_and_explain(fresh):
    sk = suite.KERNELS["jacobi-2d"]
    kernel = polyfuse.kernel(sk.func, verify=True)
    _run_both(sk, kernel, dict(tsteps=11, n=270))  # two time tiles, several space tiles
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    (decision,) = _decisions(kernel, args)
    assert decision.applied and decision.band == "S0: (t, 2t + i, 2t + j)"
    assert decision.footprint_bytes <= decision.budget_bytes
    explanation = kernel.explain(*args)
    assert any(r["applied"] for r in explanation["time tiling"])
    assert "time tiles" in str(explanation)
    # the wavefront's second tile loop is the parallel loop of a parallel region
    assert explanation["parallel regions"] and explanation["parallel regions"][0]["region"]


def test_knob_off_keeps_the_smart_schedule(fresh):
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    fresh.setenv("POLYFUSE_TIME_TILING", "0")
    off = polyfuse.kernel(sk.func, verify=True)
    stages = off.compile(*args).stages
    assert stages["schedule"].time_tiling == ()
    plain = choose_schedule(stages["lift"], stages["dependences"], fuse="smart", time_tiling=False)
    assert stages["schedule"].schedule.get_map().is_equal(plain.schedule.get_map())
    assert "time tiles" not in off.explain(*args)["loop code"]
    _run_both(sk, off, dict(tsteps=3, n=9))


def test_in_place_stencil_is_skewed_and_other_in_place_sweeps_are_left_alone(fresh):
    """seidel-2d's sweep updates A in place (not parallel within a step) but its distances are
    constant: Pluto's skew; lu's and floyd-warshall's distances grow with n: no time tiles."""
    sk = suite.KERNELS["seidel-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    (decision,) = _decisions(polyfuse.kernel(sk.func, verify=True), args)
    assert decision.applied and decision.band == "S0: (t, t + i, 2t + i + j)", decision
    for name in ("lu", "floyd-warshall"):
        sk = suite.KERNELS[name]
        args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
        (decision,) = _decisions(polyfuse.kernel(sk.func, verify=True), args)
        assert not decision.applied and "distances are not constant" in decision.reason, decision


def test_non_stencils_get_no_decision(fresh):
    sk = suite.KERNELS["gemm"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    decisions = _decisions(polyfuse.kernel(sk.func, verify=True), args)
    assert all(not d.applied and "carries no dependence" in d.reason for d in decisions)
    sk = suite.KERNELS["chain3"]  # loops that do not even look like a time loop: no records
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    assert _decisions(polyfuse.kernel(sk.func, verify=True), args) == ()


@pytest.mark.parametrize("name", [name for name in SMALL_TILES if name != "seidel-2d"])
def test_point_loops_run_in_the_statements_own_coordinates(fresh, name):
    """Below the time point loop, each statement's innermost coordinate is a plain loop iterator
    (or a constant, where isl peels a one-trip loop), not a skewed one such as
    ``S(_t2, _t3 - 2 * _t2)`` (LLVM then reuses neighbours' loads across iterations); results
    stay bitwise equal.  (The tiles: jacobi-1d's whole-row version, whose untiled side fuses the
    sweeps with a shift, is off, and so are fused sweeps in the tiles, which shift ``A[i - 1]``.)
    Each statement is called at one place: the tile loops are one nest for all of them
    (``POLYFUSE_TIME_TILE_ATOMIC``; without it fdtd-2d's S1 came out in 8 copies here)."""
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", SMALL_TILES[name])
    fresh.setenv("POLYFUSE_TIME_TILE_WHOLE_ROW", "0")
    fresh.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "0")
    sk = suite.KERNELS[name]
    kernel = polyfuse.kernel(sk.func, verify=True)
    args = sk.make_args(np.random.default_rng(0), **SIZES[name][-1])
    (decision,) = _decisions(kernel, args)
    assert decision.applied
    program = kernel.compile(*args).program
    calls = [n for n in nodes(program.root) if isinstance(n, StmtCall)]
    assert calls and all(isinstance(call.args[-1], ir.Var | ir.Const) for call in calls), name
    assert len(calls) == len({call.statement for call in calls}), name
    _run_both(sk, kernel, SIZES[name][-1])


def test_in_place_sweep_runs_its_rows_side_by_side(fresh):
    """seidel-2d's ``j`` loop is a chain (``A[i, j]`` needs ``A[i, j - 1]``); its tiles run the
    points ``(i, j)`` at steps ``2i + j``, each step's rows in a parallel innermost loop.
    jacobi-2d (no chain within a time step) keeps its loops."""
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", SMALL_TILES["seidel-2d"])
    sk = suite.KERNELS["seidel-2d"]
    kernel = polyfuse.kernel(sk.func, verify=True)
    args = sk.make_args(np.random.default_rng(0), **SIZES["seidel-2d"][-2])
    (decision,) = _decisions(kernel, args)
    assert decision.applied and "at step 2p + q" in decision.rows, decision
    assert "rows side by side" in str(kernel.explain(*args))
    calls = list(calls_with_loops(kernel.compile(*args).program.root))
    assert calls and all(loops[-1].parallel for _call, loops in calls)
    _run_both(sk, kernel, SIZES["seidel-2d"][-2], counts=(1, 2))
    jacobi = suite.KERNELS["jacobi-2d"]
    args = jacobi.make_args(np.random.default_rng(0), **jacobi.sizes["test"])
    (decision,) = _decisions(polyfuse.kernel(jacobi.func, verify=True), args)
    assert decision.applied and decision.rows == ""


def _band_members(text: str) -> list[isl.UnionMap]:
    """Each member of the first band of the schedule ``text`` after ``_unskewed``, as a map."""
    band = isl.Schedule(text).get_root().child(0)
    partial = time_tiling._unskewed(band).band_get_partial_schedule()
    return [isl.UnionMap.from_union_pw_aff(partial.get_at(k)) for k in range(band.band_n_member())]


def test_unskewing_shifts_only_where_the_order_stays():
    """One statement: each member drops what the loops around it fix (seidel-2d's band).  Two
    statements with different time coefficients: a shift by ``c * t`` would reorder them, so the
    band stays as it is."""
    members = _band_members('{ domain: "[n] -> { S[t, i, j] : 0 <= t, i, j < n }", child: '
                            '{ schedule: "[{ S[t, i, j] -> [(t + i)] }, { S[t, i, j] -> [(2t + i + j)] }]" } }')
    assert members[0].is_equal(isl.UnionMap("[n] -> { S[t, i, j] -> [(i)] : 0 <= t, i, j < n }"))
    assert members[1].is_equal(isl.UnionMap("[n] -> { S[t, i, j] -> [(j)] : 0 <= t, i, j < n }"))
    text = ('{ domain: "[n] -> { S[t, i] : 0 <= t, i < n; T[t, i] : 0 <= t, i < n }", child: '
            '{ schedule: "[{ S[t, i] -> [(2t + i)]; T[t, i] -> [(t + i)] }]" } }')
    (member,) = _band_members(text)
    assert member.is_equal(isl.UnionMap("{ S[t, i] -> [(2t + i)]; T[t, i] -> [(t + i)] }"))


def test_tile_size_model_fits_the_budget():
    sizes, footprint = tile_sizes((2, 2), 16, 512 * 1024)
    assert footprint <= 512 * 1024 and sizes[0] >= 2 and sizes[-1] >= 64
    sizes3, footprint3 = tile_sizes((2, 2, 2), 16, 512 * 1024)
    assert len(sizes3) == 4 and footprint3 <= 512 * 1024
    assert tile_sizes((2,), 16, 16) == ((), 0)  # nothing fits: no tiling
    # 16 x 16 x 64 holds as many points as 8 x 8 x 256 with less halo; the longer innermost loop wins
    assert sizes3 == (8, 8, 8, 256) and footprint3 == 16 * 10 * 10 * 258
    # ... up to 512 long: then the least halo (32 x 512, not 8 x 2048)
    assert sizes == (8, 32, 512)


COEFFICIENTS = ("0.25", "0.5", "0.2", "1.5", "0.125")


@st.composite
def stencil_programs(draw, in_place: bool = False):
    """A random time-stepped stencil: 1-3 sweeps over 1-D or 2-D grids, each writing one array
    from neighbours (offsets -1..1) of the others, so every sweep is parallel within a step;
    ``in_place``: of every array, the target too (a Gauss-Seidel-like sweep, not parallel)."""
    rank = draw(st.sampled_from([1, 2]))
    names = ["A", "B", "C"][: draw(st.integers(2, 3))]
    loops = ["i", "j"][:rank]
    lines = [f"def kern(tsteps, n, {', '.join(names)}):", "    for t in range(tsteps):"]
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(names))
        sources = [a for a in names if a != target or in_place]
        terms = []
        for _ in range(draw(st.integers(1, 4))):
            source = draw(st.sampled_from(sources))
            offsets = [draw(st.integers(-1, 1)) for _ in loops]
            index = ", ".join(f"{v} + {o}" if o else v for v, o in zip(loops, offsets))
            terms.append(f"{draw(st.sampled_from(COEFFICIENTS))} * {source}[{index}]")
        indent = "        "
        for depth, v in enumerate(loops):
            lines.append(indent + "    " * depth + f"for {v} in range(1, n - 1):")
        lines.append(indent + "    " * rank + f"{target}[{', '.join(loops)}] = {' + '.join(terms)}")
    return "\n".join(lines) + "\n", rank, len(names)


@settings(max_examples=9, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=stencil_programs(), tsteps=st.integers(0, 7), n=st.integers(3, 13), seed=st.integers(0, 99))
def test_random_stencils_bitwise_equal(fresh, forced, program, tsteps, n, seed):
    """On one thread, then (after the measuring call) on a forced team of two."""
    source, rank, arrays = program
    note(source)
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", "3,4" if rank == 1 else "3,4,8")
    fn = define(source, "kern")
    rng = np.random.default_rng(seed)
    args = (tsteps, n, *(rng.random((n,) * rank) for _ in range(arrays)))
    expected = copy_args(args)
    fn(*expected)
    kernel = polyfuse.kernel(fn, verify=True)
    for count in (1, 2):
        threads.set_num_threads(count)
        kernel(*copy_args(args))
        actual = copy_args(args)
        kernel(*actual)
        for e, a in zip(expected[2:], actual[2:]):
            assert np.array_equal(e, a), f"{count} thread(s)"


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=stencil_programs(in_place=True), tsteps=st.integers(0, 7), n=st.integers(3, 13),
       seed=st.integers(0, 99))
def test_random_in_place_stencils_bitwise_equal(fresh, forced, program, tsteps, n, seed):
    """Sweeps that may read the array they update (skewed like seidel-2d where time tiled)."""
    test_random_stencils_bitwise_equal.hypothesis.inner_test(fresh, forced, program, tsteps, n, seed)


def test_time_tiling_does_not_depend_on_register_tiles(fresh):
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    kernel = polyfuse.kernel(sk.func, registers=False)
    assert any(d.applied for d in _decisions(kernel, args))


def test_tiled_nests_prefer_the_widest_vectors(fresh, forced):
    """The functions of a time-tiled nest ask LLVM for 512-bit vectors (its tiles keep their data in
    L2, so their loops are arithmetic- and load-bound; LLVM prefers 256 bits on Intel's AVX-512
    cores), the knob off leaves LLVM's choice; the results are the plain function's on 1 and 2
    threads either way (row lengths around the 8 lanes of a 512-bit vector, several tiles)."""
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", "3,16")
    sk = suite.KERNELS["jacobi-1d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    for knob, attribute in (("1", True), ("0", False)):
        fresh.setenv("POLYFUSE_TILED_WIDE", knob)
        kernel = polyfuse.kernel(sk.func)
        assert kernel.compile(*args).stages["schedule"].time_tiling[0].applied
        assert ('"prefer-vector-width"="512"' in kernel.inspect_llvm(*args)) == attribute
        for sizes in (dict(tsteps=5, n=9), dict(tsteps=9, n=45)):
            _run_both(sk, kernel, sizes, counts=(1, 2))


def test_whole_row_version_bitwise_equal_on_both_sides(fresh, forced):
    """``POLYFUSE_TIME_TILE_WHOLE_ROW=1``: a 1-d band runs untiled where its rows fit the L1
    budget (here 320 bytes: 20 points of A and B), tiled elsewhere; isl's test on ``n`` picks the
    version at run time; on the untiled side rows of fewer than ``POLYFUSE_TIME_TILE_FUSED_ROWS_MIN``
    vectors (here 2: 16 points of float64 with AVX-512) keep a row loop per sweep, longer ones run
    fused.  All three, bit for bit, on 1, 2 and 3 threads."""
    fresh.setenv("POLYFUSE_TIME_TILE_WHOLE_ROW", "1")
    fresh.setenv("POLYFUSE_L1_BYTES", "320")
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", SMALL_TILES["jacobi-1d"])
    fresh.setenv("POLYFUSE_TIME_TILE_FUSED_ROWS_MIN", "2")
    least = 2 * vector_bytes() // 8
    sk = suite.KERNELS["jacobi-1d"]
    kernel = polyfuse.kernel(sk.func, verify=True)
    for k, sizes in enumerate([dict(tsteps=7, n=21), dict(tsteps=9, n=22), dict(tsteps=7, n=37),
                               dict(tsteps=5, n=least + 1)]):
        _run_both(sk, kernel, sizes, seed=k, counts=(1, 2, 3))
    args = sk.make_args(np.random.default_rng(0), tsteps=7, n=37)
    (decision,) = _decisions(kernel, args)
    assert decision.applied and "untiled where every row fits in 20 points" in decision.whole_row
    if least <= 19:  # rows of n - 2 points: n = 21 and 22 fused, n = least + 1 not
        assert f"where a row has at least {least} points" in decision.whole_row, decision.whole_row
    assert "untiled where every row fits" in str(kernel.explain(*args))
    top = kernel.compile(*args).program.root.children
    assert any(isinstance(node, If) and node.otherwise is not None for node in top)
    # rows of 20 points (n = 22: i in 1..20) run untiled: the two sweeps in one serial row loop
    # (fused_sweeps; a prologue and an epilogue of one point), not a wavefront's tiles; n = 37
    # runs the tiles (8 points wide: at most 6 in a wavefront)
    assert wavefront_tiles(kernel, sk, sk.make_args(np.random.default_rng(0), tsteps=9, n=22)) <= 1
    assert 1 <= wavefront_tiles(kernel, sk, args) <= 6


def pascal_rows(A):
    for i in range(1, A.shape[0]):
        A[i, 1:i] = A[i - 1, :i - 1] + A[i - 1, 1:i]


def _time_tile_loops(node, found: list[For]) -> None:
    """The loops flagged ``time_tiles`` under ``node`` (astgen: isl's loops of a tile band)."""
    for n in nodes(node):
        if isinstance(n, For) and n.time_tiles:
            found.append(n)


def test_whole_rows_of_an_in_place_sweep_are_not_walked_as_tiles(fresh, forced):
    """The whole-row version of a sweep whose row loop is one loop (S0 and S1 of the slice
    assignment fused): its untiled loops are named and shaped as a wavefront and its tile loop
    (``_t0`` sequential, ``_t1`` parallel inside it), and were walked as tiles on one thread
    (at 3 x 3 no point ran: A[2, 1] kept its old value).  Only the tiled side's loops carry the
    tile band's mark; both sides, on 1 and 2 threads, bit for bit against Python."""
    fresh.setenv("POLYFUSE_TIME_TILE_WHOLE_ROW", "1")
    fresh.setenv("POLYFUSE_L1_BYTES", "320")  # 20 points of A and the slice's temporary
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", "3,8")
    kernel = polyfuse.kernel(pascal_rows, verify=True)
    for count in (1, 2):
        threads.set_num_threads(count)
        for n in (3, 9, 30):  # untiled (rows of at most 20 points: n <= 22), untiled, tiled
            A = np.random.default_rng(n).random((n, n))
            expected = A.copy()
            pascal_rows(expected)
            for call in range(3):  # the first call at a size runs the region on one thread (measured)
                actual = A.copy()
                kernel(actual)
                assert np.array_equal(actual, expected), f"n = {n} on {count} threads, call {call}"
    A = np.zeros((9, 9))
    (decision,) = _decisions(kernel, (A,))
    assert decision.applied and decision.one_thread_order and "untiled where every row" in decision.whole_row
    (version,) = [n for n in kernel.compile(A).program.root.children if isinstance(n, If)]
    untiled: list[For] = []
    tiled: list[For] = []
    _time_tile_loops(version.then, untiled)
    _time_tile_loops(version.otherwise, tiled)
    assert not untiled and [loop.iterator for loop in tiled] == ["_t0"]
    # the untiled side really is the wavefront's look-alike: _t0 around a parallel _t1
    assert isinstance(version.then, For) and isinstance(version.then.body, For) and version.then.body.parallel
    variant = kernel.compile(A)
    for n, untiled_side in ((3, True), (9, True), (30, False)):  # the side each size above took
        assert evaluate_int(version.cond, variant.bind({"A": np.zeros((n, n))})) == untiled_side


def _innermost_calls(node, found: list[int]) -> None:
    """How many statement calls each innermost loop under ``node`` runs."""
    for n in nodes(node):
        if isinstance(n, For) and not any(isinstance(c, For) for c in nodes(n.body)):
            found.append(sum(isinstance(c, StmtCall) for c in nodes(n.body)))


def test_fused_tile_sweeps_bitwise_equal(fresh, forced):
    """``POLYFUSE_TIME_TILE_FUSED_TILES=3`` (2-d and 3-d sweeps too): a tile runs both sweeps of
    a time step in one point loop nest, the second shifted by the lexicographically least vector that keeps every
    dependence within a time step forward (jacobi-2d: one row back, so ``A[i - 1, j]`` is written
    after ``B[i, j]`` in the same iteration).  Bit for bit against Python on 1 and 2 threads at
    odd sizes (partial tiles, the shifted rows' prologues and epilogues); the knob off keeps one
    loop nest per sweep."""
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", SMALL_TILES["jacobi-2d"])
    sk = suite.KERNELS["jacobi-2d"]
    plain = polyfuse.kernel(sk.func)  # the default: one-dimensional sweeps only
    fresh.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "3")
    kernel = polyfuse.kernel(sk.func, verify=True)
    for k, sizes in enumerate(SIZES["jacobi-2d"][1:3]):
        _run_both(sk, kernel, sizes, seed=k, counts=(1, 2))
    args = sk.make_args(np.random.default_rng(0), **SIZES["jacobi-2d"][2])
    (decision,) = _decisions(kernel, args)
    assert decision.applied and decision.rows == time_tiling.FUSED_TILES_TEXT + "S0 (0, 0), S1 (1, 0)"
    assert "sweeps fused in the tiles" in str(kernel.explain(*args))
    fused: list[int] = []
    _innermost_calls(kernel.compile(*args).program.root, fused)
    fresh.delenv("POLYFUSE_TIME_TILE_FUSED_TILES")
    separate: list[int] = []
    _innermost_calls(plain.compile(*args).program.root, separate)
    assert max(fused) == 2 and max(separate) == 1, (fused, separate)


def test_fused_tile_sweep_shifts(fresh):
    """heat-3d's second sweep one plane back (``(1, 0, 0)``: lexmin of its distances within a
    step is ``(-1, 0, 0)``); none where a later sweep feeds an earlier one within a step, nor
    where the sweeps' dimensions differ (fdtd-2d's ``ey[0, j] = fict[t]``)."""
    fresh.setenv("POLYFUSE_TIME_TILING", "0")
    found = {}
    for name in ("heat-3d", "fdtd-2d"):
        sk = suite.KERNELS[name]
        stages = polyfuse.kernel(sk.func).compile(*sk.make_args(np.random.default_rng(0), **sk.sizes["test"])).stages
        scop, deps = stages["lift"], stages["dependences"]
        found[name] = time_tiling.tile_sweep_shifts(scop, deps, tuple(s.name for s in scop.statements))
    assert found == {"heat-3d": {"S0": (0, 0, 0), "S1": (1, 0, 0)}, "fdtd-2d": None}
    fn = define("""
def kern(tsteps, n, A, B):
    for t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = A[i, j] + A[i - 1, j]
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = B[i, j] * 0.5
""")
    stages = polyfuse.kernel(fn).compile(3, 6, np.zeros((6, 6)), np.zeros((6, 6))).stages
    scop, deps = stages["lift"], stages["dependences"]
    shifts = time_tiling.tile_sweep_shifts(scop, deps, tuple(s.name for s in scop.statements))
    assert shifts == {"S0": (0, 0), "S1": (1, 0)}  # S0 at (i, j) reads A[i - 1, j], S1 writes it


def test_one_dimensional_tiles_fuse_by_default(fresh, forced):
    """By default (``POLYFUSE_TIME_TILE_FUSED_TILES`` 1) jacobi-1d's tiles run ``B[i]`` and
    ``A[i - 1]`` in one row loop (its loads of ``B`` from the queues of carried loads); bit for
    bit on 1 and 2 threads; ``=0`` keeps a row loop per sweep."""
    fresh.setenv("POLYFUSE_TIME_TILE_SIZES", SMALL_TILES["jacobi-1d"])
    fresh.setenv("POLYFUSE_TIME_TILE_WHOLE_ROW", "0")
    sk = suite.KERNELS["jacobi-1d"]
    kernel = polyfuse.kernel(sk.func, verify=True)
    _run_both(sk, kernel, dict(tsteps=7, n=37), counts=(1, 2))
    args = sk.make_args(np.random.default_rng(0), tsteps=7, n=37)
    (decision,) = _decisions(kernel, args)
    assert decision.rows == time_tiling.FUSED_TILES_TEXT + "S0 (0,), S1 (1,)"
    fresh.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "0")
    (decision,) = _decisions(polyfuse.kernel(sk.func), args)
    assert decision.applied and not decision.rows


@pytest.mark.parametrize("value, vectors", [("", FUSED_ROWS_MIN_VECTORS), ("0", 0), ("3", 3), ("x", None)])
def test_the_fused_rows_knob_reads_vectors(monkeypatch, value, vectors):
    """``POLYFUSE_TIME_TILE_FUSED_ROWS_MIN``: the least vectors of a row for fused sweeps, as bytes
    (1: every row); a misspelt value is an ArgumentError naming it."""
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_ROWS_MIN", value)
    monkeypatch.delenv("POLYFUSE_CARRIED_LOADS", raising=False)
    monkeypatch.delenv("POLYFUSE_TIME_TILE_FUSED_ROWS", raising=False)
    if vectors is None:
        with pytest.raises(ArgumentError, match="POLYFUSE_TIME_TILE_FUSED_ROWS_MIN"):
            Options().time_tile_fused_rows()
    else:
        assert Options().time_tile_fused_rows() == max(1, vectors * vector_bytes())


@pytest.mark.parametrize("value, dims", [("", 1), ("0", 0), ("off", 0), ("3", 3), ("two", None), ("-1", None)])
def test_the_fused_tiles_knob_reads_counts_and_refuses_anything_else(monkeypatch, value, dims):
    """``POLYFUSE_TIME_TILE_FUSED_TILES``: a count, off, or unset (1); a misspelt value is an
    ArgumentError naming it, not the default taken silently."""
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", value)
    monkeypatch.delenv("POLYFUSE_CARRIED_LOADS", raising=False)
    if dims is None:
        with pytest.raises(ArgumentError, match="POLYFUSE_TIME_TILE_FUSED_TILES"):
            Options().time_tile_fused_tiles()
    else:
        assert Options().time_tile_fused_tiles() == dims
