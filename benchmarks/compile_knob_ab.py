"""Thread CPU of cold compiles (``kernel.compile``, no calls) under two settings of a knob read at
compile time, interleaved in one process.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/compile_knob_ab.py POLYFUSE_FIRST_VIOLATION 1 0 5 \
        heat-3d np:heat_3d correlation fdtd-2d

Each round compiles every kernel once per value, alternating (A B A B ...), a new ``polyfuse.kernel``
each time and ``POLYFUSE_LIFT_MEMO=0``, so no compile reuses another's lift or dependences (the
per-scop caches of analysis/verify.py then start empty too).  Printed: min and median thread CPU
per kernel and value, and the load.  Only for knobs read during the compile (not for LLVM's
options, which are global to a process: benchmarks/compile_ab.py runs fresh processes).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ["POLYFUSE_LIFT_MEMO"] = "0"
os.environ.setdefault("POLYFUSE_COMPILE_SECONDS", "0")  # (the same work whatever the load)

import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench import numpy_suite, suite  # noqa: E402


def _inputs(name: str):
    if name.startswith("np:"):
        program = numpy_suite.PROGRAMS[name[3:]]
        return program.func, program.args("test")
    spec = suite.get(name)
    return spec.func, spec.make_args(np.random.default_rng(0), **spec.sizes["test"])


def main() -> None:
    knob, first, second, rounds, *kernels = sys.argv[1:]
    func, args = _inputs("jacobi-1d")
    polyfuse.kernel(func).compile(*args)  # (imports, LLVM's initialisation)
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(int(rounds)):
        for name in kernels:
            func, args = _inputs(name)
            for value in (first, second):
                os.environ[knob] = value
                start = time.thread_time()
                polyfuse.kernel(func).compile(*args)
                times.setdefault((name, value), []).append(time.thread_time() - start)
    print(f"{knob}, min / median of {rounds} rounds, thread CPU ms, load {os.getloadavg()[0]:.1f}")
    for name in kernels:
        cells = [f"{value}: {min(times[name, value]) * 1e3:6.0f} / {statistics.median(times[name, value]) * 1e3:6.0f}"
                 for value in (first, second)]
        print(f"  {name:16s} " + "   ".join(cells))


if __name__ == "__main__":
    main()
