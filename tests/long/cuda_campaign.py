"""A fresh-seed random-program campaign for target="cuda" on numba's CUDA simulator, or on a real GPU.

Not part of CI (it runs for minutes): run it whenever the CUDA backend or the middle end changes.

    python tests/long/cuda_campaign.py --programs 200 --seed 12345
    NUMBA_ENABLE_CUDASIM=0 python tests/long/cuda_campaign.py --minutes 3   # a real GPU

Each program (tests/program_gen.py) is compiled under the default options and under
``fuse="max"``; each compiled kernel runs with the simulator's small grids and again with a real
GPU's launch configuration in a shuffled block/thread order (tests/backends/cuda/simulator_order),
and every run is compared with the undecorated Python function.  On a real GPU
(``NUMBA_ENABLE_CUDASIM=0``) both runs launch on the device, with the test and the device launch
configurations, in the hardware's own order.  Prints one line per failure and a summary; exits
non-zero if any program gave a wrong result or crashed.  ``--style wild`` (cp37) draws
``programs(wild=True)`` instead (int and float arrays in one program, run-time divisors, bitwise
operators, a bool mask, ``continue``, stepping ``while`` loops); the CUDA target refuses some of
them (run-time subscripts, loops kept as written): those ``UnsupportedError``s are counted, not
failures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "backends" / "cuda")]

import numpy as np  # noqa: E402
from conftest import assert_same_arrays, copy_args, define  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from program_gen import programs  # noqa: E402
from simulator_order import device_launches, shuffled_simulator  # noqa: E402

import polyfuse  # noqa: E402

OPTION_SETS = {"default": {}, "fuse=max": {"fuse": "max"}}
REFUSED = "refused: "  # --style wild: an UnsupportedError, counted
# program_gen's extra/wild features: their programs may be refused by the CUDA target
WILD_FEATURES = {"sub-runtime", "search", "while", "break", "running-max", "continue", "while-step", "mask",
                 "data-if", "helper-call"}


def _quiet(fn, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def check(prog, n: int, seed: int, options: dict) -> str:
    """'' when every run matches the plain function, else what went wrong."""
    fn = define(prog.source, "kern")
    args = prog.make_args(np.random.default_rng(seed), n)
    expected = copy_args(args)
    try:
        _quiet(fn, expected)
    except (ArithmeticError, ValueError):
        return ""  # the function itself fails on these values
    rtol, atol = prog.tolerance
    for device in (False, True):
        actual = copy_args(args)
        try:
            if device:
                with device_launches():
                    kernel = polyfuse.kernel(fn, target="cuda", **options)
                    kernel.compile(*actual)
                with shuffled_simulator(seed):
                    _quiet(kernel, actual)
            else:
                _quiet(polyfuse.kernel(fn, target="cuda", **options), actual)
        except polyfuse.UnsupportedError as exc:
            # (cp43) a plain program's guarded read of a possibly empty array (B[3] if c and A[0] != 1.0
            # else ...) at n = 1 is a run-time subscript there, which the CUDA target refuses: counted
            if prog.features & WILD_FEATURES or prog.mode == "int-float" or "computed at run time" in str(exc):
                return REFUSED + str(exc).splitlines()[0].split(": ", 1)[-1][:90]
            return f"refused ({'device' if device else 'test'} launches): {exc}"
        except (ArithmeticError, ValueError) as exc:
            if "math domain" in str(exc) or isinstance(exc, ArithmeticError):
                return ""  # the simulator evaluates math.* on Python floats
            return f"crash ({'device' if device else 'test'} launches): {type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a crash is a finding
            return (f"crash ({'device' if device else 'test'} launches): {type(exc).__name__}: {exc}\n"
                    + traceback.format_exc(limit=3))
        try:
            assert_same_arrays(expected, actual, rtol=rtol, atol=atol)
        except AssertionError as exc:
            return f"wrong ({'device' if device else 'test'} launches): {str(exc).splitlines()[0]}"
    return ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--style", choices=("plain", "wild"), default="plain",
                        help="plain: programs(); wild: programs(wild=True), refusals counted")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop drawing programs after this long (default: only --programs bounds it)")
    args = parser.parse_args(argv)
    deadline = None if args.minutes is None else time.monotonic() + 60 * args.minutes
    failures: list[str] = []
    refusals: dict[str, int] = {}
    counts = {"programs": 0, "runs": 0, "refused": 0}

    @hypothesis_seed(args.seed)
    @settings(max_examples=args.programs, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(prog=programs(wild=args.style == "wild"), n=st.integers(0, 6), seed=st.integers(0, 2**16))
    def campaign(prog, n, seed):
        if deadline is not None and time.monotonic() > deadline:
            return
        counts["programs"] += 1
        if counts["programs"] % 10 == 0:
            print(f"... {counts['programs']} programs, {len(failures)} failures", flush=True)
        for label, options in OPTION_SETS.items():
            counts["runs"] += 1
            problem = check(prog, n, seed, options)
            if problem.startswith(REFUSED):
                counts["refused"] += 1
                refusals[problem] = refusals.get(problem, 0) + 1
            elif problem:
                failures.append(f"--- {label}, n={n}, seed={seed}: {problem}\n{prog.source}")
                print(failures[-1], flush=True)

    start = time.perf_counter()
    campaign()
    print(f"seed {args.seed}: {counts['programs']} programs, {counts['runs']} compiled variants "
          f"(each run with test and device launches), {len(failures)} failures, {counts['refused']} refused, "
          f"{time.perf_counter() - start:.0f} s")
    for what, count in sorted(refusals.items(), key=lambda item: -item[1])[:8]:
        print(f"  {count:4d}  {what}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
