"""One suite kernel, one compiled object, with runtime knobs set and unset in turn, against its
NumPy formulation, in one process: rounds of series (``SERIES`` calls on fresh copies after
``measure.settle``, as the bench times one), the three contenders in a rotated order.

    POLYFUSE_BLAS_THREADS=rows python benchmarks/knob_series_ab.py 3mm 20 POLYFUSE_NATIVE_PAIRS
    python benchmarks/knob_series_ab.py covariance 20 POLYFUSE_NATIVE_PAIRS,POLYFUSE_BLAS_READY_ROWS

For knobs read at run time (each pair's run, a call's first run on the rows), not at compile
time: contender ``on`` runs with every named knob "1", ``off`` with "0", the same kernel
object (its plans, measurements and native entries shared).  Prints each contender's min, 25th
percentile and median of the series' minima (wall ms) and NumPy's minimum over each, and the
BLAS call mode's record at the end.  Every output of every series is checked against NumPy's
(``measure.close_enough``).  ``PRESET=large`` for PolyBench LARGE.  On a loaded machine run it
in an autogroup of its own at nice -20 (``setsid``, then ``echo -20 > /proc/self/autogroup``),
and give the load.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import close_enough, fresh, settle

SERIES = int(os.environ.get("SERIES", "5"))


def main(name: str, rounds: int, knobs: list[str]) -> None:
    sk = suite.get(name)
    args = sk.make_args(np.random.default_rng(0), **sk.sizes[os.environ.get("PRESET", "bench")])
    kernel = polyfuse.kernel(sk.func, target="cpu")
    for _ in range(12):
        kernel(*fresh(args))
    want = fresh(args)
    assert sk.numpy_func is not None
    sk.numpy_func(*want)

    def series(fn) -> float:
        best = float("inf")
        for _ in range(SERIES):
            got = fresh(args)
            began = time.perf_counter()
            fn(*got)
            best = min(best, time.perf_counter() - began)
        for ours, theirs in zip(got, want):
            if isinstance(ours, np.ndarray):
                assert close_enough(ours, theirs)[0], name
        return best * 1e3

    times: dict[str, list[float]] = {"numpy": [], "on": [], "off": []}
    for r in range(rounds):
        for who in list(times)[r % 3:] + list(times)[:r % 3]:
            settle()
            if who == "numpy":
                times[who].append(series(sk.numpy_func))
                continue
            for knob in knobs:
                os.environ[knob] = "1" if who == "on" else "0"
            times[who].append(series(kernel))
    load = os.getloadavg()[0]
    for who, found in times.items():
        found.sort()
        print(f"{name} {who:6s} min {found[0]:.3f} p25 {found[len(found) // 4]:.3f} med {found[len(found) // 2]:.3f} ms")
    print(f"load {load:.1f}; NumPy/on {times['numpy'][0] / times['on'][0]:.3f}, NumPy/off "
          f"{times['numpy'][0] / times['off'][0]:.3f} (minima)")
    for title, records in kernel.compile(*args).backend.explain_sections():
        for record in records if title == "BLAS threads" else []:
            if record.get("call"):
                print("call mode:", record.get("chosen"), "best ms", record.get("best ms"), "runs", record.get("runs"))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","))
