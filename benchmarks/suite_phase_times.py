"""Where one suite kernel's time goes on one thread: each phase of the generated program timed
alone (process CPU time of its foreign call, min over rounds), as benchmarks/phase_times.py does
for the NumPy programs, next to the kernel's NumPy formulation on one BLAS thread.

    taskset -c 0 python benchmarks/suite_phase_times.py covariance 30 [preset=bench]
"""

from __future__ import annotations

import os
import sys
import time

os.environ["POLYFUSE_NATIVE_ENTRY"] = "0"

import numpy as np  # noqa: E402
import threadpoolctl  # noqa: E402
from phase_times import TimedPhase, describe  # noqa: E402
from polyfuse.backends.cpu import parallel  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench import suite  # noqa: E402
from polyfuse.bench.machine import set_polyfuse_threads  # noqa: E402
from polyfuse.bench.measure import fresh  # noqa: E402


def main(argv: list[str]) -> None:
    name, rounds = argv[0], int(argv[1])
    options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    sk = suite.get(name)
    base = sk.make_args(np.random.default_rng(0), **sk.sizes[options.get("preset", "bench")])
    threadpoolctl.threadpool_limits(1)
    set_polyfuse_threads(1)
    kernel = polyfuse.kernel(sk.func, cache=False)
    for _ in range(3):
        kernel(*fresh(base))
    (variant,) = kernel._variants.values()
    backend, loops = variant.backend, variant.program
    parallel.NATIVE_TEAM = False
    timed = []
    for compiled in backend.phases:
        compiled._function = TimedPhase(compiled.function)
        timed.append(compiled)
    best = dict.fromkeys(["polyfuse", "numpy", *range(len(timed))], float("inf"))
    for _ in range(rounds):
        for label, run in (("polyfuse", kernel), ("numpy", sk.numpy_func)):
            args = fresh(base)
            for c in timed:
                c._function.seconds = 0.0
            began = time.process_time()
            run(*args)
            best[label] = min(best[label], time.process_time() - began)
            if label == "polyfuse":
                for k, c in enumerate(timed):
                    best[k] = min(best[k], c._function.seconds)
    load = open("/proc/loadavg").read().split()[0]
    print(f"{name}: process CPU ms, min of {rounds} rounds, one thread, BLAS one thread; load {load}")
    for k, c in enumerate(timed):
        print(f"  phase {k}: {best[k] * 1e3:8.3f}  {describe(loops, c.phase)}")
    print(f"  phases together: {sum(best[k] for k in range(len(timed))) * 1e3:8.3f}")
    print(f"  polyfuse whole call: {best['polyfuse'] * 1e3:8.3f}   numpy (one BLAS thread): {best['numpy'] * 1e3:8.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
