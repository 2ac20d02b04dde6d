"""Does a polyfuse series run slower right after NumPy's than after a pause or after its own?

    python benchmarks/after_numpy_probe.py covariance [rounds=8] [calls=8] [preset=bench]

One kernel (disk cache as configured), two polyfuse threads, warmed up as ``polyfuse bench``
does.  Then ``rounds`` rounds of four conditions in turn, each followed by a series of ``calls``
polyfuse calls (fresh inputs, copies untimed):

- ``np+settle``: a NumPy series (the kernel's formulation, >= 50 ms, as the bench's), then
  ``measure.settle`` (the bench's order);
- ``np``: the NumPy series and the polyfuse series right after it (no settle);
- ``sleep``: 0.5 s asleep, then ``settle``;
- ``pf+settle``: a polyfuse series, then ``settle``.

Prints per condition, per call index, the min and median wall ms and the calls' mode letters (the
call mode's latest run: r rows, l library, s one BLAS thread, ``e`` a call that ran no measured mode),
then each condition's series minimum (min / median over rounds).  ``GAP=1`` also samples the
process's other threads for 0.3 s after one NumPy series and after one polyfuse series (5 ms
windows): for each thread, its name and the last window in which it was runnable more than 30%
of the time (a spinning pool), and the process CPU time in the gap.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.bench.measure import fresh, settle, warm_up
from polyfuse.runtime import threads


def blas_times(backend):
    for key, times in backend.phase_times.items():
        if key[0] == "blas call":
            return times
    return None


def numpy_series(fn, args: tuple, min_time: float = 0.05) -> None:
    began = time.perf_counter()
    runs = 0
    while runs < 5 or time.perf_counter() - began < min_time:
        fn(*fresh(args))
        runs += 1


def polyfuse_series(kernel, args: tuple, backend, calls: int) -> list[tuple[float, str]]:
    out = []
    for _ in range(calls):
        call_args = fresh(args)
        times = blas_times(backend)
        before = dict(times.tally) if times is not None else {}
        start = time.perf_counter()
        kernel(*call_args)
        elapsed = time.perf_counter() - start
        times = blas_times(backend)
        after = times.tally if times is not None else {}
        ran = [m for m in after if after[m] != before.get(m, 0)]
        out.append((elapsed, ran[0][0] if ran else "e"))
    return out


def thread_states() -> dict[str, tuple[str, int]]:
    me = str(__import__("threading").get_native_id())
    found = {}
    for tid in os.listdir("/proc/self/task"):
        if tid == me:
            continue
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                on_core, waiting = f.read().split()[:2]
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        found[tid] = (name, int(on_core) + int(waiting))
    return found


def gap(label: str, seconds: float = 0.3, step: float = 0.005) -> None:
    """Which of the process's threads stay runnable after ``label`` (see the module's doc)."""
    start, cpu = time.perf_counter(), time.process_time()
    last, busy_until = thread_states(), {}
    while time.perf_counter() - start < seconds:
        w = time.perf_counter()
        time.sleep(step)
        now, dt = thread_states(), time.perf_counter() - w
        for tid, (name, ns) in now.items():
            if tid in last and (ns - last[tid][1]) * 1e-9 / dt > 0.3:
                busy_until[tid] = (name, time.perf_counter() - start)
        last = now
    shown = ", ".join(f"{name}/{tid} {t * 1e3:.0f} ms" for tid, (name, t) in sorted(busy_until.items()))
    print(f"gap after {label}: process CPU {(time.process_time() - cpu) * 1e3:.1f} ms in "
          f"{seconds * 1e3:.0f} ms; threads runnable >30% until: {shown or 'none'} "
          f"(threads: {len(last)})", flush=True)


def main(argv: list[str]) -> None:
    name = argv[0]
    rounds = int(argv[1]) if len(argv) > 1 else 8
    calls = int(argv[2]) if len(argv) > 2 else 8
    preset = argv[3] if len(argv) > 3 else "bench"
    threads.set_num_threads(2)
    spec = suite.get(name)
    inputs = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    kernel = polyfuse.kernel(spec.func)
    backend = kernel.compile(*fresh(inputs)).backend
    settle()
    kernel(*fresh(inputs))
    warm_up(kernel, inputs, trials=backend.in_trials)
    numpy_series(spec.numpy_func, inputs)
    print("load before", os.getloadavg()[0], flush=True)
    if os.environ.get("GAP") == "1":
        time.sleep(0.5)
        numpy_series(spec.numpy_func, inputs)
        gap("a NumPy series")
        time.sleep(0.5)
        polyfuse_series(kernel, inputs, backend, calls)
        gap("a polyfuse series")
    conditions = ("np+settle", "np", "sleep", "pf+settle")
    runs: dict[str, list[list[tuple[float, str]]]] = {c: [] for c in conditions}
    for r in range(rounds):
        for c in conditions[r % 4:] + conditions[:r % 4]:
            if c.startswith("np"):
                numpy_series(spec.numpy_func, inputs)
                if c == "np+settle":
                    settle()
            elif c == "sleep":
                time.sleep(0.5)
                settle()
            else:
                polyfuse_series(kernel, inputs, backend, calls)
                settle()
            runs[c].append(polyfuse_series(kernel, inputs, backend, calls))
    for c in conditions:
        cells = []
        for k in range(calls):
            ms = [s[k][0] * 1e3 for s in runs[c]]
            letters = "".join(s[k][1] for s in runs[c])
            cells.append(f"{min(ms):.2f}/{statistics.median(ms):.2f}[{letters}]")
        best = [min(t for t, _ in s) * 1e3 for s in runs[c]]
        print(f"{c:10s} series min {min(best):.3f} median {statistics.median(best):.3f} ms | "
              + " ".join(cells), flush=True)
    print("load after", os.getloadavg()[0], "; modes chosen:", blas_times(backend).best(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
