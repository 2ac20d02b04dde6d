"""Reshapes that regroup elements (frontend/arrays.py ``reshape_copy``), against NumPy: a copy
into a new temporary in C order whatever the source's strides, extents that are products of
sizes as sizes the call computes (scop.SizeProduct), NumPy's ValueError when the element counts
differ (scop.ElementCount), and the writes that would let the copy and NumPy's view drift apart
refused."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

TARGETS = ["python", "cpu"]
RNG = np.random.default_rng(12)


@functools.cache
def _kernel(fn, target):
    """One kernel per function and target for the whole module, so a signature seen before (the
    hypothesis examples, the same function at other sizes) reuses its compiled variant instead of
    compiling it again (the python target has no disk cache)."""
    return polyfuse.kernel(fn, target=target, verify=True)


def _same(fn, *args, targets=TARGETS, rtol=1e-12):
    """``fn`` compiled for each target returns and writes what ``fn`` does, dtypes included."""
    for target in targets:
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = fn(*expected)
        got = _kernel(fn, target)(*actual)
        for e, a in zip(expected + [want], actual + [got]):
            if isinstance(e, np.ndarray):
                assert a.dtype == e.dtype and a.shape == e.shape, target
                np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-13, err_msg=target)


# ---- flatten a computed temporary, then a product or a reduction ------------------------------
def flatten_then_product(x, w, n: int, c: int):  # lenet: (N, H, W, C) -> (N, H * W * C) @ fc
    t = np.maximum(x * 2.0 - 0.5, 0.0)
    t = np.reshape(t, (n, c))
    return t @ w


def flatten_minus_one_then_sum(x):  # the -1 extent is x.shape[1] * x.shape[2]: a size the call computes
    t = x + 1.0
    return t.reshape(x.shape[0], -1).sum(axis=1) + t.reshape(-1)[: x.shape[0]]


def ravel_forms(x):
    return (x * 3).ravel() + x.flatten() + np.ravel(x.T)


def product_extents(x):
    return (x * 0.5).reshape(x.shape[0] * x.shape[1], x.shape[2]).max(axis=0)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 2, 2, 3), (3, 1, 5, 1)])
def test_flatten_after_a_temporary_then_a_matrix_product(shape):
    x = RNG.random(shape)
    c = shape[1] * shape[2] * shape[3]
    _same(flatten_then_product, x, RNG.random((c, 6)), shape[0], c, rtol=1e-10)


def sliced_then_raveled(x):  # x[2:] has x.shape[0] - 2 rows, 0 where NumPy's slice is empty
    return x[2:].ravel() * 2.0


@pytest.mark.parametrize("shape", [(4, 3, 5), (1, 2, 3), (6, 1, 7)])
def test_minus_one_ravel_and_product_extents(shape):
    x = RNG.random(shape)
    _same(flatten_minus_one_then_sum, x)
    _same(product_extents, x)
    _same(ravel_forms, RNG.random(shape[:2]))
    _same(sliced_then_raveled, RNG.random(shape[:2]))


def back_and_forth(x, n: int, m: int):
    y = (x + 1.0).reshape(x.shape[1], x.shape[0])  # a regrouping: element k of y is element k of x + 1
    z = (y * 2.0).reshape(-1).reshape(x.shape[0], x.shape[1])
    return z - x, y.T.reshape(-1), x.ravel().reshape(n, m) * 2.0


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))
@settings(max_examples=15, deadline=None)
def test_reshape_back_and_forth(a, b, c):
    x = RNG.random((a * b, c))
    _same(back_and_forth, x, a, b * c, targets=["python"])


def test_reshape_back_and_forth_cpu():
    _same(back_and_forth, RNG.random((6, 4)), 3, 8)
    _same(back_and_forth, RNG.random((6, 4)), 24, 1)
    _same(back_and_forth, RNG.random((5, 5)), 5, 5)


def paired_with_integers(x, n: int, m: int):
    return (x + 1.0).reshape(n, m)


def test_extents_paired_with_integer_arguments_are_a_view_assumed_equal():
    """Each new extent an integer argument paired with an old one (doitgen): a view, the pairs
    assumed equal and checked per call; a call that regroups is refused (ArgumentError), not
    computed wrongly."""
    _same(paired_with_integers, RNG.random((6, 4)), 6, 4)
    with pytest.raises(ArgumentError, match="assume"):
        polyfuse.kernel(paired_with_integers, target="python")(RNG.random((6, 4)), 3, 8)


# ---- arguments of any strides -------------------------------------------------------------------
def argument_reshaped(x, n: int):
    return x.reshape(n, -1) * 1.0 + 0.0


@pytest.mark.parametrize("view", ["c", "transposed", "strided", "sliced"])
def test_strided_arguments_are_read_in_c_order(view):
    base = RNG.random((6, 8))
    x = {"c": base, "transposed": base.T, "strided": base[::2, ::2], "sliced": base[1:5, 2:8]}[view]
    _same(argument_reshaped, x, 2 if x.size % 2 == 0 else 1)
    _same(argument_reshaped, x, x.shape[0])  # the paired extents equal at the call: the direct copy
    _same(ravel_forms, x)


# ---- the element counts must agree: NumPy's ValueError, before anything runs --------------------
def into_argument(x, out, n: int):
    out[0] = 7.0
    out[1:] = 0.0
    out[0] = np.sum(x.reshape(n, -1), axis=0)[0]


@pytest.mark.parametrize("target", TARGETS)
def test_size_mismatch_raises_numpys_value_error(target):
    k = polyfuse.kernel(flatten_then_product, target=target)
    x = RNG.random((2, 3, 4, 4))
    with pytest.raises(ValueError, match=r"cannot reshape array of size 96 into shape \(5,7\)"):
        k(x, RNG.random((7, 2)), 5, 7)
    with pytest.raises(ValueError) as numpy_error:
        flatten_then_product(x, RNG.random((7, 2)), 5, 7)
    assert "size 96 into shape (5,7)" in str(numpy_error.value)
    out = np.zeros(3)
    with pytest.raises(ValueError, match=r"cannot reshape array of size 12 into shape \(5,newaxis\)"):
        polyfuse.kernel(into_argument, target=target)(RNG.random((3, 4)), out, 5)
    assert not out.any()  # nothing ran
    _same(into_argument, RNG.random((3, 4)), np.zeros(3), 2)
    _same(into_argument, RNG.random((3, 4)), np.zeros(3), 12)
    _same(into_argument, RNG.random((3, 4)), np.zeros(3), 3)


# ---- a reshape in a time loop -------------------------------------------------------------------
def time_loop(u0, steps: int):
    u = u0 * 1.0
    for _ in range(steps):
        flat = u.reshape(-1)
        u[:] = np.reshape(flat * 0.5 + flat[::-1] * 0.25, (u.shape[0], 4)) + 1.0
    return u


def time_loop_rebound(u0, steps: int):
    u = u0 + 0.0
    for _ in range(steps):
        v = np.reshape(u * 0.5, (u.shape[1], u.shape[0]))
        u = v.reshape(u.shape[0], u.shape[1]) + u
    return u


@pytest.mark.parametrize("n", [1, 3, 5])
def test_reshape_in_a_time_loop(n):
    _same(time_loop, RNG.random((n, 4)), 4)
    _same(time_loop_rebound, RNG.random((n, 4)), 3)


def bound_in_both_branches(x, c: int):
    t = x * 2.0
    if c > 0:
        y = t.reshape(-1)
    else:
        y = (t + 1.0).reshape(-1)
    return y


def rebound_in_a_loop(x):  # the loop's copies reuse y's array; t is never written
    t = x * 2.0
    y = t.reshape(-1)
    for i in range(3):
        y = (t + i).reshape(-1) + y
    return y + t[0, 0]


def to_zero_d(x):
    return x.reshape(()) + x[:1].reshape(()) * 2.0


def test_reshape_to_zero_dimensions():
    _same(to_zero_d, RNG.random((1, 1, 1)))
    with pytest.raises(ValueError, match=r"cannot reshape array of size 3 into shape \(\)"):
        polyfuse.kernel(to_zero_d, target="cpu")(RNG.random((3, 1, 1)))


def source_rebound_in_a_loop(u0, steps: int):  # NumPy's flat views the old u, which u = ... does not write
    u = u0 * 1.0
    total = 0.0
    for _ in range(steps):
        flat = u.ravel()
        u = u * 0.5 + flat[0]
        total += flat.sum()
    return u + total


def test_reshapes_bound_in_branches_and_rebound_in_loops():
    for c in (0, 1):
        _same(bound_in_both_branches, RNG.random((3, 4)), c)
    _same(rebound_in_a_loop, RNG.random((3, 4)))
    _same(source_rebound_in_a_loop, RNG.random((3, 4)), 3)


# ---- writes that a copy would not share with NumPy's view ---------------------------------------
def writes_through_the_reshape(x):
    t = x * 2.0
    y = t.reshape(-1)
    y[0] = 5.0
    return t


def writes_the_source_then_reads(x):
    t = x * 2.0
    y = t.reshape(-1)
    t[0, 0] = 5.0
    return y + 1.0


def writes_the_source_in_a_loop(x):
    t = x * 2.0
    y = t.reshape(-1)
    for i in range(x.shape[0]):
        t[i, 0] = y[i]
    return t


def writes_through_a_reshaped_argument(x):
    y = x.reshape(-1)
    y[0] = 1.0


def writes_the_source_after_the_last_read(x):
    t = x * 2.0
    y = t.reshape(-1)
    s = y.sum()
    t[0, 0] = s
    return t


def stores_into_a_reshape_call(x):
    t = x * 2.0
    t.reshape(-1)[0] = 5.0
    return t


def stores_through_a_unit_axis_reshape(x):  # a view whatever the strides, as in NumPy
    t = x * 2.0
    t.reshape(1, t.shape[0], t.shape[1])[0, 1] = 5.0
    np.reshape(x, (x.shape[0], 1, x.shape[1]))[0, 0, :2] = -1.0
    return t


@pytest.mark.parametrize("fn, words", [
    (writes_through_the_reshape, "a write into the result of reshape() of 't'"),
    (stores_into_a_reshape_call, "a store into the result of reshape() or ravel() that regroups"),
    (writes_the_source_then_reads, "'y' is read after a write into 't'"),
    (writes_the_source_in_a_loop, "inside a loop or branch while 'y'"),
    (writes_through_a_reshaped_argument, "a write into the result of reshape() of 'x'"),
])
def test_writes_that_would_drift_from_numpys_view_are_refused(fn, words):
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(RNG.random((3, 4)))
    assert words in str(info.value), str(info.value)
    assert info.value.span is not None and info.value.span.filename == __file__


def test_a_source_written_after_the_last_read_is_fine():
    _same(writes_the_source_after_the_last_read, RNG.random((3, 4)))
    _same(stores_through_a_unit_axis_reshape, RNG.random((3, 4)))


def shape_in_a_loop(x):
    out = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        out[:i] = x[:i, :].reshape(i * x.shape[1])[:i]
    return out


def test_extents_that_change_in_a_loop_are_refused():
    with pytest.raises(UnsupportedError, match="reshape"):
        polyfuse.kernel(shape_in_a_loop, target="python")(RNG.random((3, 4)))


# ---- CUDA, on numba's simulator (tests/conftest.py turns it on) ----------------------------------
def flatten_into(x, w, out, n: int, c: int):
    t = np.maximum(x * 2.0 - 0.5, 0.0)
    out[...] = np.reshape(t, (n, c)) @ w


def minus_one_into(x, out):
    out[:] = (x + 1.0).reshape(x.shape[0], -1).sum(axis=1)


def constant_extents_into(x, out):  # constant extents: the copy's subscripts are affine (// and % by constants)
    t = np.zeros((2, 3, 4))
    t[...] = x * 2.0
    out[...] = t.reshape(6, 4) + np.ravel(t)[:4]


def test_cuda_simulator():
    cuda = pytest.importorskip("numba.cuda")
    from numba import config as numba_config
    if not numba_config.ENABLE_CUDASIM and not cuda.is_available():
        pytest.skip("no CUDA GPU and the simulator is off")
    _same(constant_extents_into, RNG.random((2, 3, 4)), np.zeros((6, 4)), targets=["cuda", "python", "cpu"])
    # sizes known only at the call: the copy reads at subscripts computed at run time, which
    # target='cuda' refuses as it does elsewhere (a clear UnsupportedError, not a wrong result)
    for fn, args in ((flatten_into, (RNG.random((2, 2, 3, 2)), RNG.random((12, 3)), np.zeros((2, 3)), 2, 12)),
                     (minus_one_into, (RNG.random((3, 2, 2)), np.zeros(3)))):
        with pytest.raises(UnsupportedError, match="computed at run time"):
            polyfuse.kernel(fn, target="cuda")(*args)
        _same(fn, *args)
