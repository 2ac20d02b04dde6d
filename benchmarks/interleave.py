"""Interleaving off (``interleave=False``) / default (polyfuse.passes.interleave), one process,
alternating runs, min of repeats.

    POLYFUSE_NUM_THREADS=1 python benchmarks/interleave.py [kernels] [preset]

``kernels``: comma-separated suite names (default: the suite kernels with a float reduction that is
interleaved: inside a parallel loop, or atax's and bicg's sequential row loop); ``preset``: test, quick or bench (default bench).  Also checks that both
versions give bitwise-equal outputs.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite

DEFAULT = "mvt,gemver,gesummv,syr2k,atax,bicg,softmax,attention_rows"


def best_ms(kernel, args, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        kernel(*args)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def main(names: str = DEFAULT, preset: str = "bench") -> None:
    print(f"{'kernel':18s} {'off ms':>9s} {'on ms':>9s} {'on/off speedup':>15s}  bitwise equal  interleaved loops")
    for name in names.split(","):
        entry = suite.get(name)
        args = entry.make_args(np.random.default_rng(0), **entry.sizes[preset])
        kernels = {on: polyfuse.kernel(entry.func, interleave=None if on else False) for on in (False, True)}
        times: dict[bool, list[float]] = {False: [], True: []}
        outputs = {}
        for k in kernels.values():  # compile and warm up
            k(*fresh(args))
        for _ in range(5):
            for on, k in kernels.items():
                outputs[on] = fresh(args)
                times[on].append(best_ms(k, outputs[on], 3))
        same = all(np.array_equal(a, b) for a, b in zip(outputs[False], outputs[True]) if isinstance(a, np.ndarray))
        off, on = min(times[False]), min(times[True])
        loops = [(d["loop"], d["copies"]) for d in kernels[True].explain(*fresh(args))["interleaved loops"]]
        print(f"{name:18s} {off:9.3f} {on:9.3f} {off / on:14.2f}x  {same!s:13s}  {loops}")


if __name__ == "__main__":
    main(*sys.argv[1:])
