"""The bench's timing of one suite kernel against its NumPy formulation, for fresh kernel objects
compiled under two sets of environment variables, alternated in one process.

    ROUNDS=10 python benchmarks/fresh_kernel_ab.py matmul_bias_relu "POLYFUSE_BLAS_SETTLED_TRIALS=1" \
        "POLYFUSE_BLAS_SETTLED_TRIALS=0" [preset=large] [repeats=3]

Each round, for A then B (B then A in odd rounds): a new ``polyfuse.kernel`` (no disk cache) with
the side's variables set while it compiles and makes its first calls (a knob read when a
product or a call is first measured), its first call, the bench's warm-up
(``measure.warm_up`` until ``in_trials`` ends), its own series, then ``measure.NUMPY_ROUNDS``
rounds of a NumPy series and a polyfuse series in turn (``polyfuse bench``'s loops section:
``--repeats`` calls after ``settle``, ``--min-time 0``).  Per side: np/pf of each round (NumPy's
best over polyfuse's best of its series in turn), their min / median / max, how many rounds were
below 1.0, and the BLAS modes of the timed calls (all series) summed.  The outputs of each last
timed call are checked against the NumPy formulation's.  Session 40 (mb56).
"""

from __future__ import annotations

import os
import shlex
import statistics
import sys

os.environ.setdefault("POLYFUSE_DISABLE_CACHE", "1")

import numpy as np  # noqa: E402
from knobs import knobs_set  # noqa: E402  (benchmarks/knobs.py: this script's folder is on sys.path)

import polyfuse  # noqa: E402
from polyfuse.bench import measure, suite  # noqa: E402
from polyfuse.bench.measure import blas_tallies, close_enough, fresh, tallies_since  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402


def one_side(spec, inputs, env: dict[str, str], repeats: int) -> tuple[float, dict[str, int], list]:
    """np/pf of one fresh kernel as the bench measures it, its timed calls' BLAS modes, and its
    last timed call's arguments."""
    with knobs_set(env):
        kernel = polyfuse.kernel(spec.func, cache=False)
        variant = kernel.compile(*fresh(inputs))
        kernel(*fresh(inputs))
        measure.warm_up(kernel, inputs, trials=variant.backend.in_trials)
    before = blas_tallies(variant)
    last: list = []
    measure.best_time(kernel, inputs, repeats, 0.0, last=last)
    ours = theirs = float("inf")
    for turn in range(measure.NUMPY_ROUNDS):
        if turn % 2 == 1:
            ours = min(ours, measure.best_time(kernel, inputs, repeats, 0.0, last=last)[0])
        theirs = min(theirs, measure.best_time(spec.numpy_func, inputs, repeats, 0.0)[0])
        if turn % 2 == 0:
            ours = min(ours, measure.best_time(kernel, inputs, repeats, 0.0, last=last)[0])
    modes: dict[str, int] = {}
    for site, tally in tallies_since(before, blas_tallies(variant)).items():
        if "call" in site:
            for mode, n in tally.items():
                modes[mode] = modes.get(mode, 0) + n
    return theirs / ours, modes, last[0]


def main(argv: list[str]) -> None:
    name, sides = argv[0], {"A": argv[1], "B": argv[2]}
    options = dict(a.split("=", 1) for a in argv[3:])
    preset, repeats = options.get("preset", "large"), int(options.get("repeats", "3"))
    rounds = int(os.environ.get("ROUNDS", "10"))
    threads.set_num_threads(int(options.get("threads", "2")))
    spec = suite.get(name)
    inputs = spec.make_args(np.random.default_rng(0), **spec.sizes[preset])
    expected = suite.numpy_outputs(spec, fresh(inputs))
    params = list(spec.func.__code__.co_varnames[:spec.func.__code__.co_argcount])
    ratios: dict[str, list[float]] = {side: [] for side in sides}
    modes: dict[str, dict[str, int]] = {side: {} for side in sides}
    load = [os.getloadavg()[0]]
    for r in range(rounds):
        for side in (("A", "B") if r % 2 == 0 else ("B", "A")):
            env = dict(item.split("=", 1) for item in shlex.split(sides[side]))
            ratio, tally, last = one_side(spec, inputs, env, repeats)
            for out, value in expected.items():
                if not close_enough(last[params.index(out)], value)[0]:
                    raise SystemExit(f"{name} {side}: output {out} differs from NumPy's")
            ratios[side].append(ratio)
            for mode, n in tally.items():
                modes[side][mode] = modes[side].get(mode, 0) + n
            print(f"  round {r + 1} {side}: np/pf {ratio:.3f} {tally}", flush=True)
    load.append(os.getloadavg()[0])
    for side, values in ratios.items():
        print(f"{name} {preset} {side} ({sides[side]}): np/pf min {min(values):.3f} median "
              f"{statistics.median(values):.3f} max {max(values):.3f}, below 1.0 in "
              f"{sum(v < 1.0 for v in values)} of {len(values)}; timed calls' modes {modes[side]}", flush=True)
    print(f"load {load[0]:.2f} -> {load[1]:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
