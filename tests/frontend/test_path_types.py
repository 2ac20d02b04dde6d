"""A returned local that is a Python number on some paths and a NumPy scalar on others
(``m = 0`` then ``m = x.mean()`` under an if): each assignment also records which it was, and
the call returns the type the undecorated function returns on this input (frontend/lift.py:
strength_flag, runtime/variant.py).  A local assigned inside a loop gets one flag after the
loop, where its assignments' domain is not empty (a flag written in the loop would be a carried
dependence keeping the loop's reduction off the thread team); one assigned under a
data-dependent test inside the loop keeps the promoted type, NumPy's scalar, also where the loop
ran no iteration (docs/subset.md)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import polyfuse


def mean_or_zero(x):
    m = 0
    if x.shape[0] > 0:
        m = x.mean()
    return m


def first_or_default(x, t):
    r = -1.0
    if x.shape[0] > 2 and t > 0:
        r = x[2]
    return r


def flag_or_value(x):
    found = False
    if x.shape[0] > 1:
        found = x[1] > 1
    return found


def pair(x, t):
    m = 0.5
    if t > 1:
        m = x[0] * t
    return m, x.shape[0]


def max_of_a_reduction(x):
    m = max(1, np.max(x))  # the reduction lowered first: max() is still the user's (cp41: was np.float32(1.0))
    return m, m / 3.0


def best_prefix_gain(g):
    gl = 0.0
    best = 0.0
    for b in range(g.shape[0]):
        gl += g[b]
        gain = gl * 2.0  # flagged (gl's kind varies), assigned only in the loop, read by best's in-place flag
        if gain > best:
            best = gain
    return best


CASES = [
    (best_prefix_gain, (np.array([0.5, -2.0, 0.25]),)), (best_prefix_gain, (np.array([-0.5, 0.25]),)),
    (max_of_a_reduction, (np.array([0.5, 0.25], np.float32),)),
    (mean_or_zero, (np.zeros(0),)), (mean_or_zero, (np.ones(2),)), (mean_or_zero, (np.ones(3, np.float32),)),
    (first_or_default, (np.arange(3.0), 5.0)), (first_or_default, (np.arange(3.0), -1.0)),
    (flag_or_value, (np.zeros(2),)), (flag_or_value, (np.full(1, 2.0),)),
    (pair, (np.ones(3, np.float32), 2.0)), (pair, (np.ones(3, np.float32), 0.5)),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", CASES, ids=[f"{c[0].__name__}{k}" for k, c in enumerate(CASES)])
def test_the_type_of_this_path(func, args, target):
    expected = func(*args)
    got = polyfuse.kernel(func, target=target)(*args)
    pairs = zip(expected, got) if isinstance(expected, tuple) else [(expected, got)]
    for e, a in pairs:
        assert type(a) is type(e) and a == e, (expected, got)


def running_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def int_total(x):
    t = 0
    for i in range(x.shape[0]):
        t += x[i]
    return t


def grid_total(A, k):
    t = 0.0
    for i in range(A.shape[0]):
        for j in range(i + k, A.shape[1]):
            t += A[i, j]
    return t


def largest_above(x):
    best = -1.0
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
    return best


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (running_sum, (np.zeros(0),)), (running_sum, (np.arange(5.0),)),
    (int_total, (np.zeros(0, np.int64),)), (int_total, (np.arange(3, dtype=np.int32),)),
    (grid_total, (np.ones((3, 4)), 4)), (grid_total, (np.ones((3, 4)), 2)), (grid_total, (np.ones((0, 4)), 0)),
])
def test_a_local_assigned_in_a_loop_has_the_type_of_this_path(func, args, target):
    """One flag after the loop, where its domain is not empty: Python's number where the loop
    ran no iteration (the loop's reduction stays on the team: test_private_sums' scalar_sum)."""
    expected = func(*args)
    got = polyfuse.kernel(func, target=target)(*args)
    assert type(got) is type(expected) and got == expected


def test_a_local_assigned_under_a_data_test_in_a_loop_has_the_type_of_this_path():
    """Whether such an assignment ran depends on the data: its flag is set beside it in the loop
    (the loop was serial already: the test reads the local), Python's -1.0 where none ran."""
    k = polyfuse.kernel(largest_above)
    for x in (np.zeros(0), np.arange(5.0), -np.ones(3)):
        expected, got = largest_above(x), k(x)
        assert type(got) is type(expected) and got == expected


@njit
def _half(v):
    return v / 2


def float_total(x):
    s = 0
    for i in range(x.shape[0]):
        s += float(x[i])
    return s


def helper_total(x):
    s = 0
    for i in range(x.shape[0]):
        s += _half(x[i])
    return s


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func", [float_total, helper_total])
def test_a_local_given_a_python_int_then_python_floats_is_the_int_where_no_iteration_ran(func, target):
    """Two Python kinds (``s = 0`` then ``s += float(x[i])``, or an @njit helper's float, which the
    undecorated kernel gets boxed as Python's float) are flagged as a Python and a NumPy kind are:
    the call gave 0.0 for Python's 0 where the loop ran no iteration (found by cp38)."""
    k = polyfuse.kernel(func, target=target)
    for x in (np.zeros(0), np.arange(3.0)):
        expected, got = func(x), k(x)
        assert type(got) is type(expected) and got == expected


def running_max(x):
    m = 0
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m


def running_min_chosen(x):
    m = 1
    for i in range(1, x.shape[0]):
        m = min(x[i], m, x[i - 1]) if x[i] > -3 else m
    return m


def chosen_by_an_element(x):
    m = 1
    for i in range(x.shape[0]):
        m = (x[i] - 0.5) if x[i] else m  # the test is x[i]'s truth (cp47: an i32/double select condition)
    return m


def kept_by_or(x):
    m = -1
    for i in range(x.shape[0]):
        m = m or x[i]  # a or b is a choice too: Python keeps the int -1 (cp47: np.int32(-1) was returned)
    return m


def guarded_then_min(x):
    m = 0
    for i in range(x.shape[0]):
        if x[i] < 1:
            m = max(m, x[i])
    for i in range(x.shape[0]):
        m = min(m, x[i])
    return m


def while_max(x):
    m = 0
    i = 0
    while i < x.shape[0]:
        m = max(m, x[i])
        i += 1
    return m


@pytest.mark.parametrize("func", [running_max, running_min_chosen, chosen_by_an_element, kept_by_or,
                                  guarded_then_min, while_max])
def test_a_choice_keeping_the_local_keeps_its_type(func):
    """``m = 0`` then ``m = max(m, x[i])`` in a loop: Python returns the operand it chose, so ``m``
    is still the int 0 where no element beats it (and on ties: ``max`` keeps the first of equals)
    and a NumPy scalar after one did (session 31's leftover: the promoted np.int32(0) was
    returned).  Only max (or only min) of itself first: the flag after the loop, by whether the
    value changed (running_max stays a reduction); else set in place by the choice's own tests."""
    k = polyfuse.kernel(func, target="cpu")
    for x in (np.zeros(0, np.int32), np.array([-3, 0, -1], np.int32), np.array([-2, 4, 0], np.int32),
              np.array([-1.5, 0.0]), np.array([2.0, np.nan, -4.0])):
        expected, got = func(x), k(x)
        assert type(got) is type(expected) and (got == expected or got != got and expected != expected)


def best_above_half(x):
    m = 0.5
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
    return m


def int32_sum_then_halved(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    for i in range(1, x.shape[0]):
        s = s * 0.5
    return s


def int32_sum_then_halved_plus_one(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    for i in range(1, x.shape[0]):
        s = s * 0.5
    return s + 1


def sum_of_winners_or_itself(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > s else s
    return s


@pytest.mark.parametrize("func", [best_above_half, int32_sum_then_halved, int32_sum_then_halved_plus_one,
                                  sum_of_winners_or_itself])
def test_a_returned_loop_local_of_another_numpy_dtype_is_split(func):
    """``m = 0.5`` then ``m = x[i]`` of an ``int32`` ``x``: Python returns ``np.int32`` where an
    element won and the float ``0.5`` where none did; the one float64 local returned
    ``np.float64(1.0)`` for ``np.int32(1)`` (local_versions.loop_splits: ``returned``).  A sum of
    ``int32`` elements halved in a second loop is the ``np.int32`` of one element where that loop
    runs no iteration: the settled pass read ``s + x[i]`` as float64 and did not split (cp50's
    fuzzer, ``tests/long/mix_fuzz.py``; the earlier passes' types count now), returned in ``s + 1``
    too.  ``s += x[i] if x[i] > s else s`` of a Python ``s = 0`` is NumPy's once an element won:
    the flag's test read the new ``s`` (it returned the Python int).  In a loop kept as written
    (a ``break``) the flag is still NumPy's on every path (``np.int32(0)`` where no element won):
    e578533 took the kind inheritance out of frontend.opaque (the corpus' np.unique loops read a
    flag before its assignment)."""
    k = polyfuse.kernel(func, target="cpu")
    for x in (np.array([1, 0, -2], np.int32), np.array([-1, 0], np.int32), np.zeros(0, np.int32),
              np.array([3], np.int32), np.array([0.25, 3.0]), np.array([5, -3, 2])):
        expected, got = func(x), k(x)
        assert type(got) is type(expected) and got == expected


def quarter_or_rest_plus_one(n, b):
    s = 0
    for j in range(1, n):
        s += (2 - b[j]) if (2 - b[j]) > 0.25 else 0.25
    return s + 1


def quarter_or_one_plus_one(n, b):
    s = 0
    for j in range(1, n):
        s += 0.25 if (2 - b[j]) > 0.25 else 1
    return s + 1


def doubled_or_half_more_plus_one(n, b):
    s = 0
    for j in range(1, n):
        s = s * 2 if (2 - b[j]) > 0.25 else s + 0.5
    return s + 1


@pytest.mark.parametrize("func", [quarter_or_rest_plus_one, quarter_or_one_plus_one, doubled_or_half_more_plus_one])
def test_a_returned_expression_of_a_local_given_a_python_float_by_a_choice(func):
    """cp50's fuzzer (tests/long/mix_fuzz.py, loops seed 9, program 32): a Python ``s = 0`` given
    ``0.25`` by the else branch of a choice in ``s += ...`` is a Python float; ``return s + 1``
    came back ``1`` for Python's ``1.25``: it took the one Python kind recorded for ``s`` (the
    int of ``s = 0``), not the float its flag held (``Lifter.flag_kinds``: each kind's value, as
    the flag says).  ``s += 0.25 if c else 1`` is a Python int where every choice gave ``1``
    (``2.0`` came back for Python's ``2``): its flag follows ``s``'s own kind through the choice,
    as in ``s = s * 2 if c else s + 0.5`` (``Lifter.inherited_kind``)."""
    k = polyfuse.kernel(func, target="python")
    for n, b in ((2, np.full(3, 1.9)), (2, np.array([0, 3.0])), (2, np.zeros(2)), (1, np.zeros(1))):
        expected, got = func(n, b), k(n, b.copy())
        assert type(got) is type(expected) and got == expected
