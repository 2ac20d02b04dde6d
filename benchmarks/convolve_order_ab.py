"""np.convolve(x, w, mode) with both lengths arguments (the order the sizes do not prove): the
best per-call thread CPU time of the kernel, 2^20 x 31, after its native entry.  Run it under two
checkouts' interpreters in turn (A B A B) with POLYFUSE_NUM_THREADS=1 and separate caches:

    POLYFUSE_NUM_THREADS=1 POLYFUSE_CACHE_DIR=/tmp/c_a A/.venv/bin/python benchmarks/convolve_order_ab.py A
    POLYFUSE_NUM_THREADS=1 POLYFUSE_CACHE_DIR=/tmp/c_b B/.venv/bin/python benchmarks/convolve_order_ab.py B
"""

import sys
import time

import numpy as np

import polyfuse


def same(x, w):
    return np.convolve(x, w, "same")

def valid(x, w):
    return np.convolve(x, w, "valid")

x = np.random.default_rng(0).random(1 << 20)
w = np.random.default_rng(1).random(31)
out = {}
for f in (same, valid):
    k = polyfuse.kernel(f)
    for _ in range(5):
        k(x, w)
    best = 1e9
    for _ in range(15):
        t = time.thread_time()
        k(x, w)
        best = min(best, time.thread_time() - t)
    out[f.__name__] = best * 1e3
print(sys.argv[1], " ".join(f"{k}={v:.2f}ms" for k, v in out.items()))
