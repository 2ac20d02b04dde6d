"""More NumPy forms inside kernels (frontend/arrays.py, frontend/extent_facts.py), against NumPy:
slice bounds in loop variables and sizes, transposes with axes, clip/astype/copy, the scalar
ufuncs on arrays, boolean-array logic, reductions with axis tuples, initial= and ufunc.reduce."""

from __future__ import annotations

import functools
import inspect
import linecache
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

# the targets and fusion modes of a function compiled in consecutive tests share one lift (conftest)
pytestmark = pytest.mark.usefixtures("one_lift_per_program")

RNG = np.random.default_rng(1)
V = RNG.random(10)
M = RNG.random((6, 7))
T3 = RNG.random((3, 4, 5))
SQ = RNG.random((5, 5))


def _kernel_from(source: str):
    filename = f"<array-forms-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"]


def _same(fn, *args, rtol=1e-12):
    """``fn`` compiled for both targets writes and returns what ``fn`` does, dtypes included."""
    for target in ("python", "cpu"):
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        with np.errstate(all="ignore"):
            want = fn(*expected)
            got = polyfuse.kernel(fn, target=target, verify=True)(*actual)
        for e, a in zip(expected + [want], actual + [got]):
            if isinstance(e, np.ndarray):
                assert a.dtype == e.dtype, target
                np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-14, equal_nan=True, err_msg=target)


FORMS = {
    # slice bounds affine in loop variables and sizes
    "row prefix A[i, :i]": ("for i in range(x.shape[0]):\n    y[i, :i] = x[i, :i] * 2.0", M, np.zeros((6, 7))),
    "row suffix A[i, i+1:]": ("for i in range(x.shape[0]):\n    y[i, i + 1:] = x[i, i + 1:] + 1.0", M,
                              np.zeros((6, 7))),
    "size bound A[:, :n-1]": ("y[:, :x.shape[1] - 1] = x[:, 1:]", M, np.zeros((6, 7))),
    "shifted window x[p:p+h]": ("for p in range(3):\n    y[...] += x[p:p + y.shape[0]]", V, np.zeros(8)),
    "scaled loop bound": ("for i in range(1, x.shape[0]):\n    y[i, i:2 * i] = x[i - 1, i:2 * i] + 1.0", M,
                          np.zeros((6, 7))),
    "row sweep reading the row before (Pascal)": (
        "for i in range(1, x.shape[0]):\n    x[i, 1:i] = x[i - 1, 0:i - 1] + x[i - 1, 1:i]\ny[...] = x", SQ,
        np.zeros((5, 5))),
    "loop-variable slice overlapping itself": ("for i in range(x.shape[0]):\n    x[i, 1:i + 1] = x[i, 0:i] * 2.0\n"
                                               "y[...] = x", M, np.zeros((6, 7))),
    "loop bound, negative step": ("for i in range(x.shape[0]):\n    y[i, i::-1] = x[i, :i + 1]", SQ,
                                  np.zeros((5, 5))),
    "k:k+1 broadcasts": ("y[...] = x - x[:, 2:3]", M, np.zeros((6, 7))),
    # transposes and views
    "np.transpose": ("y[...] = np.transpose(x)", M, np.zeros((7, 6))),
    "x.transpose()": ("y[...] = x.transpose() * 2.0", M, np.zeros((7, 6))),
    "np.transpose axes": ("y[...] = np.transpose(x, (2, 0, 1))", T3, np.zeros((5, 3, 4))),
    "x.transpose(axes), negative": ("y[...] = x.transpose(1, -1, 0)", T3, np.zeros((4, 5, 3))),
    ".T of rank 3": ("y[...] = x.T", T3, np.zeros((5, 4, 3))),
    # elementwise
    "np.clip scalars": ("y[...] = np.clip(x, 0.2, 0.7)", M, np.zeros((6, 7))),
    "clip method, one side": ("y[...] = x.clip(min=0.3) + np.clip(x, None, 0.5)", M, np.zeros((6, 7))),
    "clip array bounds": ("y[...] = np.clip(x, x[0], x[:, :1] + 0.1)", M, np.zeros((6, 7))),
    "clip float32": ("y[...] = np.clip(x.astype(np.float32), 0.25, 0.75)", M, np.zeros((6, 7), np.float32)),
    "astype int": ("y[...] = (x * 10).astype(np.int32) + 1", M, np.zeros((6, 7), np.int32)),
    "astype str and .dtype": ("y[...] = x.astype('float32') + x.astype(y.dtype)", M, np.zeros((6, 7), np.float32)),
    "astype bool": ("y[...] = (x - 0.5).astype(bool)", M, np.zeros((6, 7), bool)),
    "copy is not a view": ("t = x.copy()\nx[...] = 0.0\ny[...] = t + np.copy(x)", M, np.zeros((6, 7))),
    "ufuncs": ("y[...] = np.tanh(x) + np.log1p(x) + np.arctan2(x, 0.5) + np.hypot(x, x.T.T) + np.cbrt(x)",
               M, np.zeros((6, 7))),
    "sign square negative abs": ("y[...] = np.sign(x - 0.5) + np.square(x) + np.negative(x) + np.abs(x - 0.5)",
                                 M, np.zeros((6, 7))),
    "ufunc of int array": ("y[...] = np.sqrt((x * 10).astype(np.int32))", M, np.zeros((6, 7))),
    "isnan": ("y[...] = np.where(np.isnan(x), 0.0, x)", M, np.zeros((6, 7))),
    "bool & | ~ ^": ("y[...] = np.where(((x > 0.2) & (x < 0.7)) | ~(x > 0.1) ^ (x > 0.9), x, -1.0)", M,
                     np.zeros((6, 7))),
    "comparison into bool array": ("y[...] = x > 0.5", M, np.zeros((6, 7), bool)),
    "np.clip of scalars is a numpy float64": ("y[...] = x.astype(np.float32) * np.clip(0.5, 0.2, 0.4)", M,
                                              np.zeros((6, 7))),
    "numpy scalar call in a temporary": ("t = np.where(x > 0.5, np.sign(0.5) + x, x)\ny[...] = t", M,
                                         np.zeros((6, 7))),
    "bool temporary": ("m = x > 0.5\ny[...] = np.where(m, x, 0.0) + m", V, np.zeros(10)),
    # reductions
    "axis tuple": ("y[...] = x.sum(axis=(0, 2))", T3, np.zeros(4)),
    "negative axis tuple": ("y[...] = np.max(x, axis=(-1, 0))", T3, np.zeros(4)),
    "keepdims without axis": ("y[...] = x - x.mean(keepdims=True)", M, np.zeros((6, 7))),
    "keepdims axis tuple": ("y[...] = x - x.max(axis=(0, 1), keepdims=True)", M, np.zeros((6, 7))),
    "np.add.reduce": ("y[...] = np.add.reduce(x, axis=1)", M, np.zeros(6)),
    "np.maximum.reduce default axis 0": ("y[...] = np.maximum.reduce(x)", M, np.zeros(7)),
    "np.minimum.reduce axis None": ("y[...] = np.minimum.reduce(x, axis=None)", M, np.zeros(7)),
    "np.multiply.reduce initial": ("y[...] = np.multiply.reduce(x, axis=1, initial=2.0)", M, np.zeros(6)),
    "sum and min initial": ("y[...] = np.sum(x, axis=0, initial=2.0) + np.min(x, axis=0, initial=0.3)", M,
                            np.zeros(7)),
    "prod and mean method": ("y[...] = np.prod(x, axis=0) + x.mean(axis=0)", M, np.zeros(7)),
    "sum of a mask": ("y[0] = np.sum(x > 0.5)\ny[1] = (x > 0.2).sum()", V, np.zeros(10)),
    "sum of int8 widens": ("y[...] = (x * 10).astype(np.int8).sum(axis=0)", M, np.zeros(7, np.int64)),
    "sum of int32 widens": ("y[0] = np.sum((x * 10).astype(np.int32))", V, np.zeros(10, np.int64)),
    # np.copyto(dst, src): dst[...] = src with NumPy's broadcasting and casting='same_kind'
    "copyto broadcast row": ("np.copyto(y, x[0, :] * 2.0)", M, np.zeros((6, 7))),
    "copyto into a slice, reading it": ("np.copyto(y[1:, :], y[:-1, :] + x[1:, :])", M, np.ones((6, 7))),
    "copyto a scalar, float into float32": ("np.copyto(y[2:], 1.5)\nnp.copyto(y[:2], x[:2])", V,
                                            np.zeros(10, np.float32)),
    "copyto ints into floats and unsafe": ("np.copyto(y, 3)\nnp.copyto(y[1:], x[1:] * 3.7, casting='unsafe')", V,
                                           np.zeros(10, np.int16)),
}


@pytest.mark.parametrize("case", list(FORMS))
def test_form_matches_numpy(case):
    body, x, y = FORMS[case]
    k = _kernel_from("def k(x, y):\n" + "".join(f"    {line}\n" for line in body.splitlines()))
    _same(k, x, y)


def test_float32_ufuncs_keep_float32_within_numpys_simd_ulps():
    def k(x, y):
        y[...] = np.exp(x.astype(np.float32)) * np.fmax(x, 0.5).astype(np.float32)

    _same(k, M, np.zeros((6, 7), np.float32), rtol=1e-6)


def test_clip_propagates_nan_like_numpy():
    def k(x, lo, out):
        out[:] = np.clip(x, lo, 1.0)

    _same(k, np.array([np.nan, 0.5, 2.0, -1.0]), np.array([0.0, np.nan, 0.0, 0.0]), np.zeros(4))


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e300, -1e300, 126.5, 127.5, -127.5, -128.0,
                     3.0, -2.5, 5e-324])


def test_clip_by_literal_bounds_keeps_nan_and_the_tie_rule():
    def k(x, out, m):
        out[:] = np.clip(x, -127.0, 127.0)
        m[:] = np.minimum(np.maximum(x, 0.0), 3) + np.maximum(x, -1)

    _same(k, SPECIALS, np.zeros(SPECIALS.size), np.zeros(SPECIALS.size))
    # the form x86 lowers to vmaxpd/vminpd: one compare per bound, no NaN test left
    llvm = polyfuse.kernel(k).inspect_llvm(SPECIALS, np.zeros(SPECIALS.size), np.zeros(SPECIALS.size))
    assert " uno " not in llvm


def test_signed_zero_ties_follow_numpy():
    """np.maximum/np.minimum give the second argument on ties (-0.0 against 0.0), np.clip the
    value being clipped."""
    def k(x, y, out):
        out[0] = np.maximum(x, y)
        out[1] = np.minimum(x, y)
        out[2] = np.maximum(x, 0.0)
        out[3] = np.minimum(x, -0.0)
        out[4] = np.clip(x, 0.0, 1.0)
        out[5] = np.clip(x, -1.0, -0.0)

    x, y = np.array([-0.0, 0.0] * 4), np.array([0.0, -0.0] * 4)
    want = np.zeros((6, 8))
    k(x, y, want)
    for target in ("python", "cpu"):
        got = np.zeros((6, 8))
        polyfuse.kernel(k, target=target)(x, y, got)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=target)


def test_round_clip_cast_chain_matches_numpy():
    def k(x, scale):
        return np.clip(np.rint(x / scale), -127.0, 127.0).astype(np.int8)

    finite = SPECIALS[np.isfinite(SPECIALS)]  # NaN/inf to int8 is undefined in C and numpy
    _same(k, np.concatenate([finite, RNG.standard_normal(40)]), 0.02)


def test_slice_bound_of_an_int_argument_is_clamped_as_numpy_clamps():
    def k(x, y, n):
        y[:n] = x[:n] * 2.0

    for n in (0, 3, 10, 25):
        _same(k, V, np.zeros(10), n)


def test_negative_bound_at_run_time_is_refused_not_wrapped():
    def k(x, y, n):
        y[:n] = x[:n]

    with pytest.raises(ArgumentError, match="slice bound that is not a constant is negative"):
        polyfuse.kernel(k, target="python")(V, np.zeros(10), -2)


def test_a_window_past_the_end_is_refused_at_call_time():
    def k(x, w, out):
        for p in range(w.shape[0]):
            out += w[p] * x[p:p + out.shape[0]]

    kernel = polyfuse.kernel(k, target="python")
    _same(k, V, RNG.random(3), np.zeros(8))
    with pytest.raises(ArgumentError, match="runs past the slice"):
        kernel(V, RNG.random(4), np.zeros(8))  # NumPy's x[3:11] has 7 elements: it raises too


def test_views_bound_to_names_alias_their_array():
    def k(x, y):
        v = x[1:]
        v += x[:-1]
        t = x[::2]
        x[0] = 9.0
        y[: t.shape[0]] = t

    _same(k, V, np.zeros(10))


def test_shape_of_a_temporary_in_a_slice_bound():
    def k(x, y):
        T = x * 2.0
        y[:T.shape[0] - 1] = T[1:]

    _same(k, V, np.zeros(10))


def test_returned_view_is_a_copy_with_the_values():
    def k(x):
        v = x[::-1]
        return v

    out = polyfuse.kernel(k, target="python")(V.copy())
    np.testing.assert_array_equal(out, V[::-1])


def _rebound(x):
    T = x * 2.0
    T = T + 1.0
    return T


def _transposed(x):
    return x.T


def _pair(x):
    return np.clip(x, 0.2, 0.5), x[1:], x.max(axis=(0, 1), keepdims=True)


@pytest.mark.parametrize("fn", [_rebound, _transposed, _pair])
def test_returned_arrays_are_the_values_numpy_returns(fn):
    for target in ("python", "cpu"):
        want = fn(M.copy())
        got = polyfuse.kernel(fn, target=target, verify=True)(M.copy())
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def k_bad_axes(x, y):
    y[...] = np.transpose(x, (0, 0))


def k_bad_dtype(x, y):
    y[...] = x.astype(np.float16)


def k_float_initial(x, y):
    y[0] = np.sum(x, initial=0.5)


def k_bound_may_be_negative(x, y):
    for i in range(x.shape[0]):
        y[i - 1:] = x[i - 1:]


def k_temporary_changes_shape(x, y):
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            t = x[:min(i, j)] * 2.0  # an extent polyfuse cannot bound over the loops (x[:i] it can)
            y[:min(i, j)] = t


def k_max_of_mask(x, y):
    y[0] = np.max(x > 0.5, initial=False)  # (np.max of booleans is np.any since fe32; initial= is refused)


def k_repeated_axis(x, y):
    y[...] = x.sum(axis=(1, -1))


def k_nonzero(x, y):
    y[...] = x[np.nonzero(x)]


REFUSALS = {
    "transpose axes not a permutation": (k_bad_axes, (M, np.zeros((6, 7))), "permutation"),
    "astype to an unsupported dtype": (k_bad_dtype, (M, np.zeros((6, 7))), "dtype 'np.float16'"),
    "float initial= into an integer sum": (k_float_initial, (np.arange(4), np.zeros(1, np.int64)), "initial="),
    "slice bound that may be negative": (k_bound_may_be_negative, (V, np.zeros(10)), "may be negative"),
    "temporary whose shape changes in a loop": (k_temporary_changes_shape, (V, np.zeros(10)),
                                                "changes with a loop variable"),
    "max of a boolean array with initial=": (k_max_of_mask, (V, np.zeros(1, bool)), "boolean array with initial="),
    "repeated axis": (k_repeated_axis, (M, np.zeros(6)), "repeated"),
    "data-dependent shape": (k_nonzero, (V, np.zeros(10)), "data-dependent shape"),
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


def k_math_scale(x32, y):
    y[...] = x32 * math.sqrt(2.0) + math.floor(2.7) * float(3)


def k_attention_scale(Q, K):
    return Q @ K.T * (1.0 / math.sqrt(Q.shape[1]))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_python_number_calls_in_array_expressions_are_weak_scalars(target):
    """math.* and float()/int() give Python numbers: a float32 array times one stays float32."""
    x = np.linspace(-1, 1, 10, dtype=np.float32)
    want, got = np.zeros(10, np.float32), np.zeros(10, np.float32)
    k_math_scale(x, want)
    polyfuse.kernel(k_math_scale, target=target)(x, got)
    np.testing.assert_array_equal(got, want)
    Q, K = np.random.default_rng(0).random((5, 4)), np.random.default_rng(1).random((6, 4))
    np.testing.assert_allclose(polyfuse.kernel(k_attention_scale, target=target)(Q, K), k_attention_scale(Q, K),
                               rtol=1e-12)


def k_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


def k_row_mean_centered(x, out):
    out[...] = x - x.mean(axis=1, keepdims=True)


@pytest.mark.parametrize("fn, args", [(k_softmax, (M,)), (k_row_mean_centered, (M, np.zeros_like(M)))])
def test_reductions_over_trailing_axes_fuse_into_one_row_loop(fn, args):
    """Each result element is started, accumulated and finished inside the loop over the kept
    axes, so the reductions fuse with what produces and consumes them (one nest, rows private)."""
    kernel = polyfuse.kernel(fn, target="cpu")
    expected = [a.copy() for a in args]
    want = fn(*expected)
    got = kernel(*args)
    if want is not None:
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(args[-1], expected[-1], rtol=1e-12)
    assert kernel.explain(*args).fused_loop_nests() == 1


# ---- np.zeros / np.ones / np.full (and _like) used as values ----------------------------------
@pytest.mark.parametrize("expr", [
    "x + np.ones(x.shape[0])", "np.where(x > 0.5, x, np.zeros_like(x))", "np.maximum(x, np.full(x.shape, 0.25))",
    "x * np.full_like(x, 2, dtype=np.float32)", "np.ones((2, x.shape[0]), dtype=np.int32) + np.zeros(x.shape[0], np.int8)",
    "np.full(x.shape[0], 3) * x", "np.full(x.shape[0], True) & (x > 0.3)", "np.ones_like(x, np.int16) - 1",
])
def test_filled_arrays_as_values(expr):
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), V)


@pytest.mark.parametrize("expr, message", [
    ("x + np.empty(3)", "undefined"), ("np.zeros(3, order='F') + x", "keyword order"),
    ("np.full(3, x) + x", "array fill value"), ("np.ones(3, 'float16') + x", "dtype"),
])
def test_filled_arrays_as_values_refused(expr, message):
    fn = _kernel_from(f"def k(x):\n    return {expr}\n")
    with pytest.raises(UnsupportedError, match=message):
        polyfuse.kernel(fn, target="python")(V[:3])


def test_allocations_shaped_like_another_array():
    """``np.zeros(x.shape)``, ``np.ones(A[0].shape)``, ``np.full(A.shape, v)``: the extents of an
    argument, a row of one, or a local array; ``len()`` of the result works too."""
    source = ("def k(x, A):\n    y = np.empty_like(x)\n    z = np.zeros(y.shape, dtype=np.float32)\n"
              "    w = np.ones(A[0].shape)\n    for i in range(len(y)):\n"
              "        y[i] = x[i] + len(z) + w[i % len(w)]\n    return y, z, np.full(A.shape, 2.0) + A\n")
    _same(_kernel_from(source), V, M)


# ---- running sums and integer ranges ----------------------------------------------------------
I32 = RNG.integers(-5, 6, (6, 7)).astype(np.int32)


@pytest.mark.parametrize("expr, arg", [
    ("np.cumsum(x)", V), ("x.cumsum()", V), ("np.cumprod(x * 0.5 + 0.75)", V), ("np.cumsum(x > 0.5)", V),
    ("np.cumsum(x, axis=1)", M), ("x.cumsum(axis=-2) - x", M), ("np.cumprod(x, 0)", I32),
    ("np.cumsum(x.astype(np.float32), axis=1)", M), ("np.cumsum(x[:0])", V), ("np.cumsum(x, axis=1)", I32),
])
def test_running_sums(expr, arg):
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), arg)


@pytest.mark.parametrize("expr", [
    "np.arange(x.shape[0]) * x", "np.arange(2, x.shape[0] + 2) + x", "x[::-1] * np.arange(x.shape[0] - 1, -1, -1)",
    "np.arange(1, 2 * x.shape[0], 2) * 0.5 + x", "np.arange(n) + 0", "np.arange(n, 0, -3) + 0", "np.arange(5, n) + 0",
])
def test_integer_ranges(expr):
    for n in (0, 7, 10):
        _same(_kernel_from(f"def k(x, n):\n    return {expr}\n"), V, n)


def test_running_sums_with_out_are_refused_dtype_is_numpys_and_float_ranges_are_numpys():
    """dtype= is NumPy's (np37); out= is still refused, with a message that says which arguments work."""
    _same(_kernel_from("def k(x):\n    return np.cumsum(x, dtype=np.float32)\n"), M)
    with pytest.raises(UnsupportedError, match="other than axis= and dtype="):
        polyfuse.kernel(_kernel_from("def k(x, y):\n    return np.cumsum(x, out=y)\n"), target="python")(M, M.ravel().copy())
    _same(_kernel_from("def k(x):\n    return np.arange(0.5, 3.0) + x[0, 0]\n"), M)  # test_float_arange.py


@pytest.mark.parametrize("expr", ["np.cumsum(x)", "x.cumprod()", "np.cumsum(x, axis=None)", "np.cumsum(x.T)"])
def test_running_sums_without_axis_flatten_as_numpy(expr):
    """Without axis= NumPy runs over the C-order flattening of a matrix: np.ravel first."""
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), M)


# ---- npbench-style forms: ufunc functions and outer, flips, eye, norms, var/std, mask stores ----
@pytest.mark.parametrize("expr, args", [
    ("np.add(x, x) * np.multiply(x, 2.0) - np.subtract(1, x) / np.divide(x, 4)", (M,)),
    ("np.power(x, 2) + np.true_divide(x, 3) + np.floor_divide(x, 0.25) + np.mod(x, 0.3)", (M,)),
    ("np.add.outer(x[:, 0], x[0, :])", (M,)), ("np.minimum(x, np.add.outer(x[:, 0], x[0, :]))", (SQ,)),
    ("np.multiply.outer(x[0], x[1]) + np.maximum.outer(x[2], x[3])", (M,)),
    ("np.flip(x) + np.flip(x, axis=1) * 2 + np.flipud(x) * 3 + np.fliplr(x) * 4", (M,)),
    ("np.flip(x[0, :]) @ x[1, :]", (M,)),
    ("np.eye(x.shape[0]) + x", (SQ,)), ("np.eye(x.shape[0], x.shape[1], k=2, dtype=np.int32) + x", (M,)),
    ("np.identity(x.shape[0], dtype=x.dtype) - x", (SQ,)), ("np.eye(x.shape[0], k=-1) * 3.0 + x", (SQ,)),
    ("np.linalg.norm(x)", (M,)), ("x / np.linalg.norm(x, axis=1, keepdims=True)", (M,)),
    ("np.linalg.norm(x[0, :].astype(np.float32))", (M,)),
    ("np.var(x), np.std(x, axis=0), x.var(axis=1, ddof=1), x.std(axis=-1, keepdims=True)", (M,)),
    ("np.std(x.astype(np.float32), axis=0)", (M,)),
    ("np.triu(x), np.triu(x, 1), np.tril(x, k=-1), np.tril(x, 2)", (M,)),
    ("np.sum(np.triu(x * 2.0, 1))", (SQ,)),  # npbench nbody's potential energy
    ("np.cov(np.transpose(x))", (M,)),  # npbench covariance2
    ("np.cov(x, rowvar=False), np.cov(x, bias=True), np.cov(x, ddof=0), np.cov(x.astype(np.float32))", (M,)),
    ("np.cov(x[0]) + 1.0", (M,)),
])
def test_npbench_forms(expr, args):
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), *args, rtol=1e-6 if "float32" in expr else 1e-10)


def test_boolean_mask_stores_and_chained_assignments():
    source = ("def k(x, y):\n    x[x <= 0.3] = 1.0\n    y[x > 0.5] += 2.0\n    x[y < 0.2] *= -1.0\n"
              "    a = b = x[0, 0] * 2\n    x[1:3, 0] = y[1:3, 1] = a + b\n    return x, y\n")
    _same(_kernel_from(source), M, M * 0.5)


def test_temporaries_whose_extent_changes_with_the_loop():
    """``data[:, i] @ data[:, i:M]`` in a loop over i: the temporary is allocated at its largest."""
    source = ("def k(x):\n    n = x.shape[1]\n    cov = np.zeros((n, n))\n    for i in range(n):\n"
              "        cov[i:n, i] = cov[i, i:n] = x[:, i] @ x[:, i:n] / 3.0\n"
              "        cov[i, :i] += np.exp(x[0, :i]) * 2.0\n    return cov\n")
    _same(_kernel_from(source), M)


def test_mask_stores_refused_where_numpy_would_differ():
    for source, message in (("def k(x):\n    x[x > 0.5] = x[:3, :3]\n", "scalar"),
                            ("def k(x):\n    x[x[:1] > 0.5] = 0.0\n", "mask whose shape")):
        with pytest.raises(UnsupportedError, match=message):
            polyfuse.kernel(_kernel_from(source), target="python")(M.copy())


# ---- third-party forms: logical and comparison ufuncs, linspace, masked reads in mask stores ----
@pytest.mark.parametrize("expr", [
    "np.logical_and(x > 0.2, y < 0.7)", "np.logical_or(x, y > 0.5)", "np.logical_xor(x > 0.5, y)",
    "np.logical_not(x > 0.5)", "np.logical_not(x)", "np.where(np.logical_and(x, True), x, y)",
    "np.less(x, y)", "np.greater_equal(x, 0.5) & np.not_equal(y, x)", "np.equal(x, 0.0) | np.less_equal(y, 0.1)",
])
def test_logical_and_comparison_ufuncs_of_arrays(expr):
    x = M.copy()
    x[0, :3] = (0.0, np.nan, -0.0)  # zeros are false, NaN is true, as in NumPy
    _same(_kernel_from(f"def k(x, y):\n    return {expr}\n"), x, M[::-1].copy())


@pytest.mark.parametrize("expr", [
    "np.linspace(a, b, n)", "np.linspace(a, b, n, endpoint=False)", "np.linspace(0, 1, num=n) * 2 + a",
    "np.linspace(b, a, n + 3)[1:]", "np.linspace(a, a, n)", "np.linspace(-1e-320, 1e-320, n)",
    "np.linspace(a, b, n, dtype=np.float32)", "np.linspace(a, b, n, endpoint=False, dtype=np.float32) * 3",
    "np.linspace(a, b, n, dtype=np.float64)",
])
def test_linspace_is_numpys_arithmetic(expr):
    fn = _kernel_from(f"def k(a, b, n):\n    return {expr}\n")
    kernels = [polyfuse.kernel(fn, target=target) for target in ("python", "cpu")]
    for n in (0, 1, 2, 5, 12):
        for a, b in ((0.5, 3.25), (-2.0, 1.0)):
            # bit for bit: the same ramp i * step + start, the end exactly stop
            for kernel in kernels:
                np.testing.assert_array_equal(kernel(a, b, n), fn(a, b, n))


def test_linspace_refusals():
    for expr, message in (("np.linspace(x, 1.0, 5)", "real scalars"), ("np.linspace(0, 1, 5, retstep=True)",
                                                                          "retstep"),
                          ("np.linspace(0, 1, 5, dtype=np.int32)", "dtype")):
        with pytest.raises(UnsupportedError, match=message):
            polyfuse.kernel(_kernel_from(f"def k(x):\n    return {expr}\n"), target="python")(V)


@functools.cache
def _linspace_float32(endpoint: bool):
    """The function and one kernel of it per ``endpoint``: the examples differ in the call's
    values only (a, b: float, n: int), so they call the same compiled variant."""
    fn = _kernel_from(f"def k(a, b, n):\n    return np.linspace(a, b, n, endpoint={endpoint}, dtype=np.float32)\n")
    return fn, polyfuse.kernel(fn)


@settings(max_examples=25, deadline=None)
@given(a=st.floats(-1e6, 1e6), b=st.floats(-1e6, 1e6), n=st.integers(0, 40), endpoint=st.booleans())
def test_linspace_float32_is_numpys_float64_values_converted(a, b, n, endpoint):
    fn, kernel = _linspace_float32(endpoint)
    got, want = kernel(a, b, n), fn(a, b, n)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def mandelbrot(xmin, xmax, ymin, ymax, xn, yn, maxiter):
    X = np.linspace(xmin, xmax, xn)
    Y = np.linspace(ymin, ymax, yn)
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, dtype=np.complex128)
    for n in range(maxiter):
        inside = np.less(abs(Z), 2.0)
        N[inside] = n
        Z[inside] = Z[inside] ** 2 + C[inside]  # the selected elements, pair by pair
    N[N == maxiter - 1] = 0
    return Z, N


def reciprocal_where_positive(x, y):
    x[x > 0.3] = x[x > 0.3] ** -1.5
    y[x < 2.0] = np.exp(y[x < 2.0]) * 2 + x[x < 2.0]
    return x, y


def test_mask_stores_of_masked_reads():
    # NumPy's array z * z rounds like its SIMD loop (1 ulp from the scalar formula): a tolerance
    _same(mandelbrot, -2.0, 1.0, -1.0, 1.0, 9, 7, 12, rtol=1e-13)
    _same(reciprocal_where_positive, np.linspace(0.0, 1.0, 11), np.arange(11.0), rtol=1e-14)


def test_mask_stores_of_arrays_not_indexed_by_the_mask_are_refused():
    for source, message in (("def k(x, w):\n    x[x > 0.5] = x[x > 0.5] + w\n", "array 'w'"),
                            ("def k(x, w):\n    x[x > 0.5] = x[x > 0.5] * np.ones(10)\n", "np.ones"),
                            ("def k(x, w):\n    x[x > 0.5] = x[x < 0.5]\n", "boolean mask is not supported")):
        with pytest.raises(UnsupportedError, match=message):
            polyfuse.kernel(_kernel_from(source), target="python")(V.copy(), V.copy())


# ---- reshapes that add or remove axes of extent 1 (NumPy's views whatever the strides) --------
@pytest.mark.parametrize("expr, args", [
    ("np.reshape(x, (x.shape[0], 1, x.shape[1])) * 2", (M,)), ("x.reshape(1, x.shape[0], x.shape[1], 1) + 1", (M,)),
    ("x.reshape(-1, 1, x.shape[1])", (M,)), ("x.reshape(x.shape) - x", (M,)), ("np.reshape(x, shape=(1, -1)) + 0", (V,)),
    ("np.reshape(x[:, 0:1], (x.shape[0],)) * 3", (M,)), ("x[:, 2:3].squeeze() + np.squeeze(x[1:2, :5], axis=0)", (SQ,)),
    ("np.expand_dims(x, 1) * 2", (M,)), ("np.expand_dims(x[0], axis=(0, 2)) + 1", (M,)),
    ("np.sum(np.reshape(x, (x.shape[0], x.shape[1], 1)) * np.reshape(x[0], (1, 1, x.shape[1])), axis=1)", (M,)),
])
def test_reshapes_of_unit_axes(expr, args):
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), *args, rtol=1e-10)


def doitgen(NR, NQ, NP, A, C4):
    A[:] = np.reshape(np.reshape(A, (NR, NQ, 1, NP)) @ C4, (NR, NQ, NP))


def test_reshape_extents_paired_with_integer_arguments_are_checked_per_call():
    A = RNG.random((3, 4, 5))
    _same(doitgen, 3, 4, 5, A, RNG.random((5, 5)), rtol=1e-10)
    with pytest.raises(ArgumentError, match="assume"):
        polyfuse.kernel(doitgen, target="python")(4, 3, 5, A.copy(), RNG.random((5, 5)))


def test_reshapes_refused():  # reshapes that regroup elements: tests/frontend/test_reshape.py
    for expr, message in (("x.reshape(x.shape, order='F')", "order"), ("x.squeeze(axis=0)", "constant 1"),
                          ("x.reshape(-1, -1)", "more than one -1"), ("x.ravel('F')", "order"),
                          ("x.reshape(-1, order='A')", "order='A'"), ("np.ravel(x, order='A')", "order")):
        with pytest.raises(UnsupportedError, match=message):
            polyfuse.kernel(_kernel_from(f"def k(x):\n    return {expr}\n"), target="python")(M)


# ---- small arrays written as lists -------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "np.array([1.0, 2.0, 1.0]) / 4.0 * x[:3]", "np.array([1.0, 2.0, 1.0], dtype=np.float32) * 2",
    "np.array([1, 2, 3]) + 0", "np.array((x[0], x[1] * 2, n)) + 0", "np.array([x[0], 1]) @ x[:2]",
    "np.asarray(x) + np.array(x)", "np.array([n, 2 * n], dtype=np.int32) + 0",
    "np.array([np.float32(1.5), np.float32(x[0])]) * 2", "np.array([np.float32(1.5), 2]) + 0",
])
def test_array_literals(expr):
    _same(_kernel_from(f"def k(x, n):\n    return {expr}\n"), V, 3)


def test_array_literals_refused():
    for expr, message in (("np.array([x[:2], x[2:4]])", "arrays"), ("np.array(x, dtype=np.float32)", "no dtype=")):
        with pytest.raises(UnsupportedError, match=message):
            polyfuse.kernel(_kernel_from(f"def k(x):\n    return {expr}\n"), target="python")(V)


F32, C128 = np.float32, np.dtype("complex128")  # dtypes named by globals (npbench's np_float, np_complex)


def dtypes_named_by_globals(x, n):
    z = np.zeros(x.shape, dtype=C128)
    z[:] = x * 1j
    return np.linspace(0.0, 1.0, n, dtype=np.float64) + 0, x.astype(F32), np.ones(n, F32), z


def test_dtypes_named_by_globals():
    _same(dtypes_named_by_globals, V, 4)


@pytest.mark.parametrize("expr", [
    "np.average(x)", "np.average(x, axis=0)", "np.average(x, 1, keepdims=True)", "np.average(x, weights=x * 2)",
    "np.average(x, axis=-1, weights=np.exp(x))", "np.average(x.astype(np.int32))",
])
def test_average(expr):
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), M)


@pytest.mark.parametrize("expr", [
    "np.argmin(x)", "np.argmax(x)", "x.argmax()", "np.argmin(abs(x[1] - 0.5) ** 2)", "np.argmax(x > 0.5)",
    "np.argmin(x.astype(np.int32) * 0 + 3)", "x[0].argmin() + x[2].argmax()",
])
def test_argmin_argmax(expr):
    x = M.copy()
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), x)
    x[2, 3] = x[4, 1] = np.nan  # the first NaN wins, as in NumPy
    _same(_kernel_from(f"def k(x):\n    return {expr}\n"), x)


def test_abs_of_a_complex_array_is_real():
    """abs(z) of a complex array: float64 magnitudes (it was typed complex128, values + 0j)."""
    z = RNG.random(6) + 1j * RNG.random(6) - 0.5
    _same(_kernel_from("def k(z):\n    return abs(z), abs(z.astype(np.complex64)) ** 2, np.argmin(abs(z - z[2]))\n"), z)


def shapes_sliced(image, x):
    image = image.astype(np.float32)
    gray = np.empty(image.shape[:2], dtype=np.float32)  # npbench's hist: a temporary's first extents
    gray[:, :] = 0.299 * image[:, :, 0] + 0.587 * image[:, :, 1] + 0.114 * image[:, :, 2]
    t = np.zeros(x.shape[1:])
    t[:] = x[0] + x[-1]
    return gray, t, np.ones(x.shape[-1:]) + 0


def test_allocations_shaped_by_a_slice_of_a_shape():
    _same(shapes_sliced, (RNG.random((4, 5, 3)) * 255).astype(np.uint8), M)


def k_copyto_float_into_int(x, y):
    np.copyto(y, x)  # ERR


def k_copyto_signed_into_unsigned(x, y):
    np.copyto(y, x.astype(np.int8))  # ERR


def k_copyto_int_into_bool(x, y):
    np.copyto(y, 1)  # ERR


def k_copyto_element(x, y):
    np.copyto(y[0], x[0])  # ERR


def k_copyto_out_of_range(x, y):
    np.copyto(y, 1000)  # ERR


def k_copyto_src_twice(x, y):
    np.copyto(y, x, src=x)  # ERR


@pytest.mark.parametrize("fn, y, words", [
    (k_copyto_float_into_int, np.zeros(10, np.int64), "np.copyto from float64 into int64"),
    (k_copyto_signed_into_unsigned, np.zeros(10, np.uint8), "np.copyto from int8 into uint8"),
    (k_copyto_int_into_bool, np.zeros(10, bool), "np.copyto from int64 into bool"),
    (k_copyto_element, np.zeros(10), "not an array"),
    (k_copyto_out_of_range, np.zeros(10, np.int8), "1000 is out of bounds for int8"),
    (k_copyto_src_twice, np.zeros(10), "np.copyto other than (dst, src"),
])
def test_copyto_refused_where_numpy_refuses(fn, y, words):
    with pytest.raises((TypeError, OverflowError)):
        fn(V.copy(), y.copy())
    with pytest.raises(UnsupportedError, match=re.escape(words)) as info:
        polyfuse.kernel(fn, target="python")(V.copy(), y.copy())
    lines, first = inspect.getsourcelines(fn)
    assert info.value.span.line == first + 1 and info.value.span.filename == __file__


# ---- reductions of boolean-mask selections ------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "np.sum(x[x > 0.5])", "x[y < 0.3].sum()", "np.mean(x[x > 2.0])", "np.prod(x[x > 0.9])",
    "np.mean(y.astype(np.int32)[x > 0.1])", "x.astype(np.float32)[x > 0.2].mean()",
    "np.sum(x[np.logical_and(x > 0.2, y < 0.8)], axis=0)", "np.sum(x[x > 0.5], initial=1.0)",
    "np.max(x[x > 0.5])", "x[y < 0.3].min()", "np.amin(x[x > 0.5], axis=0)",
])
def test_reductions_of_masked_selections(expr):
    _same(_kernel_from(f"def k(x, y):\n    return {expr}\n"), M, M[::-1].copy(), rtol=1e-6)


def radial_means(data, radius, bins):
    rmax = radius.max()
    res = np.zeros(bins)
    for i in range(bins):
        ring = np.logical_and(rmax * i / bins <= radius, radius < rmax * (i + 1) / bins)
        values = data[ring]  # npbench's azimint_naive: a selection named, then reduced
        res[i] = values.mean()
    return res


def test_a_named_selection_reduced_in_the_next_statement():
    _same(radial_means, RNG.random(300), RNG.random(300), 12)


def test_a_named_selection_reduced_later():
    """Past the next statement the mask is kept where it is bound (frontend/selection_loops.py)."""
    _same(_kernel_from("def k(x, y):\n    v = x[x > 0.5]\n    s = 1.0\n    return v.sum() + s\n"), M, M)


def test_a_named_selection_returned_in_arithmetic():
    """v = x[m] read once in the returned item: the selection of the arithmetic (fe27)."""
    _same(_kernel_from("def k(x, y):\n    v = x[x > 0.5]\n    return v * 2 - y[x > 0.5]\n"), M, M[::-1].copy())


def test_selections_used_otherwise_are_refused():
    for source, message in (("def k(x, y):\n    v = x[x > 0.5]\n    return v ** 2\n", "boolean-mask selection"),
                            ("def k(x, y):\n    v = x[x > 0.5]\n    x[0, 0] = 1.0\n    return v.sum()\n",
                             "right after"),
                            ("def k(x, y):\n    return np.max(x[x[:, 0] > 0.5])\n", "max/min"),
                            ("def k(x, y):\n    return np.sum(x[x > 0.5], axis=1)\n", "axis")):
        with pytest.raises(UnsupportedError, match=message):
            polyfuse.kernel(_kernel_from(source), target="python")(M, M)


# ---- gathers: one integer index array (NumPy's advanced indexing, a copy) -----------------------
IDX = np.array([3, 1, 1, 5, -1, 0])


@pytest.mark.parametrize("expr", [
    "x[0, idx] * 2", "x[idx[:3], 1:] + 1", "x[idx[::-1], 2] + 0", "x[1, idx] @ x[2, idx]",
    "np.sum(x[:, idx], axis=1)", "x[idx.astype(np.int32)[1:4]][:, 0] + 0",
])
def test_gathers(expr):
    _same(_kernel_from(f"def k(x, idx):\n    return {expr}\n"), M, IDX)


def test_a_gather_out_of_bounds_raises_index_error_and_stores_as_numpy():
    with pytest.raises(IndexError):
        polyfuse.kernel(_kernel_from("def k(x, idx):\n    return x[0, idx] + 0\n"))(M, np.array([1, 9]))
    _same(_kernel_from("def k(x, idx):\n    x[idx, idx] = 1.0\n"), M, IDX)  # test_index_array_stores.py
    _same(_kernel_from("def k(x, idx):\n    return x[idx, idx] + 0\n"), M, IDX)  # test_advanced_index.py
