"""One NumPy program (``polyfuse bench --section numpy``) called for a few seconds in this process
alone: the minimum and mean wall time per call and the process's CPU time per call.

    POLYFUSE_DISABLE_CACHE=1 POLYFUSE_BLAS_ROW_CHUNKS=0 python benchmarks/cpu_per_call.py attention bench 2
    python benchmarks/cpu_per_call.py attention bench jax

The last argument is polyfuse's thread count, or ``jax`` for jax.jit (float64).  Run one process
per configuration, alternating, where configurations differ in their threads: in one process a
library's threads left spinning by one configuration's call slow the next configuration down
(OpenBLAS's workers, docs/performance.md), which an interleaved benchmark (numpy_ab.py) cannot
separate.  CPU time per call counts spinning threads, so it moves less with the machine's load than
wall time.  ``CALL_SECONDS=8`` changes the duration (default 4).  The result is checked against NumPy.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from polyfuse.bench.numpy_suite import PROGRAMS, with_numpy_namespace


def runner(func, args, mode: str):
    if mode == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        jitted = jax.jit(with_numpy_namespace(func, jax.numpy))
        device = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        return lambda: np.asarray(jax.block_until_ready(jitted(*device)))
    import polyfuse
    from polyfuse.bench.machine import set_polyfuse_threads

    set_polyfuse_threads(int(mode))
    kernel = polyfuse.kernel(func)
    return lambda: kernel(*args)


def main(argv: list[str]) -> None:
    name, preset, mode = argv
    program = PROGRAMS[name]
    args = program.args(preset)
    call = runner(program.func, args, mode)
    np.testing.assert_allclose(call(), program.func(*args), rtol=1e-9, atol=1e-12)
    for _ in range(3):
        call()
    calls, best = 0, float("inf")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - wall0 < float(os.environ.get("CALL_SECONDS", 4)):
        began = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - began)
        calls += 1
    cpu, wall = (time.process_time() - cpu0) / calls, (time.perf_counter() - wall0) / calls
    label = "jax.jit" if mode == "jax" else f"polyfuse T{mode}"
    print(f"{name} {preset} {label}: min {best * 1e3:.2f} ms, mean {wall * 1e3:.2f} ms, "
          f"cpu/call {cpu * 1e3:.2f} ms, {calls} calls, load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")


if __name__ == "__main__":
    main(sys.argv[1:])
