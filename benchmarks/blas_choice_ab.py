"""Whether the measured BLAS mode is the fastest one: every mode forced, the measured choice with
fair trials (the default) and without (``POLYFUSE_BLAS_FAIR_TRIALS=0``), and NumPy, in one process.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/blas_choice_ab.py 15 bench gemm,3mm,covariance
    POLYFUSE_DISABLE_CACHE=1 AB=POLYFUSE_BLAS_ROBUST_CHOICE:0 python benchmarks/blas_choice_ab.py 10 'large*1.5' 3mm

(``PRESET*F``: the preset's sizes times F, rounded; ``DROP=unfair,rows+ab``: those contenders left out.)

Contenders per kernel: ``numpy`` (its OpenBLAS threads), ``numpy1`` (one BLAS thread,
threadpoolctl), ``library`` / ``rows`` / ``serial`` (a polyfuse kernel per
``POLYFUSE_BLAS_THREADS`` mode, read at its first measurement), ``fair`` (the measured choice) and
``unfair`` (the measured choice with ``POLYFUSE_BLAS_FAIR_TRIALS=0`` set during its calls), all
polyfuse kernels on 2 threads.  Each kernel first runs as the bench runs one (the process idle,
the first call, ``WARM`` untimed calls); then each round runs every contender in a rotated order,
each as the bench does (``measure.settle``, then ``SERIES`` calls in a row on fresh copies).
``AB=POLYFUSE_BLAS_PAIRS:1`` adds "rows+ab" and "fair+ab": the rows forced and the measured choice
with those knobs set during their calls (their compile among them).
Prints the min and the median of the round minima of each, NumPy's best (of its 2 and 1 BLAS
threads) over each, and for the measured kernels the mode of each timed call (one letter per
call: the latest run of the call's measurement, ``explain``'s "BLAS threads" record; l library,
r rows, s serial; a call of a native entry on the library's threads, unmeasured, repeats the
letter before it) with the timed calls per mode (the record's ``runs``) and the mode they chose at the end.  Every polyfuse output of every round is
checked against NumPy's (``measure.close_enough``) and once against the user's function (Numba).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numba
import numpy as np
from knobs import one_blas_thread, with_knobs  # (benchmarks/knobs.py: this script's folder is on sys.path)

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import assert_close_outputs, fresh, output_positions, settle, warm_up
from polyfuse.runtime import threads

SERIES = int(os.environ.get("SERIES", "3"))
WARM = int(os.environ.get("WARM", "4"))
DROP = set(filter(None, os.environ.get("DROP", "").split(",")))  # polyfuse contenders left out


def _call_record(kernel, base) -> dict:
    backend = kernel.compile(*base).backend
    for _, records in backend.explain_sections():
        for record in records if isinstance(records, list) else []:
            if isinstance(record, dict) and record.get("call") == "every product":
                return record
    return {}


def _ab() -> list[tuple[str, dict[str, str]]]:
    """``AB=KNOB:VALUE[,KNOB:VALUE]``: two more contenders, "rows+ab" and "fair+ab", with those knobs
    set during every call (their compile among them)."""
    text = os.environ.get("AB", "")
    if not text:
        return []
    knobs = dict(item.split(":", 1) for item in text.split(","))
    return [("rows+ab", {"POLYFUSE_BLAS_THREADS": "rows", **knobs}), ("fair+ab", knobs)]


def _sizes(sk, preset: str) -> dict[str, int]:
    """The preset's sizes, or ``PRESET*F``'s: each times F (``large*1.5``: sizes in no preset)."""
    name, _, factor = preset.partition("*")
    return {k: round(v * float(factor or 1)) for k, v in sk.sizes[name].items()}


def bench(name: str, preset: str, rounds: int) -> None:
    sk = suite.get(name)
    base = sk.make_args(np.random.default_rng(0), **_sizes(sk, preset))
    contenders = {"numpy": sk.numpy_func, "numpy1": one_blas_thread(sk.numpy_func)}
    kernels = {}
    for label, knobs in (("library", {"POLYFUSE_BLAS_THREADS": "library"}),
                         ("rows", {"POLYFUSE_BLAS_THREADS": "rows"}),
                         ("serial", {"POLYFUSE_BLAS_THREADS": "serial"}),
                         ("fair", {}), ("unfair", {"POLYFUSE_BLAS_FAIR_TRIALS": "0"}), *_ab()):
        if label in DROP:
            continue
        kernels[label] = polyfuse.kernel(sk.func)
        contenders[label] = with_knobs(kernels[label], knobs)
        settle()
        contenders[label](*fresh(base))  # the first call: one BLAS thread, timed by the runtime
        warm_up(contenders[label], base, calls=WARM, max_seconds=5.0)
    positions = output_positions(sk.func, sk.outputs)
    expected = suite.numpy_outputs(sk, fresh(base))
    user = list(fresh(base))
    numba.njit(sk.func)(*user)
    tally = {label: dict(_call_record(kernels[label], base).get("runs", {})) for label in kernels}
    times: dict[str, list[float]] = {c: [] for c in contenders}
    ran: dict[str, list[str]] = {label: [] for label in kernels if label.startswith(("fair", "unfair"))}
    for r in range(rounds):
        order = list(contenders)[r % len(contenders):] + list(contenders)[:r % len(contenders)]
        for label in order:
            settle()
            series = []
            for _ in range(SERIES):
                args = fresh(base)
                began = time.perf_counter()
                contenders[label](*args)
                series.append(time.perf_counter() - began)
                if label in ran:
                    ran[label].append((_call_record(kernels[label], base).get("latest") or "?")[0])
            times[label].append(min(series))
            if label in kernels:
                assert_close_outputs(args, positions, expected, user if r == 0 else None, (name, label))
    best = {c: min(v) * 1e3 for c, v in times.items()}
    median = {c: statistics.median(v) * 1e3 for c, v in times.items()}
    numpy_best = min(best["numpy"], best["numpy1"])
    load = open("/proc/loadavg").read().split()[0]
    print(f"{name} {preset} load {load}, min (median of round minima) of {rounds} rounds x {SERIES}: "
          + "; ".join(f"{c} {best[c]:.3f} ({median[c]:.3f})" for c in contenders) + " ms", flush=True)
    print("  NumPy/this: " + ", ".join(f"{c} {numpy_best / best[c]:.2f}x" for c in kernels))
    for label, modes in ran.items():
        record = _call_record(kernels[label], base)
        runs = {mode: n - tally[label].get(mode, 0) for mode, n in record.get("runs", {}).items()}
        if runs:  # (a native entry's calls on the library's threads are counted when it returns)
            runs["library, native entry, not yet counted"] = len(modes) - sum(runs.values())
        print(f"  {label}: chose {record.get('chosen')} (best ms {record.get('best ms')}, "
              f"uncounted {record.get('uncounted', 0)}, timed calls per mode {runs}): {''.join(modes)}",
              flush=True)


def main(argv: list[str]) -> None:
    rounds, preset = int(argv[0]), argv[1]
    threads.set_num_threads(2)
    for name in argv[2].split(","):
        bench(name, preset, rounds)


if __name__ == "__main__":
    main(sys.argv[1:])
