"""Overlapped row chunks (backends/cpu/overlap.py): a row loop that carries values only through
folded rows of kernel-local arrays runs on the team, each chunk recomputing a few rows first.
Results must be those of the undecorated function, bit for bit, on any number of threads."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU, copy_args

import polyfuse
from polyfuse.bench.numpy_suite import hdiff
from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def pairs(A, out):
    """A loop chain through a kernel-local array that smart fusion folds to two rows."""
    n, m = A.shape
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            T[i, j] = A[i, j] * 2.0 - 1.0
    for i in range(1, n):
        for j in range(m):
            out[i, j] = T[i, j] * T[i - 1, j] + A[i, j]


def running(A, out):
    """A recurrence down the rows: each row needs every row before it, so no chunk may start late."""
    n, m = A.shape
    T = np.empty((n, m))
    for j in range(m):
        T[0, j] = A[0, j]
    for i in range(1, n):
        for j in range(m):
            T[i, j] = T[i - 1, j] * 0.5 + A[i, j]
    for i in range(n):
        for j in range(m):
            out[i, j] = T[i, j] * 3.0


def overlapped(kernel, args) -> list:
    """The overlapped phases of ``kernel``'s variant for ``args``."""
    return [p for p in kernel.compile(*args).backend.artifact.phases if p.overlap]


def runs_on(kernel, args, count: int):
    threads.set_num_threads(count)
    out = copy_args(args)
    kernel(*out)  # (the first call at these sizes is the measuring, serial one)
    out = copy_args(args)
    return kernel(*out), out


@pytest.mark.parametrize("func, shape", [(hdiff, (30, 23)), (pairs, (27, 19))])
def test_bitwise_equal_on_1_to_5_threads_and_each_chunk_ran(func, shape, forced, monkeypatch):
    monkeypatch.setattr(forced, "OVERLAP_MIN_FACTOR", 1)  # small loops still cut: every chunk >= its warm-up
    rng = np.random.default_rng(1)
    args = (rng.random(shape), rng.random(shape)) if func is hdiff else (rng.random(shape), np.zeros(shape))
    kernel = polyfuse.kernel(func)
    expected_out = copy_args(args)
    expected = func(*expected_out)
    (phase,) = overlapped(kernel, args)
    assert phase.overlap >= 2 and phase.private
    for count in (1, 2, 3, 5):
        result, out = runs_on(kernel, args, count)
        for e, a in zip((expected, *expected_out), (result, *out)):
            if isinstance(e, np.ndarray):
                assert e.tobytes() == a.tobytes(), (count, np.argwhere(e != a)[:5])
    assert kernel.compile(*args).backend.phase_runs.get(phase.index, 0) >= 3  # 2, 3 and 5 threads
    assert any("overlapped chunks" in r["reason"] for r in kernel.explain(*args)["parallel regions"])


def test_a_recurrence_down_the_rows_is_not_overlapped():
    args = (np.random.default_rng(2).random((20, 9)), np.zeros((20, 9)))
    kernel = polyfuse.kernel(running)
    assert overlapped(kernel, args) == []
    out = copy_args(args)
    kernel(*out)
    expected = copy_args(args)
    running(*expected)
    np.testing.assert_array_equal(out[1], expected[1])


def test_a_chain_of_private_rows_that_reaches_its_own_writer_has_no_depth():
    from polyfuse.backends.cpu.overlap import _longest_chain

    read = {"S0": {"x"}, "S1": {"a"}, "S2": {"b"}}
    writers = {"a": "S0", "b": "S1", "out": "S2"}
    assert _longest_chain(read, writers, {"a": 2, "b": 3}) == 5
    assert _longest_chain({**read, "S0": {"x", "b"}}, writers, {"a": 2, "b": 3}) is None
