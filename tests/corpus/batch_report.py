"""Run a batch module's kernels (cpu target, smart fusion) against their undecorated functions
on several seeds and print match / refused / wrong / crashed per kernel.

    POLYFUSE_NUM_THREADS=2 python tests/corpus/batch_report.py batch_fe30 [--target python] [name ...]
"""

from __future__ import annotations

import importlib
import sys
import traceback
from collections import Counter
from pathlib import Path

import numpy as np

import polyfuse

sys.path.insert(0, str(Path(__file__).parent))
from test_corpus import _copy, assert_same  # noqa: E402


def run_case(case, seeds=range(4), target: str = "cpu") -> tuple[str, str]:
    """('match' | 'refused' | 'wrong' | 'crashed', detail): refused where polyfuse raises
    UnsupportedError or, for one call, ArgumentError (where Python raised too, with another
    exception, or returned); wrong for another value or another exception; crashed for an
    exception where Python returned."""
    kernel = polyfuse.kernel(case.func, target=target)
    for seed in seeds:
        args = case.make_args(np.random.default_rng(seed))
        expected_args, actual_args = _copy(args), _copy(args)
        try:
            with np.errstate(all="ignore"):
                expected = case.func(*expected_args)
        except Exception as exc:  # Python raises: polyfuse must raise the same kind
            try:
                kernel(*actual_args)
            except type(exc):
                continue
            except (polyfuse.UnsupportedError, polyfuse.ArgumentError) as got:  # refused (per call)
                return "refused", f"seed {seed}: Python raised {exc!r}; {str(got).splitlines()[0]}"
            except Exception as got:
                return "wrong", f"seed {seed}: Python raised {exc!r}, polyfuse {got!r}"
            return "wrong", f"seed {seed}: Python raised {exc!r}, polyfuse returned"
        try:
            with np.errstate(all="ignore"):
                actual = kernel(*actual_args)
        except (polyfuse.UnsupportedError, polyfuse.ArgumentError) as got:  # refused (per call)
            return "refused", f"seed {seed}: {str(got).splitlines()[0]}"
        except Exception as got:
            return "crashed", f"seed {seed}: {type(got).__name__}: {str(got)[:300]}"
        try:
            assert_same(expected, actual, case, "return value")
            for k, (e, a) in enumerate(zip(expected_args, actual_args)):
                if isinstance(e, np.ndarray):
                    assert_same(e, a, case, f"argument {k}")
        except AssertionError as got:
            return "wrong", f"seed {seed}: {str(got)[:400]}"
    return "match", ""


def main(argv: list[str]) -> None:
    target = "cpu"
    if "--target" in argv:
        at = argv.index("--target")
        target = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    module = importlib.import_module(argv[0])
    wanted = set(argv[1:])
    tally: Counter[str] = Counter()
    for case in module.CASES:
        if wanted and case.name not in wanted:
            continue
        try:
            verdict, detail = run_case(case, target=target)
        except polyfuse.UnsupportedError as exc:
            verdict, detail = "refused", str(exc).splitlines()[0]
        except Exception:
            verdict, detail = "crashed", traceback.format_exc(limit=3)[-600:]
        tally[verdict] += 1
        print(f"{verdict:8} {case.name:26} {detail}", flush=True)
    print(dict(tally))


if __name__ == "__main__":
    main(sys.argv[1:])
