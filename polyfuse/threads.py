"""The thread pool that runs parallel phases; sized by ``set_num_threads`` or
``POLYFUSE_NUM_THREADS`` (default: the CPUs this process may use).

JIT-compiled code is called through ctypes, which releases the GIL, so plain Python threads
run chunks of a parallel loop truly in parallel.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

from .errors import ArgumentError

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_num_threads: int | None = None


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _from_env() -> int | None:
    value = os.environ.get("POLYFUSE_NUM_THREADS")
    if not value:
        return None
    try:
        count = int(value)
    except ValueError:
        raise ArgumentError(f"POLYFUSE_NUM_THREADS={value!r} is not an integer") from None
    if count < 1:
        raise ArgumentError(f"POLYFUSE_NUM_THREADS={value!r} must be at least 1")
    return count


def get_num_threads() -> int:
    if _num_threads is not None:
        return _num_threads
    return _from_env() or available_cpus()


def set_num_threads(count: int) -> None:
    """Use ``count`` threads for parallel loops from now on (1 runs everything serially)."""
    global _num_threads
    if not isinstance(count, int) or count < 1:
        raise ArgumentError(f"set_num_threads({count!r}): need an integer >= 1")
    _num_threads = count


def pool() -> ThreadPoolExecutor:
    """The shared executor, grown to the current thread count when needed."""
    global _pool, _pool_size
    wanted = get_num_threads()
    with _lock:
        if _pool is None or _pool_size < wanted:
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=wanted, thread_name_prefix="polyfuse")
            _pool_size = wanted
            if old is not None:
                old.shutdown(wait=False)
        return _pool
