"""NumPy array statements lowered to element loops (frontend/arrays.py), against NumPy itself."""

from __future__ import annotations

import linecache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse import ArgumentError, UnsupportedError


def _same(fn, *args, targets=("python", "cpu"), rtol=1e-12):
    for target in targets:
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        fn(*expected)
        polyfuse.kernel(fn, target=target, verify=True)(*actual)
        for e, a in zip(expected, actual):
            if isinstance(e, np.ndarray):
                assert a.dtype == e.dtype
                np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-14)


def _kernel_from(source: str, name: str = "k"):
    """A kernel compiled from text (registered in linecache so polyfuse can read it)."""
    filename = f"<numpy-arrays-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


RNG = np.random.default_rng(0)
V = RNG.random(10)
M = RNG.random((6, 7))


# ---- indexing forms ------------------------------------------------------------------------
INDEXING = {
    "negative bounds": ("y[1:-1] = x[2:] - x[:-2]", V, np.zeros(10)),
    "omitted bounds": ("y[:] = x[:] * 2.0", V, np.zeros(10)),
    "positive stop": ("y[:4] = x[3:7]", V, np.zeros(10)),
    "negative start": ("y[-3:] = x[-3:] + 1.0", V, np.zeros(10)),
    "start past the end": ("y[12:] = x[12:]", V, np.zeros(10)),
    "step": ("y[::2] = x[1::2]", V, np.zeros(10)),
    "step with bounds": ("y[1:8:3] = x[0:9:3]", V, np.zeros(10)),
    "negative step": ("y[::-1] = x", V, np.zeros(10)),
    "negative step with bounds": ("y[8:1:-2] = x[1:8:2]", V, np.zeros(10)),
    "negative step, negative bounds": ("y[-2::-3] = x[:-7:-2] * 1.0", V, np.zeros(10)),
    "start beyond the end, negative step": ("y[20::-1] = x[::-1]", V, np.zeros(10)),
    "integer index and slice": ("y[2, 1:] = x[3, :-1]", M, np.zeros((6, 7))),
    "negative integer index": ("y[-1, :] = x[-2, :]", M, np.zeros((6, 7))),
    "partial index": ("y[1] = x[0]", M, np.zeros((6, 7))),
    "None": ("y[:, :] = x[0, None, :] + x[:, 0, None]", M, np.zeros((6, 7))),
    "np.newaxis": ("y[:, :] = x[:, np.newaxis, 0] * 2.0", M, np.zeros((6, 7))),
    "ellipsis": ("y[..., 1:] = x[..., :-1]", M, np.zeros((6, 7))),
    "ellipsis in the middle": ("y[1, ..., 2] = x[..., 3][2]", M, np.zeros((6, 7))),
    "transpose": ("y[:, :] = x.T", M, np.zeros((7, 6))),
    "transpose slice": ("y[1:, :] = x.T[:-1, ::-1]", M, np.zeros((7, 6))),
    "whole array": ("y[...] = x", V, np.zeros(10)),
}


@pytest.mark.parametrize("case", list(INDEXING))
def test_indexing_forms_match_numpy(case):
    statement, x, y = INDEXING[case]
    k = _kernel_from(f"def k(x, y):\n    {statement}\n")
    _same(k, x, y)


@pytest.mark.parametrize("size", [0, 1, 2, 8])
def test_a_negative_step_slice_of_a_short_axis_is_empty_as_in_numpy(size):
    """``x[5:1:-2]`` of 0 elements: the length ``min(5, n - 1) // 2`` is -1 there, NumPy's 0; the
    temporary holding the result is allocated with ``max(0, ...)`` (it raised ArgumentError,
    'negative shape')."""
    k = _kernel_from("def k(x):\n    return x[5:1:-2] * 2.0, x[-1:-4:-1].sum()\n")
    x = np.arange(float(size))
    for target in ("python", "cpu"):
        got = polyfuse.kernel(k, target=target)(x.copy())
        np.testing.assert_array_equal(got[0], k(x.copy())[0])
        assert got[1] == k(x.copy())[1]


def test_slices_with_loop_variables_and_int_indices():
    def k(X, out):
        for i in range(X.shape[0]):
            out[i, :] = X[i, :] - X[i, 0]
        out[0, 1:] += out[-1, :-1]

    _same(k, M, np.zeros((6, 7)))


# ---- broadcasting --------------------------------------------------------------------------
def test_broadcasting_of_lower_ranks_and_size_one_axes():
    def k(A, row, col, s, out):
        out[:, :] = A * row + col[:, None] - s
        out[1:, :] -= row[None, :]

    _same(k, M, RNG.random(7), RNG.random(6), 0.5, np.zeros((6, 7)))


def test_dtypes_follow_nep50():
    def k(a, b, out32, out64):
        out32[:] = a * 2.5 + 1
        out64[:] = a + b

    a = RNG.random(5).astype(np.float32)
    _same(k, a, RNG.random(5), np.zeros(5, np.float32), np.zeros(5))


@pytest.mark.parametrize("s", [2.5, np.float64(2.5), np.float32(2.5), True, np.True_, np.int16(3)])
def test_temporaries_of_scalar_arguments_take_their_nep50_dtype(s):
    """A numpy scalar is strong (float32 array * np.float64 is float64), a Python number weak."""
    def k(a, s):
        t = a * s
        return t

    a = RNG.random(5).astype(np.float32)
    for target in ("python", "cpu"):
        got = polyfuse.kernel(k, target=target)(a, s)
        assert got.dtype == k(a, s).dtype
        np.testing.assert_array_equal(got, k(a, s))


def k_square_of_bools(a):
    return (a > 0.5) ** 2, (a > 0.5) ** 3, np.power(a > 0.5, 2)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_boolean_array_squared_is_int8(target):
    """NumPy's ``**`` of an array and a Python int 2 is np.square, int8 of booleans; other
    exponents and np.power give int64 (mix_fuzz 39003, program 4: int64 returned)."""
    got = polyfuse.kernel(k_square_of_bools, target=target)(V)
    for g, e in zip(got, k_square_of_bools(V)):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def k_extremes_of_bools(a):
    return np.maximum(a > 0.5, a < 0.2), np.minimum(a > 0.5, True), np.maximum.outer(a > 0.5, a > 0.3)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_maximum_and_minimum_of_booleans_are_boolean(target):
    """NumPy's maximum and minimum have a bool loop: two booleans give bool, not int64."""
    got = polyfuse.kernel(k_extremes_of_bools, target=target)(V)
    for g, e in zip(got, k_extremes_of_bools(V)):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def k_extremes_of_scalars(a8, s):
    return np.maximum(a8[0], 2), np.minimum(a8[1], 0.5), np.maximum(3, 2), np.minimum(a8[0], s)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_maximum_and_minimum_of_scalars_are_numpy_scalars(target):
    """np.maximum of NumPy and Python scalars converts the Python one first, so the result is
    the NumPy scalar whichever wins (np.uint8(2), not 2) and a Python int that does not fit
    raises OverflowError (a literal is refused)."""
    a8 = np.arange(3, dtype=np.uint8)
    kern = polyfuse.kernel(k_extremes_of_scalars, target=target)
    got = kern(a8, 7)
    assert got == k_extremes_of_scalars(a8, 7) and [type(g) for g in got] == [np.uint8, np.float64, np.int64, np.uint8]
    with pytest.raises(OverflowError, match="-1 out of bounds for uint8"):
        kern(a8, -1)


def test_integer_arrays_and_comparisons():
    def k(a, b, out):
        out[:] = (a > b) * a + a // 3 - b % 4 + a ** 2

    a, b = np.arange(8, dtype=np.int32) - 3, np.arange(8, dtype=np.int64)[::-1].copy()
    _same(k, a, b, np.zeros(8, np.int64))


def test_elementwise_functions():
    def k(x, y, out):
        out[:] = np.sqrt(np.abs(x)) + np.exp(-x) * abs(y) + np.where(x > y, x, y) + np.minimum(x, 0.25)

    _same(k, RNG.random(8) - 0.5, RNG.random(8) - 0.5, np.zeros(8))


def test_where_of_python_numbers_is_a_float64_array():
    def k(a, out):
        out[:] = np.where(a > 0.5, 1.0, 0.0) * a + np.where(a > 0.2, a, 0.0)

    _same(k, V, np.zeros(10))


def test_maximum_propagates_nan_like_numpy():
    def k(x, y, out):
        out[:] = np.maximum(x, y) + np.minimum(y, x)

    _same(k, np.array([1.0, np.nan, 2.0, -0.0]), np.array([np.nan, 1.0, 3.0, 0.0]), np.zeros(4))


def test_mismatched_extents_are_refused_at_call_time():
    def k(A, B):
        B[:] = A + 1.0

    kernel = polyfuse.kernel(k, target="python")
    B = np.zeros(4)
    kernel(np.ones(4), B)
    assert (B == 2.0).all()
    with pytest.raises(ArgumentError, match="extents they need to be equal differ"):
        kernel(np.ones(5), np.zeros(4))
    B = np.zeros(4)
    kernel(np.ones(1), B)  # an axis of extent 1 broadcasts, as in NumPy (its own variant)
    assert (B == 2.0).all()


# ---- temporaries ---------------------------------------------------------------------------
def test_temporaries_and_rebinding():
    def k(A, B, out):
        T = A * 2.0 + B
        T = T * T
        U = T[1:] - T[:-1]
        out[1:] = U
        out[0] = T[0]

    _same(k, V, V[::-1].copy(), np.zeros(10))


def test_temporary_inside_a_loop_is_overwritten_each_iteration():
    def k(X, out):
        for i in range(X.shape[0]):
            r = X[i, :] * X[i, :]
            out[i, :] = r + 1.0

    _same(k, M, np.zeros((6, 7)))


def test_temporary_of_an_integer_expression_keeps_its_dtype():
    def k(a, out):
        t = a * 3
        out[:] = t / 2

    _same(k, np.arange(6, dtype=np.int32), np.zeros(6))


# ---- reductions ----------------------------------------------------------------------------
REDUCTIONS = {
    "np.sum": "np.sum(X, axis=1)",
    "sum method axis 0": "X.sum(axis=0)[0] + X.sum(0)[1:3].sum()",
    "max keepdims": "np.max(X, axis=-1, keepdims=True)[:, 0]",
    "min": "X.min(axis=1)",
    "amax amin": "np.amax(X, axis=1) - np.amin(X, 1)",
    "mean": "np.mean(X, axis=1) + X.mean()",
    "prod": "np.prod(X[:, :3], axis=1) * X.prod()",
    "full": "np.sum(X) + np.max(X) - np.min(X[1:, ::2])",
}


@pytest.mark.parametrize("case", list(REDUCTIONS))
def test_reductions_match_numpy(case):
    k = _kernel_from(f"def k(X, out):\n    out[:] = {REDUCTIONS[case]}\n")
    _same(k, M, np.zeros(6))


def test_full_reduction_to_a_scalar_local():
    def k(A, out):
        s = np.sum(A)
        m = A.max()
        out[0] = s
        out[1] = m
        out[2:] = A[2:] / s

    _same(k, V, np.zeros(10))


def test_reduction_of_integers():
    def k(a, out, outf):
        out[0] = np.sum(a)
        out[1] = a.max()
        outf[0] = a.mean()

    _same(k, np.arange(7, dtype=np.int64) - 2, np.zeros(2, np.int64), np.zeros(1))


# ---- the overlapping-assignment trap -------------------------------------------------------
def test_shifted_in_place_update_reads_old_values():
    def k(A, B, C):
        A[1:] = A[:-1] + 1.0
        B[1:] += B[:-1]
        C[:, :] = C.T

    A, B, C = V.copy(), V.copy(), RNG.random((5, 5))
    _same(k, A, B, C)


_OPS = ["=", "+=", "-=", "*="]


@st.composite
def _overlap_programs(draw):
    n = draw(st.integers(4, 9))
    op = draw(st.sampled_from(_OPS))
    form = draw(st.integers(0, 5))
    s = draw(st.integers(1, 3))
    if form == 0:
        lhs, rhs = (f"A[{s}:]", f"A[:-{s}]") if draw(st.booleans()) else (f"A[:-{s}]", f"A[{s}:]")
    elif form == 1:
        length = draw(st.integers(1, n - s))
        a, b = draw(st.permutations([0, s]))
        lhs, rhs = f"A[{a}:{a + length}]", f"A[{b}:{b + length}]"
    elif form == 2:
        lhs, rhs = "A[::-1]", "A"
    elif form == 3:
        lhs, rhs = f"A[{s}:]", f"A[{s}:] * A[:-{s}] - A[{s}:][::-1]"
    elif form == 4:
        n = 2 * (n // 2)
        lhs, rhs = "A[::2]", "A[1::2] + A[::-2]"
    else:
        lhs, rhs = f"A[{s}:]", f"np.maximum(A[:-{s}], 0.5) + B[{s}:]"
    return n, f"def k(A, B):\n    {lhs} {op} {rhs}\n"


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_overlap_programs())
def test_overlapping_assignments_match_numpy(program):
    n, source = program
    k = _kernel_from(source)
    rng = np.random.default_rng(n)
    _same(k, rng.random(n), rng.random(n), targets=("python",))


# ---- refusals ------------------------------------------------------------------------------
def k_fancy(A, idx, out):
    out[:] = A[idx.astype(np.float64)]  # a float index array (IndexError in NumPy); out[idx] += v is supported now


def k_mask(A, out):
    out[:] = A[A > 0.5]


def k_negative_bound(A, out):
    for i in range(3):
        out[:i - 1] = A[:i - 1]


def k_argmax(a, out):
    out[0] = np.argsort(a.reshape(2, 5, 1), axis=1)[0, 0, 0]


def k_reshape(A, out):
    out[:] = A.reshape(-1, order="F")


def k_linalg(A, out):
    out[0] = np.linalg.matrix_rank(A)


def k_float_bitwise(a, out):
    out[:] = a & 3


def k_rebind_argument(A, out):
    for i in range(2):
        A[0] = 0.0
        A = A * 2.0  # without the write above a copy of A (tests/frontend/test_rebinding.py)
    out[:] = A


def k_temporary_escapes_its_loop(A, out):
    for i in range(3):
        t = A * i
    out[:] = t


def k_inplace_float_into_int(a):
    a[:] += 0.5


def k_plus_of_bools(a):
    return +(a > 0.5)


def k_maximum_of_a_literal_out_of_range(a8):
    return np.maximum(a8, -3)


def k_fmax_of_a_literal_out_of_range(a8):
    return np.fmax(a8, 300)


def k_bools_to_a_run_time_power(a, e):
    return (a > 0.5) ** e


def k_weak_array(a32, out):
    out[:] = a32 * np.where(a32 > 0.5, 1.0, 0.0)


REFUSALS = {
    "array of Python numbers meets float32": (k_weak_array, (V.astype(np.float32), np.zeros(10)), "float64"),
    "fancy indexing": (k_fancy, (V, np.arange(3), np.zeros(3)), "fancy indexing"),
    "boolean mask": (k_mask, (V, np.zeros(3)), "boolean mask"),
    "slice bound that may be negative": (k_negative_bound, (V, np.zeros(10)), "may be negative"),
    "argsort": (k_argmax, (V, np.zeros(1, np.int64)), "argsort() is not supported"),
    "reshape": (k_reshape, (M, np.zeros(42)), "order other than 'C'"),
    "np.linalg": (k_linalg, (M, np.zeros(1)), "np.linalg.matrix_rank() is not supported"),
    "bitwise of floats": (k_float_bitwise, (V, np.zeros(10)), "refused by NumPy"),
    "rebinding an argument": (k_rebind_argument, (V, np.zeros(10)), "rebinding argument 'A'"),
    "temporary escapes its loop": (k_temporary_escapes_its_loop, (V, np.zeros(10)), "outside the loop"),
    "in-place float into int": (k_inplace_float_into_int, (np.arange(3),), "integer array"),
    "plus of a boolean array": (k_plus_of_bools, (V,), "'+' of a boolean array"),
    "np.maximum of a literal out of range": (k_maximum_of_a_literal_out_of_range, (np.arange(3, dtype=np.uint8),),
                                             "Python integer -3 is out of bounds for uint8"),
    "np.fmax of a literal out of range": (k_fmax_of_a_literal_out_of_range, (np.arange(3, dtype=np.uint8),),
                                          "Python integer 300 is out of bounds for uint8"),
    "boolean array to a run-time power": (k_bools_to_a_run_time_power, (V, 2), "int8 where it is 2"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_name_the_construct_and_its_line(case):
    fn, args, words = REFUSALS[case]
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    message = str(info.value)
    assert words in message, message
    assert info.value.span is not None and info.value.span.filename == __file__
    assert "frontend/arrays.py" not in message


def pairwise_products(mass, pos):  # npbench nbody: mass is (N, 1), so mass * mass.T is (N, N)
    x = pos[:, 0:1]
    dx = x.T - x
    return np.sum(np.triu(-(mass * mass.T) * dx, 1))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_an_argument_axis_of_extent_1_broadcasts_as_in_numpy(target):
    rng = np.random.default_rng(5)
    kernel = polyfuse.kernel(pairwise_products, target=target)
    for n in (1, 2, 7):
        mass, pos = rng.random((n, 1)), rng.random((n, 3))
        np.testing.assert_allclose(kernel(mass, pos), pairwise_products(mass, pos), rtol=1e-12)
    mass, pos = rng.random((4, 4)), rng.random((4, 3))  # no unit axis: another variant, NumPy's meaning
    np.testing.assert_allclose(kernel(mass, pos), pairwise_products(mass, pos), rtol=1e-12)
