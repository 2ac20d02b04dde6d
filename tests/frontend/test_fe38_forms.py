"""fe38's forms: time stepping whose buffers are bound again by name each step (a fresh
``u_next = np.empty_like(u)`` then ``u_prev = u; u = u_next``, the tuple form, a temporary
``tmp``), compiled as a rotation of distinct buffers (frontend/array_swaps.py ``_rotation``), and
np.array of a list comprehension read inside a larger statement (``y[:] = np.array([...])``,
frontend/comprehension_hoist.py), and 0-d array arguments (``c[()] += x[i]``); each kernel on the cpu target against the undecorated function,
arguments left as it leaves them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from kernel_checks import check_calls

import polyfuse


def wave_fresh(u, u_prev, c, steps):
    # the arguments rebound (their copies rotate), a fresh array each step, the sequential form
    n = u.shape[0]
    for _ in range(steps):
        u_next = np.empty_like(u)
        for i in range(1, n - 1):
            u_next[i] = 2 * u[i] - u_prev[i] + c * (u[i + 1] - 2 * u[i] + u[i - 1])
        u_next[0] = 0.0
        u_next[n - 1] = 0.0
        u_prev = u
        u = u_next
    return u


def wave_tuple_zeros(u0, u1, c, steps):
    # the tuple form; np.zeros_like's zeros reach the buffer it now names (the edges stay 0)
    u_prev = u0.copy()
    u = u1.copy()
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return u + 0.5 * u_prev


def three_levels_tmp(u0, steps):
    # three buffers reused, rotated through a temporary
    a = u0.copy()
    b = np.full_like(u0, 0.5)
    c = np.zeros_like(u0)
    for _ in range(steps):
        c[:] = a + 0.25 * b
        tmp = a
        a = b
        b = c
        c = tmp
    return a - b


CALLS = [(np.linspace(0.0, 1.0, 7) ** 2, np.linspace(0.0, 0.5, 7), 0.1, 3),
         (np.array([1.0, 2.0, 0.5]), np.array([0.5, 0.5, 1.0]), 0.2, 1),
         (np.array([1.0, 2.0]), np.array([0.0, 1.0]), 0.3, 0)]


@pytest.mark.parametrize("fn", [wave_fresh, wave_tuple_zeros])
def test_fresh_buffer_each_step_rotates(fn):
    check_calls(fn, CALLS, "cpu")


def test_buffers_rotated_through_a_temporary():
    check_calls(three_levels_tmp, [(np.arange(5.0), 3), (np.ones(1), 0)], "cpu")


def kept_alias(u, steps):
    # u_prev and u name one array after the move: no rotation, refused as before
    u = u.copy()
    u_prev = np.zeros_like(u)
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[:] = u + u_prev
        u_prev = u
        u = u_next
        u_prev[0] = 1.0
    return u, u_next


def test_a_buffer_read_after_the_loop_is_no_rotation():
    with pytest.raises(polyfuse.UnsupportedError, match="bound again"):
        polyfuse.kernel(kept_alias, target="cpu")(np.ones(3), 2)


def wave(i):
    return math.sin(i) * 2.0


def comprehension_values(y, x, n):
    # stored into a slice (a user's helper, rows of a loop, a triangle of varying length), added
    # in place, reduced and scaled in one expression
    y[0, :] = np.array([wave(i) for i in range(y.shape[1])])
    for r in range(1, y.shape[0]):
        y[r, :r] = np.array([x[j] * r for j in range(r)])
    y[-1] += np.array([float(j) for j in range(y.shape[1])])
    s = np.array([wave(i) for i in range(n)]).sum()
    return 2 * np.array([x[i] + s for i in range(n)]) - x[:n]


def test_comprehension_arrays_inside_statements():
    check_calls(comprehension_values, [(np.zeros((4, 4)), np.arange(5.0), 3), (np.ones((1, 2)), np.ones(1), 0)],
                "cpu")


def zero_d_accumulate(c, x, out):
    # c[()] written and read (its dtype in an array expression too), c[...] and c += of a second one;
    # reductions of c: its element in NumPy's dtype (an int32's sum int64, an int's mean float64)
    for i in range(x.shape[0]):
        c[()] += x[i]
    out[...] = c[()] * 2
    out += 1
    return x + c[()], c[()], c * 2, c.sum(), np.mean(c), c.any(), np.amax(out)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_zero_d_array_arguments(dtype):
    x = np.arange(4).astype(dtype)
    check_calls(zero_d_accumulate, [(np.array(1, dtype=dtype), x, np.array(0.5)),
                                    (np.array(2, dtype=dtype), x[:0], np.array(-1.0))], "cpu")


def zero_d_misuse(c):
    return c.std()


def test_zero_d_array_other_uses_are_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="c.std"):
        polyfuse.kernel(zero_d_misuse, target="cpu")(np.array(1.0))


def test_zero_d_view_is_written_through():
    # a 0-d view of a larger array (a[1, ...]): the store reaches a, as NumPy's does
    k = polyfuse.kernel(zero_d_accumulate, target="cpu")
    a, b = np.arange(3.0), np.arange(3.0)
    k(a[1, ...], np.arange(4.0), np.array(0.0))
    zero_d_accumulate(b[1, ...], np.arange(4.0), np.array(0.0))
    np.testing.assert_array_equal(a, b)
