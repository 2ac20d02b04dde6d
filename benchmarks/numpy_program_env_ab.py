"""NumPy programs compiled under sets of environment variables (compile-time knobs: one kernel
object per set, compiled with it in force), timed in turn with NumPy's own run, in one process:
rounds of series (``SERIES`` calls after ``measure.settle``), the contenders in a rotated order;
every output checked against NumPy's (rtol 1e-9).

    python benchmarks/numpy_program_env_ab.py gemm,mlp,attention 10 \
        "old:POLYFUSE_BLAS_PLAIN_LIBRARY=0" "new:POLYFUSE_BLAS_PLAIN_LIBRARY=1"
    PRESET=large python benchmarks/numpy_program_env_ab.py gemm 6 "old:..." "new:..."
    SIZES="300 350 400 450 500" python benchmarks/numpy_program_env_ab.py products3 12 "old:..." "new:..."
    python benchmarks/numpy_program_env_ab.py gemm,products2 10 \
        "stored:POLYFUSE_PRODUCT_SUMS=0" "summed:POLYFUSE_PRODUCT_SUMS=1"

Programs: ``polyfuse.bench.numpy_suite.PROGRAMS`` at ``PRESET`` (default "bench"),
``products3`` (``(A @ B) @ (C @ D)`` as three statements, 3mm's form; ``SIZES`` = ni nj nk nl nm)
and ``products2`` (``alpha * A @ B @ C + beta * D``, 2mm's form; ``SIZES2`` = ni nj nk nl).
Prints each contender's min, 25th percentile and median of the series' minima (wall ms).  Set
``POLYFUSE_DISABLE_CACHE=1``; on a loaded machine run it in an autogroup of its own at nice -20
and give the load.  Session 39 (pf53).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import numpy_suite
from polyfuse.bench.measure import settle

SERIES = int(os.environ.get("SERIES", "5"))


def products3(A, B, C, D):
    E = A @ B
    F = C @ D
    return E @ F


def products2(alpha, beta, A, B, C, D):
    return alpha * A @ B @ C + beta * D


def program(name: str):
    """(function, arguments) of a NumPy program."""
    if name == "products2":  # (2mm's form and bench sizes: ni nj nk nl)
        ni, nj, nk, nl = (int(x) for x in os.environ.get("SIZES2", "800 900 1100 1200").split())
        rng = np.random.default_rng(1)
        return products2, (1.5, 1.2, rng.random((ni, nk)), rng.random((nk, nj)), rng.random((nj, nl)),
                           rng.random((ni, nl)))
    if name == "products3":
        ni, nj, nk, nl, nm = (int(x) for x in os.environ.get("SIZES", "300 350 400 450 500").split())
        rng = np.random.default_rng(1)
        return products3, (rng.random((ni, nk)), rng.random((nk, nj)), rng.random((nj, nm)), rng.random((nm, nl)))
    prog = numpy_suite.PROGRAMS[name]
    return prog.func, prog.args(os.environ.get("PRESET", "bench"))


def compiled(func, args: tuple, env: dict[str, str]):
    """A kernel object whose first call (its compile) ran with ``env`` in force, then warmed."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        kernel = polyfuse.kernel(func)
        kernel(*args)
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    for _ in range(12):
        kernel(*args)
    return kernel


def outputs(result) -> tuple:
    return result if isinstance(result, tuple) else (result,)


def main(names: list[str], rounds: int, variants: list[str]) -> None:
    for name in names:
        func, args = program(name)
        want = outputs(func(*args))
        contenders = {"numpy": func}
        for variant in variants:
            tag, _, spec = variant.partition(":")
            contenders[tag] = compiled(func, args, dict(item.split("=", 1) for item in spec.split()))
        times: dict[str, list[float]] = {who: [] for who in contenders}
        for r in range(rounds):
            order = list(contenders)[r % len(contenders):] + list(contenders)[:r % len(contenders)]
            for who in order:
                settle()
                best = float("inf")
                for _ in range(SERIES):
                    began = time.perf_counter()
                    got = contenders[who](*args)
                    best = min(best, time.perf_counter() - began)
                for ours, theirs in zip(outputs(got), want):
                    assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-9), (name, who)
                times[who].append(best * 1e3)
        print(f"{name} load {os.getloadavg()[0]:.1f}")
        for who, values in times.items():
            v = np.array(values)
            print(f"  {who:10s} min {v.min():.3f}  p25 {np.percentile(v, 25):.3f}  median {np.median(v):.3f} ms")


if __name__ == "__main__":
    main(sys.argv[1].split(","), int(sys.argv[2]), sys.argv[3:])
