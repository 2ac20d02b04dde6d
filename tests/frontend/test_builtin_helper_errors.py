"""An error inside a helper polyfuse writes itself (frontend/builtin_helpers.py: sum, math.isclose,
np.interp, np.searchsorted, np.polyval, np.sort, np.median) points at the user's call, names it as
written and says what the call supports; never builtin_helpers.py's own lines."""

from __future__ import annotations

import math

import numpy as np
import pytest

import polyfuse


def isclose_arrays(a, b):
    return math.isclose(a, b)


def isclose_keywords(a, b):
    return math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-9)


def sort_complex(x):
    return np.sort(x)


def median_complex(x):
    return np.median(x)


def sum_local_rows(n):
    B = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            B[i, j] = i * 10 + j
    return sum(B)


def sum_local_like(A):
    B = np.ones_like(A)
    return sum(B, 2)


def sum_local_int(n):
    B = np.ones((n, 3), dtype=np.int32)
    return sum(B)


def sum_local_empty(n):
    B = np.zeros((n, 2))
    return sum(B)


def interp_expression(v, xp, fp):
    return np.interp(v, xp * 2, fp)


def sort_expression(x):
    return np.sort(x * 2)


def sort_cube(T):
    return np.sort(T, axis=1)


def median_cube(T):
    return np.median(T, axis=1)


def nested_call(x):
    y = x + 1.0
    return np.sort(y)[0] + np.median(x)


X = np.arange(5.0)


@pytest.mark.parametrize("fn, args, construct", [
    (isclose_arrays, (X, X), r"math\.isclose\(a, b\): polyfuse supports .* of real scalars"),
    (isclose_keywords, (X, 1.0), r"math\.isclose\(a, b, rel_tol=1e-3, abs_tol=1e-9\): polyfuse supports"),
    (sort_complex, (X + 1j,), r"np\.sort\(x\): polyfuse supports np\.sort\(a\) of a 1-d array of real numbers"),
    (median_complex, (X + 1j,), r"np\.median\(x\): polyfuse supports"),
    (sort_cube, (np.ones((2, 3, 2, 2)),), r"sort\(\) is not supported.*of a 1-d or 2-d array"),
    (interp_expression, (X, X, X), r"np\.interp\(\) here: .*not of an array expression"),
    (median_cube, (np.ones((2, 3, 2, 2)),), r"median\(\) is not supported.*np\.median\(a, axis=\) of a 1-d or 2-d"),
], ids=lambda a: getattr(a, "__name__", ""))
def test_helper_errors_point_at_the_users_call(fn, args, construct):
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_builtin_helper_errors.py:\d+:\d+: " + construct) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert "builtin_helpers.py" not in str(info.value)
    line = fn.__code__.co_firstlineno + 1
    assert info.value.span is not None and info.value.span.line == line


def test_sort_of_an_expression_compiles():
    """np.sort of a 1-d array expression (refused before fe21): its value computed into a local."""
    x = np.array([3.0, -1.0, np.nan, 2.0])
    np.testing.assert_array_equal(polyfuse.kernel(sort_expression, target="python")(x), sort_expression(x))


def test_helpers_still_compile():
    got = polyfuse.kernel(nested_call, target="python")(np.array([3.0, 1.0, 2.0]))
    assert got == nested_call(np.array([3.0, 1.0, 2.0]))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [(sum_local_rows, (3,)), (sum_local_like, (np.ones((2, 3, 2)),)),
                                      (sum_local_int, (4,))], ids=lambda a: getattr(a, "__name__", ""))
def test_sum_of_a_local_array_adds_its_rows(fn, args, target):
    """sum(B) of a local of two or more axes (np.zeros((n, m)), np.ones_like(A)): its rows added,
    as of an argument (it was the one-element helper, refused with an internal name)."""
    got, want = polyfuse.kernel(fn, target=target)(*args), fn(*args)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_sum_of_an_empty_local_is_refused_at_the_call():
    """Python's sum of no rows is 0, not an array: the rows helper reads B[0], out of bounds."""
    assert sum_local_empty(0) == 0
    with pytest.raises(polyfuse.ArgumentError, match=r"B\[0"):
        polyfuse.kernel(sum_local_empty, target="python")(0)
