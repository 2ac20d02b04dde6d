"""Native entries (backends/cpu/entry.py): a plan called often runs through one machine-code
function that checks its arguments itself.  Every call it is not sure of (another dtype, shape,
stride, rank, a read-only or overlapping argument, another int) runs nothing and takes the
usual path: the result equals the undecorated function's, and a wrong call raises exactly what
it raises without a native entry."""

import copy
import functools
import os
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.runtime import native
from polyfuse.runtime.native import MISS, NATIVE_AFTER

pytestmark = pytest.mark.skipif(not native.available(), reason="objects laid out otherwise here")


@pytest.fixture(autouse=True)
def small_phases_measured_serial(monkeypatch):
    """A parallel phase gets an entry once measured too small for threads; on a loaded machine a
    serial run of a few elements can take longer than the threshold, so the tests fix it high."""
    from polyfuse.backends.cpu import parallel

    monkeypatch.setattr(parallel, "MIN_PARALLEL_SECONDS", 1e9)


def add(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


def scaled(X, scale, n, out):
    for i in range(n):
        out[i] = X[i] * scale + n


def rates(y, t, a1, a2, b1, b2, d1, d2):
    """numpy-benchmarks' hasting: three scalar expressions into a fresh array."""
    yprime = np.empty((3,))
    yprime[0] = y[0] * (1. - y[0]) - a1 * y[0] * y[1] / (1. + b1 * y[0])
    yprime[1] = a1 * y[0] * y[1] / (1. + b1 * y[0]) - a2 * y[1] * y[2] / (1. + b2 * y[1]) - d1 * y[1]
    yprime[2] = a2 * y[1] * y[2] / (1. + b2 * y[1]) - d2 * y[2]
    return yprime


def permuted(A):
    return np.transpose(A, (2, 1, 0))


def gather(x, idx, y):
    for i in range(y.shape[0]):
        y[i] = x[idx[i]]


def row_sums(X):
    out = np.zeros((X.shape[0],))
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[i] += X[i, j]
    return out, X.T


def column_sums(X, out):
    """A zero-initialised kernel-local array that contraction cannot remove."""
    T = np.zeros((X.shape[1],))
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            T[j] += X[i, j]
    for j in range(X.shape[1]):
        out[j] = T[j] * 2.0


def total(x, start):
    s = start
    for i in range(x.shape[0]):
        s += x[i]
    return s


def scale_into(X, out, factor=2.0):
    for i in range(X.shape[0]):
        out[i] = X[i] * factor


def ramp(a, b, xn):
    return np.linspace(a, b, int(xn)) * 2.0


def warmed(fn, *args):
    """A kernel called enough times at ``args`` to have its native entry."""
    kernel = polyfuse.kernel(fn)
    for _ in range(NATIVE_AFTER + 2):  # a plan is made on the second call
        kernel(*copy.deepcopy(args))
    assert kernel._fast is not None, "no native entry"
    return kernel


def same_as_undecorated(kernel, fn, *args):
    got_args, want_args = copy.deepcopy(args), copy.deepcopy(args)
    got, want = kernel(*got_args), fn(*want_args)
    for g, w in zip((got, *got_args), (want, *want_args)):
        if isinstance(w, tuple):
            for gi, wi in zip(g, w):
                np.testing.assert_allclose(gi, wi, rtol=1e-13)
        elif isinstance(w, np.ndarray) or w is not None:
            assert type(g) is type(w)
            np.testing.assert_allclose(g, w, rtol=1e-13)
    return got


def same_error(kernel, fn, *args):
    """The call raises what a kernel without a plan or native entry raises."""
    with pytest.raises(Exception) as cold:
        polyfuse.kernel(fn)(*args)
    with pytest.raises(type(cold.value)) as warm:
        kernel(*args)
    assert str(warm.value) == str(cold.value)


def test_a_plan_called_often_gets_a_native_entry_that_computes_the_same():
    a, b = np.arange(5.0), np.ones(5)
    kernel = warmed(add, a, b, np.empty(5))
    (plan,) = kernel._plans.values()
    assert kernel._fast is plan.fast
    calls = plan.calls
    same_as_undecorated(kernel, add, a * 3, b - 7, np.empty(5))
    assert plan.calls == calls  # the native entry ran: the plan's Python path did not
    out = np.empty(5)
    assert kernel._fast(a, b, out) is None
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.parametrize("other", [
    "float32", "int64", "shape", "strided", "reversed", "2-d", "read-only out", "zero-stride out",
    "overlap", "subclass", "list", "too few", "too many",
])
def test_every_other_call_misses_and_takes_the_usual_path(other):
    a, b = np.arange(6.0), np.linspace(0, 1, 6)
    kernel = warmed(add, a, b, np.empty(6))
    buf = np.zeros(12)
    wide = np.arange(24.0).reshape(6, 4)
    readonly = np.empty(6)
    readonly.flags.writeable = False
    calls = {
        "float32": (a.astype(np.float32), b.astype(np.float32), np.empty(6, np.float32)),
        "int64": (np.arange(6), np.arange(6), np.empty(6, np.int64)),
        "shape": (np.arange(9.0), np.ones(9), np.empty(9)),
        "strided": (wide[:, 1], wide[:, 2], np.empty(6)),
        "reversed": (a[::-1], b, np.empty(6)),
        "2-d": (wide, wide, np.empty((6, 4))),
        "read-only out": (a, b, readonly),
        "zero-stride out": (a, b, np.lib.stride_tricks.as_strided(np.zeros(1), (6,), (0,))),
        "overlap": (buf[:6], b, buf[3:9]),
        "subclass": (np.ma.masked_array(a), b, np.empty(6)),
        "list": (list(a), b, np.empty(6)),
        "too few": (a, b),
        "too many": (a, b, np.empty(6), 1),
    }
    args = calls[other]
    assert kernel._fast(*args) is MISS
    if other in ("strided", "reversed", "shape", "float32", "int64"):
        same_as_undecorated(kernel, add, *args)
    elif other == "subclass":
        out, cold = np.empty(6), np.empty(6)
        kernel(args[0], b, out)
        polyfuse.kernel(add)(args[0], b, cold)
        np.testing.assert_array_equal(out, cold)
    elif other == "2-d":
        out = np.empty((6, 4))
        kernel(wide, wide, out)  # the kernel's loop reads rows of a 2-d array: NumPy would add rows too
        np.testing.assert_array_equal(out, wide + wide)
    else:
        same_error(kernel, add, *args)
    same_as_undecorated(kernel, add, a, b, np.empty(6))  # and the plan's calls still run natively


def test_ints_are_checked_by_value_and_floats_change_freely():
    X = np.arange(8.0)
    kernel = warmed(scaled, X, 0.5, 8, np.empty(8))
    for scale, n in ((2.5, 8), (np.float64(-1.0), 8), (0.5, 4), (0.5, 9), (True, 8), (0.5, np.int64(8))):
        out = np.zeros(8)
        if n > 8:
            with pytest.raises(polyfuse.ArgumentError, match="out-of-bounds"):
                kernel(X, scale, n, out)
            continue
        want = np.zeros(8)
        scaled(X, scale, n, want)
        kernel(X, scale, n, out)
        np.testing.assert_array_equal(out, want)


def times(a, s, n, out):
    for i in range(n):
        out[i] = a[i] * s + n


@pytest.mark.parametrize("int_type", [np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_numpy_scalars_are_checked_by_type_and_integers_by_value(int_type):
    a = np.linspace(-1, 1, 8, dtype=np.float32)
    kernel = warmed(times, a, np.float32(0.5), int_type(6), np.empty(8, np.float32))
    (plan,) = kernel._plans.values()
    assert kernel._fast(a, np.float32(-3.25), int_type(6), np.empty(8, np.float32)) is None  # a hit
    for s, n in ((np.float32(-3.25), int_type(6)), (np.float32(2.0), int_type(5)), (np.float64(2.0), int_type(6)),
                 (0.5, int_type(6)), (np.float32(1.5), 6), (np.float32(1.5), np.int16(6)), (np.float32(1.5), True)):
        out, want = np.zeros(8, np.float32), np.zeros(8, np.float32)
        times(a, s, n, want)
        kernel(a, s, n, out)
        np.testing.assert_array_equal(out, want)


def test_fresh_results_each_call_and_views_of_the_arguments():
    rng = np.random.default_rng(0)
    y, constants = rng.random(3), tuple(np.float64(v) for v in rng.random(7))
    kernel = warmed(rates, y, *constants)
    first = same_as_undecorated(kernel, rates, y, *constants)
    second = same_as_undecorated(kernel, rates, y * 2, *constants[::-1])
    assert not np.shares_memory(first, second)
    same_as_undecorated(kernel, rates, y, *map(float, constants))  # Python floats: another plan

    A = np.arange(24.0).reshape(2, 3, 4)
    kernel = warmed(permuted, A)
    got = kernel(A)
    assert got.base is permuted(A).base and got.strides == permuted(A).strides
    B = np.arange(60.0).reshape(3, 4, 5)[:, ::2]
    np.testing.assert_array_equal(kernel(B), permuted(B))

    X = rng.random((4, 5))
    kernel = warmed(row_sums, X)
    sums, view = kernel(X)
    np.testing.assert_allclose(sums, X.sum(axis=1), rtol=1e-14)
    assert view.base is X and view.shape == (5, 4)


def test_disjoint_parts_of_one_buffer_take_the_native_entry():
    buf = np.zeros(12)
    kernel = warmed(add, buf[:6], np.ones(6), buf[6:])
    buf[:6] = np.arange(6.0)
    assert kernel._fast(buf[:6], np.ones(6), buf[6:]) is None
    np.testing.assert_array_equal(buf[6:], np.arange(6.0) + 1)


def test_returned_scalars_keep_their_python_type():
    x = np.arange(5.0)
    for start in (0.5, 2):
        kernel = warmed(total, x, start)
        got = same_as_undecorated(kernel, total, x * 3, start)
        assert type(got) is type(total(x, start))


def test_kernel_local_arrays_are_zeroed_on_every_native_call():
    X = np.arange(12.0).reshape(3, 4)
    kernel = warmed(column_sums, X, np.empty(4))
    (plan,) = kernel._plans.values()
    assert plan.locals is not None and kernel._fast is not None
    for scale in (1.0, -2.0, 0.5):
        same_as_undecorated(kernel, column_sums, X * scale, np.empty(4))
    busy = kernel._fast.__self__[-1].keep[1]  # the spec's flag: the entry's arrays in use by a call
    busy.value = 1
    assert kernel._fast(X, np.empty(4)) is MISS  # another thread's call would take the plan's pool
    same_as_undecorated(kernel, column_sums, X * 3, np.empty(4))
    busy.value = 0


def test_alternating_sizes_and_omitted_defaults_run_natively():
    small, large = np.arange(3.0), np.arange(7.0)
    kernel = warmed(scale_into, small, np.empty(3))
    warmed_too = warmed(scale_into, large, np.empty(7))
    for _ in range(NATIVE_AFTER + 2):
        kernel(large, np.empty(7))  # a second plan, and its entry
    plans = list(kernel._plans.values())
    assert len(plans) == 2 and all(plan.fast is not None for plan in plans)
    calls = [plan.calls for plan in plans]
    for X in (small, large, small, large):
        same_as_undecorated(kernel, scale_into, X, np.empty(X.size))
        same_as_undecorated(kernel, scale_into, X, np.empty(X.size), 0.5)
    assert [plan.calls for plan in plans] == calls  # every call ran on an entry
    assert warmed_too._fast is not None


def test_a_size_computed_from_a_float_is_computed_on_every_call():
    """``call_key`` holds a float's type, not its value: a kernel whose sizes read a float takes
    no plan, so no entry either, and every call computes its size."""
    kernel = polyfuse.kernel(ramp)
    for xn in (4.0,) * (NATIVE_AFTER + 2) + (7.0, 4.5, 2.0):
        got = kernel(0.0, 1.0, xn)
        np.testing.assert_array_equal(got, ramp(0.0, 1.0, xn))
    assert kernel._plans == {} and kernel._fast is None


def test_plans_of_one_structure_share_their_machine_code():
    a = np.arange(6.0)
    kernel = warmed(add, a, a, np.empty(6))
    first = kernel._fast
    other = warmed(add, a[:4].copy(), a[:4].copy(), np.empty(4))._fast  # another kernel, other sizes
    assert first is not other and first.__self__[1] is other.__self__[1]  # one engine
    same_as_undecorated(kernel, add, a, a, np.empty(6))


def test_an_index_error_in_the_machine_code_is_raised():
    x, y = np.arange(10.0), np.zeros(4)
    kernel = warmed(gather, x, np.array([1, 2, 3, 0]), y)
    for bad in (10, -11):
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for axis 0 of "):
            kernel(x, np.array([1, bad, 3, 0]), y)
    same_as_undecorated(kernel, gather, x, np.array([9, -1, 0, 5]), np.zeros(4))


def test_concurrent_calls_raise_their_own_index_errors_only():
    """The flag is the module's: a call whose indices were in range raised another thread's
    IndexError (or its native entry an AssertionError), and the other returned (cp45)."""
    x = np.arange(400000.0)
    good = np.arange(0, 400000, 2)
    bad = good.copy()
    bad[0] = 400000  # (at once: another call may see the flag for the whole of this call's loop)
    kernel = warmed(gather, x, good, np.empty(200000))
    wrong = []

    def work(indices, expected) -> None:
        for _ in range(40):
            y = np.empty(200000)
            try:
                kernel(x, indices, y)
                raised = None
            except Exception as exc:  # noqa: BLE001 - which one is the test
                raised = type(exc)
            if raised is not expected or (expected is None and not np.array_equal(y, x[indices])):
                wrong.append((expected, raised))

    workers = [threading.Thread(target=work, args=args) for args in ((bad, IndexError), (good, None)) * 2]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert wrong == []


@pytest.fixture
def two_threads():
    from polyfuse.runtime import threads

    saved = threads._num_threads
    threads.set_num_threads(2)
    yield
    threads._num_threads = saved


def test_a_phase_measured_anew_leaves_the_native_entry(two_threads):
    from polyfuse.backends.cpu import parallel

    a, b = np.arange(64.0), np.ones(64)
    kernel = warmed(add, a, b, np.empty(64))
    backend = kernel.compile(a, b, np.empty(64)).backend
    assert backend.serial_sizes  # the small parallel phase was measured serial
    parallel._remember(backend, {k: None for k in range(parallel.MAX_REGION_SIZES)}, ("other",), (0, 1),
                       parallel.RegionTimes(True, [1.0]))
    assert not backend.serial_sizes
    assert kernel._fast(a, b, np.empty(64)) is MISS  # the entry's measurement is gone
    same_as_undecorated(kernel, add, a, b, np.empty(64))  # measured again on the usual path


def test_on_one_thread_parallel_phases_run_natively_until_the_thread_count_changes():
    from polyfuse.runtime import threads

    saved = threads._num_threads
    try:
        threads.set_num_threads(1)
        a, b = np.arange(64.0), np.ones(64)
        kernel = warmed(add, a, b, np.empty(64))
        assert not kernel.compile(a, b, np.empty(64)).backend.serial_sizes  # never measured
        assert kernel._fast(a, b, np.empty(64)) is None
        threads.set_num_threads(2)
        assert kernel._fast(a, b, np.empty(64)) is MISS
        same_as_undecorated(kernel, add, a, b, np.empty(64))
    finally:
        threads._num_threads = saved


def test_an_entry_made_before_the_thread_count_changed_is_made_again():
    """An entry made on one thread checks the thread count's epoch and misses every call after a
    change (the bench's ``threads.limited_to(1)`` around its one-thread column, and the way out
    of it); the first call after the change makes it again.  Before, the missing entry stayed the
    plan's: every later call ran the Python path after two misses."""
    from polyfuse.runtime import threads

    saved = threads._num_threads
    try:
        threads.set_num_threads(1)
        a, b = np.arange(64.0), np.ones(64)
        kernel = warmed(add, a, b, np.empty(64))

        def made_again(made):
            assert made(a, b, np.empty(64)) is MISS
            same_as_undecorated(kernel, add, a, b, np.empty(64))
            assert kernel._fast is not made and kernel._fast(a, b, np.empty(64)) is None  # (it ran)
            return kernel._fast

        with threads.limited_to(1):
            made = made_again(kernel._fast)
        made_again(made)  # (out of the block: the count changed again)
    finally:
        threads._num_threads = saved
        threads.THREADS_EPOCH.value += 1


def test_the_entry_is_tried_again_once_the_thread_count_changes(two_threads, monkeypatch):
    """A phase measured worth the team gets no entry on 2 threads; on one thread the next call
    makes it (the first call after the change, not the next power of two of the plan's calls)."""
    from polyfuse.backends.cpu import parallel

    from polyfuse.runtime import threads

    monkeypatch.setattr(parallel, "MIN_PARALLEL_SECONDS", 0.0)
    monkeypatch.setattr(parallel.RegionTimes, "use_team", lambda times: times.worth_threads)
    a, b = np.arange(64.0), np.ones(64)
    kernel = polyfuse.kernel(add)
    for _ in range(NATIVE_AFTER + 2):  # the plan's calls 1 .. NATIVE_AFTER + 1: no entry on the team
        kernel(a, b, np.empty(64))
    assert kernel._fast is None and kernel.compile(a, b, np.empty(64)).backend.phase_runs
    with threads.limited_to(1):
        kernel(a, b, np.empty(64))  # the plan's call NATIVE_AFTER + 2: not a power of two
        assert kernel._fast is not None
        same_as_undecorated(kernel, add, a, b, np.empty(64))


def test_concurrent_native_calls(two_threads):
    rng = np.random.default_rng(1)
    y, constants = rng.random(3), tuple(rng.random(7))
    kernel = warmed(rates, y, *constants)
    a, b = np.arange(16.0), np.ones(16)
    adder = warmed(add, a, b, np.empty(16))
    X = np.arange(12.0).reshape(3, 4)
    sums = warmed(column_sums, X, np.empty(4))  # local arrays: one thread at a time uses the entry's
    failures = []

    def work(seed: int) -> None:
        local = np.random.default_rng(seed)
        for _ in range(200):
            z = local.random(3)
            out, column = np.empty(16), np.empty(4)
            adder(a * seed, b, out)
            sums(X * seed, column)
            if not (np.allclose(kernel(z, *constants), rates(z, *constants), rtol=1e-14)
                    and np.array_equal(out, a * seed + b) and np.array_equal(column, 2 * seed * X.sum(axis=0))):
                failures.append(seed)

    workers = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []


@functools.cache
def warm_add():
    """One kernel with native entries at three layouts (contiguous, reversed, strided)."""
    buf = np.arange(30.0)
    kernel = warmed(add, buf[:6], buf[6:12], np.empty(6))
    for args in ((buf[5::-1], buf[6:12], np.empty(6)), (buf[:12:2], buf[1:13:2], np.empty(6))):
        for _ in range(NATIVE_AFTER + 2):
            kernel(*args)
    assert all(plan.fast is not None for plan in kernel._plans.values())
    return kernel


def cold_call(fn, *args):
    """``fn`` as a kernel without native entries: the call path before them."""
    saved = os.environ.get("POLYFUSE_NATIVE_ENTRY")
    os.environ["POLYFUSE_NATIVE_ENTRY"] = "0"
    try:
        return polyfuse.kernel(fn)(*args)
    finally:
        if saved is None:
            del os.environ["POLYFUSE_NATIVE_ENTRY"]
        else:
            os.environ["POLYFUSE_NATIVE_ENTRY"] = saved


@st.composite
def layouts(draw):
    """Where a view of a 30-element buffer starts, its step and length; None: a fresh array."""
    if draw(st.booleans()):
        return None
    step = draw(st.sampled_from([-2, -1, 1, 2]))
    length = draw(st.integers(4, 7))
    room = 30 - abs(step) * (length - 1)
    start = draw(st.integers(0, room - 1))
    return (start + abs(step) * (length - 1), step, length) if step < 0 else (start, step, length)


def view(buf, layout, length=6):
    if layout is None:
        return np.arange(float(length)) * 0.5
    start, step, n = layout
    stop = start + step * n
    return buf[start:stop if stop >= 0 else None:step]


@settings(max_examples=30, deadline=None)
@given(st.tuples(layouts(), layouts(), layouts()))
def test_random_layouts_give_what_the_call_path_before_gave(chosen):
    """Views of one buffer (aliasing, reversed, strided, other lengths) on a kernel with native
    entries: the result or the error of a kernel without them, and the undecorated result."""
    kernel = warm_add()
    bufs = [np.arange(30.0) for _ in range(3)]
    calls = [tuple(view(b, layout) for layout in chosen) for b in bufs]
    try:
        cold_call(add, *calls[0])
    except Exception as cold:  # noqa: BLE001 - whatever it raised, the warm kernel raises
        with pytest.raises(type(cold)) as warm:
            kernel(*calls[1])
        assert str(warm.value) == str(cold)
        return
    kernel(*calls[1])
    add(*calls[2])
    for got, want in zip(calls[1] + (bufs[1],), calls[0] + (bufs[0],)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(calls[1][2], calls[2][2])
