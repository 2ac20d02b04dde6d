"""Time one suite kernel untiled and with forced tile sizes (to check the tiling model).

    python benchmarks/tile_sizes.py gemm

Every variant's last timed call is compared with numba's outputs on the same inputs; a MISMATCH
makes the exit status 1.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
import polyfuse.schedule.tiling as tiling  # noqa: E402
from polyfuse.bench import suite  # noqa: E402
from polyfuse.bench.measure import best_time, compare, fresh, output_positions  # noqa: E402

SIZES = [None, (128, 128, 128), (32, 128, 256), (16, 64, 512), (64, 64, 256), (32, 32, 1024)]


def run(spec, sizes, inputs, reference, positions) -> tuple[float, bool]:
    original = tiling.choose_tile_sizes
    if sizes is not None:
        tiling.choose_tile_sizes = lambda scop, loops, stmts, budget: tiling.TileChoice(
            loops, sizes[-len(loops):], 0, budget, "forced")
    try:
        kernel = polyfuse.kernel(spec.func, tile=sizes is not None)
        kernel(*fresh(inputs))  # compile, not timed
        last: list = []
        seconds, _ = best_time(kernel, inputs, 3, 0.0, last=last)
        return seconds, compare(last[0], reference, positions)[0]
    finally:
        tiling.choose_tile_sizes = original


def main(name: str) -> int:
    spec = suite.get(name)
    inputs = spec.make_args(np.random.default_rng(0), **spec.sizes["bench"])
    positions = output_positions(spec.func, spec.outputs)
    reference = fresh(inputs)
    numba.njit(spec.func)(*reference)
    status = 0
    for sizes in SIZES:
        seconds, ok = run(spec, sizes, inputs, reference, positions)
        status |= not ok
        label = "untiled" if sizes is None else "x".join(map(str, sizes))
        print(f"{label:>14}: {seconds * 1e3:8.2f} ms  {'ok' if ok else 'MISMATCH'}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "gemm"))
