"""frontend/rewrite.py: numba-style code -> the subset, shown before/after in Python syntax."""

from __future__ import annotations

import ast
import inspect
import math
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import njit, prange
from polyfuse.frontend.rewrite import rewrite
from polyfuse.frontend.source import read_source

import polyfuse
from polyfuse import ArgumentError, UnsupportedError
from polyfuse.runtime.signature import argument_of

V = np.arange(8.0)
M = np.arange(12.0).reshape(3, 4)


def rewritten(fn, *args) -> str:
    """The kernel's body after the rewrites, for these arguments."""
    names = list(inspect.signature(fn).parameters)
    arguments = tuple(argument_of(n, a) for n, a in zip(names, args))
    source = rewrite(read_source(fn), dict(fn.__globals__), arguments, fn)
    return "\n".join(ast.unparse(s) for s in source.tree.body)


def same_as_python(fn, *args, **options):
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn(*expected)
    polyfuse.kernel(fn, verify=True, **options)(*actual)
    for e, a in zip(expected, actual):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(a, e)


def error_of(fn, *args) -> UnsupportedError:
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    return info.value


def line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


# ---- sizes -----------------------------------------------------------------------------------

def k_unpack(A, B):
    n, m = A.shape
    h = (n + 1) // 2
    for i in range(h):
        for j in range(m - 1):
            B[i, j] = A[i, j + 1]


def test_shape_unpacking_and_integer_locals_become_extents():
    assert rewritten(k_unpack, M, M) == (
        "for i in range((A.shape[0] + 1) // 2):\n"
        "    for j in range(A.shape[1] - 1):\n"
        "        B[i, j] = A[i, j + 1]"
    )
    same_as_python(k_unpack, M, np.zeros_like(M))


def k_len_size(x, k, y):
    n = len(x)
    m = n - 2 * k
    for i in range(m):
        y[i] = x[i + k] + x.shape[-1] + x.size + x.ndim


def test_len_negative_axis_size_and_ndim():
    assert rewritten(k_len_size, V, 2, V) == (
        "for i in range(x.shape[0] - 2 * k):\n    y[i] = x[i + k] + x.shape[0] + x.shape[0] + 1"
    )
    same_as_python(k_len_size, V, 2, np.zeros(8))


def k_len_of_array_expressions(A, x):
    s = 0.0
    for i in range(len(x[::2])):  # a slice's length in a loop bound
        s += x[2 * i]
    return s + len(A[:, 0]) + len(A.T) * 10 + len(np.sort(x)) * 100 + len(-x[2:]) * 1000


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_len_of_an_array_expression_is_its_first_extent(target):
    """``len(e)`` of an array expression (a slice, ``.T``, arithmetic, a NumPy call) is
    ``e.shape[0]``; it was refused as "len() of an array" (cz52's mix_fuzz), also where the
    slice is empty."""
    kernel = polyfuse.kernel(k_len_of_array_expressions, target=target)
    for A, x in ((np.ones((3, 4)), np.arange(5.0)), (np.ones((0, 2)), np.ones(1))):
        got, want = kernel(A, x), k_len_of_array_expressions(A, x)
        assert got == want and type(got) is type(want)


def k_size_2d(A, B):
    total = A.size
    for i in range(A.shape[0]):
        for j in range(A.shape[-1]):
            B[i, j] = A[i, j] / total


def test_size_of_a_matrix_is_the_product_of_its_extents():
    assert "total = A.shape[0] * A.shape[1]" in rewritten(k_size_2d, M, M)
    same_as_python(k_size_2d, M, np.zeros_like(M))


def k_changing(x, y):
    n = x.shape[0]
    s = 0
    for i in range(n):
        s += 1
        y[i] = s
    n = n + 1
    y[0] = n


def test_integer_locals_that_change_stay_scalars():
    text = rewritten(k_changing, V, V)
    assert text.startswith("n = x.shape[0]\ns = 0")
    assert "n = n + 1" in text


def k_bad_unpack(A, B):
    n, m, p = A.shape
    B[0, 0] = n


def test_unpacking_a_shape_into_the_wrong_number_of_names():
    err = error_of(k_bad_unpack, M, M)
    assert "3 names unpack A.shape, but it has 2 axes" in str(err)
    assert err.span.line == line_of(k_bad_unpack, "n, m, p")


def k_plain(n, A, B):
    for i in range(n):
        if i > 0:
            B[i] = A[i] + A[i - 1] if i < 3 else 0.0


def test_rewrites_do_nothing_to_subset_code():
    before = ast.dump(read_source(k_plain).tree)
    arguments = (argument_of("n", 4), argument_of("A", V), argument_of("B", V))
    after = rewrite(read_source(k_plain), dict(k_plain.__globals__), arguments, k_plain)
    assert ast.dump(after.tree) == before and not after.foreign


# ---- prange --------------------------------------------------------------------------------------

def k_pranges(A, B):
    for i in prange(A.shape[0]):
        for j in numba.prange(A.shape[1]):
            B[i, j] = A[i, j]
    for i in polyfuse.prange(A.shape[0]):
        B[i, 0] += 1.0


def test_prange_loops_are_range_loops():
    assert rewritten(k_pranges, M, M).count("in range(") == 3
    same_as_python(k_pranges, M, np.zeros_like(M))


# ---- helpers -------------------------------------------------------------------------------------

def relu(v):
    return max(v, 0.0)


@njit
def sigmoid(v):
    e = math.exp(-v)
    return 1.0 / (1.0 + e)


@njit
def swish(v):
    return v * sigmoid(v)


def k_helpers(x, y):
    for i in range(len(x)):
        y[i] = relu(x[i]) + swish(x[i])


def test_value_helpers_become_expressions():
    assert rewritten(k_helpers, V, V) == (
        "for i in range(x.shape[0]):\n"
        "    y[i] = max(x[i], 0.0) + x[i] * (1.0 / (1.0 + math.exp(-x[i])))"
    )
    same_as_python(k_helpers, V - 4.0, np.zeros(8))


def fill(A, v):
    for i in range(len(A)):
        A[i] = v * i


def k_statement_helper(x, y):
    for i in range(2):
        fill(x, i + 1.0)
    fill(y, x[3])


def test_statement_helpers_rename_their_names_and_read_arguments_once():
    text = rewritten(k_statement_helper, V, V)
    assert "for fill_i in range(x.shape[0]):" in text  # the helper's i does not capture the caller's
    assert "fill_v = x[3]" in text  # evaluated once, as the call does, before fill writes y
    same_as_python(k_statement_helper, V, V.copy())


def leaky(v, slope=0.01):
    if v > 0.0:
        return v
    t = slope * v
    return t


def scale_row(row, s):
    n = len(row)
    for j in range(n):
        row[j] = row[j] * s


def k_branches_and_rows(X, y):
    for i in prange(X.shape[0]):
        y[i] = leaky(X[i, 0]) + leaky(X[i, 1], slope=0.5)
        scale_row(X[i], y[i] + 1.0)


def test_value_helpers_with_ifs_and_row_helpers_with_sizes():
    text = rewritten(k_branches_and_rows, M, V)
    assert "y[i] = (X[i, 0] if X[i, 0] > 0.0 else 0.01 * X[i, 0]) + " in text
    assert "for scale_row_j in range(X.shape[1]):" in text  # the helper's n = len(row), a size
    same_as_python(k_branches_and_rows, M - 5.0, np.zeros(3))


def bad_helper(v):
    return [v]


def k_bad_helper(x):
    for i in range(len(x)):
        x[i] = bad_helper(x[i])


def test_errors_inside_a_helper_point_at_the_helper():
    err = error_of(k_bad_helper, V.copy())
    assert err.span.line == line_of(bad_helper, "return [v]")
    assert err.span.filename == __file__
    assert "list" in str(err)


def countdown(v):
    return countdown(v - 1.0)


def k_recursive(x):
    x[0] = countdown(x[0])


def test_recursive_helpers_are_refused():
    err = error_of(k_recursive, V.copy())
    assert "recursive call of helper countdown()" in str(err)
    assert err.span.line == line_of(countdown, "return countdown")


def k_no_value(x):
    x[0] = fill(x, 1.0)


def test_helper_calls_that_do_not_match_their_kind():
    assert "fill() returns no value" in str(error_of(k_no_value, V.copy()))


def build_up(b, u, dx):
    """npbench cavity_flow's build_up_b: writes b, returns a tuple nobody reads."""
    b[1:-1] = (u[2:] - u[:-2]) / (2 * dx)
    return (b, u, dx)


def first_positive(b):
    for i in range(b.shape[0]):
        b[i] = 1.0
        if i > 2:
            return b
    return b


def k_value_unused(b, u):
    for step in range(3):
        build_up(b, u, 0.5)
        relu(u[0])  # only a value: nothing to run
        leaky(u[1], slope=2.0)
        u[:] = u + 0.1 * b


def k_early_return_unused(b):
    first_positive(b)


def test_helper_values_unused_run_the_body_and_drop_the_value():
    text = rewritten(k_value_unused, V, V)
    assert "relu" not in text and "leaky" not in text and "return" not in text
    assert "b[1:-1] = (u[2:] - u[:-2]) / (2 * 0.5)" in text
    same_as_python(k_value_unused, np.zeros(8), V.copy())
    same_as_python(k_early_return_unused, V.copy())  # its return from the loop only leaves (early_return.py)


def box_sums(x, w):
    """A value helper with loops (npbench's conv2d style): hoisted before the calling statement."""
    out = np.empty(x.shape[0] - w + 1)
    for i in range(out.shape[0]):
        out[i] = x[i:i + w].sum()
    return out


def scaled_in_place(x):
    for i in range(x.shape[0]):
        x[i] = 2.0 * x[i]
    return x[0]


def k_loop_value_helper(x, y):
    y[:x.shape[0] - 2] = box_sums(x, 3) + box_sums(x, 3) * 0.5
    return box_sums(y, 2)


def k_impure_value_helper(x, y):
    y[0] = x[0] + scaled_in_place(x)


def k_conditional_value_helper(x, y):
    y[0] = x[0] if x[1] > 0.5 else box_sums(x, 2)[0]


def test_value_helpers_with_loops_run_before_the_statement():
    x, y = V.copy(), np.zeros(V.shape[0])
    got = polyfuse.kernel(k_loop_value_helper, verify=True)(x, y.copy())
    np.testing.assert_allclose(got, k_loop_value_helper(x, y), rtol=1e-12)
    same_as_python(k_loop_value_helper, x, np.zeros(V.shape[0]))
    # writing an argument, or evaluated only on one side of an if: not moved, refused as before
    assert "returns a value, so its body may only" in str(error_of(k_impure_value_helper, V.copy(), y))
    assert "returns a value, so its body may only" in str(error_of(k_conditional_value_helper, V.copy(), y))


def filled_range(start, stop, num, dtype):
    """npbench mandelbrot1's linspace helper: a dtype passed in by the caller."""
    X = np.empty((num,), dtype=dtype)
    dist = (stop - start) / (num - 1)
    for i in range(num):
        X[i] = start + i * dist
    return X


NP_FLOAT = np.float32


def k_dtype_arguments(a, b, n):
    X = filled_range(a, b, n, dtype=np.float64)
    Y = filled_range(a, b, n, NP_FLOAT)  # a global bound to a dtype, as npbench's np_float
    return X + np.float64(Y) * np.float32(a) + np.int64(b), Y


def test_a_dtype_passed_to_a_helper_is_substituted_not_computed():
    got = polyfuse.kernel(k_dtype_arguments, verify=True)(0.25, 1.5, 7)
    want = k_dtype_arguments(0.25, 1.5, 7)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


# ---- decorator options ---------------------------------------------------------------------------

def k_add(x, y):
    for i in prange(len(x)):
        y[i] = x[i] + 1.0


def test_numba_options_are_accepted():
    serial = polyfuse.kernel(parallel=False, cache=False, boundscheck=True, nopython=True, nogil=True)(k_add)
    x, y = np.arange(4.0), np.zeros(4)
    serial(x, y)
    np.testing.assert_array_equal(y, x + 1.0)
    assert "parallel=True" not in str(serial.explain(x, y))
    assert serial._cache_key(serial.compile(x, y).arguments) is None
    assert "parallel=True" in str(polyfuse.kernel(k_add).explain(x, y))


def test_unknown_options_are_named():
    with pytest.raises(ArgumentError, match=r"unknown option 'paralel'.*valid options: .*parallel"):
        polyfuse.kernel(paralel=True)(k_add)


def k_prange_claims(X, out, Y):
    for i in prange(X.shape[0]):  # a reduction over i: the claim does not hold
        for j in range(X.shape[1]):
            out[j] += X[i, j]
    for i in prange(X.shape[0]):
        for j in prange(X.shape[1]):
            Y[i, j] = X[i, j] * 2.0


def test_explain_checks_each_prange_claim():
    claims = polyfuse.kernel(k_prange_claims).explain(M, np.zeros(4), np.zeros_like(M))["prange claims"]
    first = line_of(k_prange_claims, "the claim does not hold")
    assert [(c["line"], c["parallel"]) for c in claims] == [(first, False), (first + 3, True), (first + 4, True)]
    assert "RAW on out" in claims[0]["claim"]
    assert "prange claims" not in polyfuse.kernel(k_plain).explain(4, V, V.copy()).to_dict()


def k_prange_shared_buffer(A, C4, out):
    acc = np.zeros(A.shape[1])
    for r in prange(A.shape[0]):  # every iteration writes the one acc: numba's threads would race
        for p in range(A.shape[1]):
            acc[p] = 0.0
            for s in range(A.shape[1]):
                acc[p] += A[r, s] * C4[s, p]
        for p in range(A.shape[1]):
            t = acc[p] * 2.0  # a scalar assigned in the body: numba makes it private
            out[r, p] = t


def test_a_prange_claim_counts_a_kernel_local_array_shared_by_its_iterations():
    """polyfuse runs the loop in parallel with a private acc per thread, but the claim is about the
    code as written, which numba runs with one acc for all threads (a doitgen-style race)."""
    A = np.random.default_rng(0).random((5, 4))
    kernel = polyfuse.kernel(k_prange_shared_buffer)
    (claim,) = kernel.explain(A, A[:4].copy(), np.zeros((5, 4)))["prange claims"]
    assert not claim["parallel"] and "on acc" in claim["claim"] and "on t" not in claim["claim"]
    out, want = np.zeros((5, 4)), np.zeros((5, 4))
    kernel(A, A[:4].copy(), out)
    k_prange_shared_buffer(A, A[:4].copy(), want)  # numba's prange is range in plain Python
    np.testing.assert_allclose(out, want, rtol=1e-12)


sys.path.insert(0, str(Path(__file__).parent))
import rewrite_helpers  # noqa: E402


def k_other_module(X, y):
    for i in range(len(y)):
        y[i] = rewrite_helpers.softplus(X[i, 0])
    rewrite_helpers.double_rows(X)


def test_helpers_from_another_module_keep_their_modules():
    text = rewritten(k_other_module, M, V)
    assert "_m.log(1.0 + _m.exp(X[i, 0])) + _xp.sqrt(abs(X[i, 0]))" in text
    assert "for double_rows_i in range(X.shape[0]):" in text
    same_as_python(k_other_module, M.copy(), np.zeros(3), vector_math=False)


def k_size_misused(A, B):
    n, m = A.shape
    for i in range(n / m):  # ERR
        B[0, 0] = A[0, 0]


def test_errors_at_a_substituted_size_point_at_the_use():
    err = error_of(k_size_misused, M, M.copy())
    assert err.span.line == line_of(k_size_misused, "# ERR")
    assert "range() bound" in str(err) and "float64" in str(err)


def k_size_product(A, B):
    n, m = A.shape
    for i in range(n * m):  # a bound that is not affine: the loop is kept as written
        B[0, 0] += A[i % n, 0]


def test_a_product_of_sizes_as_a_bound_keeps_the_loop_as_written():
    same_as_python(k_size_product, M.copy(), np.zeros_like(M))
    (region,) = polyfuse.kernel(k_size_product).explain(M, np.zeros_like(M))["kept as written"]
    assert region["why"].startswith("loop bound") and region["why"].endswith("is not affine")


def k_assigns_argument(k, A):
    k = A.shape[0]  # top level: a new name from here on (frontend/rewrite.py rename_rebound), a size
    for i in range(k):
        A[i] = 1.0


def k_assigns_argument_in_a_loop(k, A):
    for i in range(A.shape[0]):
        k = i
        A[i] = k


def test_an_argument_bound_again_is_a_new_local():
    same_as_python(k_assigns_argument, 3, V.copy())
    same_as_python(k_assigns_argument_in_a_loop, 3, V.copy())  # a local copied from k before the loop


def softmax_rows(v):
    m = np.max(v, axis=-1, keepdims=True)
    e = np.exp(v - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def square(v):
    return v * v


def k_layer(x, w, b, out):
    out[:, :] = softmax_rows(x @ w + b) + square(x @ w)


def test_a_helper_at_the_top_level_computes_its_argument_once():
    """softmax(x @ w + b) reads its argument three times; inlined as one expression it would
    compute the product three times (npbench's mlp ran at half NumPy's speed)."""
    rng = np.random.default_rng(0)
    args = (rng.random((4, 40)), rng.random((40, 48)), rng.random(48), np.zeros((4, 48)))
    expected, actual = args[3].copy(), args[3].copy()
    k_layer(*args[:3], expected)
    polyfuse.kernel(k_layer, verify=True)(*args[:3], actual)
    np.testing.assert_allclose(actual, expected, rtol=1e-12)  # exp and the row sums: last bits
    kept = polyfuse.kernel(k_layer).explain(*args)["kept as written"]
    assert [r["why"] for r in kept].count("matrix product (BLAS where the layout allows)") == 2, kept


# ---- tuples held in locals, list shapes, np.ndarray ---------------------------------------------

def k_softmax_rows(x):
    """npbench softmax/mlp: a shape tuple held in a local."""
    new_shape = (x.shape[0], 1)
    m = np.empty(new_shape, dtype=x.dtype)
    m[:, 0] = np.max(x, axis=-1)
    e = np.exp(x - m)
    s = np.ndarray(new_shape, dtype=x.dtype)  # vadv: np.ndarray(shape, dtype) allocates
    s[:, 0] = np.sum(e, axis=-1)
    return e / s


def k_index_tuples(x, w):
    """numpy-benchmarks conv: an index tuple held in a local, per iteration."""
    shape = [x.shape[0] - 2, x.shape[1] - 2]
    out = np.zeros(shape)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            idx = i + 1, j + 1
            out[idx[0] - 1, j] = x[idx] * w[len(idx)] + x[idx[-1], 0]
    return out


def test_tuple_locals_are_written_out_at_each_use():
    assert rewritten(k_index_tuples, M, V).splitlines()[1:] == [  # after the docstring
        "out = np.zeros((x.shape[0] - 2, x.shape[1] - 2))",
        "for i in range(x.shape[0] - 2):",  # the list shape, written out, gives out's extents
        "    for j in range(x.shape[1] - 2):",
        "        out[i + 1 - 1, j] = x[i + 1, j + 1] * w[2] + x[j + 1, 0]",
        "return out",
    ]
    for target in ("python", "cpu"):
        np.testing.assert_array_equal(polyfuse.kernel(k_index_tuples, target=target, verify=True)(M, V),
                                      k_index_tuples(M, V))
        got = polyfuse.kernel(k_softmax_rows, target=target, verify=True)(M)
        np.testing.assert_allclose(got, k_softmax_rows(M), rtol=1e-13)
        assert got.shape == (3, 4)


def k_tuple_twice(x):
    s = (x.shape[0],)  # ERR
    s = (2,)
    return np.zeros(s)


def k_tuple_read_before(x, y):
    for i in range(x.shape[0]):
        if i > 0:
            y[i] = x[p]  # ERR  # noqa: F821 - the previous iteration's p, in Python
        p = (i,)  # noqa: F841


def k_tuple_outside_its_loop(x):
    for i in range(x.shape[0]):
        p = (i, 0)
    x[p] = 1.0  # ERR


def k_tuple_of_an_element(x, y):
    for i in range(x.shape[0]):
        p = (int(x[i, 0]), 0)  # ERR
        y[i] = 0.0
        y[i] += x[p]


def k_tuple_of_a_changing_local(x, y):
    k = 0
    for i in range(x.shape[0]):
        p = (k, 0)  # ERR
        k = k + 1
        y[i] = x[p]


def k_list_changed(x):
    s = [x.shape[0], 2]
    s[0] = 3  # ERR
    return np.zeros(s)


def k_ndarray_view(x):
    a = np.ndarray((2,), buffer=x)  # ERR
    return a


@pytest.mark.parametrize("fn, words", [
    (k_tuple_twice, "tuple local 's' is assigned more than once"),
    (k_tuple_read_before, "tuple local 'p' is read before it is assigned or outside the block"),
    (k_tuple_outside_its_loop, "tuple local 'p' is read before it is assigned or outside the block"),
    (k_tuple_of_an_element, "reads 'x[i, 0]', an array element, which may change"),
    (k_tuple_of_a_changing_local, "reads 'k', which may change"),
    (k_list_changed, "assignment into tuple local 's'"),
    (k_ndarray_view, "np.ndarray with other than (shape, dtype) arguments"),
])
def test_tuple_locals_that_cannot_be_written_out_are_refused_where_they_break_the_rule(fn, words):
    err = error_of(fn, *((M.copy(),) if fn.__code__.co_argcount == 1 else (M.copy(), V.copy())))
    assert words in str(err)
    assert err.span.line == line_of(fn, "# ERR") and err.construct in ("tuple local", "np.ndarray")
