"""Index grids (np.ogrid, np.mgrid, np.indices) and advanced indexing with several index arrays
(frontend/advanced_index.py), against NumPy on the same inputs: broadcasting of the index arrays,
their place in the result (in place where adjacent, first otherwise), NumPy's wrap of negative
values and IndexError past the end, stores through grids, and the stores refused."""

from __future__ import annotations

import linecache

import islpy as isl
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse import UnsupportedError

RNG = np.random.default_rng(7)
M = RNG.random((6, 7))
T3 = RNG.random((4, 5, 6))
IDX = np.array([3, -1, 0, 1, -6])  # rows of M: negative values wrap
JDX = np.array([[6, -7, 2, 0, 1]])  # columns of M, shape (1, 5)


def _kernel_from(source: str):
    filename = f"<advanced-index-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"]


def _same(fn, *args, targets=("python", "cpu")):
    """``fn`` compiled writes and returns what ``fn`` does, dtypes and shapes included."""
    for target in targets:
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = fn(*expected)
        got = polyfuse.kernel(fn, target=target, verify=True)(*actual)
        for e, a in zip(expected + [want], actual + [got]):
            if isinstance(e, np.ndarray):
                assert a.dtype == e.dtype and a.shape == e.shape, target
                np.testing.assert_allclose(a, e, rtol=1e-13, atol=1e-14, err_msg=target)


@pytest.mark.parametrize("body", [
    "return np.ogrid[2:7] * 3",
    "return np.ogrid[6:0:-2] + 0",
    "return np.mgrid[0:9:4] + 1",
    "i, j = np.ogrid[0:4, 1:6]\n    return i * 10 + j",
    "i, j = np.mgrid[0:4, 0:x.shape[1]]\n    return i - 2 * j",
    "i, j, k = np.indices((2, 3, x.shape[0]))\n    return i * 100 + j * 10 + k",
    "return np.indices(x.shape)[1] * 1.5",
    "i = np.ogrid[1:x.shape[0] - 1]\n    return i",
    "i, j = np.ogrid[:3, :4]\n    return (i + 1) * (j - 1) + x[i, j]",
    "s = 1\n    i = np.ogrid[s:s + 3]\n    s = 4\n    return x[i, s] + i",  # the grid keeps s = 1
    "s = int(x[0, 0] * 3)\n    i = np.ogrid[s:s + 2]\n    return x[i, 0] * 2",
    "s = 1\n    r = np.arange(s, s + 3)\n    s = 2\n    return x[r, s] + r",  # r keeps s = 1 too
])
def test_index_grids_as_values(body):
    _same(_kernel_from(f"def k(x):\n    {body}\n"), M)


@pytest.mark.parametrize("body", [
    "i, j = np.ogrid[0:6, 0:7]\n    return x * i + j",          # int64 grids make float32 float64
    "i = np.ogrid[0:6]\n    return x[i, 1:] * np.int8(3) + i[:, None].astype(np.float32)",
    "i, j = np.ogrid[0:3, 0:4]\n    i[1, 0] = 5\n    return x[i, j]",  # a grid written: an array
    "r = np.arange(1, 5)\n    return x[r, r - 1] + x[r[::-1], 0]",  # np.arange as an index grid
])
def test_grids_meet_other_values_as_numpy_arrays(body):
    _same(_kernel_from(f"def k(x):\n    {body}\n"), M.astype(np.float32))


@pytest.mark.parametrize("expr", [
    "x[idx, idx]",                                 # two index arrays of one shape
    "x[idx[:, None], jdx]",                        # (5, 1) and (1, 5) broadcast to (5, 5)
    "x[idx[:3, None], jdx[0, 2:]]",                # (3, 1) and (3,)
    "x[idx, 2]",                                   # an integer among them: adjacent, in place
    "x[-1, jdx[0]]",
    "t[idx[:4] % 4, :, jdx[0, :4] % 6]",          # not adjacent: the broadcast axes first
    "t[:, idx[:4] % 5, jdx[0, :4] % 6]",          # adjacent after a slice: in place
    "t[1, 1:, idx % 6]",                           # an integer apart from the array: first
    "t[None, idx % 4, :2, -2]",
    "t[idx % 4, ..., jdx[0] % 6]",
])
def test_several_index_arrays_read_as_numpy(expr):
    _same(_kernel_from(f"def k(x, t, idx, jdx):\n    return {expr} * 1.0\n"), M, T3, IDX, JDX)


@pytest.mark.parametrize("expr", [
    "x[i, j]", "x[i + 1, j - 1]", "x[i - 2, 2 * j]", "x[i, idx[j % 5]]", "x[idx[i], j]",
    "x[i + idx[i], j]", "x[j % 6, i]",
])
def test_grids_and_computed_indices(expr):
    # i in [0, 5), j in [0, 3): i - 2 and j - 1 reach negative values, which NumPy wraps
    source = f"def k(x, idx):\n    i, j = np.ogrid[0:5, 0:3]\n    return {expr} + 0.0\n"
    _same(_kernel_from(source), M, IDX)


@pytest.mark.parametrize("expr", ["x[idx, idx]", "x[i, j]", "x[i + idx[i], j]", "x[i, 2 * j]"])
def test_an_index_past_the_end_raises_index_error(expr):
    source = f"def k(x, idx):\n    i, j = np.ogrid[0:5, 0:8]\n    return {expr} + 0.0\n"
    fn = _kernel_from(source)
    bad = np.array([1, 6, 0, 2, 3])
    with pytest.raises(IndexError):
        fn(M, bad)
    for target in ("python", "cpu"):
        with pytest.raises(IndexError):
            polyfuse.kernel(fn, target=target)(M, bad)


def ogrid_jacobi(A, B, steps):
    n = A.shape[0]
    i, j = np.ogrid[1:n - 1, 1:n - 1]
    for _ in range(steps):
        A[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])  # reads A: all first
        B[i, j] += A[i, j]
    return A


def test_a_time_loop_of_grid_stores_reading_the_target():
    # the python target only: tests/corpus/numpy_unstructured.py runs a time loop of grid stores on cpu
    _same(ogrid_jacobi, RNG.random((7, 7)), RNG.random((7, 7)), 3, targets=("python",))


def test_grid_stores_broadcast_and_augment():
    def k(x, v):
        i, j = np.ogrid[0:3, 2:6]
        x[i, j] = v[:4]            # the value broadcasts over the (3, 4) grid
        x[i + 3, j - 2] += x[i, j]
        x[2, j] = -1.0             # a grid with an integer
        return x
    _same(k, M, RNG.random(7))


@pytest.mark.parametrize("body, idx", [
    ("x[idx] = 1.0", [1, 1, 2]),
    ("x[idx] = v[:3, None] * x[:3]", [1, 1, 2]),  # the value read in full first, the last duplicate kept
    ("x[0, idx] = v[:3]", [5, 2, 5]),
    ("x[idx, 1:3] = -v[:6].reshape(3, 2)", [4, 0, 4]),
    ("inv = np.empty_like(idx)\n    inv[idx] = np.arange(idx.shape[0])\n    return inv", [2, 0, 3, 1]),
    ("y = x[:, 0] * 1.0\n    y[idx] = y[::-1][:idx.shape[0]]\n    return y", [0, 5, 0]),
    # each element read where it is written: a repeated index reads the old value both times
    ("x[idx] = x[idx] * 3.0", [1, 1, 2]),
    ("x[idx[0]] = x[idx[0]] * 3.0", [1, 1, 2]),  # one row: read where it is written, no copy needed
    ("x[idx, 1:3] = v[:2] + x[idx, 1:3]", [4, 0, 4]),
    ("y = x[:, 0] * 1.0\n    y[idx] = y[idx] + v[:3]\n    return y", [0, 5, 0]),
])
def test_a_store_through_one_run_time_index_array_writes_in_index_order(body, idx):
    """NumPy writes a 1-d index array's positions in order (a repeated index keeps the last value);
    the store's loop runs in that order (its subscript computed at run time is a dependence on
    the whole array)."""
    fn = _kernel_from(f"def k(x, idx, v):\n    {body}\n")
    _same(fn, M, np.array(idx), RNG.random(7))


@pytest.mark.parametrize("body, message", [
    ("i, j = np.ogrid[0:3, 0:3]\n    x[i + j, 0] = 1.0", "write one element twice"),
    ("i, j = np.ogrid[0:3, 0:3]\n    g = i\n    g[0, 0] = 5\n    return i", "'g' = 'i', an index grid"),
    ("i, j = np.ogrid[0:3, 0:3:0.5]\n    return i", "index grid step"),
    ("i, j = np.ogrid[0:3]\n    return i", "unpacking"),
    ("return np.ogrid[0:3, 0:3]", "used as one array value"),
    ("x.shape = (7, 6)\n    return x", "in-place reshape"),
    ("y = x + 1.0\n    x.shape = y.shape = 42\n    return y", "assignment to x.shape"),
])
def test_refused_with_the_construct_named(body, message):
    fn = _kernel_from(f"def k(x, idx):\n    {body}\n")
    with pytest.raises(UnsupportedError, match=message) as info:
        polyfuse.kernel(fn, target="python")(M.copy(), np.array([1, 1, 2]))
    assert "<advanced-index-" in str(info.value).splitlines()[0]  # file:line of the statement


@st.composite
def index_expressions(draw):
    """A subscript of a (6, 7) array: per axis an ogrid axis plus a constant, an index array
    read (possibly shifted), an integer or a slice."""
    items = []
    for axis, n in enumerate((6, 7)):
        kind = draw(st.sampled_from(["grid", "table", "int", "slice"]))
        if kind == "grid":
            items.append(f"{'ij'[axis]} + {draw(st.integers(-2, 2))}")
        elif kind == "table":
            items.append(f"idx[{'ij'[axis]}] {draw(st.sampled_from(['+', '-']))} {draw(st.integers(0, 2))}")
        elif kind == "int":
            items.append(str(draw(st.integers(-n, n - 1))))
        else:
            items.append(draw(st.sampled_from([":", "1:", "::2", ":-1"])))
    return ", ".join(items)


@settings(max_examples=15, deadline=None)
@given(index_expressions())
def test_generated_index_expressions(items):
    source = f"def k(x, idx):\n    i, j = np.ogrid[0:4, 0:5]\n    return x[{items}] * 2.0\n"
    fn = _kernel_from(source)
    idx = np.array([0, 3, -1, 2, 4])
    try:
        want = fn(M, idx)
    except IndexError:
        with pytest.raises(IndexError):
            polyfuse.kernel(fn, target="python")(M, idx)
        return
    got = polyfuse.kernel(fn, target="python")(M, idx)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def grid_and_table(x, y, idx):
    n, m = x.shape
    i, j = np.ogrid[1:n - 1, 1:m - 1]
    y[i, j] = x[i, j - 1] + x[i - 1, j + 1] + x[idx[i], j]


def test_grid_subscripts_are_exact_accesses_and_table_reads_cover_the_axis():
    args = (M, np.zeros_like(M), np.array([0, 1, 2, 3, 4, 5]))
    scop = polyfuse.kernel(grid_and_table, target="python").compile(*args).stages["lift"]
    (statement,) = scop.statements
    reads: dict[str, list] = {}
    statement.reads.foreach_map(lambda m: m.foreach_basic_map(
        lambda b: reads.setdefault(b.get_tuple_name(isl.dim_type.out), []).append(b)))
    assert statement.writes.is_single_valued()  # y[1 + i, 1 + j]: a slice assignment
    exact = [b for b in reads["x"] if b.is_single_valued()]
    assert len(exact) == 2 and len(reads["x"]) == 3  # x[i, j - 1], x[i - 1, j + 1] exact; x[idx[i], j] any row
    assert all(b.is_single_valued() for b in reads["idx"])


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(-2, 2), min_size=4, max_size=4), st.sampled_from(["=", "+="]))
def test_generated_grid_stores_reading_the_target(offsets, op):
    a, b, c, d = offsets
    source = (f"def k(x):\n    i, j = np.ogrid[2:4, 2:5]\n    for _ in range(2):\n"
              f"        x[i + {a}, j + {b}] {op} 0.5 * x[i + {c}, j + {d}] + x[i, j]\n    return x\n")
    fn = _kernel_from(source)
    want = fn(M.copy())
    got = polyfuse.kernel(fn, target="python")(M.copy())
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("body", [
    "i, j = np.ogrid[0:40, 0:5]\n    i[1, 0] = 5\n    return x[i, j]",
    "i, j = np.ogrid[0:40, 0:5]\n    i = i * 1\n    i[3, 0] = 7\n    return x[i, j] + j",
    "i, j = np.mgrid[0:40, 0:5]\n    j[2, 1] = 0\n    return x[i, j]",
])
@pytest.mark.parametrize("contract", [True, False])
def test_a_grid_unpacked_then_written_holds_its_values(body, contract):
    """``i, j = np.ogrid[...]`` and then a write into ``i``: ``i`` is an array of the grid's values.
    The tuple-unpacking path dropped the statements that fill it, so every element but the one
    written was read uninitialized (an IndexError, or a silently wrong gather where the garbage
    happened to be a valid index; the 3 x 1 grid of the test above passed by luck)."""
    fn = _kernel_from(f"def k(x):\n    {body}\n")
    x = RNG.random((48, 9))
    for target in ("python", "cpu"):
        kernel = polyfuse.kernel(fn, target=target, verify=True, contract=contract, cache=False)
        np.testing.assert_array_equal(kernel(x.copy()), fn(x.copy()), err_msg=f"{target} contract={contract}")
    scop = polyfuse.kernel(fn, target="python", cache=False).compile(x).stages["lift"]
    fills = [s for s in scop.statements if s.array in ("i", "j") and s.span.line == 2]  # the unpacking line
    assert fills, "the grid's fill is missing"


def one_hot(labels, k):
    out = np.zeros((labels.shape[0], k))
    out[np.arange(labels.shape[0]), labels] = 1.0
    return out


def add_at_rows(A, cols, v):
    A[np.arange(A.shape[0]), cols] += v  # one element per row: no duplicates, NumPy's buffering agrees
    return A


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (one_hot, (np.array([2, 0, 3, 3, 1]), 4)), (one_hot, (np.array([0, -1, 3]), 4)),  # -1 wraps, as NumPy's
    (add_at_rows, (np.zeros((3, 4)), np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0]))),
], ids=lambda a: getattr(a, "__name__", ""))
def test_a_store_whose_affine_indices_tell_positions_apart(fn, args, target):
    """``Y[np.arange(n), labels] = 1``: the affine grid alone writes each row once, so the index
    array computed at run time cannot make NumPy's order of duplicates matter."""
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = polyfuse.kernel(fn, target=target)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    np.testing.assert_array_equal(got, want)


def test_a_one_hot_label_past_the_end_raises_index_error():
    with pytest.raises(IndexError):
        polyfuse.kernel(one_hot, target="python")(np.array([0, 5]), 4)
