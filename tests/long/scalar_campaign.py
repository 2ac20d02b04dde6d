"""Random scalar-expression kernels (tests/scalar_gen.py) against the plain function.

Not part of CI (see README.md).  Each kernel holds ``--per`` random expressions of float64,
float32 and int64 values (``//`` and ``%`` of negatives, ``math.*``/``np.*`` at inf, NaN, -0.0,
subnormals and halves, ``min``/``max`` with NaN, ``round``/``int``/``floor`` of halves), one
output column each; every column is compared element by element with the plain function.
An expression the compiler refuses (``UnsupportedError`` naming its line) is dropped and the
kernel compiled again, so refusals are counted, not failures.

    python tests/long/scalar_campaign.py --seed 30002 --count 60
    python tests/long/scalar_campaign.py --seed 30003 --count 40 --target python
    NUMBA_ENABLE_CUDASIM=1 python tests/long/scalar_campaign.py --seed 30031 --count 50 --target cuda

``--finite`` draws finite inputs and keeps finite results only (seed 30031 on the CUDA simulator
found its *math domain error*s that way; without it, seed 30110 found ``np.sign(inf)`` NaN there).  Exits non-zero when a kernel crashed or a value differed.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]  # tests/ helpers; this checkout's polyfuse

import numpy as np  # noqa: E402
from conftest import define  # noqa: E402
from scalar_gen import expression_kernel, kernel_source, make_inputs, same_column, tolerance, zero_signs  # noqa: E402

import polyfuse  # noqa: E402

ROWS = 24  # elements per kernel


def run_kernel(exprs: list[str], inputs, target: str) -> tuple[list[str], str, int]:
    """Compile and compare; returns (the expressions kept, a failure text or '', refusals)."""
    refused = 0
    while exprs:
        source = kernel_source(exprs)
        fn = define(source, "kern")
        expected = np.zeros((ROWS, len(exprs)))
        actual = expected.copy()
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*inputs, expected, 5)
            try:
                polyfuse.kernel(fn, target=target)(*[a.copy() for a in inputs], actual, 5)
            except polyfuse.UnsupportedError as exc:
                line = re.search(r":(\d+):\d+:", str(exc))
                row = int(line.group(1)) - 3 if line else -1
                if not 0 <= row < len(exprs):
                    return exprs, f"refused the whole kernel: {str(exc).splitlines()[0]}\n{source}", refused
                refused += 1
                del exprs[row]
                continue
            except Exception as exc:  # noqa: BLE001 - a crash is a finding
                return exprs, f"crash: {type(exc).__name__}: {exc}\n{source}", refused
        exact = None  # vector_math=False's values, computed on the first difference
        for c, e in enumerate(exprs):
            ok = same_column(expected[:, c], actual[:, c], tolerance(e), zero_signs(e))
            if not ok.all() and target == "cpu":
                # the inline vector math is within a few ulp of libm (docs/user-guide.md), which an
                # ill-conditioned use amplifies (``J % math.cbrt(x)`` of a J of 2**40): libm's
                # functions must then give the plain function's values
                if exact is None:
                    exact = np.zeros_like(actual)
                    with np.errstate(all="ignore"), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        polyfuse.kernel(fn, target=target, vector_math=False)(*[a.copy() for a in inputs], exact, 5)
                ok = same_column(expected[:, c], exact[:, c], tolerance(e), zero_signs(e))
                actual[:, c] = exact[:, c]
            if not ok.all():
                k = int(np.flatnonzero(~ok)[0])
                values = ", ".join(f"{name}={a[k]!r}" for name, a in zip("X Y X2 Y2 I J F32".split(), inputs))
                return exprs, (f"wrong: out[k, {c}] = {e}\n    at k={k}: {values}: plain "
                               f"{expected[k, c]!r}, compiled {actual[k, c]!r}"), refused
        return exprs, "", refused
    return exprs, "", refused


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    parser.add_argument("--count", type=int, default=40, help="kernels")
    parser.add_argument("--per", type=int, default=14, help="expressions per kernel")
    parser.add_argument("--target", choices=("cpu", "python", "cuda"), default="cpu")
    parser.add_argument("--finite", action="store_true", help="finite inputs and results only")
    args = parser.parse_args(argv)
    r = random.Random(args.seed)
    finite = args.finite
    failures, compared, refused = 0, 0, 0
    began = time.perf_counter()
    for p in range(args.count):
        inputs = make_inputs(r, ROWS, finite)
        exprs, problem, dropped = run_kernel(expression_kernel(r, args.per, inputs, finite), inputs, args.target)
        refused += dropped
        compared += len(exprs) if not problem else 0
        if problem:
            failures += 1
            print(f"--- seed {args.seed}, kernel {p}, target={args.target}: {problem}", flush=True)
    print(f"seed {args.seed}: {args.count} kernels, {compared} expressions compared, {refused} refused, "
          f"{failures} failures, {time.perf_counter() - began:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
