"""Where a NumPy program's call goes on the team: each phase's CPU time on each member, and the
calling thread's CPU time outside the phases (the Python runtime's work per call).

    python benchmarks/team_phase_times.py mean_std 40 [threads=2] [preset=bench] [team=measured]

The kernel runs on ``threads`` polyfuse threads (default 2) through the Python runtime
(``POLYFUSE_NATIVE_ENTRY=0``: a call with a phase on the team takes that path anyway) and the
team's Python way (``parallel.NATIVE_TEAM`` off: the native team would bypass the clocks), every
parallel phase worth threads on the team (``team=measured`` leaves the runtime's own choice,
which on a loaded machine is mostly one thread).  Each phase's function is wrapped to read the
calling thread's CPU clock around it, so the times are per member (``MainThread``: the caller,
``polyfuse_*``: the pool's threads) and do not count waiting for a core; the minimum over the
calls of each is printed, and "caller outside phases": the caller's CPU time per call minus its
time in phase functions (argument checks, plans, team starts, result arrays).  The results are
checked against the undecorated function after the timed calls.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time

os.environ["POLYFUSE_NATIVE_ENTRY"] = "0"

import numpy as np  # noqa: E402
from polyfuse.backends.cpu import parallel  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench.numpy_suite import PROGRAMS  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402


class MemberClock:
    """A phase's foreign function that adds each call's CPU time to ``seconds[(phase, thread)]``."""

    def __init__(self, index: int, function, seconds: dict) -> None:
        self.index, self.function, self.seconds = index, function, seconds

    def __call__(self, *args) -> None:
        began = time.thread_time()
        self.function(*args)
        key = (self.index, threading.current_thread().name.split("_")[0])
        self.seconds[key] += time.thread_time() - began


def clocked_kernel(name: str, options: dict, clock, force_team: bool):
    """The program's kernel (no disk cache) on ``threads=`` threads, every parallel phase on the
    team once measured where ``force_team``, warmed by five calls, each phase's function then
    wrapped as ``clock(index, function, seconds)``: (kernel, its variant, args, expected, seconds)."""
    program = PROGRAMS[name]
    args = program.args(options.get("preset", "bench"))
    expected = program.func(*args)
    # the wrapped functions are Python: the team's Python way calls them, the native team
    # (backends/cpu/native_team.py) their machine code
    parallel.NATIVE_TEAM = False
    if force_team:
        parallel.RegionTimes.use_team = lambda times: times.worth_threads  # type: ignore[method-assign]
    threads.set_num_threads(int(options.get("threads", "2")))
    kernel = polyfuse.kernel(program.func, cache=False)
    for _ in range(5):
        kernel(*args)
    (variant,) = kernel._variants.values()
    seconds: dict = collections.defaultdict(float)
    for k, compiled in enumerate(variant.backend.phases):
        compiled._function = clock(k, compiled.function, seconds)
    return kernel, variant, args, expected, seconds


def check(expected, result) -> None:
    """The kernel's results are the program's (NumPy's)."""
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    result if isinstance(result, tuple) else (result,)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-10, atol=1e-12)


def main(argv: list[str]) -> None:
    name, calls = argv[0], int(argv[1])
    options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    kernel, _, args, expected, seconds = clocked_kernel(name, options, MemberClock,
                                                        options.get("team", "forced") == "forced")
    best: dict = {}
    for _ in range(calls):
        seconds.clear()
        began = time.thread_time()
        result = kernel(*args)
        whole = time.thread_time() - began
        inside = sum(s for (_, who), s in seconds.items() if who == "MainThread")
        for key, s in [*seconds.items(), (("call", "caller outside phases"), whole - inside),
                       (("call", "caller, whole call"), whole)]:
            best[key] = min(best.get(key, float("inf")), s)
    check(expected, result)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"{name} ({options.get('preset', 'bench')}, {threads.get_num_threads()} threads, team "
          f"{options.get('team', 'forced')}): CPU ms, min over {calls} calls; load {load} on {os.cpu_count()} cores")
    for (phase, who), s in sorted(best.items(), key=lambda item: str(item[0])):
        print(f"  {'phase ' + str(phase) if phase != 'call' else '':9s} {who:24s} {s * 1e3:8.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
