"""numba, NumPy and polyfuse (its threads and one thread) on suite kernels, interleaved per round.

    python benchmarks/large_table.py 5 gemm,2mm,3mm [--preset large] [--no-numba]

`polyfuse bench` times each contender's repeats one after the other, so on a shared machine a
burst of another job's work lands on one contender only; here every round runs each contender
once, on fresh copies of the same inputs, after the process's own thread pools went quiet
(``measure.settle``: OpenBLAS spins ~0.1 s after a call), and the minimum over the rounds is
kept.  A kernel whose one call is shorter than ``SHORT_CALL`` seconds is called several times per
round (each contender the same number, on fresh copies; the fastest call counts): jacobi-1d's
0.3 ms calls at LARGE measured 1.07x numba as the minimum of 5 single calls and 1.20-1.24x as the
minimum of 60, load 7 (docs/performance.md, session 27).  The polyfuse contenders are warmed up
first, untimed, as ``polyfuse bench`` does (``measure.warm_up``).  Outputs of the first
polyfuse call and of NumPy's formulation are checked against numba's (np.allclose, rtol 1e-7, as
the bench).  Prints one markdown row per kernel, with the load average at its start and end:
numba / numpy / pf / pf 1T ms, numba/pf, numba/pf 1T, numpy/pf.
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

#: a call shorter than this is repeated within a round (at most ``MAX_CALLS`` times), so that a
#: round of each contender lasts about this long
SHORT_CALL = 0.02
MAX_CALLS = 200


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
    for label in ("pf", "pf 1T"):
        threads.set_num_threads(contenders[label][1])
        measure.warm_up(contenders[label][0], base)
    threads.set_num_threads(many)
    calls = max(1, min(MAX_CALLS, int(SHORT_CALL / max(_per_call(contenders, with_numba, team, base), 1e-6))))
    times: dict[str, list[float]] = {label: [] for label in contenders}
    for _ in range(rounds):
        for label, (fn, count) in contenders.items():
            threads.set_num_threads(count)
            measure.settle()
            for _ in range(calls):
                args = measure.fresh(base)
                start = time.perf_counter()
                fn(*args)
                times[label].append(time.perf_counter() - start)
    threads.set_num_threads(many)
    best = {label: min(v) * 1e3 for label, v in times.items()}
    cells = [_ms(best.get("numba")), _ms(best.get("numpy")), _ms(best["pf"]), _ms(best["pf 1T"]),
             _ratio(best.get("numba"), best["pf"]), _ratio(best.get("numba"), best["pf 1T"]),
             _ratio(best.get("numpy"), best["pf"])]
    more = f" ({calls} calls a round)" if calls > 1 else ""
    return f"| {name} | " + " | ".join(cells) + f" | {load}-{_load()}{more} |"


def _per_call(contenders: dict, with_numba: bool, team, base: tuple) -> float:
    """The fastest of 3 calls of numba's function (polyfuse's where numba is left out)."""
    fn = contenders["numba"][0] if with_numba else team
    best = float("inf")
    for _ in range(3):
        args = measure.fresh(base)
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


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
