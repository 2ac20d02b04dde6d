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
