"""Knob settings of one suite kernel (and its NumPy formulation) interleaved in one process on 2
threads, timed per call by the wall clock and by its threads' own CPU clocks, as
benchmarks/thread_cpu_ab.py times the NumPy programs.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/suite_thread_cpu_ab.py matmul_bias_relu bench 30 numpy \
        new= old=POLYFUSE_EPILOGUE_CHAINS:0 rows=POLYFUSE_BLAS_THREADS:rows \
        rows-old=POLYFUSE_BLAS_THREADS:rows/POLYFUSE_EPILOGUE_CHAINS:0

Each contender is ``LABEL=KNOB:VALUE/KNOB:VALUE`` (``LABEL=`` alone: the defaults), ``numpy``
(the kernel's NumPy formulation, on OpenBLAS's own threads) or ``numpy1`` (the same on one BLAS
thread, threadpoolctl).  Each polyfuse contender is compiled
(no disk cache) and called 12 times with its knobs set, and its knobs are set again around each of
its calls (the runtime reads ``POLYFUSE_BLAS_THREADS`` when a size is first measured).  Then each
round runs every contender in a rotated order, each after ``measure.settle`` (no thread of the
process burning CPU), ``SERIES`` calls (default 3) in a row on fresh copies of the inputs; every
polyfuse output is checked against the NumPy formulation's (``measure.close_enough``, the bench's
tolerance).  Prints per contender the minimum wall time, the minimum CPU time of the busiest thread
(on a quiet machine the call cannot end before it: the two-thread measure that moves least with the
load), the minimum CPU time of all threads (OpenBLAS's spinning workers count), the median
wall time, the min and median of ``bound`` (the larger of the busiest thread and all threads' CPU
over 2: where a call's phases run on different threads, as a pair of products on the Python pool
and the rows on the native team, the busiest thread alone understates the call) and the BLAS modes
of its products (``blas_modes``' first letters, the most common strings), with the load.
"""

from __future__ import annotations

import collections
import os
import statistics
import sys

import numpy as np
from knobs import knobs_set, one_blas_thread  # (benchmarks/knobs.py: this script's folder is on sys.path)
from thread_cpu_ab import call_times

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import close_enough, fresh, output_positions, settle
from polyfuse.runtime import threads

SERIES = int(os.environ.get("SERIES", "3"))


def main(argv: list[str]) -> None:
    name, preset, rounds = argv[0], argv[1], int(argv[2])
    threads.set_num_threads(2)
    sk = suite.get(name)
    base = sk.make_args(np.random.default_rng(0), **sk.sizes[preset])
    expected = suite.numpy_outputs(sk, fresh(base))
    positions = output_positions(sk.func, sk.outputs)
    runners = {}
    for spec in argv[3:]:
        label, _, text = spec.partition("=")
        knobs = dict(item.split(":", 1) for item in text.split("/") if item)
        if label in ("numpy", "numpy1"):
            runners[label] = (sk.numpy_func if label == "numpy" else one_blas_thread(sk.numpy_func), knobs)
            continue
        with knobs_set(knobs):
            kernel = polyfuse.kernel(sk.func, cache=False)
            for _ in range(12):
                kernel(*fresh(base))
        runners[label] = (kernel, knobs)
    best = {label: [float("inf")] * 3 for label in runners}
    walls: dict[str, list[float]] = {label: [] for label in runners}
    bounds: dict[str, list[float]] = {label: [] for label in runners}
    modes: dict[str, list[str]] = {label: [] for label in runners}
    loads = []
    for r in range(rounds):
        order = list(runners)[r % len(runners):] + list(runners)[:r % len(runners)]
        for label in order:
            run, knobs = runners[label]
            settle()
            with knobs_set(knobs):
                for _ in range(SERIES):
                    args = fresh(base)
                    wall, busiest, cpu, _, bound = call_times(run, args)
                    best[label] = [min(a, b) for a, b in zip(best[label], (wall, busiest, cpu))]
                    walls[label].append(wall)
                    bounds[label].append(bound)
                    if not label.startswith("numpy"):
                        ran = run.compile(*base).backend.blas_modes
                        modes[label].append("".join(ran[k][0] for k in sorted(ran)))
                        for out, k in positions.items():
                            ok, diff = close_enough(args[k], expected[out])
                            assert ok, (name, label, out, diff)
        loads.append(os.getloadavg()[0])
    print(f"{name} {preset}: {rounds} rounds x {SERIES} calls, load {min(loads):.1f}-{max(loads):.1f}; ms: "
          "min wall / min busiest thread CPU / min all threads' CPU / median wall / min, median bound / modes")
    for label, (wall, busiest, cpu) in best.items():
        common = collections.Counter(modes[label]).most_common(3)
        print(f"  {label:16s} {wall * 1e3:8.3f} {busiest * 1e3:8.3f} {cpu * 1e3:8.3f} "
              f"{statistics.median(walls[label]) * 1e3:8.3f} {min(bounds[label]) * 1e3:8.3f} "
              f"{statistics.median(bounds[label]) * 1e3:8.3f} {' '.join(f'{m}:{n}' for m, n in common)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
