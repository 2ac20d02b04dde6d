"""The NumPy programs against jax.jit on one thread at a size preset: process CPU time,
interleaved, min of ROUNDS x 2 calls; which programs trail jax (session 29, jx35).

    taskset -c 0 python benchmarks/jax_scan.py large 5 [name,name,...]
"""

import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import threadpoolctl  # noqa: E402
from numpy_ab import contenders, fresh  # noqa: E402

from polyfuse.bench.machine import set_polyfuse_threads  # noqa: E402
from polyfuse.bench.numpy_suite import PROGRAMS, jax_blocker  # noqa: E402


def main(preset: str, rounds: int, names: list[str]) -> None:
    threadpoolctl.threadpool_limits(1)
    for name in names:
        _, _, _, args, runners = contenders([name, "1", "smart", f"preset={preset}", "threads=1"], with_numpy=False)
        best = dict.fromkeys(runners, float("inf"))
        for _ in range(rounds):
            for label, (run, threads) in runners.items():
                if threads is not None:
                    set_polyfuse_threads(threads)
                inputs = fresh(args)
                for _ in range(2):
                    start = time.process_time()
                    run(*inputs)
                    best[label] = min(best[label], time.process_time() - start)
        pf, jx = best["polyfuse smart T1"], best.get("jax.jit", float("nan"))
        load = open("/proc/loadavg").read().split()[0]
        print(f"{name:18s} pf {pf * 1e3:9.3f} ms  jax {jx * 1e3:9.3f} ms  jax/pf {jx / pf:5.2f}x  load {load}", flush=True)


if __name__ == "__main__":
    chosen = sys.argv[3].split(",") if len(sys.argv) > 3 else [n for n, p in PROGRAMS.items() if not jax_blocker(p.func)]
    main(sys.argv[1], int(sys.argv[2]), chosen)
