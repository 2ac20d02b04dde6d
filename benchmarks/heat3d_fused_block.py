"""heat-3d's two sweeps on one block, as two loop nests or fused into one (the second sweep one
plane back), compiled by polyfuse as written (``fuse="none"``, no time tiles), one thread.

    POLYFUSE_DISABLE_CACHE=1 POLYFUSE_NUM_THREADS=1 taskset -c 0 python benchmarks/heat3d_fused_block.py \\
        [--block 10,10,120] [--reps 2000] [--rounds 10] [--no-load-pre]

What a time tile's point loops do with ``POLYFUSE_TIME_TILE_FUSED_TILES`` off (``separate``: each
sweep over the block) and on (``fused``: ``B[i, j, k]`` and then ``A[i - 1, j, k]`` in one row
loop), without the tiles around them.  The fused nest starts one plane later, so each sweep runs
``n0 - 3`` planes in it, ``n0 - 2`` in the separate one: times are per point update (the two
compute different planes; this times the loop forms only).  ``--no-load-pre`` sets LLVM's
``-enable-load-in-loop-pre=false`` for both (GVN's load PRE keeps ``A[k + 1]`` for the next
iteration's ``A[k]`` in the separate row loops; in the fused one the store between the loads stops
it).  Thread CPU time, min over rounds, ns per point update.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import polyfuse


def separate(reps, n0, n1, n2, A, B):
    for _rep in range(reps):
        for i in range(1, n0 - 1):
            for j in range(1, n1 - 1):
                for k in range(1, n2 - 1):
                    B[i, j, k] = (0.125 * (A[i + 1, j, k] - 2.0 * A[i, j, k] + A[i - 1, j, k])
                                  + 0.125 * (A[i, j + 1, k] - 2.0 * A[i, j, k] + A[i, j - 1, k])
                                  + 0.125 * (A[i, j, k + 1] - 2.0 * A[i, j, k] + A[i, j, k - 1]) + A[i, j, k])
        for i in range(1, n0 - 1):
            for j in range(1, n1 - 1):
                for k in range(1, n2 - 1):
                    A[i, j, k] = (0.125 * (B[i + 1, j, k] - 2.0 * B[i, j, k] + B[i - 1, j, k])
                                  + 0.125 * (B[i, j + 1, k] - 2.0 * B[i, j, k] + B[i, j - 1, k])
                                  + 0.125 * (B[i, j, k + 1] - 2.0 * B[i, j, k] + B[i, j, k - 1]) + B[i, j, k])


def fused(reps, n0, n1, n2, A, B):
    for _rep in range(reps):
        for i in range(2, n0 - 1):
            for j in range(1, n1 - 1):
                for k in range(1, n2 - 1):
                    B[i, j, k] = (0.125 * (A[i + 1, j, k] - 2.0 * A[i, j, k] + A[i - 1, j, k])
                                  + 0.125 * (A[i, j + 1, k] - 2.0 * A[i, j, k] + A[i, j - 1, k])
                                  + 0.125 * (A[i, j, k + 1] - 2.0 * A[i, j, k] + A[i, j, k - 1]) + A[i, j, k])
                    A[i - 1, j, k] = (0.125 * (B[i, j, k] - 2.0 * B[i - 1, j, k] + B[i - 2, j, k])
                                      + 0.125 * (B[i - 1, j + 1, k] - 2.0 * B[i - 1, j, k] + B[i - 1, j - 1, k])
                                      + 0.125 * (B[i - 1, j, k + 1] - 2.0 * B[i - 1, j, k] + B[i - 1, j, k - 1])
                                      + B[i - 1, j, k])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--block", default="10,10,120")
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--no-load-pre", action="store_true")
    opts = parser.parse_args()
    if opts.no_load_pre:
        import llvmlite.binding as llvm
        llvm.set_option("", "-enable-load-in-loop-pre=false")
    n0, n1, n2 = map(int, opts.block.split(","))
    kernels = {"separate": polyfuse.kernel(separate, fuse="none"), "fused": polyfuse.kernel(fused, fuse="none")}
    start = np.random.default_rng(0).random((n0, n1, n2))
    planes = {"separate": n0 - 2, "fused": n0 - 3}
    for kern in kernels.values():
        kern(1, n0, n1, n2, start.copy(), start.copy())
    best = {name: float("inf") for name in kernels}
    for _ in range(opts.rounds):
        for name, kern in kernels.items():
            A, B = start.copy(), start.copy()
            t0 = time.thread_time()
            kern(opts.reps, n0, n1, n2, A, B)
            best[name] = min(best[name], time.thread_time() - t0)
    per = {name: best[name] / (2 * planes[name] * (n1 - 2) * (n2 - 2) * opts.reps) * 1e9 for name in kernels}
    print(f"block {n0} x {n1} x {n2}, {opts.reps} reps{', load PRE off' if opts.no_load_pre else ''}: "
          + ", ".join(f"{name} {v:.3f}" for name, v in per.items()) + " ns per update")


if __name__ == "__main__":
    main()
