"""Slice bounds proven against the tests of enclosing ifs (frontend/arrays.py ``if_facts``,
extent_facts ``decide(facts=...)``): ``x[k - 2:k]`` under ``if k > 1:`` is a plain slice, not a
refusal; compared with the undecorated function. Facts that do not suffice, and tests of
arguments the kernel assigns, still refuse."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import UnsupportedError

TARGETS = ("python", "cpu")


def trailing_sums(x):
    out = np.zeros(x.shape[0])
    for k in range(x.shape[0]):
        if k > 1:
            out[k] = np.sum(x[k - 2:k])
        else:
            out[k] = x[k]
    return out


def guarded_windows(x, m):
    out = np.zeros(x.shape[0])
    for k in range(x.shape[0]):
        if k < 2:
            out[k] = -1.0
        else:  # k >= 2 here
            out[k] = np.max(x[k - 2:k + 1])
        if 0 < k - m < 3 and k >= m:  # a chained comparison and an and
            out[k] += np.sum(x[k - m:])
    return out


def rows_above(A):
    out = np.zeros(A.shape)
    for i in range(A.shape[0]):
        if i >= 1:
            out[i, :] = A[i - 1, :] + A[i, :]
            out[i, 1:] += A[i - 1:i, :-1].sum(axis=0)
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_a_slice_under_an_if_that_keeps_it_inside(target, n):
    x = np.random.default_rng(0).random(n)
    np.testing.assert_allclose(polyfuse.kernel(trailing_sums, target=target, verify=True)(x), trailing_sums(x),
                               rtol=1e-15)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("m", [0, 1, 4, 9])
def test_else_branches_and_chained_tests(target, m):
    x = np.random.default_rng(1).random(8)
    np.testing.assert_allclose(polyfuse.kernel(guarded_windows, target=target, verify=True)(x, m),
                               guarded_windows(x, m), rtol=1e-15)


@pytest.mark.parametrize("target", TARGETS)
def test_rows_above_a_guarded_row(target):
    A = np.random.default_rng(2).random((5, 4))
    np.testing.assert_allclose(polyfuse.kernel(rows_above, target=target, verify=True)(A), rows_above(A),
                               rtol=1e-15)


def too_weak(x, out):
    for k in range(x.shape[0]):
        if k > 0:
            out[k] = np.sum(x[k - 2:k])


def assigned_argument(x, out, m):
    m = m - 1
    for k in range(x.shape[0]):
        if k > m:
            out[k] = np.sum(x[k - m - 1:k])
            m = m + 0


def test_a_fact_that_does_not_keep_the_bound_non_negative_still_refuses():
    with pytest.raises(UnsupportedError, match="may be negative"):
        polyfuse.kernel(too_weak, target="python")(np.ones(4), np.zeros(4))


def test_a_test_of_an_argument_the_kernel_assigns_proves_nothing():
    with pytest.raises(UnsupportedError, match="may be negative"):
        polyfuse.kernel(assigned_argument, target="python")(np.ones(4), np.zeros(4), 1)
