"""One suite kernel against its NumPy formulation on one thread, by the thread's own CPU clock
(polyfuse on one thread, the library on one thread: run it pinned, with the knobs of one side set
in the environment, and alternate processes for an A/B)::

    for v in 1 0 1 0; do POLYFUSE_STACK_ROW_GEMM=$v POLYFUSE_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        taskset -c 1 python benchmarks/suite_one_thread_ab.py doitgen bench 12; done

Prints the minimum thread CPU time and the minimum wall time (ms) of each over ROUNDS rounds of
one call each on fresh inputs (after 12 untimed calls of the kernel, so that its modes' trials are
done), the load, and with a fourth argument the BLAS mode records of ``explain()``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import fresh
from polyfuse.runtime import threads


def main(argv: list[str]) -> None:
    name, preset, rounds = argv[0], argv[1], int(argv[2])
    threads.set_num_threads(1)
    sk = suite.get(name)
    base = sk.make_args(np.random.default_rng(0), **sk.sizes[preset])
    kernel = polyfuse.kernel(sk.func)
    for _ in range(12):
        kernel(*fresh(base))
    best: dict[str, list[float]] = {"polyfuse": [1e9, 1e9], "numpy": [1e9, 1e9]}
    for _ in range(rounds):
        for label, function in (("polyfuse", kernel), ("numpy", sk.numpy_func)):
            inputs = fresh(base)
            cpu, wall = time.thread_time(), time.perf_counter()
            function(*inputs)
            cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
            best[label] = [min(best[label][0], cpu), min(best[label][1], wall)]
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(name, preset, "thread CPU / wall min ms:",
          {label: [round(t * 1e3, 3) for t in times] for label, times in best.items()}, "load", load)
    if len(argv) > 3:
        print("\n".join(line[:300] for line in str(kernel.explain(*fresh(base))).splitlines() if "best ms" in line))


if __name__ == "__main__":
    main(sys.argv[1:])
