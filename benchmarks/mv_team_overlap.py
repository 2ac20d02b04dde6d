"""Do the team's members of a suite kernel's parallel phase run at the same time?

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/mv_team_overlap.py [kernels=atax,bicg,mvt]
        [calls=150] [threads=2] [team=forced|measured]

Each kernel runs ``calls`` times back to back on the same arrays (no copies: the work is the
same whatever their values) on ``threads`` polyfuse threads, every phase worth threads on the team
where ``team=forced`` (``parallel.RegionTimes.use_team``), the runtime's choice with
``team=measured``.  Printed per kernel: the best wall time, its 5th percentile and median, the best
process CPU time (all threads), and each parallel phase's team runs and recent serial / team
times (``kernel.phase_times``).  A best wall near the process CPU time means the members never ran
at once (on a machine shared with other jobs a woken helper waits for a core while the caller
takes the pieces); about half of it means they did.  The results are checked against the user's
function.  ``gcc ... benchmarks/atax_sweeps.c`` is the OpenMP analogue, whose threads spin between
rounds.  docs/performance.md, *Session 35: matrix-vector kernels (mv45)*.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from polyfuse.backends.cpu import parallel

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads


def overlap(name: str, calls: int) -> None:
    entry = suite.get(name)
    args = entry.make_args(np.random.default_rng(0), **entry.sizes["bench"])
    kernel = polyfuse.kernel(entry.func)
    for _ in range(6):  # compile, the first serial run, the team's trials, plans
        kernel(*args)
    walls, cpus = [], []
    for _ in range(calls):
        wall, cpu = time.perf_counter(), time.process_time()
        kernel(*args)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    ours, expected = (tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args) for _ in range(2))
    kernel(*ours)  # (on copies: mvt adds into its outputs, which the timed calls reused)
    entry.func(*expected)
    ok = all(np.allclose(a, b, rtol=1e-9) for a, b in zip(ours, expected) if isinstance(a, np.ndarray))
    ms = np.array(walls) * 1e3
    print(f"  {name:8s} ok={ok} wall best {ms.min():.2f} ms, 5th pct {np.percentile(ms, 5):.2f}, median "
          f"{np.median(ms):.2f}; process CPU best {min(cpus) * 1e3:.2f} ms; load {os.getloadavg()[0]:.1f}")
    (variant,) = kernel._variants.values()
    backend = variant.backend
    for key, times in getattr(backend, "phase_times", {}).items():
        if getattr(times, "worth_threads", False):
            print(f"    phase {key}: team runs {backend.phase_runs.get(key[0], 0)}, recent serial ms "
                  f"{[round(s * 1e3, 2) for s in times.serial]}, team ms {[round(s * 1e3, 2) for s in times.team]}")


def main(argv: list[str]) -> None:
    opts = dict(a.split("=", 1) for a in argv)
    names = opts.get("kernels", "atax,bicg,mvt").split(",")
    calls, count = int(opts.get("calls", 150)), int(opts.get("threads", 2))
    team = opts.get("team", "forced")
    if team == "forced":
        parallel.RegionTimes.use_team = lambda times: times.worth_threads  # type: ignore[method-assign]
    threads.set_num_threads(count)
    print(f"{calls} calls back to back, {count} thread(s), team {team}")
    for name in names:
        overlap(name, calls)


if __name__ == "__main__":
    main(sys.argv[1:])
