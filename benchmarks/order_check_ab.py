"""The exact dataflow's order check, answered piecewise (``runs_before``) against one subset test
(``runs_before_subset``), in one process: the compile's thread CPU time, the two alternating.

    python benchmarks/order_check_ab.py ROUNDS KERNEL [KERNEL ...]

(``np:NAME``: a NumPy program of ``polyfuse bench --section numpy``; test sizes.)  Each kernel is
compiled once untimed, then ROUNDS times each way, the order swapped every round; min and median
in ms.  ``POLYFUSE_DISABLE_CACHE=1``, no compile deadline: both ways compile the same code.
"""

from __future__ import annotations

import os
import sys
import time

os.environ["POLYFUSE_DISABLE_CACHE"] = "1"
os.environ["POLYFUSE_COMPILE_SECONDS"] = "0"

import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.analysis import dependences  # noqa: E402
from polyfuse.bench import numpy_suite, suite  # noqa: E402


def compile_seconds(name: str) -> float:
    if name.startswith("np:"):
        program = numpy_suite.PROGRAMS[name[3:]]
        func, args = program.func, program.args("test")
    else:
        spec = suite.get(name)
        func, args = spec.func, spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    kernel = polyfuse.kernel(func)
    start = time.thread_time()
    kernel.compile(*args)
    return time.thread_time() - start


def main() -> None:
    rounds, names = int(sys.argv[1]), sys.argv[2:]
    ways = {"piecewise": dependences.runs_before, "subset": dependences.runs_before_subset}
    compile_seconds("jacobi-1d")  # imports, LLVM's initialisation
    for name in names:
        compile_seconds(name)
        times: dict[str, list[float]] = {way: [] for way in ways}
        for r in range(rounds):
            for way in (list(ways) if r % 2 == 0 else list(reversed(ways))):
                dependences.runs_before_subset = ways[way]
                times[way].append(compile_seconds(name) * 1000)
        dependences.runs_before_subset = ways["subset"]
        print(f"{name:18s}" + "".join(f"  {way} min {min(t):6.0f} med {sorted(t)[len(t) // 2]:6.0f}"
                                       for way, t in times.items()), flush=True)


if __name__ == "__main__":
    main()
