"""numba, NumPy and polyfuse (its threads and one thread) on suite kernels, interleaved per round.

    python benchmarks/large_table.py 5 gemm,2mm,3mm [--preset large] [--no-numba]

`polyfuse bench` times each contender's repeats one after the other, so on a shared machine a
burst of another job's work lands on one contender only; here every round runs each contender
once, on fresh copies of the same inputs, after the process's own thread pools went quiet
(``measure.settle``: OpenBLAS spins ~0.1 s after a call), and the minimum over the rounds is
kept.  Outputs of the first polyfuse call and of NumPy's formulation are checked against numba's
(np.allclose, rtol 1e-7, as the bench).  Prints one markdown row per kernel, with the load
average at its start and end: numba / numpy / pf / pf 1T ms, numba/pf, numba/pf 1T, numpy/pf.
"""

from __future__ import annotations

import os
import sys
import time

import numba
import numpy as np

import polyfuse
from polyfuse.bench import measure, suite
from polyfuse.runtime import threads


def row(name: str, rounds: int, preset: str, with_numba: bool) -> str:
    sk = suite.get(name)
    base = sk.make_args(np.random.default_rng(0), **sk.sizes[preset])
    positions = measure.output_positions(sk.func, sk.outputs)
    load = _load()
    team, single = polyfuse.kernel(sk.func), polyfuse.kernel(sk.func)  # apart: each its own team record
    many = threads.get_num_threads()
    contenders = {"pf": (team, many), "pf 1T": (single, 1)}
    if with_numba:
        contenders["numba"] = (numba.njit(sk.func), many)
    if sk.numpy_func is not None:
        contenders["numpy"] = (sk.numpy_func, many)
    reference = measure.fresh(base)
    (contenders["numba"][0] if with_numba else team)(*reference)
    for label, (fn, _) in contenders.items():
        args = measure.fresh(base)
        if label == "numpy":
            got = suite.numpy_outputs(sk, args)
        else:
            fn(*args)
            got = {o: args[positions[o]] for o in sk.outputs}
        for o in sk.outputs:
            assert np.allclose(got[o], reference[positions[o]], rtol=1e-7), (name, label, o)
    times: dict[str, list[float]] = {label: [] for label in contenders}
    for _ in range(rounds):
        for label, (fn, count) in contenders.items():
            args = measure.fresh(base)
            threads.set_num_threads(count)
            measure.settle()
            start = time.perf_counter()
            fn(*args)
            times[label].append(time.perf_counter() - start)
    threads.set_num_threads(many)
    best = {label: min(v) * 1e3 for label, v in times.items()}
    cells = [_ms(best.get("numba")), _ms(best.get("numpy")), _ms(best["pf"]), _ms(best["pf 1T"]),
             _ratio(best.get("numba"), best["pf"]), _ratio(best.get("numba"), best["pf 1T"]),
             _ratio(best.get("numpy"), best["pf"])]
    return f"| {name} | " + " | ".join(cells) + f" | {load}-{_load()} |"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _ratio(num: float | None, den: float) -> str:
    return "-" if num is None else f"{num / den:.2f}x"


def _load() -> str:
    return open("/proc/loadavg").read().split()[0]


def main(argv: list[str]) -> None:
    rounds, names = int(argv[0]), argv[1].split(",")
    preset = argv[argv.index("--preset") + 1] if "--preset" in argv else "large"
    with_numba = "--no-numba" not in argv
    print(f"preset {preset}, min of {rounds} interleaved rounds, polyfuse threads "
          f"{threads.get_num_threads()}, POLYFUSE_DISABLE_CACHE={os.environ.get('POLYFUSE_DISABLE_CACHE', '')}")
    print("| kernel | numba ms | numpy ms | polyfuse ms | pf 1T ms | numba/pf | numba/pf 1T | numpy/pf | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in names:
        print(row(name, rounds, preset, with_numba), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
