"""Cold and warm (disk-cache hit) compile times of every suite kernel at its test sizes, all in
one fresh process for each (cold, then warm from the cold run's cache folder).

    python benchmarks/compile_times.py [--cpu]

The compile's wall time by default; ``--cpu``: the process's CPU time (steadier on a loaded
machine), of the compile and of the compile with the first call, in which LLVM optimises and
generates the machine code of the functions that call runs (the cpu backend does that on first
use; a warm load links the cached machine code instead: the script says which warm loads ran
LLVM's optimiser, none where the disk cache holds every function's object code).  The backend
module is imported before the first timing (to count the optimiser's runs), so the first kernel's
warm time holds the rest of the process's one-time work, not that import (~13 ms from bytecode).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, sys, time
import numpy as np
os.environ["POLYFUSE_CACHE_DIR"] = sys.argv[1]
import polyfuse
from polyfuse.backends.cpu import llvm as cpu_llvm
from polyfuse.bench import suite
optimized = []  # LLVM optimiser runs (a disk-cache hit should link machine code, never optimise)
_optimize = cpu_llvm.optimize
cpu_llvm.optimize = lambda module, artifact: (optimized.append(1), _optimize(module, artifact))[1]
times = {}
for name in suite.names():
    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    kernel = polyfuse.kernel(spec.func)
    optimized.clear()
    start, cpu = time.perf_counter(), time.process_time()
    kernel.compile(*args)
    wall, compiled = time.perf_counter() - start, time.process_time() - cpu
    kernel(*args)
    times[name] = (wall, compiled, time.process_time() - cpu, len(optimized))
print(json.dumps(times))
'''


def run(cache: str) -> dict[str, list[float]]:
    done = subprocess.run([sys.executable, "-c", CHILD, cache], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    cpu = "--cpu" in sys.argv[1:]
    cache = tempfile.mkdtemp(prefix="polyfuse-compile-times-")
    cold, warm = run(cache), run(cache)
    if cpu:
        print(f"{'kernel':18s} {'cold CPU':>9s} {'+call':>9s} {'warm CPU':>9s} {'+call':>9s}   (ms)")
        for name in cold:
            print(f"{name:18s} " + " ".join(f"{t * 1e3:9.1f}" for t in (*cold[name][1:3], *warm[name][1:3])))
    # issue 15's targets: every suite kernel cold under 1 s, a warm load under 50 ms
    column = 2 if cpu else 0  # CPU: with the first call
    # a warm load links the machine code the cache stored: no function is optimised again
    relinked = [name for name, t in warm.items() if t[3]]
    print(f"{'warm':18s} functions optimised again: " + (", ".join(f"{n} {warm[n][3]}" for n in relinked) or "none"))
    for label, both, target in (("cold", cold, 1.0), ("warm (disk cache)", warm, 0.05)):
        times = {name: t[column] for name, t in both.items()}
        slowest = max(times, key=times.get)
        over = sorted((name for name in times if times[name] > target), key=times.get, reverse=True)
        print(f"{label:18s} median {statistics.median(times.values()) * 1e3:7.1f} ms   "
              f"slowest {slowest} {times[slowest] * 1e3:7.1f} ms   ({len(times)} kernels)")
        print(f"{'':18s} over {target * 1e3:.0f} ms: "
              + (", ".join(f"{name} {times[name] * 1e3:.0f}" for name in over) or "none"))


if __name__ == "__main__":
    main()
