"""Dask arrays of different shapes in one call (polyfuse.dask.cuts): a matrix and a vector, a
field and a coefficient per row, a 3-D array and a 2-D boundary slice.  Every result against
the same kernel on the whole numpy arrays and against the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import polyfuse  # noqa: E402
import polyfuse.dask as pfd  # noqa: E402


def matvec(A, x, y):
    n, m = A.shape
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        y[i] = s


def rowscale(A, c, B):
    n, m = A.shape
    for i in range(n):
        for j in range(1, m):
            B[i, j] = A[i, j - 1] * c[i]


def boundary3d(A, top, B):
    n, m, p = A.shape
    for i in range(1, n):
        for j in range(m):
            for k in range(1, p):
                B[i, j, k] = A[i - 1, j, k] + top[j, k - 1]


def colsum(A, c):
    n, m = A.shape
    for j in range(m):
        c[j] = 0.0
    for i in range(n):
        for j in range(m):
            c[j] += A[i, j]


def transpose(A, B):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            B[j, i] = A[i, j] + 1.0


def int_matvec_total(A, x):
    s = 0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * x[j]
    return s


def heat_coefficient(A, B, c, steps):
    n, m = A.shape
    for _t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                B[i, j] = c[i] * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                A[i, j] = B[i, j]


def pairsum(A, B):
    for i in range(B.shape[0]):
        B[i] = A[i] + A[i + 1]


def backward(A, B):
    for i in range(1, B.shape[0]):
        B[i] = 2.0 * A[i - 1]


def cells(P, C):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] = 0.25 * (P[i, j] + P[i + 1, j] + P[i, j + 1] + P[i + 1, j + 1])


def matvec_add(A, x, y):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            y[i] += A[i, j] * x[j]


def matvec_add_twice(A, x, y):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            y[i] += A[i, j] * x[j]
    for i in range(n):
        for j in range(m):
            y[i] += x[j]


def matvec_from_zero(A, x, y):
    n, m = A.shape
    for i in range(n):
        y[i] = 0.0
        for j in range(m):
            y[i] += A[i, j] * x[j]


def staggered(P, C, steps):
    for _t in range(steps):
        for i in range(1, P.shape[0] - 1):
            C[i] = 0.5 * (P[i] + P[i + 1])
        for i in range(1, P.shape[0] - 1):
            P[i] = C[i - 1] * 0.25 + C[i] * 0.5


def staggered_cells(P, C, steps):
    for _t in range(steps):
        for i in range(1, C.shape[0] - 1):
            C[i] = 0.5 * (P[i] + P[i + 1])
        for i in range(1, C.shape[0] - 1):
            P[i] = C[i - 1] * 0.25 + C[i] * 0.5


def rows_and_sums(A, B, r):
    n, m = A.shape
    for i in range(n):
        r[i] = 0.0
        for j in range(m):
            B[i, j] = 2.0 * A[i, j]
            r[i] += A[i, j]


def diagonal(A, B):
    for i in range(B.shape[0]):
        B[i] = A[i, i]


KERNELS = {f.__name__: polyfuse.kernel(f) for f in (matvec, rowscale, boundary3d, colsum, transpose,
                                                    int_matvec_total, heat_coefficient, pairsum,
                                                    backward, cells, matvec_add, matvec_add_twice,
                                                    matvec_from_zero, staggered, staggered_cells, rows_and_sums,
                                                    diagonal)}


def _check(name, arrays, chunks, outputs, scheduler="threads"):
    """The kernel on dask arrays (``chunks`` per array, None: passed as numpy) against the
    kernel on the whole numpy arrays and the undecorated function; ``outputs``: the written
    arguments' positions."""
    args = [a if c is None or not isinstance(a, np.ndarray) else da.from_array(a, chunks=c)
            for a, c in zip(arrays, chunks)]
    result = KERNELS[name](*args)
    results = result if isinstance(result, tuple) else (result,)
    if scheduler == "threads":
        got = [r.compute(scheduler="threads") for r in results]
    else:
        got = scheduler.gather(scheduler.compute(list(results)))
    whole = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
    plain = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
    KERNELS[name](*whole)
    globals()[name](*plain)
    for value, position in zip(got, outputs):
        np.testing.assert_array_equal(value, whole[position])
        np.testing.assert_array_equal(value, plain[position])


@pytest.mark.parametrize("chunks", [((7, 6), 6, 11), ((7, 20), (13, 7), (4, 26)), (-1, -1, -1)],
                         ids=["uneven", "rows", "one-chunk"])
def test_matrix_times_vector(chunks):
    rng = np.random.default_rng(0)
    _check("matvec", [rng.random((30, 20)), rng.random(20), np.zeros(30)], chunks, [2])


def test_matrix_times_vector_plan():
    rng = np.random.default_rng(0)
    A, x, y = (da.from_array(rng.random((30, 20)), chunks=(7, 6)), da.from_array(rng.random(20), chunks=6),
               da.from_array(np.zeros(30), chunks=11))
    plan = pfd.explain(KERNELS["matvec"], A, x, y)
    assert [s.cut.members for s in plan.splits] == [(("y", 0), ("A", 0))]
    assert [s.chunks for s in plan.splits] == [(7, 4, 3, 7, 1, 6, 2)]  # dask's common refinement
    assert [(a, axis) for a, axis, _ in plan.merged] == [("A", 1), ("x", 0)]  # j indexes no output
    assert plan.whole == ("x",)
    assert "loop j indexes no written array" in plan.render()


def test_matrix_times_vector_on_cluster(client):
    rng = np.random.default_rng(1)
    _check("matvec", [rng.random((30, 20)), rng.random(20), np.zeros(30)], ((7, 6), 6, 11), [2], client)


@pytest.mark.parametrize("c_chunks", [9, None], ids=["dask", "numpy"])
def test_field_and_coefficient_per_row(c_chunks):
    rng = np.random.default_rng(2)
    _check("rowscale", [rng.random((30, 20)), rng.random(30), np.zeros((30, 20))], ((7, 6), c_chunks, (5, 7)), [2])


def test_numpy_array_a_split_loop_indexes_is_cut_too():
    rng = np.random.default_rng(2)
    plan = pfd.explain(KERNELS["rowscale"], da.from_array(rng.random((30, 20)), chunks=(7, 6)), rng.random(30),
                       da.zeros((30, 20), chunks=(7, 6)))
    assert "c" in plan.chunked and plan.splits[0].cut.axis_of("c") == 0
    halos = {h.axis: (h.left, h.right) for h in plan.exchanges[0].axes}
    assert halos == {0: (0, 0), 1: (1, 0)}


def test_3d_array_and_2d_boundary_slice():
    rng = np.random.default_rng(3)
    arrays = [rng.random((9, 8, 10)), rng.random((8, 10)), np.zeros((9, 8, 10))]
    plan = pfd.explain(KERNELS["boundary3d"], *(da.from_array(a, chunks=c) for a, c in
                                              zip(arrays, [(4, 3, 4), (5, 3), (4, 3, 4)])))
    top = {s.cut.axis_of("top"): (h.left, h.right) for s, h in zip(plan.splits, plan.exchanges[0].axes)}
    assert top == {None: (1, 0), 0: (0, 0), 1: (1, 0)}  # k reads top[j, k - 1]
    _check("boundary3d", arrays, [(4, 3, 4), (5, 3), (4, 3, 4)], [2])


def test_column_sums_split_along_the_columns_only():
    rng = np.random.default_rng(4)
    _check("colsum", [rng.random((12, 20)), np.zeros(20)], [(5, 6), 5], [1])


def test_transpose_pairs_the_axes_by_loop():
    rng = np.random.default_rng(5)
    _check("transpose", [rng.random((8, 6)), np.zeros((6, 8))], [(3, 4), (5, 2)], [1])


def test_reduction_over_a_matrix_and_a_vector():
    rng = np.random.default_rng(6)
    A, x = rng.integers(-9, 9, (12, 10)), rng.integers(-9, 9, 10)
    got = KERNELS["int_matvec_total"](da.from_array(A, chunks=(5, 4)), da.from_array(x, chunks=3))
    assert got.compute(scheduler="threads") == int_matvec_total(A, x) == KERNELS["int_matvec_total"](A, x)


def test_time_loop_with_a_coefficient_vector():
    rng = np.random.default_rng(7)
    A = rng.random((14, 12))
    _check("heat_coefficient", [A, A.copy(), 0.25 * rng.random(14), 3], [(5, 6), (5, 6), 7, None], [0, 1])


@pytest.mark.parametrize("chunks", [(7, 5), (5, 7), (1, 1), ((20, 1), 20), (-1, -1), (-1, 6)],
                         ids=["uneven", "uneven-2", "thinner-than-halo", "boundary-past-B", "one-chunk", "A-whole"])
def test_array_one_longer_along_the_split_loop(chunks):
    """``B[i] = A[i] + A[i + 1]``, A of n + 1 points and B of n cells: A's extra element sits in
    the last block, every block of A is one longer than B's."""
    rng = np.random.default_rng(14)
    _check("pairsum", [rng.random(21), np.zeros(20)], chunks, [1])


def test_array_one_longer_plan():
    plan = pfd.explain(KERNELS["pairsum"], da.zeros(21, chunks=7), da.zeros(20, chunks=5))
    split, = plan.splits
    assert split.cut.array == "B" and split.offsets == (("A", 1),)
    assert split.chunks == (5, 2, 3, 4, 1, 5) and split.chunks_for("A") == (5, 2, 3, 4, 1, 6)
    assert plan.chunks == ((5, 2, 3, 4, 1, 5),)  # B's: A's boundaries inside B's extent, refined in common
    halo = plan.exchanges[0].axes[0]
    assert (halo.left, halo.right) == (0, 0)  # A's one more element per block is its extent, not a ghost zone
    assert "A: 1 longer along it than the reference" in plan.render()


@pytest.mark.parametrize("chunks", [(5, 7), (1, 1), (7, (19, 2)), (-1, -1)],
                         ids=["uneven", "thinner-than-halo", "B-last-chunk-2", "one-chunk"])
def test_array_one_shorter_along_the_split_loop(chunks):
    rng = np.random.default_rng(15)
    _check("backward", [rng.random(20), np.zeros(21)], chunks, [1])


def test_array_one_shorter_plan():
    """``B[i] = 2 A[i - 1]``, A one shorter than B: A's block ends one before B's, which is
    just where its reads end, so only the left ghost element is exchanged."""
    plan = pfd.explain(KERNELS["backward"], da.zeros(20, chunks=3), da.zeros(21, chunks=3))
    split, = plan.splits
    assert split.offsets == (("A", -1),) and split.chunks_for("A")[-1] == split.chunks[-1] - 1
    assert (plan.exchanges[0].axes[0].left, plan.exchanges[0].axes[0].right) == (1, 0)


@pytest.mark.parametrize("chunks", [((4, 3), (5, 4)), ((13, 11), (3, 2)), (1, 1), ((4, 3), (-1, 3))],
                         ids=["uneven", "points-whole", "thinner-than-halo", "rows-whole"])
def test_points_and_cells_in_2d(chunks):
    """A 2-D field of (n + 1) x (m + 1) points averaged onto n x m cells."""
    rng = np.random.default_rng(16)
    _check("cells", [rng.random((13, 11)), np.zeros((12, 10))], chunks, [1])


@pytest.mark.parametrize("name, cells", [("staggered", 31), ("staggered_cells", 30)])
@pytest.mark.parametrize("chunks", [(6, 5), (5, 5), (1, 1)], ids=["uneven", "even", "thinner-than-halo"])
def test_time_loop_whose_bounds_leave_out_each_blocks_edge(name, cells, chunks):
    """``C[i]`` for ``i`` in ``range(1, n - 1)`` read as ``C[i - 1]`` the next half step: the
    instance at a block's first element is needed but the block's own loop starts one later, so
    the block must reach one further than the reads say (it once came back wrong silently)."""
    rng = np.random.default_rng(24)
    _check(name, [rng.random(31), np.zeros(cells), 3], [chunks[0], chunks[1], None], [0, 1])


def test_array_one_longer_on_cluster(client):
    rng = np.random.default_rng(17)
    _check("pairsum", [rng.random(21), np.zeros(20)], (7, 5), [1], client)


def _sum_args(seed, dtype=float):
    rng = np.random.default_rng(seed)
    if dtype is int:
        return rng.integers(-9, 9, (30, 20)), rng.integers(-9, 9, 20), rng.integers(-9, 9, 30)
    return rng.random((30, 20)), rng.random(20), rng.random(30)


def _dask_args(arrays, chunks):
    return tuple(da.from_array(a, chunks=c) for a, c in zip(arrays, chunks))


@pytest.mark.parametrize("chunks", [((7, 6), 6, 11), ((30, 3), 3, 30), ((7, 20), 20, 7), ((1, 1), 1, 1)],
                         ids=["uneven", "columns-only", "rows-only", "one-element-blocks"])
def test_float_sum_into_a_written_array_split_along_its_loop(chunks):
    """``y[i] += A[i, j] * x[j]`` split along ``j`` with reassociate=True: per-chunk partials
    (the first block's from y, the others' from zeros) added by Dask's tree sum."""
    A, x, y = _sum_args(19)
    args = _dask_args((A, x, y), chunks)
    plan = pfd.explain(KERNELS["matvec_add"], *args, reassociate=True)
    summed = {s.cut.loops: s.summed for s in plan.splits}
    assert summed.get(("j",)) == (("y",) if len(args[1].chunks[0]) > 1 else None)
    got = pfd.call(KERNELS["matvec_add"], *args, reassociate=True).compute(scheduler="threads")
    whole, plain = y.copy(), y.copy()
    KERNELS["matvec_add"](A, x, whole)
    matvec_add(A, x, plain)
    np.testing.assert_allclose(got, whole, rtol=1e-13)  # the additions' order changed
    np.testing.assert_allclose(got, plain, rtol=1e-13)
    np.testing.assert_allclose(got, y + A @ x, rtol=1e-13)


def test_float_sum_split_plan_and_default():
    A, x, y = _dask_args(_sum_args(20), ((7, 6), 6, 11))
    plan = pfd.explain(KERNELS["matvec_add"], A, x, y, reassociate=True)
    assert [s.summed for s in plan.splits] == [(), ("y",)] and plan.merged == ()
    assert "y: summed along it" in plan.render()
    default = pfd.explain(KERNELS["matvec_add"], A, x, y)  # without reassociate: merged, and why
    assert [s.cut.loops for s in default.splits] == [("i",)]
    assert ("A", 1) in {(a, axis) for a, axis, _ in default.merged}
    assert "reassociate=True" in default.render()
    got = KERNELS["matvec_add"](A, x, y).compute(scheduler="threads")
    whole = y.compute()
    KERNELS["matvec_add"](A.compute(), x.compute(), whole)
    np.testing.assert_array_equal(got, whole)  # merged: the loop's own order, bit for bit


def test_integer_sum_into_a_written_array_splits_exactly():
    arrays = _sum_args(21, int)
    args = _dask_args(arrays, ((7, 6), 6, 11))
    assert [s.summed for s in pfd.explain(KERNELS["matvec_add_twice"], *args).splits] == [(), ("y",)]
    got = KERNELS["matvec_add_twice"](*args).compute(scheduler="threads")
    whole, plain = arrays[2].copy(), arrays[2].copy()
    KERNELS["matvec_add_twice"](arrays[0], arrays[1], whole)
    matvec_add_twice(arrays[0], arrays[1], plain)
    np.testing.assert_array_equal(got, whole)
    np.testing.assert_array_equal(got, plain)


def test_sum_from_a_set_start_is_not_split():
    """``y[i] = 0.0`` before the sum: every block would restart it, so ``j`` stays whole."""
    arrays = _sum_args(22)
    args = _dask_args(arrays, ((7, 6), 6, 11))
    plan = pfd.explain(KERNELS["matvec_from_zero"], *args, reassociate=True)
    assert [s.cut.loops for s in plan.splits] == [("i",)]
    _check("matvec_from_zero", list(arrays), [(7, 6), 6, 11], [2])


def test_float_sum_split_on_cluster(client):
    A, x, y = _sum_args(23)
    got, = client.gather(client.compute([pfd.call(KERNELS["matvec_add"], *_dask_args((A, x, y), ((7, 6), 6, 11)),
                                                  reassociate=True)]))
    whole = y.copy()
    KERNELS["matvec_add"](A, x, whole)
    np.testing.assert_allclose(got, whole, rtol=1e-13)


def test_loop_that_leaves_a_written_array_out_is_not_split():
    args = (da.zeros((12, 10), chunks=(5, 4)), da.zeros((12, 10), chunks=(5, 4)), da.zeros(12, chunks=5))
    plan = pfd.explain(KERNELS["rows_and_sums"], *args)
    assert plan.merged == (("B", 1, "r is written but not indexed by loop j"),
                           ("A", 1, "r is written but not indexed by loop j"))
    assert [s.cut.members for s in plan.splits] == [(("B", 0), ("A", 0), ("r", 0))]
    rng = np.random.default_rng(8)
    _check("rows_and_sums", [rng.random((12, 10)), np.zeros((12, 10)), np.zeros(12)], [(5, 4), (5, 4), 3], [1, 2])


def test_an_access_that_moves_two_axes_is_refused_at_its_line():
    with pytest.raises(polyfuse.UnsupportedError, match=r"B axis 0 \(loop i\)") as info:
        KERNELS["diagonal"](da.eye(6, chunks=3), da.zeros(6, chunks=3))
    assert "test_dask_shapes.py:" in str(info.value) and "B[i] = A[i, i]" in str(info.value)


# ---- polyfuse.spec on dask inputs (polyfuse.dask.spec) ------------------------------------------

MLP = """
H[i, j] = relu(sum[k](X[i, k] * W1[k, j]) + b1[j])
Y[i, l] = sum[j](H[i, j] * W2[j, l])
"""


def _mlp_numpy(X, W1, b1, W2):
    return np.maximum(X @ W1 + b1, 0.0) @ W2


def _mlp_inputs(seed):
    rng = np.random.default_rng(seed)
    return rng.random((50, 16)), rng.random((16, 24)), rng.random(24), rng.random((24, 8))


@pytest.mark.parametrize("blas", [True, False])
def test_spec_on_dask_inputs_runs_per_block(blas):
    X, W1, b1, W2 = _mlp_inputs(9)
    mlp = polyfuse.spec(MLP, blas=blas)
    got = mlp(X=da.from_array(X, chunks=(13, 5)), W1=W1, b1=b1, W2=da.from_array(W2, chunks=(10, 3)))
    assert got.chunks == ((13, 13, 13, 11), (3, 3, 2))  # rows of X, columns of W2; k and j whole
    value = got.compute(scheduler="threads")
    np.testing.assert_allclose(value, _mlp_numpy(X, W1, b1, W2), rtol=1e-12)
    if not blas:  # the fused kernel sums every element in one block, in the loop's order
        np.testing.assert_array_equal(value, mlp(X=X, W1=W1, b1=b1, W2=W2))


def test_spec_on_dask_inputs_on_cluster(client):
    X, W1, b1, W2 = _mlp_inputs(10)
    mlp = polyfuse.spec(MLP)
    got = mlp(da.from_array(X, chunks=(20, 16)), da.from_array(W1, chunks=(16, 12)), b1, W2)
    value, = client.gather(client.compute([got]))
    np.testing.assert_allclose(value, mlp(X, W1, b1, W2), rtol=1e-12)
    np.testing.assert_allclose(value, _mlp_numpy(X, W1, b1, W2), rtol=1e-12)


def test_spec_with_two_outputs_a_scalar_and_a_rank_0_result():
    rng = np.random.default_rng(11)
    A, B = rng.random((20, 9)), rng.random((20, 9))
    two = polyfuse.spec("S[i, j] = A[i, j] * s + B[i, j]\nT[i] = sum[j](S[i, j])", outputs=["S", "T"])
    S, T = two(da.from_array(A, chunks=(6, 4)), da.from_array(B, chunks=7), 2.0)
    assert S.chunks[1] == (9,)  # T is not indexed by j: j stays whole
    ref_S, ref_T = two(A, B, 2.0)
    np.testing.assert_array_equal(S.compute(scheduler="threads"), ref_S)
    np.testing.assert_array_equal(T.compute(scheduler="threads"), ref_T)
    np.testing.assert_allclose(ref_T, (A * 2.0 + B).sum(axis=1), rtol=1e-13)
    total = polyfuse.spec("t = sum[i](x[i])")(da.arange(10.0, chunks=3))
    assert total.ndim == 0 and total.compute(scheduler="threads") == 45.0


@pytest.mark.parametrize("chunks", [5, (10, 13), 1, -1], ids=["even", "uneven", "thinner-than-halo", "one-chunk"])
def test_spec_with_offsets_on_chunked_inputs(chunks):
    """``y[i] = x[i] + x[i + 2]``: y is two shorter than x along the split loop."""
    x = np.random.default_rng(18).random(23)
    offsets = polyfuse.spec("y[i] = x[i] + x[i + 2]")
    got = offsets(da.from_array(x, chunks=chunks))
    assert got.shape == (21,)
    value = got.compute(scheduler="threads")
    np.testing.assert_array_equal(value, offsets(x))
    np.testing.assert_array_equal(value, x[:-2] + x[2:])


def test_spec_refuses_outputs_given_with_dask_inputs():
    with pytest.raises(polyfuse.ArgumentError, match="cannot be given with dask inputs"):
        polyfuse.spec("y[i] = 2 * x[i]")(da.ones(4, chunks=2), y=np.empty(4))


def test_window_loop_over_a_dask_weight_vector_leaves_the_split_alone():
    """``acc += w[k] * A[i + k - 2]``: ``k`` moves ``w`` and ``A``, ``i`` moves ``A`` and ``B``;
    ``k`` indexes no output, so ``w`` comes whole and ``A`` is cut along ``i`` only."""
    def weighted(A, w, B):
        for i in range(2, A.shape[0] - 2):
            acc = 0.0
            for k in range(5):
                acc += w[k] * A[i + k - 2]
            B[i] = acc

    kernel = polyfuse.kernel(weighted)
    rng = np.random.default_rng(12)
    A, w, B = rng.random(40), rng.random(5), rng.random(40)
    args = (da.from_array(A, chunks=9), da.from_array(w, chunks=2), da.from_array(B, chunks=9))
    plan = pfd.explain(kernel, *args)
    assert plan.merged == (("w", 0, "loop k indexes no written array"),) and plan.whole == ("w",)
    assert (plan.exchanges[0].axes[0].left, plan.exchanges[0].axes[0].right) == (2, 2)
    whole, plain = B.copy(), B.copy()
    kernel(A, w, whole)
    weighted(A, w, plain)
    got = kernel(*args).compute(scheduler="threads")
    np.testing.assert_array_equal(got, whole)
    np.testing.assert_array_equal(got, plain)


def test_spec_plan_and_float32_inputs():
    from polyfuse.dask.spec import explain

    X, W1, b1, W2 = (a.astype(np.float32) for a in _mlp_inputs(13))
    mlp = polyfuse.spec(MLP, blas=False)
    dX = da.from_array(X, chunks=(13, 5))
    plan = explain(mlp, dX, W1, b1, W2)
    assert [s.cut.array for s in plan.splits] == ["Y"] and plan.splits[0].chunks == (13, 13, 13, 11)
    assert ("X", 1) in {(a, x) for a, x, _ in plan.merged}  # k is summed: whole in every block
    assert not {"W1", "b1", "W2"} & set(plan.chunked)  # numpy weights reach every block as they are
    got = mlp(dX, W1, b1, W2)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.compute(scheduler="threads"), mlp(X, W1, b1, W2))
