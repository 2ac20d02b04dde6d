"""OpenBLAS's thread pool against one thread, and polyfuse's BLAS calls against its loops.

    python benchmarks/blas_threads.py pool      # A @ B: OpenBLAS's pool vs the caller's thread alone
    python benchmarks/blas_threads.py kernel    # suite gemm: blas=True vs blas=False, small sizes
    python benchmarks/blas_threads.py suite 7 gemm,2mm   # suite kernels at LARGE: polyfuse's BLAS calls
                                                         # on the pool vs the caller alone, and NumPy

``pool``: NumPy's ``A @ B`` at n = 128 ... 1000 with OpenBLAS's own thread count, and with
``openblas_set_num_threads_local(1)`` (NumPy's OpenBLAS 0.3.31 has it: the calling thread's calls
run on that thread only, nothing else in the process changes), interleaved, min of 7 rounds of
repeated calls, a 0.12 s pause between (OpenBLAS's threads spin ~0.1 s after a call).  On a
machine whose second core is taken by another job the pool waits for its thread, so one thread
wins; on a free machine the pool wins at large sizes.  ``kernel``: the suite's gemm written as
loops, compiled with ``blas=True`` (the product goes to ``?gemm`` from ``BLAS_MIN_WORK``
multiply-adds) and ``blas=False`` (register-tiled loops), polyfuse on one thread, BLAS as
configured.  ``suite``: suite kernels at their LARGE sizes, polyfuse (its BLAS calls on
OpenBLAS's pool, and with ``openblas_set_num_threads_local(1)`` set on the calling thread, where
polyfuse's serial phases and so its BLAS calls run) and NumPy's formulation, interleaved, each
after ``measure.settle()``.  Each prints the load average with each row.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
import time

import numpy as np


def _load() -> str:
    return open("/proc/loadavg").read().split()[0]


def _local():
    """NumPy's OpenBLAS ``openblas_set_num_threads_local`` (returns the previous setting)."""
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*"))
    local = ctypes.CDLL(libs[0]).openblas_set_num_threads_local
    local.argtypes, local.restype = [ctypes.c_int], ctypes.c_int
    return local


def pool() -> None:
    local = _local()
    rng = np.random.default_rng(0)
    for n in (128, 192, 256, 512, 1000):
        a, b = rng.random((n, n)), rng.random((n, n))
        reps = max(3, int(3e8 / n ** 3))
        times: dict[str, list[float]] = {"pool": [], "one thread": []}
        for _ in range(7):
            for mode, runs in times.items():
                previous = local(1) if mode == "one thread" else None
                start = time.perf_counter()
                for _ in range(reps):
                    a @ b
                runs.append((time.perf_counter() - start) / reps)
                if previous is not None:
                    local(previous)
                time.sleep(0.12)
        print(f"n={n} " + " ".join(f"{m} {min(v) * 1e3:.3f} ms" for m, v in times.items()) + f" load {_load()}",
              flush=True)


def kernel() -> None:
    import polyfuse
    from polyfuse.bench import measure, suite
    from polyfuse.runtime import threads

    sk = suite.get("gemm")
    kernels = {"blas": polyfuse.kernel(sk.func), "loops": polyfuse.kernel(sk.func, blas=False)}
    threads.set_num_threads(1)
    for n in (24, 32, 48, 64, 96, 128, 192):
        base = sk.make_args(np.random.default_rng(0), ni=n, nj=n, nk=n)
        expected = measure.fresh(base)
        sk.func(*expected) if n <= 48 else kernels["loops"](*expected)
        for k in kernels.values():
            got = measure.fresh(base)
            k(*got)
            assert np.allclose(got[5], expected[5], rtol=1e-9)
        reps = max(20, int(2e7 / n ** 3))
        times: dict[str, list[float]] = {m: [] for m in kernels}
        for _ in range(7):
            for mode, k in kernels.items():
                calls = [measure.fresh(base) for _ in range(reps)]
                start = time.perf_counter()
                for args in calls:
                    k(*args)
                times[mode].append((time.perf_counter() - start) / reps)
        print(f"n={n} " + " ".join(f"{m} {min(v) * 1e6:.1f} us" for m, v in times.items()) + f" load {_load()}",
              flush=True)


def suite_kernels(rounds: int, names: str) -> None:
    import polyfuse
    from polyfuse.bench import measure, suite

    local = _local()
    for name in names.split(","):
        sk = suite.get(name)
        base = sk.make_args(np.random.default_rng(0), **sk.sizes["large"])
        k = polyfuse.kernel(sk.func)
        k(*measure.fresh(base))
        times: dict[str, list[float]] = {"pool": [], "one thread": [], "numpy": []}
        for _ in range(rounds):
            for mode, runs in times.items():
                args = measure.fresh(base)
                measure.settle()
                previous = local(1) if mode == "one thread" else None
                start = time.perf_counter()
                (sk.numpy_func if mode == "numpy" else k)(*args)
                runs.append(time.perf_counter() - start)
                if previous is not None:
                    local(previous)
        print(f"{name} " + " ".join(f"{m} {min(v) * 1e3:.1f} ms" for m, v in times.items()) + f" load {_load()}",
              flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "suite":
        suite_kernels(int(sys.argv[2]), sys.argv[3])
    else:
        {"pool": pool, "kernel": kernel}[sys.argv[1]]()
