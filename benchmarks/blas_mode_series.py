"""Each whole-call BLAS mode of a suite kernel forced, the measured choice and NumPy, in series
timed as the bench times them, in one process.

    ROUNDS=12 SERIES=3 python benchmarks/blas_mode_series.py matmul_bias_relu [preset=large]
        [modes=library,rows,serial,measure] [knob=NAME] [threads=2]

One polyfuse kernel object per contender (no disk cache), each warmed as the bench warms
(``measure.warm_up`` until ``in_trials`` ends): a forced mode's with ``POLYFUSE_BLAS_THREADS``
set (read when a product is first measured; a native entry armed on the library's threads
would not see a mode set later on the same object), ``measure``'s without it.  ``knob=NAME`` adds the contenders ``NAME=0`` and ``NAME=1``: the measured
choice in its own kernel object with the environment variable set while it is compiled and first
called and each series runs (read at run time or at a site's first measurement).  Then
``ROUNDS`` rounds, the contenders in a rotating order, each a ``measure.best_time`` series of
``SERIES`` calls after ``settle`` (the bench's loops section with ``--repeats SERIES
--min-time 0``).  Prints per contender the min / p25 / median of the series' minima, the
median of all calls, the measured choices' modes of their timed calls, and NumPy's min over each
one's; the outputs of every contender's last call are checked against the NumPy formulation's.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numpy as np  # noqa: E402
from knobs import knobs_set  # noqa: E402  (benchmarks/knobs.py: this script's folder is on sys.path)

import polyfuse  # noqa: E402
from polyfuse.bench import measure, suite  # noqa: E402
from polyfuse.bench.measure import close_enough, fresh, warm_up  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402


def blas_call_times(backend):
    found = [t for k, t in backend.phase_times.items() if k[0] == "blas call"]
    return found[0] if found else None


class Contender:
    """One timed contender: a callable, the environment it runs under, and its series."""

    def __init__(self, label, fn, env=None, backend=None):
        self.label, self.fn, self.env, self.backend = label, fn, env or {}, backend
        self.minima: list[float] = []
        self.calls: list[float] = []
        self.by_position: dict[int, list[float]] = {}
        self.modes: dict[str, int] = {}
        self.last: list = []

    def series(self, inputs, repeats: int) -> None:
        with knobs_set(self.env):
            times = blas_call_times(self.backend) if self.backend is not None else None
            before = dict(times.tally) if times is not None else {}
            calls, position = self.calls, [0]

            def timed(*args):
                began = time.perf_counter()
                out = self.fn(*args)
                calls.append(time.perf_counter() - began)
                self.by_position.setdefault(position[0], []).append(calls[-1])
                position[0] += 1
                return out

            best, _ = measure.best_time(timed, inputs, repeats, 0.0, last=self.last)
        self.minima.append(best)
        if times is not None:
            for mode, n in times.tally.items():
                if n != before.get(mode, 0):
                    self.modes[mode] = self.modes.get(mode, 0) + n - before.get(mode, 0)


def measured(spec, inputs, env):
    with knobs_set(env):
        kernel = polyfuse.kernel(spec.func, cache=False)
        backend = kernel.compile(*fresh(inputs)).backend
        kernel(*fresh(inputs))
        warm_up(kernel, inputs, trials=backend.in_trials)
    return kernel, backend


def main(argv: list[str]) -> None:
    name = argv[0]
    options = dict(a.split("=", 1) for a in argv[1:])
    preset = options.get("preset", "large")
    modes = options.get("modes", "library,rows,serial,measure").split(",")
    threads.set_num_threads(int(options.get("threads", "2")))
    rounds, repeats = int(os.environ.get("ROUNDS", "12")), int(os.environ.get("SERIES", "3"))
    spec = suite.get(name)
    inputs = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    contenders = []
    for mode in modes:  # forced: POLYFUSE_BLAS_THREADS, read at a product's first measurement
        env = {} if mode == "measure" else {"POLYFUSE_BLAS_THREADS": mode}
        kernel, backend = measured(spec, inputs, env)
        contenders.append(Contender(mode, kernel, env=env, backend=backend))
    if "knob" in options:
        for value in ("0", "1"):
            env = {options["knob"]: value}
            kernel, backend = measured(spec, inputs, env)
            contenders.append(Contender(f"{options['knob']}={value}", kernel, env=env, backend=backend))
    contenders.append(Contender("numpy", spec.numpy_func))
    load = [os.getloadavg()[0]]
    for r in range(rounds):
        for c in contenders[r % len(contenders):] + contenders[:r % len(contenders)]:
            c.series(inputs, repeats)
    load.append(os.getloadavg()[0])
    expected = suite.numpy_outputs(spec, fresh(inputs))
    params = list(spec.func.__code__.co_varnames[:spec.func.__code__.co_argcount])
    numpy_best = min(contenders[-1].minima)
    for c in contenders:
        if c.label != "numpy":
            for out, value in expected.items():
                ok, _ = close_enough(c.last[0][params.index(out)], value)
                if not ok:
                    raise SystemExit(f"{name} {c.label}: output {out} differs from NumPy's")
        m = sorted(c.minima)
        ratio = f" numpy/this {numpy_best / m[0]:.3f} (p25 {sorted(contenders[-1].minima)[len(m) // 4] / m[len(m) // 4]:.3f})"
        modes_line = " ".join(f"{k} {v}" for k, v in sorted(c.modes.items()))
        print(f"{name} {preset} {c.label:28s} series min {m[0] * 1e3:7.3f} p25 {m[len(m) // 4] * 1e3:7.3f} "
              f"median {statistics.median(m) * 1e3:7.3f} | calls median {statistics.median(c.calls) * 1e3:7.3f} ms"
              f"{ratio if c.label != 'numpy' else ''} {modes_line}", flush=True)
        print("    median by call of the series: " + " ".join(
            f"{statistics.median(v) * 1e3:.3f}" for _, v in sorted(c.by_position.items())), flush=True)
    print(f"load {load[0]:.2f} -> {load[1]:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
