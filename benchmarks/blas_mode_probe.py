"""Each BLAS thread mode of a suite kernel's products against its NumPy formulation.

    python benchmarks/blas_mode_probe.py 3mm library rows serial measure

One process per mode (``POLYFUSE_BLAS_THREADS`` is read when a site is first measured), so run it
as above: it re-runs itself once per mode.  In each, the kernel is compiled without the disk
cache and warmed, then polyfuse's call and the NumPy formulation alternate ``ROUNDS`` times on
fresh copies; the minimum wall time and the minimum process CPU time (every thread: OpenBLAS's
workers count) of each are printed, and polyfuse's outputs are checked against NumPy's with the
bench's tolerance.  Session 25 found 3mm on the library's threads at 1.6x NumPy's time for the
same three OpenBLAS calls; this is the probe that showed it.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import time

ROUNDS = int(os.environ.get("ROUNDS", "15"))


def probe(name: str, mode: str) -> str:
    os.environ["POLYFUSE_BLAS_THREADS"] = mode
    os.environ["POLYFUSE_DISABLE_CACHE"] = "1"
    import numpy as np

    import polyfuse
    from polyfuse.bench import suite
    from polyfuse.bench.measure import close_enough

    kernel_def = suite.KERNELS[name]
    args = kernel_def.make_args(np.random.default_rng(0), **kernel_def.sizes["bench"])

    def fresh() -> list:
        return [a.copy() if isinstance(a, np.ndarray) else a for a in args]

    kernel = polyfuse.kernel(kernel_def.func)
    for _ in range(20):
        kernel(*fresh())
    checked_pf, checked_np = fresh(), fresh()
    kernel(*checked_pf)
    expected = suite.numpy_outputs(kernel_def, checked_np)
    params = list(inspect.signature(kernel_def.func).parameters)
    for out_name, value in expected.items():
        ok, _ = close_enough(checked_pf[params.index(out_name)], value)
        if not ok:
            return f"{name} {mode}: output {out_name} differs from NumPy's"
    best: dict[str, float] = {}
    for _ in range(ROUNDS):
        for who, fn in (("polyfuse", kernel), ("numpy", kernel_def.numpy_func)):
            call_args = fresh()
            cpu, wall = time.process_time(), time.perf_counter()
            fn(*call_args)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best[who] = min(best.get(who, float("inf")), wall)
            best[who + " cpu"] = min(best.get(who + " cpu", float("inf")), cpu)
    shown = ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in best.items())
    return f"{name} {mode:8s} load {os.getloadavg()[0]:.2f}: {shown}"


def main(argv: list[str]) -> None:
    name, *modes = argv
    if len(modes) == 1:
        print(probe(name, modes[0]), flush=True)
        return
    for mode in modes or ["library", "rows", "serial", "measure"]:
        subprocess.run([sys.executable, __file__, name, mode], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
