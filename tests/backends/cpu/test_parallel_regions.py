"""Parallel regions: phases with a sequential outer loop whose inner parallel loops run on a team of
threads with barriers (``polyfuse.phases``, ``backends/parallel.py``).  Results must be bitwise
equal to the serial schedule on any number of threads."""

from __future__ import annotations

import ctypes
import threading
import time
import types

import numpy as np
import pytest
from conftest import HAS_CPU, assert_regions_ran, assert_same_arrays, copy_args, define
from hypothesis import HealthCheck, given, note, reject, settings
from hypothesis import strategies as st
from program_gen import in_a_time_loop, programs

import polyfuse
from polyfuse.bench import suite
from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")

KERNELS = ["jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d", "lu", "cholesky", "floyd-warshall", "seidel-2d"]


def run(kernel, args, count: int):
    """``kernel`` on ``count`` threads: the arguments after the call, then what it returned.  The
    first call at these sizes and thread count is the measuring (serial) one, so it runs twice."""
    threads.set_num_threads(count)
    kernel(*copy_args(args))
    out = copy_args(args)
    result = kernel(*out)
    return (*out, result)


def python(fn, args):
    """The undecorated function, in the same form as ``run``."""
    out = copy_args(args)
    result = fn(*out)
    return (*out, result)


def backend(kernel, args):
    return kernel.compile(*args).backend


def assert_bitwise(expected, actual):
    """Every array argument and the return value, bit for bit."""
    assert len(expected) == len(actual)
    for pos, (e, a) in enumerate(zip(expected, actual)):
        if isinstance(e, np.ndarray):
            assert a.dtype == e.dtype and a.shape == e.shape, f"position {pos}"
            assert e.tobytes() == a.tobytes(), f"position {pos}: {np.flatnonzero(e != a)[:10]} differ"
        else:
            assert type(a) is type(e) and (a == e or (a != a and e != e)), f"position {pos}: {a!r} != {e!r}"


@pytest.mark.parametrize("name", KERNELS)
def test_suite_kernels_bitwise_equal_on_1_2_3_threads(name, forced):
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    k = polyfuse.kernel(sk.func, target="cpu")
    serial = run(k, args, 1)
    assert backend(k, args).region_runs == {}  # one thread: the serial phase functions only
    # every argument (fdtd-2d's last one, fict, is only read) and the return value: these
    # kernels have no exp or log, so the claim is bitwise
    assert_bitwise(python(sk.func, args), serial)
    for count in (2, 3):
        assert_bitwise(serial, run(k, args, count))
    assert_regions_ran(backend(k, args), 2)  # the second call on 2 and on 3 threads


#: Kernels whose parallel phases give each thread its own buffers (kernel-local arrays, the
#: scalars of a row, register tiles' accumulators), at sizes where every such phase has at least
#: three chunks: gemm and covariance large enough for full 4 x 16 register tiles (the
#: accumulator ``_acc0`` is the private buffer), conv_bn_relu with three images, softmax with
#: rows enough for three groups of interleaved rows (passes.interleave: up to 8 rows a step).
PRIVATE = {
    "attention_rows": dict(nq=7, nk=9, d=5, dv=6),
    "softmax": dict(rows=23, cols=9),
    "conv_bn_relu": dict(nb=3, ci=2, co=3, h=6, w=7),
    # (rows for several of the register tiles' cache tiles: 128 or fewer rows each; gemm's
    # columns for a register tile of each width, 32 + 16 + 8 float64, so each width's phase has work)
    "gemm": dict(ni=260, nj=56, nk=5),
    "covariance": dict(m=260, n=6),
}
#: exp in a parallel loop is the inline polynomial (vector_math, within 1 ulp of libm): bitwise
#: across thread counts, close to Python.  The others are bitwise equal to Python too
#: (docs/performance.md: register tiles keep each output's operations and their order).
WITH_EXP = {"attention_rows", "softmax"}


@pytest.mark.parametrize("name", list(PRIVATE))
def test_private_buffers_on_forced_threads(name, forced):
    sk = suite.KERNELS[name]
    args = sk.make_args(np.random.default_rng(1), **PRIVATE[name])
    k = polyfuse.kernel(sk.func, target="cpu", blas=False)  # gemm's loops, not BLAS
    b = backend(k, args)
    private = {p.index: p for p in b.artifact.phases if p.parallel and p.private}
    assert private, "no phase with private buffers: the test would not test them"
    if name in ("gemm", "covariance"):
        assert any("_acc0" in p.private for p in private.values())
        assert any(r.get("local") == "_acc0" for r in k.explain(*args)["register tiles"])
    expected = python(sk.func, args)
    serial = run(k, args, 1)
    if name in WITH_EXP:
        assert_same_arrays(expected, serial, rtol=1e-13, atol=0)
    else:
        assert_bitwise(expected, serial)
    for count in (2, 3):
        assert_bitwise(serial, run(k, args, count))
    # each private phase ran on the team once per thread count (its second call there)
    assert {i: b.phase_runs.get(i, 0) for i in private} == {i: 2 for i in private}, b.phase_runs


def test_region_decisions_are_records():
    """(The decisions themselves are tested on hand-built loop ASTs in tests/backends/cpu/test_phases_regions.py.)"""
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    regions = [p.region for p in backend(polyfuse.kernel(sk.func, target="cpu"), args).artifact.phases
               if p.region is not None]
    assert any(r.region for r in regions)
    for r in regions:
        assert r.barriers == len(r.parallel_loops) + r.serial_sections


def test_explain_shows_the_regions():
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    regions = polyfuse.kernel(sk.func, target="cpu").explain(*args)["parallel regions"]
    assert any(r["region"] and r["barriers"] >= 1 and "barrier" in r["reason"] for r in regions)


def sweep(A, B, tsteps):
    for t in range(tsteps):
        for i in range(A.shape[0]):
            B[i, 0] = A[i, 0] * 0.5
        for k in range(1, A.shape[0]):  # sequential; its inner loop would need a barrier per k
            for j in range(A.shape[1]):
                A[k, j] = A[k - 1, j] * 0.5 + B[k, 0]


def test_sequential_loop_inside_a_region_bitwise_equal(forced):
    args = (np.random.default_rng(2).random((40, 30)), np.zeros((40, 30)), 4)
    k = polyfuse.kernel(sweep, target="cpu")
    serial = run(k, args, 1)
    assert_bitwise(python(sweep, args), serial)
    assert_bitwise(serial, run(k, args, 2))
    assert list(backend(k, args).region_runs.values()) == [1]  # the second call ran on the team


def test_small_work_per_barrier_stays_serial(monkeypatch):
    """lu does ~n operations per barrier: the measured run keeps it on one thread.  The serial run
    is timed by its thread's CPU clock, not the wall clock: on a loaded machine one preemption in
    the middle of it (milliseconds) would pass for work (20 us per barrier)."""
    from polyfuse.backends.cpu import parallel

    monkeypatch.setattr(parallel, "time", types.SimpleNamespace(perf_counter=time.thread_time))
    saved = threads._num_threads
    try:
        threads.set_num_threads(2)
        sk = suite.KERNELS["lu"]
        args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
        k = polyfuse.kernel(sk.func, target="cpu")
        for _ in range(3):
            k(*copy_args(args))
        b = backend(k, args)
        assert [t.worth_threads for t in b.region_times.values()] == [False] and b.region_runs == {}
    finally:
        threads._num_threads = saved


def smooth(A, B, tsteps):
    for t in range(tsteps):
        for i in range(1, A.shape[0] - 1):
            s = A[i - 1] + A[i + 1]  # private to the loop, written before it is read
            B[i] = 0.5 * s
        for i in range(1, A.shape[0] - 1):
            A[i] = B[i] + 1.0


def carried_in_memory(A, B, tsteps):
    s = 0.0  # used by two phases: lives in memory shared by the threads
    for t in range(tsteps):
        B[0] = s
        for i in range(1, A.shape[0] - 1):
            B[i] = A[i] * 0.5
        s = B[3]
        for i in range(1, A.shape[0] - 1):
            A[i] = B[i] + s


def carried_in_register(A, B, tsteps):
    for t in range(tsteps):
        s = B[3] * 0.5  # thread 0 would write its own register copy: refused
        for i in range(1, A.shape[0] - 1):
            A[i] = B[i] + s
        for i in range(1, A.shape[0] - 1):
            B[i] = A[i] * 0.5


@pytest.mark.parametrize("fn", [smooth, carried_in_memory, carried_in_register])
def test_local_scalars_in_regions(fn, forced):
    args = (np.random.default_rng(1).random(300), np.zeros(300), 7)
    k = polyfuse.kernel(fn, target="cpu")
    serial = run(k, args, 1)
    assert_bitwise(python(fn, args), serial)
    for count in (2, 4):
        assert_bitwise(serial, run(k, args, count))
    b = backend(k, args)
    assert_regions_ran(b, 2)
    assert bool(b.region_runs) == (fn is not carried_in_register)  # refused: see its comment


def test_failing_member_aborts_the_region_instead_of_deadlocking(forced):
    """A member that fails before entering the region leaves the others at a barrier: the runtime
    aborts them and raises."""
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    k = polyfuse.kernel(sk.func, target="cpu")
    run(k, args, 2)
    (compiled,) = backend(k, args).phases
    region = compiled.region

    def failing(*call_args):
        if call_args[-3] == 1:  # member 1 never arrives
            raise RuntimeError("member 1 failed")
        return region(*call_args)

    compiled._region = failing  # (the region function, generated above)
    outcome: list = []

    def call():
        try:
            k(*copy_args(args))
        except RuntimeError as exc:
            outcome.append(str(exc))

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    caller.join(timeout=60)
    assert not caller.is_alive(), "the region deadlocked"
    assert outcome == ["member 1 failed"]
    compiled._region = region
    assert_bitwise(run(k, args, 1), run(k, args, 2))  # and the kernel still works


def test_concurrent_calls_from_several_python_threads(forced, monkeypatch):
    """Teams started at once from several Python threads share the pool without deadlock.
    (jacobi-1d's tiles: its rows fit L1 at the test sizes, where the whole-row version runs one
    serial row loop, nothing for a team.)"""
    monkeypatch.setenv("POLYFUSE_TIME_TILE_WHOLE_ROW", "0")
    sk = suite.KERNELS["jacobi-1d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    k = polyfuse.kernel(sk.func, target="cpu")
    expected = run(k, args, 1)[:-1]  # the arguments (it returns nothing)
    threads.set_num_threads(3)
    k(*copy_args(args))  # measured
    errors: list = []

    def work():
        try:
            for _ in range(5):
                out = copy_args(args)
                k(*out)
                assert_bitwise(expected, out)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(repr(exc))

    callers = [threading.Thread(target=work, daemon=True) for _ in range(4)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(timeout=120)
    assert not any(c.is_alive() for c in callers), "deadlock"
    assert errors == []
    assert backend(k, args).region_runs[0] >= 20


COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                    HealthCheck.data_too_large,
                                                    HealthCheck.function_scoped_fixture])


@settings(max_examples=14, **COMMON)
@given(prog=programs(), n=st.integers(2, 9), seed=st.integers(0, 2**16), count=st.sampled_from([2, 3]))
def test_random_programs_in_a_time_loop_bitwise_equal_on_several_threads(prog, n, seed, count, forced):
    import warnings

    source = in_a_time_loop(prog.source)
    note(source)
    fn = define(source, "kern")
    args = prog.make_args(np.random.default_rng(seed), n)
    k = polyfuse.kernel(fn, target="cpu")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = python(fn, args)
        except (ArithmeticError, ValueError):
            reject()  # the function itself fails on these values
        serial = run(k, args, 1)
        rtol, atol = prog.tolerance
        assert_same_arrays(expected, serial, rtol=rtol, atol=atol)
        assert expected[-1] is None and serial[-1] is None
        assert_bitwise(serial, run(k, args, count))
    assert_regions_ran(backend(k, args), 1)  # the second call on ``count`` threads


def test_each_twin_is_generated_when_the_runtime_first_runs_it(forced, monkeypatch):
    """A region phase has two functions (serial, and the team's): one thread generates only the
    serial ones, the first call on a team the region ones; both compute the function's results.
    (Time-tiled regions share one body unless POLYFUSE_TILED_TWINS=1: test_shared_twins.py.)"""
    monkeypatch.setenv("POLYFUSE_TILED_TWINS", "1")
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    k = polyfuse.kernel(sk.func, target="cpu", cache=False)
    kernel = backend(k, args)
    assert kernel.generated == [] and any(name.endswith(".region") for name in kernel.pending)
    assert_bitwise(python(sk.func, args), run(k, args, 1))
    assert kernel.generated and not any(name.endswith(".region") for name in kernel.generated)
    assert_bitwise(python(sk.func, args), run(k, args, 2))
    assert any(name.endswith(".region") for name in kernel.generated)
    assert len(set(kernel.generated)) == len(kernel.generated)  # each once
    assert_regions_ran(kernel, 1)


def test_a_function_asked_for_by_several_threads_at_once_is_generated_once():
    sk = suite.KERNELS["jacobi-2d"]
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    kernel = backend(polyfuse.kernel(sk.func, target="cpu", cache=False), args)
    start = threading.Barrier(4)
    got: list = []

    def ask(compiled) -> None:
        start.wait()
        got.append((compiled.function, compiled.region))

    (compiled,) = kernel.phases
    askers = [threading.Thread(target=ask, args=(compiled,)) for _ in range(4)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    addresses = {tuple(ctypes.cast(f, ctypes.c_void_p).value for f in pair) for pair in got}
    assert len(addresses) == 1 and len(got) == 4
    assert sorted(kernel.generated) == sorted(set(kernel.generated))
