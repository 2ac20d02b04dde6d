"""One suite kernel's calls on the bench's fresh copies with its parallel phases on the team
(forced), serial (forced) or as the runtime measures (``RegionTimes``), in three kinds of series:
fresh copies before each call (the bench's way), the same arrays back to back, and each call right
after NumPy's formulation (its OpenBLAS workers then spin beside the team).

    python benchmarks/team_choice_fresh.py atax team|serial|measured [rounds]

Prints the min / p25 / median ms of each kind.  Where "measured" reads like "serial" while "team"
is faster, the runtime's choice of serial is the loss (session 39, pf53: atax at load 10.5-10.8,
fresh copies: team 2.98, serial 5.25, measured 5.29 ms by the 25th percentile; a second run at
load 10.6: 3.13, 5.35, 3.05, the team chosen).  On a loaded machine run it in an autogroup of its
own at nice -20 and give the load.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from polyfuse.backends.cpu import parallel

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import fresh, settle


def main(name: str, mode: str, rounds: int) -> None:
    sk = suite.get(name)
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["bench"])
    if mode == "team":
        parallel.RegionTimes.use_team = lambda times: times.worth_threads
    elif mode == "serial":
        parallel.RegionTimes.use_team = lambda times: False
    kernel = polyfuse.kernel(sk.func)
    for _ in range(10):
        kernel(*fresh(args))
    runs: dict[str, list[float]] = {"fresh": [], "same": [], "after numpy": []}
    same = fresh(args)
    assert sk.numpy_func is not None
    for _ in range(rounds):
        for kind, values in runs.items():
            settle()
            for _ in range(5):
                got = same if kind == "same" else fresh(args)
                if kind == "after numpy":
                    sk.numpy_func(*fresh(args))
                began = time.perf_counter()
                kernel(*got)
                values.append(time.perf_counter() - began)
    print(name, mode, f"load {os.getloadavg()[0]:.1f}", "  ".join(
        f"{kind} min {min(v) * 1e3:.2f} p25 {np.percentile(v, 25) * 1e3:.2f} median {np.median(v) * 1e3:.2f}"
        for kind, v in runs.items()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 8)
