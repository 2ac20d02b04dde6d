"""Slice stores of a constant with a step computed at run time (frontend/range_steps.py:
strided_store): a sieve's ``is_p[i * i::i] = False`` is the loop it means."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import team_runs

import polyfuse


def sieve(n):
    is_p = np.ones(n, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, n):
        if is_p[i]:
            is_p[i * i::i] = False
    return is_p


def strided_fill(x, a, b, s):
    x[a:b:s] = -1.5


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_sieve_with_strided_stores_matches(target):
    kernel = polyfuse.kernel(sieve, target=target)  # one variant serves every n
    for n in (2, 3, 30, 31):
        np.testing.assert_array_equal(kernel(n), sieve(n))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_strided_fill_takes_pythons_elements_or_refuses(target):
    k = polyfuse.kernel(strided_fill, target=target)
    for a, b, s in ((0, 10, 3), (2, 100, 4), (7, 3, 2), (9, 10, 1), (12, 20, 2)):
        got, want = np.zeros(10), np.zeros(10)
        k(got, a, b, s)
        strided_fill(want, a, b, s)
        np.testing.assert_array_equal(got, want)
    for a, b, s in ((0, 10, -2), (-3, 10, 2), (0, 0, 0)):  # Python walks backwards, counts from the end, raises
        with pytest.raises(AssertionError, match="slice step computed at run time must be positive"):
            k(np.zeros(10), a, b, s)


def store_each(x, v):
    for i in range(x.shape[0]):
        x[i] = v


def store_all(x, y):
    y[:] = x


def store_while(x, v):
    i = 0
    while i < x.shape[0]:  # a loop kept as written (frontend/opaque.py)
        x[i] = v
        i += 1


def _outcome(fn, y, v):
    """What ``fn`` does storing ``v`` into a copy of ``y``: the exception's type and its
    message's first line, or the values stored."""
    y = y.copy()
    try:
        fn(v, y) if fn.__name__ in ("store_all", "shift") else fn(y, v)
    except (OverflowError, ValueError) as error:
        return type(error), str(error).splitlines()[0]
    return y.tolist()


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_scalar_stored_into_an_element_raises_where_numpy_raises(target):
    """NumPy 2.4 assigns one scalar into one integer element through its Python int: into a
    signed dtype a NumPy integer or float that does not fit raises OverflowError (NaN
    ValueError), into an unsigned one a NumPy integer wraps and a float is cast; an array
    assignment (``y[:] = x``) is a cast, which wraps (docs/subset.md).  Both targets do as the undecorated function does."""
    element, array = polyfuse.kernel(store_each, target=target), polyfuse.kernel(store_all, target=target)
    kept = polyfuse.kernel(store_while, target=target)
    cases = [(store_each, element, np.zeros(3, np.int8), np.int64(v)) for v in (368, -200, 5)]
    cases += [(store_each, element, np.zeros(3, np.uint8), np.int64(v)) for v in (368, -1)]
    cases += [(store_each, element, np.zeros(3, np.int8), np.float64(v)) for v in (127.9, -128.9, 128.0, -129.0, np.nan, -np.inf, 1e19)]
    cases += [(store_all, array, np.zeros(3, np.int8), np.array([368, -200, 5]))]
    # a NumPy float outside an unsigned element, and NaN / inf in an array assignment: NumPy's cast,
    # with a RuntimeWarning (x86-64's value; LLVM's fptoui / fptosi left them poison: ov47)
    cases += [(store_each, element, np.zeros(3, np.uint64), np.float64(v)) for v in (np.nan, np.inf, -1.0, 1e19, 2.0**64)]
    cases += [(store_all, array, np.zeros(3, np.int32), np.array([np.nan, -np.inf, 1e19]))]
    cases += [(store_while, kept, np.zeros(3, np.int8), np.int64(v)) for v in (368, 5)]
    for fn, kernel, y, v in cases:
        with np.errstate(invalid="ignore"):
            assert _outcome(kernel, y, v) == _outcome(fn, y, v), (fn.__name__, y.dtype, v)
    with pytest.raises(OverflowError) as info:  # NumPy's message, then where the store is written
        element(np.zeros(3, np.int8), np.int64(368))
    assert "out of bounds for int8" in str(info.value) and "x[i] = v" in str(info.value)


def shift(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + 1


def test_the_first_failing_store_of_a_vectorized_check_is_numpys(forced):
    """The checks of a nest that reads nothing it writes run or-ed into a local flag, and the nest
    again as written where one failed (POLYFUSE_VECTOR_CHECKS): NumPy's first failure is named,
    on a team of two threads (a failure in one chunk) and on one, plain calls and native entry."""
    from polyfuse.runtime import threads

    kernel = polyfuse.kernel(shift)
    x = np.arange(64, dtype=np.int64) % 50
    late, first = x.copy(), x.copy()
    late[40], late[50] = 200, -300  # in the second thread's chunk
    first[3], first[10] = -150, 300
    floats = x.astype(np.float64)
    nan_first, big_first = floats.copy(), floats.copy()
    nan_first[5], nan_first[6], big_first[5], big_first[6] = np.nan, 1e10, 1e10, np.nan
    cases = [(late, np.int8), (first, np.int8), (x, np.int8), (nan_first, np.int32), (big_first, np.int32),
             (floats, np.int32)]
    for count in (2, 1):
        threads.set_num_threads(count)
        for _ in range(5):  # the native entry from the 4th call
            for values, dtype in cases:
                expected = _outcome(shift, np.zeros(64, dtype), values)
                assert _outcome(kernel, np.zeros(64, dtype), values) == expected, (count, values, dtype)
        if count == 2:
            assert team_runs(kernel.compile(x, np.zeros(64, np.int8)).backend)


def test_a_team_names_the_first_failure_in_the_loop_order(forced, monkeypatch):
    """Two threads failing in different chunks: the message names the earlier chunk's failure,
    whichever records first (backends/cpu/llvm.py record_check: the phase, then the chunked
    loop's iteration).  The team here takes its pieces last first, so the later chunk always
    fails first in time (ov46's shared flag named it); the checks branch and run twice."""
    from polyfuse.backends.cpu import parallel

    from polyfuse.runtime import threads

    monkeypatch.setenv("POLYFUSE_NATIVE_ENTRY", "0")  # (its team takes the pieces in order)
    monkeypatch.setattr(parallel, "NATIVE_TEAM", False)
    monkeypatch.setattr(parallel.Pieces, "take", _last_piece_first)
    threads.set_num_threads(2)
    x = np.arange(64, dtype=np.int64) % 50
    x[30], x[40], x[63] = 200, 300, -400
    expected = _outcome(shift, np.zeros(64, np.int8), x)
    for knob in ("0", "1"):
        monkeypatch.setenv("POLYFUSE_VECTOR_CHECKS", knob)
        kernel = polyfuse.kernel(shift)
        for _ in range(3):  # (the first call measures the chunks in order)
            assert _outcome(kernel, np.zeros(64, np.int8), x) == expected, knob
        assert team_runs(kernel.compile(x, np.zeros(64, np.int8)).backend)


def _last_piece_first(pieces):
    with pieces._lock:
        if pieces._taken >= pieces.count or pieces._error is not None:
            return None
        pieces._taken += 1
        return pieces.count - pieces._taken

