"""A/B of the strength flag a returned ``m = max(m, x[i])`` sets in place (fe39): ``flagged``
returns ``m`` by name (the flag follows the operand max keeps, so the loop is serial), ``plain``
returns ``m * 1`` (no flag: the loop as before).  Interleaved runs, min of each, thread CPU time.

    POLYFUSE_NUM_THREADS=1 python benchmarks/fe39_choice_flag.py
"""

import time

import numpy as np

import polyfuse


def flagged(x):
    m = 0
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m


def plain(x):
    m = 0
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m * 1


def main() -> None:
    x = np.random.default_rng(0).integers(-1000, 1000, 4_000_000).astype(np.int32)
    kernels = {"flagged": polyfuse.kernel(flagged, target="cpu"), "plain": polyfuse.kernel(plain, target="cpu")}
    best = {name: float("inf") for name in kernels}
    for k in kernels.values():
        k(x)
    for _ in range(15):
        for name, k in kernels.items():
            t = time.thread_time()
            k(x)
            best[name] = min(best[name], time.thread_time() - t)
    for name, t in best.items():
        print(f"{name:8} {t * 1e3:7.2f} ms (n = {x.shape[0]})")


if __name__ == "__main__":
    main()
