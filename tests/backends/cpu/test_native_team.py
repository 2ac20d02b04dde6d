"""The native team (backends/cpu/native_team.py): every piece runs exactly once, whichever member
takes it, with its own frame; a busy block or a forked child falls back or starts afresh; and a
kernel's parallel phases on it give what the undecorated function gives."""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np
import pytest
from polyfuse.backends.cpu import native_team, parallel

import polyfuse

pytestmark = pytest.mark.skipif(not native_team.available(), reason="the native team needs Linux on x86-64")

#: ``add(out, x, first, last)``: out[i] += x for i in [first, last)
ADD = """
define void @add(double* %out, double %x, i64 %first, i64 %last) {
entry:
  br label %loop
loop:
  %i = phi i64 [ %first, %entry ], [ %next, %body ]
  %more = icmp slt i64 %i, %last
  br i1 %more, label %body, label %done
body:
  %at = getelementptr double, double* %out, i64 %i
  %old = load double, double* %at
  %new = fadd double %old, %x
  store double %new, double* %at
  %next = add i64 %i, 1
  br label %loop
done:
  ret void
}
"""


@pytest.fixture(scope="module")
def add() -> int:
    native_team._team()  # (the process's symbols first)
    return native_team._engine(ADD).get_function_address("add")


def pieces_of(out: np.ndarray, cuts: list[int], values: list[float]) -> list[list]:
    return [[out.ctypes.data, v] for v, _ in zip(values, cuts[1:])]


def test_every_piece_runs_once_with_its_own_frame(add):
    out = np.zeros(100)
    cuts = [0, 3, 4, 4, 30, 31, 60, 61, 99, 100]  # nine pieces, one of them empty
    values = [float(k + 1) for k in range(9)]
    frames = native_team.Frames(("array", "f64"))
    for _ in range(50):
        assert native_team.run(frames, add, pieces_of(out, cuts, values), cuts, helpers=3)
    expected = np.concatenate([np.full(b - a, 50 * v) for a, b, v in zip(cuts, cuts[1:], values)])
    np.testing.assert_array_equal(out, expected)


SUB = ADD.replace("@add", "@sub").replace("fadd", "fsub")


def test_pieces_with_their_own_targets_and_bounds(add):
    """``targets`` (a pair of products): piece k runs ``targets[k]`` over ``bounds[2k]:bounds[2k + 1]``,
    ranges that need not follow each other (two arrays' rows, one range left empty); a later run
    without a table runs its one target over consecutive bounds again."""
    sub = native_team._engine(SUB).get_function_address("sub")
    out, other = np.zeros(40), np.zeros(30)
    frames = native_team.Frames(("array", "f64"))
    rows = [[out.ctypes.data, 1.0], [other.ctypes.data, 2.0], [out.ctypes.data, 3.0], [other.ctypes.data, 5.0]]
    bounds = [0, 25, 0, 30, 25, 40, 7, 7]
    for _ in range(20):
        assert native_team.run(frames, 0, rows, bounds, helpers=2, targets=[add, sub, add, add])
    np.testing.assert_array_equal(out, np.r_[np.full(25, 20.0), np.full(15, 60.0)])
    np.testing.assert_array_equal(other, np.full(30, -40.0))
    assert not native_team.run(frames, 0, rows, bounds[:-1], helpers=2, targets=[add, sub, add, add])
    assert native_team.run(frames, add, [[out.ctypes.data, 1.0]], [0, 40], helpers=2)
    np.testing.assert_array_equal(out, np.r_[np.full(25, 21.0), np.full(15, 61.0)])


def test_a_block_in_use_sends_the_caller_back_to_the_python_way(add):
    out = np.zeros(4)
    frames = native_team.Frames(("array", "f64"))
    state = native_team._team()
    assert state["busy"].acquire(blocking=False)
    try:
        assert not native_team.run(frames, add, [[out.ctypes.data, 1.0]], [0, 4], helpers=1)
    finally:
        state["busy"].release()
    assert not out.any()  # nothing ran
    assert not native_team.run(frames, add, [["not an address", 1.0]], [0, 4], helpers=1)


def test_teams_from_several_python_threads(add):
    out = np.zeros((4, 64))
    frames = native_team.Frames(("array", "f64"))

    def calls(row: int) -> None:
        for _ in range(40):
            if not native_team.run(frames, add, [[out[row].ctypes.data, 1.0]] * 2, [0, 32, 64], helpers=1):
                out[row] += 1.0  # what the Python way would have done
    workers = [threading.Thread(target=calls, args=(r,)) for r in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    np.testing.assert_array_equal(out, 40.0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_starts_its_own_helpers(add):
    out = np.zeros(64)
    frames = native_team.Frames(("array", "f64"))
    assert native_team.run(frames, add, [[out.ctypes.data, 1.0]] * 2, [0, 32, 64], helpers=1)
    pid = os.fork()
    if pid == 0:  # the child: the parent's helper is not here
        ok = native_team._state["helpers"] == 0 and all(
            native_team.run(frames, add, [[out.ctypes.data, 1.0]] * 4, [0, 16, 32, 48, 64], helpers=2)
            for _ in range(20)) and bool((out == 21.0).all())
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def mean_std(x):
    mu = x.mean()
    return mu, np.sqrt(((x - mu) ** 2).mean())


def scaled_rows(A, s):
    return np.exp(A * s) / np.exp(A * s).sum(axis=1, keepdims=True)


def test_kernels_on_the_native_team_agree_with_python(forced):
    calls = []
    run = native_team.run

    def counted(*args, **kwargs):
        ran = run(*args, **kwargs)
        calls.append(ran)
        return ran

    rng = np.random.default_rng(3)
    x, A = rng.standard_normal(200_000), rng.standard_normal((37, 21))
    try:
        native_team.run = counted
        for func, args in ((mean_std, (x,)), (scaled_rows, (A, 0.7))):
            kernel = polyfuse.kernel(func, cache=False)
            expected = func(*args)
            for count in (2, 2, 3, 3):  # (the first call on each count runs serially, measured)
                polyfuse.set_num_threads(count)
                got = kernel(*args)
                for g, e in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple)
                                else (expected,)):
                    np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)
    finally:
        native_team.run = run
    assert parallel.NATIVE_TEAM and len(calls) >= 4 and all(calls), calls


def test_frames_pack_words_and_doubles():
    frames = native_team.Frames(("array", "i64", "f64", "stride", "re"))
    words = np.frombuffer(frames.pack([16, -3, 2.5, 7, -1.0]), dtype=np.int64)
    assert list(words[[0, 1, 3]]) == [16, -3, 7]
    assert words[[2, 4]].view(np.float64).tolist() == [2.5, -1.0]
    assert frames.ok and not native_team.Frames(("array", "bool")).ok
    assert ctypes.sizeof(ctypes.c_int64) == 8


def test_prepare_makes_the_trampoline_and_the_helpers_before_a_run(add):
    """``prepare`` does what the first ``run`` would (parallel.py times the team's runs after it)."""
    frames = native_team.Frames(("array", "f64"))
    native_team.prepare(frames, 2)
    assert frames.trampoline == native_team.trampoline(("array", "f64"))
    assert native_team._state["helpers"] >= 2
    out = np.zeros(10)
    assert native_team.run(frames, add, pieces_of(out, [0, 5, 10], [1.0, 2.0]), [0, 5, 10], helpers=2)
    np.testing.assert_array_equal(out, [1.0] * 5 + [2.0] * 5)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the caller may use one CPU only")
def test_helpers_keep_off_the_callers_cpu(add):
    """``POLYFUSE_TEAM_AFFINITY``: after a run the helpers may use every CPU the caller may but the
    one the caller was on when the run started (a helper woken on its waker's core took turns
    with the caller there)."""
    out = np.zeros(64)
    frames = native_team.Frames(("array", "f64"))
    assert native_team.run(frames, add, [[out.ctypes.data, 1.0]] * 2, [0, 32, 64], helpers=1)
    np.testing.assert_array_equal(out, 1.0)
    state = native_team._state
    if state["getcpu"] is None:
        pytest.skip("the knob is off, or the system has no sched_getcpu or refused the placement")
    cpu, helpers = state["apart_from"]
    assert helpers == state["helpers"] == len(state["helper_ids"])
    for helper in state["helper_ids"]:
        assert os.sched_getaffinity(helper) == os.sched_getaffinity(0) - {cpu}
