"""Affine subscripts proven negative at every iteration count from the end, as NumPy counts them.

npbench's durbin (pythran version) reverses a view with ``B[i] = A[-1 - i]``; polyfuse refused
the call (``ArgumentError``: the access ran below 0).  Each kernel here is compared with the
undecorated function on both targets.  A subscript negative at only some iterations is refused
per call (NumPy's wrap is not affine there) unless the read surely runs below 0 (fe50,
frontend/negative_wrap.py: ``r[i - 2]`` over ``range(n)``, unguarded, reads Python's element).
"""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse.errors import ArgumentError


def flip(A):
    B = np.empty_like(A)
    for i in range(B.shape[0]):
        B[i] = A[-1 - i]
    return B


def k_durbin_flip(r):  # npbench durbin's helper on a growing view r[:k]
    y = np.zeros_like(r)
    for k in range(1, r.shape[0]):
        y[:k] += 0.5 * flip(r[:k])
    return y


def k_reverse(r):
    y = np.zeros_like(r)
    for i in range(r.shape[0]):
        y[i] = r[-1 - i]
    return y


def k_from_end(r, n):
    y = np.zeros_like(r)
    for i in range(n):
        y[i] = r[i - n] + 1.0
    return y


def k_store_and_2d(A, y):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            y[-1 - j] += A[-1 - i, -1 - j] * (i + 1)


def k_mixed_sign(r):
    y = np.zeros_like(r)
    for i in range(r.shape[0]):
        y[i] = r[i - 2]  # negative only for i < 2: Python wraps, so does polyfuse (negative_wrap)
    return y


def k_mixed_sign_guarded(r):
    y = np.zeros_like(r)
    for i in range(r.shape[0]):
        if i != 3:  # a test of i: the read may not run below 0, and is left as written
            y[i] = r[i - 2]
    return y


CASES = [
    (k_durbin_flip, lambda: (np.arange(1.0, 8.0),)),
    (k_reverse, lambda: (np.arange(6.0),)),
    (k_from_end, lambda: (np.arange(7.0), 4)),
    (k_from_end, lambda: (np.arange(7.0), 7)),
    (k_store_and_2d, lambda: (np.arange(12.0).reshape(3, 4), np.zeros(4))),
    (k_mixed_sign, lambda: (np.arange(6.0),)),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_wrapped_like_numpy(fn, make, target):
    want_args, got_args = make(), make()
    want = fn(*want_args)
    got = polyfuse.kernel(fn, target=target, verify=True)(*got_args)
    if want is not None:
        np.testing.assert_array_equal(got, want)
    for w, g in zip(want_args, got_args):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)


def test_past_the_front_is_refused():
    with pytest.raises(ArgumentError, match="out-of-bounds"):
        polyfuse.kernel(k_from_end)(np.arange(3.0), 5)  # r[-5] of 3 elements: NumPy's IndexError


def test_mixed_sign_is_refused_not_wrapped():
    with pytest.raises(ArgumentError, match="out-of-bounds"):
        polyfuse.kernel(k_mixed_sign_guarded)(np.arange(6.0))


def moving_average(x, w):
    c = np.cumsum(x)
    out = c[w - 1:].copy()
    out[1:] -= c[:-w]
    return out / w


def tail_and_head(x, k):
    return x[-k:] * 2, x[:-k - 1], x[-k]


@pytest.mark.parametrize("fn, args", [
    (moving_average, (np.arange(10.0) ** 1.5, 3)), (moving_average, (np.arange(5.0), 5)),
    (moving_average, (np.arange(6), 1)),
    (tail_and_head, (np.arange(10.0), 3)), (tail_and_head, (np.arange(4.0), 4)),
], ids=lambda a: getattr(a, "__name__", ""))
@pytest.mark.parametrize("target", ["python", "cpu"])
def test_bounds_counted_from_the_end_by_an_argument(fn, args, target):
    """``x[:-w]``, ``x[-k:]``, ``x[-k]`` with ``w``, ``k`` integer arguments: counted from the end
    as NumPy counts a negative bound, ``w >= 1`` assumed and checked per call."""
    got, want = polyfuse.kernel(fn, target=target)(*args), fn(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def test_a_bound_counted_from_the_end_by_zero_is_refused_at_the_call():
    """``x[:-0]`` is empty and ``x[-0:]`` all of ``x`` in NumPy: a call with ``w = 0`` breaks the
    assumption ``w >= 1`` and is refused, never a wrong slice."""
    kernel = polyfuse.kernel(moving_average, target="python")
    with pytest.raises(polyfuse.ArgumentError):
        kernel(np.arange(5.0), 0)
