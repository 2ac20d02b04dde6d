"""One call of a kernel's rows (polyfuse's team, one BLAS thread each) right after various things.

    python benchmarks/rows_after_probe.py covariance [rounds=30] [preset=bench] [timed=rows]

The kernel's whole-call BLAS mode is set per call (``BlasTimes.forced``, the runtime's own record
of the modes), so the same kernel object runs "rows" in the timed call after each of:

- ``numpy``: one call of the kernel's NumPy formulation (OpenBLAS's threads, which then spin);
- ``numpy+settle``: the same, then ``measure.settle`` (the bench's wait for quiet threads);
- ``library``: one polyfuse call on the library's threads (the same OpenBLAS, which then spins);
- ``rows``: one polyfuse call on the rows;
- ``sleep``: 0.3 s asleep (every pool asleep).

``timed=library`` times a call on the library's threads instead.  The conditions rotate (each round a different order); per condition it prints the timed call's
min / 25th percentile / median wall ms, and the median of its process CPU ms (all threads:
about twice the wall where the team ran on both cores beside nothing, more where a pool spun
beside it), with the load.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import fresh, settle, warm_up
from polyfuse.runtime import threads


def blas_times(backend):
    for key, times in backend.phase_times.items():
        if key[0] == "blas call":
            return times
    raise SystemExit("no whole-call BLAS mode at these sizes")


def main(argv: list[str]) -> None:
    name = argv[0]
    rounds = int(argv[1]) if len(argv) > 1 else 30
    preset = argv[2] if len(argv) > 2 else "bench"
    timed = argv[3] if len(argv) > 3 else "rows"
    threads.set_num_threads(2)
    spec = suite.get(name)
    inputs = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    kernel = polyfuse.kernel(spec.func)
    backend = kernel.compile(*fresh(inputs)).backend
    kernel(*fresh(inputs))
    warm_up(kernel, inputs, trials=backend.in_trials)
    times = blas_times(backend)

    def call(mode: str) -> tuple[float, float]:
        times.forced = mode
        args = fresh(inputs)
        cpu, start = time.process_time(), time.perf_counter()
        kernel(*args)
        return time.perf_counter() - start, time.process_time() - cpu

    for mode in ("rows", "library", "rows", "library"):  # each mode's one-time work untimed
        for _ in range(4):
            call(mode)
    actions = {
        "numpy": lambda: spec.numpy_func(*fresh(inputs)),
        "numpy+settle": lambda: (spec.numpy_func(*fresh(inputs)), settle()),
        "library": lambda: call("library"),
        "rows": lambda: call("rows"),
        "sleep": lambda: time.sleep(0.3),
    }
    names = list(actions)
    walls: dict[str, list[float]] = {n: [] for n in names}
    cpus: dict[str, list[float]] = {n: [] for n in names}
    print("load before", os.getloadavg()[0], flush=True)
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            time.sleep(0.3)
            actions[n]()
            wall, cpu = call(timed)
            walls[n].append(wall * 1e3)
            cpus[n].append(cpu * 1e3)
    for n in names:
        w = sorted(walls[n])
        print(f"{timed} after {n:13s} wall min {w[0]:.3f} p25 {w[len(w) // 4]:.3f} median "
              f"{statistics.median(w):.3f} ms; process CPU median {statistics.median(cpus[n]):.2f} ms", flush=True)
    print("load after", os.getloadavg()[0], flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
