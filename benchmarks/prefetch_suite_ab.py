"""Suite kernels with ``POLYFUSE_PREFETCH`` off and at a distance, interleaved in one process, one
thread: each kernel compiled both ways (the knob is read at compile time and is part of the cache
key), their outputs compared, then ``rounds`` rounds of one call each on fresh copies; printed
per kernel the least process CPU time of either and their ratio, with the load.

    python benchmarks/prefetch_suite_ab.py jacobi-2d,fdtd-2d,bicg,mvt 9 [bench|large] [256]

docs/performance.md, *Session 37: matrix-vector kernels against the triad (mv50)*.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.machine import set_polyfuse_threads


def fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def compiled(entry, args, distance: str):
    """The kernel compiled with POLYFUSE_PREFETCH=distance ('' unset), and its output on ``args``."""
    if distance:
        os.environ["POLYFUSE_PREFETCH"] = distance
    else:
        os.environ.pop("POLYFUSE_PREFETCH", None)
    try:
        kernel = polyfuse.kernel(entry.func)
        out = fresh(args)
        kernel(*out)
        kernel(*fresh(args))  # (a plan's later calls)
    finally:
        os.environ.pop("POLYFUSE_PREFETCH", None)
    return kernel, out


def main(argv: list[str]) -> None:
    names, rounds = argv[0].split(","), int(argv[1])
    preset = argv[2] if len(argv) > 2 else "bench"
    distance = argv[3] if len(argv) > 3 else "256"
    set_polyfuse_threads(1)
    cases = {}
    for name in names:
        entry = suite.get(name)
        args = entry.make_args(np.random.default_rng(0), **entry.sizes[preset])
        (off, out_off), (on, out_on) = compiled(entry, args, ""), compiled(entry, args, distance)
        same = all(np.allclose(a, b, rtol=1e-9, equal_nan=True)
                   for a, b in zip(out_off, out_on) if isinstance(a, np.ndarray))
        cases[name] = (off, on, args, same)
    best: dict[tuple[str, int], float] = {}
    for _ in range(rounds):
        for name, (off, on, args, _) in cases.items():
            for which, kernel in enumerate((off, on)):
                call = fresh(args)
                cpu = time.process_time()
                kernel(*call)
                cpu = time.process_time() - cpu
                best[(name, which)] = min(cpu, best.get((name, which), np.inf))
    for name, (*_, same) in cases.items():
        b, p = best[(name, 0)], best[(name, 1)]
        print(f"{name:16s} off {b * 1e3:9.3f} ms  {distance} {p * 1e3:9.3f} ms  ratio {p / b:5.3f}  same={same}")
    print(f"preset {preset}, min of {rounds} rounds, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
