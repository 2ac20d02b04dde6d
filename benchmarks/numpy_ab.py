"""polyfuse configurations of one NumPy program (``polyfuse bench --section numpy``), interleaved in
one process, with NumPy and jax.jit (where installed) in the same rounds.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/numpy_ab.py hdiff 10 smart smart,POLYFUSE_SERIAL_FUSION:0

Each configuration is ``FUSE[,KNOB:VALUE...]`` as in benchmarks/schedule_ab.py: a
``polyfuse.kernel(fuse=FUSE)`` compiled with those environment knobs set.  ``preset=NAME`` picks
the size preset (default ``bench``), ``threads=1/2`` the polyfuse thread counts timed (default
both).  Every output is checked against the undecorated function; each round runs every
configuration at every thread count once; the minimum over rounds is printed with the load.
``block=N`` calls each configuration N times in a row per round on the same inputs (the later
calls find them in cache, as the bench's repeated calls on the same inputs do).  ``clock=cpu`` times the process's CPU time instead of the wall clock: on a loaded machine the
measure that moves least, for one thread pinned to a core (with NumPy's BLAS and XLA on one
thread too)::

    POLYFUSE_DISABLE_CACHE=1 OPENBLAS_NUM_THREADS=1 \
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
    taskset -c 0 python benchmarks/numpy_ab.py attention 40 smart,POLYFUSE_NARROW_GEMM:0 smart threads=1 clock=cpu
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from knobs import knobs_set  # (benchmarks/knobs.py: this script's folder is on sys.path)

import polyfuse
from polyfuse.bench.machine import set_polyfuse_threads
from polyfuse.bench.numpy_suite import PROGRAMS, jax_blocker, with_numpy_namespace


def compiled(func, config: str, args, expected):
    """The kernel of ``config``, compiled (its first call) with the configuration's knobs set and
    checked against the undecorated function's ``expected`` output."""
    fuse, *settings = config.split(",")
    knobs = dict(s.split(":", 1) for s in settings)
    with knobs_set({k: v.replace("/", ",") for k, v in knobs.items()}):
        kernel = polyfuse.kernel(func, fuse=fuse)
        result = kernel(*fresh(args))
        if expected is not None:  # (programs that update their arguments return nothing: not compared)
            np.testing.assert_allclose(result, expected, rtol=1e-10, atol=1e-12)
        return kernel


def jax_runner(func, args):
    if jax_blocker(func):
        return None
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    jitted = jax.jit(with_numpy_namespace(func, jax.numpy))
    device_args = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return lambda *_: jax.block_until_ready(jitted(*device_args))


def fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def contenders(argv: list[str], with_numpy: bool = True) -> tuple[str, int, dict, list, dict]:
    """The command line ``PROGRAM ROUNDS CONFIG... key=value...`` read: the program's name, the
    rounds, the options, its arguments and the runners by label (each polyfuse config compiled and
    checked against NumPy, on each of ``threads=1/2``; NumPy as written where ``with_numpy``;
    ``jax.jit`` where JAX is installed), each with its polyfuse thread count or None."""
    name, rounds = argv[0], int(argv[1])
    options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    configs = [a for a in argv[2:] if "=" not in a]
    program = PROGRAMS[name]
    args = program.args(options.get("preset", "bench"))
    thread_counts = [int(t) for t in options.get("threads", "1/2").split("/")]
    expected = program.func(*fresh(args))
    runners = {}
    for config in configs:
        kernel = compiled(program.func, config, args, expected)
        for threads in thread_counts:
            runners[f"polyfuse {config} T{threads}"] = (kernel, threads)
    if with_numpy:
        runners["numpy"] = (program.func, None)
    jax_run = jax_runner(program.func, args)
    if jax_run is not None:
        jax_run()
        runners["jax.jit"] = (jax_run, None)
    return name, rounds, options, args, runners


def main(argv: list[str]) -> None:
    name, rounds, options, args, runners = contenders(argv)
    clock = {"wall": time.perf_counter, "cpu": time.process_time}[options.get("clock", "wall")]
    best = dict.fromkeys(runners, float("inf"))
    block = int(options.get("block", "1"))
    for _ in range(rounds):
        for label, (run, threads) in runners.items():
            if threads is not None:
                set_polyfuse_threads(threads)
            inputs = fresh(args)
            for _ in range(block):  # (programs that update their inputs: the later calls see the updates)
                began = clock()
                run(*inputs)
                best[label] = min(best[label], clock() - began)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    for label, seconds in best.items():
        print(f"{name:14s} {label:48s} {seconds * 1e3:9.3f} ms")
    print(f"(min of {rounds} interleaved rounds of {block}, {options.get('clock', 'wall')} time; load {load} on "
          f"{os.cpu_count()} cores)")


if __name__ == "__main__":
    main(sys.argv[1:])
