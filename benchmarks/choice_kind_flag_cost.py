"""What the Python-kind flag of a returned conditional int64 sum costs (ty50): the sum returned
(``s += x[i] if x[i] > 0 else 0`` of ``s = 0``: its strength flag set beside each addition,
which LLVM turns into an or-reduction of ``x[i] > 0``) against the same sum stored into an
array (no flag), and stored beside an or-reduction (``f = f | (x[i] > 0)``) or max-reduction
of the flag as a frontend could write it, interleaved in one process, thread time, min of ``--calls`` calls per round.

    POLYFUSE_NUM_THREADS=1 POLYFUSE_DISABLE_CACHE=1 python benchmarks/choice_kind_flag_cost.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import polyfuse


def relu_sum_returned(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else 0
    return s


def relu_sum_stored(x, out):
    s = 0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else 0
    out[0] = s


def relu_sum_or_flag(x, out):
    s = 0
    f = False
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else 0
        f = f | (x[i] > 0)
    out[0] = s
    out[1] = f


def relu_sum_max_flag(x, out):
    s = 0
    f = 0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else 0
        f = max(f, 1 if x[i] > 0 else 0)
    out[0] = s
    out[1] = f


def best(call, calls: int) -> float:
    least = 1e9
    for _ in range(calls):
        t0 = time.thread_time()
        call()
        least = min(least, time.thread_time() - t0)
    return least


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    x = np.random.default_rng(0).integers(-5, 5, args.n)
    out = np.zeros(2, np.int64)
    returned = polyfuse.kernel(relu_sum_returned, target="cpu", cache=False)
    stored = polyfuse.kernel(relu_sum_stored, target="cpu", cache=False)
    assert returned(x) == relu_sum_returned(x) and type(returned(x)) is type(relu_sum_returned(x))
    stored(x, out)
    assert out[0] == relu_sum_returned(x)
    or_flag = polyfuse.kernel(relu_sum_or_flag, target="cpu", cache=False)
    max_flag = polyfuse.kernel(relu_sum_max_flag, target="cpu", cache=False)
    for k in range(args.rounds):  # A B C D A B C D ...
        times = [best(call, args.calls) * 1e6 for call in (lambda: returned(x), lambda: stored(x, out),
                                                           lambda: or_flag(x, out), lambda: max_flag(x, out))]
        print(f"round {k}: returned (in-place flag) {times[0]:.1f} us | stored (no flag) {times[1]:.1f} | "
              f"written or-reduction flag {times[2]:.1f} | written max-reduction flag {times[3]:.1f}")


if __name__ == "__main__":
    main()
