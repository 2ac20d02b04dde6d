"""Cold compiles and warm disk-cache loads of suite kernels under two polyfuse checkouts, interleaved.

    python benchmarks/compile_ab.py A/.venv/bin/python B/.venv/bin/python --rounds 5 fdtd-2d heat-3d np:fdtd_2d

(``np:NAME``: a NumPy program of ``polyfuse bench --section numpy``, at its test sizes.)
``--preset bench``: the arguments at another size preset (the compile is not specialised to the
sizes, but which functions the first calls run, and so generate, may depend on them: fdtd-2d's
second wavefront loop runs only at larger sizes; the bench's compile column is at ``bench``).

Every measurement runs in a fresh process of one checkout's interpreter, A and B alternating
kernel by kernel within each round, so that both see the same machine load; the minimum over the
rounds is printed (say the load with it: ``cat /proc/loadavg``).  No compile deadline
(``POLYFUSE_COMPILE_SECONDS=0``): both sides compile the same code whatever the load.

- **cold**: ``POLYFUSE_DISABLE_CACHE=1``; the process first compiles a small kernel (jacobi-1d)
  untimed, so the imports and LLVM's initialisation are not counted (as in ``polyfuse bench``'s
  compile column, where many kernels compile in one process), then times ``kernel.compile``.
- **warm**: a disk-cache hit in a second process, after a first one compiled (and called) the
  kernel into a fresh cache directory (one per checkout).  ``first``: the first compile of that process,
  with every once-per-process cost (imports of the backend, the cache key's versions and
  source digest); ``next``: after another kernel's hit (jacobi-1d) paid those.
- **+1, +2**: the compile (or load) and the kernel's first call, and its second (test sizes,
  default thread count): the LLVM backend generates (or links) each function's machine code when
  it first runs, so the compile alone no longer holds all of it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, sys, time
import numpy as np
import polyfuse
from polyfuse.bench import numpy_suite, suite

def compiled(name, preset="test"):
    if name.startswith("np:"):  # a NumPy program of `polyfuse bench --section numpy`
        program = numpy_suite.PROGRAMS[name[3:]]
        func, args = program.func, program.args(preset)
    else:
        spec = suite.get(name)
        func, args = spec.func, spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    kernel = polyfuse.kernel(func)
    start, cpu = time.perf_counter(), time.process_time()
    variant = kernel.compile(*args)
    seconds, cpu_then = time.perf_counter() - start, time.process_time()
    calls = []
    for _ in range(2):  # (machine code may be generated, or linked, when a function first runs)
        start = time.perf_counter()
        kernel(*args)
        calls.append(time.perf_counter() - start)
    return seconds, cpu_then - cpu, bool(getattr(variant, "from_cache", False)), calls, time.process_time() - cpu

mode, name, preset = sys.argv[1], sys.argv[2], sys.argv[3]
if mode in ("cold", "next"):
    compiled("jacobi-1d")
seconds, cpu, hit, calls, cpu2 = compiled(name, preset)
print(json.dumps({"seconds": seconds, "cpu": cpu, "hit": hit, "calls": calls, "cpu2": cpu2}))
'''

KERNELS = ["fdtd-2d", "heat-3d", "conv_bn_relu", "attention_rows", "seidel-2d", "correlation", "jacobi-2d"]


def measure(python: str, mode: str, name: str, cache: str, preset: str = "test") -> tuple[float, ...]:
    """(wall seconds, CPU seconds of the process) of one compile or load, then the wall seconds
    of the compile and the first call, of those and the second call, and the CPU seconds of the
    three."""
    # no compile deadline: past it a compile skips optional isl work (and is not cached), so
    # what is compiled would depend on the load (as in codegen_hashes.py)
    env = dict(os.environ, POLYFUSE_CACHE_DIR=cache, POLYFUSE_COMPILE_SECONDS="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a warm load imports the backend: from bytecode, as usual
    if mode == "cold":
        env["POLYFUSE_DISABLE_CACHE"] = "1"
    else:
        env.pop("POLYFUSE_DISABLE_CACHE", None)
    # (run in the cache folder: ``python -c`` puts the working directory first on sys.path, and a
    # checkout's own polyfuse/ folder there would shadow the interpreter's installed one)
    done = subprocess.run([python, "-c", CHILD, mode, name, preset], env=env, capture_output=True, text=True, cwd=cache)
    if done.returncode:
        print(f"warning: {name} ({mode}) failed under {python}; not counted:\n{done.stderr[-2000:]}", file=sys.stderr)
        return (math.inf,) * 5
    result = json.loads(done.stdout)
    if mode in ("first", "next") and not result["hit"]:  # (seen once under load 7: not understood)
        print(f"warning: {name}: no disk-cache hit under {python}; not counted", file=sys.stderr)
        return (math.inf,) * 5
    first, second = result["calls"]
    return result["seconds"], result["cpu"], result["seconds"] + first, result["seconds"] + first + second, result["cpu2"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="checkout A's Python interpreter")
    parser.add_argument("b", help="checkout B's Python interpreter")
    parser.add_argument("kernels", nargs="*", default=KERNELS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--preset", default="test", help="the size preset of the arguments (default: test)")
    args = parser.parse_intermixed_args()
    sides = {"A": args.a, "B": args.b}
    caches = {side: tempfile.mkdtemp(prefix=f"polyfuse-compile-ab-{side}-") for side in sides}
    for side, python in sides.items():  # the warm loads' entries (and jacobi-1d's)
        for name in ["jacobi-1d", *args.kernels]:
            measure(python, "fill", name, caches[side], args.preset)
    best: dict[tuple[str, str, str, int], float] = {}
    for _ in range(args.rounds):
        for name in args.kernels:
            for mode in ("cold", "first", "next"):
                for side, python in sides.items():
                    for clock, seconds in enumerate(measure(python, mode, name, caches[side], args.preset)):
                        key = (name, mode, side, clock)
                        best[key] = min(best.get(key, seconds), seconds)
    # wall time, and the process's CPU time (less sensitive to other processes on a loaded machine);
    # "+1", "+2": with the first call, and the second (at the preset's sizes, on the default threads)
    columns = [("cold", 0, "cold"), ("cold", 1, "cold CPU"), ("cold", 2, "cold+1"), ("cold", 3, "cold+2"),
               ("cold", 4, "CPU+2"),
               ("first", 0, "warm first"), ("next", 0, "warm next"), ("next", 2, "next+1"), ("next", 3, "next+2")]
    print(f"{'kernel':16s} " + " ".join(f"{title + ' A':>13s} {'B':>7s}" for _, _, title in columns)
          + f"   (ms, min of {args.rounds}, {args.preset} sizes)")
    for name in args.kernels:
        cells = [best[(name, mode, side, clock)] * 1e3 for mode, clock, _ in columns for side in sides]
        print(f"{name:16s} " + " ".join(f"{cells[2 * k]:13.1f} {cells[2 * k + 1]:7.1f}" for k in range(len(columns))))

if __name__ == "__main__":
    main()
