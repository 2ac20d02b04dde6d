"""The thread pool that runs parallel phases; sized by ``set_num_threads`` or
``POLYFUSE_NUM_THREADS`` (default: the CPUs this process may use).

JIT-compiled code is called through ctypes, which releases the GIL, so plain Python threads
run chunks of a parallel loop truly in parallel.  ``run_team`` starts a group of members that
wait for each other at barriers (a parallel region), so they must all run at once: they run on
the executor (``pool``).  A parallel phase's other members, which wait for nobody, go to plain
helper threads instead (``hand_off``: one queue put per member at each team start).
"""

from __future__ import annotations

import ctypes
import os
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from polyfuse import options
from polyfuse.errors import ArgumentError
from polyfuse.hardware import available_cpus

_lock = threading.Lock()
_team_lock = threading.Lock()  # a team's tasks enter the pool's queue together
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_num_threads: int | None = None
# counts the changes of the thread count: a native entry (runtime/native.py) made while one thread
# ran parallel phases serially checks that the count is still the one it was made at
THREADS_EPOCH = ctypes.c_int64(0)


def get_num_threads() -> int:
    if _num_threads is not None:
        return _num_threads
    return options.num_threads() or available_cpus()


def set_num_threads(count: int) -> None:
    """Use ``count`` threads for parallel loops from now on (1 runs everything serially)."""
    global _num_threads
    if not isinstance(count, int) or count < 1:
        raise ArgumentError(f"set_num_threads({count!r}): need an integer >= 1")
    _num_threads = count
    THREADS_EPOCH.value += 1


@contextmanager
def limited_to(count: int) -> Iterator[None]:
    """Run parallel loops on ``count`` threads inside the block (the bench's one-thread column)."""
    global _num_threads
    before = _num_threads
    set_num_threads(count)
    try:
        yield
    finally:
        _num_threads = before
        THREADS_EPOCH.value += 1


def pool(at_least: int = 0) -> ThreadPoolExecutor:
    """The shared executor, grown to the current thread count (or ``at_least``) when needed."""
    global _pool, _pool_size
    wanted = max(get_num_threads(), at_least)
    with _lock:
        if _pool is None or _pool_size < wanted:
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=wanted, thread_name_prefix="polyfuse")
            _pool_size = wanted
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def run_team(work: Callable[[int], None], count: int, abort: Callable[[], None]) -> None:
    """Run ``work(0)``, ..., ``work(count - 1)`` at the same time: member 0 on the calling thread,
    the others on the pool.

    Members may wait for each other, so none may sit in the pool's queue behind a member that
    waits: the pool has at least ``count`` workers, its queue is first-in first-out and a team's
    tasks enter it together, so teams started at once from several Python threads run one after
    another.  If a member raises, ``abort()`` is called (it must make members waiting at a
    barrier return) and the first error is raised once every member has stopped.
    """
    futures: list[Future] = []
    failed: BaseException | None = None
    try:
        with _team_lock:
            executor = pool(count)
            futures = [executor.submit(_member, work, k, abort) for k in range(1, count)]
        work(0)
    except BaseException as exc:  # noqa: BLE001 - re-raised below, after the members stopped
        failed = exc
        abort()
    for future in futures:
        try:
            future.result()
        except BaseException as exc:  # noqa: BLE001
            failed = failed or exc
    if failed is not None:
        raise failed


# ---- helpers: threads that run a parallel phase's pieces (backends/cpu/parallel.py) -------------

_helpers_lock = threading.Lock()
_helper_tasks: queue.SimpleQueue = queue.SimpleQueue()
_helper_count = 0
#: a phase's team start hands members to the helpers (``hand_off``); False: to the executor's
#: ``submit``, as before session 25 (benchmarks/handoff_ab.py flips it, for A/B runs in one process)
LIGHT_HANDOFF = True


def hand_off(task: Callable[..., None], *args: object) -> None:
    """Run ``task(*args)`` on a helper thread, for work whose caller never waits for it unless it
    has started: a parallel phase's pieces (the caller takes pieces too and waits only for those
    another member took, ``backends/cpu/parallel.py`` ``Pieces``).  The task must not raise (the
    members catch their errors and hand them to the caller).

    Why not the executor (``pool().submit``): a phase's team start is on the critical path of
    every call, and ``submit`` runs Python for a ``Future`` (with its ``Condition``), a work item
    and the idle-thread semaphore before the queue's put; a helper waits on a plain
    ``SimpleQueue`` and the hand-off is one ``put``.  Teams whose members wait for each other at
    barriers (``run_team``) stay on the executor, whose size and FIFO order they rely on.  There are
    as many helpers as ``get_num_threads() - 1`` ever was."""
    wanted = get_num_threads() - 1
    if _helper_count < wanted:
        _start_helpers(wanted)
    _helper_tasks.put((task, args))


def _start_helpers(wanted: int) -> None:
    global _helper_count
    with _helpers_lock:
        while _helper_count < wanted:
            tasks = _helper_tasks
            threading.Thread(target=_helper, args=(tasks,), name=f"polyfuse-helper-{_helper_count}",
                             daemon=True).start()
            _helper_count += 1


def _helper(tasks: queue.SimpleQueue) -> None:
    while True:
        task, args = tasks.get()
        try:
            task(*args)
        except BaseException:  # noqa: BLE001, S110 - members hand their errors to the caller; a helper outlives a bug
            pass


def _forget_pool_after_fork() -> None:
    """In a child process just forked: the pool's workers are the parent's threads, which the
    child does not have (fork copies only the calling thread), but the executor still counts them
    as idle and queues work for them, so a team's members never started and member 0 waited at
    the region's first barrier forever (fz27).  The child makes a new pool on first use; the
    locks are new too, in case another thread of the parent held one at the fork."""
    global _pool, _pool_size, _lock, _team_lock, _helpers_lock, _helper_tasks, _helper_count
    _pool, _pool_size = None, 0
    _lock, _team_lock = threading.Lock(), threading.Lock()
    _helpers_lock, _helper_tasks, _helper_count = threading.Lock(), queue.SimpleQueue(), 0


os.register_at_fork(after_in_child=_forget_pool_after_fork)


def _member(work: Callable[[int], None], k: int, abort: Callable[[], None]) -> None:
    try:
        work(k)
    except BaseException:
        abort()
        raise
