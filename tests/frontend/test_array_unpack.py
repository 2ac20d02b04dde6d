"""Unpacking array values into names (frontend/array_unpack.py) and the refusals around it:
the wrong number of names, a scalar, rows unpacked into a name they read, and sizes computed
from floats (np.linspace(a, b, int(x))), each an UnsupportedError at the construct, or a call
refused when the sizes break what the kernel assumed."""

from __future__ import annotations

import linecache

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError, UnsupportedError


def _kernel_from(source: str, name: str = "k"):
    filename = f"<unpack-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_unpacked_scalars_match_python(target):
    fn = _kernel_from("def k(P):\n"
                      "    out = np.zeros(P.shape[0])\n"
                      "    for i in range(1, P.shape[0]):\n"
                      "        a, b, c = P[i] * 2.0 - P[i - 1]\n"
                      "        out[i] = a * b + c\n"
                      "    return out\n")
    P = np.random.default_rng(0).random((8, 3))
    np.testing.assert_allclose(polyfuse.kernel(fn, target=target)(P), fn(P), rtol=1e-12)


def test_a_call_with_another_row_length_is_refused():
    fn = _kernel_from("def k(P):\n"
                      "    out = np.zeros(P.shape[0])\n"
                      "    for i in range(P.shape[0]):\n"
                      "        a, b = P[i]\n"
                      "        out[i] = a - b\n"
                      "    return out\n")
    kernel = polyfuse.kernel(fn, target="python")
    P = np.random.default_rng(1).random((4, 2))
    np.testing.assert_allclose(kernel(P), fn(P))
    with pytest.raises(ArgumentError):
        kernel(np.ones((4, 3)))


@pytest.mark.parametrize("body, line, words", [
    ("    a, b = np.array([1.0, 2.0, 3.0])\n    return a + b\n", 2, "of 3 rows, into 2 names"),
    ("    a, b = x[0]\n    return a + b\n", 2, "a scalar, into 2 names"),
    ("    a, b = M\n    c, a = M + a\n    return c\n", 3, "into a name it reads"),
    # int(f) of a float argument is a size the call computes (tests/frontend/test_call_sizes.py); of data, refused
    ("    X = np.linspace(0.0, 1.0, int(x[0]))\n    return X\n", 2, "np.linspace() of int(x[0]) points"),
    ("    return np.tile(x, (1, x.shape[0]))\n", 2, "a size (np.tile(x, (n, 1))) only along"),
])
def test_refusals_point_at_the_construct(body, line, words):
    fn = _kernel_from("def k(x, M, f):\n" + body)
    with pytest.raises(UnsupportedError) as err:
        polyfuse.kernel(fn, target="python")(np.ones(5), np.ones((2, 4)), 3.0)
    assert f":{line}:" in str(err.value).splitlines()[0]
    assert words in str(err.value)


def test_chained_display_store_and_float_sizes_twice():
    fn = _kernel_from("def k(F, a, b, n):\n"
                      "    F[0] = F[-1] = 1, 2\n"
                      "    X = np.linspace(a, b, n)\n"
                      "    return F, X + X[:, None]\n")
    F = np.zeros((4, 2))
    got, want = polyfuse.kernel(fn, target="python")(F.copy(), 0.0, 1.0, 5), fn(F.copy(), 0.0, 1.0, 5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-15)
