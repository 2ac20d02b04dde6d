"""numba against polyfuse configurations of one suite kernel, interleaved in one process.

    POLYFUSE_DISABLE_CACHE=1 POLYFUSE_NUM_THREADS=2 python benchmarks/schedule_ab.py lu 7 \\
        smart,POLYFUSE_OUTER_PARALLELISM:0 smart n=2000

Each configuration is ``FUSE[,KNOB:VALUE...]``: a ``polyfuse.kernel(fuse=FUSE)`` whose first call
(the compile) runs with those environment knobs set (``/`` stands for ``,`` in a value, as in
``POLYFUSE_TIME_TILE_SIZES:8/256/256``).  ``key=value`` arguments set the kernel's sizes (default:
the bench preset).  Every output is checked against numba's, then each round runs numba and every
configuration once on fresh copies of the same inputs; the minimum over rounds is printed, with
numba's time over each.  After that, for each configuration, how often its parallel regions and
phases ran on the team (the runtime falls back to one thread when the team loses).

Two more names may stand among the configurations: ``numpy`` runs the kernel's NumPy formulation
(``SuiteKernel.numpy_func``, BLAS on its own threads) and ``numpy1`` the same with BLAS on one
thread (threadpoolctl), checked like the others; ``-numba`` leaves numba out (its LARGE runs take
seconds), the first configuration then being the reference the ratios are taken against; ``-cpu``
times each call by the calling thread's CPU time (``time.thread_time``) instead of the wall clock,
which moves less with the machine's load: a measure for ``POLYFUSE_NUM_THREADS=1`` runs only (a
team's other threads are not counted):

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/schedule_ab.py covariance 30 -numba numpy numpy1 \
        smart smart,POLYFUSE_BLAS_TRIANGLE_CHUNKS:0 m=1200 n=1400
"""

from __future__ import annotations

import inspect
import os
import statistics
import sys
import time

import numba
import numpy as np
from knobs import one_blas_thread  # (benchmarks/knobs.py: this script's folder is on sys.path)

import polyfuse
from polyfuse.bench import suite


def main(argv: list[str]) -> None:
    name, rounds = argv[0], int(argv[1])
    configs = [a for a in argv[2:] if "=" not in a and a not in ("-numba", "-cpu")]
    clock = time.thread_time if "-cpu" in argv[2:] else time.perf_counter
    sizes = {k: int(v) for k, v in (a.split("=") for a in argv[2:] if "=" in a)}
    sk = suite.get(name)
    sizes = sizes or dict(sk.sizes["bench"])
    base = sk.make_args(np.random.default_rng(0), **sizes)
    names = list(inspect.signature(sk.func).parameters)
    functions = {} if "-numba" in argv[2:] else {"numba": numba.njit(sk.func)}
    knobs: dict[str, dict[str, str]] = {}
    for config in configs:
        if config in ("numpy", "numpy1"):
            if sk.numpy_func is None:
                raise SystemExit(f"{name} has no NumPy formulation")
            functions[config] = sk.numpy_func if config == "numpy" else one_blas_thread(sk.numpy_func)
            continue
        fuse, *settings = config.split(",")
        functions[config] = polyfuse.kernel(sk.func, fuse=fuse)
        knobs[config] = {k: v.replace("/", ",") for k, v in (s.split(":") for s in settings)}
    expected = _fresh(base)
    (functions["numba"] if "numba" in functions else polyfuse.kernel(sk.func))(*expected)
    for config, fn in functions.items():
        saved = dict(os.environ)
        os.environ.update(knobs.get(config, {}))
        args = _fresh(base)
        start = time.perf_counter()
        fn(*args)
        print(f"  first call {config}: {time.perf_counter() - start:.2f} s", flush=True)
        os.environ.clear()
        os.environ.update(saved)
        for out in sk.outputs:
            k = names.index(out)
            assert np.allclose(args[k], expected[k], rtol=1e-7, atol=1e-9), (config, out)
    times: dict[str, list[float]] = {c: [] for c in functions}
    for _ in range(rounds):
        for config, fn in functions.items():
            args = _fresh(base)
            start = clock()
            fn(*args)
            times[config].append(clock() - start)
    first = next(iter(times))
    reference = min(times[first]) * 1e3
    threads = os.environ.get("POLYFUSE_NUM_THREADS", "default")
    load = open("/proc/loadavg").read().split()[0]
    what = "thread CPU " if clock is time.thread_time else ""
    print(f"{name} {sizes} threads={threads} load {load} {what}min of {rounds}: {first} {reference:.3f} ms; " + "; ".join(
        f"{c} {min(v) * 1e3:.3f} ms ({reference / (min(v) * 1e3):.2f}x)" for c, v in times.items() if c != first))
    middle = statistics.median(times[first]) * 1e3
    print(f"  medians: {first} {middle:.3f} ms; " + "; ".join(
        f"{c} {statistics.median(v) * 1e3:.3f} ms ({middle / (statistics.median(v) * 1e3):.2f}x)"
        for c, v in times.items() if c != first))
    for config in configs:
        if config in ("numpy", "numpy1"):
            continue
        backend = functions[config].compile(*base).backend
        print(f"  {config}: region runs on the team {dict(getattr(backend, 'region_runs', {}))}, "
              f"phase runs {dict(getattr(backend, 'phase_runs', {}))}")


def _fresh(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


if __name__ == "__main__":
    main(sys.argv[1:])
