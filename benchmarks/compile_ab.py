"""Cold compiles and warm disk-cache loads of suite kernels under two polyfuse checkouts, interleaved.

    python benchmarks/compile_ab.py A/.venv/bin/python B/.venv/bin/python --rounds 5 fdtd-2d heat-3d

Every measurement runs in a fresh process of one checkout's interpreter, A and B alternating
kernel by kernel within each round, so that both see the same machine load; the minimum over the
rounds is printed (say the load with it: ``cat /proc/loadavg``).  No compile deadline
(``POLYFUSE_COMPILE_SECONDS=0``): both sides compile the same code whatever the load.

- **cold**: ``POLYFUSE_DISABLE_CACHE=1``; the process first compiles a small kernel (jacobi-1d)
  untimed, so the imports and LLVM's initialisation are not counted (as in ``polyfuse bench``'s
  compile column, where many kernels compile in one process), then times ``kernel.compile``.
- **warm**: a disk-cache hit in a second process, after a first one compiled the kernel into a
  fresh cache directory (one per checkout).  ``first``: the first compile of that process,
  with every once-per-process cost (imports of the backend, the cache key's versions and
  source digest); ``next``: after another kernel's hit (jacobi-1d) paid those.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile

CHILD = r'''
import json, os, sys, time
import numpy as np
import polyfuse
from polyfuse.bench import suite

def compiled(name):
    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    kernel = polyfuse.kernel(spec.func)
    start = time.perf_counter()
    variant = kernel.compile(*args)
    return time.perf_counter() - start, bool(getattr(variant, "from_cache", False))

mode, name = sys.argv[1], sys.argv[2]
if mode in ("cold", "next"):
    compiled("jacobi-1d")
seconds, hit = compiled(name)
print(json.dumps({"seconds": seconds, "hit": hit}))
'''

KERNELS = ["fdtd-2d", "heat-3d", "conv_bn_relu", "attention_rows", "seidel-2d", "correlation", "jacobi-2d"]


def measure(python: str, mode: str, name: str, cache: str) -> float:
    # no compile deadline: past it a compile skips optional isl work (and is not cached), so
    # what is compiled would depend on the load (as in codegen_hashes.py)
    env = dict(os.environ, POLYFUSE_CACHE_DIR=cache, POLYFUSE_COMPILE_SECONDS="0")
    if mode == "cold":
        env["POLYFUSE_DISABLE_CACHE"] = "1"
    else:
        env.pop("POLYFUSE_DISABLE_CACHE", None)
    done = subprocess.run([python, "-c", CHILD, mode, name], env=env, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    if mode != "cold" and mode != "fill" and not result["hit"]:
        raise RuntimeError(f"{name}: no disk-cache hit under {python}")
    return result["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="checkout A's Python interpreter")
    parser.add_argument("b", help="checkout B's Python interpreter")
    parser.add_argument("kernels", nargs="*", default=KERNELS)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_intermixed_args()
    sides = {"A": args.a, "B": args.b}
    caches = {side: tempfile.mkdtemp(prefix=f"polyfuse-compile-ab-{side}-") for side in sides}
    for side, python in sides.items():  # the warm loads' entries (and jacobi-1d's)
        for name in ["jacobi-1d", *args.kernels]:
            measure(python, "fill", name, caches[side])
    best: dict[tuple[str, str, str], float] = {}
    for _ in range(args.rounds):
        for name in args.kernels:
            for mode in ("cold", "first", "next"):
                for side, python in sides.items():
                    seconds = measure(python, mode, name, caches[side])
                    key = (name, mode, side)
                    best[key] = min(best.get(key, seconds), seconds)
    print(f"{'kernel':16s} {'cold A':>8s} {'cold B':>8s} {'warm first A':>13s} {'B':>6s} {'warm next A':>12s} {'B':>6s}   (ms)")
    for name in args.kernels:
        cells = [best[(name, mode, side)] * 1e3 for mode in ("cold", "first", "next") for side in sides]
        print(f"{name:16s} {cells[0]:8.0f} {cells[1]:8.0f} {cells[2]:13.1f} {cells[3]:6.1f} {cells[4]:12.1f} {cells[5]:6.1f}")


if __name__ == "__main__":
    main()
