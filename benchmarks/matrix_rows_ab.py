"""NumPy matrix-vector rows interleaved 8 at a time (passes/interleave.py ``matrix_row``) against one
row at a time, interleaved in one process, with an A/A pair to show the noise.

    POLYFUSE_DISABLE_CACHE=1 POLYFUSE_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        python benchmarks/matrix_rows_ab.py ROUNDS N KERNEL

KERNEL is one of benchmarks/gemv.py's NumPy programs (gesummv, gemver, nbody_acc, ...).  Three
kernels of it: two compiled with the rows of a matrix-vector product one at a time (the rule before
session 17: A and A'), one with the default (8 side by side), and NumPy; each checked against NumPy
(relative error printed), then called in turns (each way first in turn), min and median per way.
"""

from __future__ import annotations

import copy
import sys
import time

import numpy as np
from gemv import cases, rel_error

import polyfuse
from polyfuse.passes import interleave


def main(rounds: int, n: int, name: str) -> None:
    fn, args = next((f, a) for f, a in cases(n, np.random.default_rng(0)).items() if f.__name__ == name)
    rule = interleave._Interleaver.matrix_row
    ways: dict = {}
    for label, rows in (("A one row", False), ("A' one row", False), ("B 8 rows", True)):
        interleave._Interleaver.matrix_row = rule if rows else (lambda self, stmt, call, it: False)  # type: ignore[method-assign]
        try:
            kernel = polyfuse.kernel(fn)
            kernel(*copy.deepcopy(args))  # compiles under this rule
        finally:
            interleave._Interleaver.matrix_row = rule  # type: ignore[method-assign]
        ways[label] = kernel
    expected = fn(*copy.deepcopy(args))
    print({label: f"{rel_error(expected, k(*copy.deepcopy(args))):.1e}" for label, k in ways.items()})
    ways["numpy"] = fn
    times: dict[str, list[float]] = {label: [] for label in ways}
    order = list(ways)
    writes = name in ("mvt", "gemver")  # they update their arguments: fresh copies (untimed)
    for turn in range(rounds):
        for label in order[turn % len(order):] + order[:turn % len(order)]:
            call_args = copy.deepcopy(args) if writes else args
            start = time.perf_counter()
            ways[label](*call_args)
            times[label].append(time.perf_counter() - start)
    nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
    with open("/proc/loadavg") as load:
        print(f"{name} N = {n}, {polyfuse.get_num_threads()} thread(s), load {' '.join(load.read().split()[:3])}")
    for label, seconds in times.items():
        print(f"  {label:12s} min {min(seconds) * 1e3:8.3f} ms ({nbytes / min(seconds) / 1e9:5.1f} GB/s), "
              f"median {np.median(seconds) * 1e3:8.3f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
