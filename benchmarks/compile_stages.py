"""Where a cold compile's CPU goes, stage by stage, for suite kernels at their test sizes.

    taskset -c 0 python benchmarks/compile_stages.py [KERNEL ...]

(``np:NAME``: a NumPy program of ``polyfuse bench --section numpy``; ``preset=bench``: the arguments
at another size preset than ``test``: the functions the first calls run may depend on the sizes;
a loop kernel's results are then not checked, its Python function would take minutes.)

One process, ``POLYFUSE_DISABLE_CACHE=1``, an untimed compile of jacobi-1d first (imports).  Per
kernel: the thread CPU time of each pipeline stage (``Stages.run``: frontend ``lift``, isl's
``dependences``/``schedule``/``contraction``, ``loop ast``, the loop-AST passes, ``backend``:
LLVM IR built with llvmlite's IR builder and parsed once), then of each LLVM function the compile
and first two calls generated (``LLVMKernel._generated``), split into LLVM's optimiser (``opt``)
and the rest (``codegen``: MCJIT's code generation and the parses), with each function's IR
instruction count before and after the optimiser.  The kernel's results are checked against its
Python function.
"""

from __future__ import annotations

import os
import sys
import time

os.environ["POLYFUSE_DISABLE_CACHE"] = "1"

import numpy as np  # noqa: E402
from polyfuse.backends.cpu import llvm as cpu_llvm  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench import numpy_suite, suite  # noqa: E402
from polyfuse.model import stages as stages_mod  # noqa: E402

STAGES: dict[str, float] = {}
LLVM: list[tuple[str, float, float, int, int]] = []  # (function, opt s, total s, instructions before, after)
_OPT: list[float] = []
_COUNTS: list[int] = []


def _count(module) -> int:
    return sum(1 for fn in module.functions for block in fn.blocks for _ in block.instructions)


def _patch() -> None:
    run, loop_pass = stages_mod.Stages.run, stages_mod.Stages.run_loop_pass

    def timed_run(self, name, fn, *args, **kwargs):
        start = time.thread_time()
        try:
            return run(self, name, fn, *args, **kwargs)
        finally:
            STAGES[name] = STAGES.get(name, 0.0) + time.thread_time() - start

    def timed_pass(self, name, fn, program, **kwargs):
        start = time.thread_time()
        try:
            return loop_pass(self, name, fn, program, **kwargs)
        finally:
            STAGES[name] = STAGES.get(name, 0.0) + time.thread_time() - start

    stages_mod.Stages.run, stages_mod.Stages.run_loop_pass = timed_run, timed_pass
    optimize, generated = cpu_llvm.optimize, cpu_llvm.LLVMKernel._generated

    def timed_optimize(module, artifact, name=None):
        before = _count(module)
        start = time.thread_time()
        optimize(module, artifact, name)
        _OPT.append(time.thread_time() - start)
        _COUNTS.extend((before, _count(module)))

    def timed_generated(self, name):
        # (a serial function that runs its region generates the region first, in a nested call:
        # each function's own time is recorded, the nested one's taken out)
        fresh = name in self.pending
        _OPT.clear()
        _COUNTS.clear()
        done = len(LLVM)
        start = time.thread_time()
        address = generated(self, name)
        if fresh:
            nested = LLVM[done:]
            counts = _COUNTS[-2:] if len(_COUNTS) > 2 * len(nested) else [0, 0]
            opt = _OPT[-1] if len(_OPT) > len(nested) else 0.0
            spent = time.thread_time() - start - sum(f[2] for f in nested)
            LLVM.append((name, opt, spent, *counts))
        return address

    cpu_llvm.optimize, cpu_llvm.LLVMKernel._generated = timed_optimize, timed_generated


def _program(name: str, preset: str) -> tuple:
    """(function, arguments at ``preset``) of a suite kernel or, as ``np:NAME``, a NumPy program."""
    if name.startswith("np:"):
        program = numpy_suite.PROGRAMS[name[3:]]
        return program.func, program.args(preset)
    spec = suite.get(name)
    return spec.func, spec.make_args(np.random.default_rng(0), **spec.sizes[preset])


def main() -> None:
    presets = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("preset=")]
    preset = presets[-1] if presets else "test"
    names = [a for a in sys.argv[1:] if not a.startswith("preset=")]
    names = names or ["attention_rows", "conv_bn_relu", "heat-3d", "fdtd-2d", "cholesky"]
    _patch()
    for name in ["jacobi-1d", *names]:
        func, args = _program(name, "test" if name == "jacobi-1d" else preset)
        STAGES.clear()
        LLVM.clear()
        kernel = polyfuse.kernel(func)
        start = time.thread_time()
        kernel.compile(*args)
        compiled = time.thread_time() - start
        mine = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        kernel(*mine)
        kernel(*[np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args])
        total = time.thread_time() - start
        ref = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        if preset != "test" and not name.startswith("np:"):  # (a loop kernel in Python: minutes)
            ref = None
        else:
            func(*ref)
        ok = ref is None or all(np.allclose(x, y, rtol=1e-9, atol=1e-9, equal_nan=True)
                                for x, y in zip(mine, ref) if isinstance(x, np.ndarray))
        if name == "jacobi-1d":
            continue
        opt = sum(f[1] for f in LLVM)
        gen = sum(f[2] for f in LLVM) - opt
        print(f"== {name}: compile {compiled * 1e3:.0f} ms, compile + 2 calls {total * 1e3:.0f} ms "
              f"(thread CPU), LLVM opt {opt * 1e3:.0f} + codegen {gen * 1e3:.0f} ms, check {'skipped' if ref is None else 'ok' if ok else 'FAILED'}")
        print("   stages: " + ", ".join(f"{k} {v * 1e3:.0f}" for k, v in
                                         sorted(STAGES.items(), key=lambda kv: -kv[1]) if v >= 0.003))
        for fn, o, t, before, after in LLVM:
            print(f"   {fn:40s} opt {o * 1e3:6.0f}  codegen {(t - o) * 1e3:6.0f} ms   IR {before:6d} -> {after:6d} instructions")


if __name__ == "__main__":
    main()
