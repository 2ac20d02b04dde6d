"""fe39's forms from numba-style code (tests/corpus/batch_fe39): buffers swapped after a loop
over one of them (``for v in out: ...`` then ``out, tmp = tmp, out``, an LSD radix sort), each
kernel against the undecorated function."""

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
