"""A scalar assigned first in both branches of a data-dependent if/else (frontend/control.py
``assigns_first``): the then branch's write needs no old value, the else branch's keeps it; under
an outer data-dependent if both keep the old value (where the outer test fails neither runs),
unless the old value is dead there: then only the then branch may drop it."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def both_branches(x):
    if x[0] > 0:
        r = x[1]
    else:
        r = 0.0
    return r


def reduction_test(x):
    return np.sum(x) if np.any(x > 0) else 0.0


def loop_in_branch(x):
    if x[0] > 0:
        r = 0.0
        for i in range(x.shape[0]):
            r += x[i]
    else:
        r = 1.0
    return r


def elif_chain(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            r = 1.0
        elif x[i] > -0.2:
            r = x[i] * 2
        else:
            r = -1.0
        out[i] = r
    return out


def nested_keeps_old(x):
    r = 5.0
    if x[0] > 0:
        if x[1] > 0:
            r = x[2]
        else:
            r = -x[2]
    return r


def nested_old_dead(x):
    # r's old value is dead at the outer if, so the inner then branch needs none; the inner
    # else branch still must keep the then branch's value (both wrote 0 there before: wrong)
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0:
            if x[i] > 0.5:
                r = 2.0 * x[i]
            else:
                r = 3.0
            out[i] = r
    return out


def nested_scratch_reused(x):
    # frontend/branch_locals renames r inside the outer if; the inner if's decision must see
    # the renamed r live after it (it was refused: "name 'r_2' is not an argument ...")
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0:
            if x[i] > 0.5:
                r = 2.0 * x[i]
            else:
                r = 3.0
            out[i] = r
            r = 5.0
            out[i] += r
        r = x[i] - 1.0
        out[i] += r
    return out


@pytest.mark.parametrize("fn", [both_branches, reduction_test, loop_in_branch, elif_chain, nested_keeps_old,
                                nested_old_dead, nested_scratch_reused])
def test_if_else_assignments_match_python(fn):
    kernel = polyfuse.kernel(fn, target="python", verify=True)
    rng = np.random.default_rng(3)
    for _ in range(4):
        x = rng.standard_normal(6)
        np.testing.assert_array_equal(kernel(x.copy()), fn(x.copy()))
    x = -np.abs(rng.standard_normal(6))  # every test false: the else branches' values
    np.testing.assert_array_equal(kernel(x.copy()), fn(x.copy()))
