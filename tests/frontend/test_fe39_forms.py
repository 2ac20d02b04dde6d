"""fe39's forms from numba-style code (tests/corpus/batch_fe39): buffers swapped after a loop
over one of them (``for v in out: ...`` then ``out, tmp = tmp, out``, an LSD radix sort) and
locals that start as None (frontend/none_locals.py), each kernel against the undecorated
function."""

import numpy as np
import pytest
from kernel_checks import check_calls

import polyfuse


def digit_passes(a):
    out = a.copy()
    tmp = np.empty_like(a)
    for shift in range(0, 8, 4):
        count = np.zeros(17, dtype=np.int64)
        for v in out:
            count[((v >> shift) & 15) + 1] += 1
        for k in range(16):
            count[k + 1] += count[k]
        for v in out:  # the loop's element is a number, read only inside: the swap below copies
            d = (v >> shift) & 15
            tmp[count[d]] = v
            count[d] += 1
        out, tmp = tmp, out
    return out


def swap_inside_the_loop_over(a, n):
    out = a.copy()
    tmp = np.zeros_like(a)
    s = 0.0
    for v in out:  # iterates over the first array to the end in Python, whatever out names
        s += v
        tmp[0] = s
        out, tmp = tmp, out
    return s


def test_buffers_swapped_after_a_loop_over_one():
    check_calls(digit_passes, [(np.array([200, 3, 17, 255, 16, 0]),), (np.zeros(0, np.int64),)], "cpu")


def test_a_swap_inside_the_loop_over_the_buffer_is_refused():
    with pytest.raises(polyfuse.UnsupportedError):
        polyfuse.kernel(swap_inside_the_loop_over, target="python")(np.arange(4.0), 2)


def first_above(x, t):
    first = None
    for i in range(x.shape[0]):
        if first is None and x[i] > t:
            first = i
    if first is None:
        return -1
    return first


def flag_or_none(x):
    found = None
    for i in range(x.shape[0]):
        if found is None or x[i] > 0:
            found = x[i] > 0.5
    return False if found is None else found


def test_locals_that_start_as_none():
    # the early return and the and/or tests guard every read; the None becomes the weakest number
    # (False), which takes the type of the values bound later (an int here, a NumPy bool there)
    rng = np.random.default_rng(39)
    calls = [(rng.random(n),) for n in (0, 1, 5)]
    check_calls(first_above, [(x, 0.5) for (x,) in calls], "cpu")
    check_calls(flag_or_none, calls, "cpu")


def none_read_unguarded(x):
    best = None
    for i in range(x.shape[0]):
        best = x[i]
    return best  # None where x is empty


def test_a_none_local_read_where_it_may_be_none_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="'best' set to None, then read where it may still be None"):
        polyfuse.kernel(none_read_unguarded, target="cpu")(np.ones(3))
