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
    return sum(B)


def nested_call(x):
    y = x + 1.0
    return np.sort(y)[0] + np.median(x)


X = np.arange(5.0)


@pytest.mark.parametrize("fn, args, construct", [
    (isclose_arrays, (X, X), r"math\.isclose\(a, b\): polyfuse supports .* of real scalars"),
    (isclose_keywords, (X, 1.0), r"math\.isclose\(a, b, rel_tol=1e-3, abs_tol=1e-9\): polyfuse supports"),
    (sort_complex, (X + 1j,), r"np\.sort\(x\): polyfuse supports np\.sort\(a\) of a 1-d array of real numbers"),
    (median_complex, (X + 1j,), r"np\.median\(x\): polyfuse supports"),
    (sum_local_rows, (3,), r"sum\(B\): polyfuse supports"),
], ids=lambda a: getattr(a, "__name__", ""))
def test_helper_errors_point_at_the_users_call(fn, args, construct):
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_builtin_helper_errors.py:\d+:\d+: " + construct) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert "builtin_helpers.py" not in str(info.value)
    line = fn.__code__.co_firstlineno + (2 if fn is sum_local_rows else 1)
    assert info.value.span is not None and info.value.span.line == line


def test_helpers_still_compile():
    got = polyfuse.kernel(nested_call, target="python")(np.array([3.0, 1.0, 2.0]))
    assert got == nested_call(np.array([3.0, 1.0, 2.0]))
