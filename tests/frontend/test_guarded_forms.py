"""Forms whose later parts Python may not evaluate: an array returned from inside an if (the
early returns made one), 'a and b' with a reduction in b, an if on an integer's truth
(if len(x):), a returned 'a if c else b' (each branch's Python type, a bool staying a bool), each compiled so that only the path Python takes runs and checks its sizes."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def minmax_scale(x):
    lo = x.min()
    hi = x.max()
    if hi == lo:
        return np.zeros_like(x)
    return (x - lo) / (hi - lo)


def nested_returns(x, k):
    if k > 2:
        if x[0] > 0:
            return x + 1
        return x - 1
    elif k > 0:
        return x * k
    return np.ones_like(x)


def nonempty_and(x):
    return x.shape[0] > 0 and x.max() > 0.5


def max_if_len(x):
    return np.max(x) if len(x) else -1.0


def truth_of_size(x, n):
    s = 0.0
    if n:
        s = x[:n].sum()
    if not x.shape[0]:
        s = -1.0
    return s


def max_unless_empty(x):
    if x.shape[0] == 0:
        r = 0.0
    else:
        r = x.max()
    return r


def bool_or_false(x):
    return x[0] > 0 if x.shape[0] > 0 else False


def ratio_or_weak(x):
    return x[0] / x[1] if x[1] > 0 else 100.0


def other_extents(x):
    """One array of extent 1 if x.shape[0] < 3 else x.shape[0], which the call computes."""
    if x.shape[0] < 3:
        return np.zeros(1)
    return x * 2


RNG = np.random.default_rng(7)
CASES = [(minmax_scale, (RNG.standard_normal(6),)), (minmax_scale, (np.ones(3),)),
         *[(nested_returns, (RNG.standard_normal(4), k)) for k in (0, 1, 3)],
         (nonempty_and, (RNG.random(5),)), (nonempty_and, (np.zeros(0),)),
         (max_if_len, (RNG.random(4),)), (max_if_len, (np.zeros(0),)),
         (truth_of_size, (RNG.random(4), 0)), (truth_of_size, (RNG.random(4), 3)), (truth_of_size, (np.zeros(0), 0)),
         (max_unless_empty, (RNG.random(3),)), (max_unless_empty, (np.zeros(0),)),
         (bool_or_false, (np.array([1.0]),)), (bool_or_false, (np.zeros(0),)),
         (ratio_or_weak, (np.array([1.0, 2.0]),)), (ratio_or_weak, (np.array([1.0, -2.0]),)),
         (other_extents, (RNG.standard_normal(2),)), (other_extents, (RNG.standard_normal(4),))]


KERNELS = {fn: polyfuse.kernel(fn, target="python", verify=True) for fn, _ in CASES}


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_guarded_forms_match_python(fn, args):
    got = KERNELS[fn](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    want = fn(*args)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


def views_returned(x):
    if x[0] > 0:
        return x
    return x[::-1]


def other_extents_of_the_data(x):
    if x[0] > 0:
        return np.zeros(1)
    return x * 2


@pytest.mark.parametrize("fn", [views_returned, other_extents_of_the_data])
def test_early_returned_views_and_other_extents_are_refused(fn):
    """Not one array after the if: refused when compiled (never an ArgumentError at a call that
    Python runs)."""
    with pytest.raises(polyfuse.UnsupportedError, match="returned from the branches of an if"):
        polyfuse.kernel(fn, target="python")(RNG.standard_normal(4))


def hist_in_range(x, hist):
    for i in range(x.shape[0]):
        b = x[i]
        if b >= 0 and b < hist.shape[0]:
            hist[b] += 1
    return hist


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_guarded_store_through_a_run_time_subscript_touches_no_element_where_it_fails(target):
    # the store is if-converted (its old value written back where the test fails) at a subscript
    # of 0 there: of an empty hist no element, which raised IndexError where Python never stores
    # (cp41: a count-then-allocate's 'if k > 0: out[-1] = 5' of k = 0 too)
    kernel = polyfuse.kernel(hist_in_range, target=target)
    x = np.array([0, 3, -1, 1, 1])
    for bins in (0, 2):
        np.testing.assert_array_equal(kernel(x, np.zeros(bins, np.int64)), hist_in_range(x, np.zeros(bins, np.int64)))
