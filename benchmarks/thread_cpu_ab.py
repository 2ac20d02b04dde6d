"""polyfuse configurations of one NumPy program against jax.jit, interleaved in one process, timed
by each thread's own CPU time as well as the wall clock: a measure of two-thread runs that moves
less with the machine's load than their wall time.

    python benchmarks/thread_cpu_ab.py mean_std 30 smart smart,POLYFUSE_JOIN_PHASES:1 block=5

Configurations as in benchmarks/numpy_ab.py (``FUSE[,KNOB:VALUE...]``, ``/`` for ``,`` in a
value; ``preset=``, ``threads=1/2``, ``block=N``; ``team=forced``: every parallel phase and
region worth threads runs on the team, never back to one thread, as the tests' ``threads_forced``
does: on a loaded machine the runtime's own choice mostly falls back to one thread, which hides
what the team's code costs).  Every output is checked against the
undecorated function.  Around each call the script reads every thread's CPU clock and its time runnable but waiting
for a core (``/proc/self/task/*/schedstat``), so that per call:

- ``wall``: the call's wall time;
- ``busiest``: the CPU time of the thread that ran longest during the call.  On a quiet machine a
  call cannot end before its busiest thread is done, and where the work is split evenly it ends
  soon after: the lower bound the wall time reaches when no other job takes the cores;
- ``cpu``: the CPU time of all the process's threads (spinning pools count: OpenBLAS's workers,
  XLA's, a polyfuse region's barriers);
- ``waited``: how long the process's threads were runnable without a core (other jobs' doing);
- ``bound``: the larger of ``busiest`` and ``cpu`` over the cores the process may use: the
  least wall time the call could take on a machine with those cores to itself.

The minimum of each over all calls is printed (each column its own minimum).
Before each configuration's block of calls the process waits until no thread of it burns CPU
(``polyfuse.bench.measure.settle``: a pool left spinning by the previous contender would share
the cores).  Caveat: a pool that spins while it waits (XLA's, a region's barriers) counts the
spinning as busy time, and a team member that a loaded machine kept off its core takes fewer
pieces of a loop (``backends/cpu/parallel.py``), so the busiest thread is an upper bound of the
balanced share on a loaded machine.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from polyfuse.bench.machine import set_polyfuse_threads
from polyfuse.bench.measure import settle

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_ab import contenders, fresh  # noqa: E402

#: the cores this process may use: no call of work spread over its threads ends before its CPU
#: time over them
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def thread_times() -> dict[str, tuple[float, float]]:
    """Each thread of this process: (seconds on a CPU, seconds runnable but waiting for one).
    The CPU time is the thread's own CPU clock (Linux's ``MAKE_THREAD_CPUCLOCK(tid,
    CPUCLOCK_SCHED)``), which counts the slice under way; ``schedstat``'s copy of it lags a
    running thread by up to a slice."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            run = time.clock_gettime((~int(tid) << 3) | 6)
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                wait = int(f.read().split()[1]) * 1e-9
        except (OSError, ValueError, IndexError):  # (a thread that ended meanwhile)
            continue
        out[tid] = (run, wait)
    return out


def call_times(run, inputs) -> tuple[float, float, float, float, float]:
    """(wall, busiest thread's CPU, all threads' CPU, waited, bound) seconds of one call.  The calling
    thread's own clock is read next to the call, the others' around it."""
    me = str(threading.get_native_id())
    before = thread_times()
    mine = time.thread_time()
    began = time.perf_counter()
    run(*inputs)
    wall = time.perf_counter() - began
    mine = time.thread_time() - mine
    after = thread_times()
    after[me] = (before[me][0] + mine, after[me][1])
    runs = [after[t][0] - before.get(t, (0, 0))[0] for t in after]
    waits = [after[t][1] - before.get(t, (0, 0))[1] for t in after]
    return wall, max(runs), sum(runs), sum(waits), max(max(runs), sum(runs) / CORES)


def main(argv: list[str]) -> None:
    name, rounds, options, args, runners = contenders(argv, with_numpy=False)
    if options.get("team") == "forced":  # every parallel phase / region on the team once measured
        from polyfuse.backends.cpu import parallel

        parallel.RegionTimes.use_team = lambda times: times.worth_threads  # type: ignore[method-assign]
    block = int(options.get("block", "3"))
    best = {label: [float("inf")] * 5 for label in runners}
    loads = []
    for _ in range(rounds):
        for label, (run, threads) in runners.items():
            if threads is not None:
                set_polyfuse_threads(threads)
            inputs = fresh(args)
            settle()
            for _ in range(block):
                times = call_times(run, inputs)
                best[label] = [min(b, t) for b, t in zip(best[label], times)]
        with open("/proc/loadavg") as f:
            loads.append(float(f.read().split()[0]))
    print(f"{name}: ms per call, min over {rounds} interleaved rounds of {block} calls; load "
          f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores")
    print(f"  {'':44s} {'wall':>8s} {'busiest':>8s} {'cpu':>8s} {'waited':>8s} {'bound':>8s}")
    for label, (wall, busiest, cpu, waited, bound) in best.items():
        print(f"  {label:44s} {wall * 1e3:8.3f} {busiest * 1e3:8.3f} {cpu * 1e3:8.3f} {waited * 1e3:8.3f} "
              f"{bound * 1e3:8.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
