"""How fast the streaming suite kernels compute when their data is in cache: the compute ceiling.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/mv_compute_bound.py [kernels=...] [preset=quick] [runs=40]

Each kernel runs on one thread at ``preset`` (the quick sizes keep every array within L2/L3), the
same arguments every call (warm caches); the best thread CPU time of ``runs`` calls (time.thread_time,
little affected by other jobs on the machine) gives the bytes per second one core computes at, with
the bench's bytes (every array argument once).  Two cores at twice that rate bound the kernel from
above however fast memory is: where this is below the triad, the kernel is compute-bound.  Kernels
that update their inputs in place (gemver's A, mvt's x1 and x2) drift over the calls; the time does
not depend on the values.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.limits import STREAMING, min_traffic
from polyfuse.bench.machine import set_polyfuse_threads


def main(argv: list[str]) -> None:
    opts = dict(a.split("=", 1) for a in argv)
    names = opts.get("kernels", ",".join(STREAMING)).split(",")
    preset, runs = opts.get("preset", "quick"), int(opts.get("runs", 40))
    set_polyfuse_threads(1)
    print(f"preset={preset}, one thread, best thread CPU time of {runs} calls on warm caches")
    print(f"{'kernel':10s} {'MB':>7s} {'min MB':>7s} {'cpu ms':>8s} {'GB/s 1 core':>12s} {'x2 cores':>9s}")
    for name in names:
        entry = suite.get(name)
        args = entry.make_args(np.random.default_rng(0), **entry.sizes[preset])
        kernel = polyfuse.kernel(entry.func)
        kernel(*args)
        best = np.inf
        for _ in range(runs):
            start = time.thread_time()
            kernel(*args)
            best = min(best, time.thread_time() - start)
        nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        floor = min_traffic(name, entry.sizes[preset], nbytes)
        rate = nbytes / best / 1e9
        print(f"{name:10s} {nbytes / 1e6:7.2f} {floor / 1e6:7.2f} {best * 1e3:8.3f} {rate:12.1f} {2 * rate:9.1f}")
    with open("/proc/loadavg") as f:
        print("load", f.read().split()[0])


if __name__ == "__main__":
    main(sys.argv[1:])
