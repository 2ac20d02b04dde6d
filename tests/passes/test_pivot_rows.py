"""polyfuse.passes.pivot_rows: a pivot loop whose rows read only themselves and the pivot row
(Floyd-Warshall) runs in blocks of pivots, the other rows across a whole block reading copies of
the pivot rows.  The results must be the Python function's bit for bit on every kind of graph
(negative cycles, NaNs, signed zeros: the blocked order needs no run-time check), with blocks
that do not divide the pivots, on the Python and the CPU target, on one and two threads."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads


def fw_if(n, p):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if p[i, k] + p[k, j] < p[i, j]:  # the condition goes to a local scalar first
                    p[i, j] = p[i, k] + p[k, j]


def divided_pivot(n, A):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                A[i, j] = A[i, j] - 0.001 * A[i, k] * A[k, j] / A[k, k]  # row k changes at its own pivot


def running_max(n, A):
    for t in range(n):
        for i in range(1, n):
            for j in range(n):
                A[i, j] = max(A[i, j], A[i - 1, j])  # reads row i - 1: not this shape


def triangle(n, p):
    for k in range(n):
        for i in range(k + 1, n):  # the rows depend on the pivot: not this shape
            for j in range(n):
                p[i, j] = min(p[i, j], p[i, k] + p[k, j])


KERNELS = {"floyd-warshall": suite.floyd_warshall, "if": fw_if, "divided": divided_pivot}


def graph(kind: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = 1.0 + 9.0 * rng.random((n, n))
    np.fill_diagonal(p, 0.0)
    if kind == "inf":
        p[rng.random((n, n)) < 0.4] = np.inf
        np.fill_diagonal(p, 0.0)
    elif kind == "negative cycle":  # 1 -> 3 -> 5 -> 1 sums to -1: the diagonal goes negative
        p[1, 3], p[3, 5], p[5, 1] = -1.0, 0.5, -0.5
    elif kind == "nan":
        p[3, 1] = np.nan
    elif kind == "negative zero":
        p[:, 2] = -0.0
        p[2, :] = -0.0
        p[2, 2] = 0.0
    return p


KINDS = ["non-negative", "inf", "negative cycle", "nan", "negative zero"]


def expected(fn, p):
    out = p.copy()
    fn(p.shape[0], out)
    return out


def assert_bits(want, got, label):
    assert want.tobytes() == got.tobytes(), f"{label}: {np.argwhere(want.view(np.int64) != got.view(np.int64))[:5]}"


def decisions(kernel, *args) -> tuple:
    return kernel.compile(*args).stages.decisions("pivot rows")


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # divided: inf - inf on the inf graph
@pytest.mark.parametrize("name", list(KERNELS))
def test_python_target_bitwise_in_blocks_of_3(name, monkeypatch):
    monkeypatch.setenv("POLYFUSE_PIVOT_ROWS", "3")  # 11 pivots: blocks of 3, 3, 3 and 2
    fn = KERNELS[name]
    kernel = polyfuse.kernel(fn, target="python", cache=False)
    for kind in KINDS:
        p = graph(kind, 11)
        if name == "divided":
            np.fill_diagonal(p, 3.0)  # pivots that are no zeros: row k changes at its own pivot
        got = p.copy()
        kernel(11, got)
        assert_bits(expected(fn, p), got, f"{name}, {kind}")
    (decision,) = decisions(kernel, 11, graph("inf", 11))
    assert decision.block == 3 and decision.split_at == "_t0", decision
    # the blocked rows run from L1/L2: their phases get the wide vectors of time-tiled ones
    assert kernel.compile(11, graph("inf", 11)).stages["loop ast"].cache_blocked


@pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")
@pytest.mark.parametrize("name", ["floyd-warshall", "if"])
def test_cpu_bitwise_on_1_and_2_threads(name, forced, monkeypatch):
    monkeypatch.setenv("POLYFUSE_PIVOT_ROWS", "4")  # 13 pivots: blocks of 4, 4, 4 and 1
    fn = KERNELS[name]
    kernel = polyfuse.kernel(fn, cache=False)
    for kind in ("non-negative", "negative cycle", "negative zero"):
        p = graph(kind, 13, seed=3)
        want = expected(fn, p)
        for count in (1, 2):
            threads.set_num_threads(count)
            kernel(13, p.copy())  # the first call at a thread count measures serially
            got = p.copy()
            kernel(13, got)
            assert_bits(want, got, f"{kind}, {count} threads")
    backend = kernel.compile(13, graph("inf", 13)).backend
    assert backend.region_runs, "the blocked pivot loop never ran on the team"
    assert "pivot rows" in kernel.explain(13, graph("inf", 13)).to_dict()


@pytest.mark.parametrize("fn", [running_max, triangle])
def test_other_shapes_are_not_blocked(fn):
    kernel = polyfuse.kernel(fn, target="python", cache=False)
    p = graph("non-negative", 6)
    got = p.copy()
    kernel(6, got)
    assert_bits(expected(fn, p), got, fn.__name__)
    assert decisions(kernel, 6, p) == ()


def test_the_knob_turns_it_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_PIVOT_ROWS", "0")
    kernel = polyfuse.kernel(suite.floyd_warshall, target="python", cache=False)
    assert decisions(kernel, 7, graph("non-negative", 7)) == ()
    assert "pivot_rows=0" in kernel.explain(7, graph("non-negative", 7))["options"]


def fixed_column(n, p):
    for k in range(n):
        for i in range(n):
            for j in range(n):
                p[i, j] = min(p[i, j], p[i, 1] + p[k, j])  # row i's column 1: a load hoisted per part


@pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")
def test_cpu_a_fixed_column_of_row_i_is_read_per_row(monkeypatch):
    """The hoisted ``p[i, 1]`` names the row loop's iterator: interleaving the row loop copied
    the load's statement without retargeting it (every copy read row ``i``'s; fz28)."""
    monkeypatch.setenv("POLYFUSE_PIVOT_ROWS", "2")
    kernel = polyfuse.kernel(fixed_column, cache=False)
    for n in (6, 11):  # rows outside the block: a full interleaved group (11) and the rest loop (6)
        p = graph("non-negative", n, seed=n)
        got = p.copy()
        kernel(n, got)
        assert_bits(expected(fixed_column, p), got, f"n={n}")
    assert decisions(kernel, 6, graph("non-negative", 6))


def repeated(n, p, q):
    for t in range(3):  # a serial loop around the blocked one: noop_versions sees its copies
        for k in range(n):
            for i in range(n):
                for j in range(n):
                    p[i, j] = min(p[i, j], p[i, k] + p[k, j] - q[t, j])


def test_a_blocked_pivot_loop_inside_a_serial_loop(monkeypatch):
    """passes.noop_versions, after this pass, tried to version the ``t`` loop and looked the
    blocked loop's new statements up in the SCoP (a KeyError, an InternalError at the call; fz28)."""
    monkeypatch.setenv("POLYFUSE_PIVOT_ROWS", "3")
    kernel = polyfuse.kernel(repeated, target="python", cache=False)
    p, q = graph("negative cycle", 7), graph("non-negative", 7, seed=1)
    want, got = p.copy(), p.copy()
    repeated(7, want, q)
    kernel(7, got, q)
    assert_bits(want, got, "repeated")
    assert decisions(kernel, 7, p, q)
