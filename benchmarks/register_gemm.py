"""The register tiles (backends/cpu/register_gemm.py) against NumPy's matmul (OpenBLAS) and
jax.jit on products ``rows x depth @ depth x cols``, interleaved in one process, process CPU time
(run it pinned, with the libraries on one thread)::

    OPENBLAS_NUM_THREADS=1 XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \\
    taskset -c 1 python benchmarks/register_gemm.py 5 1024x1100x64 1024x1024x256

Each shape prints the minimum over ROUNDS rounds (of a few calls each) of every contender (the
tiles as ``ROW_GEMM`` gets them, the tiles compiled the other way: ``unpacked`` or ``packed``,
NumPy, jax.jit), and the ratios; the tiles' result is checked against NumPy's first.  jax is
optional.
"""

from __future__ import annotations

import ctypes
import sys
import time

import numpy as np
from polyfuse.backends.cpu import blas, register_gemm

from polyfuse.options import machine

_OTHER: list[int] = []


def _other_tiles() -> int:
    """The tiles compiled the other way (packing ``B``'s panels or not), for the A/B."""
    if not _OTHER:
        _OTHER.append(register_gemm.compile_tiles(machine().l2, blas._ENGINES, not register_gemm.PACKED,
                                                  l3_bytes=machine().l3))
    return _OTHER[0]

_ARGS = (ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_double, ctypes.c_void_p, ctypes.c_int64,
         ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64)


def contenders(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> dict:
    rows, depth = A.shape
    cols = B.shape[1]
    tiles = ctypes.CFUNCTYPE(None, *_ARGS)(blas.tiles_address())
    other = ctypes.CFUNCTYPE(None, *_ARGS)(_other_tiles())
    found = {"tiles": lambda: tiles(rows, cols, depth, 1.0, A.ctypes.data, depth, B.ctypes.data, cols,
                                    C.ctypes.data, cols),
             "unpacked" if register_gemm.PACKED else "packed":
                 lambda: other(rows, cols, depth, 1.0, A.ctypes.data, depth, B.ctypes.data, cols, C.ctypes.data, cols),
             "numpy": lambda: np.matmul(A, B)}
    try:
        import jax
    except ImportError:
        return found
    jax.config.update("jax_enable_x64", True)
    product = jax.jit(lambda a, b: a @ b)
    on_device = jax.device_put(A), jax.device_put(B)
    found["jax"] = lambda: product(*on_device).block_until_ready()
    return found


def main(argv: list[str]) -> None:
    rounds, rng = int(argv[0]), np.random.default_rng(0)
    for shape in argv[1:]:
        rows, depth, cols = map(int, shape.split("x"))
        A, B, C = rng.standard_normal((rows, depth)), rng.standard_normal((depth, cols)), np.empty((rows, cols))
        runs = contenders(A, B, C)
        runs["tiles"]()
        np.testing.assert_allclose(C, A @ B, rtol=1e-10, atol=1e-10)
        calls = max(3, int(6e7 / (rows * depth * cols)))
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(rounds):
            for name, run in runs.items():
                for _ in range(calls):
                    began = time.process_time()
                    run()
                    best[name] = min(best[name], time.process_time() - began)
        ratios = "  ".join(f"{name}/tiles {best[name] / best['tiles']:.2f}" for name in best if name != "tiles")
        print(f"{shape:16s}", "  ".join(f"{name} {t * 1e3:8.3f} ms" for name, t in best.items()), " ", ratios)
    with open("/proc/loadavg") as f:
        print(f"(min of {rounds} rounds, process CPU time; load {f.read().split()[0]})")


if __name__ == "__main__":
    main(sys.argv[1:])
