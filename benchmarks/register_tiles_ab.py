"""Suite kernels compiled under sets of environment variables, in one process, timed in turn
(process CPU time, or wall time with ``--wall``), results checked bitwise against the first set
and against the NumPy formulation::

    POLYFUSE_NUM_THREADS=1 python benchmarks/register_tiles_ab.py bench 5 0 gemm 2mm 3mm \\
        "old:POLYFUSE_REGISTER_TILES_WIDE=0,POLYFUSE_REGISTER_CACHE_TILES=0,POLYFUSE_REGISTER_TILE_SUMS=8" "new:"

Arguments: preset, rounds, blas (0: the loops, ``blas=False``; 1: the default), kernel names,
then ``label:VAR=value,...`` sets (an empty set: the defaults).  Prints the minimum per set and
its speed-up over the first set.  ``SIZES='{"ni": 96, ...}'`` replaces the preset's sizes.
"""

from __future__ import annotations

import json
import os
import sys
import time

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numpy as np  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench import suite  # noqa: E402
from polyfuse.bench.measure import fresh  # noqa: E402


def compiled_under(spec, args, blas: bool, env: dict[str, str]):
    """The kernel compiled (and run once on a copy of ``args``) with ``env`` set; ``env`` undone."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        kernel = polyfuse.kernel(spec.func, blas=blas)
        out = fresh(args)
        kernel(*out)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value
    return kernel, out


def main(argv: list[str]) -> None:
    wall = "--wall" in argv
    argv = [a for a in argv if a != "--wall"]
    preset, rounds, blas = argv[0], int(argv[1]), argv[2] == "1"
    names = [a for a in argv[3:] if ":" not in a]
    sets = {label: dict(kv.split("=", 1) for kv in body.split(",") if kv)
            for label, _, body in (a.partition(":") for a in argv[3:] if ":" in a)}
    clock = time.perf_counter if wall else time.process_time
    for name in names:
        spec = suite.get(name)
        sizes = json.loads(os.environ["SIZES"]) if os.environ.get("SIZES") else spec.sizes[preset]
        args = spec.make_args(np.random.default_rng(0), **sizes)
        params = spec.func.__code__.co_varnames[:spec.func.__code__.co_argcount]
        outputs = [i for i, p in enumerate(params) if p in spec.outputs]
        kernels, results = {}, {}
        for label, env in sets.items():
            kernels[label], results[label] = compiled_under(spec, args, blas, env)
        first = next(iter(results))
        bitwise = all(np.array_equal(results[first][i], r[i]) for r in results.values() for i in outputs)
        close = None
        if spec.numpy_func is not None:
            reference = fresh(args)
            spec.numpy_func(*reference)
            close = all(np.allclose(r[i], reference[i], rtol=1e-9) for r in results.values() for i in outputs)
        best = dict.fromkeys(kernels, float("inf"))
        for _ in range(rounds):
            for label, kernel in kernels.items():
                call = fresh(args)
                began = clock()
                kernel(*call)
                best[label] = min(best[label], clock() - began)
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
        print(f"{name:12s} {preset}", "  ".join(f"{label} {t * 1e3:8.2f} ms ({best[first] / t:.2f}x)"
                                                for label, t in best.items()),
              f" bitwise {bitwise} numpy {close} load {load}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
