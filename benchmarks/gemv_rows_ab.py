"""Matrix-vector products as polyfuse's row loops against ?gemv (``blas=True``) and jax.jit, on
one thread: process CPU time, interleaved, min of ROUNDS x 2 calls (session 29, jx35:
``POLYFUSE_GEMV_ROW_LOOPS``).  Each kernel is checked against NumPy first.

    taskset -c 0 python benchmarks/gemv_rows_ab.py 1900,2800,4000 16
"""

import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import threadpoolctl  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench.machine import set_polyfuse_threads  # noqa: E402

jax.config.update("jax_enable_x64", True)


def mv(A, x):
    return A @ x


def mvt(A, y):
    return A.T @ y


def two(A, B, x):
    return 1.5 * (A @ x) + 1.2 * (B @ x)


def main(sizes: str, rounds: int) -> None:
    set_polyfuse_threads(1)
    threadpoolctl.threadpool_limits(1)
    rng = np.random.default_rng(0)
    for n in map(int, sizes.split(",")):
        A, B, x = rng.random((n, n)), rng.random((n, n)), rng.random(n)
        runs = {}
        for f, args in ((mv, (A, x)), (mvt, (A, x)), (two, (A, B, x))):
            for blas in (True, False):
                k = polyfuse.kernel(f, blas=blas)
                np.testing.assert_allclose(k(*args), f(*args), rtol=1e-11)
                runs[f"{f.__name__} {'blas' if blas else 'loops'}"] = (k, args)
            jitted = jax.jit(f)
            jargs = tuple(map(jnp.asarray, args))
            jitted(*jargs)
            runs[f"{f.__name__} jax"] = (lambda *a, j=jitted: j(*a).block_until_ready(), jargs)
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(rounds):
            for label, (run, args) in runs.items():
                for _ in range(2):
                    start = time.process_time()
                    run(*args)
                    best[label] = min(best[label], time.process_time() - start)
        load = open("/proc/loadavg").read().split()[0]
        print(n, "load", load, "  ".join(f"{label} {t * 1e3:.3f}" for label, t in best.items()), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
