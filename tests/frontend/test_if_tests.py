"""``if`` tests that reduce arrays (frontend/arrays.py ``hoist_test``): computed into a scalar
just before the ``if``, where Python evaluates them; against the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import UnsupportedError

TARGETS = ("python", "cpu")


def early_exit(x, y, tol):
    s = 0.0
    for _ in range(6):
        y[:] = y * 0.5
        if np.linalg.norm(y) < tol:
            break
        elif np.sum(x * y) > 1.0:
            s += 1.0
        else:
            s -= 0.5
    return s


def dot_test(x, y):
    r = 0.0
    if x @ y > 1.0:
        r = np.sqrt(x @ x)
    return r


@pytest.mark.parametrize("target", TARGETS)
def test_reductions_in_if_and_elif_tests(target):
    rng = np.random.default_rng(0)
    early, dot = polyfuse.kernel(early_exit, target=target, verify=True), polyfuse.kernel(dot_test, target=target)
    for tol in (0.05, 0.3, 2.0):  # one variant each serves every call
        x, y = rng.random(5) * 2, rng.random(5)
        expected_y, actual_y = y.copy(), y.copy()
        assert early(x, actual_y, tol) == early_exit(x, expected_y, tol)
        np.testing.assert_array_equal(actual_y, expected_y)
    for scale in (0.1, 1.0):
        x, y = rng.random(4) * scale, rng.random(4)
        assert dot(x, y) == dot_test(x, y)


def array_test(x):
    r = 0.0
    if x > 0.5:
        r = 1.0
    return r


def short_circuit(x, n):
    r = 0.0
    if n > 2 and np.max(x) > 1:  # np.max of nothing raises: only where n > 2, as in Python
        r = 1.0
    return r


def short_circuit_select(x, n):
    r = 0.0
    if (np.sum(x) if n > 2 else 0.0) > 1:
        r = 1.0
    return r


def test_an_array_test_is_refused_as_numpy_refuses_it():
    with pytest.raises(UnsupportedError, match="truth value"):
        polyfuse.kernel(array_test, target="python")(np.ones(3))


def test_a_reduction_behind_and_or_runs_where_python_runs_it():
    """Python may skip it: ``c = n > 2``, then ``if n > 2: c = np.max(x) > 1`` (arrays.split_test)."""
    k = polyfuse.kernel(short_circuit, target="python", verify=True)
    for x, n in ((np.zeros(0), 0), (np.ones(3) * 2, 3), (np.ones(3), 3), (np.ones(3) * 2, 1)):
        assert k(x, n) == short_circuit(x, n)


def test_a_reduction_behind_a_select_stays_refused():
    """Python may skip it; hoisting would evaluate it always (and could raise where Python does not)."""
    with pytest.raises(UnsupportedError):
        polyfuse.kernel(short_circuit_select, target="python")(np.ones(3), 3)
