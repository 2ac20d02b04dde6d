"""Configurations of a two-array stencil with its arrays placed at chosen distances, one thread.

    POLYFUSE_DISABLE_CACHE=1 POLYFUSE_NUM_THREADS=1 taskset -c 1 python benchmarks/row_heads_placement.py \\
        jacobi-2d 10 smart smart,POLYFUSE_ROW_HEADS_ALIKE:0 smart,POLYFUSE_ROW_HEADS:0 apart=0,16,48 \\
        [preset=bench] [n=1000 ...]

For a suite kernel whose first two array arguments have one shape (jacobi-2d, heat-3d: ``A``,
``B``), both are placed in one buffer: the second 16 bytes into a page (where NumPy's own large
allocations start), the first ``size + 4096 + APART`` bytes after it, for each ``APART`` of
``apart=`` (default 0,8,16,48: alike modulo 64 bytes, then apart).  Configurations are
``FUSE[,KNOB:VALUE...]`` as in benchmarks/schedule_ab.py (knobs set while the kernel compiles).
Each round runs every configuration once at every placement on the suite's inputs copied in; the
minimum of the calling thread's CPU time over rounds is printed.  NumPy's own copies are no such
control: after a large block is freed, glibc takes the next ones from the heap, and their offsets
modulo 64 vary with the allocation history (two 13.5 MB copies in a loop: 16 and 16 bytes into a
page the first time, then 2224 and 1344: 48 bytes apart modulo 64)."""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite


def compiled(func, config: str, args: tuple):
    """``func`` compiled by its first call on copies of ``args`` with ``config``'s knobs set."""
    fuse, *settings = config.split(",")
    knobs = dict(s.split(":") for s in settings)
    old = {k: os.environ.get(k) for k in knobs}
    os.environ.update(knobs)
    try:
        kernel = polyfuse.kernel(func, fuse=fuse, cache=False)
        kernel(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v
    return kernel


def main(argv: list[str]) -> None:
    name, rounds = argv[0], int(argv[1])
    options = dict(a.split("=") for a in argv[2:] if "=" in a)
    configs = [a for a in argv[2:] if "=" not in a]
    aparts = [int(x) for x in options.get("apart", "0,8,16,48").split(",")]
    sk = suite.get(name)
    sizes = dict(sk.sizes[options.pop("preset", "bench")])
    options.pop("apart", None)
    sizes.update({k: int(v) for k, v in options.items()})  # other key=value: the kernel's sizes
    base = sk.make_args(np.random.default_rng(0), **sizes)
    first, second = [i for i, a in enumerate(base) if isinstance(a, np.ndarray)][:2]
    shape, nbytes = base[first].shape, base[first].nbytes
    kernels = {c: compiled(sk.func, c, base) for c in configs}
    buf = np.empty(2 * nbytes + (1 << 20), np.uint8)
    start = (-buf.ctypes.data) % 4096 + 16
    best: dict[tuple[int, str], float] = {}
    for _ in range(rounds):
        for apart in aparts:
            at = start + nbytes + 4096 + apart
            for config, kernel in kernels.items():
                args = list(base)
                args[second] = buf[start:start + nbytes].view(np.float64).reshape(shape)
                args[first] = buf[at:at + nbytes].view(np.float64).reshape(shape)
                args[first][...], args[second][...] = base[first], base[second]
                began = time.thread_time()
                kernel(*args)
                took = time.thread_time() - began
                best[apart, config] = min(best.get((apart, config), float("inf")), took)
    for apart in aparts:
        row = "  ".join(f"{c} {best[apart, c] * 1e3:.3f}" for c in configs)
        print(f"{name} {sizes} apart {apart} (mod 64: {apart % 64}) ms: {row}")
    print(f"thread CPU, min of {rounds}; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
