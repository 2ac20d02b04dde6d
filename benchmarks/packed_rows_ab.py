"""polyfuse with POLYFUSE_PACKED_ROWS at several values against numba, interleaved in one process.

    POLYFUSE_NUM_THREADS=1 taskset -c 0 python benchmarks/packed_rows_ab.py cholesky 2000 5 1 32,16,0
    POLYFUSE_NUM_THREADS=2 python benchmarks/packed_rows_ab.py cholesky 2000 5 2 32,0

Arguments: suite kernel, n, rounds, threads, knob values.  Each value compiles its own kernel (the
knob is part of the options key); every contender's output is compared bit for bit with the first
one's before timing; each round runs every contender once on fresh copies.  One thread: process
CPU time (pin it with taskset); more: wall time.  Prints the load and the min per contender, ms.
"""


from __future__ import annotations

import os
import sys
import time

import numba
import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads


def fresh(args: tuple) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def main(argv: list[str]) -> None:
    name, n, rounds, count = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    sk = suite.get(name)
    base = sk.make_args(np.random.default_rng(0), n=n)
    fns = {}
    for value in argv[4].split(","):
        os.environ["POLYFUSE_PACKED_ROWS"] = value
        kernel = polyfuse.kernel(sk.func)
        kernel.compile(*fresh(base))
        fns[f"pf{value}"] = kernel
    os.environ.pop("POLYFUSE_PACKED_ROWS")
    fns["numba"] = numba.njit(sk.func)
    threads.set_num_threads(count)
    reference = None
    for label, fn in fns.items():
        args = fresh(base)
        fn(*args)
        if reference is None:
            reference = args
        for got, want in zip(args, reference):
            if isinstance(got, np.ndarray):
                assert got.tobytes() == want.tobytes(), label
    clock = time.process_time if count == 1 else time.perf_counter
    times: dict[str, list[float]] = {label: [] for label in fns}
    for _ in range(rounds):
        for label, fn in fns.items():
            args = fresh(base)
            start = clock()
            fn(*args)
            times[label].append(clock() - start)
    load = open("/proc/loadavg").read().split()[0]
    print(load, {label: round(min(v) * 1e3, 1) for label, v in times.items()})


if __name__ == "__main__":
    main(sys.argv[1:])
