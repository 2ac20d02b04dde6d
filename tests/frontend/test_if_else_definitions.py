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


def copy_in_kept_loop(x):
    # the break keeps the loop as written (frontend/opaque): r = s there took s's value but not
    # its kind, so where s still held the Python 1.0 the kernel returned np.float64(1.0) (cp48);
    # the copy's kind follows s's flag, private to the loop where s is (ty50)
    s = 1.0
    r = 0.5
    for i in range(x.shape[0]):
        if x[i] > 0:
            r = s
            break
        s = x[i] * 2.0
    return r


def choice_in_kept_loop(x):
    # a choice in a loop kept as written, copied: r has the kind of the operand chosen (the
    # region did not record the choice's kinds, so t looked NumPy's always: np.float64(2.0), ty50)
    r = 0.0
    for i in range(x.shape[0]):
        if x[i] > 9:
            break
        t = x[i] if x[i] > 0 else 2.0
        r = t
    return r


def loop_runs_before_read(x):
    # r = x[i] + j in a loop inside the branch: no old value needed where the loop surely runs
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0:
            for j in range(2):
                r = x[i] + j
            out[i] = r
    return out


def loop_may_not_run(x):
    # the same loop of (i + 1) % 3 iterations: where it runs none, r is the value an earlier
    # run of the branch left, which the writes where x[i] <= 0 dropped (gave 0, cp48); unbound
    # where no earlier run assigned it (UnboundLocalError)
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0:
            for j in range((i + 1) % 3):
                r = x[i] + j
            out[i] = r
    return out


def test_a_loop_that_may_not_run_keeps_the_old_value():
    """Python's UnboundLocalError where no earlier run assigned ``r`` (frontend/unbound_locals.py)."""
    kernel = polyfuse.kernel(loop_may_not_run, target="python")
    x = np.array([1.0, 2.0, -1.0, 5.0, -3.0, 1.0])
    np.testing.assert_array_equal(kernel(x), loop_may_not_run(x))
    with pytest.raises(UnboundLocalError, match="cannot access local variable 'r' where it is not associated"):
        kernel(np.array([-1.0, -2.0, 1.0]))


@pytest.mark.parametrize("fn", [both_branches, reduction_test, loop_in_branch, elif_chain, nested_keeps_old,
                                nested_old_dead, nested_scratch_reused, copy_in_kept_loop,
                                choice_in_kept_loop, loop_runs_before_read])
def test_if_else_assignments_match_python(fn):
    kernel = polyfuse.kernel(fn, target="python", verify=True)
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(6) for _ in range(4)]
    xs.append(-np.abs(rng.standard_normal(6)))  # every test false: the else branches' values
    xs.append(np.abs(xs[0]))  # every test true: the first iteration's values
    for x in xs:
        actual, expected = kernel(x.copy()), fn(x.copy())
        assert type(actual) is type(expected), (type(actual), type(expected))
        np.testing.assert_array_equal(actual, expected)
