"""Sizes the call computes from its arguments (frontend/call_sizes.py): integer expressions isl
cannot state (``int(xn)``, ``(n - w) // f + 1``, ``math.ceil(L / dx)``) as new size parameters,
compared with the undecorated function; negative values raise as NumPy does."""

from __future__ import annotations

import math

import numpy as np
import pytest

import polyfuse
from frontend.call_sizes import call_time_data_source, call_time_source
from polyfuse import ArgumentError, UnsupportedError
from polyfuse.model.scop import Argument

TARGETS = ("python", "cpu")


def ramp(a, b, xn):
    return np.linspace(a, b, int(xn)) * 2.0


def window_means(x, f, w):
    count = (x.shape[0] - w) // f + 1
    out = np.empty(count)
    for i in range(count):
        out[i] = np.mean(x[i * f:i * f + w])
    return out


def decay(u, T, dt):
    nt = int(T / dt)
    hist = np.zeros((nt, u.shape[0]))
    for t in range(nt):
        u = 0.5 * u
        hist[t] = u
    return hist


def cells(L, dx):
    n = math.ceil(L / dx)
    return np.arange(n) * dx


def escape(lo, hi, xn, steps):
    c = np.linspace(lo, hi, int(xn)) + 1j * np.linspace(lo, hi, int(xn))[:, None]
    z = np.zeros(c.shape, dtype=np.complex128)
    n = np.zeros(c.shape, dtype=np.int64)
    for k in range(steps):
        alive = np.abs(z) < 2.0
        n[alive] = k
        z[alive] = z[alive] ** 2 + c[alive]
    return z, n


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("xn", [5.0, 5.9, 0.5, 1.0])
def test_linspace_of_int_of_a_float_argument(target, xn):
    np.testing.assert_array_equal(polyfuse.kernel(ramp, target=target, verify=True)(0.0, 1.0, xn),
                                  ramp(0.0, 1.0, xn))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("f,w", [(3, 4), (1, 1), (5, 20)])
def test_a_count_computed_once_sizes_an_array_and_a_loop(target, f, w):
    x = np.random.default_rng(0).random(20)
    np.testing.assert_allclose(polyfuse.kernel(window_means, target=target, verify=True)(x, f, w),
                               window_means(x, f, w), rtol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
def test_steps_from_a_float_time_and_step(target):
    u = np.random.default_rng(1).random(3)
    np.testing.assert_allclose(polyfuse.kernel(decay, target=target, verify=True)(u, 1.0, 0.3),
                               decay(u, 1.0, 0.3), rtol=1e-15)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("L,dx", [(1.0, 0.3), (2.0, 0.5), (0.0, 0.1)])
def test_arange_of_a_ceiling(target, L, dx):
    np.testing.assert_array_equal(polyfuse.kernel(cells, target=target)(L, dx), cells(L, dx))


@pytest.mark.parametrize("target", TARGETS)
def test_escape_times_on_a_grid_of_int_of_a_float(target):
    got = polyfuse.kernel(escape, target=target)(-1.5, 1.0, 7.0, 9)
    want = escape(-1.5, 1.0, 7.0, 9)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("target", TARGETS)
def test_a_negative_computed_size_raises_a_value_error_as_numpy(target):
    with pytest.raises(ValueError):
        ramp(0.0, 1.0, -3.0)
    with pytest.raises(ArgumentError, match=r"the size int\(xn\) is -3 at this call"):
        polyfuse.kernel(ramp, target=target)(0.0, 1.0, -3.0)
    with pytest.raises(ArgumentError, match=r"the size \(x.shape\[0\] - w\) // f \+ 1 is -1"):
        polyfuse.kernel(window_means, target=target)(np.ones(3), 1, 5)


def test_a_division_by_zero_in_a_computed_size_raises_as_python():
    with pytest.raises(ZeroDivisionError):
        polyfuse.kernel(window_means, target="python")(np.ones(5), 0, 2)


def frames_or_none(x, w, hop):
    n = x.shape[0]
    if n < w:
        return np.zeros(0)
    nf = 1 + (n - w) // hop
    out = np.empty(nf)
    for f in range(nf):
        s = 0.0
        for k in range(w):
            s += x[f * hop + k] ** 2
        out[f] = s / w
    return out


def frames_or_none_inline(x, w, hop):
    if x.shape[0] < w:
        return np.zeros(0)
    out = np.empty(1 + (x.shape[0] - w) // hop)
    for f in range(out.shape[0]):
        out[f] = x[f * hop]
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("func", [frames_or_none, frames_or_none_inline])
def test_a_computed_size_after_an_early_return_of_an_empty_array(target, func):
    """``if n < w: return np.zeros(0)``, then ``out = np.empty(1 + (n - w) // hop)`` (rms_windows,
    zero_crossing_rate_frames): one array of extent ``0 if n < w else 1 + (n - w) // hop``, the
    count computed by the call only where Python computes it, so that ``n < w`` with ``hop = 0``
    (or a negative count) returns the empty array as Python does (refused before fe53: "their
    extents '0' and 'nf' differ, one known only as the kernel runs")."""
    kernel = polyfuse.kernel(func, target=target, verify=True)
    x = np.random.default_rng(2).random(20)
    for n, w, hop in [(20, 4, 3), (20, 20, 1), (13, 4, 2), (3, 5, 0), (1, 5, 3), (0, 1, 2)]:
        got, want = kernel(x[:n], w, hop), func(x[:n], w, hop)
        assert got.dtype == want.dtype and got.shape == want.shape, (n, w, hop, got, want)
        np.testing.assert_allclose(got, want, rtol=1e-14)
    with pytest.raises(ZeroDivisionError):
        kernel(x, 4, 0)


def resized(xn, x):
    xn = xn * 2.0
    return np.linspace(0.0, 1.0, int(xn)) + x[0]


def test_an_argument_the_kernel_assigns_is_no_size_of_the_call():
    with pytest.raises(UnsupportedError, match="np.linspace"):
        polyfuse.kernel(resized, target="python")(3.0, np.ones(2))


def test_the_forms_of_call_time_sizes():
    args = (Argument("n", "int", "int64"), Argument("t", "float", "float64"), Argument("x", "array", "float64", 2),
            Argument("h", "float", "float64", numpy_scalar="float32"))

    def source(text: str) -> str | None:
        import ast
        return call_time_source(ast.parse(text, mode="eval").body, args, {"np": np, "math": math}, set())
    assert source("int(t)") == "int(t)"
    assert source("(x.shape[1] - n) // 2 + 1") == "(x.shape[1] - n) // 2 + 1"
    assert source("math.ceil(t / n)") == "pf_math.ceil(t / n)"
    assert source("int(np.floor(t * 3))") == "int(pf_np.floor(t * 3))"
    assert source("t * 2") is None  # a float
    assert source("int(h)") is None  # a float32 scalar computes otherwise in Python
    assert source("int(x[0, 0])") is None  # array data
    assert source("int(x.shape[2])") is None  # no such axis
    assert source("int(q)") is None  # not an argument


def test_the_forms_of_sizes_that_read_the_data():
    args = (Argument("n", "int", "int64"), Argument("x", "array", "float64", 1), Argument("k", "array", "int32", 1),
            Argument("w", "array", "int64", 1))

    def source(text: str, bindings: str = "") -> str | None:
        import ast
        bound = {a.targets[0].id: a.value for a in ast.parse(bindings).body}  # type: ignore[attr-defined]
        return call_time_data_source(ast.parse(text, mode="eval").body, args, {"np": np, "math": math},
                                     {"n", "x", "k"}, bound)
    assert source("int(x.max()) + 1") == "pf_data_size(int(pf_np.max(x)) + 1)"
    assert source("m", "m = np.max(k) + n") == "pf_data_size(pf_np.max(k) + n)"  # an int32 array's max: an int
    assert source("int((x * 2).sum())") == "pf_data_size(int(pf_np.sum(x * 2)))"
    assert source("x.max() + 1") is None  # a float: NumPy raises TypeError for the extent
    assert source("w.max() + 1") is None  # w is changed by the kernel (not in the unchanged names)
    assert source("x.shape[0] + 1") is None  # no reduction: call_time_source's
    import ast
    guard = [(ast.parse("x.shape[0] == 0", mode="eval").body, False), (ast.parse("n > 1", mode="eval").body, True)]
    assert call_time_data_source(ast.parse("int(x.sum())", mode="eval").body, args, {"np": np}, {"n", "x"}, {},
                                 guard) == "pf_data_size(int(pf_np.sum(x)) if not x.shape[0] == 0 and n > 1 else 0)"
    guard = [(ast.parse("x[0] > 0", mode="eval").body, True)]  # a test of the data: not computed by the call
    assert call_time_data_source(ast.parse("int(x.sum())", mode="eval").body, args, {"np": np}, {"x"}, {},
                                 guard) is None


def sized_under_a_data_test(idx):
    s = 0.0
    if idx[0] > 0:
        out = np.zeros(idx.max() + 1)
        s = out.sum()
    return s


def test_a_size_read_from_the_data_under_a_data_test_is_refused_at_its_extent():
    with pytest.raises(UnsupportedError, match="an allocation of extent 'idx.max\\(\\) \\+ 1', which reads the data"):
        polyfuse.kernel(sized_under_a_data_test, target="python")(np.array([1, 2]))


def product_slice(x, n, m):
    return x[n * m:n * m + 2] * 2.0


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n,m", [(2, 3), (3, 3), (4, 4), (0, 5)])
def test_a_slice_bound_of_arguments_is_clamped_as_numpy_clamps(target, n, m):
    x = np.arange(10.0)
    got = polyfuse.kernel(product_slice, target=target, verify=True)(x, n, m)
    np.testing.assert_array_equal(got, product_slice(x, n, m))


def test_a_negative_slice_bound_of_arguments_raises():
    with pytest.raises(ArgumentError, match="the size n \\* m is -3 at this call"):
        polyfuse.kernel(product_slice, target="python")(np.arange(10.0), -1, 3)


@pytest.mark.parametrize("target", TARGETS)
def test_repeated_calls_compute_the_size_again(target):
    """A call plan's key holds a float's type only: a variant whose size reads a float takes
    the full path every call (runtime.variant ``sizes_read_floats``), never another call's size."""
    kernel = polyfuse.kernel(ramp, target=target)
    for xn in (5.0, 7.0, 3.0, 7.0, 2.0):
        np.testing.assert_array_equal(kernel(0.0, 1.0, xn), ramp(0.0, 1.0, xn))
    stepped = polyfuse.kernel(decay, target=target)
    u = np.random.default_rng(2).random(3)
    for T in (1.0, 2.0, 0.5, 2.0):
        np.testing.assert_allclose(stepped(u, T, 0.25), decay(u, T, 0.25), rtol=1e-15)
    counted = polyfuse.kernel(label_counts, target=target)  # a size read from the elements: every call
    for labels in ([0, 3, 1], [2, 0, 0], [5, 5, 1], [0, 0, 0], [4, 1, 2]):
        np.testing.assert_array_equal(counted(np.array(labels)), label_counts(np.array(labels)))


def label_counts(labels):
    n = int(labels.max()) + 1
    out = np.zeros(n, dtype=np.int64)
    for i in range(labels.shape[0]):
        out[labels[i]] += 1
    return out


def line_steps(x0, x1, y0, y1):
    dx = abs(x1 - x0)
    dy = -abs(y1 - y0)
    err = dx + dy
    if err >= dy:
        err += 2 * dy
    return err, dy


@pytest.mark.parametrize("target", TARGETS)
def test_a_local_read_only_as_a_number_is_no_size_and_may_be_negative(target):
    """``dy = -abs(y1 - y0)`` (Bresenham's line) is read in no range, slice, subscript or shape:
    a number of any sign, not a size the call computes (which must be non-negative)."""
    kernel = polyfuse.kernel(line_steps, target=target)  # one variant serves both calls
    for args in [(0, 6, 1, 4), (3, 3, 2, 2)]:
        expected = line_steps(*args)
        got = kernel(*args)
        assert got == expected and [type(g) for g in got] == [type(e) for e in expected]
