"""The register tiles on two threads, each call on half of the rows (as the row chunks of a
product on polyfuse's team run them), with ``B``'s packed panels shared between the calls
(``register_gemm.SHARED``) or packed by each call ("private"), against the tiles on the
calling thread alone ("one", "one_private"),  NumPy's matmul and jax.jit on their
own threads; interleaved in one process, wall clock and process CPU time::

    python benchmarks/register_gemm_threads.py 20 1024x512x1024 1024x1024x256 800x1000x900

Each shape prints the minimum over ROUNDS rounds of each contender's mean wall time and CPU time
(both threads) over a round's calls; the results are checked against NumPy's first (and shared against private bit
for bit).
"""

from __future__ import annotations

import ctypes
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from polyfuse.backends.cpu import blas, register_gemm

from polyfuse.options import machine

_ARGS = (ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64,
         ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)


def routine(shared: bool):
    address = register_gemm.compile_tiles(machine().l2, blas._ENGINES, True, machine().l3, shared)
    return ctypes.CFUNCTYPE(None, *_ARGS)(address)


def halves(pool, tiles, A, B, C):
    rows, depth = A.shape
    cols, half = B.shape[1], A.shape[0] // 2

    def run(first, last):
        tiles(last - first, cols, depth, 1.0, A[first:].ctypes.data, depth, B.ctypes.data, cols,
              C[first:].ctypes.data, cols)
    other = pool.submit(run, half, rows)
    run(0, half)
    other.result()


def contenders(pool, routines: tuple, product, A: np.ndarray, B: np.ndarray) -> tuple[dict, list]:
    rows, depth = A.shape
    cols = B.shape[1]
    shared, private = routines
    outs = [np.empty((rows, cols)) for _ in range(2)]

    def one(tiles, C):
        tiles(rows, cols, depth, 1.0, A.ctypes.data, depth, B.ctypes.data, cols, C.ctypes.data, cols)
    runs = {"shared": lambda: halves(pool, shared, A, B, outs[0]), "private": lambda: halves(pool, private, A, B, outs[1]),
            "one": lambda: one(shared, outs[0]), "one_private": lambda: one(private, outs[1]),
            "numpy": lambda: np.matmul(A, B)}
    if product is not None:
        import jax
        on_device = jax.device_put(A), jax.device_put(B)
        runs["jax"] = lambda: product(*on_device).block_until_ready()
    return runs, outs


def main(argv: list[str]) -> None:
    rounds, rng = int(argv[0]), np.random.default_rng(0)
    routines = routine(True), routine(False)
    pool = ThreadPoolExecutor(1)
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        product = jax.jit(lambda a, b: a @ b)
    except ImportError:
        product = None
    for shape in argv[1:]:
        rows, depth, cols = map(int, shape.split("x"))
        A, B = rng.standard_normal((rows, depth)), rng.standard_normal((depth, cols))
        runs, outs = contenders(pool, routines, product, A, B)
        runs["shared"]()
        runs["private"]()
        np.testing.assert_allclose(outs[0], A @ B, rtol=1e-10, atol=1e-10)
        np.testing.assert_array_equal(outs[0], outs[1])
        for run in runs.values():
            run()
        calls = max(3, int(3e7 / (rows * depth * cols)))
        wall, cpu = dict.fromkeys(runs, float("inf")), dict.fromkeys(runs, float("inf"))
        for _ in range(rounds):
            for name, run in runs.items():
                w, c = time.perf_counter(), time.process_time()
                for _ in range(calls):
                    run()
                # (per round, not per call: the CPU time of the other thread reaches the process's
                # with a delay, and the minimum of single calls picked calls it undercounted)
                wall[name] = min(wall[name], (time.perf_counter() - w) / calls)
                cpu[name] = min(cpu[name], (time.process_time() - c) / calls)
        print(f"{shape:16s}", "  ".join(f"{name} {wall[name] * 1e3:7.2f} ({cpu[name] * 1e3:6.2f} cpu)" for name in runs),
              f"  private/shared {wall['private'] / wall['shared']:.3f} wall", flush=True)
    with open("/proc/loadavg") as f:
        print(f"(min of {rounds} rounds, ms of wall (process CPU) time; load {f.read().split()[0]})")


if __name__ == "__main__":
    main(sys.argv[1:])
