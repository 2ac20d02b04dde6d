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


# ---- the first / last selected element: p[0], p[-1], np.nonzero(c)[0][0], np.flatnonzero(c)[-1] ----
def first_selected(x):
    p = x[x > 0]
    return p[0]


def last_selected_doubled(x):
    p = x[x > 0]
    return p[-1] * 2


def first_where(x):
    return np.where(x > 0)[0][0]


def last_nonzero(x):
    return np.nonzero(x)[0][-1]


def value_at_first(x):
    i = (x > 1).nonzero()[0][0]
    return x[i]


def first_flat(x, t):
    return np.flatnonzero(x >= t)[0] + 1


def first_in_if(x):
    r = -1
    if np.any(x):
        r = np.flatnonzero(x)[0]
    return r


def last_per_row(X):
    out = np.zeros(X.shape[0])
    for i in range(X.shape[0]):
        p = X[i][X[i] > 0]
        out[i] = p[-1]
    return out


VECTORS = [np.array([-1.0, 2.0, -3.0, 0.5, 0.0]), np.array([-1.0, -2.0]), np.zeros(0), np.array([np.nan, 3.0, np.nan])]
ENDS = [(fn, x) for fn in (first_selected, last_selected_doubled, first_where, last_nonzero, value_at_first,
                           first_in_if) for x in VECTORS]
ENDS += [(first_flat, x) for x in VECTORS] + [(last_per_row, np.array([[1.0, 2.0], [3.0, -1.0]])),
                                              (last_per_row, np.array([[1.0, 2.0], [-3.0, -1.0]]))]


def _end(fn, args):
    try:
        value = fn(*args)
    except IndexError as exc:
        return IndexError, str(exc)
    return type(value), repr(value)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, x", ENDS, ids=[f"{fn.__name__}{k}" for k, (fn, _) in enumerate(ENDS)])
def test_first_and_last_selected_elements_as_numpy(fn, x, target):
    args = (x, 0.5) if fn is first_flat else (x,)
    assert _end(polyfuse.kernel(fn, target=target, verify=True), args) == _end(fn, args)


def guarded_first(x):
    p = x[x > 0]
    return p[0] if len(p) > 0 else -1.0


def guarded_max(x):
    return np.any(x > 0) and np.max(x[x > 0]) > 1


def test_checks_where_python_may_not_evaluate_them_run_only_there():
    """An IndexError (ValueError) raised where Python does not evaluate the read would be a
    wrong outcome: a branch of a conditional expression, a later operand of and/or, is an if
    statement's branch, whose check runs only where the branch does."""
    for fn in (guarded_first, guarded_max):
        kernel = polyfuse.kernel(fn)
        for x in VECTORS + [np.array([-1.0])]:
            assert _end(kernel, (x,)) == _end(fn, (x,))
