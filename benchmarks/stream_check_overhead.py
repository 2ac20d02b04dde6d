"""Per-call CPU of a small kernel on the runtime's path without a call plan (keyword arguments,
an integer that differs on every call), where ``LLVMKernel.switch_streams`` asks before each call
whether the arrays hold ``POLYFUSE_STREAM_STORES`` bytes while the kernel's function still probes
its streaming loop (POLYFUSE_LAZY_STREAMS).  Thread CPU seconds, the least of ``--rounds`` means.
Run it from two checkouts in turn (A B A B ...) to compare them:

    python benchmarks/stream_check_overhead.py [--rounds 9] [--number 20000]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import polyfuse


def add(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


def _least(call, rounds: int, number: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.thread_time()
        for _ in range(number):
            call()
        best = min(best, (time.thread_time() - start) / number)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--number", type=int, default=20000)
    options = parser.parse_args()
    kernel = polyfuse.kernel(add)
    a, b, out = np.ones(100), np.ones(100), np.empty(100)
    kernel(a, b, out=out)
    backend = kernel.compile(a, b, out).backend
    assert backend.stream_switches, "the kernel's function does not probe (POLYFUSE_LAZY_STREAMS=0?)"
    paths = {"kwargs call": lambda: kernel(a, b, out=out), "backend call": lambda: backend(values)}
    values = kernel.compile(a, b, out).bind({"a": a, "b": b, "out": out})
    print(json.dumps({name: round(_least(call, options.rounds, options.number) * 1e6, 3)
                      for name, call in paths.items()}))


if __name__ == "__main__":
    main()
