"""``polyfuse.threads.run_team``: members run at once, failures abort the team, concurrent teams
do not deadlock on the shared pool."""

from __future__ import annotations

import threading

import pytest

from polyfuse.runtime import threads


def test_members_run_at_the_same_time():
    count = 3
    meeting = threading.Barrier(count, timeout=30)  # breaks (and the test fails) unless all run at once
    seen: list[int] = []

    def work(k: int) -> None:
        meeting.wait()
        seen.append(k)

    threads.run_team(work, count, abort=lambda: None)
    assert sorted(seen) == [0, 1, 2]


def test_a_failing_member_aborts_the_others_and_its_error_is_raised():
    released = threading.Event()

    def work(k: int) -> None:
        if k == 2:
            raise ValueError("member 2")
        assert released.wait(timeout=30), "abort() was not called"  # stands for a barrier

    with pytest.raises(ValueError, match="member 2"):
        threads.run_team(work, 3, abort=released.set)


def test_a_failing_caller_aborts_the_members():
    released = threading.Event()

    def work(k: int) -> None:
        if k == 0:
            raise KeyError("caller")
        assert released.wait(timeout=30)

    with pytest.raises(KeyError):
        threads.run_team(work, 2, abort=released.set)


def test_teams_started_at_once_from_several_threads_all_finish():
    count, teams = 3, 6
    errors: list[BaseException] = []

    def team() -> None:
        meeting = threading.Barrier(count, timeout=30)
        try:
            for _ in range(10):
                threads.run_team(lambda k: meeting.wait(), count, abort=meeting.abort)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    callers = [threading.Thread(target=team, daemon=True) for _ in range(teams)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(timeout=120)
    assert not any(c.is_alive() for c in callers) and errors == []


def test_a_forked_child_gets_its_own_pool():
    """fz27: after a team ran, a forked child's team hung for ever (the executor counted the
    parent's workers, absent in the child, as idle and queued the members for them; member 0
    waited at the region's first barrier).  The child makes a new pool: its team runs, exit 0."""
    import os
    import time

    count = 2

    def team() -> list[int]:
        meeting = threading.Barrier(count, timeout=20)  # breaks unless the members run at once
        seen: list[int] = []

        def work(k: int) -> None:
            meeting.wait()
            seen.append(k)

        threads.run_team(work, count, abort=lambda: None)
        return sorted(seen)

    assert team() == [0, 1]  # the parent's pool now has a worker
    pid = os.fork()
    if pid == 0:  # the child: exits 0 only if its team ran both members
        try:
            os._exit(0 if team() == [0, 1] else 1)
        except BaseException:  # noqa: BLE001 - any failure is the child's exit status
            os._exit(2)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    raise AssertionError("the forked child's team did not finish")
