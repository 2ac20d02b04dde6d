"""Carried loads (polyfuse/analysis/carried_loads.py) and fused row sweeps (schedule/time_tiling.py,
``fused_sweeps``): a serial row loop's loads of what it stored a few iterations back come from
registers, and a 1-d stencil's time step runs its sweeps in one row loop where its rows fit L1.
Python's bits on rows of every length around the queues' and the vectors' (both sides of the
whole-row version, the default threads and one), which loops get queues, and the knobs."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse
from polyfuse.bench.suite import jacobi_1d
from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def _three_sweeps(tsteps, n, A, B, C):
    for t in range(tsteps):
        for i in range(2, n - 2):
            B[i] = 0.2 * (A[i - 2] + A[i - 1] + A[i] + A[i + 1] + A[i + 2])
        for i in range(1, n - 1):
            C[i] = B[i + 1] - 0.5 * B[i - 1] + C[i]
        for i in range(2, n - 2):
            A[i] = B[i - 2] * 0.25 + C[i + 1] - B[i + 2] * 0.125


def _recurrence(n, x, y):
    for i in range(3, n):
        x[i] = x[i - 3] * 0.5 + x[i - 2] * 0.25 + y[i]


def _rows(n, x, y):
    for j in range(1, n):
        for i in range(2, n):
            x[j, i] = x[j, i - 2] * 0.5 - x[j - 1, i] + y[i]


def _conditional(n, x, y):
    for i in range(2, n):
        x[i] = x[i - 2] * 0.5 if y[i] > 0.5 else y[i]


def _same_bits(kernel, func, args, counts=(None, 1)):
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    func(*want)
    for count in counts:
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        if count is None:
            kernel(*got)
        else:
            with threads.limited_to(count):
                kernel(*got)
        for x, y in zip(got, want):
            if isinstance(x, np.ndarray):
                assert np.array_equal(x, y), (func.__name__, [a.shape if isinstance(a, np.ndarray) else a for a in args])


def _queues(kernel, args) -> int:
    return sum("carried." in line and "alloca" in line for line in kernel.inspect_llvm(*args, optimized=False).splitlines())


@pytest.mark.parametrize("func, arrays, sizes", [
    # rows of 1..17 points (the queues' preloads where the loop runs fewer iterations than
    # they hold), 38 (whole vectors and remainders), and rows past L1 (the time tiles)
    (jacobi_1d, 2, [(4, 3), (3, 4), (2, 6), (7, 19), (2, 3100)]),
    (_three_sweeps, 3, [(2, 4), (3, 6), (5, 9), (6, 33), (2, 2100)]),
])
def test_fused_sweeps_give_pythons_bits(monkeypatch, func, arrays, sizes):
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_ROWS_MIN", "0")  # rows of any length fused
    kernel = polyfuse.kernel(func, cache=False)
    rng = np.random.default_rng(7)
    for tsteps, n in sizes:
        _same_bits(kernel, func, (tsteps, n, *(rng.random(n) for _ in range(arrays))))
    args = (2, 40, *(rng.random(40) for _ in range(arrays)))
    assert "fused into one row loop" in str(kernel.explain(*args))
    assert _queues(kernel, args)


@pytest.mark.parametrize("func, sizes, queued", [
    (_recurrence, [3, 4, 5, 6, 7, 50], True),  # distances 3 and 2 in one statement
    (_rows, [2, 3, 4, 21], True),  # the row loop's own row only: x[j - 1, i] is another row
    (_conditional, [2, 3, 4, 30], False),  # the load runs only on a condition: not preloaded
])
def test_serial_rows_give_pythons_bits(func, sizes, queued):
    kernel = polyfuse.kernel(func, cache=False)
    rng = np.random.default_rng(8)
    for n in sizes:
        x = rng.random((n, n)) if func is _rows else rng.random(n)
        _same_bits(kernel, func, (n, x, rng.random(n)), counts=(None,))
    assert bool(_queues(kernel, (8, rng.random((8, 8)) if func is _rows else rng.random(8), rng.random(8)))) == queued


def test_the_knobs(monkeypatch):
    rng = np.random.default_rng(9)
    args = (2, 40, rng.random(40), rng.random(40))
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_ROWS", "0")
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_TILES", "0")  # the tiled side's fused rows
    kernel = polyfuse.kernel(jacobi_1d, cache=False)
    assert "fused into one row loop" not in str(kernel.explain(*args)) and not _queues(kernel, args)
    monkeypatch.delenv("POLYFUSE_TIME_TILE_FUSED_ROWS")
    monkeypatch.delenv("POLYFUSE_TIME_TILE_FUSED_TILES")
    # one loop whose preloads clamp their addresses (no scalar copy for rows shorter than a queue)
    monkeypatch.setenv("POLYFUSE_CARRIED_GUARD", "0")
    monkeypatch.setenv("POLYFUSE_TIME_TILE_FUSED_ROWS_MIN", "0")
    kernel = polyfuse.kernel(jacobi_1d, cache=False)
    for tsteps, n in [(3, 3), (2, 4), (2, 40)]:
        _same_bits(kernel, jacobi_1d, (tsteps, n, rng.random(n), rng.random(n)), counts=(None,))
    assert _queues(kernel, args)
    monkeypatch.delenv("POLYFUSE_CARRIED_GUARD")
    monkeypatch.setenv("POLYFUSE_CARRIED_LOADS", "0")
    kernel = polyfuse.kernel(_recurrence, cache=False)
    assert not _queues(kernel, (8, rng.random(8), rng.random(8)))
