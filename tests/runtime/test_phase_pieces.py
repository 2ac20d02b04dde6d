"""Parallel phases on a team (``backends/cpu/parallel.py`` ``_run_chunks``): the iterations in
pieces that members take from a shared counter; every iteration runs exactly once whatever the
piece count; the caller does not wait for a pool thread that has not started; a failing piece's
error is raised and no hang follows."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import HAS_CPU, copy_args, team_runs, threads_forced
from polyfuse.backends.cpu import parallel

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads


def _phase(function):
    """A stand-in for a compiled parallel phase without private locals."""
    return SimpleNamespace(phase=SimpleNamespace(private=(), blas_rows=False, row_weights=""), function=function)


def _ranges_run(count: int, workers: int) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    lock = threading.Lock()

    def function(first: int, last: int) -> None:
        with lock:
            ranges.append((first, last))

    parallel._run_chunks(SimpleNamespace(params=()), _phase(function), [], {}, count, workers)
    return sorted(ranges)


@pytest.mark.parametrize("per_thread", [1, 3])
@pytest.mark.parametrize("count,workers", [(1, 2), (7, 2), (16, 2), (5, 3), (100, 3)])
def test_every_iteration_runs_once(monkeypatch, per_thread, count, workers):
    monkeypatch.setattr(parallel, "PIECES_PER_THREAD", per_thread)
    ranges = _ranges_run(count, workers)
    assert len(ranges) == parallel.phase_pieces(count, workers) <= max(1, count)
    covered = [i for first, last in ranges for i in range(first, last)]
    assert covered == list(range(count))


def test_the_caller_does_not_wait_for_a_pool_thread_that_has_not_started(monkeypatch):
    monkeypatch.setattr(parallel, "PIECES_PER_THREAD", 1)
    threads.hand_off(lambda: None)  # (the helpers for the current thread count are started)
    busy = threads._helper_count  # every helper busy: the phase's other member cannot start yet
    blocked, release = threading.Barrier(busy + 1, timeout=30), threading.Event()
    for _ in range(busy):
        threads.hand_off(lambda: (blocked.wait(), release.wait(30)))
    try:
        blocked.wait()
        done_by: list[int] = []
        parallel._run_chunks(SimpleNamespace(params=()),
                             _phase(lambda first, last: done_by.append(threading.get_ident())), [], {}, 10, 2)
        assert done_by == [threading.get_ident()] * 2  # both pieces ran on the caller, which returned
    finally:
        release.set()


def test_a_failing_piece_is_raised_and_stops_handing_out_pieces(monkeypatch):
    monkeypatch.setattr(parallel, "PIECES_PER_THREAD", 4)
    ran: list[int] = []

    def function(first: int, last: int) -> None:
        ran.append(first)
        raise RuntimeError("piece failed")

    with pytest.raises(RuntimeError, match="piece failed"):
        parallel._run_chunks(SimpleNamespace(params=()), _phase(function), [], {}, 80, 2)
    assert len(ran) <= 2  # one failing piece per member at most, then no more are taken


def test_pieces_wait_returns_with_nothing_taken():
    pieces = parallel.Pieces(0)
    assert pieces.take() is None
    pieces.wait()


def test_pieces_wait_blocks_until_the_last_piece_taken_elsewhere_is_done():
    """The caller's ``wait`` returns only once a piece another member took is done, and raises
    that member's error; pieces finished before the caller waits do not make it block."""
    pieces = parallel.Pieces(3)
    assert [pieces.take(), pieces.take(), pieces.take(), pieces.take()] == [0, 1, 2, None]
    pieces.done()  # piece 0, before anyone waits
    finishing = threading.Event()

    def other() -> None:  # the member holding piece 2
        time.sleep(0.05)
        finishing.set()
        pieces.done(RuntimeError("member failed"))

    member = threading.Thread(target=other)
    member.start()
    pieces.done()  # piece 1
    with pytest.raises(RuntimeError, match="member failed"):
        pieces.wait()
    assert finishing.is_set()
    member.join()


#: sizes with >= 64 rows: atax's and bicg's row loops run in chunks with private partial sums
SIZES = {"atax": dict(m=70, n=45), "bicg": dict(m=45, n=70), "mvt": dict(n=70)}


@pytest.mark.skipif(not HAS_CPU, reason="needs llvmlite")
@pytest.mark.parametrize("per_thread", [1, 3])
@pytest.mark.parametrize("name", list(SIZES))
def test_matrix_vector_phases_in_pieces_match_python(monkeypatch, name, per_thread):
    monkeypatch.setattr(parallel, "PIECES_PER_THREAD", per_thread)
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(3), **SIZES[name])
    expected = copy_args(args)
    sk.func(*expected)
    with threads_forced():
        threads.set_num_threads(2)
        kernel = polyfuse.kernel(sk.func)
        for _ in range(3):  # the first call is measured serially, the others run on the team
            got = copy_args(args)
            kernel(*got)
            for want, have in zip(expected, got):
                if isinstance(want, np.ndarray):
                    np.testing.assert_allclose(have, want, rtol=1e-12)
        assert team_runs(kernel.compile(*args).backend) > 0


_ONE_CPU = """
import os, sys
import numpy as np
sys.path.insert(0, {tests!r})
from conftest import copy_args, team_runs, threads_forced
import polyfuse
from polyfuse.bench import suite
os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})  # this thread, and the pool's threads made after
sk = suite.KERNELS["atax"]
args = sk.make_args(np.random.default_rng(3), m=70, n=45)
expected = copy_args(args)
sk.func(*expected)
with threads_forced():
    kernel = polyfuse.kernel(sk.func)
    for _ in range(3):
        got = copy_args(args)
        kernel(*got)
        for want, have in zip(expected, got):
            if isinstance(want, np.ndarray):
                np.testing.assert_allclose(have, want, rtol=1e-12)
    assert team_runs(kernel.compile(*args).backend) > 0
print("ok", polyfuse.get_num_threads())
"""


@pytest.mark.skipif(not HAS_CPU or not hasattr(os, "sched_setaffinity"), reason="needs llvmlite and Linux")
def test_a_team_of_two_on_one_allowed_cpu_finishes_and_matches_python():
    """POLYFUSE_NUM_THREADS=2 in a process allowed one CPU (a container's cpuset, taskset): both
    members share the core, every piece runs once, no member waits on one that cannot start."""
    tests = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "POLYFUSE_NUM_THREADS": "2", "POLYFUSE_DISABLE_CACHE": "1"}
    done = subprocess.run([sys.executable, "-c", _ONE_CPU.format(tests=tests)], env=env, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["ok", "2"]
