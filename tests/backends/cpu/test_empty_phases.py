"""Phases whose loop has no iteration at the sizes of a call are not called (llvm.runs_nothing), so
LLVM never generates their machine code; calls at other sizes still run them."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU, assert_same_arrays, copy_args

import polyfuse
from polyfuse.bench import suite

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")


def _mvt_args(n: int) -> list:
    rng = np.random.default_rng(n)
    # mvt(x1, x2, y1, y2, A): x1 += A y1, x2 += A^T y2
    return [rng.random(n), rng.random(n), rng.random(n), rng.random(n), rng.random((n, n))]


def _run_checked(func, k, args, calls: int = 6) -> None:
    """``calls`` calls (the call plan's native entry is made on its 4th), each checked against Python."""
    expected = copy_args(args)
    func(*expected)
    for _ in range(calls):
        actual = copy_args(args)
        k(*actual)
        assert_same_arrays(expected, actual)


def test_mvt_versions_for_other_shapes_of_A_are_not_generated():
    from polyfuse.backends.cpu.llvm import phase_name, runs_nothing

    func = suite.get("mvt").func
    k = polyfuse.kernel(func)
    args = _mvt_args(9)
    _run_checked(func, k, args)
    backend = k.compile(*args).backend
    sizes = {"A__shape0": 9, "A__shape1": 9, "x2__shape0": 9}
    empty = [c.phase for c in backend.phases if runs_nothing(c.phase, sizes)]
    assert empty, "mvt's versions for tall and wide A run nothing at square sizes"
    names = {phase_name(backend.artifact.name, p, region=r) for p in empty for r in (False, True)}
    assert not names & set(backend.generated), "a phase that runs nothing was generated"


def scale_then_shift(n, m, A, B):
    for i in range(n):
        A[i] = A[i] * 2.0
    for t in range(m):
        for i in range(n):
            B[i] = B[i] + A[i] * 0.5
        for i in range(1, n):
            A[i] = A[i - 1] + B[i]


def test_a_phase_that_runs_nothing_at_some_sizes_runs_at_others():
    k = polyfuse.kernel(scale_then_shift)
    rng = np.random.default_rng(0)
    A, B = rng.random(40), rng.random(40)
    _run_checked(scale_then_shift, k, [40, 0, A, B])  # (the time loop has no iteration)
    backend = k.compile(40, 0, A, B).backend
    skipped = set(backend.pending)
    _run_checked(scale_then_shift, k, [40, 3, A, B])
    assert skipped and skipped - set(backend.pending), "no phase was left for m = 0 and run for m = 3"


def test_runs_nothing_is_false_where_bounds_cannot_be_evaluated():
    from polyfuse.backends.cpu.llvm import runs_nothing

    func = suite.get("mvt").func
    args = _mvt_args(9)
    backend = polyfuse.kernel(func).compile(*args).backend
    assert not any(runs_nothing(c.phase, {}) for c in backend.phases)  # (no sizes: unknown)
