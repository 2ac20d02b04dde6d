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
