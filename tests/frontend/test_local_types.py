"""Locals assigned values of different types (frontend/local_versions.py): Python's local has
the type of the value last assigned, so a local given ``f32[0]`` on one path and ``0.1`` on
another is split into one version per type outside loops (exact: ``o[0] = t`` stores 0.1, not
float32's 0.1, as it did before ssa35), and inside loops is refused where one type would change
a value (an integer beyond 2**53 given to a float local raises where it runs).  The common loop
shapes (``s = 0.0; s += f32[i]``, ``m = -np.inf; m = max(m, x[i])``) keep one type."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import define
from hypothesis import given, settings
from hypothesis import strategies as st
from polyfuse.frontend import lift

import polyfuse
from polyfuse.runtime.signature import argument_of


def _arguments(c: float) -> tuple:
    """x float64, f float32, k int8, o a float64 output, n a Python int, c the test."""
    return (np.array([1.25, 2.0, 3.0]), np.array([1.5, 2.25, 0.75], dtype=np.float32),
            np.array([3, 4, 5], dtype=np.int8), np.zeros(1), 3, c)


def _same(got, want) -> bool:
    if isinstance(want, np.ndarray):
        return isinstance(got, np.ndarray) and got.dtype == want.dtype and np.array_equal(got, want)
    return type(got) is type(want) and got == want


def _check(body: str, target: str = "python", tests=(1.0, -1.0, 2.0)):
    func = define(f"def kern(x, f, k, o, n, c):\n    {body}\n")
    kernel = polyfuse.kernel(func, target=target, cache=False)
    for c in tests:
        want_args, got_args = _arguments(c), _arguments(c)
        want, got = func(*want_args), kernel(*got_args)
        assert _same(got, want), f"{body} at c={c}: Python {want!r}, kernel {got!r}"
        assert _same(got_args[3], want_args[3]), f"{body} at c={c}: o {want_args[3]}, kernel {got_args[3]}"
    return kernel


BODIES = [
    "t = f[0] if c > 0 else 0.1\n    o[0] = t",  # stores 0.1, not float32's
    "if c > 0:\n        t = f[0]\n    else:\n        t = 0.1\n    o[0] = t",
    "if f[0] > c:\n        t = f[1]\n    else:\n        t = 0.1\n    o[0] = t * 3.0\n    return t + 1",
    "t = 0.1\n    if c > 0:\n        t = f[0]\n    t += 1\n    o[0] = t\n    return t",
    "t = x[0] if c > 0 else f[0]\n    return t * 0.1",  # float32 * 0.1 in float32, not float64
    "s = 0.5\n    if c > 0:\n        s = n + 2**60\n    return s - 2**60",  # the exact int, not rounded
    "t = f[0] if c > 0 else 0.1\n    for i in range(n):\n        o[0] += t * x[i]",  # read in a loop
    # t += 1 reads the versions it writes: each keeps its old value on the paths it is not written
    "t = 0.1\n    if c < 0:\n        t = c > 0\n    t += 1\n    return min(t, 2)",
]


@pytest.mark.parametrize("body", BODIES)
def test_local_of_two_types_is_pythons(body):
    _check(body)


@pytest.mark.parametrize("body", BODIES[1:3])
def test_local_of_two_types_cpu(body):
    _check(body, target="cpu")


VALUES = ["f[0]", "0.1", "x[1]", "n", "k[0]", "n + 2**60", "c > 0"]
USES = ["o[0] = {}", "return {}", "return {} * x[2]", "return {} + 1", "o[0] = {} * f[1]", "return {} < 1.5"]


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.sampled_from(VALUES), st.sampled_from(VALUES), st.sampled_from(USES), st.booleans())
def test_local_type_pairs(a, b, use, statement):
    """Two values of any types on two paths (an if statement or a choice), then one use."""
    given_ = f"if c > 0:\n        t = {a}\n    else:\n        t = {b}" if statement else f"t = {a} if c > 0 else {b}"
    _check(given_ + "\n    " + use.format("t") + ("\n    return o" if use.startswith("o[") else ""))


def test_loop_local_of_two_types_is_refused():
    """A value carried from one iteration to the next in a type that may change: refused, at the
    assignment, naming the local and both types; the common one-type loops still compile."""
    func = define("def kern(f, x, o):\n    t = 0.0\n    for i in range(f.shape[0]):\n"
                  "        t = f[i] if x[i] > 0 else 0.1\n        o[i] = t\n")
    with pytest.raises(polyfuse.UnsupportedError, match=r":4:.*local 't'.*Python float.*np.float32"):
        polyfuse.kernel(func, target="python", cache=False)(np.ones(2, np.float32), np.ones(2), np.zeros(2))
    shapes = "s = 0.0\n    m = -np.inf\n    j = 0\n    for i in range(n):\n        s += f[i]\n" \
             "        m = max(m, x[i])\n        j += 1\n    return s, m, j"
    kernel = _check(shapes, tests=(1.0,))
    names = ("x", "f", "k", "o", "n", "c")
    scop = lift(kernel.py_func, tuple(argument_of(n, v) for n, v in zip(names, _arguments(1.0))))
    assert {a.name: a.dtype for a in scop.arrays if a.name in "smj"} == {"s": "float32", "m": "float64", "j": "int64"}
    assert not any(a.name.startswith(("__version", "__kind_")) for a in scop.arrays)


def test_loop_int_beyond_float_raises_where_it_runs():
    """``s = 0.5`` then ``s = i + m`` in a loop: a float64 local; an int beyond 2**53 raises
    where it is assigned (Python keeps the exact int), smaller ones are exact."""
    func = define("def kern(n, m):\n    s = 0.5\n    for i in range(n):\n        s = i + m\n    return s\n")
    kernel = polyfuse.kernel(func, target="python", cache=False)
    assert kernel(3, 7) == func(3, 7) and kernel(0, 7) == func(0, 7)
    with pytest.raises(polyfuse.UnsupportedError, match=r":4:.*local 's'.*beyond 2\*\*53"):
        kernel(3, 2**60 + 1)
