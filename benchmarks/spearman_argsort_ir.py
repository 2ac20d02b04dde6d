"""The LLVM IR hash and per-call thread CPU time of the corpus' spearman-style kernels (np.argsort
of np.argsort, argsort then a rank scatter), to compare two versions of the sort helpers
(frontend/builtin_helpers.py): run once per version, same machine, and compare the hashes (the
same IR is the same code) and the minima.

    POLYFUSE_NUM_THREADS=1 POLYFUSE_DISABLE_CACHE=1 python benchmarks/spearman_argsort_ir.py [--time]
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import numpy as np

import polyfuse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "corpus"))
import batch_fe35c  # noqa: E402
import batch_fe36b  # noqa: E402
import batch_fe41  # noqa: E402
import batch_np43  # noqa: E402

KERNELS = [("fe35c.spearman", batch_fe35c.spearman), ("fe36b.spearman", batch_fe36b.spearman),
           ("np43.spearman_rho", batch_np43.spearman_rho), ("fe41.spearman_rank", batch_fe41.spearman_rank)]


def main(timed: bool, n: int = 4000, repeats: int = 15) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.permutation(n).astype(np.float64), rng.permutation(n).astype(np.float64)  # no ties
    for name, func in KERNELS:
        kernel = polyfuse.kernel(func)
        print(name, hashlib.sha256(kernel.inspect_llvm(x, y).encode()).hexdigest()[:16], flush=True)
        if timed:
            kernel(x, y)
            best = min(_thread_time(kernel, x, y) for _ in range(repeats))
            print(f"   min thread CPU {best * 1e3:.3f} ms", flush=True)


def _thread_time(kernel, x, y) -> float:
    start = time.thread_time()
    kernel(x, y)
    return time.thread_time() - start


if __name__ == "__main__":
    main("--time" in sys.argv)
