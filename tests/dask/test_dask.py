"""polyfuse kernels on dask arrays: every result against the undecorated function on the whole
numpy arrays, on the threaded scheduler and on a LocalCluster of two worker processes."""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import polyfuse  # noqa: E402
import polyfuse.dask as pfd  # noqa: E402


def blur(A, B):
    n = A.shape[0]
    for i in range(1, n - 2):
        B[i] = A[i - 1] + 2.0 * A[i] + A[i + 2]


def skew(A, B):
    n, m = A.shape
    for i in range(2, n):
        for j in range(0, m - 1):
            B[i, j] = A[i - 2, j] + 0.5 * A[i, j + 1]


def chain(A, B):
    n = A.shape[0]
    T = np.empty(n)
    for i in range(1, n - 1):
        T[i] = A[i - 1] + A[i + 1]
    for i in range(2, n - 2):
        B[i] = T[i - 1] * T[i + 1] + A[i]


def heat(A, B, steps):
    n, m = A.shape
    for _t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                B[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                A[i, j] = B[i, j]


def prefix(A):
    for i in range(1, A.shape[0]):
        A[i] = A[i] + A[i - 1]


def ramp(A, B):
    for i in range(A.shape[0]):
        B[i] = A[i] * i


def fixed_window(A, B):
    for i in range(3, 10):
        B[i] = A[i] + 1.0


def dot_shifted(A):
    s = 0.0
    for i in range(A.shape[0] - 1):
        s += A[i + 1] * A[i]
    return s


def biggest(A):
    m = -1.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            m = max(m, A[i, j])
    return m


def int_total(A):
    s = 0
    for i in range(A.shape[0]):
        for j in range(1, A.shape[1]):
            s += A[i, j] - A[i, j - 1]
    return s


def weighted(A, w, scale, B):
    n = A.shape[0]
    for i in range(2, n - 2):
        acc = 0.0
        for k in range(5):
            acc += w[k] * A[i + k - 2]
        B[i] = scale * acc


def smooth3d(A, B):
    n, m, p = A.shape
    for i in range(1, n):
        for j in range(m - 1):
            for k in range(1, p - 1):
                B[i, j, k] = A[i - 1, j, k] + A[i, j + 1, k] - A[i, j, k - 1] * A[i, j, k + 1]


def shift_and_double(A, B, C):
    for i in range(1, A.shape[0]):
        B[i] = A[i - 1]
        C[i] = A[i] * 2.0
    return C


KERNELS = {f.__name__: polyfuse.kernel(f) for f in (blur, skew, chain, heat, prefix, ramp, fixed_window,
                                                    dot_shifted, biggest, int_total, weighted, smooth3d,
                                                    shift_and_double)}


def _reference(fn, *args):
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn(*copies)
    return copies


def _dask(arrays, chunks):
    return [da.from_array(a, chunks=chunks) for a in arrays]


def _compute(result, scheduler):
    results = result if isinstance(result, tuple) else (result,)
    if scheduler == "threads":
        return [r.compute(scheduler="threads") for r in results]
    return scheduler.gather(scheduler.compute(list(results)))


@pytest.fixture(params=["threads", "cluster"])
def scheduler(request):
    return "threads" if request.param == "threads" else request.getfixturevalue("client")


@pytest.mark.parametrize("chunks", [(13, 7, 20, 10), (50,)], ids=["uneven", "one-chunk"])
def test_asymmetric_1d_stencil(chunks, scheduler):
    rng = np.random.default_rng(0)
    A, B = rng.random(50), rng.random(50)
    out = KERNELS["blur"](*_dask([A, B], chunks))
    got, = _compute(out, scheduler)
    np.testing.assert_array_equal(got, _reference(blur, A, B)[1])  # B[0], B[-2:] untouched


def test_halo_depths_are_per_array_and_side():
    A, B = np.zeros((30, 20)), np.zeros((30, 20))
    plan = pfd.explain(KERNELS["skew"], *_dask([A, B], (11, 7)))
    halos = {h.axis: h for h in plan.exchanges[0].axes}
    assert (halos[0].left, halos[0].right, halos[1].left, halos[1].right) == (2, 0, 0, 1)
    assert [(n.array, n.left, n.right) for n in halos[0].needs] == [("A", 2, 0)]  # B is only written
    assert "ghost depth left 2, right 0" in plan.render()


def test_2d_asymmetric_stencil_on_cluster(client):
    rng = np.random.default_rng(1)
    A, B = rng.random((30, 20)), rng.random((30, 20))
    got, = _compute(KERNELS["skew"](*_dask([A, B], (11, 7))), client)
    np.testing.assert_array_equal(got, _reference(skew, A, B)[1])
    # each worker process rebuilt the kernel from its source and compiled it there
    rebuilt = client.run(_rebuilt_kernels)
    assert all("skew" in names for names in rebuilt.values())


def _rebuilt_kernels() -> list[str]:
    from polyfuse.kernel import _KERNELS  # the process's rebuilt (unpickled) kernels

    return [k.py_func.__name__ for k in _KERNELS.values() if k.signatures]


def test_fused_chain_with_local_temporary(scheduler):
    rng = np.random.default_rng(2)
    A, B = rng.random(40), rng.random(40)
    plan = pfd.explain(KERNELS["chain"], *_dask([A, B], 9))
    assert (plan.exchanges[0].axes[0].left, plan.exchanges[0].axes[0].right) == (2, 2)
    got, = _compute(KERNELS["chain"](*_dask([A, B], 9)), scheduler)
    np.testing.assert_array_equal(got, _reference(chain, A, B)[1])


def test_chunks_thinner_than_the_halo_are_merged():
    rng = np.random.default_rng(3)
    A, B = rng.random(24), rng.random(24)
    plan = pfd.explain(KERNELS["blur"], *_dask([A, B], 1))
    assert plan.rechunked == (0,) and min(plan.chunks[0]) >= 2
    got, = _compute(KERNELS["blur"](*_dask([A, B], 1)), "threads")
    np.testing.assert_array_equal(got, _reference(blur, A, B)[1])


@pytest.mark.parametrize("steps_per_exchange, where", [(1, "threads"), (2, "cluster"), (None, "threads")])
def test_time_steps(steps_per_exchange, where, request):
    scheduler = request.getfixturevalue("client") if where == "cluster" else "threads"
    rng = np.random.default_rng(4)
    A, B = rng.random((24, 18)), rng.random((24, 18))
    args = (*_dask([A, B], (10, 9)), 5)
    plan = pfd.explain(KERNELS["heat"], *args, steps_per_exchange=steps_per_exchange)
    k = plan.steps.steps
    assert [e.steps for e in plan.exchanges] == [k] * (5 // k) + ([5 % k] if 5 % k else [])
    assert plan.exchanges[0].axes[0].left == k  # radius 1, k steps between exchanges
    new_a, new_b = _compute(pfd.call(KERNELS["heat"], *args, steps_per_exchange=steps_per_exchange), scheduler)
    ref_a, ref_b, _ = _reference(heat, A, B, 5)
    np.testing.assert_array_equal(new_a, ref_a)
    np.testing.assert_array_equal(new_b, ref_b)


@pytest.mark.parametrize("chunks", [10, 15])
def test_carried_dependence_is_refused_and_named(chunks):
    A = da.from_array(np.ones(30), chunks=chunks)
    with pytest.raises(polyfuse.UnsupportedError, match=r"RAW on A: S0 -> S0.*rechunk\(\{0: -1\}\)"):
        KERNELS["prefix"](A)
    got, = _compute(KERNELS["prefix"](A.rechunk(-1)), "threads")  # one chunk: fine
    np.testing.assert_array_equal(got, np.arange(1, 31))


def test_one_dask_array_for_a_written_and_another_argument_is_refused():
    """``blur(d, d)`` on numpy arrays reads its own writes through ``A`` (numpy arguments that
    share memory are refused); on dask each block read the values it was given, a silent
    different answer (cp37); a separate copy of the values runs as the function on copies."""
    x = np.arange(10.0)
    d = da.from_array(x, chunks=(3, 3, 4))
    with pytest.raises(polyfuse.ArgumentError, match="'A' and 'B' of blur are the same dask array"):
        KERNELS["blur"](d, d)
    got, = _compute(KERNELS["blur"](d, d.map_blocks(np.copy)), "threads")
    np.testing.assert_array_equal(got, _reference(blur, x, x)[1])


@pytest.mark.parametrize("name, why", [("ramp", "uses the loop index"), ("fixed_window", "do not move")])
def test_kernels_that_are_not_the_same_on_every_chunk_are_refused(name, why):
    A, B = np.ones(30), np.ones(30)
    with pytest.raises(polyfuse.UnsupportedError, match=why) as info:
        KERNELS[name](*_dask([A, B], 10))
    assert "test_dask.py:" in str(info.value)  # the kernel's line


def test_kernel_pickles_without_compiled_code():
    kernel = polyfuse.kernel(blur)
    A, B = np.ones(10), np.ones(10)
    kernel(A, B)
    assert kernel.signatures
    clone = pickle.loads(pickle.dumps(kernel))
    assert clone is not kernel and not clone.signatures  # rebuilt from source, compiles on use
    assert pickle.loads(pickle.dumps(kernel)) is clone  # one kernel per process
    clone(A, B)
    np.testing.assert_array_equal(B, _reference(blur, np.ones(10), np.ones(10))[1])


def test_pickled_kernel_keeps_every_option():
    """``blas`` and ``boundscheck`` travel too: a worker must run the kernel the user built."""
    kernel = polyfuse.kernel(blur, blas=False, boundscheck=True, fuse="none")
    clone = pickle.loads(pickle.dumps(kernel))
    assert clone.options.blas is False and clone.options.fuse == "none"
    assert clone.init_options == kernel.init_options


def test_kernel_from_a_file_that_is_gone_ships_its_source(tmp_path, monkeypatch):
    """Pickled by value (as cloudpickle does for ``__main__``), then unpickled where its file
    cannot be read: the source that travelled with it is compiled."""
    import importlib
    import linecache

    cloudpickle = pytest.importorskip("cloudpickle")
    (tmp_path / "shipped_kernel.py").write_text(
        "import polyfuse\n\n@polyfuse.kernel\ndef twice(A, B):\n"
        "    for i in range(A.shape[0]):\n        B[i] = 2.0 * A[i]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("shipped_kernel")
    cloudpickle.register_pickle_by_value(module)
    try:
        payload = cloudpickle.dumps(module.twice)
    finally:
        cloudpickle.unregister_pickle_by_value(module)
    (tmp_path / "shipped_kernel.py").unlink()
    linecache.clearcache()
    clone = pickle.loads(payload)
    A, B = np.arange(5.0), np.zeros(5)
    clone(A, B)
    np.testing.assert_array_equal(B, 2.0 * A)


def test_reduction_max_is_exact_on_cluster(client):
    rng = np.random.default_rng(5)
    A = rng.random((30, 20))
    A[3, 4] = np.nan  # Python's max(m, nan) keeps m: so do the partials and their combination
    result = KERNELS["biggest"](da.from_array(A, chunks=(7, 6)))
    assert result.ndim == 0
    assert client.compute(result).result() == biggest(A)


def test_reduction_with_ghost_zone_int_exact():
    A = np.random.default_rng(6).integers(-1000, 1000, size=(12, 40))
    Ad = da.from_array(A, chunks=(5, 9))
    plan = pfd.explain(KERNELS["int_total"], Ad)
    assert [(h.axis, h.left, h.right) for h in plan.exchanges[0].axes] == [(0, 0, 0), (1, 1, 0)]
    assert KERNELS["int_total"](Ad).compute(scheduler="threads") == int_total(A)


def test_float_sum_needs_reassociate():
    A = np.random.default_rng(7).random(50)
    Ad = da.from_array(A, chunks=(13, 7, 20, 10))
    with pytest.raises(polyfuse.UnsupportedError, match="reassociate=True"):
        KERNELS["dot_shifted"](Ad)
    got = pfd.call(KERNELS["dot_shifted"], Ad, reassociate=True).compute(scheduler="threads")
    np.testing.assert_allclose(got, dot_shifted(A), rtol=1e-13)


@pytest.mark.parametrize("subscripts, where", [("ij,jk->ik", "threads"), ("ij,jk,kl->il", "cluster"),
                                               ("ij,j", "threads"), ("ij->", "threads")])
def test_einsum_on_dask_operands(subscripts, where, request):
    scheduler = request.getfixturevalue("client") if where == "cluster" else "threads"
    rng = np.random.default_rng(8)
    arrays = {"ij": rng.random((30, 40)), "jk": rng.random((40, 25)), "kl": rng.random((25, 12)), "j": rng.random(40)}
    chunks = {"ij": (11, 13), "jk": (13, 10), "kl": (10, 5), "j": 13}
    names = subscripts.split("->")[0].split(",")
    operands = [da.from_array(arrays[n], chunks=chunks[n]) for n in names]
    result = polyfuse.einsum(subscripts, *operands)
    got, = _compute(result, scheduler)
    np.testing.assert_allclose(got, np.einsum(subscripts, *(arrays[n] for n in names)), rtol=1e-12)


# (subscripts, [(shape, chunks) per operand]): ellipses (right-aligned, fewer axes, implicit
# output), diagonals over uneven chunks (the label's chunks unified across both axes), traces,
# and size-1 axes broadcasting against longer ones
ELLIPSES_AND_DIAGONALS = [
    ("...k,kl->...l", [((2, 7, 9), (1, 3, 4)), ((9, 5), (4, 2))]),
    ("...k,kl", [((2, 7, 9), (1, 3, 4)), ((9, 5), (4, 2))]),
    ("b...ij,b...jk->b...ik", [((2, 3, 4, 5), (1, 2, 3, 2)), ((2, 3, 5, 6), (2, 1, 2, 3))]),
    ("...,...", [((4, 5), (2, 2)), ((5,), (3,))]),
    ("ii->i", [((10, 10), (3, 4))]),
    ("ii->", [((10, 10), (3, 4))]),
    ("iij->j", [((6, 6, 5), (4, 3, 2))]),
    ("ii,i->i", [((10, 10), (3, 4)), ((10,), (5,))]),
    ("i...i", [((5, 3, 5), (2, 2, 3))]),
    ("ij,ij->i", [((1, 12), (1, 5)), ((7, 12), (3, 4))]),
    ("...i,...i->...", [((1, 12), (1, 5)), ((7, 12), (3, 4))]),
]


@pytest.mark.parametrize("subscripts, operands", ELLIPSES_AND_DIAGONALS, ids=[s for s, _ in ELLIPSES_AND_DIAGONALS])
def test_einsum_ellipses_diagonals_and_broadcasting(subscripts, operands):
    rng = np.random.default_rng(12)
    arrays = [rng.random(shape) for shape, _ in operands]
    result = polyfuse.einsum(subscripts, *(da.from_array(a, chunks=c) for a, (_, c) in zip(arrays, operands)))
    expected = np.einsum(subscripts, *arrays)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.compute(scheduler="threads"), expected, rtol=1e-12)


def test_einsum_diagonal_with_a_numpy_operand():
    rng = np.random.default_rng(13)
    A, x = rng.random((12, 12, 3)), rng.random(12)
    result = polyfuse.einsum("ii...,i->...i", da.from_array(A, chunks=(5, 4, 2)), x)
    np.testing.assert_allclose(result.compute(scheduler="threads"), np.einsum("ii...,i->...i", A, x), rtol=1e-12)


def test_einsum_refuses_what_it_cannot_split():
    A = da.ones((4, 4), chunks=2)
    with pytest.raises(polyfuse.ArgumentError, match="out="):
        polyfuse.einsum("ij->ji", A, out=np.empty((4, 4)))
    with pytest.raises(polyfuse.ArgumentError, match="extents"):
        polyfuse.einsum("ij,ij->i", A, da.ones((4, 3), chunks=2))
    with pytest.raises(polyfuse.ArgumentError, match="rank 2"):
        polyfuse.einsum("ijk->i", A)


def test_numpy_weights_and_scalars_reach_every_block():
    rng = np.random.default_rng(9)
    A, w, B = rng.random(40), rng.random(5), rng.random(40)
    plan = pfd.explain(KERNELS["weighted"], da.from_array(A, chunks=9), w, 0.5, da.from_array(B, chunks=9))
    assert (plan.exchanges[0].axes[0].left, plan.exchanges[0].axes[0].right) == (2, 2)
    got = KERNELS["weighted"](da.from_array(A, chunks=9), w, 0.5, da.from_array(B, chunks=9))
    np.testing.assert_array_equal(got.compute(scheduler="threads"), _reference(weighted, A, w, 0.5, B)[3])


def test_3d_stencil_split_along_every_axis():
    rng = np.random.default_rng(10)
    A, B = rng.random((9, 8, 10)), rng.random((9, 8, 10))
    Ad, Bd = _dask([A, B], (4, 3, 4))
    halos = {h.axis: (h.left, h.right) for h in pfd.explain(KERNELS["smooth3d"], Ad, Bd).exchanges[0].axes}
    assert halos == {0: (1, 0), 1: (0, 1), 2: (1, 1)}
    got = KERNELS["smooth3d"](Ad, Bd).compute(scheduler="threads")
    np.testing.assert_array_equal(got, _reference(smooth3d, A, B)[1])


def test_several_outputs_or_the_returned_argument():
    rng = np.random.default_rng(11)
    A, B, C = rng.random(20), rng.random(20), rng.random(20)
    ref = _reference(shift_and_double, A, B, C)
    returned = KERNELS["shift_and_double"](*_dask([A, B, C], 6))  # returns C: its new value
    np.testing.assert_array_equal(returned.compute(scheduler="threads"), ref[2])
    plan = pfd.explain(KERNELS["shift_and_double"], *_dask([A, B, C], 6))
    assert plan.written == ("B", "C")


def regrouped(A, B):
    B[:] = A.reshape(A.shape[0] // 2, -1).sum(axis=1)[0] + A


def damped_steps(A, B, T, dt):
    steps = int(T / dt)
    for _ in range(steps):
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A[1:-1] = B[1:-1]


def test_a_size_computed_from_scalar_arguments_runs_on_dask_arrays():
    """frontend/call_sizes.py: int(T / dt) is the same in every block (numpy's result)."""
    A, B = np.arange(30.0), np.zeros(30)
    kernel = polyfuse.kernel(damped_steps)
    for T in (1.0, 0.5, 1.0):  # the same sizes and chunks: a plan per size computed
        expected = _reference(damped_steps, A, B, T, 0.25)
        got = kernel(*_dask([A, B], 10), T, 0.25)
        for g, w in zip(got, expected[:2]):
            np.testing.assert_allclose(g.compute(scheduler="threads"), w)


def counted_means(x, out, w, s):
    count = (x.shape[0] - w) // s + 1
    for i in range(count):
        out[i] = np.mean(x[s * i:s * i + w])


def test_a_size_computed_from_the_split_extent_that_blocks_count_otherwise_is_refused():
    """Each block computes ``count`` from its own extent, which gives another count: isl finds
    that the blocks' loop bounds do not move with the chunks (polyfuse.dask.blocks); refused at
    the statement's line.  With the axis in one chunk it runs."""
    x, out = np.arange(30.0), np.zeros(30)
    kernel = polyfuse.kernel(counted_means)
    with pytest.raises(polyfuse.UnsupportedError, match=r"its loop bounds do not move with the chunk") as info:
        kernel(*_dask([x, out], 10), 3, 2)
    assert "out[i] = np.mean(x[s * i:s * i + w])" in str(info.value)
    expected, whole = _reference(counted_means, x, out, 3, 2), _reference(kernel, x, out, 3, 2)
    got = kernel(*_dask([x, out], 30), 3, 2).compute(scheduler="threads")
    np.testing.assert_array_equal(got, expected[1])
    np.testing.assert_array_equal(got, whole[1])


def test_reshapes_that_regroup_elements_are_refused():
    """A chunk's elements in C order are not the array's: such a reshape needs the whole array."""
    A, B = np.arange(30.0), np.zeros(30)
    with pytest.raises(polyfuse.UnsupportedError, match="regroup"):
        polyfuse.kernel(regrouped)(*_dask([A, B], 10))
    expected = _reference(regrouped, A, B)
    got = [B.copy()]
    polyfuse.kernel(regrouped)(A, got[0])
    np.testing.assert_allclose(got[0], expected[1])


def edged_chain(A, B, out):
    n, m = A.shape
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            T[i, j] = math.sqrt(A[i, j] * A[i, j] + B[i, j] * B[i, j])
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = T[i - 1, j] + T[i + 1, j] + T[i, j - 1] + T[i, j + 1] - 4.0 * T[i, j]


@pytest.mark.parametrize("chunks", [(4, 5), ((3, 5, 4), (2, 7, 4)), (12, 13)], ids=["even", "uneven", "one-block"])
def test_blocks_that_overwrite_a_written_argument_start_empty(chunks):
    """``out`` is only written, and every element of an inner chunk is: such blocks run on an
    empty array (``plan.overwritten``, isl at the call's sizes), edge blocks on ``out``'s values
    (the kernel keeps them); the result equals the whole-array kernel and the function."""
    rng = np.random.default_rng(5)
    arrays = [rng.random((12, 13)), rng.random((12, 13)), rng.random((12, 13))]
    kernel = polyfuse.kernel(edged_chain)
    plan = pfd.explain(kernel, *_dask(arrays, chunks))
    inner = {w for w in itertools.product(*(range(len(s.chunks)) for s in plan.splits))
             if plan.splits and all(0 < k < len(s.chunks) - 1 for k, s in zip(w, plan.splits))}
    assert dict(plan.overwritten).get("out", frozenset()) == inner
    got = kernel(*_dask(arrays, chunks)).compute(scheduler="threads")
    np.testing.assert_array_equal(got, _reference(edged_chain, *arrays)[2])
    np.testing.assert_array_equal(got, _reference(kernel, *arrays)[2])
