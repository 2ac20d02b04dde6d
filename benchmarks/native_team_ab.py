"""A parallel phase's team on native helpers (backends/cpu/native_team.py) against the Python way
(``threads.hand_off`` and ``Pieces``), A/B in one process: the same compiled kernel, the flag
``parallel.NATIVE_TEAM`` flipped between blocks of calls, interleaved, with jax.jit in the same
rounds where it is installed.

    python benchmarks/native_team_ab.py mean_std 60 [block=5] [threads=2] [preset=bench] [team=measured]
    python benchmarks/native_team_ab.py start 400 [n=4096]

``start``: what one team start costs each way, with no work to speak of: ``out[:] = a + b`` on
``n`` elements (a parallel phase of ``n`` iterations), forced onto the team; the minimum wall and
caller CPU time per call (the caller's CPU includes its own half of the additions).

Every parallel phase worth threads runs on the team (as the tests' ``threads_forced``) unless
``team=measured``; calls go through the Python runtime (``POLYFUSE_NATIVE_ENTRY=0``: a call with
a phase on the team takes it anyway).  Printed per way, as benchmarks/thread_cpu_ab.py measures them (each
column its minimum over the calls): wall, the busiest thread's CPU, all threads' CPU, the time
runnable without a core, and the bound (the larger of the busiest thread and the CPU over the
cores); then the phase runs each way took on the native team, and the load.  Caveat: a native
helper polls for the next phase for a while before it sleeps, which counts as busy CPU.  The last result of each way is checked against the undecorated
function.
"""

from __future__ import annotations

import os
import sys
import time

os.environ["POLYFUSE_NATIVE_ENTRY"] = "0"

from polyfuse.backends.cpu import native_team, parallel  # noqa: E402

from polyfuse.runtime import threads  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_ab import jax_runner  # noqa: E402
from team_phase_times import check, clocked_kernel  # noqa: E402
from thread_cpu_ab import call_times  # noqa: E402


def add(a, b, out):
    out[:] = a + b


def team_start(rounds: int, n: int) -> None:
    import numpy as np

    import polyfuse
    from polyfuse.bench.measure import settle

    parallel.MIN_PARALLEL_SECONDS = 0.0
    parallel.RegionTimes.use_team = lambda times: times.worth_threads  # type: ignore[method-assign]
    threads.set_num_threads(2)
    rng = np.random.default_rng(0)
    a, b, out = rng.standard_normal(n), rng.standard_normal(n), np.empty(n)
    kernel = polyfuse.kernel(add, cache=False)
    for _ in range(5):
        kernel(a, b, out)
    wall: dict[bool, float] = {}
    cpu: dict[bool, float] = {}
    for _ in range(rounds):
        for native in (True, False):
            parallel.NATIVE_TEAM = native
            settle()
            for _ in range(20):
                began, mine = time.perf_counter(), time.thread_time()
                kernel(a, b, out)
                cpu[native] = min(cpu.get(native, 1.0), time.thread_time() - mine)
                wall[native] = min(wall.get(native, 1.0), time.perf_counter() - began)
            np.testing.assert_array_equal(out, a + b)
    (variant,) = kernel._variants.values()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"team start: out[:] = a + b, n = {n}, 2 threads, team forced; min over {rounds} rounds of 20 "
          f"calls, load {load}; team runs {dict(variant.backend.phase_runs)}")
    for native, label in ((True, "native team"), (False, "python team")):
        print(f"  {label:12s} wall {wall[native] * 1e6:8.1f} us   caller CPU {cpu[native] * 1e6:8.1f} us")


def main(argv: list[str]) -> None:
    name, rounds = argv[0], int(argv[1])
    if name == "start":
        options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
        team_start(rounds, int(options.get("n", "4096")))
        return
    options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    block = int(options.get("block", "5"))
    kernel, variant, args, expected, _ = clocked_kernel(
        name, options, lambda _, function, seconds: function, force_team=options.get("team") != "measured")
    parallel.NATIVE_TEAM = True  # (clocked_kernel turns it off for its clocks, which this leaves out)
    native_runs = {True: 0, False: 0}
    run = native_team.run

    def counted(*a, **k):
        ran = run(*a, **k)
        native_runs[parallel.NATIVE_TEAM] += ran
        return ran

    native_team.run = counted
    jax = jax_runner(parallel_free(name), args)  # (its first call compiles: warmed below)
    if jax:
        jax()
    ways = {"native team": True, "python team": False}
    best: dict[str, list[float]] = {}
    for _ in range(rounds):
        for label, native in [*ways.items(), *([("jax.jit", None)] if jax else [])]:
            parallel.NATIVE_TEAM = bool(native)
            for _ in range(block):
                times = call_times(jax if native is None else kernel, () if native is None else args)
                best[label] = [min(b, t) for b, t in zip(best.get(label, [float("inf")] * 5), times)]
            if native is not None:
                check(expected, kernel(*args))
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"{name} ({options.get('preset', 'bench')}, {threads.get_num_threads()} threads, team "
          f"{options.get('team', 'forced')}): min over {rounds} interleaved rounds of {block} calls, "
          f"load {load} on {os.cpu_count()} cores; phase runs on the native team {native_runs}")
    print(f"  {'ms per call':12s} {'wall':>8s} {'busiest':>8s} {'cpu':>8s} {'waited':>8s} {'bound':>8s}")
    for label, values in best.items():
        print(f"  {label:12s} " + " ".join(f"{v * 1e3:8.3f}" for v in values))


def parallel_free(name: str):
    from polyfuse.bench.numpy_suite import PROGRAMS

    return PROGRAMS[name].func


if __name__ == "__main__":
    main(sys.argv[1:])
