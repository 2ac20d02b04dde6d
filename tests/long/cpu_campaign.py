"""A fresh-seed random-program campaign for target="python" and target="cpu", threads forced on.

Not part of CI (pytest collects only ``test_*.py`` files, and this one runs for ~10 minutes): run
it whenever the compiler changes.  CI's random-program tests are derandomized (the same programs
every run); this draws new ones from a seed (by default the clock's).

    python tests/long/cpu_campaign.py                 # ~10 minutes, a fresh seed
    python tests/long/cpu_campaign.py --minutes 3 --seed 12345
    python tests/long/cpu_campaign.py --minutes 5 --style extra --views

Each program (tests/program_gen.py; half of them wrapped in a sequential loop, so that their
parallel loops become parallel regions) is compiled for target="python" and "cpu" under
fuse="none", "smart" and "max", with the verifier on.  Each kernel runs at a random n and at n=17
(longer loops reach other schedules).  The cpu kernels run on a team of 2 or 3 threads with the
serial-first rule off (``conftest.threads_forced``): at each size the first call is the
measuring serial run and the second runs every parallel phase and region on the team.  Every
call is compared with the undecorated function: every array argument and the return value.
Prints each failure with the program's source and how to reproduce it, then a summary; exits
non-zero if any program gave a wrong result or crashed.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]  # tests/ helpers; this checkout's polyfuse

import numpy as np  # noqa: E402
from conftest import assert_same_arrays, copy_args, define, team_runs, threads_forced  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from numpy_program_gen import numpy_programs  # noqa: E402
from program_gen import copy_keeping_layout, in_a_time_loop, programs  # noqa: E402

import polyfuse  # noqa: E402
from polyfuse.runtime import threads  # noqa: E402

TARGETS = ("python", "cpu")
FUSES = ("none", "smart", "max")
ROUND = 5  # programs per hypothesis run; the clock is checked between runs and between programs
LONG_N = 17  # fuse="max" contracted an array its schedule left unordered only from n = 17 on
SLOW_COMPILE = 10.0  # seconds: issue 14's bound for every compile (reported, not a failure)


@dataclass
class Tally:
    programs: int = 0
    skipped: int = 0  # the plain function itself raised on the drawn values
    variants: int = 0  # compiled kernels (program x target x fuse)
    calls: int = 0  # compiled calls compared with the plain function
    team_runs: int = 0  # cpu phase and region runs on a team of threads
    failures: list[str] = field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")
    slow: int = 0  # first calls (compile + run) over SLOW_COMPILE
    refused: dict[str, int] = field(default_factory=dict)  # numpy style: UnsupportedError's first line, count


def _quiet(fn, args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _plain(fn, args):
    out = copy_args(args)
    return (*out, _quiet(fn, out))


def _same_value(expected, actual, rtol: float, atol: float, label: str) -> None:
    """A returned value: a tuple item by item, an array of the same dtype and shape, a number."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), f"{label}: {actual!r}"
        for pos, (e, a) in enumerate(zip(expected, actual)):
            _same_value(e, a, rtol, atol, f"{label}[{pos}]")
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), f"{label}: {type(actual).__name__}, not an array"
        assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape), \
            f"{label}: {actual.dtype}{actual.shape} != {expected.dtype}{expected.shape}"
        assert_same_arrays((expected,), (actual,), rtol=rtol, atol=atol, names=[label])
        return
    np.testing.assert_allclose(np.asarray(actual, dtype=complex), np.asarray(expected, dtype=complex),
                               rtol=rtol, atol=atol, equal_nan=True, err_msg=label)


def _compare(expected: tuple, actual: tuple, tolerance) -> str:
    """'' when every array argument and the return value match, else the first difference."""
    rtol, atol = tolerance
    try:
        assert_same_arrays(expected[:-1], actual[:-1], rtol=rtol, atol=atol)
        _same_value(expected[-1], actual[-1], rtol, atol, "return value")
    except (AssertionError, TypeError, ValueError) as exc:
        return " | ".join(line.strip() for line in str(exc).strip().splitlines()[:5] if line.strip())
    return ""


def check_variant(fn, cases, target: str, fuse: str, count: int, tolerance, tally: Tally, label: str,
                  refusals_ok: bool = False, options: dict | None = None) -> str:
    """'' when the kernel matches the plain function at every size, else what went wrong."""
    kernel = polyfuse.kernel(fn, target=target, fuse=fuse, verify=True, **(options or {}))
    tally.variants += 1
    first = True
    for n, args, expected in cases:
        calls = (1, 2) if target == "cpu" else (1,)  # cpu: the measuring call, then the team's
        threads.set_num_threads(count)
        for call in calls:
            actual = copy_keeping_layout(args)  # views stay views (--views)
            began = time.perf_counter()
            try:
                result = _quiet(kernel, actual)
            except polyfuse.UnsupportedError as exc:
                if not refusals_ok:
                    return f"refused at n={n}, call {call}: {exc}"
                what = str(exc).splitlines()[0].split(": ", 1)[-1][:100]
                tally.refused[what] = tally.refused.get(what, 0) + 1
                return ""
            except Exception as exc:  # noqa: BLE001 - a crash is a finding
                return (f"crash at n={n}, call {call}: {type(exc).__name__}: {exc}\n"
                        + traceback.format_exc(limit=4))
            if first:
                seconds, first = time.perf_counter() - began, False
                tally.slow += seconds > SLOW_COMPILE
                if seconds > tally.slowest[0]:
                    tally.slowest = (seconds, label)
            tally.calls += 1
            problem = _compare(expected, (*actual, result), tolerance)
            if problem:
                return f"wrong at n={n}, call {call} on {count} thread(s): {problem}"
    if target == "cpu":
        tally.team_runs += team_runs(kernel.compile(*cases[0][1]).backend)
    return ""


# --options: the knobs nobody's campaign turned, drawn per cpu kernel (none of them may change a
# result beyond the program's tolerance; fastmath is left out, it may reassociate past it)
OPTION_CHOICES = {
    "tile": (False, True),
    "interleave": (None, True, False),
    "registers": (True, False),
    "blas": (True, False),
    "contract": (True, False),
    "vector_math": (True, False),
    "opt_level": (3, 3, 1, 0),
}


def draw_options(rng) -> dict:
    """A random set of non-default options (the same seed draws the same sets)."""
    return {name: values[int(rng.integers(len(values)))] for name, values in OPTION_CHOICES.items()}


def campaign(seed: int, minutes: float, style: str = "plain", views: bool = False,
             options: bool = False) -> Tally:
    tally = Tally()
    deadline = time.monotonic() + 60 * minutes
    state = {"round": 0, "example": 0}

    strategy = numpy_programs(extra=style == "numpy-extra", wild=style == "numpy-wild") if style.startswith("numpy") else programs(
        numba_style=style == "numba", extra=style == "extra", wild=style == "wild")
    refusals_ok = style.startswith("numpy") or style == "wild"  # counted and listed, not failures

    @settings(max_examples=ROUND, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(prog=strategy, n=st.integers(0, 9), values=st.integers(0, 2**16), loop=st.booleans(),
           count=st.sampled_from([2, 3]))
    def one(prog, n, values, loop, count):
        state["example"] += 1
        if time.monotonic() > deadline:
            return
        source = in_a_time_loop(prog.source) if loop and not style.startswith("numpy") else prog.source
        fn = define(source, "kern")
        rng = np.random.default_rng(values)
        cases = []
        for size in sorted({n, LONG_N}):
            args = prog.make_args(rng, size, views=views)
            try:
                cases.append((size, args, _plain(fn, args)))
            except (ArithmeticError, ValueError):
                tally.skipped += 1  # math.sin(inf), float ** overflow: nothing to compare
                return
        tally.programs += 1
        where = f"seed {seed}, round {state['round']}, example {state['example']}"
        for target in TARGETS:
            for fuse in FUSES:
                drawn = draw_options(rng) if options and target == "cpu" else {}
                if options and target != "cpu":
                    continue  # --options: the knobs are the cpu target's
                label = f"{where}: target={target} fuse={fuse}" + "".join(f" {k}={v}" for k, v in drawn.items())
                problem = check_variant(fn, cases, target, fuse, count, prog.tolerance, tally, label,
                                        refusals_ok=refusals_ok, options=drawn)
                if problem:
                    tally.failures.append(f"--- {label} (n in {[c[0] for c in cases]}, values seed {values}, "
                                          f"{count} threads): {problem}\n{source}")
                    print(tally.failures[-1], flush=True)

    with threads_forced():
        while time.monotonic() < deadline:
            state["example"] = 0
            hypothesis_seed(seed * 1000 + state["round"])(one)()
            state["round"] += 1
            print(f"... {tally.programs} programs, {tally.variants} kernels, {len(tally.failures)} failures",
                  flush=True)
    return tally


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to draw new programs")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000,
                        help="the campaign's seed (default: from the clock); the same seed draws the same programs")
    parser.add_argument("--style", choices=("plain", "numba", "extra", "wild", "numpy", "numpy-extra", "numpy-wild"), default="plain",
                        help="which programs: the subset's core (plain), numba users' forms (numba: sizes from "
                             "shapes, helpers, data-dependent ifs, run-time subscripts), or numba's plus "
                             "searches with break/while, running maxima and int8/int16/int32 values over the "
                             "whole range (extra), or extra's plus int and float arrays in one program, // and %% of "
                             "negatives by run-time divisors, bitwise operators, a bool mask argument, continue "
                             "and stepping while loops (wild; refusals counted, not failures), or NumPy array programs (numpy: tests/numpy_program_gen.py; numpy-extra: "
                             "with index-array gathers and stores, a if c else b, ** 0.5, np.nan_to_num; numpy-wild: "
                             "also boolean-mask stores and reductions, steps of -2/-3, np.clip, // and %% by arrays "
                             "of negatives, astype)")
    parser.add_argument("--views", action="store_true",
                        help="pass every array as a non-contiguous view (transposed, reversed, strided)")
    parser.add_argument("--options", action="store_true",
                        help="cpu kernels only, each with options drawn at random (tile, interleave, registers, "
                             "blas, contract, vector_math, opt_level)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    tally = campaign(args.seed, args.minutes, args.style, args.views, args.options)
    print(f"seed {args.seed}: {tally.programs} programs ({tally.skipped} skipped: the plain function raised), "
          f"{tally.variants} compiled kernels, {tally.calls} calls compared, {tally.team_runs} team runs, "
          f"{len(tally.failures)} failures, {time.perf_counter() - began:.0f} s")
    print(f"polyfuse from {Path(polyfuse.__file__).parent}")
    print(f"slowest first call (compile + run): {tally.slowest[0]:.1f} s ({tally.slowest[1]}); "
          f"{tally.slow} over {SLOW_COMPILE:.0f} s")
    if tally.refused:
        print(f"refused (UnsupportedError, not counted as failures): {sum(tally.refused.values())} kernels")
        for what, count in sorted(tally.refused.items(), key=lambda item: -item[1])[:10]:
            print(f"  {count:4d}  {what}")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
