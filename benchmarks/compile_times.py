"""Cold and warm (disk-cache hit) compile times of every suite kernel, each in a fresh process.

    python benchmarks/compile_times.py
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
from polyfuse.bench import suite
times = {}
for name in suite.names():
    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    kernel = polyfuse.kernel(spec.func)
    start = time.perf_counter()
    kernel.compile(*args)
    times[name] = time.perf_counter() - start
print(json.dumps(times))
'''


def run(cache: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, cache], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    cache = tempfile.mkdtemp(prefix="polyfuse-compile-times-")
    cold, warm = run(cache), run(cache)
    # issue 15's targets: every suite kernel cold under 1 s, a warm load under 50 ms
    for label, times, target in (("cold", cold, 1.0), ("warm (disk cache)", warm, 0.05)):
        slowest = max(times, key=times.get)
        over = sorted((name for name in times if times[name] > target), key=times.get, reverse=True)
        print(f"{label:18s} median {statistics.median(times.values()) * 1e3:7.1f} ms   "
              f"slowest {slowest} {times[slowest] * 1e3:7.1f} ms   ({len(times)} kernels)")
        print(f"{'':18s} over {target * 1e3:.0f} ms: "
              + (", ".join(f"{name} {times[name] * 1e3:.0f}" for name in over) or "none"))


if __name__ == "__main__":
    main()
