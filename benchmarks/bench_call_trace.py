"""``polyfuse bench``'s loops section for some kernels, with each timed polyfuse call traced.

    python benchmarks/bench_call_trace.py covariance,doitgen [bench args...]

Runs ``polyfuse bench --section loops --kernels K`` in this process with ``measure.best_time``
wrapped: for every series of polyfuse's calls (its own column, the one-thread column, the series
in turn with NumPy) it prints the series' label, then each call as ``m:ms`` (``m``: the letter
of the whole-call BLAS mode's latest run, ``l``/``r``/``s``; ``e``: a call that ran no measured
mode, a native entry's) and the series' minimum.  Which calls of which series were slow, and
in which mode: what the bench's per-kernel rows and modes line add up.
"""

from __future__ import annotations

import sys
import time

from polyfuse.bench import measure
from polyfuse.cli import main as cli_main

_best_time = measure.best_time
_series = {"n": 0}


def _traced(fn, args, repeats, min_time, max_runs=1000, copy=True, last=None):
    backend = getattr(getattr(getattr(fn, "__self__", None), "variant", None), "backend", None)
    kernel_backend = getattr(fn, "_bl52_backend", None) or backend
    if kernel_backend is None:
        return _best_time(fn, args, repeats, min_time, max_runs, copy, last)
    calls: list[str] = []

    def wrapped(*a):
        times = [t for k, t in kernel_backend.phase_times.items() if k[0] == "blas call"]
        before = dict(times[0].tally) if times else {}
        start = time.perf_counter()
        out = fn(*a)
        ms = (time.perf_counter() - start) * 1e3
        after = times[0].tally if times else {}
        ran = [m for m in after if after[m] != before.get(m, 0)]
        calls.append(f"{ran[0][0] if ran else 'e'}:{ms:.2f}")
        return out

    result = _best_time(wrapped, args, repeats, min_time, max_runs, copy, last)
    _series["n"] += 1
    print(f"    series {_series['n']}: min {result[0] * 1e3:.3f} | {' '.join(calls)}", flush=True)
    return result


def main(argv: list[str]) -> None:
    import importlib

    kernel_module = importlib.import_module("polyfuse.kernel")

    made = kernel_module.Kernel.compile

    def compile_and_mark(self, *args, **kwargs):
        variant = made(self, *args, **kwargs)
        self._bl52_backend = getattr(variant, "backend", None)
        return variant

    kernel_module.Kernel.compile = compile_and_mark
    measure.best_time = _traced
    cli_main(["bench", "--section", "loops", "--kernels", argv[0], *argv[1:]])


if __name__ == "__main__":
    main(sys.argv[1:])
