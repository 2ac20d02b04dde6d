"""Running a parallel phase on the thread pool.

The outer loop's iterations are cut into one contiguous chunk per thread.  Threads get their
own copies of the locals the phase privatises.  A phase only goes parallel once a serial run
of it took long enough to pay for the dispatch: serial runs are timed per outer iteration, and
the estimate for the current trip count decides.
"""

from __future__ import annotations

import time
from typing import Any

from polyfuse import threads
from polyfuse.runtime import allocate, evaluate_int

MIN_PARALLEL_SECONDS = 2e-4  # a phase faster than this serially is not worth waking threads for


def run_parallel(kernel, compiled, args: list, values: dict[str, Any]) -> None:
    phase = compiled.phase
    start, stop = evaluate_int(phase.start, values), evaluate_int(phase.stop, values)
    count = max(0, -(-(stop - start) // phase.step))
    workers = min(threads.get_num_threads(), count)
    per_iteration = kernel.serial_seconds.get(phase.index)  # measured seconds per outer iteration
    if workers <= 1 or per_iteration is None or per_iteration * count < MIN_PARALLEL_SECONDS:
        began = time.perf_counter()
        compiled.function(*args, 0, count)
        if count:
            kernel.serial_seconds[phase.index] = (time.perf_counter() - began) / count
        return
    bounds = [count * k // workers for k in range(workers + 1)]
    keep_alive: list = []  # private buffers must outlive the chunks that use them
    pool = threads.pool()
    futures = []
    for k in range(workers):
        chunk_args = args if k == 0 else _with_private_buffers(kernel, phase, args, values, keep_alive)
        futures.append(pool.submit(compiled.function, *chunk_args, bounds[k], bounds[k + 1]))
    for future in futures:
        future.result()


def _with_private_buffers(kernel, phase, args: list, values: dict[str, Any], keep_alive: list) -> list:
    """``args`` with fresh buffers for the locals the phase privatises."""
    if not phase.private:
        return args
    copied = list(args)
    for position, param in enumerate(kernel.params):
        if param.name in phase.private:
            buffer = allocate(kernel.locals[param.name], values)
            keep_alive.append(buffer)
            copied[position] = buffer.ctypes.data
    return copied
