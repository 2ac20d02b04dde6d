"""max/min of a boolean-mask selection (frontend/arrays.py: ``Lowering.masked_extreme``):
``x[mask].max()``, ``np.min(p)`` of ``p = x[mask]`` bound just before, ``initial=``: the reduction
of ``np.where(mask, x, lowest)``; nothing selected is NumPy's ValueError, raised where the
statement runs.  Each kernel is compared with the undecorated function on the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def bound_max(x):
    p = x[x > 0]
    return p.max()


def called_min(x):
    return np.min(x[x > 0.5])


def min_with_initial(x):
    return x[x > 0.5].min(initial=10.0)


def below_max(x, t):
    p = x[x < t]
    return np.max(p)


CASES = [
    (bound_max, (np.array([1.0, -2.0, 3.0, 0.5]),)),
    (bound_max, (np.array([-1.0, np.nan, 2.0]),)),  # NaN not selected: 2.0
    (bound_max, (np.array([1.0, np.nan, 0.0]),)),  # np.nan > 0 is False
    (bound_max, (np.array([-np.inf, np.inf]),)),
    (called_min, (np.array([1.0, -2.0, 3.0, 0.6], dtype=np.float32),)),
    (min_with_initial, (np.zeros(3),)),
    (min_with_initial, (np.array([3.0, 11.0]),)),
    (below_max, (np.array([5, -3, 7, -9], dtype=np.int8), 0)),
    (below_max, (np.array([-128, 7], dtype=np.int8), 0)),
    (below_max, (np.array([5, 1, 7], dtype=np.uint16), 6)),
]


def _outcome(fn, args):
    try:
        value = fn(*args)
    except ValueError as exc:
        return ValueError, str(exc)
    return type(value), repr(value)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}{k}" for k, (fn, _) in enumerate(CASES)])
def test_extremes_of_selections_as_numpy(fn, args, target):
    assert _outcome(polyfuse.kernel(fn, target=target, verify=True), args) == _outcome(fn, args)


@pytest.mark.parametrize("fn, args", [(bound_max, (np.array([-1.0, -2.0]),)), (bound_max, (np.zeros(0),)),
                                      (below_max, (np.array([5, 7]), 0))])
def test_nothing_selected_is_numpys_value_error(fn, args):
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum") as info:
        polyfuse.kernel(fn)(*args)
    assert not isinstance(info.value, polyfuse.ArgumentError)
    with pytest.raises(ValueError, match="zero-size array"):
        fn(*args)
