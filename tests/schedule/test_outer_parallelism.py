"""Outer parallelism (polyfuse.schedule.outer_parallelism): isl's outer-parallel schedule for nests
whose smart order has parallel loops only deep inside; bitwise results, records, refusals, knob."""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest
from conftest import assert_regions_ran, copy_args

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads
from polyfuse.schedule.outer_parallelism import parallel_depths, strided_accesses


@pytest.fixture
def fresh(monkeypatch):
    """No disk cache: the knob is set per test."""
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    return monkeypatch


def _decisions(kernel, args):
    return kernel.compile(*args).stages["schedule"].outer_parallelism


def _bitwise(sk, kernel, sizes, counts):
    args = sk.make_args(np.random.default_rng(1), **sizes)
    expected = copy_args(args)
    sk.func(*expected)
    for count in counts:
        threads.set_num_threads(count)
        kernel(*copy_args(args))  # the first call at a count measures (serially)
        actual = copy_args(args)
        kernel(*actual)
        for a, b in zip(expected, actual):
            if isinstance(a, np.ndarray):
                assert a.tobytes() == b.tobytes(), f"{sk.name} {sizes} on {count} threads"


def test_lu_gets_the_right_looking_order_bitwise_on_1_2_3_threads(fresh, forced):
    """lu row by row has no parallel loop around its first statements; with the pivot loop
    outermost the row loop below it is parallel.  Each A[i, j] still takes its updates in
    ascending k, so the result is bit for bit the Python function's."""
    sk = suite.KERNELS["lu"]
    kernel = polyfuse.kernel(sk.func, verify=True)
    for n in (1, 2, 5, 13):
        _bitwise(sk, kernel, dict(n=n), counts=(1, 2, 3))
    args = sk.make_args(np.random.default_rng(0), n=13)
    (decision,) = _decisions(kernel, args)
    assert decision.applied and decision.isl_depth == 1 < decision.smart_depth, decision
    explanation = kernel.explain(*args)
    assert explanation["outer parallelism"][0]["applied"]
    (region,) = explanation["parallel regions"]
    assert region["parallel_loops"] == ("_t1 (depth 1)",)  # the row loop, inside the pivot loop only
    # the region ran on the team: once on 2 and once on 3 threads at each size whose serial run
    # met a barrier (n = 1 meets none)
    backend = kernel.compile(*args).backend
    sizes_with_barriers = {key[2:] for key, t in backend.region_times.items() if t.worth_threads}
    assert len(sizes_with_barriers) >= 2
    assert_regions_ran(backend, 2 * len(sizes_with_barriers))


def test_python_target_runs_the_same_schedule(fresh):
    sk = suite.KERNELS["lu"]
    kernel = polyfuse.kernel(sk.func, target="python", verify=True)
    args = sk.make_args(np.random.default_rng(0), n=9)
    expected, actual = copy_args(args), copy_args(args)
    sk.func(*expected)
    kernel(*actual)
    assert expected[1].tobytes() == actual[1].tobytes()
    assert _decisions(kernel, args)[0].applied


def test_floyd_warshalls_strided_order_is_refused(fresh):
    """isl's outer-parallel order of floyd-warshall (a skewed i + j loop) measured 3.5x slower on
    one thread: more strided accesses in its only (3-deep) statement, refused."""
    sk = suite.KERNELS["floyd-warshall"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    (decision,) = _decisions(polyfuse.kernel(sk.func, verify=True), args)
    assert not decision.applied and decision.isl_depth < decision.smart_depth
    assert "with a stride" in decision.reason


def test_cholesky_gets_the_left_looking_order_bitwise_on_1_2_3_threads(fresh, forced):
    """cholesky row by row has no parallel loop; isl's outer-parallel order (right-looking) walks a
    column in the update's innermost loop.  The smart order with its column loop interchanged with
    the row loop (left-looking: ``for j: sqrt of A[j, j]; for i > j (parallel): for k < j``) keeps
    the update's rows contiguous.  Every element takes its updates in ascending k: bit for bit."""
    sk = suite.KERNELS["cholesky"]
    kernel = polyfuse.kernel(sk.func, verify=True)
    for n in (1, 2, 5, 13, 19):  # 19: row counts that are not a multiple of the interleaved copies
        _bitwise(sk, kernel, dict(n=n), counts=(1, 2, 3))
    args = sk.make_args(np.random.default_rng(0), n=13)
    (decision,) = _decisions(kernel, args)
    assert decision.applied and decision.isl_depth < decision.smart_depth, decision
    assert "interchanged" in decision.reason
    python = polyfuse.kernel(sk.func, target="python", verify=True)
    expected, actual = copy_args(args), copy_args(args)
    sk.func(*expected)
    python(*actual)
    assert expected[1].tobytes() == actual[1].tobytes()


@pytest.mark.parametrize("name", ["lu", "cholesky"])
def test_pivot_blocks_bitwise_on_1_2_3_threads(fresh, forced, name):
    """The outer-parallel order tiled in blocks of 4 pivots and 4 rows (small, so that n = 15
    holds several blocks, a partial last one and more than one parallel tile per block): the
    diagonal tile first, the other tiles of the block in parallel.  Each element still takes its
    updates in ascending k: bit for bit the Python function's (the schedule is verified too)."""
    fresh.setenv("POLYFUSE_PIVOT_BLOCK", "4")
    sk = suite.KERNELS[name]
    kernel = polyfuse.kernel(sk.func, verify=True)
    _bitwise(sk, kernel, dict(n=15), counts=(1, 2, 3))
    args = sk.make_args(np.random.default_rng(0), n=15)
    (decision,) = _decisions(kernel, args)
    assert decision.applied and decision.pivot_blocks.startswith("blocks of 4 pivots"), decision
    (region,) = kernel.explain(*args)["parallel regions"]
    assert region["parallel_loops"] == ("_t1 (depth 1)",)  # the tiles of one block, not the rows
    assert_regions_ran(kernel.compile(*args).backend, 2)  # on 2 and on 3 threads


def test_pivot_blocks_need_a_sequential_outer_loop(fresh):
    """With no dependence on its outer loop a nest has no pivots whose updates a block would
    share: not blocked, and the record says why."""
    from polyfuse.analysis.dependences import Dependences
    from polyfuse.schedule.outer_parallelism import pivot_blocked

    sk = suite.KERNELS["lu"]
    args = sk.make_args(np.random.default_rng(0), n=6)
    stages = polyfuse.kernel(sk.func).compile(*args).stages
    scop, deps = stages["lift"], stages["dependences"]
    blocked, _, why = pivot_blocked(scop, Dependences((), deps.empty), scop.schedule, 4)
    assert blocked is None and "carries no dependence" in why, why


def _nest(source: str):
    import linecache

    filename = f"<test-outer-nest-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"]


def test_an_interchange_that_runs_a_dependence_backwards_is_not_a_candidate(fresh):
    """``A[i, j]`` reads ``A[i - 1, j + 1]``: with the j loop outermost, iteration j would read
    what iteration j + 1 writes later.  No interchanged candidate; the result is the function's."""
    from polyfuse.schedule.outer_parallelism import interchanged_schedules

    func = _nest("def k(n, A, B):\n"
                 "    for i in range(1, n):\n"
                 "        for j in range(n - 1):\n"
                 "            A[i, j] = A[i - 1, j + 1] * 0.5 + 1.0\n"
                 "        B[i] = A[i, 0]\n")
    rng = np.random.default_rng(0)
    args = (9, rng.random((9, 9)), rng.random(9))
    kernel = polyfuse.kernel(func, verify=True)
    stages = kernel.compile(*args).stages
    scop, deps = stages["lift"], stages["dependences"]
    validity = deps.validity().union(deps.local_false())
    fresh.setenv("POLYFUSE_OUTER_PARALLELISM", "0")
    smart = polyfuse.kernel(func).compile(*args).stages["schedule"].schedule
    assert interchanged_schedules(scop, smart, validity) == []
    expected, actual = copy_args(args), copy_args(args)
    func(*expected)
    kernel(*actual)
    for a, b in zip(expected, actual):
        if isinstance(a, np.ndarray):
            assert a.tobytes() == b.tobytes()


def test_interchange_reorders_the_parts_the_dependences_order(fresh):
    """Moving the column loop out puts cholesky's square root (written after the row's updates)
    before the column's updates, which divide by it: the parts directly inside the new outer loop
    follow the dependences within one of its iterations."""
    from polyfuse.schedule.outer_parallelism import interchanged_schedules

    sk = suite.KERNELS["cholesky"]
    args = sk.make_args(np.random.default_rng(0), n=7)
    fresh.setenv("POLYFUSE_OUTER_PARALLELISM", "0")
    stages = polyfuse.kernel(sk.func).compile(*args).stages
    scop, deps = stages["lift"], stages["dependences"]
    validity = deps.validity().union(deps.local_false())
    (candidate,) = interchanged_schedules(scop, stages["schedule"].schedule, validity)
    flat = {m.get_tuple_name(isl.dim_type.in_): m for m in _maps(candidate.get_map())}

    def position(name: str) -> int:  # the statement's place directly inside the outer loop
        point = flat[name].range().sample_point()
        return int(point.get_coordinate_val(isl.dim_type.set, 1).to_python())

    assert position("S3") < position("S0") == position("S1")


def _maps(union):
    from polyfuse.model.isl_parts import maps_of

    return maps_of(union)


def test_nests_with_outer_parallel_loops_get_no_record(fresh):
    sk = suite.KERNELS["gemm"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    assert _decisions(polyfuse.kernel(sk.func, verify=True), args) == ()


def test_knob_off_keeps_the_smart_order(fresh):
    fresh.setenv("POLYFUSE_OUTER_PARALLELISM", "0")
    sk = suite.KERNELS["lu"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    kernel = polyfuse.kernel(sk.func, verify=True)
    assert _decisions(kernel, args) == ()
    assert "outer_parallelism=off" in kernel.options.key()
    assert _decisions(polyfuse.kernel(sk.func, parallel=False), args) == ()


def test_depths_and_strides_of_lu_orders(fresh):
    """The measures the decision compares, on lu's smart order and on its right-looking one."""
    sk = suite.KERNELS["lu"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    fresh.setenv("POLYFUSE_OUTER_PARALLELISM", "0")
    stages = polyfuse.kernel(sk.func).compile(*args).stages
    scop, deps = stages["lift"], stages["dependences"]
    validity = deps.validity().union(deps.local_false())
    smart = stages["schedule"].schedule
    # S0 (for k < j) and S1 sit in no parallel loop: their depth is their loop count plus one
    assert parallel_depths(smart, validity, scop.context) == {"S0": 4, "S1": 3, "S2": 2}
    fresh.setenv("POLYFUSE_OUTER_PARALLELISM", "1")
    fresh.setenv("POLYFUSE_PIVOT_BLOCK", "0")  # the right-looking order itself, not in blocks
    right = polyfuse.kernel(sk.func).compile(*args).stages["schedule"].schedule
    assert parallel_depths(right, validity, scop.context) == {"S0": 1, "S1": 1, "S2": 1}
    # smart: S0 reads A[k, j] down a column, S1 divides along its row (A[j, j] strided);
    # right-looking: S1 walks column k (A[i, j], i inner) and reads A[j, j] once (invariant)
    assert strided_accesses(scop, smart) == 2 and strided_accesses(scop, right) == 2


@pytest.mark.parametrize("body", ["np.repeat(x, 0)", "np.tile(x, (2, 0))", "np.tile(x, (0, 3))"])
def test_nests_with_no_instances_are_left_alone(body):
    """A nest whose domain is empty at compile time (a constant zero extent) has no loop depths:
    nothing to propose (max() of nothing failed here, found by tests/frontend/test_joins.py)."""
    import linecache

    source = f"def k(x):\n    return {body}\n"
    filename = f"<test-outer-empty-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    for target in ("python", "cpu"):
        got = polyfuse.kernel(namespace["k"], target=target, cache=False)(2.5)
        want = namespace["k"](2.5)
        assert got.shape == want.shape and got.dtype == want.dtype


def test_a_vectorized_innermost_loop_is_not_traded_for_threads():
    """mandelbrot's masked update in a time loop: isl's outer-coincidence order runs the pixels in
    parallel with the time loop innermost (sequential); the smart order keeps the pixel loop
    innermost and parallel (vectorized), which measured 6x faster: the candidate is refused."""
    import linecache

    source = (
        "def k(C, maxiter):\n"
        "    Z = np.zeros(C.shape, dtype=np.complex128)\n"
        "    N = np.zeros(C.shape, dtype=np.int64)\n"
        "    for n in range(maxiter):\n"
        "        I = np.less(abs(Z), 2.0)\n"
        "        N[I] = n\n"
        "        Z[I] = Z[I] ** 2 + C[I]\n"
        "    return Z, N\n"
    )
    filename = "<test-outer-vectorized>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    C = np.linspace(-2, 1, 40)[None, :] + 1j * np.linspace(-1.5, 1.5, 30)[:, None]
    kernel = polyfuse.kernel(namespace["k"], cache=False)
    (z, n), (want_z, want_n) = kernel(C, 12), namespace["k"](C, 12)
    np.testing.assert_array_equal(n, want_n)
    np.testing.assert_allclose(z, want_z, rtol=1e-9)  # z**2 + c iterated: rounding grows (NumPy's own SIMD)
    records = kernel.explain(C, 12).to_dict().get("outer parallelism", [])
    assert records and not any(r["applied"] for r in records)
    assert any("innermost loop" in r["reason"] for r in records)


FACTORISATIONS = {
    # cholesky with other names and the diagonal first in its row
    "cholesky_renamed": ("def k(n, M):\n"
                         "    for r in range(n):\n"
                         "        for p in range(r):\n"
                         "            M[r, r] -= M[r, p] * M[r, p]\n"
                         "        M[r, r] = np.sqrt(M[r, r])\n"
                         "        for c in range(r + 1, n):\n"
                         "            for p in range(r):\n"
                         "                M[c, r] -= M[c, p] * M[r, p]\n"
                         "            M[c, r] /= M[r, r]\n"),
    # forward substitution: the column form would read L down a column (refused or not, equal)
    "forward_substitution": ("def k(n, L, b):\n"
                             "    for i in range(n):\n"
                             "        for j in range(i):\n"
                             "            b[i] -= L[i, j] * b[j]\n"
                             "        b[i] /= L[i, i]\n"),
    # a row recurrence: the interchange would run a dependence backwards
    "row_recurrence": ("def k(n, L, b):\n"
                       "    for i in range(1, n):\n"
                       "        for j in range(n - 1):\n"
                       "            L[i, j] = L[i - 1, j + 1] * 0.5 + L[i, j]\n"
                       "        b[i] = L[i, 0] + b[i - 1]\n"),
    # cholesky's row order with a second output row-scaled after the row is done
    "cholesky_and_scale": ("def k(n, A, s):\n"
                           "    for i in range(n):\n"
                           "        for j in range(i):\n"
                           "            for k in range(j):\n"
                           "                A[i, j] -= A[i, k] * A[j, k]\n"
                           "            A[i, j] /= A[j, j]\n"
                           "        for k in range(i):\n"
                           "            A[i, i] -= A[i, k] * A[i, k]\n"
                           "        A[i, i] = np.sqrt(A[i, i])\n"
                           "        s[i] = A[i, 0] * 2.0\n"),
}


@pytest.mark.parametrize("name", sorted(FACTORISATIONS))
def test_factorisation_variants_equal_the_function_on_threads(fresh, forced, name):
    """Imperfect triangular nests near cholesky's: whatever order the pass picks (interchanged,
    isl's or the smart one), every call equals the Python function bit for bit, on 1-3 threads."""
    func = _nest(FACTORISATIONS[name])
    for n in (1, 6, 19):
        rng = np.random.default_rng(n)
        M = rng.random((n, n))
        spd = M @ M.T / max(n, 1) + np.eye(n)
        args = (n, spd, rng.random(n)) if name != "cholesky_renamed" else (n, spd)
        expected = copy_args(args)
        func(*expected)
        kernel = polyfuse.kernel(func, verify=True)
        for count in (1, 2, 3):
            threads.set_num_threads(count)
            kernel(*copy_args(args))  # the first call at a count measures (serially)
            actual = copy_args(args)
            kernel(*actual)
            for a, b in zip(expected, actual):
                if isinstance(a, np.ndarray):
                    assert a.tobytes() == b.tobytes(), f"{name} n={n} on {count} threads"


def test_pivot_blocks_are_verified_without_the_candidates_dataflow(fresh, monkeypatch):
    """fz27: a pivot nest whose blocked order runs a dependence backwards (the column scale
    from the pivot row itself, the update from two rows below) took 43.7 s of CPU to compile at
    the default block size, 42 s of it isl's ``compute_flow`` on the candidate (floors in its
    schedule; under the operation budget, which isl does not count there).  Pivot blocks keep
    every element's order by design, so the cheap tests decide: a backward dependence refuses
    the candidate at once (2 s), and its exact dataflow is never computed; an order of more than
    ``PIVOT_MAX_PIECES`` pieces (this one has 73; lu's 9) is refused before any test (0.3 s)."""
    from polyfuse.analysis import verify
    from polyfuse.schedule import scheduler

    fresh.setenv("POLYFUSE_PIVOT_BLOCK", "5")
    checking: list[bool] = []
    real_violations, real_flow = scheduler.violations, verify.exact_flow

    def watched(*args, **kwargs):
        checking.append(kwargs.get("exact", True) is False)
        try:
            return real_violations(*args, **kwargs)
        finally:
            checking.pop()

    def flow(*args, **kwargs):
        assert not any(checking), "the pivot-block candidate's exact dataflow was computed"
        return real_flow(*args, **kwargs)

    monkeypatch.setattr(scheduler, "violations", watched)
    monkeypatch.setattr(verify, "exact_flow", flow)
    func = _nest("def k(n, A, d):\n"
                 "    for k in range(1, n):\n"
                 "        A[k, k] = np.sqrt(abs(A[k, k]) + 1.0)\n"
                 "        for i in range(k, n):\n"
                 "            A[i, k] = A[i, k] * d[k] / (1.0 + abs(A[k, k]))\n"
                 "        for i in range(k + 2, n):\n"
                 "            for j in range(k + 1, n):\n"
                 "                A[i, j] += 0.5 * A[i, k] * A[k, j]\n")
    n = 9
    args = (n, np.eye(n) * 5 + np.random.default_rng(0).random((n, n)), np.linspace(0.5, 1.5, n))
    kernel = polyfuse.kernel(func, target="python")  # (the decision is the schedule's: no LLVM needed)
    (decision,) = _decisions(kernel, args)
    assert decision.pivot_blocks.startswith("not blocked: "), decision  # (its order has 73 pieces)
    expected, actual = copy_args(args), copy_args(args)
    func(*expected)
    kernel(*actual)
    assert expected[1].tobytes() == actual[1].tobytes()
