"""polyfuse fuse="none" vs fuse="smart" vs numba @njit on suite kernels (one process, same inputs).

    python benchmarks/fuse_modes.py bench 2mm 3mm trmm      # preset, then kernel names (default: all)

Each time is the minimum over fresh copies of the same inputs (copies made outside the timed
region); the outputs of each mode's last timed call are compared with numba's, and a MISMATCH
makes the exit status 1.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench import suite  # noqa: E402
from polyfuse.bench.measure import best_time, compare, fresh, output_positions  # noqa: E402

REPEATS = 3


def main(argv: list[str]) -> int:
    preset = argv[0] if argv else "quick"
    status = 0
    for name in argv[1:] or suite.names():
        spec = suite.get(name)
        inputs = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
        positions = output_positions(spec.func, spec.outputs)
        jitted = numba.njit(spec.func)
        reference = fresh(inputs)
        jitted(*reference)
        numba_t, _ = best_time(jitted, inputs, REPEATS, 0.0)
        times, checks = {}, []
        for mode in ("none", "smart"):
            kernel = polyfuse.kernel(spec.func, fuse=mode)
            kernel(*fresh(inputs))  # compile, not timed
            last: list = []
            times[mode], _ = best_time(kernel, inputs, REPEATS, 0.0, last=last)
            ok, _ = compare(last[0], reference, positions)
            checks.append("ok" if ok else f"MISMATCH ({mode})")
            status |= not ok
        print(f"{name:18s} numba {numba_t * 1e3:8.2f} ms  none {times['none'] * 1e3:8.2f} ms  "
              f"smart {times['smart'] * 1e3:8.2f} ms  smart vs numba {numba_t / times['smart']:5.2f}x  "
              f"vs none {times['none'] / times['smart']:5.2f}x  {', '.join(sorted(set(checks)))}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
