"""Cold and warm (disk-cache hit) compile times of every suite kernel at its test sizes, all in
one fresh process for each (cold, then warm from the cold run's cache folder).

    python benchmarks/compile_times.py [--cpu] [--preset NAME] [--numpy]

``--preset``: the arguments at another size preset of the suite (``quick``, ``bench``, ``large``;
the compile is not specialised to the sizes, so its time should not move, but the first call's
LLVM work may: a team runs the region functions, one thread their serial twins).  ``--numpy``:
the NumPy programs of ``polyfuse bench --section numpy`` too, as ``numpy:NAME``.

The compile's wall time by default; ``--cpu``: the process's CPU time (steadier on a loaded
machine), of the compile and of the compile with the first call, in which LLVM optimises and
generates the machine code of the functions that call runs (the cpu backend does that on first
use; a warm load links the cached machine code instead: the script says which warm loads ran
LLVM's optimiser, none where the disk cache holds every function's object code).  The backend
module is imported before the first timing (to count the optimiser's runs), so the first kernel's
warm time holds the rest of the process's one-time work, not that import (~13 ms from bytecode).
"""

from __future__ import annotations

import argparse
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
preset, numpy = sys.argv[2], sys.argv[3] == "1"
optimized = []  # LLVM optimiser runs (a disk-cache hit should link machine code, never optimise)
_optimize = cpu_llvm.optimize
cpu_llvm.optimize = lambda module, artifact, *name: (optimized.append(1), _optimize(module, artifact, *name))[1]
programs = [(name, suite.get(name).func,
             lambda spec=suite.get(name): spec.make_args(np.random.default_rng(0), **spec.sizes[preset]))
            for name in suite.names()]
if numpy:
    from polyfuse.bench.numpy_suite import PROGRAMS
    programs += [(f"numpy:{name}", p.func, lambda p=p: p.args(preset)) for name, p in PROGRAMS.items()]
times = {}
for name, func, make in programs:
    args = make()
    kernel = polyfuse.kernel(func)
    optimized.clear()
    start, cpu = time.perf_counter(), time.process_time()
    kernel.compile(*args)
    wall, compiled = time.perf_counter() - start, time.process_time() - cpu
    kernel(*args)
    times[name] = (wall, compiled, time.process_time() - cpu, len(optimized))
print(json.dumps(times))
'''


def run(cache: str, preset: str, numpy: bool) -> dict[str, list[float]]:
    done = subprocess.run([sys.executable, "-c", CHILD, cache, preset, "1" if numpy else "0"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--cpu", action="store_true", help="process CPU time, with the first call")
    parser.add_argument("--preset", default="test", help="the suite's size preset (default: test)")
    parser.add_argument("--numpy", action="store_true", help="the NumPy programs of the bench too")
    options = parser.parse_args()
    cpu = options.cpu
    cache = tempfile.mkdtemp(prefix="polyfuse-compile-times-")
    cold, warm = run(cache, options.preset, options.numpy), run(cache, options.preset, options.numpy)
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
              f"slowest {slowest} {times[slowest] * 1e3:7.1f} ms   ({len(times)} kernels, {options.preset} sizes)")
        print(f"{'':18s} over {target * 1e3:.0f} ms: "
              + (", ".join(f"{name} {times[name] * 1e3:.0f}" for name in over) or "none"))


if __name__ == "__main__":
    main()
