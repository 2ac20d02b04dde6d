"""Per-call overhead of compiled kernels: the time of ``kernel(*args)`` against the time of the
JIT-compiled machine code alone, called directly through ctypes with prepared arguments.

    python benchmarks/call_overhead.py            # the table
    python benchmarks/call_overhead.py --json     # the same numbers as JSON (for A/B runs)

Each number is the minimum over ``--repeat`` rounds of the mean of ``--number`` calls: on a
machine shared with other jobs, interference only ever adds time.  ``overhead`` is ``call``
minus ``machine code``: binding, the bounds and overlap checks, kernel-local arrays, building the
ctypes arguments and dispatching the phases.
"""

from __future__ import annotations

import argparse
import json
import timeit
from collections.abc import Callable

import numpy as np

import polyfuse


def add(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


def softmax_step(G0, scale, E, Z):
    """The fused loop step of polyfuse.spec's row-wise attention (4 rows x 512 keys per call)."""
    S = np.empty((G0.shape[0], G0.shape[1],), dtype=np.float64)
    M = np.empty((G0.shape[0],), dtype=np.float64)
    for i_ in range(G0.shape[0]):
        for j_ in range(G0.shape[1]):
            S[i_, j_] = (G0[i_, j_] * scale)
    for i_ in range(G0.shape[0]):
        acc0 = S[i_, 0]
        for j_ in range(G0.shape[1]):
            acc0 = max(acc0, S[i_, j_])
        M[i_] = acc0
    for i_ in range(G0.shape[0]):
        for j_ in range(G0.shape[1]):
            E[i_, j_] = np.exp(S[i_, j_] - M[i_])
    for i_ in range(G0.shape[0]):
        acc1 = 0.0
        for j_ in range(G0.shape[1]):
            acc1 += E[i_, j_]
        Z[i_] = acc1


def column_sums(X, out):
    """A zero-initialised kernel-local array that contraction cannot remove."""
    T = np.zeros((X.shape[1],))
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            T[j] += X[i, j]
    for j in range(X.shape[1]):
        out[j] = T[j] * 2.0


def cases() -> list[tuple[str, Callable, tuple]]:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(64), rng.standard_normal(64)
    wide = rng.standard_normal((64, 2))
    return [
        ("elementwise, 64 elements", add, (a, b, np.empty(64))),
        ("elementwise, strided views", add, (wide[:, 0], wide[:, 1], np.empty(64))),
        ("softmax step, 4 x 512", softmax_step,
         (rng.standard_normal((4, 512)), 0.125, np.empty((4, 512)), np.empty(4))),
        ("kernel-local array, 8 x 16", column_sums, (rng.standard_normal((8, 16)), np.empty(16))),
    ]


def machine_code(kernel: polyfuse.Kernel, args: tuple) -> Callable[[], None]:
    """The kernel's phase functions called directly with the ctypes arguments of one call."""
    variant = kernel.compile(*args)
    backend = variant.backend
    env = variant.bind(dict(zip(kernel._names, args)))
    for info in variant.local_arrays:
        env[info.name] = np.zeros(_shape(info, env), dtype=info.dtype)
    values = [_param_value(p, env) for p in backend.params]
    calls = []
    for compiled in backend.phases:
        if compiled.phase.parallel:
            from polyfuse.runtime.variant import evaluate_int

            start, stop = evaluate_int(compiled.phase.start, env), evaluate_int(compiled.phase.stop, env)
            calls.append((compiled.function, (*values, 0, max(0, -(-(stop - start) // compiled.phase.step)))))
        else:
            calls.append((compiled.function, tuple(values)))

    def run(env: dict = env) -> None:  # env keeps the local arrays alive
        for function, call_args in calls:
            function(*call_args)

    return run


def _shape(info, env) -> tuple[int, ...]:
    from polyfuse.runtime.variant import evaluate_int

    return tuple(evaluate_int(e, env) for e in info.shape)


def _param_value(param, env):
    if param.kind == "array":
        return env[param.name].ctypes.data
    if param.kind == "stride":
        array = env[param.array]
        return array.strides[param.axis] // array.itemsize
    return env[param.name]


def best_us(fn: Callable[[], None], number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def measure(number: int, repeat: int) -> list[dict]:
    rows = []
    for label, fn, args in cases():
        kernel = polyfuse.kernel(fn)
        kernel(*args)
        raw = machine_code(kernel, args)
        call_us = best_us(lambda kernel=kernel, args=args: kernel(*args), number, repeat)
        raw_us = best_us(raw, number, repeat)
        rows.append({"case": label, "call_us": call_us, "machine_code_us": raw_us,
                     "overhead_us": call_us - raw_us})
    return rows


def pool_wakeup_us(number: int, repeat: int) -> float:
    """What sending two chunks with nothing to do to the thread pool and waiting for them costs:
    the price a parallel phase pays on threads (``backends/parallel.MIN_PARALLEL_SECONDS``)."""
    from polyfuse.runtime import threads

    pool = threads.pool(2)

    def wake() -> None:
        for future in [pool.submit(int) for _ in range(2)]:
            future.result()

    wake()
    return best_us(wake, max(1, number // 10), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--number", type=int, default=2000, help="calls per round")
    parser.add_argument("--repeat", type=int, default=15, help="rounds (the minimum is reported)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    options = parser.parse_args()
    rows = measure(options.number, options.repeat)
    wakeup = pool_wakeup_us(options.number, options.repeat)
    if options.json:
        print(json.dumps({"rows": rows, "pool_wakeup_us": wakeup}))
        return
    print(f"{'case':32s} {'call us':>9s} {'machine code us':>16s} {'overhead us':>12s}")
    for row in rows:
        print(f"{row['case']:32s} {row['call_us']:9.2f} {row['machine_code_us']:16.2f} {row['overhead_us']:12.2f}")
    from polyfuse.backends.cpu.parallel import MIN_PARALLEL_SECONDS

    print(f"\nwaking the thread pool for 2 empty chunks: {wakeup:.1f} us "
          f"(parallel phases need {MIN_PARALLEL_SECONDS * 1e6:.0f} us of serial work)")


if __name__ == "__main__":
    main()
