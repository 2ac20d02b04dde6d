"""Loop variables read after their loop (the last value, the break iteration's, the earlier
binding after zero iterations, UnboundLocalError where there is none) and bound again inside it
(frontend/loop_values.py), against the undecorated function on the cpu target with two threads.
Three kernels, so three compiles; hypothesis draws bounds and data for one of them."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse


def forms(x, t, n, a, b):
    i = -1
    for i in range(x.shape[0]):  # a search: the break iteration's value, or the earlier binding
        if x[i] > t:
            break
    found = i
    for j in range(n):  # affine: if n > 0: j = n - 1
        x[j] += 1.0
    last = j if n > 0 else -1  # j is unbound for n <= 0: read only where it is bound
    for j in range(2):  # bound again, its value never read: a loop variable of its own all the same
        j = j + 5
        last += j
    k = 7
    t = 0.0
    for k in range(a, b, -3):  # a negative step
        t += 0.5
    s = 0
    for m in range(n):
        m = m * 2  # bound again: later reads of this iteration see it, the next iteration does not
        s += m
    w = 0
    for q in range(a, b, 2):
        if t > 1.0:
            q += 1
        w += q
    out = np.zeros(2, dtype=np.int64)
    out[0] = k  # in a store
    out[1] = x[found % x.shape[0]] if x.shape[0] > 0 else 0  # in a subscript
    r = 0
    if k > 2:  # in an if
        r = 1
    return found, last, k, t, s, m if n > 0 else -1, w, q if a < b else -9, out, r


def rows(A, n):
    out = np.zeros(A.shape[0], dtype=np.int64)
    for r in range(A.shape[0]):
        for c in range(A.shape[1]):  # nested search: c after its loop in each row
            if A[r, c] > 0.5:
                break
        for g in range(c // 2, A.shape[1]):  # kept as written (a bound of a local), g bound again
            g = g + 1
            A[r, g - 1] += 1.0
        out[r] = c * 10 + g  # UnboundLocalError where A has no columns and some rows
    s = 0
    for i in range(n):
        s += 2
    return out, s, i, c  # UnboundLocalError for n <= 0 (i first, as Python reads it), or no rows


def first_above(x, t):  # a helper: inlined, then its loop's value read after it
    for i in range(x.shape[0]):
        if x[i] > t:
            break
    return i


def steps(x, a, b):
    i = 100
    for i in range(a, b):
        x[i - a] += 1.0
    v = i
    for i in range(b, a, -1):
        if x[i - a - 1] > 1.5:
            break
    u = i
    for i in range(a, b, 3):
        x[0] += 0.25
    return v, u, i, x, first_above(x, 1.5)


@pytest.fixture
def two_threads(monkeypatch):
    monkeypatch.setenv("POLYFUSE_NUM_THREADS", "2")


def _same(func, kernel, *args):
    expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        expected = func(*expected_args)
    except UnboundLocalError as e:
        with pytest.raises(UnboundLocalError, match=str(e).split(" where")[0]):
            kernel(*got_args)
        return
    assert_same_result(expected, kernel(*got_args))
    for e, g in zip(expected_args, got_args):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(g, e)


def test_forms_match_python(two_threads):
    kernel = polyfuse.kernel(forms, target="cpu")
    x = np.array([0.2, 0.9, 0.4, 0.7])
    for args in [(x, 0.5, 3, 9, 1), (x, 2.0, 0, 1, 9), (x, 0.5, -2, 2, 2), (np.zeros(0), 0.5, 0, 0, -5)]:
        _same(forms, kernel, *args)


def test_rows_match_python_and_raise_unbound(two_threads):
    kernel = polyfuse.kernel(rows, target="cpu")
    A = np.random.default_rng(5).random((3, 4))
    for args in [(A, 2), (A, 0), (np.zeros((2, 0)), 1), (np.zeros((0, 3)), 1), (np.zeros((0, 3)), 0)]:
        _same(rows, kernel, *args)


def test_affine_loop_stays_in_the_model():
    kernel = polyfuse.kernel(steps, target="python")
    x = np.zeros(8)
    sections = dict(kernel.explain(x, 1, 6).sections)
    kept = sections.get("kept as written", [])
    assert [k["why"] for k in kept] == ["break", "break"]  # only the searching loops


_STEPS = polyfuse.kernel(steps, target="cpu")


@settings(max_examples=15, deadline=None, derandomize=True)
@given(a=st.integers(-3, 6), width=st.integers(-2, 6), data=st.lists(st.sampled_from([0.0, 1.0, 2.0]),
                                                                     min_size=9, max_size=9))
def test_steps_match_python(a, width, data):
    x = np.array(data)[: max(width, 0) + 1]
    _same(steps, _STEPS, x, a, a + width)
