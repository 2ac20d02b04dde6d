"""Suite kernels with a NumPy formulation against it, interleaved in one process, on one thread by
the calling thread's CPU time and on two threads by wall time, with polyfuse contenders that differ
in environment knobs.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/suite_numpy_cpu_ab.py 10 bench 2mm,3mm,doitgen
    POLYFUSE_DISABLE_CACHE=1 AB=POLYFUSE_BLAS_PRIOR:0 python benchmarks/suite_numpy_cpu_ab.py 10 bench 2mm

Contenders per kernel: ``numpy1`` (NumPy's formulation, one BLAS thread: ``runtime.linalg_library.blas_on_one_thread``), ``pf1``
(polyfuse on one thread, OpenBLAS held on one: ``bench.machine.polyfuse_on(1)``), ``numpy2``
(NumPy on its OpenBLAS threads), ``pf2`` (polyfuse on 2 threads, the BLAS modes measured as the
bench measures them: the first call, then the warm-up while ``in_trials``), and with
``AB=KNOB:VALUE[,...]`` ``pf2+ab`` (those knobs set during its calls, its compile among them).
Each round runs every contender in a rotated order, each ``SERIES`` calls in a row after
``measure.settle`` on fresh copies; a one-thread contender is timed by ``time.thread_time`` (one
thread does all its work: on a loaded machine the measure that moves least), a two-thread one by
the wall clock (its CPU time says nothing of how fast it ran).  Prints per kernel the min and the
median of the round minima, NumPy/polyfuse of the minima on each thread count, the load, and the
BLAS modes of pf2's timed calls.  Every polyfuse output of every round is checked against NumPy's
(``measure.close_enough``) and once against the user's function (numba).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numba
import numpy as np
from knobs import with_knobs  # (benchmarks/knobs.py: this script's folder is on sys.path)

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.machine import polyfuse_on
from polyfuse.bench.measure import (
    assert_close_outputs,
    blas_tallies,
    fresh,
    output_positions,
    settle,
    tallies_since,
    warm_up,
)
from polyfuse.runtime import threads
from polyfuse.runtime.linalg_library import blas_on_one_thread

SERIES = int(os.environ.get("SERIES", "3"))


def _one_thread(fn, on_polyfuse: bool):
    def run(*args):
        if on_polyfuse:
            with polyfuse_on(1):
                return fn(*args)
        with blas_on_one_thread():  # (NumPy's OpenBLAS, as polyfuse_on(1) holds it)
            return fn(*args)
    return run


def _ab() -> dict[str, str]:
    text = os.environ.get("AB", "")
    return dict(item.split(":", 1) for item in text.split(",")) if text else {}


def bench(name: str, preset: str, rounds: int) -> None:
    sk = suite.get(name)
    base = sk.make_args(np.random.default_rng(0), **sk.sizes[preset])
    kernels = {"pf2": polyfuse.kernel(sk.func)}
    contenders = {"numpy1": _one_thread(sk.numpy_func, False), "pf1": None, "numpy2": sk.numpy_func,
                  "pf2": kernels["pf2"]}
    if _ab():
        kernels["pf2+ab"] = polyfuse.kernel(sk.func)
        contenders["pf2+ab"] = with_knobs(kernels["pf2+ab"], _ab())
    contenders["pf1"] = _one_thread(kernels["pf2"], True)
    variants = {}
    for label, kernel in kernels.items():
        run = contenders[label]
        settle()
        run(*fresh(base))  # the first call: one BLAS thread, timed by the runtime
        variants[label] = kernel.compile(*base)
        trials = getattr(variants[label].backend, "in_trials", None)
        warm_up(run, base, trials=trials)
    warm_up(contenders["pf1"], base, calls=3)
    if os.environ.get("THREADS") == "1":  # the one-thread contenders alone
        contenders = {c: f for c, f in contenders.items() if c.endswith("1")}
    positions = output_positions(sk.func, sk.outputs)
    expected = suite.numpy_outputs(sk, fresh(base))
    user = list(fresh(base))
    numba.njit(sk.func)(*user)
    times: dict[str, list[float]] = {c: [] for c in contenders}
    before = {label: blas_tallies(v) for label, v in variants.items()}
    loads = []
    for r in range(rounds):
        loads.append(float(open("/proc/loadavg").read().split()[0]))
        order = list(contenders)[r % len(contenders):] + list(contenders)[:r % len(contenders)]
        for label in order:
            clock = time.thread_time if label.endswith("1") else time.perf_counter
            settle()
            series = []
            for _ in range(SERIES):
                args = fresh(base)
                began = clock()
                contenders[label](*args)
                series.append(clock() - began)
            times[label].append(min(series))
            if label.startswith("pf"):
                assert_close_outputs(args, positions, expected, user if r == 0 else None, (name, label))
    best = {c: min(v) * 1e3 for c, v in times.items()}
    median = {c: statistics.median(v) * 1e3 for c, v in times.items()}
    print(f"{name} {preset} load {min(loads):.1f}-{max(loads):.1f}, min (median of round minima) of {rounds} "
          f"rounds x {SERIES}, ms (1 thread: thread CPU; 2: wall): "
          + "; ".join(f"{c} {best[c]:.3f} ({median[c]:.3f})" for c in contenders), flush=True)
    ratios = [f"1 thread {best['numpy1'] / best['pf1']:.2f}x (medians {median['numpy1'] / median['pf1']:.2f}x)"]
    if "numpy2" in best:
        numpy2 = min(best["numpy1"], best["numpy2"])  # (the bench's NumPy column: its best of 1 and 2 BLAS threads)
        for label in kernels:
            ratios.append(f"{label} {numpy2 / best[label]:.2f}x (NumPy's 1-thread CPU among its times)")
    print("  NumPy/polyfuse: " + ", ".join(ratios))
    for label, variant in variants.items():
        # (the kernel ``pf2`` is ``pf1``'s too: its "blas call 1" site is pf1's)
        print(f"  {label} BLAS modes of the timed calls: {tallies_since(before[label], blas_tallies(variant))}")


def main(argv: list[str]) -> None:
    rounds, preset = int(argv[0]), argv[1]
    threads.set_num_threads(2)
    for name in argv[2].split(","):
        bench(name, preset, rounds)


if __name__ == "__main__":
    main(sys.argv[1:])
