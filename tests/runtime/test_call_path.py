"""The short call path (``polyfuse.runtime.CallPlan``): calls at sizes already checked reuse that
work, and every check still runs on every call where its inputs differ."""

import threading
import types

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import polyfuse
from polyfuse.errors import ArgumentError
from polyfuse.runtime.variant import CallPlan, address, byte_span


def add(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


def scaled_sum(X, scale, n, out):
    for i in range(n):
        out[i] = X[i] * scale + n


def column_sums(X, out):
    T = np.zeros((X.shape[1],))
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            T[j] += X[i, j]
    for j in range(X.shape[1]):
        out[j] = T[j] * 2.0


def shifted(X, out):
    S = np.empty((X.shape[0],))
    for i in range(X.shape[0]):
        S[i] = X[i] * 2.0
    for i in range(X.shape[0]):
        out[i] = S[i] + 1.0


@pytest.fixture
def k_add():
    return polyfuse.kernel(add)


def plans(kernel) -> list[CallPlan]:
    return list(kernel._plans.values())


def test_calls_at_sizes_seen_twice_take_the_plan(k_add, monkeypatch):
    a, b, out = np.arange(8.0), np.ones(8), np.empty(8)
    k_add(a, b, out)
    assert plans(k_add) == []  # a plan only for sizes seen again
    k_add(a, b, out)
    assert len(plans(k_add)) == 1
    variant = k_add.compile(a, b, out)
    monkeypatch.setattr(variant.bounds, "check", lambda values: pytest.fail("bounds checked again"))
    k_add(a + 1, b, out)
    np.testing.assert_array_equal(out, a + 2)


def test_new_sizes_are_checked_again(k_add):
    k_add(np.zeros(8), np.zeros(8), np.empty(8))
    with pytest.raises(ArgumentError, match="out-of-bounds access"):
        k_add(np.zeros(4), np.zeros(8), np.empty(8))
    k_add(np.zeros(8), np.zeros(8), np.empty(8))  # the plan still works
    with pytest.raises(ArgumentError, match="out-of-bounds access"):
        k_add(np.zeros(4), np.zeros(8), np.empty(8))


def test_overlap_is_refused_on_every_call_with_the_same_message(k_add):
    buf = np.zeros(16)
    for _ in range(2):
        k_add(buf[:8], np.ones(8), buf[8:])  # separate halves: fine, and a plan for these sizes
    assert len(plans(k_add)) == 1
    for _ in range(2):
        with pytest.raises(ArgumentError) as info:
            k_add(buf[:8], np.ones(8), buf[4:12])
        assert str(info.value) == (
            "arguments 'a' and 'out' overlap in memory and 'out' is written by the kernel; "
            "pass separate arrays (e.g. a .copy())"
        )


def test_overlap_is_exact_for_interleaved_views():
    k = polyfuse.kernel(add)
    buf = np.zeros(16)
    evens, odds = buf[::2], buf[1::2]  # byte ranges meet, elements do not
    for _ in range(3):
        k(evens, np.ones(8), odds)
    np.testing.assert_array_equal(odds, np.ones(8))
    with pytest.raises(ArgumentError, match="overlap in memory"):
        k(evens, np.ones(8), buf[2::2])


def test_a_written_view_whose_elements_meet_is_refused():
    """(cp45) strides (8, 8) over float64: X[i, j] and X[i + 1, j - 1] are one element. NumPy's
    X += Y buffers its operands there; the kernel wrote through them in its own order."""
    def doubled(X, Y):
        for i in range(X.shape[0]):
            for j in range(X.shape[1]):
                Y[i, j] = X[i, j] * 2.0

    k = polyfuse.kernel(doubled)
    diagonal = as_strided(np.arange(7.0), shape=(4, 4), strides=(8, 8))
    with pytest.raises(ArgumentError, match=r"strides \(8, 8\) for shape \(4, 4\).* may share memory"):
        k(np.ones((4, 4)), diagonal)
    out = np.empty((4, 4))
    k(diagonal, out)  # read only: fine
    np.testing.assert_array_equal(out, 2 * diagonal)


def test_an_overlap_numpy_cannot_decide_in_bounded_work_is_refused():
    """(cp45) np.shares_memory's exact search is NP-complete: two as_strided views of one buffer
    (NumPy's documented example) kept a call in it for over a minute; bounded, it refuses."""
    def first(a, b):
        b[0, 0, 0] = a[1, 1, 1] + 1

    x = np.zeros(192163377 // 27 + 10**6, dtype=np.int8)
    a = as_strided(x, strides=(36674 // 3, 61119 // 3, 85569 // 3), shape=(349, 349, 349))
    b = as_strided(x[333:], strides=(7, 7 * 349 + 1, (7 * 349 + 1) * 349 + 5), shape=(349, 349, 3))
    with pytest.raises(ArgumentError, match="could not decide"):
        polyfuse.kernel(first)(a, b)


def test_reads_of_the_same_array_are_not_refused(k_add):
    a, out = np.arange(8.0), np.empty(8)
    for _ in range(2):
        k_add(a, a, out)
    np.testing.assert_array_equal(out, 2 * a)


def test_float_values_change_and_ints_are_part_of_the_plan():
    k = polyfuse.kernel(scaled_sum)
    X, out = np.arange(8.0), np.zeros(8)
    for _ in range(2):
        k(X, 2.0, 8, out)
        np.testing.assert_array_equal(out, X * 2.0 + 8)
        k(X, 3.0, 8, out)
        np.testing.assert_array_equal(out, X * 3.0 + 8)
        k(X, 3.0, 4, out)
        np.testing.assert_array_equal(out[:4], X[:4] * 3.0 + 4)
        with pytest.raises(ArgumentError, match="out-of-bounds access"):
            k(X, 3.0, 9, out)
        with pytest.raises(ArgumentError, match="does not fit in int64"):
            k(X, 3.0, 2**63, out)
        k(X, 1, 8, out)  # an int where a float was: another variant, another plan
        np.testing.assert_array_equal(out, X + 8)
    assert len(plans(k)) == 3


def test_zero_initialised_locals_are_zeroed_on_every_call():
    k = polyfuse.kernel(column_sums)
    X, out = np.arange(12.0).reshape(3, 4), np.empty(4)
    for call in range(3):
        k(X + call, out)  # other inputs on each call
        np.testing.assert_array_equal(out, 2 * (X + call).sum(axis=0))


def test_locals_of_concurrent_calls_are_separate():
    k = polyfuse.kernel(shifted)
    X = np.arange(64.0)
    k(X, np.empty(64))
    errors: list = []

    def work(seed: int) -> None:
        out = np.empty(64)
        for call in range(300):
            data = X * seed + call  # other inputs on every call: a stale local set would show
            k(data, out)
            if not np.array_equal(out, data * 2.0 + 1.0):
                errors.append(seed)
                return

    workers = [threading.Thread(target=work, args=(s,)) for s in range(1, 5)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []


def test_strides_that_are_not_whole_elements_are_refused_on_every_call(k_add):
    raw = np.zeros(8 * 12, dtype=np.uint8)
    odd = as_strided(raw.view(np.float64)[:1], shape=(8,), strides=(12,))  # 12-byte steps
    wide = np.zeros((8, 2))
    for _ in range(2):
        k_add(wide[:, 0], wide[:, 1], np.empty(8))
        with pytest.raises(ArgumentError, match="stride that is not a whole number of elements"):
            k_add(odd, wide[:, 1], np.empty(8))


def test_keyword_and_numpy_scalar_calls_take_the_full_path():
    k = polyfuse.kernel(scaled_sum)
    X, out = np.arange(8.0), np.zeros(8)
    k(X, np.float64(2.0), np.int64(8), out)
    k(X=X, scale=2.0, n=8, out=out)
    assert plans(k) == []
    np.testing.assert_array_equal(out, X * 2.0 + 8)


def scale_by(a, s):
    return a * s


def three_rates(y, a, b, c):
    """Three scalar statements: one machine-code function (backends/cpu/phases.join_serial)."""
    r = np.empty((3,))
    r[0] = y[0] * (1.0 - y[0]) - a * y[0] * y[1]
    r[1] = a * y[0] * y[1] / (1.0 + b * y[0]) - c * y[1]
    r[2] = b * y[1] * y[2] - c * y[2]
    return r


@pytest.mark.parametrize("scalar", [np.float64(1.5), np.float32(1.5), np.int64(3), np.int8(3), np.uint16(3)])
def test_numpy_scalars_take_the_plan_with_their_dtype(scalar):
    kernel = polyfuse.kernel(scale_by)
    a = np.arange(6, dtype=np.int8)
    for _ in range(3):
        got, expected = kernel(a, scalar), scale_by(a, scalar)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    assert len(plans(kernel)) == 1


def test_a_numpy_int_and_a_python_int_of_one_value_have_separate_plans():
    """np.int64(3) == 3 and they hash alike, but NEP 50 makes int8 * np.int64 an int64 and
    int8 * 3 an int8: the plan key holds the scalar's type."""
    kernel = polyfuse.kernel(scale_by)
    a = np.arange(6, dtype=np.int8) * 40  # 40 * 3 wraps in int8
    for scalar in (3, 3, np.int64(3), np.int64(3), 3, np.int64(3)):
        got, expected = kernel(a, scalar), scale_by(a, scalar)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    assert len(plans(kernel)) == 2


def test_scalar_statements_run_as_one_phase_on_the_plan():
    kernel = polyfuse.kernel(three_rates)
    y, rates = np.array([0.3, 0.5, 0.7]), tuple(np.random.default_rng(0).random(3))
    for _ in range(3):
        np.testing.assert_allclose(kernel(y, *rates), three_rates(y, *rates), rtol=1e-14)
    assert len(kernel.compile(y, *rates).backend.phases) == 1
    assert len(plans(kernel)) == 1


def transposed(A):
    B = np.transpose(A, (2, 1, 0))
    return B


def test_a_kernel_returning_only_views_runs_no_machine_code():
    kernel = polyfuse.kernel(transposed)
    for _ in range(3):
        A = np.arange(24.0).reshape(2, 3, 4)
        got = kernel(A)
        assert got.strides == transposed(A).strides and np.shares_memory(got, A)
        np.testing.assert_array_equal(got, transposed(A))
    assert kernel.compile(A).backend.phases == ()
    (plan,) = plans(kernel)
    assert plan.run == plan._run_views


@pytest.mark.parametrize("array", [
    np.arange(6.0), np.arange(6.0)[1:], np.zeros((3, 4), dtype=np.int32)[:, 1::2], np.empty(0),
    np.arange(10.0)[::-2],
])
def test_address_is_the_data_pointer(array):
    assert address(array) == array.ctypes.data


@pytest.mark.parametrize("array", [
    np.arange(6.0), np.arange(24.0).reshape(4, 6)[1:3, ::2], np.arange(10.0)[::-3], np.zeros((3, 0)),
    np.zeros((5, 1))[:, :1],
])
def test_byte_span_covers_exactly_the_elements(array):
    low, high = byte_span(array.shape, array.strides, array.itemsize)
    if array.size == 0:
        assert (low, high) == (0, 0)
        return
    base = array.__array_interface__["data"][0]
    first, last = np.lib.array_utils.byte_bounds(array) if hasattr(np.lib, "array_utils") else np.byte_bounds(array)
    assert (base + low, base + high) == (first, last)


@pytest.fixture
def two_threads():
    from polyfuse.runtime import threads

    saved = threads._num_threads
    threads.set_num_threads(2)
    yield
    threads._num_threads = saved


def test_a_small_parallel_phase_runs_serially_without_asking_for_the_thread_count(two_threads, monkeypatch):
    from polyfuse.backends.cpu import parallel

    from polyfuse.runtime import threads

    # the decision under test, not the machine's load: a 64-element add is far below a second
    monkeypatch.setattr(parallel, "MIN_PARALLEL_SECONDS", 1.0)
    k = polyfuse.kernel(add)
    a, b, out = np.arange(64.0), np.ones(64), np.empty(64)
    k(a, b, out)  # measured: far below MIN_PARALLEL_SECONDS
    monkeypatch.setattr(threads, "get_num_threads", lambda: pytest.fail("asked for the thread count"))
    for _ in range(3):
        k(a + 1, b, out)
    np.testing.assert_array_equal(out, a + 2)
    assert k.compile(a, b, out).backend.phase_runs == {}


def test_a_slow_first_measurement_does_not_keep_a_small_phase_on_threads(two_threads, monkeypatch):
    """A serial run slowed down by another job makes the team look faster only until the next
    serial run (before, one such run sent the phase to threads for good).  The runs' times are
    made up, as a 64-element add takes on a 2-core VM (team 30 us, serial 4 us: parallel.py's
    MIN_PARALLEL_SECONDS note), so that the policy decides, not the machine's load; the phase
    still runs, on the team or serially, and its results are checked."""
    from polyfuse.backends.cpu import parallel

    clock = types.SimpleNamespace(now=0.0)
    monkeypatch.setattr(parallel, "time", types.SimpleNamespace(perf_counter=lambda: clock.now))

    def taking(seconds, run):
        def timed(*args):
            clock.now += seconds
            return run(*args)
        return timed

    serial_function = parallel._serial_function
    monkeypatch.setattr(parallel, "_run_chunks", taking(30e-6, parallel._run_chunks))
    monkeypatch.setattr(parallel, "_serial_function", lambda compiled: taking(4e-6, serial_function(compiled)))
    monkeypatch.setattr(parallel, "_measure_chunks", lambda compiled, args, count: (
        compiled.function(*args, 0, count), parallel.RegionTimes(True, [1.0]))[1])  # a 1 s first run
    k = polyfuse.kernel(add)
    a, b, out = np.arange(64.0), np.ones(64), np.empty(64)
    for _ in range(100):
        k(a, b, out)
        np.testing.assert_array_equal(out, a + 1)
    (runs,) = k.compile(a, b, out).backend.phase_runs.values()
    # not 99: the team's trial runs, then a check now and then
    assert 1 <= runs <= 4 * parallel.RECHECK_EVERY


def test_non_native_byte_order_is_refused_even_after_a_plan_exists():
    """A big-endian float64 has the same dtype number as a native one: the variant and plan keys
    used to match it and the machine code read its bytes as native numbers (a silent wrong answer)."""
    def double(A, B):
        for i in range(A.shape[0]):
            B[i] = A[i] * 2.0

    k = polyfuse.kernel(double)
    a, b = np.arange(4.0), np.zeros(4)
    k(a, b)
    k(a, b)  # the second call at these sizes makes the plan
    with pytest.raises(ArgumentError, match="byte order"):
        k(a.astype(">f8"), b)
    with pytest.raises(ArgumentError, match="byte order"):
        polyfuse.kernel(double)(a.astype(">f8"), b)


def test_read_only_outputs_are_refused_even_after_a_plan_exists():
    """The machine code writes through the raw pointer: a read-only array (np.broadcast_to, a
    buffer of bytes, setflags(write=False)) would be changed behind numpy's back."""
    k = polyfuse.kernel(add)
    a, b, out = np.ones(8), np.ones(8), np.zeros(8)
    k(a, b, out)
    k(a, b, out)  # the plan for these sizes
    frozen = np.zeros(8)
    frozen.setflags(write=False)
    with pytest.raises(ArgumentError, match="read-only"):
        k(a, b, frozen)
    assert not frozen.any()
    ro_in = np.ones(8)
    ro_in.setflags(write=False)
    k(ro_in, b, out)  # read-only inputs are fine
    np.testing.assert_array_equal(out, 2.0)


def test_written_arrays_with_a_zero_stride_are_refused():
    k = polyfuse.kernel(add)
    a, b = np.ones(8), np.ones(8)
    shared = as_strided(np.zeros(1), shape=(8,), strides=(0,))  # writeable, one element for all eight
    with pytest.raises(ArgumentError, match="stride 0"):
        k(a, b, shared)
    k(as_strided(np.ones(1), shape=(8,), strides=(0,)), b, np.zeros(8))  # read through a zero stride: fine


def fill(X):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[i, j] = 1.0


def test_written_empty_arrays_keep_working():
    empty = np.zeros((0, 3))
    assert empty.strides == (0, 0)  # numpy's own empty arrays have zero strides
    polyfuse.kernel(fill)(empty)


# ---- default argument values -----------------------------------------------------------------------

HALF = np.float32(0.5)


def damped(x, out, k=2, eps=1e-3, flag=True, scale=HALF):
    for i in range(x.shape[0]):
        out[i] = x[i] * k * scale + eps if flag else x[i]


@pytest.mark.parametrize("call", [
    lambda f, x, out: f(x, out),
    lambda f, x, out: f(x, out, 3),
    lambda f, x, out: f(x, out, eps=0.5),
    lambda f, x, out: f(x, out, 3, flag=False),
    lambda f, x, out: f(x=x, out=out, scale=np.float32(2.0), k=1.5),
], ids=["omitted", "positional", "keyword", "positional and keyword", "keywords only"])
def test_omitted_arguments_take_their_defaults_as_python_binds_them(call):
    k = polyfuse.kernel(damped, verify=True)
    x = np.arange(6, dtype=np.float32)
    expected, actual = np.zeros(6, dtype=np.float32), np.zeros(6, dtype=np.float32)
    call(damped, x, expected)
    call(k, x, actual)
    np.testing.assert_array_equal(actual, expected)


def offset(x, out, k=2, eps=1e-3):
    for i in range(out.shape[0]):
        out[i] = x[i + k] + eps


def test_calls_that_omit_int_and_float_defaults_take_the_plan():
    k = polyfuse.kernel(offset)
    x, out, expected = np.arange(8.0), np.zeros(6), np.zeros(6)
    for _ in range(3):
        k(x, out)
    assert len(plans(k)) == 1
    offset(x, expected)
    np.testing.assert_array_equal(out, expected)


def views_of(x, k):
    return x[k:], x[::-1], x[1:-1:2].T, x[None, 2:]


@pytest.mark.parametrize("make", [
    lambda: np.arange(40.0).reshape(10, 4),  # C-contiguous: the view wraps the argument's buffer
    lambda: np.arange(80.0).reshape(10, 8)[:, ::2],  # strided: as_strided from a slice
    lambda: np.asfortranarray(np.arange(40.0).reshape(10, 4)),
    lambda: np.arange(40.0).reshape(10, 4)[::-1],  # negative strides
], ids=["contiguous", "strided", "fortran", "reversed"])
def test_returned_views_on_the_plan_path_are_numpys_views(make):
    kernel = polyfuse.kernel(views_of)
    for k in (3, 3, 3, 1, 1, 1, 12, 12):  # the plan reuses each view's geometry at k=3 and k=1
        x = make()
        for e, a in zip(views_of(x, k), kernel(x, k)):
            np.testing.assert_array_equal(a, e)
            assert a.shape == e.shape and (a.size == 0 or a.strides == e.strides)
            assert a.size == 0 or np.shares_memory(a, x)
    assert plans(kernel)


def permuted(x, y):
    return x.T, np.transpose(y, (1, 2, 0)), np.transpose(y)


@pytest.mark.parametrize("make", [
    lambda: (np.arange(12.0).reshape(3, 4), np.arange(24.0).reshape(2, 3, 4)),
    lambda: (np.asfortranarray(np.arange(12.0).reshape(3, 4)), np.arange(48.0).reshape(2, 3, 8)[:, :, ::2]),
    lambda: (np.zeros((0, 4)), np.zeros((2, 0, 3))),
], ids=["contiguous", "fortran-and-strided", "empty"])
def test_returned_permutations_are_numpys_transposes(make):
    kernel = polyfuse.kernel(permuted)
    for _ in range(3):
        x, y = make()
        for a, e in zip(kernel(x, y), permuted(x, y)):
            np.testing.assert_array_equal(a, e)
            assert a.shape == e.shape and a.strides == e.strides and a.base is e.base
    (plan,) = plans(kernel)
    assert all(geometry.axes is not None for geometry in plan.views.values())


def test_a_returned_view_of_a_read_only_argument_stays_read_only():
    kernel = polyfuse.kernel(views_of)
    for _ in range(3):
        x = np.arange(40.0).reshape(10, 4)
        x.setflags(write=False)
        assert not any(a.flags.writeable for a in kernel(x, 2))
