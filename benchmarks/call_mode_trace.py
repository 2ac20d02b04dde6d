"""The BLAS call mode (``parallel.run_call``) and wall time of each call of a suite kernel.

    python benchmarks/call_mode_trace.py covariance 40 [preset=bench]

One kernel, no disk cache, two polyfuse threads; prints each call as ``k:m:ms`` (``m``: the
letter of the call mode's latest run, ``l``/``r``/``s``; ``-``: no whole-call measurement
yet; ``/``: the calling thread's CPU ms), the call mode's trial runs per mode (ms) when the trials end, and the mode it chose.
Shows which one-time costs fall into a mode's trial (session 37, bl50).  Set the
``POLYFUSE_*`` knobs in the environment.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numpy as np  # noqa: E402
from polyfuse.backends.cpu.parallel import BlasTimes  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.bench import suite  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402


def call_times(variant) -> BlasTimes | None:
    backend = getattr(variant, "backend", variant)
    found = [t for k, t in backend.phase_times.items() if k[0] == "blas call" and isinstance(t, BlasTimes)]
    return found[0] if found else None


def main() -> None:
    name, calls = sys.argv[1], int(sys.argv[2])
    preset = dict(a.split("=") for a in sys.argv[3:]).get("preset", "bench")
    threads.set_num_threads(2)
    spec = suite.get(name)
    args = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    kernel = polyfuse.kernel(spec.func)
    variant = kernel.compile(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    line, trials_shown = [], False
    for k in range(calls):
        fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        began, cpu = time.perf_counter(), time.thread_time()
        kernel(*fresh)
        ms, cpu_ms = (time.perf_counter() - began) * 1e3, (time.thread_time() - cpu) * 1e3
        times = call_times(variant)
        mode = times.latest[0] if times is not None and times.latest else "-"
        line.append(f"{k}:{mode}:{ms:.2f}/{cpu_ms:.1f}")
        if times is not None and not trials_shown and not times.in_trials():
            trials_shown = True
            line.append("|" + " ".join(f"{m}=" + ",".join(f"{t * 1e3:.2f}" for t in r) for m, r in times.runs.items())
                        + f" -> {times.best()}|")
    print(" ".join(line))
    print("load", os.getloadavg()[0])


if __name__ == "__main__":
    main()
