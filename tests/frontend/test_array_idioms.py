"""np.diff, np.roll, np.round, np.meshgrid and friends (frontend/array_idioms.py,
frontend/array_unpack.py): the refusals, each an UnsupportedError at the call, and the calls
refused (never a wrong result) when a call's sizes break what the kernel assumed."""

from __future__ import annotations

import linecache

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError, UnsupportedError


def _kernel_from(body: str):
    source = "def k(x, M, s):\n" + body
    filename = f"<idioms-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"]


ARGS = (np.arange(5.0), np.ones((3, 4)), 2)


@pytest.mark.parametrize("body, words", [
    ("    return np.roll(M, 1)\n", "without axis="),
    ("    return np.roll(x, s * s)\n", "np.roll() shift: an integer constant"),  # s + 1, x.shape[0] // 2: fe36
    ("    return np.diff(x, n=-1)\n", "n < 0"),
    ("    return np.diff(M, prepend=0.0)\n", "other than scalars or 1-d arrays of a 1-d array"),
    ("    return np.round(x + 1j)\n", "np.round() of a complex128 array"),
    ("    return np.diff(M, axis=2)\n", "axis 2 is out of bounds"),
    ("    a, b = np.meshgrid(x, x, sparse=True)\n    return a\n", "no sparse="),
    ("    a, b = np.meshgrid(x, x, x)\n    return a\n", "of 3 arrays unpacked into 2 names"),
    ("    a, b = np.meshgrid(M, x)\n    return a\n", "other than 1-d arrays"),
    ("    return np.isclose(x + 1j, x)\n", "complex values"),
    ("    return np.trace(x)\n", "only 2-d"),
    ("    return np.where(x > 1.0)\n", "data-dependent shape"),
    ("    return np.maximum.accumulate(x > 1.0)\n", "of a boolean array"),
    ("    return np.sum(x, dtype=bool)\n", "with dtype 'bool'"),
    ("    y = np.zeros((2, 2), dtype=np.int8)\n    y[0] = 300, 4\n    return y\n", "OverflowError"),
])
def test_refused_at_the_call(body, words):
    with pytest.raises(UnsupportedError) as err:
        polyfuse.kernel(_kernel_from(body), target="python")(*ARGS)
    line = 3 if "300" in body else 2
    assert f":{line}:" in str(err.value).splitlines()[0]
    assert words in str(err.value)


def test_short_axes_of_a_roll_or_diff_as_numpy_or_refused_per_call():
    for body in ("    return np.roll(x, 3)\n", "    return np.diff(x, n=2)\n"):
        kernel = polyfuse.kernel(_kernel_from(body), target="python")
        fn = kernel.py_func
        np.testing.assert_allclose(kernel(*ARGS), fn(*ARGS))
        for n in (0, 1):  # an empty diff, a roll of an empty axis or of one element (mod 1)
            short = (np.arange(float(n)), *ARGS[1:])
            np.testing.assert_array_equal(kernel(*short), fn(*short))
    roll = polyfuse.kernel(_kernel_from("    return np.roll(x, 3)\n"), target="python")
    with pytest.raises((ArgumentError, UnsupportedError)):  # 2 elements rolled by 3: refused, never wrong
        roll(np.arange(2.0), *ARGS[1:])


@pytest.mark.parametrize("body, words", [
    ("    return np.array([v for v in x if v > 1.0])\n", "with an 'if'"),
    ("    return np.array([v for v in zip(x, x)])\n", "only over an array or range"),
    ("    return np.array([a * b for a in x for b in x])\n", "several 'for's"),
])
def test_comprehensions_refused_at_the_comprehension(body, words):
    with pytest.raises(UnsupportedError) as err:
        polyfuse.kernel(_kernel_from(body), target="python")(*ARGS)
    assert ":2:" in str(err.value).splitlines()[0]
    assert words in str(err.value)


def diff_ends(x):
    return np.diff(x, prepend=0), np.diff(x, append=x[-1]), np.diff(x, prepend=x[0], append=1.5)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("x", [np.arange(6.0) ** 1.5, np.arange(4, dtype=np.float32), np.arange(5), np.ones(1)],
                         ids=lambda x: f"{x.dtype}{x.shape}")
def test_diff_with_prepend_and_append_scalars(x, target):
    """NumPy's np.concatenate first: prepend=0 of float32 gives float64, as in NumPy."""
    got, want = polyfuse.kernel(diff_ends, target=target)(x), diff_ends(x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def periodic_laplacian(u):
    return (np.roll(u, (1, 0), (0, 1)) + np.roll(u, (-1, 0), (0, 1)) + np.roll(u, (0, 1), (0, 1))
            + np.roll(u, (0, -1), (0, 1)) - 4 * u)


def roll_both(u):
    return np.roll(u, 2, axis=(0, 1)) + np.roll(u, (1, -1), axis=(0, 1))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn", [periodic_laplacian, roll_both])
def test_roll_by_tuples_is_one_roll_per_axis(fn, target):
    u = np.arange(20.0).reshape(4, 5) ** 1.5
    np.testing.assert_array_equal(polyfuse.kernel(fn, target=target)(u), fn(u))
