"""Each BLAS mode of suite kernels' products against their NumPy formulation, in one process.

    ROUNDS=40 python benchmarks/blas_modes_ab.py 3mm,2mm,gemm [preset=bench] [threads=2]
                                                 [modes=library,rows,serial,measure] [blas=N]

For each kernel, one polyfuse kernel per mode (``POLYFUSE_BLAS_THREADS`` is read when a product
is first measured: it is set before each kernel's first calls, no disk cache), each warmed by ten
calls; then, ``ROUNDS`` times, every mode's kernel and the NumPy formulation run once each on
fresh copies of the arguments, in a rotating order.  Prints the minimum and the median wall time of
each and the minimum process CPU time (sound only with one BLAS thread: ``blas=1`` limits
OpenBLAS with threadpoolctl for the whole run; its workers are invisible to process CPU time on
this VM), NumPy's wall time over each
mode's (>= 1: polyfuse as fast or faster), and the load.  Every kernel's outputs of its last call
are checked against the NumPy formulation's and against the user's function (compiled by Numba, as the
bench's reference; at the bench's tolerance) before anything is printed.
"""

from __future__ import annotations

import inspect
import os
import statistics
import sys
import time

import numba
import numpy as np
import threadpoolctl

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import close_enough
from polyfuse.runtime import threads


def run(name: str, preset: str, modes: list[str], rounds: int) -> None:
    kernel_def = suite.KERNELS[name]
    base = kernel_def.make_args(np.random.default_rng(0), **kernel_def.sizes[preset])

    def fresh() -> list:
        return [a.copy() if isinstance(a, np.ndarray) else a for a in base]

    runners = {}
    for mode in modes:
        os.environ["POLYFUSE_BLAS_THREADS"] = mode
        kernel = polyfuse.kernel(kernel_def.func, cache=False)
        for _ in range(10):
            kernel(*fresh())
        runners[mode] = kernel
    os.environ.pop("POLYFUSE_BLAS_THREADS", None)
    runners["numpy"] = kernel_def.numpy_func
    times: dict[str, list[float]] = {who: [] for who in runners}
    cpu: dict[str, list[float]] = {who: [] for who in runners}
    order = list(runners)
    last: dict[str, list] = {}
    for r in range(rounds):
        for who in order[r % len(order):] + order[:r % len(order)]:
            args = fresh()
            began, used = time.perf_counter(), time.process_time()
            runners[who](*args)
            times[who].append(time.perf_counter() - began)
            cpu[who].append(time.process_time() - used)
            last[who] = args
    params = list(inspect.signature(kernel_def.func).parameters)
    expected = suite.numpy_outputs(kernel_def, fresh())
    interpreted = fresh()
    numba.njit(kernel_def.func)(*interpreted)
    for who in modes:
        for out, value in expected.items():
            got = last[who][params.index(out)]
            for reference, what in ((value, "NumPy's"), (interpreted[params.index(out)], "the user's function's")):
                ok, _ = close_enough(got, reference)
                if not ok:
                    raise SystemExit(f"{name} {who}: output {out} differs from {what}")
    best_np = min(times["numpy"])
    load = os.getloadavg()[0]
    for who, runs in times.items():
        ratio = f"  numpy/this {best_np / min(runs):.2f}" if who != "numpy" else ""
        print(f"{name} {preset} {who:8s} min {min(runs) * 1e3:8.3f} ms  median {statistics.median(runs) * 1e3:8.3f} ms"
              f"  cpu min {min(cpu[who]) * 1e3:8.3f} ms{ratio}  load {load:.2f}", flush=True)


def main(argv: list[str]) -> None:
    names = argv[0].split(",")
    options = dict(a.split("=", 1) for a in argv[1:])
    threads.set_num_threads(int(options.get("threads", "2")))
    modes = options.get("modes", "library,rows,serial,measure").split(",")
    limit = int(options["blas"]) if "blas" in options else None
    with threadpoolctl.threadpool_limits(limits=limit, user_api="blas"):
        for name in names:
            run(name, options.get("preset", "bench"), modes, int(os.environ.get("ROUNDS", "40")))


if __name__ == "__main__":
    main(sys.argv[1:])
