"""Suite kernels against their NumPy formulations, interleaved in one process.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/numpy_gap.py 20 bench 3mm,covariance,attention_rows

Contenders: ``numpy`` (NumPy's OpenBLAS on its own threads), ``numpy1`` (one BLAS thread,
threadpoolctl), ``pf2`` (polyfuse on 2 threads) and ``pf1`` (polyfuse on one thread).  Each round
runs every contender in turn, each as ``polyfuse bench`` times one: the process's threads idle
first (``measure.settle``: OpenBLAS's spinning workers stop), then ``SERIES`` calls in a row on
fresh copies (made untimed); the minimum over all rounds is printed, with the median of the
rounds' minima, and NumPy's best (the faster of its two) over each polyfuse column.  Before the
rounds polyfuse's kernel runs ``WARM`` untimed calls (the bench's warm-up); every polyfuse output
is checked against the NumPy formulation's (``measure.close_enough``, the bench's tolerance).  Then each contender's process CPU time per call (every thread of the process: OpenBLAS's workers
spinning beside polyfuse's rows count), min and median over all calls.
``AB=POLYFUSE_BLAS_CALL_MODE:0`` adds ``pf2ab``: a second kernel on 2 threads (``AB_THREADS``)
whose calls, its compile among them, run with those knobs set.  For kernels with products whose library's threads are a candidate, how many
timed calls of pf2 (and pf2ab) mixed those threads with polyfuse's rows or one BLAS thread;
``MODES=1`` also prints each call's modes (one letter per product: l library, r rows, s serial).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
from knobs import one_blas_thread, with_knobs  # (benchmarks/knobs.py: this script's folder is on sys.path)

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import assert_close_outputs, fresh, output_positions, settle, warm_up
from polyfuse.runtime import threads

SERIES = int(os.environ.get("SERIES", "3"))
WARM = int(os.environ.get("WARM", "8"))


def _on_threads(kernel, count: int):
    def run(*args):
        with threads.limited_to(count):
            kernel(*args)

    return run


def _modes(kernel, base) -> str:
    backend = kernel.compile(*base).backend
    return "".join(backend.blas_modes[k][0] for k in sorted(backend.blas_modes))


def bench(name: str, preset: str, rounds: int) -> None:
    sk = suite.get(name)
    sizes = dict(sk.sizes[preset])
    base = sk.make_args(np.random.default_rng(0), **sizes)
    kernel = polyfuse.kernel(sk.func)
    contenders = {"numpy": sk.numpy_func, "numpy1": one_blas_thread(sk.numpy_func),
                  "pf2": _on_threads(kernel, 2), "pf1": _on_threads(kernel, 1)}
    kernels = {"pf2": kernel}  # whose BLAS modes are recorded per call
    alternative = os.environ.get("AB", "")
    if alternative:  # AB=KNOB:VALUE[,KNOB:VALUE]: a second polyfuse kernel on 2 threads with those knobs
        knobs = dict(item.split(":") for item in alternative.split(","))
        count = int(os.environ.get("AB_THREADS", "2"))
        kernels[f"pf{count}ab"] = polyfuse.kernel(sk.func)
        contenders[f"pf{count}ab"] = with_knobs(_on_threads(kernels[f"pf{count}ab"], count), knobs)
    positions = output_positions(sk.func, sk.outputs)
    expected = suite.numpy_outputs(sk, fresh(base))
    for label in [c for c in contenders if c.startswith("pf")]:
        warm_up(contenders[label], base, calls=WARM, max_seconds=5.0)
    times: dict[str, list[list[float]]] = {c: [] for c in contenders}
    modes: dict[str, list[str]] = {label: [] for label in kernels}
    cpus: dict[str, list[float]] = {c: [] for c in contenders}
    for r in range(rounds):
        order = list(contenders)[r % len(contenders):] + list(contenders)[:r % len(contenders)]
        for label in order:
            settle()
            series = []
            for _ in range(SERIES):
                args = fresh(base)
                cpu, began = time.process_time(), time.perf_counter()
                contenders[label](*args)
                series.append(time.perf_counter() - began)
                cpus[label].append(time.process_time() - cpu)
                if label in kernels:
                    modes[label].append(_modes(kernels[label], base))
            times[label].append(series)
            if label.startswith("pf"):
                assert_close_outputs(args, positions, expected, where=(name, label))
    best = {c: min(min(s) for s in v) * 1e3 for c, v in times.items()}
    median = {c: statistics.median(min(s) for s in v) * 1e3 for c, v in times.items()}
    numpy_best = min(best["numpy"], best["numpy1"])
    numpy_median = min(median["numpy"], median["numpy1"])
    load = open("/proc/loadavg").read().split()[0]
    print(f"{name} {preset} {sizes} load {load}, min (median of round minima) of {rounds} rounds x {SERIES}: "
          + "; ".join(f"{c} {best[c]:.3f} ({median[c]:.3f}) ms" for c in contenders)
          + "; " + ", ".join(f"NumPy/{c} {numpy_best / best[c]:.2f}x ({numpy_median / median[c]:.2f}x)"
                             for c in contenders if c.startswith("pf")), flush=True)
    print("  process CPU ms per call, min / median: " + "; ".join(
        f"{c} {min(v) * 1e3:.2f} / {statistics.median(v) * 1e3:.2f}" for c, v in cpus.items()))
    for label, ran in modes.items():
        if ran and ran[-1]:  # one letter per product: l library, r rows, s serial
            mixed = sum(1 for m in ran if "l" in m and set(m) - {"l"})
            print(f"  {label}: {mixed} of {len(ran)} timed calls mixed the library's threads with rows or serial"
                  + (": " + " ".join(ran) if os.environ.get("MODES") else ""))
    if os.environ.get("EXPLAIN"):
        for record in kernel.compile(*base).backend.explain_sections():
            print(" ", record)


def main(argv: list[str]) -> None:
    rounds, preset = int(argv[0]), argv[1]
    threads.set_num_threads(2)
    for name in argv[2].split(","):
        bench(name, preset, rounds)


if __name__ == "__main__":
    main(sys.argv[1:])
