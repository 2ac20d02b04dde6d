"""A suite kernel with a folded accumulator, as compiled before and after its inf/NaN fix, in one process.

    OPENBLAS_NUM_THREADS=1 POLYFUSE_NUM_THREADS=1 POLYFUSE_DISABLE_CACHE=1 taskset -c 0 \\
        python benchmarks/fold_ab.py symm 12 5 [alpha=inf]

"after" is the kernel as polyfuse compiles it; "before" is compiled with the fix taken out
(schedule/accumulators.py: no ``Statement.summed`` reaches the product, whose loops then scale
each term, and no test for elements without terms), as polyfuse did at 54221fd.  Both are
compiled first, their outputs compared, then each round runs REPEATS calls of each on fresh
copies of the bench inputs, alternating which goes first; the process CPU time of each call
is taken (run it on one pinned thread), and the minimum and the median of the round minima
printed.  ``alpha=`` sets symm's alpha (0, inf or nan: the loops instead of BLAS).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time

import numpy as np

import polyfuse
from polyfuse.bench import suite
from polyfuse.schedule import accumulators, loop_products


def main(argv: list[str]) -> None:
    name, rounds, repeats = argv[0], int(argv[1]), int(argv[2])
    settings = dict(a.split("=") for a in argv[3:])
    sk = suite.get(name)
    base = list(sk.make_args(np.random.default_rng(0), **sk.sizes["bench"]))
    if "alpha" in settings:
        base[2] = float(settings["alpha"])  # symm(m, n, alpha, ...)

    def fresh() -> list:
        return [x.copy() if isinstance(x, np.ndarray) else x for x in base]

    after = polyfuse.kernel(sk.func, cache=False)
    outputs = {"after": _outputs(after, fresh())}
    before = polyfuse.kernel(sk.func, cache=False)
    product_statement, no_terms = loop_products._product_statement, accumulators._no_terms
    loop_products._product_statement = lambda stmt, *a, **k: product_statement(
        dataclasses.replace(stmt, summed=None), *a, **k)
    accumulators._no_terms = lambda *a: None
    try:
        outputs["before"] = _outputs(before, fresh())
    finally:
        loop_products._product_statement, accumulators._no_terms = product_statement, no_terms
    same = all(np.allclose(x, y, rtol=1e-12, equal_nan=True) for x, y in zip(outputs["before"], outputs["after"]))
    print(f"{name}: outputs before and after {'agree' if same else 'differ'}")
    times: dict[str, list[float]] = {"before": [], "after": []}
    for r in range(rounds):
        order = [("before", before), ("after", after)]
        for label, kernel in order if r % 2 == 0 else order[::-1]:
            best = float("inf")
            for _ in range(repeats):
                args = fresh()
                start = time.process_time()
                kernel(*args)
                best = min(best, time.process_time() - start)
            times[label].append(best)
    for label, values in times.items():
        print(f"{label}: min {min(values) * 1e3:.2f} ms, median of round minima {statistics.median(values) * 1e3:.2f} ms")


def _outputs(kernel, args: list) -> list[np.ndarray]:
    """Call ``kernel`` (its first call compiles it) and return its array arguments after."""
    with np.errstate(all="ignore"):
        kernel(*args)
    return [x for x in args if isinstance(x, np.ndarray)]


if __name__ == "__main__":
    main(sys.argv[1:])
