"""The bench's polyfuse-against-NumPy comparison of suite kernels, repeated: is a ratio below 1 the
mode choice, or the window each side was timed in?

    python benchmarks/bench_numpy_windows.py 3mm,2mm,covariance,syrk [reps=6] [preset=bench]

Each repetition makes a fresh polyfuse kernel (disk cache on: only the runtime's measurements are
new) and times it as ``polyfuse bench`` does (``measure.settle``, the first call, ``warm_up``,
then a series of at least ``REPEATS`` calls and ``MIN_TIME`` seconds after ``settle``), and NumPy's
formulation as the bench does (``settle``, a series on its OpenBLAS threads as configured), in
alternating order (polyfuse first in even repetitions); with ``ROUNDS=R`` R series of each, in
turn (A B B A ...), each side's minimum over its series.  For each polyfuse series it prints the
timed calls' modes (one letter per call: r rows, l library, s one BLAS thread, e a native entry's
call on the library's threads, unmeasured; upper case: the series' fastest call) and the
series' minimum; then NumPy's minimum and the ratio.  Finally the min and median of the ratios
and of the two sides' minima, and the load before and after.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.machine import polyfuse_on
from polyfuse.bench.measure import fresh, settle, warm_up
from polyfuse.runtime import threads

REPEATS = int(os.environ.get("REPEATS", "5"))
MIN_TIME = float(os.environ.get("MIN_TIME", "0.05"))
ROUNDS = int(os.environ.get("ROUNDS", "1"))
#: ``AS_BENCH=1``: as ``polyfuse bench`` since session 35: a first polyfuse series, one on one thread
#: (``polyfuse_on(1)``), then the rounds, NumPy on 2 BLAS threads and on 1 (threadpoolctl) in each
AS_BENCH = os.environ.get("AS_BENCH", "") == "1"


def plans():
    """NumPy's BLAS thread counts, each a ``with`` block around one series (AS_BENCH: 2 and 1)."""
    if not AS_BENCH:
        yield
        return
    import threadpoolctl

    yield
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        yield  # series of each side per repetition, in turn (A B B A ...)


def series(fn, args: tuple, trace=None) -> tuple[float, str]:
    """``measure.best_time``'s series (settle, then >= REPEATS calls and MIN_TIME seconds), and the
    modes of its calls where ``trace`` gives the kernel's ``BlasTimes``."""
    settle()
    best, total, runs, letters, times = float("inf"), 0.0, 0, [], []
    while runs < REPEATS or total < MIN_TIME:
        call_args = fresh(args)
        before = dict(trace().tally) if trace is not None and trace() is not None else None
        start = time.perf_counter()
        fn(*call_args)
        elapsed = time.perf_counter() - start
        if before is not None:
            after = trace().tally
            ran = [m for m in after if after[m] != before.get(m, 0)]
            letters.append(ran[0][0] if ran else "e")
        times.append(elapsed)
        best, total, runs = min(best, elapsed), total + elapsed, runs + 1
    if letters:
        k = times.index(best)
        letters[k] = letters[k].upper()
    return best, "".join(letters)


def one(name: str, preset: str, polyfuse_first: bool) -> tuple[float, float, str]:
    sk = suite.get(name)
    inputs = sk.make_args(np.random.default_rng(0), **sk.sizes[preset])
    kernel = polyfuse.kernel(sk.func)
    variant = kernel.compile(*fresh(inputs))
    backend = variant.backend

    def trace():
        for key, times in backend.phase_times.items():
            if key[0] == "blas call":
                return times
        return None

    settle()
    kernel(*fresh(inputs))
    warm_up(kernel, inputs, trials=backend.in_trials)
    best = {"polyfuse": float("inf"), "numpy": float("inf")}
    modes = []
    if AS_BENCH:
        first, letters = series(kernel, inputs, trace)
        modes.append(f"first {first * 1e3:.3f} {letters}")
        with polyfuse_on(1):
            warm_up(kernel, inputs, trials=backend.in_trials)
            series(kernel, inputs)
    for r in range(ROUNDS):
        order = ("polyfuse", "numpy") if polyfuse_first == (r % 2 == 0) else ("numpy", "polyfuse")
        for who in order:
            if who == "polyfuse":
                seconds, letters = series(kernel, inputs, trace)
                modes.append(letters)
            else:
                seconds = min(series(sk.numpy_func, inputs)[0] for _ in plans())
            best[who] = min(best[who], seconds)
    return best["polyfuse"], best["numpy"], "|".join(modes)


def main(argv: list[str]) -> None:
    names = argv[0].split(",")
    reps = int(argv[1]) if len(argv) > 1 else 6
    preset = argv[2] if len(argv) > 2 else "bench"
    threads.set_num_threads(2)
    print("load before", open("/proc/loadavg").read().split()[0], flush=True)
    for name in names:
        ratios, pf, np_ = [], [], []
        for r in range(reps):
            p, n, modes = one(name, preset, r % 2 == 0)
            ratios.append(n / p)
            pf.append(p)
            np_.append(n)
            print(f"  {name} rep {r} ({'pf first' if r % 2 == 0 else 'np first'}): polyfuse {p * 1e3:.3f} ms "
                  f"[{modes}], numpy {n * 1e3:.3f} ms, np/pf {n / p:.2f}x", flush=True)
        print(f"{name} {preset}: np/pf min {min(ratios):.2f}x median {statistics.median(ratios):.2f}x "
              f"max {max(ratios):.2f}x; polyfuse min {min(pf) * 1e3:.3f} median {statistics.median(pf) * 1e3:.3f}, "
              f"numpy min {min(np_) * 1e3:.3f} median {statistics.median(np_) * 1e3:.3f} ms", flush=True)
    print("load after", open("/proc/loadavg").read().split()[0], flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
