"""How a parallel phase's team start hands members to other threads, A/B in one process: the
helpers (``threads.hand_off``, default) against the executor's ``submit``
(``threads.LIGHT_HANDOFF = False``), on the same compiled kernel, interleaved.

    python benchmarks/handoff_ab.py mean_std 60 [block=5] [threads=2] [preset=bench]

Every parallel phase worth threads runs on the team (as the tests' ``threads_forced``), through
the Python runtime (``POLYFUSE_NATIVE_ENTRY=0``: a call with a phase on the team takes it
anyway).  Printed per way: the calling thread's CPU time per call outside the phases' own
functions (the runtime's work: plans, team starts, waits; minimum over the calls; CPU time, so
it moves little with the machine's load) and the minimum wall time.  The last result of each way
is checked against the undecorated function.
"""

from __future__ import annotations

import os
import sys
import threading
import time

os.environ["POLYFUSE_NATIVE_ENTRY"] = "0"

from polyfuse.runtime import threads  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from team_phase_times import check, clocked_kernel  # noqa: E402


class CallerClock:
    """A phase's foreign function that adds the calling thread's CPU time in it to ``seconds``."""

    def __init__(self, function, seconds: dict) -> None:
        self.function, self.seconds = function, seconds

    def __call__(self, *args) -> None:
        began = time.thread_time()
        self.function(*args)
        if threading.current_thread() is threading.main_thread():
            self.seconds["in phases"] += time.thread_time() - began


def main(argv: list[str]) -> None:
    name, rounds = argv[0], int(argv[1])
    options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    block = int(options.get("block", "5"))
    kernel, variant, args, expected, seconds = clocked_kernel(
        name, options, lambda _, function, seconds: CallerClock(function, seconds), force_team=True)
    outside: dict[bool, float] = {}
    wall: dict[bool, float] = {}
    for _ in range(rounds):
        for light in (True, False):
            threads.LIGHT_HANDOFF = light
            for _ in range(block):
                seconds.clear()
                cpu, began = time.thread_time(), time.perf_counter()
                result = kernel(*args)
                wall[light] = min(wall.get(light, float("inf")), time.perf_counter() - began)
                spent = time.thread_time() - cpu - seconds["in phases"]
                outside[light] = min(outside.get(light, float("inf")), spent)
            check(expected, result)
    threads.LIGHT_HANDOFF = True
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"{name} ({options.get('preset', 'bench')}, {threads.get_num_threads()} threads): min over {rounds} "
          f"interleaved rounds of {block} calls, load {load} on {os.cpu_count()} cores; team runs "
          f"{dict(variant.backend.phase_runs)}")
    for light, label in ((True, "helpers (hand_off)"), (False, "executor (submit)")):
        print(f"  {label:20s} caller CPU outside phases {outside[light] * 1e3:7.3f} ms   wall {wall[light] * 1e3:8.3f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
