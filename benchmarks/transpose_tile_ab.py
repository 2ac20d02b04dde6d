"""Transposing copies with and without their square tiles (schedule/tiling.py
``choose_transpose_tile``), interleaved in one process.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/transpose_tile_ab.py [rounds=3] [sizes=600,1000,2000,3000] \\
        [sides=0] [kernels=mirror,transpose,covariance,correlation]

"old" is compiled with ``POLYFUSE_TRANSPOSE_TILES=0`` (such nests untiled, as before), "new" as
shipped; each extra side in ``sides`` adds "sN", compiled with ``POLYFUSE_TRANSPOSE_TILE_SIDE=N``.
Kernels: the triangle mirror ``cov[i, j] /= c; cov[j, i] = cov[i, j]`` (covariance's last phase)
and a transpose ``B[j, i] = A[i, j]`` at each size; then covariance and correlation
(polyfuse/bench/suite.py) at the bench size against their NumPy formulations.  Each round runs
every contender of a row on fresh copies of the same inputs, ``reps`` times, and keeps the
minimum; results are checked against the Python function first (mirror, transpose: exactly).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from knobs import knobs_set

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import fresh


def mirror(m, float_n, cov):
    for i in range(m):
        for j in range(i, m):
            cov[i, j] /= float_n - 1.0
            cov[j, i] = cov[i, j]


def transpose(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[j, i] = A[i, j]


def compiled(fn, args, knobs: dict[str, str]):
    """``fn`` compiled for ``args`` with ``knobs`` set (the specialisation is kept after)."""
    with knobs_set(knobs):
        kernel = polyfuse.kernel(fn)
        kernel.compile(*args)
    return kernel


def best_ms(f, args, reps):
    best = 1e9
    for _ in range(reps):
        copies = fresh(args)
        start = time.perf_counter()
        f(*copies)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def checked(fn, kernels, args, exact):
    """Each kernel against ``fn`` on ``args`` (small ones: the Python function is slow)."""
    for k in kernels:
        want, got = fresh(args), fresh(args)
        fn(*want)
        k(*got)
        for w, g in zip(want, got):
            if isinstance(w, np.ndarray):
                assert (w == g).all() if exact else np.allclose(w, g, rtol=1e-9, atol=1e-12)


def main(argv: list[str]) -> None:
    rounds = int(argv[0]) if argv else 3
    sizes = [int(s) for s in argv[1].split(",")] if len(argv) > 1 else [600, 1000, 2000, 3000]
    sides = [int(s) for s in argv[2].split(",") if int(s)] if len(argv) > 2 else []
    kernels = argv[3].split(",") if len(argv) > 3 else ["mirror", "transpose", "covariance", "correlation"]
    contenders = {"old": {"POLYFUSE_TRANSPOSE_TILES": "0"}, "new": {}}
    contenders.update({f"s{s}": {"POLYFUSE_TRANSPOSE_TILE_SIDE": str(s)} for s in sides})
    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        reps = max(5, min(30, int(30 * (1000 / n) ** 2)))
        if "mirror" in kernels:
            rows.append((f"mirror {n}", mirror, (n, 700.0, rng.random((n, n))), (37, 700.0, rng.random((37, 37))),
                         None, reps))
        if "transpose" in kernels:
            rows.append((f"transpose {n}", transpose, (rng.random((n, n)), np.zeros((n, n))),
                         (rng.random((37, 45)), np.zeros((45, 37))), None, reps))
    for name in ("covariance", "correlation"):
        if name in kernels:
            spec = suite.get(name)
            rows.append((name, spec.func, spec.make_args(rng, **spec.sizes["bench"]),
                         spec.make_args(rng, m=37, n=45), spec.numpy_func, 15))
    built = []
    for label, fn, args, small, numpy_func, reps in rows:
        versions = {c: compiled(fn, args, knobs) for c, knobs in contenders.items()}
        checked(fn, versions.values(), small, exact=numpy_func is None)
        built.append((label, args, numpy_func, versions, reps))
    for _ in range(rounds):
        for label, args, numpy_func, versions, reps in built:
            base = f"numpy {best_ms(numpy_func, args, reps):.3f} " if numpy_func else ""
            timed = " ".join(f"{c} {best_ms(k, args, reps):.3f}" for c, k in versions.items())
            print(f"{label}: {base}{timed}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
