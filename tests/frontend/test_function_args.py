"""Function-valued parameters (frontend/function_args.py) and tuples of numbers as arguments
(frontend/tuple_args.py): third-party kernels as written, against the undecorated function."""

import math

import numpy as np
import pytest

import polyfuse

TARGETS = ("python", "cpu")


def periodic(i, shift, n):
    return (i + shift) % n


def clipped(i, shift, n):
    return min(n - 1, max(0, i + shift))


def peaks(grid, window, edge=periodic):
    """parakeet's nd_local_maxima, in its own words: the window a tuple, the edge rule a
    module-level function passed as a default."""
    keep = np.ones(grid.shape, dtype=bool)
    for here in np.ndindex(grid.shape):
        centre = grid[here]
        for step in np.ndindex(window):
            there = tuple(edge(h, s - w // 2, w) for (h, s, w) in zip(here, step, window))
            keep[here] &= grid[there] <= centre
    return keep


def cube(v):
    return v * v * v


def mapped(x, fn):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = fn(x[i]) + 1.0
    return out


def folded(x, combine=max, start=0.0):
    acc = start
    for i in range(x.shape[0]):
        acc = combine(acc, x[i])
    return acc


def tiled(row, shape):
    out = np.zeros(shape)
    for i in range(shape[0]):
        for j in range(shape[1]):
            out[i, j] = row[(i + j) % len(row)] * len(shape)
    return out


def box_blur(img, size=(3, 3)):
    out = np.zeros_like(img)
    for i in range(img.shape[0] - size[0] + 1):
        for j in range(img.shape[1] - size[1] + 1):
            out[i, j] = img[i:i + size[0], j:j + size[1]].sum() / (size[0] * size[1])
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_function_default_and_tuple_window(target):
    rng = np.random.default_rng(4)
    grid = np.round(rng.random((6, 5)) * 3)  # ties
    k = polyfuse.kernel(peaks, target=target)
    for window in ((3, 3), (1, 5), (2, 3)):
        np.testing.assert_array_equal(k(grid, window), peaks(grid, window))
    np.testing.assert_array_equal(k(grid, (3, 3), clipped), peaks(grid, (3, 3), clipped))
    np.testing.assert_array_equal(k(grid, (3, 3), edge=periodic), peaks(grid, (3, 3)))
    grid3 = rng.random((4, 3, 5))
    np.testing.assert_array_equal(k(grid3, (3, 3, 3)), peaks(grid3, (3, 3, 3)))


@pytest.mark.parametrize("target", TARGETS)
def test_function_arguments(target):
    x = np.random.default_rng(5).random(9) + 0.1
    k = polyfuse.kernel(mapped, target=target)
    for fn in (cube, np.sqrt, math.sqrt, abs, np.exp, math.log):
        np.testing.assert_allclose(k(x, fn), mapped(x, fn), rtol=1e-14)
        np.testing.assert_allclose(k(x, fn=fn), mapped(x, fn), rtol=1e-14)
    assert len(k._specialised) == 6  # one kernel per function object
    f = polyfuse.kernel(folded, target=target)
    assert f(x) == folded(x)
    assert f(x, min, 1.0) == folded(x, min, 1.0)
    assert f(x, combine=np.minimum, start=2.0) == folded(x, np.minimum, 2.0)
    assert "== fusion ==" in str(f.explain(x, min, 1.0))  # explain() takes the same calls


@pytest.mark.parametrize("target", TARGETS)
def test_tuple_arguments(target):
    row = np.arange(5.0)
    k = polyfuse.kernel(tiled, target=target)
    np.testing.assert_array_equal(k(row, (3, 4)), tiled(row, (3, 4)))
    np.testing.assert_array_equal(k(row, (2, 7)), tiled(row, (2, 7)))
    img = np.random.default_rng(6).random((6, 7))
    b = polyfuse.kernel(box_blur, target=target)
    np.testing.assert_allclose(b(img), box_blur(img), rtol=1e-12)
    np.testing.assert_allclose(b(img, (2, 4)), box_blur(img, (2, 4)), rtol=1e-12)


def rebinds(x, shape):
    shape = (shape[0] + 1, shape[1])
    return np.zeros(shape) + x[0]


def returns_function(x, fn=cube):
    y = fn
    return y(x[0])


def test_refusals():
    x = np.ones(3)
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_function_args.py:\d+.*tuple parameter 'shape' bound"):
        polyfuse.kernel(rebinds, target="python")(x, (2, 2))
    with pytest.raises(polyfuse.ArgumentError, match="tuples of numbers"):
        polyfuse.kernel(tiled, target="python")(x, ())
    with pytest.raises(polyfuse.ArgumentError, match="tuples of numbers"):
        polyfuse.kernel(tiled, target="python")(x, (2, "a"))
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_function_args.py:\d+"):
        polyfuse.kernel(returns_function, target="python")(x)
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_function_args.py:\d+.*parameter 'fn' is None"):
        polyfuse.kernel(mapped, target="python")(x, None)  # None is a constant too: Python's TypeError


def shifted(x, mode="wrap", out=None):
    """A scipy-style string option deciding the edge rule, and an optional output."""
    n = x.shape[0]
    if out is None:
        out = np.empty_like(x)
    y = out
    for i in range(n):
        if mode == "wrap":
            y[i] = x[(i + 1) % n]
        elif mode in ("nearest", "edge"):
            y[i] = x[min(i + 1, n - 1)]
        else:
            y[i] = 0.0 if i == n - 1 else x[i + 1]
    return y


def rebinds_mode(x, mode="a"):
    mode = "b"
    return x * 2 if mode == "b" else x


@pytest.mark.parametrize("target", TARGETS)
def test_string_arguments(target):
    x = np.arange(6.0)
    k = polyfuse.kernel(shifted, target=target)
    for args in ((), ("wrap",), ("edge",), ("nearest",), ("constant",)):
        np.testing.assert_array_equal(k(x, *args), shifted(x, *args))
    np.testing.assert_array_equal(k(x, mode="edge"), shifted(x, mode="edge"))
    assert len(k._specialised) == 4  # one compile per string
    given, expected = np.zeros(6), np.zeros(6)
    returned = k(x, "edge", given)
    assert np.shares_memory(returned, given)  # the array passed as out, written and returned
    shifted(x, "edge", expected)
    np.testing.assert_array_equal(given, expected)


def scaled(x, factor=None, out=None):
    """``None`` defaults of numbers and arrays, tested with ``is None`` / ``is not None``."""
    if factor is None:
        factor = 2.0
    if out is not None:
        out[:] = x * factor
        return out
    return x * factor


@pytest.mark.parametrize("target", TARGETS)
def test_none_defaults(target):
    x = np.arange(4.0)
    k = polyfuse.kernel(scaled, target=target)
    np.testing.assert_array_equal(k(x), scaled(x))
    np.testing.assert_array_equal(k(x, 3.0), scaled(x, 3.0))
    out = np.zeros(4)
    assert np.shares_memory(k(x, None, out), out)
    np.testing.assert_array_equal(out, scaled(x))


def test_string_parameter_bound_again_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_function_args.py:\d+.*string parameter 'mode'"):
        polyfuse.kernel(rebinds_mode, target="python")(np.ones(3))


def normalized(x, eps=1e-12, norm=np.linalg.norm):
    return x / (norm(x) + eps)


def reduced(x, op=np.sum):
    return op(x * 2.0)


def typed(x, dtype=np.float32):
    out = np.zeros(x.shape[0], dtype=dtype)
    for i in range(x.shape[0]):
        out[i] = x[i] * 3.0
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_numpy_functions_and_dtypes_as_parameters(target):
    x = np.random.default_rng(13).random(9)
    np.testing.assert_allclose(polyfuse.kernel(normalized, target=target)(x), normalized(x), rtol=1e-13)
    r = polyfuse.kernel(reduced, target=target)
    np.testing.assert_allclose(r(x), reduced(x), rtol=1e-13)
    assert r(x, np.max) == reduced(x, np.max)
    t = polyfuse.kernel(typed, target=target)
    for args in ((x,), (x, np.int32), (x, np.float64)):
        got, want = t(*args), typed(*args)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_calls_with_tuples_and_functions_reach_call_plans():
    """A positional call's binding is remembered, and the kernel compiled for it takes plans of
    its own (the tuple flattened into its parameters), as a plain kernel does."""
    row = np.arange(5.0)
    k = polyfuse.kernel(tiled, target="cpu")
    for _ in range(3):
        np.testing.assert_array_equal(k(row, (3, 4)), tiled(row, (3, 4)))
    (special,) = k._specialised.values()
    assert special._names == ("row", "shape_pf0", "shape_pf1") and special._plans
    f = polyfuse.kernel(mapped, target="cpu")
    x = np.arange(1.0, 4.0)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, cube), mapped(x, cube))
    assert len(f._positional) == 1
