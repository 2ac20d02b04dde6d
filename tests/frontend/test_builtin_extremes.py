"""``max(1, n)``, ``min(a, b)``, ``abs(d)`` of scalars of one type meeting arrays in NumPy
statements: the value is one of the arguments, so its type is theirs (a Python int for sizes),
which the NumPy lowering needs for the array's dtype (frontend/arrays.py: scalar_call_type)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse


def share(x):
    c = x * 2.0
    return c / max(1, x.shape[0])


def clipped_window(x, k):
    m = min(k, x.shape[0])
    return x[:m] * m


def spread(x, a, b):
    return x * abs(a - b)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (share, (np.ones(3),)), (share, (np.ones(0),)), (share, (np.arange(4, dtype=np.float32),)),
    (clipped_window, (np.arange(5.0), 3)), (clipped_window, (np.arange(5.0), 9)),
    (spread, (np.arange(3, dtype=np.int32), 2, 7)),
])
def test_builtin_extremes_of_one_type(func, args, target):
    assert_same_result(func(*args), polyfuse.kernel(func, target=target)(*args))


def norm_max(x):
    return x / max(1.0, np.max(x))


def clip_scale(x, s):
    m = max(s, np.abs(x).max())
    return x / m, x - min(0.0, x.min()), x / (2 * m + 1), np.maximum(x, m - 1.0), np.copysign(m, x)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (norm_max, (np.arange(4.0) * 0.1,)), (norm_max, (np.arange(4, dtype=np.int64),)),
    (clip_scale, (np.arange(-2, 3, dtype=np.float32) * np.float32(0.1), 0.7)),
    (clip_scale, (np.arange(-2, 3, dtype=np.float32), 0.7)),
])
def test_builtin_extremes_of_two_types(func, args, target):
    """max(1.0, np.max(x)) is a Python float or a NumPy scalar, picked by value: an array meeting it
    has one dtype either way here (float64, float32, and int64 divided; ufuncs too), each branch's values
    as NumPy's."""
    expected, got = func(*args), polyfuse.kernel(func, target=target)(*args)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,), got if isinstance(got, tuple) else (got,)):
        assert e.dtype == g.dtype
    assert_same_result(expected, got)


def shift_min_int(x):
    return x - min(0.0, x.min())  # float64 where 0.0 is picked, int64 where x.min() is


def power_of_choice(x, y):
    return x ** min(2, np.max(y))  # float64 either way, but NumPy's float power takes sqrt at 0.5


@pytest.mark.parametrize("func, args", [
    (shift_min_int, (np.arange(3, dtype=np.int64),)),
    (power_of_choice, (np.array([-0.0, 4.0, -np.inf]), np.array([0.5]))),
])
def test_builtin_extremes_of_two_dtypes_refused(func, args):
    with pytest.raises(polyfuse.UnsupportedError, match="cannot tell the dtype"):
        polyfuse.kernel(func, target="python")(*args)
