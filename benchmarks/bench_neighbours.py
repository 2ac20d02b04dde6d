"""The numpy section's rows as ``polyfuse bench`` times them, with what polyfuse's runtime measured,
and A/B of how the bench waits between contenders and how the runtime starts its team trials.

    python benchmarks/bench_neighbours.py attention,gemm,mlp,mean_std [ways=now,before] [reps=2]
        [preset=bench] [rounds=3] [verbose=1]

Each program runs through ``polyfuse.bench.numpy_rows.bench_numpy_row`` exactly as the bench
runs it (NumPy, polyfuse on its threads and on one, jax.jit, interleaved rounds on each BLAS
thread count), once per way and repetition, the ways alternating in one process (each row
compiles its own kernel, so each way's runtime measures afresh):

- ``now``: the code as it is;
- ``before``: the bench's ``settle`` as it was until session 27 (the process's CPU time under
  20% of a core over one 2 ms step, which a pool's worker spinning with ``sched_yield`` passes
  on a loaded machine), the team's first timed run not prepared (``parallel._ready_team`` a
  no-op: its first run pays for the native team's code, trampoline and helpers) and no sooner
  checks of a team that began to look slower (``parallel.MOMENT`` 0).

Printed per row: NumPy, polyfuse on 2 threads and on 1, jax.jit (ms, the bench's minima) and
the load; with ``verbose=1`` also every timed series (contender, best ms, runs, the seconds
``settle`` waited before it, the ms each thread of the process ran and waited for a core during it), then each
parallel phase's ``RegionTimes`` (its latest serial and team runs, and every run it recorded in
order: T team, s serial, ms) and each product's ``BlasTimes``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np  # noqa: F401 - (threadpoolctl sees NumPy's OpenBLAS once loaded)
from polyfuse.backends.cpu import parallel
from polyfuse.backends.cpu.parallel import BlasTimes, RegionTimes

import polyfuse.bench.measure as measure
import polyfuse.bench.numpy_rows as rows
import polyfuse.kernel  # noqa: F401 - the module, patched below
from polyfuse.bench.numpy_suite import PROGRAMS
from polyfuse.bench.records import BenchSettings
from polyfuse.runtime import threads


def settle_before() -> float:
    """``measure.settle`` until session 27: the process's CPU time, one quiet step."""
    began = time.perf_counter()
    while True:
        cpu, wall = time.process_time(), time.perf_counter()
        time.sleep(measure.SETTLE_STEP)
        busy = (time.process_time() - cpu) / (time.perf_counter() - wall)
        if busy < measure.SETTLE_BUSY or time.perf_counter() - began > measure.SETTLE_MAX:
            return time.perf_counter() - began


class Recorder:
    """The bench's timer, ``settle`` and kernel decorator wrapped to record what they did."""

    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.kernels: list[Any] = []
        self.history: dict[int, list[str]] = {}
        self.waited = 0.0
        self.settle: Callable[[], float] = measure.settle
        self.timer = measure.best_time
        self.pf_kernel = sys.modules["polyfuse.kernel"]  # (polyfuse.kernel the name is the decorator)
        self.make = self.pf_kernel.kernel
        self.record = RegionTimes.record
        self.ready = parallel._ready_team

    def install(self) -> None:
        measure.settle = rows.settle = self._settle  # (best_time calls settle through the module)
        measure.best_time = rows.best_time = self._best_time
        self.pf_kernel.kernel = self._kernel
        recorder = self

        def record(times, team, seconds, ended=None):
            recorder.history.setdefault(id(times), []).append(("T" if team else "s") + f"{seconds * 1e3:.2f}")
            recorder.record(times, team, seconds, ended)

        RegionTimes.record = record  # type: ignore[method-assign]

    def way(self, name: str) -> None:
        self.settle = _original_settle if name == "now" else settle_before
        parallel._ready_team = self.ready if name == "now" else (lambda *a: None)
        parallel.MOMENT = _MOMENT if name == "now" else 0.0
        self.log.clear()
        self.kernels.clear()

    def _settle(self) -> float:
        self.waited = self.settle()
        return self.waited

    def _best_time(self, fn, args, repeats, min_time, **kw):
        label = self._label(fn)
        before = thread_cpu()
        best, runs = self.timer(fn, args, repeats, min_time, **kw)
        after = thread_cpu()
        burnt = {name: (round((after[tid][1] - t0) * 1e3, 1), round((after[tid][2] - w0) * 1e3, 1))
                 for tid, (name, t0, w0) in before.items() if tid in after and after[tid][1] - t0 > 0.002}
        self.log.append((label, best, runs, self.waited, burnt))
        return best, runs

    def _kernel(self, *a, **kw):
        made = self.make(*a, **kw)
        self.kernels.append(made)
        return made

    def _label(self, fn) -> str:
        if fn in self.kernels:
            return "polyfuse" if threads.get_num_threads() > 1 else "polyfuse_1t"
        return "jax" if getattr(fn, "__name__", "") == "run" else "numpy"


_original_settle = measure.settle
_MOMENT = parallel.MOMENT


def main(argv: list[str]) -> None:
    names = argv[0].split(",")
    options = dict(a.split("=", 1) for a in argv[1:])
    ways = options.get("ways", "now").split(",")
    rows.NUMPY_ROUNDS = int(options.get("rounds", rows.NUMPY_ROUNDS))
    settings = BenchSettings(preset=options.get("preset", "bench"), target="cpu", repeats=5, min_time=0.05,
                             seed=0, threads=None, blas_threads=None)
    jax = rows.load_jax()
    recorder = Recorder()
    recorder.install()
    for name in names:
        for _rep in range(int(options.get("reps", 1))):
            for way in ways:
                recorder.way(way)
                row = rows.bench_numpy_row(PROGRAMS[name], settings, jax=jax)
                if row.polyfuse_ms is None:
                    print(f"{name:10s} {way:7s} check {row.check}: {row.error}")
                    continue
                print(f"{name:10s} {way:7s} check {row.check}: numpy {row.numpy_ms:7.3f}  polyfuse "
                      f"{row.polyfuse_ms:7.3f}  1T {row.polyfuse_1t_ms or 0:7.3f}  jax {row.jax_ms or 0:7.3f} ms"
                      f"  jax/pf {(row.jax_ms or 0) / row.polyfuse_ms:5.2f}x  load {os.getloadavg()[0]:.2f}",
                      flush=True)
                if options.get("verbose") == "1":
                    _details(recorder)


def _details(recorder: Recorder) -> None:
    for k, (label, best, runs, wait, burnt) in enumerate(recorder.log):
        print(f"   {k:2d} {label:12s} {best * 1e3:9.3f} ms  runs {runs:4d}  settle {wait * 1e3:6.1f} ms"
              f"  threads' (CPU, waiting) ms {burnt}")
    for kernel in recorder.kernels:
        for special in [kernel, *getattr(kernel, "_specialised", {}).values()]:
            for variant in getattr(special, "_variants", {}).values():
                _tables(variant.backend, recorder.history)


def _tables(backend, history: dict[int, list[str]]) -> None:
    for key, times in getattr(backend, "phase_times", {}).items():
        if isinstance(times, BlasTimes):
            best = {m: round(min(r) * 1e3, 3) for m, r in times.runs.items() if r}
            print(f"   {key}: worth {times.worth_threads} best {best} chosen "
                  f"{times.best() if best else None} calls {times.calls} next {times.next_check}")
        elif isinstance(times, RegionTimes):
            print(f"   {key}: worth {times.worth_threads} serial {[round(t * 1e3, 3) for t in times.serial]} "
                  f"team {[round(t * 1e3, 3) for t in times.team]} calls {times.calls}")
            print("      runs: " + " ".join(history.get(id(times), [])))


def thread_cpu() -> dict[int, tuple[str, float, float]]:
    """Each thread of this process: its name (Python's, where it is a Python thread), seconds on a
    core and seconds runnable but waiting for one (``schedstat``)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    found = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                text = f.read()
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                on_core, waiting = (int(v) * 1e-9 for v in f.read().split()[:2])
        except OSError:
            continue
        name = names.get(int(tid)) or text[text.index("(") + 1:text.rindex(")")]
        found[int(tid)] = (name, on_core, waiting)
    return found


if __name__ == "__main__":
    began = time.perf_counter()
    main(sys.argv[1:])
    print(f"({time.perf_counter() - began:.1f} s, load {os.getloadavg()})")
