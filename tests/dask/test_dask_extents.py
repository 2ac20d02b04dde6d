"""An array's extent inside a subscript, a loop bound or a returned array's shape, on dask arrays.

A block runs the kernel on smaller arrays: ``n = A.shape[0]`` is the block's extent there, not
the whole array's.  Shift covariance does not see that (``w[n - 1]`` moves with nothing), so
these kernels once passed the plan and gave a silently wrong result per block
(polyfuse.dask.blocks).  Each kernel here either runs, and equals the same kernel on the whole
numpy arrays and the undecorated function, or is refused at its line naming the access."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import polyfuse  # noqa: E402
import polyfuse.dask as pfd  # noqa: E402


def last_weight(A, w, B):
    n = A.shape[0]
    for i in range(n):
        B[i] = A[i] * w[n - 1]


def last_weight_first(A, w, B):
    n = A.shape[0]
    c = w[n - 1]
    for i in range(n):
        B[i] = A[i] * c


def column_offset(A, B):
    n, m = B.shape
    for i in range(n):
        for j in range(m):
            B[i, j] = A[i, j + n]


def halves(x, out):
    n = out.shape[0]
    for i in range(n):
        out[i] = x[i] + x[i + n]


def second_half(A, B):
    n = A.shape[0]
    for i in range(n):
        B[i + n] = A[i] * 2.0


def end_aligned(A, B):
    for i in range(B.shape[0]):
        B[i] = A[i + A.shape[0] - B.shape[0]] - A[i]


def square_rows(A, B):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            B[i, j] = A[i, j] + 1.0


def window_of_all(A, w, B):
    n = A.shape[0]
    for i in range(n):
        s = 0.0
        for k in range(n):
            s += w[k]
        B[i] = A[i] * s


def total_weight_first(A, w, B):
    n = A.shape[0]
    c = 0.0
    for k in range(n):
        c += w[k]
    for i in range(n):
        B[i] = A[i] * c


def mean_scaled(A, B):
    n = A.shape[0]
    c = n * 1.0
    for i in range(n):
        B[i] = A[i] / c


def root_scaled(A, B):
    n = A.shape[0]
    k = 0
    while k * k < n:
        k += 1
    for i in range(n):
        B[i] = A[i] * k


def lower_triangle(A, B):
    for i in range(A.shape[0]):
        for j in range(i + 1):
            B[i, j] = A[i, j] * 2.0


def doubled(A):
    n = A.shape[0]
    C = np.zeros(2 * n)
    for i in range(n):
        C[i] = A[i]
        C[i + n] = A[i] * 2.0
    return C


def square_result(A):
    n, m = A.shape
    C = np.zeros((n, n))
    for i in range(n):
        for j in range(m):
            C[i, j] = A[i, j] * 2.0
    return C


def scratch_twice_as_long(A, B):
    T = np.empty(2 * A.shape[0])
    for i in range(A.shape[0]):
        T[i] = A[i] * 2.0
    for i in range(A.shape[0]):
        B[i] = T[i] + 1.0


def scratch_square(A, B):
    n, m = A.shape
    T = np.empty((n, n))
    for i in range(n):
        for j in range(m):
            T[i, j] = A[i, j] * 2.0
    for i in range(n):
        for j in range(m):
            B[i, j] = T[i, j] + 1.0


def second_half_total(A, B):
    s = 0
    for i in range(B.shape[0]):
        s += A[i + B.shape[0]] * B[i]
    return s


def root_columns(A, B):
    m = int(math.sqrt(A.shape[1]))
    for i in range(A.shape[0]):
        for j in range(m):
            B[i, j] = A[i, j] * 2.0


def rounded_extent(A, B):
    n = int(A.shape[0] * 1.0)
    for i in range(1, n - 1):
        B[i] = A[i - 1] + A[i + 1]


def first_half(A, B):
    h = int(A.shape[0] / 2)
    for i in range(h):
        B[i] = A[i] * 2.0


def half_scaled(A, B):
    h = int(A.shape[0] * 0.5)
    for i in range(A.shape[0]):
        B[i] = A[i] * h


KERNELS = {f.__name__: polyfuse.kernel(f) for f in (
    last_weight, last_weight_first, column_offset, halves, second_half, end_aligned, square_rows,
    window_of_all, total_weight_first, mean_scaled, root_scaled, lower_triangle, doubled, square_result,
    scratch_twice_as_long, scratch_square, second_half_total, root_columns, rounded_extent, first_half,
    half_scaled)}


def _args(arrays, chunks):
    return [a if c is None else da.from_array(a, chunks=c) for a, c in zip(arrays, chunks)]


def _check(name, arrays, chunks):
    """The kernel on dask arrays against the kernel on the whole numpy arrays and the
    undecorated function: its return value, or (none) every array argument's new value."""
    got = KERNELS[name](*_args(arrays, chunks))
    got = got if isinstance(got, tuple) else (got,)
    values = [g.compute(scheduler="threads") for g in got]
    for run in (KERNELS[name], globals()[name]):
        copies = [a.copy() for a in arrays]
        want = run(*copies)
        if want is None:
            written = [c for c, a in zip(copies, arrays) if not np.array_equal(c, a)]
            want = tuple(written)
        want = want if isinstance(want, tuple) else (want,)
        assert len(values) == len(want)
        for value, ref in zip(values, want):
            np.testing.assert_array_equal(value, ref)


def _refused(name, arrays, chunks, access, line):
    with pytest.raises(polyfuse.UnsupportedError) as info:
        KERNELS[name](*_args(arrays, chunks))
    message = str(info.value)
    assert access in message and line in message, message
    assert "keep axis 0" in message


RNG = np.random.default_rng(13)


@pytest.mark.parametrize("w_chunks", [None, 4, -1], ids=["w-numpy", "w-dask", "w-one-chunk"])
@pytest.mark.parametrize("chunks", [3, (4, 6), (1, 9)], ids=["even", "uneven", "one-and-rest"])
@pytest.mark.parametrize("name, line", [("last_weight", "B[i] = A[i] * w[n - 1]"), ("last_weight_first", "c = w[n - 1]")])
def test_an_extent_in_the_subscript_of_an_array_every_block_gets_whole(name, line, chunks, w_chunks):
    """``w[n - 1]``, ``n`` the split extent, ``w`` whole in every block: it read ``w[L - 1]``,
    ``L`` the block's length (wrong on main)."""
    arrays = [RNG.random(10), RNG.random(10), np.zeros(10)]
    _refused(name, arrays, [chunks, w_chunks, chunks], "its read w[A.shape[0] - 1] would reach other elements", line)


@pytest.mark.parametrize("name", ["last_weight", "last_weight_first"])
def test_an_extent_in_a_subscript_runs_with_the_axis_in_one_chunk(name):
    _check(name, [RNG.random(10), RNG.random(10), np.zeros(10)], [-1, 4, -1])


@pytest.mark.parametrize("chunks", [[(4, 2), (4, 2)], [((4, 4, 1), -1), ((4, 4, 1), -1)], [((2, 7), (5, 9)), ((3, 6), -1)]],
                         ids=["even", "uneven", "rows-differ"])
def test_the_split_extent_in_the_subscript_of_another_axis_is_refused(chunks):
    """``A[i, j + n]`` with ``n`` the split rows: the columns are one chunk, so the block's
    ``j + n`` read other columns (wrong on main)."""
    _refused("column_offset", [RNG.random((9, 14)), np.zeros((9, 5))], chunks, "its read A[i, j + B.shape[0]]",
             "B[i, j] = A[i, j + n]")


def test_the_split_extent_in_the_subscript_of_another_axis_with_rows_in_one_chunk():
    _check("column_offset", [RNG.random((9, 14)), np.zeros((9, 5))], [(-1, 5), (-1, 2)])


@pytest.mark.parametrize("name, sizes, chunks", [
    ("halves", (20, 10), (4, 3)), ("halves", (20, 10), ((7, 13), (3, 7))), ("halves", (20, 10), (1, 1)),
    ("halves", (20, 10), (-1, -1)), ("second_half", (10, 20), (3, 4)), ("second_half", (10, 20), ((3, 7), (7, 13))),
    ("second_half", (10, 20), (1, 1)), ("second_half", (10, 20), (-1, -1))])
def test_an_offset_by_the_whole_extent_runs_in_one_block(name, sizes, chunks):
    """``x[i + n]`` from an array of ``2 n``, or a write to ``B[i + n]``: a block would need the
    chunk's elements and those ``n`` further on, so the ghost zone is the whole array and the
    chunks are merged (the plan says so); the result equals the whole-array kernel."""
    arrays = [RNG.random(sizes[0]), np.zeros(sizes[1])]
    _check(name, arrays, chunks)
    plan = pfd.explain(KERNELS[name], *_args(arrays, chunks))
    assert all(len(s.chunks) == 1 for s in plan.splits)


@pytest.mark.parametrize("chunks", [(7, 5), ((6, 15), (7, 13)), (1, 1), (-1, 6)],
                         ids=["even", "uneven", "ones", "A-whole"])
def test_a_difference_of_extents_in_a_subscript_is_the_same_in_every_block(chunks):
    """``A[i + A.shape[0] - B.shape[0]]``: the difference is kept in every block, so it splits."""
    arrays = [RNG.random(21), np.zeros(20)]
    _check("end_aligned", arrays, chunks)
    if chunks == (7, 5):
        assert len(pfd.explain(KERNELS["end_aligned"], *_args(arrays, chunks)).splits[0].chunks) > 1


@pytest.mark.parametrize("name, arrays, chunks, loop", [
    ("square_rows", [np.ones((8, 8)), np.zeros((8, 8))], [(3, -1), (3, -1)], "loop j"),
    ("window_of_all", [np.ones(9), np.ones(9), np.zeros(9)], [4, None, 4], "loop k"),
    ("lower_triangle", [np.ones((9, 9)), np.zeros((9, 9))], [((4, 5), -1), ((4, 5), -1)], "loop j"),
    ("total_weight_first", [np.ones(9), np.ones(9), np.zeros(9)], [4, (2, 7), 4], "loop k"),
], ids=["range-n-inside", "sum-over-range-n", "triangle", "sum-before-the-loop"])
def test_a_bound_of_another_loop_that_differs_in_a_block_is_refused(name, arrays, chunks, loop):
    """``for j in range(n)`` inside the split loop ``i`` over ``n`` rows, or ``range(i + 1)``, or a
    sum over ``range(n)`` before it: a block runs ``j`` over its own ``n`` (or its local ``i``).
    main refused these only after growing the ghost zone 64 times, with no statement named (the
    last one with a generic message at no line)."""
    with pytest.raises(polyfuse.UnsupportedError, match=f"a block would run other iterations of its {loop}") as info:
        KERNELS[name](*_args(arrays, chunks))
    assert info.value.span is not None


@pytest.mark.parametrize("name, arrays, chunks", [
    ("square_rows", [RNG.random((8, 8)), np.zeros((8, 8))], [-1, -1]),
    ("window_of_all", [RNG.random(9), RNG.random(9), np.zeros(9)], [-1, 4, -1]),
    ("lower_triangle", [RNG.random((9, 9)), np.zeros((9, 9))], [-1, -1]),
    ("total_weight_first", [RNG.random(9), RNG.random(9), np.zeros(9)], [-1, 4, -1]),
], ids=["range-n-inside", "sum-over-range-n", "triangle", "sum-before-the-loop"])
def test_a_bound_of_another_loop_runs_with_the_axis_in_one_chunk(name, arrays, chunks):
    _check(name, arrays, chunks)


@pytest.mark.parametrize("chunks", [3, (4, 6), 1])
def test_a_returned_array_twice_as_long_runs_in_one_block(chunks):
    """``np.zeros(2 * n)`` written in both halves: main failed in dask ("overlapping depth 21
    is larger than your array 20"); the blocks are merged as for ``B[i + n]``."""
    _check("doubled", [RNG.random(10)], [chunks])


@pytest.mark.parametrize("chunks", [(3, -1), ((2, 5), 2)], ids=["rows", "rows-and-columns"])
def test_a_returned_array_whose_other_extent_is_the_split_one_is_refused(chunks):
    """``C = np.zeros((n, n))`` beside ``A`` of ``n x m``, split along the rows: a block's ``C``
    would be ``L x L`` (main: an out-of-bounds error from the block)."""
    with pytest.raises(polyfuse.UnsupportedError) as info:
        KERNELS["square_result"](da.from_array(RNG.random((7, 4)), chunks=chunks))
    assert "C[i, j] = A[i, j] * 2.0" in str(info.value)


def test_a_returned_array_whose_other_extent_is_the_split_one_names_its_extent():
    with pytest.raises(polyfuse.UnsupportedError, match=r"the returned array C would have extent 3 along its "
                       r"axis 1 in a block of 3, not 7 \(A.shape\[0\]"):
        KERNELS["square_result"](da.from_array(RNG.random((7, 4)), chunks=(3, -1)))


def test_a_scratch_array_longer_than_its_block_needs_splits():
    _check("scratch_twice_as_long", [RNG.random(10), np.zeros(10)], [(3, 4, 3), (3, 4, 3)])


@pytest.mark.parametrize("chunks", [(4, 3), (-1, -1)])
def test_a_reduction_reading_the_second_half(chunks):
    """``s += A[i + n] * B[i]``, A of ``2 n``: one block (the depth is the whole array)."""
    A, B = RNG.integers(-9, 9, 20), RNG.integers(-9, 9, 10)
    got = KERNELS["second_half_total"](*_args([A, B], chunks)).compute(scheduler="threads")
    assert got == KERNELS["second_half_total"](A, B) == second_half_total(A, B)


@pytest.mark.parametrize("name, line", [("mean_scaled", "c = n * 1.0"), ("root_scaled", "while k * k < n:")])
@pytest.mark.parametrize("chunks", [6, (3, 17)], ids=["even", "uneven"])
def test_a_value_computed_from_the_split_extent_is_refused(name, line, chunks):
    """``c = n * 1.0`` before the loop, or an opaque ``while`` loop over ``n``: neither touches a
    split array, so no shift check saw them, and each block divided by its own ``n`` (wrong on
    main)."""
    with pytest.raises(polyfuse.UnsupportedError, match="it computes with A.shape.0., an array's extent") as info:
        KERNELS[name](da.from_array(RNG.random(20), chunks=chunks), da.zeros(20, chunks=chunks))
    assert line in str(info.value)


@pytest.mark.parametrize("name", ["mean_scaled", "root_scaled"])
def test_a_value_computed_from_the_extent_runs_with_the_axis_in_one_chunk(name):
    _check(name, [RNG.random(20), np.zeros(20)], [-1, -1])


def test_a_scratch_array_whose_other_extent_is_the_split_one_is_refused():
    """``T = np.empty((n, n))`` written at ``T[i, j]``, ``j`` over the ``m`` columns: a block of
    ``L < m`` rows allocates ``T`` as ``L x L`` and would index outside it (Python raises there)."""
    with pytest.raises(polyfuse.UnsupportedError, match=r"its write T\[i, j\] falls outside T as a block allocates it"):
        KERNELS["scratch_square"](da.from_array(RNG.random((7, 4)), chunks=(3, -1)), da.zeros((7, 4), chunks=(3, -1)))
    _check("scratch_square", [RNG.random((7, 4)), np.zeros((7, 4))], [-1, -1])


@pytest.mark.parametrize("chunks", [(3, -1), ((2, 5, 1), -1), (1, -1)], ids=["even", "uneven", "ones"])
def test_a_size_computed_from_an_unsplit_extent_splits(chunks):
    """``m = int(math.sqrt(A.shape[1]))`` (frontend.call_sizes), split along the rows: every block
    computes the same ``m`` (refused outright before)."""
    _check("root_columns", [RNG.random((8, 9)), np.zeros((8, 9))], [chunks, chunks])
    assert len(pfd.explain(KERNELS["root_columns"], *_args([RNG.random((8, 9)), np.zeros((8, 9))],
                                                            [chunks, chunks])).splits) == (chunks[0] != -1)


@pytest.mark.parametrize("chunks", [3, (4, 6), 1], ids=["even", "uneven", "ones"])
def test_a_size_computed_from_the_split_extent_that_a_block_computes_alike_splits(chunks):
    """``n = int(A.shape[0] * 1.0)``: a block computes its own ``n`` from its own extent, which
    isl finds gives every block the whole kernel's iterations (polyfuse.dask.blocks)."""
    _check("rounded_extent", [RNG.random(10), np.zeros(10)], [chunks, chunks])


@pytest.mark.parametrize("name, line, why", [
    ("first_half", "B[i] = A[i] * 2.0", "its loop bounds do not move with the chunk"),
    ("half_scaled", "h = int(A.shape[0] * 0.5)", "it computes with A.shape[0]"),
])
def test_a_size_computed_from_the_split_extent_that_a_block_computes_otherwise_is_refused(name, line, why):
    """``h = int(A.shape[0] / 2)`` as a loop bound (a block would run half its own rows) or in a
    value: refused at the line; with the axis in one chunk it runs."""
    arrays = [RNG.random(10), np.zeros(10)]
    with pytest.raises(polyfuse.UnsupportedError, match=re.escape(why)) as info:
        KERNELS[name](*_args(arrays, [3, 3]))
    assert line in str(info.value) and "keep axis 0" in str(info.value)
    _check(name, arrays, [-1, -1])
