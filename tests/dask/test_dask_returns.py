"""What a kernel returns, on dask arrays: tuples of arguments, new arrays, and a reduction beside
the arrays it writes.  Every result against the kernel on the whole numpy arrays and against the
undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import polyfuse  # noqa: E402
import polyfuse.dask as pfd  # noqa: E402


def scale_and_max(A, B):
    m = -1.0
    for i in range(1, A.shape[0]):
        B[i] = 2.0 * A[i - 1]  # a ghost zone of 1 on the left: the partials still own their chunk
        m = max(m, A[i])
    return B, m


def scale_return_max(A, B):
    m = -1.0
    for i in range(A.shape[0]):
        B[i] = 2.0 * A[i]
        m = max(m, A[i])
    return m


def swapped(A, B, C):
    for i in range(A.shape[0]):
        B[i] = A[i] + 1.0
        C[i] = A[i] * 2.0
    return C, B


def shifted_copy(A):
    C = np.zeros_like(A)
    for i in range(1, A.shape[0]):
        for j in range(A.shape[1]):
            C[i, j] = A[i - 1, j] * 3.0
    return C


def diffs_and_total(A, B):
    C = np.zeros_like(A)
    s = 0
    for i in range(A.shape[0] - 1):
        C[i] = A[i + 1] - A[i]
        B[i] = A[i] * 2
        s += A[i]
    return C, s, A


def normalised(A, B):
    m = -1.0
    for i in range(A.shape[0]):
        m = max(m, A[i])
    for i in range(A.shape[0]):
        B[i] = A[i] / m
    return B, m


def shorter(A):
    C = np.zeros(A.shape[0] - 1)
    for i in range(A.shape[0] - 1):
        C[i] = A[i + 1] - A[i]
    return C


def two_scalars(A):
    s = 0
    t = 1
    for i in range(A.shape[0]):
        s += A[i]
        t *= A[i]
    return s, t


def views(A, B):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i, j] = A[i, j] * 2.0
    return B.T, B[1:, ::-2], B[2], A[:, 1], B[::-1, 1:3], B[5:]


def smoothed_middle_and_sum(A, B):
    n = A.shape[0]
    s = 0
    for i in range(1, n - 1):
        B[i] = A[i - 1] + A[i + 1]
    for i in range(n):
        s += B[i]
    return B[1:-1], s


def view_made_elsewhere(A, B):
    for i in range(A.shape[0]):
        B[i] = A[i] + 1.0
    pair = (B.T, A)
    return pair


def view_named_first(A, B):
    for i in range(A.shape[0]):
        B[i] = A[i] + 1.0
    V = B[::-1]
    return V


def max_min_and_scaled(A, B):
    hi = -1.0
    lo = 2.0
    for i in range(1, A.shape[0]):
        B[i] = A[i - 1] * 0.5
        hi = max(hi, A[i])
        lo = min(lo, A[i - 1])
    return lo, B, hi, hi


def smoothed_sum_and_count(A, B):
    n = A.shape[0]
    s = 0
    c = 0
    for i in range(1, n - 1):
        B[i] = A[i - 1] + A[i + 1]
    for i in range(n):
        s += B[i]
    for i in range(n):
        c += B[i] * B[i]
    return B[1:], s, c


def heat_middle(A, B, steps):
    n = A.shape[0]
    for _t in range(steps):
        for i in range(1, n - 1):
            B[i] = 0.5 * (A[i - 1] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = B[i]
    return A[1:-1]


KERNELS = {f.__name__: polyfuse.kernel(f) for f in (scale_and_max, scale_return_max, swapped, shifted_copy,
                                                    diffs_and_total, normalised, shorter, two_scalars, views,
                                                    smoothed_middle_and_sum, view_made_elsewhere, view_named_first,
                                                    max_min_and_scaled, smoothed_sum_and_count, heat_middle)}


def _compute(result, scheduler="threads"):
    flat = result if isinstance(result, tuple) else (result,)
    if scheduler == "threads":
        return [r.compute(scheduler="threads") for r in flat]
    return scheduler.gather(scheduler.compute(list(flat)))


def _expected(name, arrays):
    """The kernel on the whole numpy arrays and the undecorated function: both results."""
    results = []
    for run in (KERNELS[name], globals()[name]):
        out = run(*(a.copy() if isinstance(a, np.ndarray) else a for a in arrays))
        results.append(list(out) if isinstance(out, tuple) else [out])
    return results


def _same(got, expected):
    for want in expected:
        assert len(got) == len(want)
        for value, ref in zip(got, want):
            np.testing.assert_array_equal(np.asarray(value), np.asarray(ref))


@pytest.mark.parametrize("chunks", [(5, 7), (-1, -1)], ids=["uneven", "one-chunk"])
def test_written_array_and_a_reduction_in_a_tuple(chunks):
    A = np.random.default_rng(0).random(23)
    A[4] = np.nan  # Python's max skips it, block by block as in the loop
    got = KERNELS["scale_and_max"](da.from_array(A, chunks=chunks[0]), da.zeros(23, chunks=chunks[1]))
    assert isinstance(got, tuple) and got[1].ndim == 0
    _same(_compute(got), _expected("scale_and_max", [A, np.zeros(23)]))


def test_kernel_that_writes_and_returns_only_the_reduction():
    A = np.random.default_rng(1).random(23)
    got = KERNELS["scale_return_max"](da.from_array(A, chunks=5), da.zeros(23, chunks=7))
    assert got.ndim == 0 and got.compute(scheduler="threads") == scale_return_max(A, np.zeros(23))


def test_tuple_of_arguments_in_return_order():
    A = np.random.default_rng(2).random(20)
    got = KERNELS["swapped"](da.from_array(A, chunks=6), da.zeros(20, chunks=6), da.zeros(20, chunks=4))
    _same(_compute(got), _expected("swapped", [A, np.zeros(20), np.zeros(20)]))


@pytest.mark.parametrize("chunks", [(3, 4), -1], ids=["uneven", "one-chunk"])
def test_new_array_returned(chunks):
    A = np.random.default_rng(3).random((10, 7))
    dA = da.from_array(A, chunks=chunks)
    plan = pfd.explain(KERNELS["shifted_copy"], dA)
    assert plan.results == (("C", (10, 7)),)
    got = KERNELS["shifted_copy"](dA)
    assert got.shape == (10, 7) and got.chunks == dA.chunks
    _same(_compute(got), _expected("shifted_copy", [A]))


def test_new_array_a_reduction_and_an_argument_on_cluster(client):
    A = np.random.default_rng(4).integers(-50, 50, 21)
    dA = da.from_array(A, chunks=5)
    C, s, same = KERNELS["diffs_and_total"](dA, da.zeros(21, dtype=np.int64, chunks=5))
    assert same is dA  # returned as it came: the kernel does not write it
    got = _compute((C, s), client) + [A]
    _same(got, _expected("diffs_and_total", [A, np.zeros(21, dtype=np.int64)]))


def test_statement_reading_the_accumulator_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="reads the reduction's accumulator 'm'") as info:
        KERNELS["normalised"](da.ones(10, chunks=5), da.zeros(10, chunks=5))
    assert "B[i] = A[i] / m" in str(info.value)


@pytest.mark.parametrize("chunks", [5, (4, 17), 1, -1], ids=["even", "uneven", "thinner-than-halo", "one-chunk"])
def test_returned_new_array_one_shorter(chunks):
    """``C = np.zeros(n - 1)`` beside A of n: C's blocks are one shorter than A's."""
    A = np.random.default_rng(5).random(21)
    got = KERNELS["shorter"](da.from_array(A, chunks=chunks))
    assert got.shape == (20,)
    value = got.compute(scheduler="threads")
    np.testing.assert_array_equal(value, KERNELS["shorter"](A))
    np.testing.assert_array_equal(value, shorter(A))


def test_returned_new_array_one_shorter_plan():
    """C (the output) gives the blocks; A's blocks are one longer: its ``range(A.shape[0] - 1)``
    then runs exactly the block's chunk, so no ghost zone is exchanged."""
    plan = pfd.explain(KERNELS["shorter"], da.ones(21, chunks=5))
    split, = plan.splits
    assert split.chunks == (5, 5, 5, 5) and split.chunks_for("A") == (5, 5, 5, 6)
    assert (plan.exchanges[0].axes[0].left, plan.exchanges[0].axes[0].right) == (0, 0)


@pytest.mark.parametrize("chunks", [3, (4, 1, 5), 1, -1], ids=["even", "uneven", "ones", "one-chunk"])
def test_two_returned_reductions(chunks):
    """``return s, t``: each block hands back both partials, each combined by its own tree."""
    A = np.random.default_rng(9).integers(-3, 4, 10)
    got = KERNELS["two_scalars"](da.from_array(A, chunks=chunks))
    assert isinstance(got, tuple) and [g.ndim for g in got] == [0, 0]
    _same(_compute(got), _expected("two_scalars", [A]))
    plan = pfd.explain(KERNELS["two_scalars"], da.from_array(A, chunks=chunks))
    assert [(r.variable, r.op) for r in plan.reductions] == [("s", "+"), ("t", "*")]
    assert str(plan).count("reduction: ") == 2

@pytest.mark.parametrize("chunks", [((2, 3), (3, 2)), ((5, 1), (1, 4)), (-1, -1)], ids=["uneven", "thin", "one-chunk"])
def test_views_of_arguments(chunks):
    """``B.T``, a strided slice, a row, a column of an argument the kernel does not write, a
    reversed slice, an empty slice: each block returns the argument, the client slices the view
    from its new dask array."""
    A = np.random.default_rng(6).random((5, 4))
    got = KERNELS["views"](da.from_array(A, chunks=chunks[0]), da.from_array(np.zeros((5, 4)), chunks=chunks[1]))
    assert all(isinstance(g, da.Array) for g in got)
    assert [g.shape for g in got] == [(4, 5), (4, 2), (4,), (5,), (5, 2), (0, 4)]
    _same(_compute(got), _expected("views", [A, np.zeros((5, 4))]))


@pytest.mark.parametrize("chunks", [6, (5, 11, 7), -1], ids=["even", "uneven", "one-chunk"])
def test_a_view_beside_a_guarded_reduction(chunks):
    """The block's kernel is one variant: the sum's update on the chunk only, the view given back
    as its argument."""
    A, B = (np.random.default_rng(7).integers(-9, 9, size=23) for _ in range(2))
    parts = [da.from_array(A, chunks=chunks), da.from_array(B, chunks=chunks)]
    if chunks != -1:
        assert pfd.explain(KERNELS["smoothed_middle_and_sum"], *parts).guarded
    got = KERNELS["smoothed_middle_and_sum"](*parts)
    _same(_compute(got), _expected("smoothed_middle_and_sum", [A, B]))


def test_a_view_in_a_tuple_made_before_the_return_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="returned view must be written in the kernel's own"):
        KERNELS["view_made_elsewhere"](da.ones(10, chunks=5), da.zeros(10, chunks=5))


def test_a_view_named_before_the_return():
    A = np.random.default_rng(8).random(10)
    got = KERNELS["view_named_first"](da.from_array(A, chunks=3), da.zeros(10, chunks=4))
    _same(_compute(got), _expected("view_named_first", [A, np.zeros(10)]))


@pytest.mark.parametrize("chunks", [(5, 7), (1, 2), (-1, -1)], ids=["uneven", "ones", "one-chunk"])
def test_two_reductions_beside_a_written_array_in_any_order(chunks):
    """``return lo, B, hi, hi``: a max and a min (exact in any grouping) around the written
    array, one returned twice; the ghost zone of ``A[i - 1]`` leaves both partials exact."""
    A = np.random.default_rng(10).random(23)
    got = KERNELS["max_min_and_scaled"](da.from_array(A, chunks=chunks[0]), da.zeros(23, chunks=chunks[1]))
    assert len(got) == 4
    _same(_compute(got), _expected("max_min_and_scaled", [A, np.zeros(23)]))


@pytest.mark.parametrize("chunks", [6, (5, 11, 7), -1], ids=["even", "uneven", "one-chunk"])
def test_two_guarded_reductions_and_a_view(chunks):
    """Both sums' loops run over the ghost zone: the block's variant restricts both updates to
    the chunk (a double count would show in the integers) and gives back ``B`` for ``B[1:]``."""
    A, B = (np.random.default_rng(11).integers(-9, 9, size=23) for _ in range(2))
    parts = [da.from_array(A, chunks=chunks), da.from_array(B, chunks=chunks)]
    if chunks != -1:
        assert pfd.explain(KERNELS["smoothed_sum_and_count"], *parts).guarded
    got = KERNELS["smoothed_sum_and_count"](*parts)
    _same(_compute(got), _expected("smoothed_sum_and_count", [A, B]))


def test_two_guarded_reductions_and_a_view_on_cluster(client):
    """The block variant (both updates restricted, the view given back as its argument) pickles
    as its source, like any kernel, and compiles on the workers."""
    A, B = (np.random.default_rng(12).integers(-9, 9, size=23) for _ in range(2))
    got = KERNELS["smoothed_sum_and_count"](da.from_array(A, chunks=(5, 11, 7)), da.from_array(B, chunks=(5, 11, 7)))
    _same(_compute(got, client), _expected("smoothed_sum_and_count", [A, B]))


def test_a_view_of_a_time_loop_split_into_exchanges():
    """The view is taken once, of the last exchange's new ``A``."""
    A = np.random.default_rng(13).random(40)
    parts = [da.from_array(A, chunks=7), da.from_array(A.copy(), chunks=7)]
    assert len(pfd.explain(KERNELS["heat_middle"], *parts, 6, steps_per_exchange=2).exchanges) == 3
    got = pfd.call(KERNELS["heat_middle"], *parts, 6, steps_per_exchange=2)
    _same(_compute(got), _expected("heat_middle", [A, A.copy(), 6]))
