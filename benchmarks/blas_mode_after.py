"""What a BLAS mode costs the call after it.

    ROUNDS=25 python benchmarks/blas_mode_after.py

3mm (bench size, 2 polyfuse threads) with every product forced onto the library's threads or onto
polyfuse's rows (``POLYFUSE_BLAS_THREADS``, read at a site's first measurement), each call timed
right after a call of the same or of the other kernel; prints the process CPU time and the wall
time (min / median over the rounds) of each pair.  A rows call right after a library call shares
the cores with OpenBLAS's workers, which spin for about 0.1 s after a call on its threads: the
process CPU time of that call counts their spinning.
"""

from __future__ import annotations

import os
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads


def main() -> None:
    threads.set_num_threads(2)
    sk = suite.get("3mm")
    base = sk.make_args(np.random.default_rng(0), **sk.sizes["bench"])

    def fresh() -> list:
        return [a.copy() if isinstance(a, np.ndarray) else a for a in base]

    kernels = {}
    for mode in ("library", "rows"):
        os.environ["POLYFUSE_BLAS_THREADS"] = mode
        kernel = polyfuse.kernel(sk.func, cache=False)
        kernel(*fresh())
        kernel(*fresh())
        kernels[mode] = kernel
    os.environ.pop("POLYFUSE_BLAS_THREADS")
    pairs = (("library", "rows"), ("rows", "rows"), ("rows", "library"), ("library", "library"))
    times: dict[tuple[str, str], list[tuple[float, float]]] = {pair: [] for pair in pairs}
    for _ in range(int(os.environ.get("ROUNDS", "20"))):
        for first, second in pairs:
            before, timed = fresh(), fresh()
            kernels[first](*before)
            cpu, wall = time.process_time(), time.perf_counter()
            kernels[second](*timed)
            times[(first, second)].append((time.process_time() - cpu, time.perf_counter() - wall))
    for (first, second), runs in times.items():
        cpu = sorted(c for c, _ in runs)
        wall = sorted(w for _, w in runs)
        print(f"{second} after {first}: CPU min / median {cpu[0] * 1e3:.2f} / {cpu[len(cpu) // 2] * 1e3:.2f} ms, "
              f"wall {wall[0] * 1e3:.2f} / {wall[len(wall) // 2] * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
