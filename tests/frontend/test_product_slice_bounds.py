"""Slice bounds that are products of a loop variable and an argument (``x[i * s:i * s + w]``):
kept as written, extent ``stop - start``, checked where the statement runs
(frontend/arrays.py ``bound``/``within``); compared with the undecorated function, and the
bounds NumPy would count from the end or clip raise a located error, never a clipped result."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError, UnsupportedError

TARGETS = ("python", "cpu")


def strided_windows(x, stride, count, width):
    out = np.zeros(count)
    for i in range(count):
        out[i] = np.sum(x[i * stride:i * stride + width])
    return out


def adaptive_taps(E, W, mu, stride):
    """A least-mean-squares filter over strided windows of two channels, updated in place."""
    taps = W.shape[-1]
    count = (E.shape[1] // stride // taps - 1) * taps
    err = np.zeros((W.shape[0], E.shape[1]), dtype=np.complex128)
    for k in range(W.shape[0]):
        for i in range(count):
            X = E[:, i * stride:i * stride + taps]
            y = np.sum(X * np.conj(W[k]))
            err[k, i] = (1.0 - abs(y) ** 2) * y
            W[k] += mu * np.conj(err[k, i]) * X
    return err, W


def window_scale(x, stride, count):
    for i in range(count):
        x[stride * i + 1:stride * i + 3] *= 0.5 + i
    return x


def from_a_product(x, stride, count):
    out = np.zeros(count)
    for i in range(count):
        out[i] = np.sum(x[i * stride:])
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("stride,count,width", [(2, 5, 3), (1, 7, 4), (3, 0, 2), (4, 4, 0), (0, 3, 5)])
def test_strided_windows_equal_numpy(target, stride, count, width):
    x = np.random.default_rng(0).random(20)
    kernel = polyfuse.kernel(strided_windows, target=target, verify=True)
    np.testing.assert_allclose(kernel(x, stride, count, width), strided_windows(x, stride, count, width),
                               rtol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("stride", [1, 2, 3])
def test_adaptive_filter_over_strided_windows(target, stride):
    rng = np.random.default_rng(1)
    E = rng.random((2, 90)) + 1j * rng.random((2, 90))
    W = np.zeros((2, 2, 5), dtype=np.complex128)
    W[0, 0, 2] = W[1, 1, 2] = 1
    want = adaptive_taps(E.copy(), W.copy(), 1e-3, stride)
    got = polyfuse.kernel(adaptive_taps, target=target, verify=True)(E.copy(), W.copy(), 1e-3, stride)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("target", TARGETS)
def test_in_place_update_of_strided_windows(target):
    x = np.random.default_rng(2).random(16)
    got = polyfuse.kernel(window_scale, target=target, verify=True)(x.copy(), 3, 5)
    np.testing.assert_allclose(got, window_scale(x.copy(), 3, 5), rtol=1e-15)


@pytest.mark.parametrize("target", TARGETS)
def test_a_start_past_the_end_is_an_empty_slice_as_in_numpy(target):
    x = np.random.default_rng(3).random(10)
    np.testing.assert_allclose(polyfuse.kernel(from_a_product, target=target)(x, 4, 5), from_a_product(x, 4, 5),
                               rtol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
def test_a_negative_product_bound_raises_where_numpy_counts_from_the_end(target):
    x = np.arange(20.0)
    with pytest.raises(UnsupportedError, match=r"test_product_slice_bounds.py:\d+:\d+: slice bound 'i \* stride' "
                       "is negative, where NumPy counts it from the end"):
        polyfuse.kernel(strided_windows, target=target)(x, -2, 5, 3)


def test_a_stop_past_the_end_raises_where_numpy_clips():
    x = np.arange(20.0)
    with pytest.raises(UnsupportedError, match=r"slice bound 'i \* stride \+ width' is past the axis's end "
                       "x.shape\\[0\\], where NumPy clips it"):
        polyfuse.kernel(strided_windows, target="python")(x, 5, 5, 3)


def test_a_stop_past_the_end_raises_on_the_cpu_too():
    """The read's run-time subscript check may fire first there: IndexError, still never a clipped result."""
    x = np.arange(20.0)
    with pytest.raises((UnsupportedError, IndexError)):
        polyfuse.kernel(strided_windows, target="cpu")(x, 5, 5, 3)


def reversed_product(x, stride, count):
    out = np.zeros(count)
    for i in range(count):
        out[i] = np.sum(x[i * stride:0:-1])
    return out


def test_a_product_bound_with_a_negative_step_is_refused():
    with pytest.raises(UnsupportedError, match="slice bound 'i \\* stride' may be negative"):
        polyfuse.kernel(reversed_product, target="python")(np.arange(10.0), 2, 3)


def repeat_by_argument(x, m):
    n = x.shape[0]
    y = np.empty(n * (1 + m))
    y[0:n] = x[0:n]
    y[n:] = np.repeat(x, m)
    return y


def repeat_rows(A, k):
    return np.repeat(A[1:], k + 1, axis=0) * 2.0 + np.repeat(A[0], k + 1)[None, :A.shape[1]]


def product_grid(n, m):
    a = np.zeros((n * m, 2))
    a[:, 0] = np.arange(n * m)
    return a


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("m", [0, 1, 3])
def test_repeat_by_an_argument_into_a_product_allocation(target, m):
    x = np.random.default_rng(4).random(7)
    np.testing.assert_array_equal(polyfuse.kernel(repeat_by_argument, target=target, verify=True)(x, m),
                                  repeat_by_argument(x, m))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("k", [0, 2])
def test_repeat_along_an_axis_by_an_argument(target, k):
    A = np.random.default_rng(5).random((4, 3))
    got = polyfuse.kernel(repeat_rows, target=target, verify=True)(A, k)
    np.testing.assert_allclose(got, repeat_rows(A, k), rtol=1e-15)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n,m", [(2, 3), (0, 4), (5, 1)])
def test_allocation_of_a_product_of_arguments(target, n, m):
    np.testing.assert_array_equal(polyfuse.kernel(product_grid, target=target)(n, m), product_grid(n, m))


def test_a_negative_repeat_count_raises_a_value_error_as_numpy():
    with pytest.raises(ValueError):
        np.repeat(np.arange(3.0), -1)
    with pytest.raises(ArgumentError):
        polyfuse.kernel(repeat_rows, target="python")(np.ones((4, 3)), -2)


def test_a_negative_factor_of_an_allocation_raises_a_value_error():
    """NumPy refuses np.zeros(-6); a product of two negative factors (which NumPy accepts) is
    refused per call too: stricter, never a different array."""
    with pytest.raises(ArgumentError):
        polyfuse.kernel(product_grid, target="python")(-2, 3)
    with pytest.raises(ArgumentError):
        polyfuse.kernel(product_grid, target="python")(-2, -3)


def repeat_in_a_loop(x, out):
    for i in range(3):
        out[i, :3 * i] = np.repeat(x[:3], i)


def test_a_repeat_count_that_changes_in_a_loop_is_refused():
    with pytest.raises(UnsupportedError, match="np.repeat"):
        polyfuse.kernel(repeat_in_a_loop, target="python")(np.ones(3), np.zeros((3, 9)))
