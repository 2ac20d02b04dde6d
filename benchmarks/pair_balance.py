"""How evenly a pair of products run at once (``POLYFUSE_BLAS_PAIRS``, backends/cpu/parallel.py
``run_pair``) shares its two threads: 3mm's ``E = A @ B`` and ``F = C @ D`` with the rows forced,
each member's own CPU clock around its part of each pair run, the cut by measured CPU per row
(``POLYFUSE_BLAS_PAIR_BALANCE=1``) against each product whole on its own thread (0), alternated
in one process on the same kernel.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/pair_balance.py bench 15
    POLYFUSE_DISABLE_CACHE=1 python benchmarks/pair_balance.py large 4

Each round: ``measure.settle``, then 3 calls per setting on fresh inputs.  Prints per setting the
busier member's CPU time (min / median: the pair cannot end before it), the other member's
median and the pair's wall minimum, with the load.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
from polyfuse.backends.cpu import parallel

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import fresh, settle
from polyfuse.runtime import threads


class _TimedTeam:
    """``threads`` as parallel.py sees it, with ``run_team`` timing each member's CPU."""

    def __init__(self, log: list) -> None:
        self.log = log

    def __getattr__(self, name: str):
        return getattr(threads, name)

    def run_team(self, work, count: int, abort) -> None:
        cpu = [0.0] * count

        def timed(k: int) -> None:
            began = time.thread_time()
            work(k)
            cpu[k] = time.thread_time() - began

        began = time.perf_counter()
        threads.run_team(timed, count, abort)
        self.log.append((cpu, time.perf_counter() - began))


def main(preset: str, rounds: int) -> None:
    os.environ.update(POLYFUSE_BLAS_PAIRS="1", POLYFUSE_BLAS_THREADS="rows")
    threads.set_num_threads(2)
    log: list = []
    parallel.threads = _TimedTeam(log)  # type: ignore[assignment]
    sk = suite.get("3mm")
    base = sk.make_args(np.random.default_rng(0), **sk.sizes[preset])
    kernel = polyfuse.kernel(sk.func, cache=False)
    for _ in range(8):
        kernel(*fresh(base))
    runs: dict[str, list] = {"1": [], "0": []}
    for _ in range(rounds):
        for balance in runs:
            os.environ["POLYFUSE_BLAS_PAIR_BALANCE"] = balance
            settle()
            log.clear()
            for _ in range(3):
                kernel(*fresh(base))
            runs[balance].extend(log)
    print(f"3mm {preset}: {rounds} rounds x 3 calls, load {os.getloadavg()[0]:.1f}; ms")
    for balance, rs in runs.items():
        busier = [max(cpu) for cpu, _ in rs]
        other = [min(cpu) for cpu, _ in rs]
        print(f"  balance={balance}: busier member CPU {min(busier) * 1e3:.3f} / {statistics.median(busier) * 1e3:.3f}, "
              f"other {statistics.median(other) * 1e3:.3f}, pair wall min {min(w for _, w in rs) * 1e3:.3f} ({len(rs)} pair runs)")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
