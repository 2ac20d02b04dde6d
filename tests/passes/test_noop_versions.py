"""polyfuse.passes.noop_versions: a serial loop versioned per iteration on a check that its shared
writes store the bits already there (Floyd-Warshall's pivot loop), else the original loops.

The results must be bit for bit the Python function's on every kind of graph: non-negative
weights (every check passes), unreachable pairs (inf), a negative edge without a negative cycle,
a negative cycle (the diagonal turns negative partway, so later checks fail), NaN entries and
-0.0 entries (which ``x if x < x + 0.0 else x + 0.0`` turns into +0.0: a write that changes bits
the check must catch)."""

from __future__ import annotations

import islpy as isl
import numpy as np
import pytest
from conftest import HAS_CPU, define

import polyfuse
from polyfuse.bench import suite
from polyfuse.passes.noop_versions import NoopVersion
from polyfuse.runtime import threads


@pytest.fixture(autouse=True)
def _no_pivot_rows(monkeypatch):
    """These kernels' pivot loops are blocked by passes.pivot_rows first (tests/passes/test_pivot_rows.py);
    here the per-pivot versions are under test."""
    monkeypatch.setenv("POLYFUSE_PIVOT_ROWS", "0")


def fw_min(n, p):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                p[i, j] = min(p[i, j], p[i, k] + p[k, j])


def fw_min_swapped(n, p):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                p[i, j] = min(p[i, k] + p[k, j], p[i, j])  # ties keep the sum: -0.0 + 0.0 is +0.0


def fw_if(n, p):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if p[i, k] + p[k, j] < p[i, j]:  # the condition goes to a local scalar first
                    p[i, j] = p[i, k] + p[k, j]


def longest_paths(n, p):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                p[i, j] = max(p[i, j], p[i, k] + p[k, j])


def closure(n, r):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                r[i, j] = r[i, j] or (r[i, k] and r[k, j])


def staged(n, p, t):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                t[i, j] = p[i, k] + p[k, j]
                p[i, j] = min(p[i, j], t[i, j])  # reads what the line above just wrote


def running_max(n, A):
    for t in range(n):
        for i in range(1, n):
            for j in range(n):
                A[i, j] = max(A[i, j], A[i - 1, j])  # every row is read by the next one


def divided_pivot(n, A):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                A[i, j] = A[i, j] - 0.001 * A[i, k] * A[k, j] / A[k, k]


KERNELS = {"floyd-warshall": suite.floyd_warshall, "min": fw_min, "min-swapped": fw_min_swapped,
           "if": fw_if, "longest": longest_paths}


def graph(kind: str, n: int = 7, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = 1.0 + 9.0 * rng.random((n, n))
    np.fill_diagonal(p, 0.0)
    if kind == "inf":
        p[rng.random((n, n)) < 0.4] = np.inf
        np.fill_diagonal(p, 0.0)
    elif kind == "negative edge":  # no negative cycle: every other edge is >= 1
        p[2, 4] = -0.5
    elif kind == "negative cycle":  # 1 -> 3 -> 5 -> 1 sums to -1: the diagonal goes negative
        p[1, 3], p[3, 5], p[5, 1] = -1.0, 0.5, -0.5
    elif kind == "nan":
        p[3, 1] = np.nan
    elif kind == "negative zero":  # column and row 2 hold -0.0, the diagonal +0.0
        p[:, 2] = -0.0
        p[2, :] = -0.0
        p[2, 2] = 0.0
    elif kind == "negative diagonal":
        p[4, 4] = -2.0
    return p


KINDS = ["non-negative", "inf", "negative edge", "negative cycle", "nan", "negative zero", "negative diagonal"]


def expected(fn, p):
    out = p.copy()
    fn(p.shape[0], out)
    return out


def assert_bits(want, got, label):
    assert want.tobytes() == got.tobytes(), f"{label}: {np.argwhere(want.view(np.int64) != got.view(np.int64))[:5]}"


def decisions(kernel, *args) -> tuple[NoopVersion, ...]:
    return kernel.compile(*args).stages.decisions("noop versions")


@pytest.mark.parametrize("name", list(KERNELS))
def test_python_target_bitwise_on_every_kind_of_graph(name):
    fn = KERNELS[name]
    kernel = polyfuse.kernel(fn, target="python", verify=True, cache=False)
    for kind in KINDS:
        p = graph(kind)
        got = p.copy()
        kernel(p.shape[0], got)
        assert_bits(expected(fn, p), got, f"{name}, {kind}")
    (decision,) = decisions(kernel, 7, graph("inf"))
    assert decision.loop == "_t0" and decision.parallel_loops == ("_t1", "_t2"), decision
    assert len(decision.hoisted) == 1, decision  # p[i, k], read once per row of the checked version


@pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")
@pytest.mark.parametrize("name", ["floyd-warshall", "min-swapped", "if"])
def test_cpu_bitwise_on_1_2_3_threads(name, forced):
    fn = KERNELS[name]
    kernel = polyfuse.kernel(fn, cache=False)
    for kind in KINDS:
        p = graph(kind, n=11, seed=3)
        want = expected(fn, p)
        for count in (1, 2, 3):
            threads.set_num_threads(count)
            kernel(p.shape[0], p.copy())  # the first call at a thread count measures serially
            got = p.copy()
            kernel(p.shape[0], got)
            assert_bits(want, got, f"{name}, {kind}, {count} threads")
    backend = kernel.compile(11, graph("inf", n=11)).backend
    assert backend.region_runs, "the versioned pivot loop never ran on the team"


def last_verdict(fn, p) -> int:
    """The check's verdict on the last pivot: the Python backend's function called directly, with
    the flag array (kernel-local, normally allocated per call) passed in and read after."""
    n = p.shape[0]
    kernel = polyfuse.kernel(fn, target="python", cache=False)
    variant = kernel.compile(n, p)
    (decision,) = decisions(kernel, n, p)
    flag = np.full(1, -1, np.int64)
    scalars = {a.name: np.zeros((), a.dtype) for a in variant.stages["loop ast"].local_arrays() if not a.shape}
    values = {name: n if name == "n" or "__shape" in name else scalars.get(name, p) for name in variant.backend.parameters}
    variant.backend({**values, decision.flag: flag})
    return int(flag[0])


def with_last(p, column, diagonal):
    """The last column and diagonal entry set; the other diagonal entries 1.0, so that no earlier
    pivot rewrites the column (with 0.0 there, pivot k turns a -0.0 in its row into +0.0)."""
    p = p.copy()
    np.fill_diagonal(p, 1.0)
    p[:-1, -1] = column
    p[-1, -1] = diagonal
    return p


@pytest.mark.parametrize(("name", "column", "diagonal", "verdict"), [
    ("floyd-warshall", 3.0, 0.0, 1),
    ("floyd-warshall", -0.0, 0.0, 0),  # x if x < x + 0.0 else x + 0.0 is +0.0 for x = -0.0: a change
    ("min", -0.0, 0.0, 1),  # min(x, x + 0.0) keeps x = -0.0
    ("min-swapped", -0.0, 0.0, 0),  # min(x + 0.0, x) takes the sum on a tie
    ("floyd-warshall", -0.0, -0.0, 1),  # x + -0.0 is x, bit for bit
    ("min", np.inf, 0.0, 1),
    ("min", np.nan, 0.0, 0),  # a NaN always fails the check (min would keep it)
    ("min", 3.0, np.nan, 0),
    ("if", -0.0, 0.0, 1),  # p[i, j] is rewritten only where the sum is smaller
    ("if", 3.0, -1.0, 0),
    ("min", 3.0, -1e-300, 0),  # a negative diagonal: x + d < x
    ("min", 1e300, 1e-300, 1),  # x + d rounds to x: still no change
])
def test_the_check_decides_on_bits(name, column, diagonal, verdict):
    assert last_verdict(KERNELS[name], with_last(graph("non-negative"), column, diagonal)) == verdict


@pytest.mark.parametrize("kind", ["negative cycle", "negative diagonal"])
def test_without_the_check_the_version_would_be_wrong(kind, monkeypatch):
    """The tests above would catch a check that passes too often: with every check passing, the
    checked version (its p[i, k] read once per row) gives other results once a pivot's writes
    change row or column k."""
    from polyfuse.model import ir
    from polyfuse.passes import noop_versions

    monkeypatch.setattr(noop_versions, "_same_bits", lambda new, old: ir.Const(True, ir.BOOL))
    kernel = polyfuse.kernel(suite.floyd_warshall, target="python", cache=False)
    p = graph(kind, n=11, seed=3)
    got = p.copy()
    kernel(11, got)
    assert got.tobytes() != expected(suite.floyd_warshall, p).tobytes()


def test_boolean_closure_always_passes_its_check():
    """``r[i, k] or (r[i, k] and r[k, k])`` is ``r[i, k]`` whatever the values: a no-op write."""
    kernel = polyfuse.kernel(closure, target="python", verify=True, cache=False)
    r = np.random.default_rng(5).random((8, 8)) < 0.25
    got = r.copy()
    kernel(8, got)
    assert np.array_equal(expected(closure, r), got)
    assert decisions(kernel, 8, r)


def test_explain_reports_the_versions_and_the_checked_instances():
    kernel = polyfuse.kernel(suite.floyd_warshall, target="python", cache=False)
    p = graph("non-negative")
    explanation = kernel.explain(7, p)
    (record,) = explanation["noop versions"]
    assert record["dropped"] == ("RAW on paths", "WAR on paths")
    checked = isl.UnionSet.empty(isl.Set("[n, paths__shape0, paths__shape1] -> { : }").get_space())
    for part in record["checked"].split(" ; "):
        checked = checked.union(isl.UnionSet(part))
    sizes = isl.Set("[n, paths__shape0, paths__shape1] -> { : n >= 2 and paths__shape0 >= 0 and paths__shape1 >= 0 }")
    row_and_column = isl.UnionSet("[n, paths__shape0, paths__shape1] -> { S0[k, i, j] : 0 <= k < n and 0 <= i < n "
                                  "and 0 <= j < n and (i = k or j = k) }")
    assert checked.intersect_params(sizes).is_equal(row_and_column.intersect_params(sizes))
    code = explanation["loop code"]
    assert "_noop_check" in code and "if (_noop_ok[0] != 0):" in code and "# parallel" in code


def test_a_write_that_cannot_keep_its_value_is_not_versioned():
    """An update that does not choose between the old value and another is a no-op only by
    accident: no check, no second version."""
    kernel = polyfuse.kernel(divided_pivot, target="python", cache=False)
    A = graph("non-negative") + 1.0
    got = A.copy()
    kernel(7, got)
    assert_bits(expected(divided_pivot, A), got, "divided_pivot")
    assert decisions(kernel, 7, A) == ()


def test_a_checked_write_reading_a_fresh_value_is_not_versioned():
    """The check evaluates ``min(p[i, j], t[i, j])`` on the values at the start of the pivot, but
    ``t[i, j]`` was written just before, at the same (i, j): no version."""
    kernel = polyfuse.kernel(staged, target="python", cache=False)
    p = graph("negative zero")
    got, t = p.copy(), np.zeros_like(p)
    kernel(7, got, t)
    want, t_want = p.copy(), np.zeros_like(p)
    staged(7, want, t_want)
    assert_bits(want, got, "staged")
    assert decisions(kernel, 7, p, t) == ()


def test_a_check_as_long_as_the_iteration_is_not_made():
    """Every row's write is read by the next row: checking them would cost the iteration itself
    again whenever the check fails."""
    kernel = polyfuse.kernel(running_max, target="python", cache=False)
    A = graph("non-negative")
    got = A.copy()
    kernel(7, got)
    assert_bits(expected(running_max, A), got, "running_max")
    assert decisions(kernel, 7, A) == ()


def test_fastmath_keeps_the_original_loops():
    """Under fastmath the loops may compute the statement otherwise than the check does."""
    kernel = polyfuse.kernel(suite.floyd_warshall, target="python", fastmath=True, cache=False)
    assert decisions(kernel, 7, graph("non-negative")) == ()


def test_the_knob_turns_it_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_NOOP_VERSIONS", "0")
    kernel = polyfuse.kernel(suite.floyd_warshall, target="python", cache=False)
    assert decisions(kernel, 7, graph("non-negative")) == ()
    assert "noop_versions=off" in kernel.explain(7, graph("non-negative"))["options"]


#: Relaxation forms (``{x}`` the element, ``{s}`` the candidate) and candidates: every pairing is
#: versioned (each chooses between the old value and another), and each must give the Python
#: function's bits, whether its checks pass (non-negative diagonal, sums) or fail.
FORMS = {
    "min": "p[i, j] = min({x}, {s})",
    "max-first": "p[i, j] = max({s}, {x})",
    "ternary >": "p[i, j] = {x} if {x} > {s} else {s}",
    "if <=": "if {s} <= {x}:\n                    p[i, j] = {s}",
}
CANDIDATES = {"sum": "p[i, k] + p[k, j]", "difference": "p[i, k] - p[k, j]", "product": "p[i, k] * p[k, j]"}


def relaxation(form: str, candidate: str):
    body = FORMS[form].format(x="p[i, j]", s=CANDIDATES[candidate])
    return define("def relax(n, p):\n    for k in range(n):\n        for i in range(n):\n"
                  f"            for j in range(n):\n                {body}\n")


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("candidate", list(CANDIDATES))
def test_relaxation_forms_bitwise(form, candidate):
    fn = relaxation(form, candidate)
    kernel = polyfuse.kernel(fn, target="python", verify=True, cache=False)
    for kind in ("non-negative", "negative zero", "negative cycle", "nan"):
        p = graph(kind, n=6, seed=2)
        if candidate == "product":
            p = np.where(np.isfinite(p), p / 8.0, p)  # products of 6 steps stay finite
        got = p.copy()
        kernel(6, got)
        assert_bits(expected(fn, p), got, f"{form}, {candidate}, {kind}")
    assert decisions(kernel, 6, graph("non-negative"))


@pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")
@pytest.mark.parametrize("form", list(FORMS))
def test_relaxation_forms_on_a_team(form, forced):
    fn = relaxation(form, "difference")
    kernel = polyfuse.kernel(fn, cache=False)
    threads.set_num_threads(2)
    for kind in ("non-negative", "negative zero", "negative cycle", "nan"):
        p = graph(kind, n=9, seed=4)
        kernel(9, p.copy())  # the measuring call
        got = p.copy()
        kernel(9, got)
        assert_bits(expected(fn, p), got, f"{form}, {kind}")
