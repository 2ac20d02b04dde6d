"""Why a parallel phase's team of threads can run no faster than one thread, in three measurements
(docs/performance.md, *The team or the serial function*).

    python benchmarks/team_choice.py spinners   # CPU other libraries' pools burn after a call
    python benchmarks/team_choice.py after      # team vs serial right after such a call
    python benchmarks/team_choice.py dispatch   # chunk 0 on the caller vs every chunk on the pool
    python benchmarks/team_choice.py policy     # the runtime's choice now vs before, interleaved
    python benchmarks/team_choice.py pieces [ROUNDS] [KERNEL ...]  # phase pieces vs one chunk per thread

``spinners``: the process's CPU time while its main thread sleeps right after a call of
multi-threaded OpenBLAS (``a @ a``), ``jax.jit`` (XLA's CPU pool), ``numba`` ``parallel=True``
(its threading layer) and polyfuse's team: a pool that spin-waits for more work shows up as CPU
time with nothing to do, whatever else runs on the machine.

``after``: gelu_tanh (2M elements, the bench's numpy program) on polyfuse's team and serially
(``RegionTimes`` bypassed: each mode forced), 10 pairs right after nothing, a BLAS call, a jax
call.  ``dispatch``: the same phase on the team with chunk 0 on the calling thread (as the
runtime runs phases and regions) and with every chunk on the pool while the caller waits (as
phases ran before session 16's change), interleaved, at 2M and 20k elements, and how often both
chunks started on one CPU.  These two need a quiet machine to say anything: with
another job on a core, a team of two is no faster than one thread whatever it does.

``policy``: two kernels of gelu_tanh, one deciding as ``RegionTimes`` does now, one as it did
before (``Before`` below: after a loss, the team again after 8, 16, ... 128 calls), called in
turns of 17 calls (a bench series), each going first in every other turn, each turn right after
a BLAS call (``--quiet``: after nothing); per policy the median and best of the turns' minima,
the time of all calls and how many ran on the team.  Both see the same machine, so it means something under
load too.

``pieces``: suite kernels at their bench sizes (default: the matrix-vector family) on a forced team
of 2, interleaved call by call (each way first in turn), and serially: parallel phases cut into
4 pieces per thread taken from a shared counter; into 1 piece per thread (the runtime now:
``parallel.PIECES_PER_THREAD``); the same with the pool thread stepping aside from the caller's
CPU (``_StepAside``: an experiment, not in the runtime); and as before session 17 (one static
chunk per thread, the caller waiting for every pool thread).  Min, median and 90th percentile per
way, and the load; ``--fresh`` copies the inputs before each call (untimed), as the bench does.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from polyfuse.backends.cpu import parallel

import polyfuse
from polyfuse.bench.numpy_suite import gelu_tanh, with_numpy_namespace
from polyfuse.runtime import threads

N = 2_000_000


def idle_cpu_ms(call: Callable[[], object], window: float) -> float:
    """Milliseconds of CPU the process uses during ``window`` seconds of sleep after ``call()``."""
    call()
    before = time.process_time()
    time.sleep(window)
    return (time.process_time() - before) * 1e3


def spinners() -> None:
    x = np.random.default_rng(0).standard_normal(N)
    a = np.random.default_rng(1).random((600, 600))
    calls: dict[str, Callable[[], object]] = {"numpy ufunc (np.tanh)": lambda: np.tanh(x),
                                              "OpenBLAS (a @ a)": lambda: a @ a}
    kernel = polyfuse.kernel(gelu_tanh)
    kernel(x)
    calls["polyfuse team (gelu_tanh)"] = lambda: kernel(x)
    jax = _jax()
    if jax is not None:
        jitted, xj = jax.jit(with_numpy_namespace(gelu_tanh, jax.numpy)), jax.device_put(x)
        calls["jax.jit (gelu_tanh)"] = lambda: jax.block_until_ready(jitted(xj))
    numba_call = _numba_parallel(x)
    if numba_call is not None:
        calls[numba_call[0]] = numba_call[1]
    windows = (0.002, 0.02, 0.1, 0.5)
    print(f"{'after a call of':32s}" + "".join(f"{f'cpu in {w * 1e3:g} ms':>16s}" for w in windows))
    with _team_forced():
        for label, call in calls.items():
            call()
            print(f"{label:32s}" + "".join(f"{idle_cpu_ms(call, w):13.2f} ms" for w in windows))


def after() -> None:
    x = np.random.default_rng(0).standard_normal(N)
    a = np.random.default_rng(1).random((600, 600))
    kernel = polyfuse.kernel(gelu_tanh)
    before: dict[str, Callable[[], object]] = {"nothing": lambda: None, "a BLAS call": lambda: a @ a}
    jax = _jax()
    if jax is not None:
        jitted, xj = jax.jit(with_numpy_namespace(gelu_tanh, jax.numpy)), jax.device_put(x)
        before["a jax.jit call"] = lambda: jax.block_until_ready(jitted(xj))
    with _team_forced():
        kernel(x)
        for call in before.values():
            call()
        print(f"{'right after':16s} {'team min':>9s} {'median':>9s} {'serial min':>11s} {'median':>9s}  (ms)")
        for label, call in before.items():
            team, serial = [], []
            for _ in range(10):
                call()
                team.append(_seconds(lambda: kernel(x)))
                call()
                with threads.limited_to(1):
                    serial.append(_seconds(lambda: kernel(x)))
            print(f"{label:16s} {min(team) * 1e3:9.2f} {np.median(team) * 1e3:9.2f} "
                  f"{min(serial) * 1e3:11.2f} {np.median(serial) * 1e3:9.2f}")


def dispatch() -> None:
    for n, rounds in ((N, 8), (20_000, 40)):
        print(f"gelu_tanh, {n} elements, forced onto 2 threads:")
        _dispatch(np.random.default_rng(0).standard_normal(n), rounds)


def _dispatch(x: np.ndarray, rounds: int) -> None:
    kernel = polyfuse.kernel(gelu_tanh)
    cpus: list[tuple[int, int]] = []
    ways = {"chunk 0 on the caller": _recording(caller=True, cpus=cpus),
            "every chunk on the pool": _recording(caller=False, cpus=cpus)}
    times: dict[str, list[float]] = {label: [] for label in ways}
    shared: dict[str, int] = dict.fromkeys(ways, 0)
    runs = parallel._run_chunks
    minimum = parallel.MIN_PARALLEL_SECONDS
    with _team_forced():
        parallel.MIN_PARALLEL_SECONDS = 0.0  # the small size too
        kernel(x)
        try:
            for _ in range(rounds):
                for label, way in ways.items():
                    parallel._run_chunks = way  # type: ignore[assignment]
                    for _ in range(6):
                        cpus.clear()
                        times[label].append(_seconds(lambda: kernel(x)))
                        shared[label] += cpus[0][0] == cpus[1][0] if len(cpus) == 2 else 0
        finally:
            parallel._run_chunks = runs  # type: ignore[assignment]
            parallel.MIN_PARALLEL_SECONDS = minimum
        with threads.limited_to(1):
            serial = [_seconds(lambda: kernel(x)) for _ in range(6 * rounds)]
    for label, seconds in times.items():
        print(f"  {label:24s} min {min(seconds) * 1e3:7.3f} ms, median {np.median(seconds) * 1e3:7.3f} ms; "
              f"both chunks started on one CPU in {shared[label]} of {len(seconds)} calls")
    print(f"  {'serial':24s} min {min(serial) * 1e3:7.3f} ms, median {np.median(serial) * 1e3:7.3f} ms")


@dataclass
class Before(parallel.RegionTimes):
    """The choice as it was before the checks' cost was bounded (commit 1c1e806)."""

    interval: int = 8
    next_check: int = 8

    def use_team(self) -> bool:
        if not self.worth_threads:
            return False
        self.calls += 1
        if len(self.team) < parallel.WINDOW and not (self.team and min(self.team) > 2 * min(self.serial)):
            return True
        faster = min(self.team) < min(self.serial)
        if faster:
            self.interval = 8
        if self.calls < self.next_check:
            return faster
        self.next_check = self.calls + self.interval
        if not faster:
            self.interval = min(2 * self.interval, 128)
        return not faster

    def record(self, team: bool, seconds: float) -> None:
        times = self.team if team else self.serial
        times.append(seconds)
        del times[:-parallel.WINDOW]


def policy(quiet: bool) -> None:
    x = np.random.default_rng(0).standard_normal(N)
    a = np.random.default_rng(1).random((600, 600))
    made = parallel.RegionTimes
    kernels = {}
    for label, kind in (("now", made), ("before", Before)):
        kernels[label] = polyfuse.kernel(gelu_tanh)
        parallel.RegionTimes = kind  # type: ignore[misc]  # the first call makes the phase's record
        try:
            kernels[label](x)
        finally:
            parallel.RegionTimes = made  # type: ignore[misc]
    minima: dict[str, list[float]] = {label: [] for label in kernels}
    total = dict.fromkeys(kernels, 0.0)
    order = list(kernels)
    for turn in range(30):
        for label in order[turn % 2:] + order[:turn % 2]:  # each goes first in every other turn
            if not quiet:
                a @ a  # what the bench's numpy contender did right before polyfuse's series
            seconds = [_seconds(functools.partial(kernels[label], x)) for _ in range(17)]
            minima[label].append(min(seconds))
            total[label] += sum(seconds)
    for label, kernel in kernels.items():
        (runs,) = kernel.compile(x).backend.phase_runs.values() or (0,)
        print(f"{label:7s} turn minima: median {np.median(minima[label]) * 1e3:6.2f} ms, "
              f"best {min(minima[label]) * 1e3:6.2f} ms; all 510 calls {total[label]:6.3f} s, {runs} on the team")


def pieces(rounds: int, names: list[str], fresh: bool = False) -> None:
    import numba

    from polyfuse.bench import suite

    print(f"load before: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    ways = {"4 pieces": 4, "1 piece (now)": 1, "1 piece, step aside": 1, "before": 1}
    saved, runs, shared_pool = parallel.PIECES_PER_THREAD, parallel._run_chunks, threads.pool
    for name in names:
        sk = suite.get(name)
        args = sk.make_args(np.random.default_rng(0), **sk.sizes["bench"])
        kernel = polyfuse.kernel(sk.func)
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        numba.njit(sk.func)(*expected)  # the plain function, compiled (pure Python takes minutes here)
        times: dict[str, list[float]] = {label: [] for label in (*ways, "serial")}
        with _team_forced():
            kernel(*args)
            call = functools.partial(kernel, *args)
            order = [*ways, "serial"]
            try:
                for turn in range(rounds):
                    for label in order[turn % len(order):] + order[:turn % len(order)]:  # each first in turn
                        parallel.PIECES_PER_THREAD = ways.get(label, saved)
                        parallel._run_chunks = _chunks_before if label == "before" else runs  # type: ignore[assignment]
                        threads.pool = _StepAside.pool if "step aside" in label else _Unpinned.pool  # type: ignore[assignment]
                        if fresh:  # as the bench times: inputs copied afresh (untimed) before each call
                            call = functools.partial(kernel, *[a.copy() if isinstance(a, np.ndarray) else a
                                                               for a in args])
                        with threads.limited_to(2 if label in ways else 1):
                            times[label].append(_seconds(call))
            finally:
                parallel.PIECES_PER_THREAD, parallel._run_chunks = saved, runs  # type: ignore[assignment]
                threads.pool = shared_pool  # type: ignore[assignment]
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in sk.make_args(np.random.default_rng(0),
                                                                                   **sk.sizes["bench"])]
        kernel(*got)
        error = max(float(np.abs(e - g).max() / (np.abs(e).max() or 1.0))
                    for e, g in zip(expected, got) if isinstance(e, np.ndarray))
        print(f"{name} (rel. error vs the plain function {error:.1e}):")
        for label, seconds in times.items():
            print(f"  {label:22s} min {min(seconds) * 1e3:8.3f} ms, median {np.median(seconds) * 1e3:8.3f} ms, "
                  f"90th percentile {np.percentile(seconds, 90) * 1e3:8.3f} ms")
    print(f"load after: {' '.join(open('/proc/loadavg').read().split()[:3])}")


def _chunks_before(kernel, compiled, args, values, count, workers) -> None:
    """``parallel._run_chunks`` before session 17: one static chunk per thread, chunk 0 on the
    caller, which then waits for every pool thread to finish its chunk (started or not)."""
    bounds = [count * k // workers for k in range(workers + 1)]
    keep_alive: list = []
    pool = threads.pool()
    futures = []
    for k in range(1, workers):
        chunk_args = parallel._with_private_buffers(kernel, compiled.phase, args, values, keep_alive)
        futures.append(pool.submit(compiled.function, *chunk_args, bounds[k], bounds[k + 1]))
    try:
        compiled.function(*args, bounds[0], bounds[1])
    finally:
        for future in futures:
            future.result()


class _Unpinned:
    """The shared pool, its threads free to run on every CPU the caller may (undoes a move by
    ``_StepAside``)."""

    def __init__(self, place: tuple[int, frozenset[int]] | None) -> None:
        self.place = place

    @classmethod
    def pool(cls, at_least: int = 0):
        return cls(_caller_place())

    def submit(self, fn, *args):
        def run():
            self.before()
            return fn(*args)

        return _SHARED_POOL().submit(run)

    def before(self) -> None:
        if self.place is not None and os.sched_getaffinity(0) != self.place[1]:
            os.sched_setaffinity(0, self.place[1])


class _StepAside(_Unpinned):
    """The experiment of session 17 (not in the runtime: no win measured under load): a pool
    thread that starts a member on the caller's CPU (where Linux wakes it when the other core is
    busy) restricts itself to the caller's other CPUs, and stays there."""

    def before(self) -> None:
        if self.place is not None and _LIBC.sched_getcpu() == self.place[0]:
            os.sched_setaffinity(0, self.place[1] - {self.place[0]})


_LIBC = ctypes.CDLL(None)
_LIBC.sched_getcpu.restype = ctypes.c_int
_SHARED_POOL = threads.pool


def _caller_place() -> tuple[int, frozenset[int]] | None:
    allowed = frozenset(os.sched_getaffinity(0))
    return (_LIBC.sched_getcpu(), allowed) if len(allowed) > 1 else None


def _recording(caller: bool, cpus: list[tuple[int, int]]):
    """A ``_run_chunks`` for two threads that notes the CPU each chunk started on."""
    libc = ctypes.CDLL(None)
    libc.sched_getcpu.restype = ctypes.c_int

    def run(kernel, compiled, args, values, count, workers):
        assert workers == 2 and not compiled.phase.private, "a two-chunk phase without private buffers"
        half = count // 2

        def chunk(k: int) -> None:
            cpus.append((libc.sched_getcpu(), k))
            compiled.function(*args, half * k, count if k else half)

        pool = threads.pool()
        futures = [pool.submit(chunk, k) for k in ((1,) if caller else (0, 1))]
        if caller:
            chunk(0)
        for future in futures:
            future.result()

    return run


class _team_forced:
    """Every parallel phase on the team, however it compares with the serial function."""

    def __enter__(self) -> None:
        self.saved = parallel.RegionTimes.use_team
        parallel.RegionTimes.use_team = lambda times: times.worth_threads  # type: ignore[method-assign]

    def __exit__(self, *exc: object) -> None:
        parallel.RegionTimes.use_team = self.saved  # type: ignore[method-assign]


def _seconds(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _jax():
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def _numba_parallel(x: np.ndarray):
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(parallel=True)
    def tanh_all(values, out):
        for i in numba.prange(values.shape[0]):
            out[i] = np.tanh(values[i])

    out = np.empty_like(x)
    tanh_all(x, out)
    return f"numba parallel ({numba.threading_layer()})", lambda: tanh_all(x, out)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "spinners"
    if what == "policy":
        policy(quiet="--quiet" in sys.argv)
    elif what == "pieces":
        given = [a for a in sys.argv[2:] if not a.isdigit()]
        counts = [int(a) for a in sys.argv[2:] if a.isdigit()]
        given = [a for a in given if a != "--fresh"]
        pieces(counts[0] if counts else 20, given or ["atax", "bicg", "mvt", "gemver"], "--fresh" in sys.argv)
    else:
        {"spinners": spinners, "after": after, "dispatch": dispatch}[what]()
    with open("/proc/loadavg") as load:
        print("load:", load.read().strip())
