"""One suite kernel compiled twice, with a compile-time knob on and off (two kernel objects: the
knob is part of the disk cache's key), timed in turn with NumPy's formulation, in one process:
rounds of series (``SERIES`` calls on fresh copies after ``measure.settle``), the contenders in a
rotated order; every output checked against NumPy's (``measure.close_enough``).

    python benchmarks/compiled_knob_series_ab.py covariance 20 POLYFUSE_MIRROR_EPILOGUE
    POLYFUSE_BLAS_THREADS=rows python benchmarks/compiled_knob_series_ab.py covariance 20 POLYFUSE_MIRROR_EPILOGUE
    THREADS=1 python benchmarks/compiled_knob_series_ab.py covariance 20 POLYFUSE_MIRROR_EPILOGUE

Prints each contender's min, 25th percentile and median of the series' minima: wall ms, or with
``THREADS=1`` (polyfuse and NumPy's BLAS on one thread) the calling thread's CPU ms.
``PRESET=large`` for PolyBench LARGE.  On a loaded machine run it in an autogroup of its own at
nice -20 (``setsid``, then ``echo -20 > /proc/self/autogroup``), and give the load.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import close_enough, fresh, settle
from polyfuse.runtime.linalg_library import blas_on_one_thread

SERIES = int(os.environ.get("SERIES", "5"))
ONE_THREAD = os.environ.get("THREADS") == "1"


def compiled(sk, args, knobs: list[str], value: str):
    """A kernel object whose first call (its compile) ran with every knob set to ``value``."""
    saved = {k: os.environ.get(k) for k in knobs}
    os.environ.update({k: value for k in knobs})
    try:
        kernel = polyfuse.kernel(sk.func, target="cpu")
        kernel(*fresh(args))
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    for _ in range(12):
        kernel(*fresh(args))
    return kernel


def main(name: str, rounds: int, knobs: list[str]) -> None:
    with contextlib.ExitStack() as stack:
        _main(stack, name, rounds, knobs)


def _main(stack: contextlib.ExitStack, name: str, rounds: int, knobs: list[str]) -> None:
    sk = suite.get(name)
    args = sk.make_args(np.random.default_rng(0), **sk.sizes[os.environ.get("PRESET", "bench")])
    if ONE_THREAD:
        polyfuse.set_num_threads(1)
        stack.enter_context(blas_on_one_thread())
    contenders = {"numpy": sk.numpy_func, "on": compiled(sk, args, knobs, "1"), "off": compiled(sk, args, knobs, "0")}
    want = fresh(args)
    assert sk.numpy_func is not None
    sk.numpy_func(*want)
    clock = time.thread_time if ONE_THREAD else time.perf_counter

    def series(fn) -> float:
        best = float("inf")
        for _ in range(SERIES):
            got = fresh(args)
            began = clock()
            fn(*got)
            best = min(best, clock() - began)
        for ours, theirs in zip(got, want):
            if isinstance(ours, np.ndarray):
                assert close_enough(ours, theirs)[0], name
        return best * 1e3

    times: dict[str, list[float]] = {who: [] for who in contenders}
    for r in range(rounds):
        order = list(contenders)[r % 3:] + list(contenders)[:r % 3]
        for who in order:
            settle()
            times[who].append(series(contenders[who]))
    print(f"load {os.getloadavg()[0]:.1f}")
    for who, values in times.items():
        v = np.array(values)
        print(f"{name} {who:6s} min {v.min():.3f}  p25 {np.percentile(v, 25):.3f}  median {np.median(v):.3f} ms"
              + (" (thread CPU)" if ONE_THREAD else ""))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","))
