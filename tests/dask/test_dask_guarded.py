"""Reductions whose loop runs over the blocks' ghost zones (after or inside a time loop, or
reading with an offset): each block runs the update on its own chunk only
(polyfuse.dask.guard).  Integer sums make a double-counted or lost update visible; every result
against the kernel on the whole numpy arrays and the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import polyfuse  # noqa: E402
import polyfuse.dask as pfd  # noqa: E402


def weighted_sum_inside(A, B, steps):
    n = A.shape[0]
    s = 0
    for t in range(steps):
        for i in range(1, n - 1):
            B[i] = A[i - 1] + A[i + 1] - A[i]
        for i in range(1, n - 1):
            A[i] = B[i]
            s += B[i] * (t + 1)
    return s


def heat_then_max(A, B, steps):
    n, m = A.shape
    for _t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                B[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                A[i, j] = B[i, j]
    top = -1.0
    for i in range(n):
        for j in range(m):
            top = max(top, A[i, j])
    return A, top


@polyfuse.kernel
def smooth_and_sum(A, B):
    n = A.shape[0]
    s = 0
    for i in range(1, n - 1):
        B[i] = A[i - 1] + A[i + 1]
    for i in range(n):
        s += B[i]
    return B, s


def _whole(fn, *args):
    """The kernel on copies of the whole numpy arrays, and the undecorated function."""
    copies = [[a.copy() if isinstance(a, np.ndarray) else a for a in args] for _ in range(2)]
    return polyfuse.kernel(fn)(*copies[0]), fn(*copies[1])


@pytest.mark.parametrize("chunks, where", [(9, "threads"), ((5, 11, 7, 17), "cluster")])
def test_integer_sum_inside_a_time_loop(chunks, where, request):
    A = np.random.default_rng(20).integers(-50, 50, size=40)
    kernel = polyfuse.kernel(weighted_sum_inside)
    parts = [da.from_array(A, chunks=chunks), da.from_array(A.copy(), chunks=chunks)]
    plan = pfd.explain(kernel, *parts, 4)
    assert plan.guarded and plan.exchanges[0].axes[0].left == 4
    expected, python = _whole(weighted_sum_inside, A, A.copy(), 4)
    assert expected == python
    result = kernel(*parts, 4)
    if where == "cluster":  # the guarded variant pickles as its source, like any kernel
        client = request.getfixturevalue("client")
        assert client.compute(result).result() == expected
    else:
        assert result.compute(scheduler="threads") == expected


def test_max_after_a_time_loop_split_along_both_axes():
    A = np.random.default_rng(21).random((30, 26))
    kernel = polyfuse.kernel(heat_then_max)
    parts = [da.from_array(A, chunks=(8, 7)), da.from_array(A.copy(), chunks=(8, 7))]
    plan = pfd.explain(kernel, *parts, 3)
    assert plan.guarded and len(plan.splits) == 2
    assert "runs on each block's own chunk only" in str(plan)
    expected, python = _whole(heat_then_max, A, A.copy(), 3)
    new_A, top = kernel(*parts, 3)
    np.testing.assert_array_equal(new_A.compute(scheduler="threads"), expected[0])
    assert top.compute(scheduler="threads") == expected[1] == python[1]


def test_decorated_kernel_summing_what_it_smoothed():
    """The sum's loop runs over the whole block, ghost zone included (the decorator's line is
    where inspect.getsource starts: the update is found by its line all the same)."""
    A, B = (np.random.default_rng(22).integers(-9, 9, size=23) for _ in range(2))
    parts = [da.from_array(A, chunks=6), da.from_array(B, chunks=6)]
    plan = pfd.explain(smooth_and_sum, *parts)
    assert plan.guarded and (plan.exchanges[0].axes[0].left, plan.exchanges[0].axes[0].right) == (1, 1)
    new_B, total = smooth_and_sum(*parts)
    expected, python = smooth_and_sum(A, B.copy()), smooth_and_sum.py_func(A, B.copy())
    np.testing.assert_array_equal(expected[0], python[0])
    assert expected[1] == python[1]
    np.testing.assert_array_equal(new_B.compute(scheduler="threads"), expected[0])
    assert total.compute(scheduler="threads") == expected[1]


def test_unguarded_reductions_stay_as_they_were():
    A = np.random.default_rng(23).integers(-9, 9, size=30)

    def total(A):
        s = 0
        for i in range(A.shape[0]):
            s += A[i]
        return s

    kernel = polyfuse.kernel(total)
    assert not pfd.explain(kernel, da.from_array(A, chunks=7)).guarded
    assert kernel(da.from_array(A, chunks=7)).compute(scheduler="threads") == A.sum()
