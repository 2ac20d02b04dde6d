"""``POLYFUSE_BLAS_SCALE_FOLD`` on and off for suite kernels on one thread (polyfuse's threads
and NumPy's BLAS at 1), interleaved in one process: the process CPU time of each call, min and
median over rounds, the kernel's NumPy formulation beside them; each output checked against the
NumPy formulation's.

    taskset -c 1 python benchmarks/scale_fold_ab.py covariance,correlation 40 [preset]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
import threadpoolctl

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.machine import set_polyfuse_threads
from polyfuse.bench.measure import close_enough, fresh, output_positions


def compiled(func, fold: str):
    os.environ["POLYFUSE_BLAS_SCALE_FOLD"] = fold
    try:
        return polyfuse.kernel(func, cache=False)
    finally:
        del os.environ["POLYFUSE_BLAS_SCALE_FOLD"]


def main(argv: list[str]) -> None:
    names, rounds = argv[0].split(","), int(argv[1])
    preset = argv[2] if len(argv) > 2 else "bench"
    threadpoolctl.threadpool_limits(1)
    set_polyfuse_threads(1)
    for name in names:
        sk = suite.get(name)
        base = sk.make_args(np.random.default_rng(0), **sk.sizes[preset])
        expected = fresh(base)
        sk.numpy_func(*expected)
        positions = output_positions(sk.func, sk.outputs)
        runs = {"fold": compiled(sk.func, "1"), "kept": compiled(sk.func, "0"), "numpy": sk.numpy_func}
        for label, run in runs.items():
            for _ in range(3):
                args = fresh(base)
                run(*args)
            if label != "numpy":
                assert all(close_enough(args[p], expected[p])[0] for p in positions.values()), label
        times: dict[str, list[float]] = {label: [] for label in runs}
        for k in range(rounds):
            for label in list(runs)[k % 3:] + list(runs)[:k % 3]:
                args = fresh(base)
                began = time.process_time()
                runs[label](*args)
                times[label].append(time.process_time() - began)
        load = open("/proc/loadavg").read().split()[0]
        text = ", ".join(f"{label} {min(t) * 1e3:.3f} / {statistics.median(t) * 1e3:.3f}" for label, t in times.items())
        print(f"{name} ({preset}, one thread, process CPU ms min / median of {rounds}, load {load}): {text}")


if __name__ == "__main__":
    main(sys.argv[1:])
