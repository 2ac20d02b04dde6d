"""Locals assigned values of different types (frontend/local_versions.py): Python's local has
the type of the value last assigned, so a local given ``f32[0]`` on one path and ``0.1`` on
another is split into one version per type outside loops (exact: ``o[0] = t`` stores 0.1, not
float32's 0.1, as it did before ssa35), and inside loops is refused where one type would change
a value (an integer beyond 2**53 given to a float local raises where it runs).  Inside loops a
local given Python numbers compiles where each read meets its value as its one type would (ssa36).  The common loop
shapes (``s = 0.0; s += f32[i]``, ``m = -np.inf; m = max(m, x[i])``) keep one type."""

from __future__ import annotations

import itertools

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
    where it is assigned (Python keeps the exact int: ``s - m`` is ``i``), smaller ones are
    exact; returned by name (Python's int or float) it is refused."""
    func = define("def kern(o, n, m):\n    s = 0.5\n    for i in range(n):\n        s = i + m\n    o[0] = s - m\n")
    kernel = polyfuse.kernel(func, target="python", cache=False)
    for n in (0, 3):
        want, got = np.zeros(1), np.zeros(1)
        func(want, n, 7), kernel(got, n, 7)
        assert _same(got, want)
    with pytest.raises(polyfuse.UnsupportedError, match=r":4:.*local 's'.*beyond 2\*\*53"):
        kernel(np.zeros(1), 3, 2**60 + 1)
    returned = define("def kern(n, m):\n    s = 0.5\n    for i in range(n):\n        s = i + m\n    return s\n")
    with pytest.raises(polyfuse.UnsupportedError, match=r":4:.*local 's' is given an integer.*returned"):
        polyfuse.kernel(returned, target="python", cache=False)(3, 7)


# Inside loops (ssa36): a local of one type given Python numbers too compiles where every read
# meets its value as that type would (a float32 value in arithmetic, a comparison, min or max, a
# store into a float32 array: NumPy converts the Python number to float32 there, NEP 50), and an
# integer given to a float64 local is checked exact where it runs; anything else is refused.
INITS = ["1e30", "0.1", "2**25 + 1", "f[0]", "n"]
UPDATES = ["min(m, f[j] - f[0])", "max(f[j], m)", "m + f[j]", "f[j] if f[j] > m else m", "max(m, j)",
           "m * 0.5 + f[j]", "-m if f[j] > 0 else f[j]"]
ARRAYS = (np.array([1.5, -2.25, 3.0, 0.5], np.float32), np.array([2e30, 3e30, 1e30, 5e30], np.float32))
AFTER = ["o32[0] = m", "o64[0] = m", "return m", "o32[1] = m * f[1]", "o32[2] = abs(m) if m > f[2] else f[2]"]


def _loop_local(init: str, update: str, after: str):
    body = f"def kern(f, o32, o64, n):\n    m = {init}\n    for j in range(1, n):\n" \
           f"        m = {update}\n    {after}\n"
    return define(body)


def _loop_run(func, kernel, f, n):
    """Python's and the kernel's results and outputs, or the error each raises."""
    results = []
    for call in (func, kernel):
        args = (f.copy(), np.zeros(3, np.float32), np.zeros(1), n)
        try:
            results.append((call(*args), args[1], args[2]))
        except polyfuse.UnsupportedError:
            if call is func:
                raise
            return None  # refused where it runs (an integer beyond 2**53)
    (want, w32, w64), (got, g32, g64) = results
    assert _same(got, want) and _same(g32, w32) and _same(g64, w64), (want, got, w32, g32, w64, g64)
    return True


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.sampled_from(INITS), st.sampled_from(UPDATES), st.sampled_from(AFTER))
def test_loop_local_of_python_and_numpy_values(init, update, after):
    """Compiled, it gives Python's values and types (loops of 0, 1 and 3 iterations, values
    beyond float32's); otherwise it is refused naming the local."""
    func = _loop_local(init, update, after)
    kernel = polyfuse.kernel(func, target="python", cache=False)
    try:
        for f, n in itertools.product(ARRAYS, (1, 4)):
            _loop_run(func, kernel, f, n)
    except polyfuse.UnsupportedError as e:
        assert "local 'm'" in str(e)


@pytest.mark.parametrize("init, update, after", [
    ("1e30", "min(m, f[j] - f[0])", "o32[0] = m"),  # tests/passes/test_lanes: Python's 1e30 only stored
    ("0.1", "m + f[j]", "o32[1] = m * f[1]"),
    ("1e30", "f[j] if f[j] > m else m", "o32[2] = abs(m) if m > f[2] else f[2]"),
])
def test_loop_local_met_as_float32_compiles(init, update, after):
    func = _loop_local(init, update, after)
    kernel = polyfuse.kernel(func, target="python", cache=False)
    for f, n in itertools.product(ARRAYS, (1, 4)):
        assert _loop_run(func, kernel, f, n)


@pytest.mark.parametrize("after", ["o64[0] = m", "return m", "o32[0] = m * 0.5"])
def test_loop_local_seen_as_python_float_is_refused(after):
    """``m = 1e30``, min with float32 values in a loop: where Python's 1e30 (kept by a loop of no
    iteration, or a min that never takes the float32) is stored as a float64, returned or met
    with a Python float, float32's 1e30 would differ: refused at the assignment."""
    func = _loop_local("1e30", "min(m, f[j])", after)
    with pytest.raises(polyfuse.UnsupportedError, match=r":2:.*local 'm' is given a Python float.*np.float32"):
        polyfuse.kernel(func, target="python", cache=False)(np.ones(2, np.float32), np.zeros(3, np.float32),
                                                            np.zeros(1), 3)


def test_loop_int_max_of_float_local_checked():
    """``acc = max(acc, i + m)`` of a float ``acc`` (hypothesis programs, the CUDA simulator's
    too): the integer is checked exact where it is computed, chosen or not (Python compares
    2**53 + 1 with 2**53.0 exactly); returned, its type (int or float) is refused."""
    func = define("def kern(o, n, m):\n    acc = 0.5\n    for i in range(n):\n        acc = max(acc, i + m)\n"
                  "    o[0] = acc * 2.0\n")
    kernel = polyfuse.kernel(func, target="cpu", cache=False)
    for n, m in ((0, 3), (4, -2), (3, 2**52)):
        want, got = np.zeros(1), np.zeros(1)
        func(want, n, m), kernel(got, n, m)
        assert _same(got, want)
    with pytest.raises(polyfuse.UnsupportedError, match=r":4:.*local 'acc'.*beyond 2\*\*53"):
        kernel(np.zeros(1), 2, 2**53)
    returned = define("def kern(n):\n    acc = 0.5\n    for i in range(n):\n        acc = max(acc, i)\n"
                      "    return acc\n")
    with pytest.raises(polyfuse.UnsupportedError, match=r":4:.*local 'acc' is given an integer.*returned"):
        polyfuse.kernel(returned, target="python", cache=False)(3)
