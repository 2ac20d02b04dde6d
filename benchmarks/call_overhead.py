"""Per-call overhead of compiled kernels: the time of ``kernel(*args)`` with native entries
(the default; backends/cpu/entry.py) and with the Python call plan (``POLYFUSE_NATIVE_ENTRY=0``),
against the time of the JIT-compiled machine code alone, called directly through ctypes with
prepared arguments.

    python benchmarks/call_overhead.py            # the table
    python benchmarks/call_overhead.py --json     # the same numbers as JSON (for A/B runs)

Each number is the minimum over ``--repeat`` rounds of the mean of a sample of calls (at most
``--number``, ~0.3 ms of them), the paths timed in turn within each round (interleaved): on a
machine shared with other jobs, interference only ever adds time, and short samples escape it.  ``overhead`` is a call minus ``machine code``: binding, the
bounds and overlap checks, kernel-local arrays, building the arguments and dispatching the
phases (ctypes' own argument conversion is in ``machine code``, so a native entry, which has
none, can cost less than it).
"""

from __future__ import annotations

import argparse
import json
import os
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


def rates(y, t, a1, a2, b1, b2, d1, d2):
    """numpy-benchmarks' hasting: three scalar expressions into a fresh array (a 0-d kernel)."""
    yprime = np.empty((3,))
    yprime[0] = y[0] * (1. - y[0]) - a1 * y[0] * y[1] / (1. + b1 * y[0])
    yprime[1] = a1 * y[0] * y[1] / (1. + b1 * y[0]) - a2 * y[1] * y[2] / (1. + b2 * y[1]) - d1 * y[1]
    yprime[2] = a2 * y[1] * y[2] / (1. + b2 * y[1]) - d2 * y[2]
    return yprime


def axpy3(a, b, out):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            for k in range(out.shape[2]):
                out[i, j, k] = 2.0 * a[i, j, k] + b[i, j, k]


def permuted(A):
    """npbench's permute_inplace_3d: a view, no machine code at all."""
    return np.transpose(A, (2, 1, 0))


def cases() -> list[tuple[str, Callable, tuple]]:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(64), rng.standard_normal(64)
    wide = rng.standard_normal((64, 2))
    cube = rng.standard_normal((2, 3, 4))
    return [
        ("0-d: hasting, 7 numpy scalars", rates, (rng.random(3), *map(np.float64, rng.random(7)))),
        ("1-d: elementwise, 3 elements", add, (a[:3].copy(), b[:3].copy(), np.empty(3))),
        ("1-d: elementwise, 64 elements", add, (a, b, np.empty(64))),
        ("1-d: elementwise, strided views", add, (wide[:, 0], wide[:, 1], np.empty(64))),
        ("3-d: elementwise, 2 x 3 x 4", axpy3, (cube, cube + 1, np.empty((2, 3, 4)))),
        ("view: transpose of 20 x 30 x 40", permuted, (rng.random((20, 30, 40)),)),
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


def warmed(fn: Callable, args: tuple, native: bool) -> polyfuse.Kernel:
    """A kernel called often enough at ``args`` for its plan (and, with ``native``, its native entry)."""
    saved = os.environ.get("POLYFUSE_NATIVE_ENTRY")
    os.environ["POLYFUSE_NATIVE_ENTRY"] = "1" if native else "0"  # read when the plan is made
    try:
        kernel = polyfuse.kernel(fn)
        for _ in range(8):
            kernel(*args)
    finally:
        if saved is None:
            del os.environ["POLYFUSE_NATIVE_ENTRY"]
        else:
            os.environ["POLYFUSE_NATIVE_ENTRY"] = saved
    return kernel


def _calls_per_sample(timer: Callable[[], None], most: int, sample_s: float = 3e-4) -> int:
    once = best_us(timer, 10, 3) * 1e-6
    return max(10, min(most, int(sample_s / max(once, 1e-8))))


def measure(number: int, repeat: int) -> list[dict]:
    rows = []
    for label, fn, args in cases():
        native, plan = warmed(fn, args, True), warmed(fn, args, False)
        raw = machine_code(plan, args)
        timers = {"native_us": lambda k=native, a=args: k(*a), "plan_us": lambda k=plan, a=args: k(*a),
                  "machine_code_us": raw}
        # each sample ~0.3 ms: on a loaded machine a longer one is always cut by other jobs
        numbers = {name: _calls_per_sample(timer, number) for name, timer in timers.items()}
        best = dict.fromkeys(timers, float("inf"))
        for _ in range(repeat):  # interleaved: each round times every path once
            for name, timer in timers.items():
                best[name] = min(best[name], best_us(timer, numbers[name], 1))
        rows.append({"case": label, **best, "native_overhead_us": best["native_us"] - best["machine_code_us"],
                     "plan_overhead_us": best["plan_us"] - best["machine_code_us"],
                     "native_entry": native._fast is not None})
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
    parser.add_argument("--number", type=int, default=2000, help="calls per sample, at most")
    parser.add_argument("--repeat", type=int, default=40, help="rounds (the minimum is reported)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    options = parser.parse_args()
    rows = measure(options.number, options.repeat)
    wakeup = pool_wakeup_us(options.number, options.repeat)
    if options.json:
        print(json.dumps({"loadavg": _loadavg(), "rows": rows, "pool_wakeup_us": wakeup}))
        return
    print(f"load average {_loadavg()}")
    print(f"{'case':34s} {'native us':>9s} {'plan us':>8s} {'machine code us':>16s} "
          f"{'overhead native':>16s} {'overhead plan':>14s}")
    for row in rows:
        mark = "" if row["native_entry"] else "  (no native entry)"
        print(f"{row['case']:34s} {row['native_us']:9.2f} {row['plan_us']:8.2f} {row['machine_code_us']:16.2f} "
              f"{row['native_overhead_us']:16.2f} {row['plan_overhead_us']:14.2f}{mark}")
    from polyfuse.backends.cpu.parallel import MIN_PARALLEL_SECONDS

    print(f"\nwaking the thread pool for 2 empty chunks: {wakeup:.1f} us "
          f"(parallel phases need {MIN_PARALLEL_SECONDS * 1e6:.0f} us of serial work)")


def _loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
