"""Counts over a loop that indexes no array (``c += 1`` over ``range(A.shape[0])``), on dask arrays.

Such a loop touches no array, so no access says that it moves with a split; its bounds do: a
block runs it over its own extent (polyfuse.dask.cuts).  The count is then a returned reduction
like any other: per-block partials and Dask's tree, checked with isl so that every block counts
exactly its chunk's iterations.  Each result equals the same kernel on the whole numpy arrays
and the undecorated function; what cannot be counted per block is refused at its line."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import polyfuse  # noqa: E402


def count(A):
    c = 0
    for _i in range(A.shape[0]):
        c += 1
    return c


def count_beside(A, B):
    c = 0
    for i in range(A.shape[0]):
        B[i] = A[i] + 1.0
        c += 1
    return B, c


def count_cells(A):
    c = 0
    for _i in range(A.shape[0]):
        for _j in range(A.shape[1]):
            c += 3
    return c


def count_past_the_end(A):
    c = 0
    for _i in range(A.shape[0] + 1):
        c += 1
    return c


def count_inside(A):
    c = 0
    for _i in range(1, A.shape[0] - 1):
        c += 2
    return c


def count_times_k(A, k):
    c = 0
    for _i in range(A.shape[0]):
        for _j in range(k):
            c += 1
    return c


def index_sum(A):
    c = 0
    for i in range(A.shape[0]):
        c += i
    return c


def count_triangle(A):
    c = 0
    for i in range(A.shape[0]):
        for _j in range(i):
            c += 1
    return c


def steps_and_count(A, k):
    c = 0
    for _t in range(k):
        c += 1
    s = 0
    for _i in range(A.shape[0]):
        s += 1
    return s, c


KERNELS = {f.__name__: polyfuse.kernel(f) for f in (
    count, count_beside, count_cells, count_past_the_end, count_inside, count_times_k, index_sum,
    count_triangle, steps_and_count)}
RNG = np.random.default_rng(15)


def _run(name, arrays, chunks, *scalars, scheduler="threads"):
    got = KERNELS[name](*(da.from_array(a, chunks=c) for a, c in zip(arrays, chunks)), *scalars)
    got = got if isinstance(got, tuple) else (got,)
    return [np.asarray(g.compute(scheduler=scheduler)) for g in got]


def _check(name, arrays, chunks, *scalars):
    """The kernel on dask arrays against the kernel on the whole numpy arrays and the
    undecorated function."""
    values = _run(name, arrays, chunks, *scalars)
    for run in (KERNELS[name], globals()[name]):
        want = run(*(a.copy() for a in arrays), *scalars)
        want = want if isinstance(want, tuple) else (want,)
        assert len(values) == len(want)
        for value, ref in zip(values, want):
            np.testing.assert_array_equal(value, ref)


@pytest.mark.parametrize("chunks", [3, (4, 6), (1, 9), 10], ids=["even", "uneven", "one-and-rest", "one-chunk"])
@pytest.mark.parametrize("name", ["count", "count_past_the_end", "count_inside"])
def test_a_count_over_the_extent_of_a_split_array(name, chunks):
    """``range(n)``, ``range(n + 1)`` (the last block counts one more), ``range(1, n - 1)``
    (the end blocks count less): each block counts its chunk's own iterations."""
    _check(name, [RNG.random(10)], [chunks])


@pytest.mark.parametrize("chunks", [(3, 2), ((2, 5), (4, 1)), (-1, 2)], ids=["even", "uneven", "columns"])
def test_a_count_over_both_axes(chunks):
    _check("count_cells", [RNG.random((7, 5))], [chunks])


def test_a_count_beside_a_written_array():
    _check("count_beside", [RNG.random(10), np.zeros(10)], [(4, 6), (4, 6)])


def test_a_count_with_an_inner_loop_over_an_int_argument():
    _check("count_times_k", [RNG.random(9)], [4], 3)


def test_a_count_on_the_cluster(client):
    A = RNG.random((7, 5))
    got = client.compute(KERNELS["count_cells"](da.from_array(A, chunks=(3, 2)))).result()
    assert got == KERNELS["count_cells"](A) == count_cells(A) == 105


@pytest.mark.parametrize("name, line, why", [
    ("index_sum", "c += i", "its value uses the index of its loop i"),
    ("count_triangle", "c += 1", "a block would run other iterations of its loop _j"),
    ("steps_and_count", "c += 1", "the reduction's update does not move with the axis"),
])
def test_a_count_a_block_cannot_make_is_refused_at_its_line(name, line, why):
    """``c += i`` (a block counts ``i`` from its own start), a triangle (``range(i)``), a count
    over an int argument beside a split reduction (every block would count it again)."""
    scalars = (4,) if name == "steps_and_count" else ()
    with pytest.raises(polyfuse.UnsupportedError, match=why) as info:
        KERNELS[name](da.from_array(RNG.random(10), chunks=3), *scalars)
    assert line in str(info.value)
    _check(name, [RNG.random(10)], [-1], *scalars)  # with the axis in one chunk it runs
