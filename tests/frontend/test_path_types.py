"""A returned local that is a Python number on some paths and a NumPy scalar on others
(``m = 0.0`` then ``m = x[i]`` under an if; ``sum(x)`` of an empty array is Python's ``0``):
each assignment also records which it was, and the call returns the type the undecorated
function returns on this input (frontend/lift.py: strength_flag, runtime/variant.py)."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def total(x):
    return sum(x)


def running_max(p):
    m = 0.0
    for i in range(p.shape[0]):
        if p[i] > m:
            m = p[i]
    return m


def last_above(x, t):
    r = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            r = x[i]
    return r


def found_big(x):
    found = False
    for i in range(x.shape[0]):
        if x[i] > 0:
            found = x[i] > 1
    return found


def pair(x):
    m = 0.0
    for i in range(x.shape[0]):
        m += x[i]
    return m, sum(x)


CASES = [
    (total, (np.zeros(0),)), (total, (np.ones(2),)), (total, (np.zeros(0, np.int32),)),
    (total, (np.arange(3, dtype=np.int32),)), (total, (np.zeros(0, np.float32),)),
    (running_max, (np.zeros(0),)), (running_max, (np.ones(1),)), (running_max, (-np.ones(2, np.float32),)),
    (running_max, (np.ones(2, np.float32),)),
    (last_above, (np.arange(3.0), 5.0)), (last_above, (np.arange(3.0), 1.0)), (last_above, (np.arange(3), 1)),
    (found_big, (np.zeros(2),)), (found_big, (np.full(2, 2.0),)),
    (pair, (np.zeros(0),)), (pair, (np.ones(3, np.float32),)),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", CASES, ids=[f"{c[0].__name__}{k}" for k, c in enumerate(CASES)])
def test_the_type_of_this_path(func, args, target):
    expected = func(*args)
    got = polyfuse.kernel(func, target=target)(*args)
    pairs = zip(expected, got) if isinstance(expected, tuple) else [(expected, got)]
    for e, a in pairs:
        assert type(a) is type(e) and a == e, (expected, got)
