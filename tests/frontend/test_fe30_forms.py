"""fe30's forms: helpers defined in the kernel, lengths of ``np.unique``, bincount's errors where
it runs, loops over number tuples, and/or tests of reductions, swapped buffers; each compiled
kernel against the undecorated function (tests/corpus/numba_fe30.py holds whole kernels)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_checks import check_calls

import polyfuse


def _check(fn, calls, target="python"):
    return check_calls(fn, calls, target)


def local_helpers(x, lo, hi):
    n = x.shape[0]

    def clip1(v):
        return lo if v < lo else (hi if v > hi else v)

    def wrap(i):
        return (i + n) % n
    sq = lambda v: v * v  # noqa: E731
    out = np.empty_like(x)
    for i in range(n):
        out[i] = sq(clip1(x[wrap(i - 1)]))
    return out


def test_helpers_defined_in_the_kernel_are_inlined():
    _check(local_helpers, [(np.array([-2.0, 0.5, 3.0, 0.1]), -1.0, 1.0)])


def recursive_local(x):
    def f(k):
        return 1 if k <= 0 else k * f(k - 1)
    return x[0] * f(3)


def late_bound(x):
    s = 0.0

    def add(v):
        return v + s
    for i in range(x.shape[0]):
        s = x[i]
    return add(1.0)


@pytest.mark.parametrize("fn, words", [(recursive_local, "recursive call of helper f()"),
                                       (late_bound, "binds more than once")])
def test_helpers_in_the_kernel_that_cannot_be_inlined_are_named(fn, words):
    with pytest.raises(polyfuse.UnsupportedError, match=words) as info:
        polyfuse.kernel(fn, target="python")(np.ones(3))
    assert info.value.span is not None and info.value.span.filename == __file__


def unique_sized(x):
    out = np.zeros(len(np.unique(x)))
    u = np.unique(x)
    for i in range(u.shape[0]):
        out[i] = u[i] * 2 + np.sum(x == u[i])
    return out


def unique_at(x, k):
    u = np.unique(x)
    return u[k]


def unique_store(x, k):
    u = np.unique(x)
    c = np.full(u.size, 2.5)
    c[k] = u[k]  # a store of an element: c is no view of u
    c[-1] += 1.0
    return c, len(c)


def test_arrays_of_the_length_of_unique():
    _check(unique_sized, [(np.array([3.0, 1.0, 3.0, 2.0]),), (np.zeros(0),)])
    _check(unique_store, [(np.array([3.0, 1.0, 3.0, 0.0]), 1), (np.array([3.0, 1.0, 3.0, 0.0]), -3)])
    k = _check(unique_at, [(np.array([3.0, 1.0, 3.0]), 1), (np.array([3.0, 1.0, 3.0]), -2)])
    with pytest.raises(IndexError, match="'u'"):  # the user's name, not the buffer's
        k(np.array([3.0, 1.0, 3.0]), 2)


def unique_sized_rows(x):
    u = np.unique(x)
    return np.zeros((len(u), 2))


def test_other_allocations_of_the_length_of_unique_are_named():
    with pytest.raises(polyfuse.UnsupportedError, match="np.unique's length is supported as an allocation bound to a name") as info:
        polyfuse.kernel(unique_sized_rows, target="python")(np.ones(3))
    assert info.value.span.line == unique_sized_rows.__code__.co_firstlineno + 2


def bincount_branch(lab, flag):
    if flag > 0:
        return np.bincount(lab).sum()
    return 0


def bincount_diff(indptr):
    return np.bincount(np.diff(indptr), minlength=2)


def test_bincount_raises_only_where_it_runs():
    k = _check(bincount_branch, [(np.array([-1, 2]), 0), (np.array([1, 2]), 1)], target="cpu")
    with pytest.raises(ValueError, match="no negative elements"):
        k(np.array([-1, 2]), 1)
    _check(bincount_diff, [(np.array([0, 2, 2, 5]),), (np.array([0]),)])


def tuple_loops(g):
    h, w = g.shape
    out = np.zeros_like(g)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            s = 0.0
            for di in (-1, 0, 1):
                for dy, dx in ((0, 1), (1, 0), (0, -1)):
                    s += g[i + di, j] * dy - g[i, j + dx]
            for c in (0.25, 2.0, -1.0):
                s += c
            out[i, j] = s
    return out


def test_loops_over_number_tuples():
    _check(tuple_loops, [(np.arange(20.0).reshape(4, 5),)])


def either_empty(img, t):
    fg = img[img > t]
    bg = img[img <= t]
    if fg.size == 0 or bg.size == 0:
        return 0.0
    return fg.mean() - bg.mean()


def guarded_max(x, t):
    if x.shape[0] > 0 and x.max() > t:
        return 1.0
    return 0.0


def guarded_masked_max(x, t):
    m = x > t
    n = np.count_nonzero(m)
    if n > 0 and x[m].max() > 2 * t:  # max of nothing raises: not run where n == 0
        return 1.0
    return 0.0


def test_and_or_of_reductions_run_where_python_runs_them():
    _check(guarded_masked_max, [(np.array([1.0, 2.0, 3.0]), 1.0), (np.array([1.0, 2.0, 3.0]), 5.0)])
    img = np.arange(12.0).reshape(3, 4)
    _check(either_empty, [(img, 5.0), (img, 20.0)])
    _check(guarded_max, [(np.zeros(0), 1.0), (np.array([3.0, 0.5]), 1.0)])  # x.max() of nothing: not run


def ping_pong(u, steps):
    a = u.copy()
    b = np.empty_like(u)
    for _ in range(steps):
        b[0] = a[0]
        b[1:] = a[1:] + a[:-1]
        a, b = b, a
    return a


def swap_once(u):
    a = u.copy()
    b = np.zeros_like(u)
    a, b = b, a  # (at the top level too: refused before, the names' arrays being views)
    b[0] = 5.0
    return a, b


def swap_viewed(u):
    a = u.copy()
    b = np.zeros_like(u)
    v = a[1:]
    a, b = b, a  # v still views the first array, now b's: copies of values would change what v sees
    b[1] = 9.0
    return a, b, v.sum()


def two_row_edit_distance(a, b):
    prev = np.arange(b.shape[0] + 1)  # an np.arange is a buffer of its own too (fe53)
    cur = np.zeros(b.shape[0] + 1, dtype=np.int64)
    for i in range(1, a.shape[0] + 1):
        cur[0] = i
        for j in range(1, b.shape[0] + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev, cur = cur, prev
    return prev[b.shape[0]]


def two_rows_of_two_dtypes(a, b):
    prev = np.arange(b.shape[0] + 1)
    cur = np.zeros(b.shape[0] + 1)
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            cur[j] = prev[j - 1] + a[i - 1]
        prev, cur = cur, prev
    return prev


def test_swapped_buffers():
    _check(ping_pong, [(np.arange(5.0), 3), (np.arange(5.0), 0)])
    _check(swap_once, [(np.arange(3.0),)])
    _check(two_row_edit_distance, [(np.array([1, 2, 2, 3]), np.array([2, 2, 1])), (np.zeros(0, np.int64), np.arange(2))])
    with pytest.raises(polyfuse.UnsupportedError, match="int64, not float64"):  # Python's prev turns float64
        polyfuse.kernel(two_rows_of_two_dtypes, target="python")(np.arange(3.0), np.arange(2.0))
    with pytest.raises(polyfuse.UnsupportedError, match="view"):  # refused (a wrong v.sum() with copies)
        polyfuse.kernel(swap_viewed, target="python")(np.arange(4.0))


def counting_sort(x, k):
    counts = np.zeros(k, dtype=np.int64)
    for v in x:
        counts[v] += 1
    out = np.empty_like(x)
    pos = 0
    for v in range(k):  # the name of the array loop's element: a fresh loop variable
        for _ in range(counts[v]):
            out[pos] = v
            pos += 1
    return out


def flat_histogram(img, nbins):
    h = np.zeros(nbins)
    for v in img.ravel():
        h[int(v * (nbins - 1))] += 1
    for v in img.flat:
        h[0] += v
    return h


def test_loops_over_flattened_arrays_and_reused_names():
    _check(counting_sort, [(np.array([3, 0, 3, 1]), 4), (np.zeros(0, dtype=np.int64), 2)])
    _check(flat_histogram, [(np.linspace(0.0, 1.0, 12).reshape(3, 4), 5)])


def local_sizes(A):
    m = A[1:] > 0
    return m.sum(), (m.mean() if m.size else 0.0), m.ndim


def test_size_and_ndim_of_local_arrays():
    _check(local_sizes, [(np.arange(-3.0, 5.0).reshape(4, 2),), (np.ones((1, 2)),)])
