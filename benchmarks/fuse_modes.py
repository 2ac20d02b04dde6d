"""polyfuse fuse="none" vs fuse="smart" vs numba @njit on suite kernels (one process, same inputs).

    python benchmarks/fuse_modes.py bench 2mm 3mm trmm      # preset, then kernel names (default: all)
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench import suite  # noqa: E402


def best_of(fn, spec, preset: str, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        args = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str]) -> None:
    preset = argv[0] if argv else "quick"
    for name in argv[1:] or suite.names():
        spec = suite.get(name)
        warm = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
        kernels = {mode: polyfuse.kernel(spec.func, fuse=mode) for mode in ("none", "smart")}
        jitted = numba.njit(spec.func)
        for fn in (*kernels.values(), jitted):
            fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in warm])
        numba_t = best_of(jitted, spec, preset)
        none_t = best_of(kernels["none"], spec, preset)
        smart_t = best_of(kernels["smart"], spec, preset)
        print(f"{name:18s} numba {numba_t * 1e3:8.2f} ms  none {none_t * 1e3:8.2f} ms  "
              f"smart {smart_t * 1e3:8.2f} ms  smart vs numba {numba_t / smart_t:5.2f}x  "
              f"vs none {none_t / smart_t:5.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
