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
"""

from __future__ import annotations

import inspect
import os
import sys
import time

import numba
import numpy as np

import polyfuse
from polyfuse.bench import suite


def main(argv: list[str]) -> None:
    name, rounds = argv[0], int(argv[1])
    configs = [a for a in argv[2:] if "=" not in a]
    sizes = {k: int(v) for k, v in (a.split("=") for a in argv[2:] if "=" in a)}
    sk = suite.get(name)
    sizes = sizes or dict(sk.sizes["bench"])
    base = sk.make_args(np.random.default_rng(0), **sizes)
    names = list(inspect.signature(sk.func).parameters)
    functions = {"numba": numba.njit(sk.func)}
    knobs: dict[str, dict[str, str]] = {}
    for config in configs:
        fuse, *settings = config.split(",")
        functions[config] = polyfuse.kernel(sk.func, fuse=fuse)
        knobs[config] = {k: v.replace("/", ",") for k, v in (s.split(":") for s in settings)}
    expected = _fresh(base)
    functions["numba"](*expected)
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
            start = time.perf_counter()
            fn(*args)
            times[config].append(time.perf_counter() - start)
    reference = min(times["numba"]) * 1e3
    threads = os.environ.get("POLYFUSE_NUM_THREADS", "default")
    print(f"{name} {sizes} threads={threads} min of {rounds}: numba {reference:.3f} ms; " + "; ".join(
        f"{c} {min(v) * 1e3:.3f} ms ({reference / (min(v) * 1e3):.2f}x)" for c, v in times.items() if c != "numba"))
    for config in configs:
        backend = functions[config].compile(*base).backend
        print(f"  {config}: region runs on the team {dict(getattr(backend, 'region_runs', {}))}, "
              f"phase runs {dict(getattr(backend, 'phase_runs', {}))}")


def _fresh(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


if __name__ == "__main__":
    main(sys.argv[1:])
