"""CPU time each of the process's other threads spends after one call returned, per call mode.

    python benchmarks/pool_spin_after.py covariance [calls=15] [preset=bench]

One kernel object, its whole-call BLAS mode forced per call (``BlasTimes.forced``): for "rows"
(polyfuse's native team) and "library" (OpenBLAS's threads), ``calls`` times: 0.3 s asleep, one
call, then the on-CPU nanoseconds (``/proc/self/task/<tid>/schedstat``) each other thread adds
in the next 0.2 s.  Prints per mode and thread the min and median ms: how long a pool spins after
the call (OpenBLAS's worker ~100 ms in user space; polyfuse's helper none measurable).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import fresh, warm_up
from polyfuse.runtime import threads


def on_cpu() -> dict[str, int]:
    me = str(threading.get_native_id())
    found = {}
    for tid in os.listdir("/proc/self/task"):
        if tid != me:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                found[tid] = int(f.read().split()[0])
    return found


def main(argv: list[str]) -> None:
    name = argv[0]
    calls = int(argv[1]) if len(argv) > 1 else 15
    preset = argv[2] if len(argv) > 2 else "bench"
    threads.set_num_threads(2)
    spec = suite.get(name)
    inputs = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    kernel = polyfuse.kernel(spec.func)
    backend = kernel.compile(*fresh(inputs)).backend
    kernel(*fresh(inputs))
    warm_up(kernel, inputs, trials=backend.in_trials)
    times = next(t for key, t in backend.phase_times.items() if key[0] == "blas call")
    for mode in ("rows", "library"):
        times.forced = mode
        for _ in range(5):
            kernel(*fresh(inputs))
        after: dict[str, list[float]] = {}
        for _ in range(calls):
            time.sleep(0.3)
            kernel(*fresh(inputs))
            before = on_cpu()
            time.sleep(0.2)
            for tid, ns in on_cpu().items():
                if tid in before:
                    after.setdefault(tid, []).append((ns - before[tid]) * 1e-6)
        shown = ", ".join(f"thread {tid} {min(v):.3f} / {statistics.median(v):.3f}" for tid, v in sorted(after.items()))
        print(f"after a {mode} call, ms on a CPU in the next 0.2 s (min / median): {shown}; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
