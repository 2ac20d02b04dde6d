"""heat-3d's two sweeps on one small block, gcc against polyfuse, by where the rows lie.

    python benchmarks/heat3d_block_ceiling.py [--block 10,10,120] [--reps 2000] [--rounds 15]
        [--offsets=-1,7] [--cc gcc] [--cflags "-O3 -march=native ..."]

The block is what one of heat-3d's time tiles sweeps at each time step (PolyBench's two
out-of-place sweeps, ``polyfuse/bench/suite.py`` ``heat_3d``, on arrays of shape ``--block``,
repeated ``--reps`` times): 10 x 10 x 120 doubles (96 KB an array) stay in L2, 4 x 4 x 120 in L1.
gcc (``-O3 -march=native -mprefer-vector-width=512 -ffp-contract=off``: the same additions and
products as Python, 512-bit vectors like polyfuse's time-tiled code) against polyfuse with time
tiling off (``POLYFUSE_TIME_TILING=0``, one thread) and the function's preference for 512-bit
vectors that time-tiled functions get (``backends/cpu/llvm.py`` ``wide_vector_functions``, here
for every function).  ``--offsets``: where each array's first element lies, in doubles past a
64-byte boundary (-1: as NumPy allocates; 7 puts ``[i, j, 1]``, the first element a row updates,
on a 64-byte boundary when a row's bytes are a multiple of 64, as with 120 doubles).  Outputs are
checked equal (bit for bit), then each round times gcc and polyfuse once each by the thread's CPU
time; the minimum over rounds, ns per point update.  Without a C compiler the script says so and
exits 0.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

C_SOURCE = """
#define IDX(i, j, k) (((i) * NJ + (j)) * NK + (k))
#define SWEEP(OUT, IN) \\
  for (int i = 1; i < NI - 1; i++) for (int j = 1; j < NJ - 1; j++) for (int k = 1; k < NK - 1; k++) \\
    OUT[IDX(i, j, k)] = 0.125 * (IN[IDX(i + 1, j, k)] - 2.0 * IN[IDX(i, j, k)] + IN[IDX(i - 1, j, k)]) \\
      + 0.125 * (IN[IDX(i, j + 1, k)] - 2.0 * IN[IDX(i, j, k)] + IN[IDX(i, j - 1, k)]) \\
      + 0.125 * (IN[IDX(i, j, k + 1)] - 2.0 * IN[IDX(i, j, k)] + IN[IDX(i, j, k - 1)]) + IN[IDX(i, j, k)];
void sweep(long reps, double *restrict A, double *restrict B) {
  for (long r = 0; r < reps; r++) { SWEEP(B, A) SWEEP(A, B) }
}
"""


def heat_block(reps, ni, nj, nk, A, B):
    for t in range(reps):  # noqa: B007 (the time loop)
        for i in range(1, ni - 1):
            for j in range(1, nj - 1):
                for k in range(1, nk - 1):
                    B[i, j, k] = (0.125 * (A[i + 1, j, k] - 2.0 * A[i, j, k] + A[i - 1, j, k])
                                  + 0.125 * (A[i, j + 1, k] - 2.0 * A[i, j, k] + A[i, j - 1, k])
                                  + 0.125 * (A[i, j, k + 1] - 2.0 * A[i, j, k] + A[i, j, k - 1])
                                  + A[i, j, k])
        for i in range(1, ni - 1):
            for j in range(1, nj - 1):
                for k in range(1, nk - 1):
                    A[i, j, k] = (0.125 * (B[i + 1, j, k] - 2.0 * B[i, j, k] + B[i - 1, j, k])
                                  + 0.125 * (B[i, j + 1, k] - 2.0 * B[i, j, k] + B[i, j - 1, k])
                                  + 0.125 * (B[i, j, k + 1] - 2.0 * B[i, j, k] + B[i, j, k - 1])
                                  + B[i, j, k])


def _placed(values: np.ndarray, offset: int) -> np.ndarray:
    if offset < 0:
        return values.copy()
    buf = np.empty(values.size + 16)
    start = (-buf.ctypes.data % 64) // 8 + offset
    view = buf[start:start + values.size].reshape(values.shape)
    view[...] = values
    return view


def _wide_everywhere() -> None:
    """Every generated function prefers 512-bit vectors, as time-tiled ones do."""
    from polyfuse.backends.cpu import llvm as backend

    original = backend.wide_vector_functions

    def wide(text: str, names: list[str]) -> str:
        found = set(re.findall(r'define void @"([^"]+)"\(', text))
        return original(text, sorted(set(names) | found))

    backend.wide_vector_functions = wide


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--block", default="10,10,120")
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--offsets", default="-1,7")
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--cflags", default="-O3 -march=native -mprefer-vector-width=512 -ffp-contract=off",
                        help="gcc's flags (the default: Python's arithmetic; outputs then checked bit for bit)")
    args = parser.parse_args(argv)
    ni, nj, nk = (int(v) for v in args.block.split(","))
    if shutil.which(args.cc) is None:
        print(f"no C compiler ({args.cc}): nothing to compare")
        return
    os.environ["POLYFUSE_TIME_TILING"] = "0"
    os.environ["POLYFUSE_NUM_THREADS"] = "1"
    import polyfuse

    _wide_everywhere()
    with tempfile.TemporaryDirectory() as folder:
        source, library = os.path.join(folder, "block.c"), os.path.join(folder, "block.so")
        with open(source, "w") as handle:
            handle.write(C_SOURCE)
        subprocess.run([args.cc, *args.cflags.split(),
                        f"-DNI={ni}", f"-DNJ={nj}", f"-DNK={nk}", "-shared", "-fPIC", source, "-o", library],
                       check=True)
        lib = ctypes.CDLL(library)
        kernel = polyfuse.kernel(heat_block, cache=False)
        rng = np.random.default_rng(0)
        a0, b0 = rng.random((ni, nj, nk)), rng.random((ni, nj, nk))
        updates = args.reps * 2 * (ni - 2) * (nj - 2) * (nk - 2)

        def gcc(a, b):
            lib.sweep(ctypes.c_long(args.reps), a.ctypes.data_as(ctypes.c_void_p), b.ctypes.data_as(ctypes.c_void_p))

        def ours(a, b):
            kernel(args.reps, ni, nj, nk, a, b)

        load = os.getloadavg()[0]
        for offset in (int(v) for v in args.offsets.split(",")):
            results = {}
            for name, run in (("gcc", gcc), ("polyfuse", ours)):
                a, b = _placed(a0, offset), _placed(b0, offset)
                run(a, b)
                results[name] = a
            if "-ffp-contract=off" in args.cflags:
                assert np.array_equal(results["gcc"], results["polyfuse"])
            else:  # gcc's contracted multiply-adds round differently
                assert np.allclose(results["gcc"], results["polyfuse"], rtol=1e-7, atol=1e-9)
            best = {"gcc": float("inf"), "polyfuse": float("inf")}
            for _ in range(args.rounds):
                for name, run in (("gcc", gcc), ("polyfuse", ours)):
                    a, b = _placed(a0, offset), _placed(b0, offset)
                    start = time.thread_time()
                    run(a, b)
                    best[name] = min(best[name], time.thread_time() - start)
            print(f"block {ni}x{nj}x{nk} offset {offset} load {load:.2f}: "
                  + ", ".join(f"{k} {v * 1e9 / updates:.3f}" for k, v in best.items()) + " ns per update",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
