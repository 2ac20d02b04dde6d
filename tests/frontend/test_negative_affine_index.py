"""Affine subscripts proven negative at every iteration count from the end, as NumPy counts them.

npbench's durbin (pythran version) reverses a view with ``B[i] = A[-1 - i]``; polyfuse refused
the call (``ArgumentError``: the access ran below 0).  Each kernel here is compared with the
undecorated function on both targets.  A subscript negative at only some iterations is still
refused per call: NumPy's wrap is not affine there.
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
        y[i] = r[i - 2]  # negative only for i < 2: NumPy wraps, polyfuse refuses the call
    return y


CASES = [
    (k_durbin_flip, lambda: (np.arange(1.0, 8.0),)),
    (k_reverse, lambda: (np.arange(6.0),)),
    (k_from_end, lambda: (np.arange(7.0), 4)),
    (k_from_end, lambda: (np.arange(7.0), 7)),
    (k_store_and_2d, lambda: (np.arange(12.0).reshape(3, 4), np.zeros(4))),
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
        polyfuse.kernel(k_mixed_sign)(np.arange(6.0))
