"""``a and b`` / ``a or b`` as values (frontend/expressions.py ``_BoolOp``): Python's value is the
operand that decided, not a bool.  fz27 found every operand made a bool: ``k[0] or k[1]`` gave
True for 3, ``(x[0] or 2.0) * 3`` gave 3 for 6.0, ``x[0] > 0 and x[1] or -1.0`` True for -1.0."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import define

import polyfuse

EXPRESSIONS = [
    "x[0] > 0 and x[1] or -1.0",
    "(x[0] or 2.0) * 3",
    "k[0] or k[1]",
    "k[0] and x[0]",
    "x.shape[0] > 2 and x[2]",  # the affine first operand: x[2] read only where Python reads it
    "x[0] or x[1] or x[2]",
    "b[0] and b[1] or b[2]",  # bools: still the logical operators
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_and_or_values_are_pythons(target, expression):
    func = define(f"def kern(x, k, b):\n    return {expression}\n")
    kernel = polyfuse.kernel(func, target=target, cache=False)
    for values in itertools.product([0.0, -0.0, np.nan, 1.5], repeat=3):
        x = np.array(values)
        k = np.array([3 if v != v else int(v) for v in values], dtype=np.int64)
        b = x != 0
        want, got = func(x, k, b), kernel(x, k, b)
        np.testing.assert_array_equal(np.asarray(got, dtype=complex), np.asarray(want, dtype=complex),
                                      err_msg=f"{expression} at {values}")
        assert np.signbit(np.real(complex(got))) == np.signbit(np.real(complex(want))), (expression, values)


def test_a_condition_of_non_bool_operands_keeps_its_truth():
    """In an ``if`` the select's truth is the operator's: the same branches as Python."""
    func = define("def kern(x, k):\n    c = 0\n    for i in range(x.shape[0]):\n"
                  "        if x[i] or k[i] and x[i] > -1.0:\n            c += 1\n    return c\n")
    kernel = polyfuse.kernel(func, target="cpu", cache=False)
    x = np.array([0.0, -0.0, np.nan, 1.5, 0.0, -3.0])
    k = np.array([0, 1, 0, 0, 2, 5])
    assert kernel(x, k) == func(x, k)


GUARDED = [
    # the first operand of the test is affine: the read it guards happens only where it holds
    "v = 0.0\n    if x.shape[0] > 1 and x[0] > 0:\n        v = x[1]\n    return v",
    "s = 0.0\n    for i in range(y.shape[0]):\n        s += x[i + 1] if i + 1 < x.shape[0] and x[i] > 0 else y[i]\n"
    "    return s",
    "s = 0.0\n    for i in range(y.shape[0]):\n        s += y[i] if i >= x.shape[0] or x[i] > 0 else x[i]\n    return s",
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("body", GUARDED)
def test_an_affine_first_operand_guards_the_reads_python_makes_under_it(target, body):
    """fz27: these reads were refused per call for short ``x`` (an ArgumentError where Python
    ran): the test's affine first operand guards the branch Python runs only where it holds."""
    func = define(f"def kern(x, y):\n    {body}\n")
    kernel = polyfuse.kernel(func, target=target, cache=False)
    for n in (0, 1, 2, 5):
        for sign in (1.0, -1.0):
            x, y = sign * np.linspace(1.0, 2.0, n), np.linspace(-1.0, 1.0, 4)
            assert kernel(x, y) == func(x, y), (body, n, sign)
