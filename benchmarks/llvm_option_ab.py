"""One LLVM command-line option against the default, on suite kernels, one thread.

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/llvm_option_ab.py > default.json
    POLYFUSE_DISABLE_CACHE=1 python benchmarks/llvm_option_ab.py -hoist-runtime-checks=false > off.json
    python benchmarks/llvm_option_ab.py --compare default.json off.json

LLVM's options are global to a process (``llvmlite.binding.set_option`` before the first
compile), so each setting runs in its own process: compare two runs made close together.
polyfuse itself sets ``-hoist-runtime-checks=false`` around its own pipeline and resets it after
(backends/cpu/llvm.py, ``PIPELINE_OPTIONS``), so that option is compared with
``POLYFUSE_ROW_ALIAS_CHECKS=0`` and ``1`` instead; any other option works as above.  Each
kernel runs on its bench inputs, one thread, the minimum of 3 calls after a first one.
"""

from __future__ import annotations

import json
import sys
import time

import llvmlite.binding as llvm
import numpy as np

KERNELS = ["gemm", "atax", "bicg", "mvt", "gemver", "syrk", "jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d",
           "seidel-2d", "lu", "cholesky", "floyd-warshall", "doitgen", "covariance"]


def timings() -> dict[str, float]:
    import polyfuse
    from polyfuse.bench import suite

    polyfuse.set_num_threads(1)
    out = {}
    for name in KERNELS:
        sk = suite.KERNELS[name]
        args = sk.make_args(np.random.default_rng(0), **sk.sizes["bench"])
        kernel = polyfuse.kernel(sk.func, cache=False)

        def fresh():
            return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)  # noqa: B023

        kernel(*fresh())
        best = float("inf")
        for _ in range(3):
            copies = fresh()
            start = time.perf_counter()
            kernel(*copies)
            best = min(best, time.perf_counter() - start)
        out[name] = round(best * 1e3, 2)
    return out


def main(argv: list[str]) -> None:
    if argv[:1] == ["--compare"]:
        a, b = (json.load(open(path)) for path in argv[1:3])
        for name in a:
            print(f"{name:16s} {a[name]:9.2f} ms  {b[name]:9.2f} ms  {a[name] / b[name]:.2f}x")
        return
    for option in argv:
        llvm.set_option("", option)
    print(json.dumps(timings()))


if __name__ == "__main__":
    main(sys.argv[1:])
