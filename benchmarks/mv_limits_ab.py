"""Matrix-vector (and other streaming) suite kernels against the triad and their traffic ceiling,
variants of POLYFUSE_* knobs interleaved in one process (A B A B ..., min of rounds).

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/mv_limits_ab.py [kernels=gemver,atax] [preset=bench]
        [rounds=7] [threads=1,2] [variants="base:;rev:POLYFUSE_X=1"]

Each variant is ``label:KNOB=V,KNOB=V`` (an empty list: the defaults); every kernel is compiled once
per variant with those variables set and checked against the first variant's outputs (and the
user's function at the test preset).  Inputs are copied afresh (untimed) before every call, as in the
bench.  Per kernel, thread count and variant: the best wall ms, the process CPU ms of that call
(all threads), the least process CPU ms of any call (``min cpu``: on a loaded machine, where the
walls mostly measure the waits for a core, the number to compare; on one thread it is the
kernel's own time), GB/s with the bench's bytes (every array argument once), % of the triad measured in
the same rounds, and % of the kernel's traffic ceiling (``polyfuse.bench.limits.min_traffic``: the
bytes any schedule moves at least; the ceiling is those bytes at the triad's bandwidth).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.limits import TRIAD_SCALAR, min_traffic, stream_triad
from polyfuse.bench.machine import set_polyfuse_threads


def bench_bytes(args: tuple) -> int:
    return sum(a.nbytes for a in args if isinstance(a, np.ndarray))


def fresh(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def with_env(settings: dict[str, str], make):
    saved = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    try:
        return make()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def parse_variants(text: str) -> dict[str, dict[str, str]]:
    variants = {}
    for part in text.split(";"):
        label, _, knobs = part.partition(":")
        variants[label] = dict(kv.split("=", 1) for kv in knobs.split(",") if kv)
    return variants


def compile_variant(entry, settings, args):
    def make():
        k = polyfuse.kernel(entry.func)
        k(*fresh(args))
        return k
    return with_env(settings, make)


def check_small(entry, settings) -> bool:
    args = entry.make_args(np.random.default_rng(1), **entry.sizes["test"])
    ours, ref = fresh(args), fresh(args)
    with_env(settings, lambda: polyfuse.kernel(entry.func)(*ours))
    entry.func(*ref)
    return all(np.allclose(a, b, rtol=1e-9) for a, b in zip(ours, ref) if isinstance(a, np.ndarray))


def timed(fn, args):
    call = fresh(args)
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*call)
    return time.perf_counter() - wall, time.process_time() - cpu, call


def main(argv: list[str]) -> None:
    opts = dict(a.split("=", 1) for a in argv)
    names = opts.get("kernels", "gemver,atax,bicg,mvt,gesummv,chain3,softmax").split(",")
    preset, rounds = opts.get("preset", "bench"), int(opts.get("rounds", 7))
    thread_counts = [int(t) for t in opts.get("threads", "1,2").split(",")]
    variants = parse_variants(opts.get("variants", "base:"))
    rng = np.random.default_rng(0)
    n = 1 << 24
    ta, tb, tc = np.empty(n), rng.random(n), rng.random(n)
    triad = polyfuse.kernel(stream_triad)
    triad(TRIAD_SCALAR, ta, tb, tc)
    cases, sizes = {}, {}
    for name in names:
        entry = suite.get(name)
        args = entry.make_args(np.random.default_rng(0), **entry.sizes[preset])
        sizes[name] = entry.sizes[preset]
        for label, settings in variants.items():
            ok = check_small(entry, settings)
            cases[(name, label)] = (compile_variant(entry, settings, args), args, ok)
    best: dict[tuple, tuple[float, float]] = {}
    least_cpu: dict[tuple, float] = {}
    outputs: dict[tuple, tuple] = {}

    def keep(key, wall, cpu):
        if wall < best.get(key, (np.inf, 0.0))[0]:
            best[key] = (wall, cpu)
        least_cpu[key] = min(cpu, least_cpu.get(key, np.inf))

    for _ in range(rounds):
        for threads in thread_counts:
            set_polyfuse_threads(threads)
            keep(("triad", threads), *timed(triad, (TRIAD_SCALAR, ta, tb, tc))[:2])
            for (name, label), (k, args, _) in cases.items():
                wall, cpu, out = timed(k, args)
                keep((name, label, threads), wall, cpu)
                outputs[(name, label)] = out
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"preset={preset}, min of {rounds} interleaved rounds; load {load} on {os.cpu_count()} cores")
    for threads in thread_counts:
        t_ms = best[("triad", threads)][0] * 1e3
        triad_gb = 3 * 8 * n / t_ms / 1e6
        print(f"T{threads}: triad {t_ms:.2f} ms {triad_gb:.1f} GB/s (min cpu {least_cpu[('triad', threads)] * 1e3:.2f} ms)")
        for (name, label), (_, args, ok) in cases.items():
            wall, cpu = best[(name, label, threads)]
            ms = wall * 1e3
            gb = bench_bytes(args) / ms / 1e6
            floor = min_traffic(name, sizes[name], bench_bytes(args))
            ceiling = 100.0 * bench_bytes(args) / floor
            same = all(np.allclose(a, b, rtol=1e-9) for a, b in
                       zip(outputs[(name, label)], outputs[(name, next(iter(variants)))])
                       if isinstance(a, np.ndarray))
            print(f"  {name:8s} {label:10s} {ms:8.3f} ms cpu {cpu * 1e3:8.3f} ms min cpu "
                  f"{least_cpu[(name, label, threads)] * 1e3:8.3f} ms {gb:6.1f} GB/s "
                  f"{100 * gb / triad_gb:5.1f}% triad  ceiling {ceiling:5.1f}%  "
                  f"= {100 * gb / triad_gb / ceiling * 100:5.1f}% of it  small-ok={ok} same={same}")


if __name__ == "__main__":
    main(sys.argv[1:])
