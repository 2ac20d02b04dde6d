"""Matrix products in NumPy array statements (frontend/array_linalg.py), against NumPy itself.

A product sums in index order where BLAS blocks the sum, so float results are compared at
rtol 1e-9 (float64) and 1e-4 (float32); integer results are exact.
"""

from __future__ import annotations

import inspect
import linecache
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

RNG = np.random.default_rng(0)


def _kernel_from(source: str, name: str = "k"):
    """A kernel compiled from text (registered in linecache so polyfuse can read it)."""
    filename = f"<array-linalg-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def _copy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _same(fn, *args, targets=("python", "cpu"), rtol=1e-9):
    """The kernel returns and writes what ``fn`` does, with the same types and dtypes."""
    for target in targets:
        expected_args, actual_args = _copy(args), _copy(args)
        expected = fn(*expected_args)
        actual = polyfuse.kernel(fn, target=target, verify=True)(*actual_args)
        pairs = list(zip(expected, actual)) if isinstance(expected, tuple) else [(expected, actual)]
        pairs += [(e, a) for e, a in zip(expected_args, actual_args) if isinstance(e, np.ndarray)]
        for e, a in pairs:
            if e is None:
                assert a is None
                continue
            assert type(a) is type(e), (target, type(a), type(e))
            assert np.asarray(a).dtype == np.asarray(e).dtype, target
            assert np.shape(a) == np.shape(e), target
            if np.asarray(e).dtype.kind in "biu":
                np.testing.assert_array_equal(a, e)
            else:
                np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-12)


def _r(*shape, dtype=np.float64):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-5, 6, shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    return RNG.random(shape).astype(dtype)


# ---- NumPy's shape rules ---------------------------------------------------------------------
SHAPES = {
    "vector @ vector": ("a @ b", (5,), (5,)),
    "matrix @ vector": ("a @ b", (4, 5), (5,)),
    "vector @ matrix": ("a @ b", (4,), (4, 3)),
    "matrix @ matrix": ("a @ b", (4, 5), (5, 3)),
    "batch @ matrix": ("a @ b", (2, 3, 4), (4, 5)),
    "batch @ batch": ("a @ b", (2, 3, 4), (2, 4, 5)),
    "batch broadcast of size 1": ("a[None, 0] @ b", (2, 3, 4), (2, 4, 5)),
    "matrix @ batch": ("a @ b", (3, 4), (2, 4, 5)),
    "vector @ batch": ("a @ b", (4,), (2, 4, 5)),
    "batch @ vector": ("a @ b", (2, 3, 4), (4,)),
    "np.matmul": ("np.matmul(a, b)", (4, 5), (5, 3)),
    "np.dot 1-D": ("np.dot(a, b)", (5,), (5,)),
    "np.dot 2-D": ("np.dot(a, b)", (4, 5), (5, 3)),
    "np.dot N-D and 1-D": ("np.dot(a, b)", (2, 3, 4), (4,)),
    "np.dot 1-D and N-D": ("np.dot(a, b)", (4,), (2, 4, 3)),
    "np.dot N-D and M-D": ("np.dot(a, b)", (2, 3, 4), (5, 4, 2)),
    "np.dot with a scalar": ("np.dot(a, 2.5) + np.dot(3, a)", (3, 4), ()),
    "method dot": ("a.dot(b)", (4, 5), (5,)),
    "np.inner": ("np.inner(a, b)", (2, 3), (4, 3)),
    "np.inner 1-D": ("np.inner(a, b)", (3,), (3,)),
    "np.vdot": ("np.vdot(a, b)", (6,), (6,)),
    "np.outer": ("np.outer(a, b)", (4,), (3,)),
    "np.outer of a scalar": ("np.outer(a, 2.0 * b[0])", (4,), (3,)),
    "transpose": ("a.T @ b", (5, 4), (5, 3)),
    "views": ("a[1:, ::2] @ b[::-1, 1]", (4, 6), (3, 2)),
    "expressions": ("np.maximum(a @ b.T + 1.0, 0.5) @ b", (3, 4), (5, 4)),
    "chain": ("a @ b @ b.T @ a.T", (3, 4), (4, 4)),
}


@pytest.mark.parametrize("case", list(SHAPES))
def test_product_shapes_match_numpy(case):
    expr, sa, sb = SHAPES[case]
    k = _kernel_from(f"def k(a, b):\n    return {expr}\n")
    _same(k, _r(*sa), _r(*sb) if sb else _r(1), targets=("python",))


EINSUMS = {
    "matrix product": ("ij,jk->ik", (3, 4), (4, 5)),
    "implicit output": ("ij,jk", (3, 4), (4, 5)),
    "implicit output is sorted": ("jk,ij", (4, 5), (3, 4)),
    "transpose only": ("ij->ji", (3, 4), None),
    "trace": ("ii", (4, 4), None),
    "diagonal": ("ii->i", (4, 4), None),
    "row sums": ("ij->i", (3, 4), None),
    "full sum": ("ij->", (3, 4), None),
    "inner product": ("i,i", (5,), (5,)),
    "outer product": ("i,j->ij", (3,), (4,)),
    "elementwise product": ("ij,ij->ij", (3, 4), (3, 4)),
    "Frobenius product": ("ij,ij->", (3, 4), (3, 4)),
    "batched": ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    "ellipsis": ("...ij,...jk->...ik", (2, 3, 4), (4, 5)),
    "implicit ellipsis": ("...ij,jk", (2, 3, 4), (4, 5)),
    "spaces": (" ij , jk -> ik ", (3, 4), (4, 5)),
}


@pytest.mark.parametrize("case", list(EINSUMS))
def test_einsum_matches_numpy(case):
    spec, sa, sb = EINSUMS[case]
    args = "a" if sb is None else "a, b"
    k = _kernel_from(f"def k(a, b):\n    return np.einsum({spec!r}, {args})\n")
    _same(k, _r(*sa), _r(*(sb or (1,))), targets=("python",))


@st.composite
def _einsum_calls(draw):
    """A random einsum over 1-3 operands of rank 1-3 (arguments have rank >= 1) on labels i, j,
    k, l, with the operands' shapes; explicit or implicit output."""
    sizes = {lab: draw(st.integers(1, 3)) for lab in "ijkl"}
    terms = [draw(st.lists(st.sampled_from("ijkl"), min_size=1, max_size=3)) for _ in range(draw(st.integers(1, 3)))]
    used = sorted({lab for t in terms for lab in t})
    spec = ",".join("".join(t) for t in terms)
    if draw(st.booleans()):
        spec += "->" + "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
    shapes = [tuple(sizes[lab] for lab in t) for t in terms]
    return spec, shapes


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_einsum_calls())
def test_random_einsums_match_numpy(call):
    spec, shapes = call
    names = ", ".join(f"x{n}" for n in range(len(shapes)))
    k = _kernel_from(f"def k({names}):\n    return np.einsum({spec!r}, {names})\n")
    rng = np.random.default_rng(len(spec))
    _same(k, *[rng.random(shape) for shape in shapes], targets=("python",))


def test_einsum_broadcasts_an_axis_of_size_one():
    def k(a, b):
        return np.einsum("ij,ij->i", a[:, 0, None], b)

    _same(k, _r(3, 2), _r(3, 4), targets=("python",))


def test_einsum_of_three_operands_and_optimize():
    def k(A, B, C):
        return np.einsum("ij,jk,kl->il", A, B, C, optimize=True)

    _same(k, _r(3, 4), _r(4, 5), _r(5, 2))


def test_products_on_the_cpu_target():
    def k(A, B, x, out):
        out[:, :] = A @ B
        return A @ x, x @ x, np.outer(x, x), np.einsum("ij,j->i", B.T, A[0, :])

    _same(k, _r(3, 4), _r(4, 5), _r(4), np.zeros((3, 5)))


# ---- dtypes ----------------------------------------------------------------------------------
DTYPES = [
    (np.int64, np.int64), (np.int32, np.int32), (np.float32, np.float32), (np.float32, np.float64),
    (np.int32, np.float32), (np.int64, np.float64), (np.bool_, np.float64), (np.bool_, np.int64),
]


@pytest.mark.parametrize("da, db", DTYPES, ids=lambda d: np.dtype(d).name)
def test_result_dtype_is_numpys(da, db):
    def k(A, B, x):
        return A @ B, A @ x, x @ x

    rtol = 1e-4 if np.float32 in (da, db) else 1e-9
    _same(k, _r(3, 4, dtype=da), _r(4, 2, dtype=db), _r(4, dtype=db), rtol=rtol)


def test_a_python_number_in_a_product_is_a_float64_or_int64_array():
    def k(a32, i32):
        return np.dot(a32, 2.0), np.inner(3, a32), np.outer(a32, 0.5), np.dot(i32, 2), np.dot(a32, a32[0])

    _same(k, _r(3, dtype=np.float32), _r(3, dtype=np.int32), rtol=1e-6)


def test_scalar_result_is_a_numpy_scalar():
    def k(x, y):
        return x @ y

    _same(k, _r(4, dtype=np.float32), _r(4, dtype=np.float32), rtol=1e-5)
    _same(k, _r(4, dtype=np.int64), _r(4, dtype=np.int64))


# ---- statements: in place, in loops, aliasing -------------------------------------------------
def test_in_place_forms():
    def k(A, B, C, D, W, X, out):
        C[:] = A @ B
        D += A @ B
        for i in range(X.shape[0]):
            out[i, :] = W @ X[i, :]

    _same(k, _r(3, 4), _r(4, 5), np.zeros((3, 5)), _r(3, 5), _r(2, 3), _r(6, 3), np.zeros((6, 2)))


def test_the_right_hand_side_is_evaluated_before_the_write():
    def k(A, B, x):
        A[:] = A @ B
        B[1:, :] = B[:-1, :] @ B
        x[:] = B[:, :3] @ x
        x[1:] += np.dot(B[1:, :3], x)

    _same(k, _r(3, 3), _r(3, 3), _r(3))


def _written(fn, *args):
    """The arrays each statement of the loop-lowered kernel writes (blas=False: products as loops;
    tests/frontend/test_blas_products.py has the products kept whole)."""
    kernel = polyfuse.kernel(fn, target="python", blas=False)
    kernel(*_copy(args))
    return [set(re.findall(r"-> (\w+)\[", s["writes"])) for s in kernel.explain(*_copy(args))["statements"]]


def test_a_product_is_summed_into_its_target_only_where_numpy_would_agree():
    def direct(A, B, C):
        C[1:, :] = A[1:, :] @ B

    def aliased(A, B, C):
        A[:] = A @ B

    def narrower(A, B, C):
        C[:] = A @ B

    def broadcast(A, B, C):
        C[:, :] = A[None, 0] @ B

    A, B = _r(4, 4), _r(4, 4)
    assert _written(direct, A, B, np.zeros((4, 4))) == [{"C"}, {"C"}]  # zero, then sum in place
    for fn, C in ((aliased, None), (narrower, np.zeros((4, 4), np.float32)), (broadcast, np.zeros((4, 4)))):
        args = (A, B, np.zeros((4, 4)) if C is None else C)
        assert len(_written(fn, *args)) == 3, fn.__name__  # zero, sum into a temporary, store
        _same(fn, *args, rtol=1e-6)
    _same(direct, A, B, np.zeros((4, 4)))


def test_an_operand_that_computes_more_than_sums_and_products_is_stored_once():
    def computed(A, B, C):
        C[:, :] = np.maximum(A, 0.5) @ B

    def cheap(A, B, C):
        C[:, :] = (2.0 * A - B) @ B

    A, B, C = _r(4, 4), _r(4, 4), np.zeros((4, 4))
    written = _written(computed, A, B, C)
    assert len(written) == 3 and written[0] != {"C"} and written[1:] == [{"C"}, {"C"}]
    assert _written(cheap, A, B, C) == [{"C"}, {"C"}]
    _same(computed, A, B, C)
    _same(cheap, A, B, C)


def test_matrix_vector_loop_and_cholesky_with_row_dots():
    def k(A, x, y, L):
        for i in range(A.shape[0]):
            y[i] = A[i, :] @ x
        for i in range(A.shape[0]):
            for j in range(i + 1):
                s = np.dot(L[i, :], L[j, :])  # L is zero right of the part computed so far
                if i == j:
                    L[i, i] = np.sqrt(A[i, i] - s)
                else:
                    L[i, j] = (A[i, j] - s) / L[j, j]

    M = _r(5, 5)
    spd = M @ M.T + 5 * np.eye(5)
    _same(k, spd, _r(5), np.zeros(5), np.zeros((5, 5)))


def test_products_inside_an_if_that_reads_data():
    def k(A, x, y, Y):
        for i in range(A.shape[0]):
            if x[i] > 0.5:
                y[i] = A[i, :] @ x
                Y[i, :] = A @ x

    _same(k, _r(5, 5), _r(5), np.zeros(5), np.zeros((5, 5)))


def test_temporary_product_fuses_with_its_epilogue():
    def k(x, W, b, out):
        out[:, :] = np.maximum(x @ W + b, 0.0)

    args = (_r(4, 3), _r(3, 5), _r(5), np.zeros((4, 5)))
    _same(k, *args)
    report = polyfuse.kernel(k, target="python", blas=False).explain(*args)
    assert any(d["fused"] for d in report["fusion"]), report["fusion"]


# ---- shapes that do not match -----------------------------------------------------------------
def test_mismatched_symbolic_extents_are_refused_at_call_time():
    def k(A, x, y):
        y[:] = A @ x

    kernel = polyfuse.kernel(k, target="python")
    kernel(_r(3, 4), _r(4), np.zeros(3))
    with pytest.raises(ArgumentError, match="need to be equal differ"):
        kernel(_r(3, 4), _r(5), np.zeros(3))
    with pytest.raises(ArgumentError, match="need to be equal differ"):
        kernel(_r(3, 4), _r(4), np.zeros(2))


def test_a_trace_of_a_non_square_argument_is_refused_at_call_time():
    def k(A):
        return np.einsum("ii", A)

    kernel = polyfuse.kernel(k, target="python")
    assert kernel(np.eye(3)) == 3.0
    with pytest.raises(ArgumentError, match="need to be equal differ"):
        kernel(np.ones((3, 4)))


# ---- refusals ---------------------------------------------------------------------------------
def k_constant_mismatch(a):
    x = np.ones(3)
    y = np.ones(4)
    return x @ y + a[0]


def k_scalar_matmul(a):
    return a @ 2.0


def k_bool_matmul(a, b):
    return a @ b


def k_weak_array(a, b):
    return np.where(a > 0.5, 1.0, 0.0) @ b


def k_outer_of_a_matrix(a, b):
    return np.outer(a, b)


def k_vdot_of_matrices(a, b):
    return np.vdot(a, b)


def k_out_keyword(a, b, c):
    return np.dot(a, b, out=c)


def k_einsum_variable_spec(a, spec):
    return np.einsum(spec, a)


def k_einsum_operand_lists(a, b):
    return np.einsum(a, [0, 1], b, [1, 2])


def k_einsum_bad_label(a):
    return np.einsum("i1->i", a)


def k_einsum_count(a):
    return np.einsum("ij,jk->ik", a)


def k_einsum_unknown_output(a):
    return np.einsum("ij->k", a)


def k_einsum_repeated_output(a):
    return np.einsum("ij->ii", a)


def k_einsum_rank(a):
    return np.einsum("ijk->i", a)


def k_einsum_ellipsis_without_output(a):
    return np.einsum("...i->i", a)


def k_einsum_diagonal_mismatch(a):
    x = np.ones((2, 3))
    return np.einsum("ii", x) + a[0, 0]


def k_int8_product(a, b):
    return a @ b


M34, M43, V4 = _r(3, 4), _r(4, 3), _r(4)
REFUSALS = {
    "constant extents that differ": (k_constant_mismatch, (V4,), "size 3 meets one of size 4"),
    "matmul of a scalar": (k_scalar_matmul, (M34,), "matrix product of a scalar"),
    "bool @ bool": (k_bool_matmul, (M34 > 0.5, M43 > 0.5), "boolean arrays only"),
    "array of Python numbers": (k_weak_array, (M34, M43), "array of Python numbers"),
    "np.outer of a matrix": (k_outer_of_a_matrix, (M34, V4), "rank > 1"),
    "np.vdot of matrices": (k_vdot_of_matrices, (M34, M34), "other than two vectors"),
    "out= keyword": (k_out_keyword, (M34, M43, np.zeros((3, 3))), "keyword out="),
    "einsum spec not a literal": (k_einsum_variable_spec, (M34, 2), "string literal"),
    "einsum operand lists": (k_einsum_operand_lists, (M34, M43), "string literal"),
    "einsum bad label": (k_einsum_bad_label, (V4,), "invalid label '1'"),
    "einsum operand count": (k_einsum_count, (M34,), "names 2 operands but 1 are given"),
    "einsum output label in no input": (k_einsum_unknown_output, (M34,), "output label 'k' is in no input"),
    "einsum repeated output label": (k_einsum_repeated_output, (M34,), "appears more than once"),
    "einsum rank": (k_einsum_rank, (M34,), "operand 0 has 2 axes but its term names 3"),
    "einsum ellipsis dropped": (k_einsum_ellipsis_without_output, (M34,), "the output has no '...'"),
    "einsum diagonal of a non-square view": (k_einsum_diagonal_mismatch, (M34,), "size 2 meets one of size 3"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_name_the_construct_and_its_line(case):
    fn, args, words = REFUSALS[case]
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    message = str(info.value)
    assert words in message, message
    span = info.value.span
    assert span is not None and span.filename == __file__
    assert span.text.strip() == inspect.getsourcelines(fn)[0][-1].strip(), message  # the product's line
    assert "frontend/array_linalg.py" not in message


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_narrow_integer_products_wrap_as_numpy_does(target):
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-128, 128, shape).astype(np.int8) for shape in ((3, 4), (4, 5)))
    with np.errstate(over="ignore"):
        got = polyfuse.kernel(k_int8_product, target=target)(a, b)
    want = k_int8_product(a, b)
    assert got.dtype == want.dtype == np.int8
    np.testing.assert_array_equal(got, want)


def _products_read(kernel, *args) -> list[list[str]]:
    """What each product kept whole for BLAS reads (explain()["kept as written"]) besides its own
    output (which a product plus a term, ``POLYFUSE_PRODUCT_SUMS``, adds itself to)."""
    kept = kernel.explain(*args).to_dict().get("kept as written", [])
    return [[name for name in r["may read"] if name not in r["may write"]]
            for r in kept if r["why"].startswith("matrix product")]


def _close_to_numpy(got, want, bound, ulps: float = 16.0) -> None:
    """Within ``ulps`` of the sum of the absolute terms (``bound``): a product summed in another
    order, or scaled after the sum instead of before, differs by a few roundings of that size."""
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.all(np.abs(got - want) <= ulps * np.finfo(want.dtype).eps * bound)


_M, _K, _N = 40, 48, 36  # 40 * 48 * 36 multiply-adds: above BLAS_MIN_WORK, kept whole for BLAS
_SCALED = {  # source -> the absolute-term bound of its result from (A, B, C, col, row)
    "alpha * A @ B + beta * C": lambda A, B, C, col, row: 1.5 * np.abs(A) @ np.abs(B) + 1.2 * np.abs(C),
    "(A / A.sum(axis=-1, keepdims=True)) @ B":
        lambda A, B, C, col, row: np.abs(A / A.sum(axis=-1, keepdims=True)) @ np.abs(B),
    "(A * 2.0) @ B": lambda A, B, C, col, row: 2.0 * np.abs(A) @ np.abs(B),
    "(col * A) @ B": lambda A, B, C, col, row: np.abs(col * A) @ np.abs(B),
    "A @ (3.0 * B)": lambda A, B, C, col, row: np.abs(A) @ np.abs(3.0 * B),
    "(alpha * A) @ (B * beta)": lambda A, B, C, col, row: 1.8 * np.abs(A) @ np.abs(B),
    "A @ (B * row) - C": lambda A, B, C, col, row: np.abs(A) @ np.abs(B * row) + np.abs(C),
    "(A / col) @ (row * B)": lambda A, B, C, col, row: np.abs(A / col) @ np.abs(row * B),
    "np.dot(alpha * A, B)": lambda A, B, C, col, row: 1.5 * np.abs(A) @ np.abs(B),
    "np.matmul(A, B / row)": lambda A, B, C, col, row: np.abs(A) @ np.abs(B / row),
}


@pytest.mark.parametrize("expr", list(_SCALED))
@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_scale_constant_along_the_sum_moves_onto_the_product(expr, target):
    fn = _kernel_from(f"def k(A, B, C, col, row, alpha, beta):\n    return {expr}\n")
    A, B, C = _r(_M, _K) + 3.0, _r(_K, _N), _r(_M, _N)
    col, row = RNG.random((_M, 1)) + 0.5, RNG.random(_N) + 0.5
    args = (A, B, C, col, row, 1.5, 1.2)
    kernel = polyfuse.kernel(fn, target=target, cache=False)
    (reads,) = _products_read(kernel, *args)
    # the arrays as stored (and a vector factor, for the loops where its run-time test fails):
    # no scaled copy of an operand
    assert {"A", "B"} <= set(reads) and not any(name.startswith("pf_mo") for name in reads), reads
    _close_to_numpy(kernel(*args), fn(*args), _SCALED[expr](A, B, C, col, row))


def _same_infs_and_nans(got, want) -> None:
    """NaN where ``want`` has one, the same signed infs, the finite elements close."""
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.where(np.isinf(want), want, 0.0), np.where(np.isinf(got), got, 0.0))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9, atol=1e-9)


def test_a_vector_factor_with_a_zero_an_inf_or_a_nan_keeps_numpys_infs_and_nans():
    """``(x * c) @ b`` as ``(x @ b) * c`` only where every factor is finite and not zero: with
    ``c[0] = inf`` and ``x[0, 0] = 0`` NumPy's row 0 is NaN (``0 * inf`` in each sum), with
    ``x / c`` by ``c[0] = 0`` too; the product scaled after made infs there (session 26)."""
    fn = _kernel_from("def k(A, B, col, row):\n    return ((A * col) @ B, (A / col) @ B, A @ (B / row), "
                      "(col * A) @ (row * B), (A / A.sum(axis=-1, keepdims=True)) @ B)\n")
    kernel = polyfuse.kernel(fn, target="cpu", cache=False)
    A, B = _r(_M, _K) + 3.0, _r(_K, _N)
    col, row = RNG.random((_M, 1)) + 0.5, RNG.random(_N) + 0.5
    cases = [(A, B, col, row)]
    for bad in (np.inf, -0.0, np.nan):
        c, w, a, b = col.copy(), row.copy(), A.copy(), B.copy()
        c[3, 0], w[5], a[3, 0], a[7, 1], b[0, 5], b[2, 9] = bad, bad, 0.0, np.inf, 0.0, -np.inf
        cases.append((a, b, c, w))
    with np.errstate(all="ignore"):
        for args in cases:
            for got, want in zip(kernel(*args), fn(*args)):
                _same_infs_and_nans(got, want)


def test_the_factor_check_is_a_plain_count():
    """The check of ``P / P.sum(...)`` counts the row sums' zeros, infs and NaNs in an int64 local
    (``POLYFUSE_INTEGER_CHECKS``): the row sums are the only blocked sums (with the knob at 0 the
    check's sum of 0.0/1.0 in float64 is a NumPy reduction: blocked and chunked, two more records)."""
    fn = _kernel_from("def k(A, B):\n    return (A / A.sum(axis=-1, keepdims=True)) @ B\n")
    A, B = _r(_M, _K), _r(_K, _N)
    A[3] = 0.0  # a zero row sum: NaN in NumPy's row 3
    kernel = polyfuse.kernel(fn, target="cpu", cache=False)
    blocked = kernel.explain(A, B).to_dict()["blocked sums"]
    assert len(blocked) == 1, blocked
    with np.errstate(all="ignore"):
        _same_infs_and_nans(kernel(A, B), fn(A, B))


def test_a_checked_vector_factor_inside_a_loop_kept_as_written():
    fn = _kernel_from("def k(A, B, col, n):\n    C = np.zeros((A.shape[0], B.shape[1]))\n    i = 0\n"
                      "    while i < n:\n        C = C + (A / col) @ B\n        i += 1\n    return C\n")
    kernel = polyfuse.kernel(fn, target="cpu", cache=False)
    A, B, col = _r(_M, _K) + 3.0, _r(_K, _N), RNG.random((_M, 1)) + 0.5
    bad = col.copy()
    bad[4, 0] = 0.0
    A[4, 2] = 0.0
    with np.errstate(all="ignore"):
        for c in (col, bad):
            _same_infs_and_nans(kernel(A, B, c, 2), fn(A, B, c, 2))


def test_a_number_or_fixed_scalar_argument_is_blas_alpha():
    fn = _kernel_from("def k(alpha, A, B, C):\n    return alpha * A @ B + 2 * C, A @ (B * -0.5)\n")
    args = (1.5, _r(_M, _K), _r(_K, _N), _r(_M, _N))
    kernel = polyfuse.kernel(fn, target="cpu", cache=False)
    assert [sorted(reads) for reads in _products_read(kernel, *args)] == [["A", "B"], ["A", "B"]]
    for want, got, bound in zip(fn(*args), kernel(*args), (1.5 * np.abs(args[1]) @ np.abs(args[2]) + 2 * np.abs(args[3]),
                                                           0.5 * np.abs(args[1]) @ np.abs(args[2]))):
        _close_to_numpy(got, want, bound)


def test_a_scalar_the_kernel_computes_or_divides_by_stays_on_the_operand():
    fn = _kernel_from("def k(alpha, A, B):\n    s = A.sum()\n    alpha = alpha + 1.0\n"
                      "    return (s * A) @ B, (alpha * A) @ B, (A / 4.0) @ B\n")
    args = (0.5, _r(_M, _K), _r(_K, _N))
    kernel = polyfuse.kernel(fn, target="cpu", cache=False)
    assert all(sorted(reads) != ["A", "B"] for reads in _products_read(kernel, *args))
    _same(fn, *args)


def test_a_scaled_product_inside_a_loop_kept_as_written():
    fn = _kernel_from("def k(alpha, A, B, n):\n    C = np.zeros((A.shape[0], B.shape[1]))\n    i = 0\n"
                      "    while i < n:\n        C = C + alpha * A @ B\n        i += 1\n    return C\n")
    args = (1.5, _r(_M, _K), _r(_K, _N), 3)
    _close_to_numpy(polyfuse.kernel(fn, target="cpu", cache=False)(*args), fn(*args),
                    3 * 1.5 * np.abs(args[1]) @ np.abs(args[2]))


@pytest.mark.parametrize("expr", [
    "(A * krow) @ B",   # scales the summed axis of A: a scaled copy, as NumPy
    "A @ (kcol * B)",   # scales the summed axis of B
    "(A / A) @ B",      # a matrix factor
    "(2 * Ai) @ Bi",    # integers: no BLAS
])
def test_a_scale_along_the_sum_stays_on_the_operand(expr):
    fn = _kernel_from(f"def k(A, B, krow, kcol, Ai, Bi):\n    return {expr}\n")
    args = (_r(_M, _K) + 3.0, _r(_K, _N), RNG.random(_K) + 0.5, RNG.random((_K, 1)) + 0.5,
            RNG.integers(-5, 6, (_M, _K)), RNG.integers(-5, 6, (_K, _N)))
    kernel = polyfuse.kernel(fn, target="cpu", cache=False)
    assert all(sorted(reads) != ["A", "B"] for reads in _products_read(kernel, *args))
    _same(fn, *args)


def test_the_scale_stays_on_the_operand_with_the_knob_off(monkeypatch):
    monkeypatch.setenv("POLYFUSE_SCALE_AFTER_PRODUCT", "0")
    fn = _kernel_from("def k(alpha, A, B):\n    return alpha * A @ B\n")
    args = (1.5, _r(_M, _K), _r(_K, _N))
    kernel = polyfuse.kernel(fn, target="cpu", cache=False)
    (reads,) = _products_read(kernel, *args)
    assert reads != ["A", "B"] and "B" in reads  # alpha * A stored first, as NumPy computes it
    np.testing.assert_array_equal(kernel(*args), fn(*args))  # NumPy's own ?gemm call: its bits
