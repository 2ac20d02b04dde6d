"""A parallel region's serial twin against its region function on one thread, per region phase.

    python benchmarks/twin_ab.py 41 fdtd-2d heat-3d jacobi-2d jacobi-1d seidel-2d
    python benchmarks/twin_ab.py 41 --preset quick cholesky

Each suite kernel (bench sizes; ``--preset``: another size preset of the suite) is compiled with
``POLYFUSE_TILED_TWINS=1 POLYFUSE_PACKED_TWINS=1`` (every region keeps its twin) and called once
on one thread to capture its phase arguments; then, for each region phase, the twin ``f(*args)``
and the region function ``region(*args, 0, 1, block)`` (what the serial function of a time-tiled
or packed-rows region runs: backends/cpu/llvm.py ``shared_twins``) run alternately on the same
arguments, the order swapped every round, and the minimum of each is printed with their ratio.
Say the load (``cat /proc/loadavg``) with the numbers.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from polyfuse.backends.cpu import llvm
from polyfuse.backends.cpu.parallel import BARRIER_WORDS

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads

KEPT: list[dict] = []  # every captured call's values, local arrays included


def phase_args(kernel, args) -> tuple:
    """The LLVM kernel and the argument list its phases get (one call on one thread)."""
    backend = kernel.compile(*args).backend
    captured: dict[str, list] = {}
    call = llvm.LLVMKernel.__call__

    def capture(self, values):
        captured["args"] = [self._value(p, values) for p in self.params]
        # (the arguments hold the local arrays' addresses: keep those arrays alive, or the
        # phases below write into freed memory; cholesky's panel, "corrupted double-linked list")
        KEPT.append(dict(values))
        return call(self, values)

    llvm.LLVMKernel.__call__ = capture
    try:
        with threads.limited_to(1):
            kernel(*args)
    finally:
        llvm.LLVMKernel.__call__ = call
    return backend, captured["args"]


def compare(compiled, values: list, rounds: int) -> tuple[float, float, int]:
    """Best seconds of the twin and of the region function on one thread, and the barriers one
    region run passes."""
    block = np.zeros(BARRIER_WORDS, dtype=np.int64)
    twin, region = compiled.function, compiled.region
    runs = {"twin": lambda: twin(*values), "region": lambda: region(*values, 0, 1, block.ctypes.data)}
    times: dict[str, list[float]] = {"twin": [], "region": []}
    barriers = 0
    for k in range(rounds + 1):  # (the first round warms up: not counted)
        for which in ("twin", "region") if k % 2 == 0 else ("region", "twin"):
            block[:] = 0
            start = time.perf_counter()
            runs[which]()
            if k:
                times[which].append(time.perf_counter() - start)
            if which == "region":
                barriers = int(block[1])
    return min(times["twin"]), min(times["region"]), barriers


def main(argv: list[str]) -> None:
    preset = "bench"
    if "--preset" in argv:
        at = argv.index("--preset")
        preset, argv = argv[at + 1], argv[:at] + argv[at + 2:]
    rounds, names = int(argv[0]), argv[1:] or suite.names()
    os.environ["POLYFUSE_DISABLE_CACHE"] = "1"
    os.environ["POLYFUSE_TILED_TWINS"] = os.environ["POLYFUSE_PACKED_TWINS"] = "1"
    for name in names:
        spec = suite.get(name)
        args = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
        backend, values = phase_args(polyfuse.kernel(spec.func), args)
        for compiled in backend.phases:
            if compiled.phase.is_region and not compiled.phase.parallel:
                twin, region, barriers = compare(compiled, values, rounds)
                print(f"{name} phase{compiled.phase.index}: twin {twin * 1e3:.3f} ms, region on one thread "
                      f"{region * 1e3:.3f} ms, ratio {region / twin:.3f} ({barriers} barriers)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
