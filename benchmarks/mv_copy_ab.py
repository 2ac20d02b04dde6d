"""Does the bench's fresh copy of the inputs before each timed run slow the matrix-vector kernels?

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/mv_copy_ab.py [kernels=atax,bicg,mvt,gesummv]
        [rounds=15] [threads=2] [who=polyfuse,numba]

Per kernel and contender, interleaved in one process (one round: every way below once, in turn),
the best wall time and the process CPU time of that same call (all threads), and the best process
CPU time on its own:

- ``fresh``: ``fn(*fresh(args))``, the bench's way (``polyfuse.bench.measure.best_time``): new
  arrays each run, so fresh pages and the copy's last lines still dirty in the caches;
- ``flushed``: the same fresh copy, then a 96 MiB read of another array before the timing (the
  copy's dirty lines written back untimed);
- ``copyto``: ``np.copyto`` into the same buffers every run (no new pages; dirty lines as in ``fresh``);
- ``reused``: the same arrays every run, no copy (as the triad is timed; these kernels overwrite
  their outputs, so the result is the same).

The triad (``polyfuse.bench.limits.stream_triad``, 3 x 128 MiB, no copy) runs in each round too, so
that % triad compares like with like.  Every output is checked against the user's function.

First, per input array: is the copy still in the caches when the kernel starts?  The thread CPU
time of reading the copy's last 4 MiB right after ``a.copy()`` against after the copy and the
96 MiB read (best of ``rounds``): equal means the copy left nothing in the caches (NumPy's copy is
glibc's ``memmove``, which stores large copies non-temporally), less means it was read from cache.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.limits import TRIAD_SCALAR, stream_triad
from polyfuse.bench.machine import set_polyfuse_threads

WAYS = ("fresh", "flushed", "copyto", "reused")
FLUSH = np.ones(12 << 20)  # 96 MiB, read (not written) to push the copy's dirty lines out


def fresh(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def prepared(way: str, args: tuple, buffers: tuple) -> tuple:
    """The arguments of one timed call, prepared (untimed) the given way."""
    if way == "reused":
        return buffers
    if way == "copyto":
        for dst, src in zip(buffers, args):
            if isinstance(src, np.ndarray):
                np.copyto(dst, src)
        return buffers
    call = fresh(args)
    if way == "flushed":
        float(FLUSH.sum())
    return call


def tail_read(a: np.ndarray, flush: bool) -> float:
    """Thread CPU seconds to read the last 4 MiB of a fresh copy of ``a``."""
    b = a.copy()
    if flush:
        float(FLUSH.sum())
    tail = b.reshape(-1)[-min(b.size, 1 << 19):]
    began = time.thread_time()
    float(tail.sum())
    return time.thread_time() - began


def copy_left_in_cache(name: str, args: tuple, rounds: int) -> str:
    """Per array argument of 1 MiB or more: its MB and the tail read after the copy / after the flush."""
    parts = []
    for pos, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.nbytes >= 1 << 20:
            after = min(tail_read(a, False) for _ in range(rounds))
            flushed = min(tail_read(a, True) for _ in range(rounds))
            parts.append(f"arg {pos} ({a.nbytes / 1e6:.1f} MB): tail {after * 1e3:.3f} ms after the copy, "
                         f"{flushed * 1e3:.3f} flushed")
    return f"  {name:8s} " + "; ".join(parts)


def timed(fn, call: tuple) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*call)
    return time.perf_counter() - wall, time.process_time() - cpu


def contenders(name: str, who: list[str]) -> dict:
    entry = suite.get(name)
    made = {}
    if "polyfuse" in who:
        made["polyfuse"] = polyfuse.kernel(entry.func)
    if "numba" in who:
        import numba
        made["numba"] = numba.njit(entry.func)
    return made


def main(argv: list[str]) -> None:
    opts = dict(a.split("=", 1) for a in argv)
    names = opts.get("kernels", "atax,bicg,mvt,gesummv").split(",")
    rounds, threads = int(opts.get("rounds", 15)), int(opts.get("threads", 2))
    who = opts.get("who", "polyfuse").split(",")
    set_polyfuse_threads(threads)
    n = 1 << 24
    ta, tb, tc = np.empty(n), np.random.default_rng(1).random(n), np.random.default_rng(2).random(n)
    triad = polyfuse.kernel(stream_triad)
    print(f"is the copy in cache? (thread CPU of a 4 MiB tail read, best of {rounds}; load "
          f"{os.getloadavg()[0]:.1f})")
    for name in names:
        entry = suite.get(name)
        print(copy_left_in_cache(name, entry.make_args(np.random.default_rng(0), **entry.sizes["bench"]),
                                 rounds))
    cases = []
    for name in names:
        entry = suite.get(name)
        args = entry.make_args(np.random.default_rng(0), **entry.sizes["bench"])
        for label, fn in contenders(name, who).items():
            buffers = fresh(args)
            for _ in range(5):  # compiles, team trials, native entry: untimed
                fn(*fresh(args))
                fn(*buffers)
            cases.append((name, label, fn, args, buffers))
    best: dict[tuple, list[float]] = {}

    def keep(key, wall, cpu):
        b = best.setdefault(key, [np.inf, 0.0, np.inf])
        if wall < b[0]:
            b[0], b[1] = wall, cpu
        b[2] = min(b[2], cpu)

    loads = []
    for _ in range(rounds):
        keep(("triad",), *timed(triad, (TRIAD_SCALAR, ta, tb, tc)))
        for name, label, fn, args, buffers in cases:
            for way in WAYS:
                keep((name, label, way), *timed(fn, prepared(way, args, buffers)))
        loads.append(os.getloadavg()[0])
    triad_gb = 3 * 8 * n / best[("triad",)][0] / 1e9
    print(f"min of {rounds} interleaved rounds, {threads} thread(s); load {min(loads):.1f}-"
          f"{max(loads):.1f} on {os.cpu_count()} cores; triad {best[('triad',)][0] * 1e3:.2f} ms "
          f"{triad_gb:.1f} GB/s (cpu {best[('triad',)][2] * 1e3:.2f} ms)")
    for name, label, fn, args, _buffers in cases:
        nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        entry = suite.get(name)
        ref = fresh(args)
        entry.func(*ref)
        out = fresh(args)
        fn(*out)
        ok = all(np.allclose(a, b, rtol=1e-9) for a, b in zip(out, ref) if isinstance(a, np.ndarray))
        row = []
        for way in WAYS:
            wall, cpu_then, cpu = best[(name, label, way)]
            gb = nbytes / wall / 1e9
            row.append(f"{way} {wall * 1e3:6.2f} ms {100 * gb / triad_gb:4.0f}% (cpu {cpu_then * 1e3:6.2f}, "
                       f"best {cpu * 1e3:6.2f})")
        print(f"  {name:8s} {label:8s} ok={ok}  " + " | ".join(row))


if __name__ == "__main__":
    main(sys.argv[1:])
