"""``polyfuse bench``'s loops section with every run the BLAS modes' measurement records printed.

    python benchmarks/blas_record_trace.py matmul_bias_relu --preset large --repeats 3 --min-time 0 --no-json

Wraps ``BlasTimes.record`` and ``entry_ran`` (backends/cpu/parallel.py) and the bench's
``measure.warm_up`` and ``measure.best_time``, then runs ``polyfuse bench --section loops
--kernels K ...`` in this process; at the end prints every record in order: ``<m><~>ms`` (``m``:
the mode's letter, ``l``/``r``/``s``; ``~``: a run not counted), ``eN`` (N calls a native entry
ran on the library's threads, reported late; ``eN/1``: counted at one polyfuse thread),
``[W ... WN]`` a warm-up of N calls and ``[S ... S ms]`` a timed series and its minimum.  A call through ``run_call`` records twice: its product's
run, then the whole call's.  Unlike ``bench_call_trace.py`` it shows the warm-up's calls (the
trials) too.  Session 40 (mb56).
"""

from __future__ import annotations

import sys

from polyfuse.backends.cpu import parallel

from polyfuse.bench import measure
from polyfuse.cli import main as cli_main

log: list[str] = []
_record, _entry_ran = parallel.BlasTimes.record, parallel.BlasTimes.entry_ran
_best_time, _warm_up = measure.best_time, measure.warm_up


def record(self, mode, seconds, began=None):
    counted = sum(self.counted.values())
    _record(self, mode, seconds, began)
    log.append(f"{mode[0]}{'' if sum(self.counted.values()) > counted else '~'}{seconds * 1e3:.2f}")


def entry_ran(self, ran, ended=None):
    if ran > 0:
        log.append(f"e{ran}" + ("" if "rows" in self.modes else "/1"))
    return _entry_ran(self, ran, ended)


def best_time(fn, *args, **kwargs):
    log.append("[S")
    result = _best_time(fn, *args, **kwargs)
    log.append(f"S {result[0] * 1e3:.2f}]")
    return result


def warm_up(fn, *args, **kwargs):
    log.append("[W")
    ran = _warm_up(fn, *args, **kwargs)
    log.append(f"W{ran}]")
    return ran


def main(argv: list[str]) -> None:
    parallel.BlasTimes.record, parallel.BlasTimes.entry_ran = record, entry_ran
    measure.best_time, measure.warm_up = best_time, warm_up
    try:
        cli_main(["bench", "--section", "loops", "--kernels", argv[0], *argv[1:]])
    finally:
        print(" ".join(log))


if __name__ == "__main__":
    main(sys.argv[1:])
