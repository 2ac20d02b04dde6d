"""A NumPy program of the bench (``polyfuse bench --section numpy``) with the register tiles
sharing ``B``'s packed panels between the row chunks' calls and with each call packing its own,
both in one process, jax.jit interleaved::

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/register_gemm_programs.py mlp 15 3 [threads=2]

Each kernel's ``ROW_GEMM`` keeps the tiles' address it got on its first product, so two kernels
of the same program, compiled while ``blas.tiles_address`` answers the one or the other build,
run the two.  Each round calls each contender BLOCK times; printed: the minimum wall time of a
call, the median over rounds of a round's mean wall time, the minimum over rounds of a round's
mean process CPU time, and how many calls ran each phase on the team (``phase_runs``: the rest
ran serially, where the team lost at run time).  Outputs checked against the program's own.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from polyfuse.backends.cpu import blas, register_gemm

import polyfuse
from polyfuse.bench.machine import set_polyfuse_threads
from polyfuse.bench.numpy_suite import PROGRAMS, with_numpy_namespace
from polyfuse.options import machine


def kernels(func, args, want) -> dict:
    """The program compiled twice, its products on the tiles sharing packed panels or not."""
    builds = {shared: register_gemm.compile_tiles(machine().l2, blas._ENGINES, True, machine().l3, shared)
              for shared in (True, False)}
    found = {}
    for shared, address in builds.items():
        blas.tiles_address = lambda address=address: address  # type: ignore[assignment]
        kernel = polyfuse.kernel(func)
        for _ in range(4):  # (the first calls measure the team against the serial run)
            np.testing.assert_allclose(kernel(*args), want, rtol=1e-10, atol=1e-12)
        found["shared" if shared else "private"] = kernel
    return found


def main(argv: list[str]) -> None:
    name, rounds, block = argv[0], int(argv[1]), int(argv[2])
    options = dict(a.split("=", 1) for a in argv[3:])
    program = PROGRAMS[name]
    args = program.args("bench")
    want = program.func(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    set_polyfuse_threads(int(options.get("threads", "2")))
    runs = kernels(program.func, args, want)
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        jitted = jax.jit(with_numpy_namespace(program.func, jax.numpy))
        on_device = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        runs["jax"] = lambda *_: jax.block_until_ready(jitted(*on_device))
    except ImportError:
        pass
    wall, cpu = dict.fromkeys(runs, float("inf")), dict.fromkeys(runs, float("inf"))
    means: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(rounds):
        for label, run in runs.items():
            began_cpu, began = time.process_time(), time.perf_counter()
            for _ in range(block):
                one = time.perf_counter()
                run(*args)
                wall[label] = min(wall[label], time.perf_counter() - one)
            means[label].append((time.perf_counter() - began) / block)
            cpu[label] = min(cpu[label], (time.process_time() - began_cpu) / block)
    for label in runs:
        variants = getattr(runs[label], "_variants", {})
        teams = [getattr(v.backend, "phase_runs", None) for v in variants.values()] or None
        print(f"{name} {label:8s} wall min {wall[label] * 1e3:8.2f}  median of round means "
              f"{np.median(means[label]) * 1e3:8.2f}  cpu {cpu[label] * 1e3:8.2f} ms",
              "" if teams is None else f" team runs {teams}")
    with open("/proc/loadavg") as f:
        print(f"({rounds} rounds of {block}; load {f.read().split()[0]})")


if __name__ == "__main__":
    main(sys.argv[1:])
