"""``for ... else`` / ``while ... else`` (frontend/loop_else.py): the block after a loop that ran
to its end, a nested loop's else with ``continue`` then ``break`` (the "break out of two loops"
idiom), and an else after a loop without breaks; against the undecorated function."""

from __future__ import annotations

import numpy as np
from kernel_checks import check_calls


def first_duplicate(x):
    found = -1
    for i in range(x.shape[0]):
        for j in range(i):
            if x[j] == x[i]:
                found = i
                break
        else:
            continue
        break
    return found


def sum_below_or_flag(x, t):
    i = 0
    s = 0.0
    while i < x.shape[0]:
        if x[i] > t:
            break
        s += x[i]
        i += 1
    else:
        s = -1.0
    return s, i


def doubled_total(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    else:
        s *= 2
    return s


def test_loop_else_runs_where_no_break_of_its_own_ran():
    check_calls(first_duplicate, [(np.array([1, 2, 3]),), (np.array([1, 2, 1, 2]),), (np.zeros(0, np.int64),)],
                "python")
    check_calls(sum_below_or_flag, [(np.array([1.0, 2.0]), 1.5), (np.array([1.0, 2.0]), 5.0), (np.zeros(0), 0.0)],
                "python")
    check_calls(doubled_total, [(np.array([1.0, 2.0]),), (np.zeros(0),)], "python")
