"""Time one suite kernel untiled and with forced tile sizes (to check the tiling model).

    python benchmarks/tile_sizes.py gemm
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
import polyfuse.schedule.tiling as tiling  # noqa: E402
from polyfuse.bench import suite  # noqa: E402

SIZES = [None, (128, 128, 128), (32, 128, 256), (16, 64, 512), (64, 64, 256), (32, 32, 1024)]


def run(spec, sizes) -> float:
    original = tiling.choose_tile_sizes
    if sizes is not None:
        tiling.choose_tile_sizes = lambda scop, loops, stmts, budget: tiling.TileChoice(
            loops, sizes[-len(loops):], 0, budget, "forced")
    try:
        kernel = polyfuse.kernel(spec.func, tile=sizes is not None)
        kernel(*spec.make_args(np.random.default_rng(0), **spec.sizes["bench"]))
        times = []
        for _ in range(3):
            args = spec.make_args(np.random.default_rng(0), **spec.sizes["bench"])
            start = time.perf_counter()
            kernel(*args)
            times.append(time.perf_counter() - start)
        return min(times)
    finally:
        tiling.choose_tile_sizes = original


def main(name: str) -> None:
    spec = suite.get(name)
    for sizes in SIZES:
        print(f"{'untiled' if sizes is None else 'x'.join(map(str, sizes)):>14}: {run(spec, sizes) * 1e3:8.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "gemm")
