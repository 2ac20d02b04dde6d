"""The runtime's choice between a parallel phase's team of threads and its serial function
(``RegionTimes`` in backends/cpu/parallel.py), driven with made-up run times: no clock, no
threads.  Which mode ran and what it cost is all the policy sees."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from polyfuse.backends.cpu.parallel import (
    EXPLORE,
    MAX_RECHECK,
    RECHECK_EVERY,
    RECHECK_MIN,
    WINDOW,
    RegionTimes,
)

Seconds = Callable[[int], float]  # call number -> how long a run of that mode takes then


@dataclass
class Clock:
    """A made-up clock (seconds) for ``drive``."""

    now: float = 0.0


def drive(times: RegionTimes, calls: int, team: Seconds, serial: Seconds, start: int = 0,
          between: float = 0.0, clock: Clock | None = None) -> list[bool]:
    """``calls`` calls as ``parallel._timed`` makes them: the choice, then the run's time, on a
    made-up clock that advances by each run and by ``between`` seconds after it (the rest of
    the call and of the program)."""
    clock = Clock() if clock is None else clock
    chosen = []
    for call in range(start, start + calls):
        on_team = times.use_team()
        seconds = team(call) if on_team else serial(call)
        clock.now += seconds
        times.record(on_team, seconds, clock.now)
        clock.now += between
        chosen.append(on_team)
    return chosen


def steady(seconds: float) -> Seconds:
    return lambda call: seconds


def test_the_team_gets_its_first_runs_then_keeps_winning_with_serial_rechecks():
    times = RegionTimes(worth_threads=True, serial=[1.0])
    chosen = drive(times, 10 * RECHECK_EVERY, team=steady(0.55), serial=steady(1.0))
    assert chosen[:WINDOW] == [True] * WINDOW
    # the serial function runs once every RECHECK_EVERY calls: a slow-looking first serial run
    # (page faults, another job) is measured again
    serial_runs = [k for k, on_team in enumerate(chosen) if not on_team]
    assert len(serial_runs) == 9
    assert {b - a for a, b in zip(serial_runs, serial_runs[1:])} == {RECHECK_EVERY}


def test_a_team_that_loses_by_a_hair_is_tried_again_after_a_few_calls():
    times = RegionTimes(worth_threads=True, serial=[1.0])
    chosen = drive(times, 200, team=steady(1.02), serial=steady(1.0))
    assert chosen[:WINDOW] == [True] * WINDOW
    # every RECHECK_MIN calls: such a check costs 2% of one call
    assert abs(chosen[WINDOW:].count(True) - 197 // RECHECK_MIN) <= 2


def test_the_longer_a_losing_team_takes_the_rarer_it_is_tried():
    counts = []
    for slower in (1.25, 2.0, 4.0):
        times = RegionTimes(worth_threads=True, serial=[1.0])
        chosen = drive(times, 1000, team=steady(slower), serial=steady(1.0))
        counts.append(chosen.count(True))
        # what the checks cost stays within about EXPLORE of the calls' time
        extra = chosen.count(True) * (slower - 1.0)
        assert extra <= EXPLORE * 1000 + 2 * slower
    assert counts[0] > counts[1] > counts[2]
    assert 40 <= counts[1] <= 60  # twice the serial time: once every 20 calls


def test_a_team_far_slower_is_judged_after_one_run_and_tried_at_most_rarely():
    times = RegionTimes(worth_threads=True, serial=[1.0])
    chosen = drive(times, 4 * MAX_RECHECK, team=steady(50.0), serial=steady(1.0))
    assert chosen[:2] == [True, False]  # over twice the serial time: no more trial runs
    # until WINDOW runs judge it (the first may have paid for page faults), every RECHECK_EVERY
    # calls; then every MAX_RECHECK
    team_runs = [k for k, on_team in enumerate(chosen) if on_team]
    assert team_runs[:WINDOW] == [RECHECK_EVERY * k for k in range(WINDOW)]
    assert {b - a for a, b in zip(team_runs[WINDOW - 1:], team_runs[WINDOW:])} == {MAX_RECHECK}


def test_a_team_slowed_down_for_a_moment_comes_back_within_a_few_calls():
    """The bench's case: another job (or a thread pool of the same process still spinning after
    its own work) holds the second core during the team's first runs.  Before, the team was tried
    again after 8, then 16, 32 ... 128 calls; now it returns as soon as the contention is over."""
    times = RegionTimes(worth_threads=True, serial=[1.0])
    held = 10  # calls during which the team runs at serial speed

    def team(call: int) -> float:
        return 1.05 if call < held else 0.55

    chosen = drive(times, 40, team=team, serial=steady(1.0))
    back = next(k for k in range(held, 40) if chosen[k])
    assert back <= held + RECHECK_MIN
    assert chosen[back:].count(False) <= (40 - back) // RECHECK_EVERY + 1  # and stays


def test_a_team_that_becomes_slow_is_left_after_its_window_of_runs():
    times, clock = RegionTimes(worth_threads=True, serial=[1.0]), Clock()
    drive(times, 20, team=steady(0.55), serial=steady(1.0), clock=clock)
    chosen = drive(times, 20, team=steady(1.6), serial=steady(1.0), start=20, clock=clock)
    # the best of the team's last WINDOW runs shows it after WINDOW slow runs; then serial, with
    # a check of the team every (1.6 - 1) / (EXPLORE * 1) = 12 calls
    assert chosen[:WINDOW] == [True] * WINDOW and chosen[WINDOW:].count(True) <= 2


def test_checks_follow_the_cost_of_the_latest_runs():
    times = RegionTimes(worth_threads=True, serial=[1.0], team=[3.0, 3.0, 3.0])
    assert times.recheck_after() == 40  # (3 - 1) / (EXPLORE * 1)
    assert RegionTimes(True, [1.0], [3.0]).recheck_after() == RECHECK_EVERY  # one run: may be cold
    times.record(True, 1.01)
    assert times.recheck_after() == RECHECK_MIN
    times.record(True, 0.5)
    assert times.recheck_after() == RECHECK_EVERY
    assert RegionTimes(True, [1.0], [1000.0] * WINDOW).recheck_after() == MAX_RECHECK


def test_sizes_without_enough_work_never_go_to_the_team():
    times = RegionTimes(worth_threads=False, serial=[1.0])
    assert [times.use_team() for _ in range(50)] == [False] * 50


def test_a_warm_serial_run_under_the_bar_ends_the_team_trials():
    """The first serial run decides ``worth_threads`` but paid for cold caches: a later serial
    run shorter than ``MIN_PARALLEL_SECONDS`` shows the sizes too small for threads, and the
    team is not tried again (covariance's means: 0.3 ms cold, 0.1 ms warm, team trials of 2-6 ms
    under load)."""
    from polyfuse.backends.cpu.parallel import MIN_PARALLEL_SECONDS

    times = RegionTimes(worth_threads=True, serial=[3 * MIN_PARALLEL_SECONDS])
    chosen = drive(times, 200, team=steady(20 * MIN_PARALLEL_SECONDS), serial=steady(MIN_PARALLEL_SECONDS / 2))
    assert chosen[0] and chosen.count(True) == 1 and not times.worth_threads
    kept = RegionTimes(worth_threads=True, serial=[3 * MIN_PARALLEL_SECONDS])  # warm runs over the bar
    assert drive(kept, 200, team=steady(20 * MIN_PARALLEL_SECONDS), serial=steady(2 * MIN_PARALLEL_SECONDS)
                 ).count(True) > 1 and kept.worth_threads


def test_what_the_team_sets_up_once_is_not_timed_as_its_first_run():
    """``parallel._timed`` calls ``prepare`` (the native team's code, trampoline and helpers:
    ``_ready_team``) before it times the team's first run, and only then: a first team run that
    paid for tens of ms of LLVM took over twice the serial time and ended the team's trial."""
    import time

    from polyfuse.backends.cpu.parallel import _timed

    times = RegionTimes(worth_threads=True, serial=[0.03])
    prepared: list[int] = []

    def prepare() -> None:
        prepared.append(len(times.team))
        time.sleep(0.1)  # over three times the serial run

    for _ in range(WINDOW + 2):
        _timed(times, team=lambda: None, serial=lambda: None, prepare=prepare)
    assert prepared == [0]
    assert len(times.team) == WINDOW and max(times.team) < 0.06


def test_a_trial_slowed_down_in_one_moment_is_checked_again_soon():
    """The team's trial runs follow each other, so one moment judges them: here attention's
    phases at 4 ms a call whose team trial ran beside a pool of the process still spinning (3x
    the serial time) for the first 20 calls.  Judged by the cost rule alone the team would next
    run after (3 - 1) / EXPLORE = 40 calls; runs that all ended within MOMENT seconds bring it
    back after RECHECK_EVERY, and once the team's runs are further apart the cost rule holds."""
    from polyfuse.backends.cpu.parallel import MOMENT

    serial, held = 0.004, 20

    def team(call: int) -> float:
        return 3 * serial if call < held else 0.6 * serial

    chosen = drive(RegionTimes(worth_threads=True, serial=[serial]), 60, team=team, serial=steady(serial))
    back = next(k for k in range(held, 60) if chosen[k] and chosen[k + 1])
    assert back <= held + RECHECK_EVERY
    # a team always 3x slower: frequent checks only until its latest runs span MOMENT seconds
    times, clock = RegionTimes(worth_threads=True, serial=[serial]), Clock()
    chosen = drive(times, 2000, team=steady(3 * serial), serial=steady(serial), clock=clock)
    assert chosen.count(True) <= MOMENT / (RECHECK_EVERY * serial) + 2000 * EXPLORE / 2 + WINDOW
    assert times.recheck_after() == 40


def test_explain_records_say_which_mode_runs_and_why():
    from polyfuse.backends.cpu.parallel import team_record

    on_trial = team_record((3, 2, 1000), RegionTimes(True, [1e-3], [2e-3]))
    assert on_trial["phase"] == 3 and on_trial["sizes"] == [1000] and on_trial["chosen"] == "team"
    assert on_trial["best ms"] == {"serial": 1.0, "team": 2.0}
    judged = team_record(("region", 5, 2, 64, 7), RegionTimes(True, [1e-3], [2e-3] * WINDOW))
    assert judged["region"] == 5 and judged["sizes"] == [64, 7] and judged["chosen"] == "serial"
    too_small = team_record(("chain", 1, 2, 9), RegionTimes(False, [1e-5]))
    assert too_small["chosen"] == "serial" and too_small["best ms"] == {"serial (first run, cold)": 0.01}
    assert too_small["calls"].startswith("not counted")  # (later calls run untimed)
