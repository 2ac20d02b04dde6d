"""Process CPU of the compile of the test suite's heaviest programs (docs/performance.md, ct26).

    POLYFUSE_DISABLE_CACHE=1 python benchmarks/compile_heavy.py NAME [prof]

NAME: ogrid (tests/frontend/test_advanced_index.py ogrid_jacobi, target="python"), conv
(tests/frontend/test_loop_allocations.py conv_pool_conv, cpu), f32 (tests/corpus/numpy_np21.py
f32_rows, smart, verify=True), reg_b ... reg_g (tests/end_to_end/regressions/*_compile_time.py,
every parameter set compiled as test_regressions.py does).  Prints the min of ``N`` (env, default
3) compiles in this process; with ``prof``, one compile under cProfile (process CPU), by tottime
and cumtime.  Run from the repository root.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time

import numpy as np

import polyfuse

ROOT = os.getcwd()
sys.path.insert(0, ROOT + "/tests/corpus")


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def programs() -> dict:
    out = {}
    ai = _load(ROOT + "/tests/frontend/test_advanced_index.py", "tai")
    rng = np.random.default_rng(0)
    out["ogrid"] = lambda: polyfuse.kernel(ai.ogrid_jacobi, target="python")(
        rng.random((7, 7)), rng.random((7, 7)), 3)
    la = _load(ROOT + "/tests/frontend/test_loop_allocations.py", "tla")
    r2 = np.random.default_rng(2)
    conv_args = (r2.random((2, 11, 12, 1)), r2.random((3, 3, 1, 4)), r2.random((2, 2, 4, 3)))
    out["conv"] = lambda: polyfuse.kernel(la.conv_pool_conv, target="cpu")(*conv_args)
    np21 = _load(ROOT + "/tests/corpus/numpy_np21.py", "np21")
    case = next(c for c in np21.CASES if c.name == "f32_rows")
    out["f32"] = lambda: polyfuse.kernel(case.func, target="cpu", fuse="smart", verify=True)(
        *case.make_args(np.random.default_rng(0)))
    tr = _load(ROOT + "/tests/end_to_end/test_regressions.py", "treg")
    for path in tr.REGRESSIONS:
        if "compile_time" in path.stem:
            def compile_all(path=path):
                module = tr._load(path)
                kernel = polyfuse.kernel(tr._function(module), verify=True, **(module.OPTIONS or {}))
                for idx in range(len(module.PARAM_SETS)):
                    kernel.compile(*module.make_args(idx)[0])
            out["reg_" + path.stem[0]] = compile_all
    return out


def main() -> None:
    run = programs()[sys.argv[1]]
    if len(sys.argv) > 2:
        import cProfile
        import pstats
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        run()
        profile.disable()
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(35)
        stats.sort_stats("cumtime").print_stats(60)
        return
    times = []
    for _ in range(int(os.environ.get("N", 3))):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    print(sys.argv[1], f"min {min(times):.2f}", [f"{t:.2f}" for t in times])


if __name__ == "__main__":
    main()
