"""A program that calls NumPy's multi-threaded OpenBLAS right before a polyfuse kernel for a
while, then calls the kernel alone: how many calls the runtime's team choice takes to come back
to the team once OpenBLAS's worker (which spins ~0.1 s after each call) is gone, with
``parallel.MOMENT`` as it is and set to 0 (the cost rule alone, before session 27).

    python benchmarks/team_after_numpy.py [PROGRAM] [ROUNDS] [beside=10] [alone=60]

Each round makes a fresh kernel per way (its runtime measures from scratch), the ways in turn
(which goes first alternates): ``beside`` calls each right after ``a @ a`` (600 x 600, NumPy's
BLAS threads), then, with no wait, ``alone`` calls.  Printed per way: the median over rounds of
the calls' total time in the ``alone`` stretch, and of the first call of that stretch from
which every parallel phase ran on the team for 3 calls in a row (-1: never), and the load.
The outputs are checked against NumPy's.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
from polyfuse.backends.cpu import parallel

import polyfuse
from polyfuse.bench.measure import settle
from polyfuse.bench.numpy_suite import PROGRAMS


def run_way(program, args, expected, moment: float, beside: int, alone: int) -> tuple[float, int]:
    parallel.MOMENT = moment
    kernel = polyfuse.kernel(program.func, cache=False)
    a = np.random.default_rng(1).random((600, 600))
    kernel(*args)  # the first call: serial measurements
    for _ in range(beside):
        a @ a
        kernel(*args)
    on_team = []
    began = time.perf_counter()
    for _ in range(alone):
        before = sum(kernel.compile(*args).backend.phase_runs.values())
        result = kernel(*args)
        on_team.append(sum(kernel.compile(*args).backend.phase_runs.values()) - before)
    total = time.perf_counter() - began
    np.testing.assert_allclose(result, expected, rtol=1e-9, atol=1e-12)
    full = max(on_team)
    back = next((k for k in range(alone - 2) if min(on_team[k:k + 3]) == full and full > 0), -1)
    return total, back


def main(argv: list[str]) -> None:
    name = argv[0] if argv else "attention"
    rounds = int(argv[1]) if len(argv) > 1 else 6
    options = dict(a.split("=", 1) for a in argv[2:])
    beside, alone = int(options.get("beside", 10)), int(options.get("alone", 60))
    program = PROGRAMS[name]
    args = program.args("bench")
    expected = program.func(*args)
    ways = {"MOMENT=0.25": 0.25, "MOMENT=0 (before)": 0.0}
    results: dict[str, list[tuple[float, int]]] = {w: [] for w in ways}
    for r in range(rounds):
        order = list(ways) if r % 2 == 0 else list(reversed(ways))
        for way in order:
            settle()
            results[way].append(run_way(program, args, expected, ways[way], beside, alone))
    print(f"{name}: {rounds} rounds of {beside} calls beside OpenBLAS's worker, then {alone} alone; "
          f"load {os.getloadavg()[0]:.2f}")
    for way, got in results.items():
        totals = [t for t, _ in got]
        backs = [b for _, b in got]
        print(f"  {way:18s} alone stretch: median {statistics.median(totals) * 1e3:7.1f} ms "
              f"(min {min(totals) * 1e3:7.1f}); back on the team from call {sorted(backs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
