"""Locals assigned values of different types (frontend/local_versions.py): Python's local has
the type of the value last assigned, so a local given ``f32[0]`` on one path and ``0.1`` on
another is split into one version per type outside loops (exact: ``o[0] = t`` stores 0.1, not
float32's 0.1, as it did before ssa35), and inside loops is refused where one type would change
a value.  Inside loops a
local given Python numbers compiles where each read meets its value as its one type would (ssa36).  The common loop
shapes (``s = 0.0; s += f32[i]``, ``m = -np.inf; m = max(m, x[i])``) keep one type."""

from __future__ import annotations

import inspect
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
    # a choice testing the local it assigns: each version's part reads the old t (cp47: the
    # float version written first made the kind's test see its 0.0: k[0] came back for x[1] - 2.0)
    "t = 1\n    if c > 0:\n        t = x[0] - 1.25 * c\n    t = (x[1] - 2.0) if t else k[0]\n    o[0] = t\n    return t",
    # the same under an if whose condition reads data: the temporaries of the parts are written
    # where it holds only, and were refused as read before assigned where it fails (fe53)
    "t = 1\n    if c > 0:\n        t = x[0] - 1.25 * c\n    if f[2] < c:\n        t = (x[1] - 2.0) if t else k[0]\n"
    "    return t",
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


def _versions(func, args) -> set[str]:
    scop = lift(func, tuple(argument_of(n, v) for n, v in zip(inspect.signature(func).parameters, args)))
    return {a.name for a in scop.arrays if a.name.startswith(("__version", "__kind_"))}


def test_loop_local_of_two_types():
    """A value carried from one iteration to the next in a type that may change, read where the
    type is seen (a float64 store): one version per type, carried by the loop (exact); in a loop
    kept as written (with a break) refused, at the assignment, naming the local and both types;
    the common one-type loops keep one type."""
    func = define("def kern(f, x, o):\n    t = 0.0\n    for i in range(f.shape[0]):\n"
                  "        t = f[i] if x[i] > 0 else 0.1\n        o[i] = t\n")
    f, x = np.array([1.5, 0.1, 2.25], np.float32), np.array([1.0, -1.0, 0.0])
    for target in ("python", "cpu"):
        want, got = np.zeros(3), np.zeros(3)
        func(f, x, want), polyfuse.kernel(func, target=target, cache=False)(f, x, got)
        assert _same(got, want)
    assert _versions(func, (f, x, want)) == {"__version0_t", "__version1_t", "__kind_t"}
    kept = define("def kern(f, x, o):\n    t = 0.0\n    for i in range(f.shape[0]):\n        if x[i] > 5:\n"
                  "            break\n        t = f[i] if x[i] > 0 else 0.1\n        o[i] = t\n")
    with pytest.raises(polyfuse.UnsupportedError, match=r":6:.*local 't'.*Python float.*np.float32.*kept as written"):
        polyfuse.kernel(kept, target="python", cache=False)(f, x, np.zeros(3))
    shapes = "s = 0.0\n    m = -np.inf\n    j = 0\n    for i in range(n):\n        s += f[i]\n" \
             "        m = max(m, x[i])\n        j += 1\n    return s, m, j"
    kernel = _check(shapes, tests=(1.0,))
    names = ("x", "f", "k", "o", "n", "c")
    scop = lift(kernel.py_func, tuple(argument_of(n, v) for n, v in zip(names, _arguments(1.0))))
    assert {a.name: a.dtype for a in scop.arrays if a.name in "smj"} == {"s": "float32", "m": "float64", "j": "int64"}
    assert not any(a.name.startswith(("__version", "__kind_")) for a in scop.arrays)


def test_kept_loop_choice_of_a_constant_holds():
    """``cur = max(0, cur + x[i])`` (Kadane's running sum) and ``s = s + x[i] if x[i] > 0 else 0``
    in a loop kept as written (a break): the constant branch is exact in the float64 local, as
    ``cur = 0`` before the loop is, so the local keeps one type there too (refused before fe43:
    "given a Python int here and a np.float64 elsewhere"); returned by name it still has
    Python's type on each path (0 where no float64 was chosen)."""
    func = define("def kern(x, o):\n    cur = 0\n    best = 0\n    s = 0\n    for i in range(x.shape[0]):\n"
                  "        if x[i] > 100:\n            break\n        cur = max(0, cur + x[i])\n"
                  "        best = max(best, cur)\n        s = s + x[i] if x[i] > 0 else 0\n"
                  "        o[i] = s * 0.5 + cur\n    return best, cur\n")
    for target in ("python", "cpu"):
        kernel = polyfuse.kernel(func, target=target, cache=False)
        for x in ([1.0, -3.0, 2.0, 2.0], [-1.0], [], [1.5, 200.0, 3.0]):
            want, got = np.zeros(len(x)), np.zeros(len(x))
            expected, actual = func(np.array(x), want), kernel(np.array(x), got)
            assert _same(got, want) and all(_same(a, e) for a, e in zip(actual, expected)), (x, actual, expected)


def test_loop_int_beyond_float_is_exact():
    """``s = 0.5`` then ``s = i + m`` in a loop, ``o[0] = s - m`` or ``return s``: Python keeps
    the exact int (``s - m`` is ``i`` beyond 2**53 too): versions, no check; returned, an int
    beyond 2**53 raises as other returned choices of ints and floats do."""
    func = define("def kern(o, n, m):\n    s = 0.5\n    for i in range(n):\n        s = i + m\n    o[0] = s - m\n")
    kernel = polyfuse.kernel(func, target="python", cache=False)
    for n, m in ((0, 7), (3, 7), (3, 2**60 + 1)):
        want, got = np.zeros(1), np.zeros(1)
        func(want, n, m), kernel(got, n, m)
        assert _same(got, want)
    returned = define("def kern(n, m):\n    s = 0.5\n    for i in range(n):\n        s = i + m\n    return s\n")
    kernel = polyfuse.kernel(returned, target="python", cache=False)
    assert _same(kernel(3, 7), 9) and _same(kernel(0, 7), 0.5)
    with pytest.raises(polyfuse.UnsupportedError, match=r"beyond 2\*\*53"):  # returned through a float (above)
        kernel(2, 2**60 + 1)


# Inside loops (ssa36): a local of one type given Python numbers too keeps that type where every
# read meets its value as that type would (a float32 value in arithmetic, a comparison, min or
# max, a store into a float32 array: NumPy converts the Python number to float32 there, NEP 50),
# and an integer given to a float64 local is checked exact where it runs; the others are split
# into one version per type, carried by the loop.
INITS = ["1e30", "0.1", "2**25 + 1", "f[0]", "n"]
UPDATES = ["min(m, f[j] - f[0])", "max(f[j], m)", "m + f[j]", "f[j] if f[j] > m else m", "max(m, j)",
           "m * 0.5 + f[j]", "-m if f[j] > 0 else f[j]"]
ARRAYS = (np.array([1.5, -2.25, 3.0, 0.5], np.float32), np.array([2e30, 3e30, 1e30, 5e30], np.float32))
AFTER = ["o32[0] = m", "o64[0] = m", "return m", "o32[1] = m * f[1]", "o32[2] = abs(m) if m > f[2] else f[2]"]


def _loop_local(init: str, update: str, after: str):
    body = f"def kern(f, o32, o64, n):\n    m = {init}\n    for j in range(1, n):\n" \
           f"        m = {update}\n    {after}\n"
    return define(body)


def _loop_check(func, target: str = "python") -> None:
    """Python's and the kernel's results, outputs and their types, for loops of no iteration
    and of three, over values below and beyond float32's 1e30."""
    kernel = polyfuse.kernel(func, target=target, cache=False)
    for f, n in itertools.product(ARRAYS, (1, 4)):
        want_args, got_args = (f, np.zeros(3, np.float32), np.zeros(1), n), (f, np.zeros(3, np.float32), np.zeros(1), n)
        want, got = func(*want_args), kernel(*got_args)
        assert _same(got, want) and all(_same(g, w) for g, w in zip(got_args[1:3], want_args[1:3])), \
            (n, f, want, got, want_args, got_args)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.sampled_from(INITS), st.sampled_from(UPDATES), st.sampled_from(AFTER))
def test_loop_local_of_python_and_numpy_values(init, update, after):
    """Python's values and types, whatever the local is given and wherever it is read."""
    _loop_check(_loop_local(init, update, after))


@pytest.mark.parametrize("init, update, after, versions", [
    ("1e30", "min(m, f[j] - f[0])", "o32[0] = m", False),  # tests/passes/test_lanes: 1e30 only stored
    ("0.1", "m + f[j]", "o32[1] = m * f[1]", False),
    ("1e30", "min(m, f[j])", "o64[0] = m", True),  # Python's 1e30 (no iteration; no float32 smaller)
    ("1e30", "min(m, f[j])", "return m", True),
    ("1e30", "min(m, f[j])", "o32[0] = m * 0.5", True),  # float64's 1e30 * 0.5, then float32's
    ("0.5", "min(m, f[j])", "return m * 0.1", True),  # 0.5 is exact in float32, 0.5 * 0.1 is not (fe47)
    ("1", "min(m, f[j])", "return m * 0.1", True),  # a Python int the same
    # a float64 m given float32 values: Python's -2.0 + m is float32 there (-2.0 is no float64
    # value to convert m to; the one type gave float64's sum: cf50's choice fuzz)
    ("o64[0] + 0.1", "f[j] if f[j] > 0 else m", "o64[0] = -2.0 + m", True),
])
def test_loop_local_one_type_where_its_reads_allow(init, update, after, versions):
    """One type (a float32 register: a min reduction) where each read meets the value as a float32
    would; versions where a read would see Python's number; both exact."""
    func = _loop_local(init, update, after)
    _loop_check(func, target="cpu" if after == "o32[0] = m" else "python")
    found = _versions(func, (ARRAYS[0], np.zeros(3, np.float32), np.zeros(1), 4))
    assert found == ({"__version0_m", "__version1_m", "__kind_m"} if versions else set())


SCRATCH = [  # t: Python's 3 (3.0) or a NumPy value, as each element decides (fe47)
    "t = 3\n        if x[i] > 5:\n            t = x[i] + 1\n        s += t * 0.1\n    return s",
    "if x[i] > 0.5:\n            t = x[i] + 1\n        else:\n            t = 3.0\n"
    "        u = t * 2.0\n        s += u * 0.1\n        m = max(m, t)\n    return s, m",
    # choice expressions: each branch's kind (fe49); m not returned by name, read by the return
    "t = x[i] + 1 if x[i] > 5 else 3.0\n        u = max(3.0, x[i])\n        s += t * 0.1 + u * 0.01\n"
    "        if x[i] < m + 0.5:\n            m = x[i]\n    return s, m * 0.1",
    # a choice inside the value added: the kind of the branch taken; Python's s sums the 0.1 in
    # float64 while every branch taken is a Python float (a float32 s rounded it: ty50)
    "s += max(x[i] - 0.5, 0.0) if x[i] < 5 else 0.1\n    return s, s * 2.0",
    # a Python int in a float choice: t is a local of two types (a version each); s += t * 0.1
    # has the kind of t's version (np.float64 where every t was 3: ty50)
    "t = x[i] + 1 if x[i] > 5 else 3\n        s += t * 0.1\n    return s",
]


@pytest.mark.parametrize("body", SCRATCH)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_loop_scratch_of_a_python_float_and_numpy_values(body, dtype):
    """``s += t * 0.1`` computes in float64 where ``t`` is Python's 3 or 3.0 (float32's ``t`` gave
    1.2000000476837158 for Python's 1.2000000000000002), and ``s`` comes back as Python's float
    where every ``t`` was one (np.float64 of a float64 ``x`` before), NumPy's scalar once a
    NumPy ``t`` was added; ``m = max(m, t)`` the kind of the operand chosen.  The choice
    expressions (``3.0`` or ``x[i] + 1``, ``max(3.0, x[i])``) were NumPy's for the whole value
    before fe49 (np.float64 where every ``t`` was 3.0), and so was ``m * 0.1`` of an ``m`` that
    kept its 0.0 (only a local returned by name had its kind followed), ``s += max(x[i] - 0.5,
    0.0)`` where every ``x[i]`` was below 0.5 too."""
    func = define(f"def kern(x):\n    s = 0.0\n    m = 0.0\n    for i in range(x.shape[0]):\n        {body}\n")
    kernel = polyfuse.kernel(func, target="python", cache=False)
    for x in ([1.0, 1.0, 1.0, 1.0], [0.1, 0.2], [0.1, 7.0, 0.2], []):
        want, got = func(np.array(x, dtype)), kernel(np.array(x, dtype))
        assert all(_same(g, w) for g, w in zip(got if isinstance(got, tuple) else (got,),
                                                want if isinstance(want, tuple) else (want,))), (x, want, got)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_returned_choice_reads_a_flagged_local(dtype):
    """``return (s if s > 0.5 else 0.25) * 2.0``: Python's float where the branch taken is 0.25 or
    a Python ``s`` (np.float64 before fe49).  A float32 ``s``'s returned choice (``s if s > 1.5
    else 0.5`` of an int64 ``s`` too) is a split of two dtypes (returns._lift_split), whose leaf
    kinds gave NumPy's to a Python ``s`` (np.float32(4.0) where Python returns 4.0; np.int64(2)
    for 2) until ty50."""
    zero, one = ("0", "1") if dtype == np.int64 else ("0.0", "1.0")
    func = define(f"def kern(x):\n    s = {zero}\n    for i in range(x.shape[0]):\n"
                  f"        s += x[i] if x[i] > 5 else {one}\n"
                  "    return (s if s > 0.5 else 0.25) * 2.0, s if s > 1.5 else 0.5\n")
    kernel = polyfuse.kernel(func, target="python", cache=False)
    for x in ([7.0], [0.1, 0.2], [], [6.0, 1.0], [0.1]):
        want, got = func(np.array(x, dtype)), kernel(np.array(x, dtype))
        assert all(_same(g, w) for g, w in zip(got, want)), (x, want, got)


def test_loop_int_max_of_float_local():
    """``acc = max(acc, i + m)`` of a float ``acc`` (hypothesis programs, the CUDA simulator's
    too): versions (a Python float and int), no run-time check (the CUDA target has none);
    returned, Python's int or float."""
    func = define("def kern(o, n, m):\n    acc = 0.5\n    for i in range(n):\n        acc = max(acc, i + m)\n"
                  "    o[0] = acc * 2.0\n")
    kernel = polyfuse.kernel(func, target="cpu", cache=False)
    for n, m in ((0, 3), (4, -2), (3, 2**52), (2, 2**60)):
        want, got = np.zeros(1), np.zeros(1)
        func(want, n, m), kernel(got, n, m)
        assert _same(got, want)
    returned = define("def kern(n):\n    acc = 0.5\n    for i in range(n):\n        acc = max(acc, i)\n"
                      "    return acc\n")
    kernel = polyfuse.kernel(returned, target="python", cache=False)
    for n in (0, 1, 3):
        assert _same(kernel(n), returned(n))
    assert _versions(returned, (3,)) == {"__version0_acc", "__version1_acc", "__kind_acc"}


def _int_or_narrow(A, M, T):
    for i in range(A.shape[0]):
        a = i if i > T[0] else T[0]
        A[i] = a - M[i]


def _int_or_narrow_if(A, M, T):
    for i in range(A.shape[0]):
        if i > T[0]:
            a = i
        else:
            a = T[0]
        A[i] = a - M[i]


@pytest.mark.parametrize("func", [_int_or_narrow, _int_or_narrow_if])
def test_loop_local_of_a_python_int_and_a_narrow_numpy_int(func):
    """A local given the loop's index (a Python int) on one path and an int16 element on the
    other: Python's ``i - M[i]`` of an int8 M wraps in int8, the one int16 type did not (0 - -128
    gave 128 for Python's -128: cp38, cpu_campaign --style extra seed 32006); split into versions."""
    M = np.array([-128, 127, -100, 5], dtype=np.int8)
    T = np.array([-1], dtype=np.int16)
    expected, got = np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    func(expected, M, T)
    polyfuse.kernel(func)(got, M, T)
    assert np.array_equal(got, expected), (got, expected)


def _narrow_or_wide(out, M, T):
    for i in range(M.shape[0]):
        a = M[i][0] if T[i] > 0 else T[i]
        out[i] = a * M[i][1]


def _narrow_or_float(out, M, F, C):
    for i in range(M.shape[0]):
        a = M[i][0] if C[i] else F[i]
        out[i] = a * M[i][1] + a / 3


def test_loop_local_of_two_numpy_dtypes():
    """A local given an int8 element on one path and an int16 (or float32) one on the other:
    Python's ``a * M[i][1]`` wraps in int8 where ``a`` holds the int8, the one promoted type did
    not (100 * 100 gave 10000 for Python's 16; cp39's targeted programs); split into versions."""
    M = np.array([[100, 100], [-100, 3], [7, -128]], dtype=np.int8)
    T = np.array([1, -1, 2], dtype=np.int16)
    expected, got = np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64)
    _narrow_or_wide(expected, M, T)
    polyfuse.kernel(_narrow_or_wide)(got, M, T)
    assert np.array_equal(got, expected), (got, expected)
    F, C = np.array([0.1, 0.3, 1 / 3], dtype=np.float32), np.array([True, False, True])
    expected, got = np.zeros(3), np.zeros(3)
    _narrow_or_float(expected, M, F, C)
    polyfuse.kernel(_narrow_or_float)(got, M, F, C)
    assert np.array_equal(got, expected), (got, expected)


def _sum_of_chosen_dtype(x, f, o):
    w = 0.0
    for i in range(x.shape[0]):
        s = f[i]
        if x[i] > 0.0:
            s = x[i]
        w += s
        o[i] += w


def _python_float_read_first(x, f, o):
    w = 0.3
    for i in range(x.shape[0]):
        o[i] = w * f[i]
        w = x[i]


def _python_float_read_first_kept(x, f, o):
    w = 0.3
    for i in range(x.shape[0]):
        if x[i] > 5:
            break
        o[i] = w * f[i]
        w = x[i]


@pytest.mark.parametrize("func, target", [(_sum_of_chosen_dtype, "python"), (_sum_of_chosen_dtype, "cpu"),
                                          (_python_float_read_first, "python")])
def test_loop_python_float_meets_float32(func, target):
    """A float64 local that holds a Python float (``w = 0.0``) meets an np.float32: Python's ``w +
    s`` is then the float32 sum (NEP 50), and ``w`` an np.float32 from there on, where the one
    float64 type summed in float64 (``s`` itself an np.float32 or an np.float64 as ``x[i]``
    decides; cp3701's control_fuzz program 1, 8th digit of ``o`` on python and cpu).  Split into
    versions (exact); in a loop kept as written refused at the Python float's assignment."""
    f = np.array([0.1, 0.2, 0.3, 0.7], np.float32)
    kernel = polyfuse.kernel(func, target=target, cache=False)
    for x in ([-1.0, -1.0, -2.0, -1.0], [-1.0, 2.5, -1.0, -1.0]):
        want, got = np.zeros(4), np.zeros(4)
        func(np.array(x), f, want)
        kernel(np.array(x), f, got)
        assert _same(got, want), (x, got, want)
    if func is _python_float_read_first:
        with pytest.raises(polyfuse.UnsupportedError, match=r":\d+:.*local 'w'.*Python float.*np.float64.*NEP 50"):
            polyfuse.kernel(_python_float_read_first_kept, target="python", cache=False)(np.zeros(2), f[:2], np.zeros(2))


def _product_of_chosen_dtype(x, y):
    s = 0.5
    v = 2.1
    for i in range(x.shape[0]):
        if x[i] > 1:
            v = y[i]
        if x[i] > 0:
            s *= v * 0.5
    return s


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_loop_split_local_updated_under_a_data_if(target):
    """``s *= v * 0.5`` under ``if x[i] > 0`` of a ``v`` that is Python's 2.1 or an np.float32 as
    the data decide (NEP 50: ``s`` becomes an np.float32 once such a ``v`` meets it, else stays a
    Python float): the split ``s``'s update reads ``v``'s choice, so its parts go through
    temporaries, which the if wrote back where its condition failed, reading them before any
    assignment (refused: "local 's' may be read before it is assigned", fe53)."""
    kernel = polyfuse.kernel(_product_of_chosen_dtype, target=target, cache=False)
    y = np.array([1.5, 0.25, 3.0, 0.75], np.float32)
    for x in ([-1.0, 0.5, 2.0, 0.5], [0.5, -1.0, 0.5, -1.0], [-1.0] * 4, [2.0, -1.0, -1.0, 0.5], []):
        args = (np.array(x), y[:len(x)])
        want, got = _product_of_chosen_dtype(*args), kernel(*args)
        assert _same(got, want), (x, want, got)


def _python_float_copied_kept(x, f, o):
    s = 0.5
    for i in range(x.shape[0]):
        if x[i] > 5:
            break
        if x[i] > 0:
            s = x[i]
        w = (s or (s + 0.5))
        o[i] = w * 0.1


def _python_float_scaled_kept(x, f, o):
    s = 0.5
    for i in range(x.shape[0]):
        if x[i] > 5:
            break
        if x[i] > 0:
            s = x[i]
        o[i] = s * 2.0 + f[i]


def test_kept_loop_copy_of_a_python_float_followed_by_its_reads():
    """A float64 ``s`` that is Python's 0.5 or an np.float64, in a loop kept as written, copied
    into ``w = (s or (s + 0.5))``: ``w`` is read only as ``w * 0.1`` and stored, which Python's
    float and NumPy's compute alike, so it compiles (refused since the NEP 50 copy rule, fe53
    follows the copy's reads).  ``s * 2.0 + f32[i]`` is Python's float32 sum where ``s`` is
    Python's float (NEP 50): refused, where the float64 sum came back before (the arithmetic of
    ``s`` with Python numbers was not followed)."""
    f = np.array([0.1, 0.2, 0.3, 0.7], np.float32)
    kernel = polyfuse.kernel(_python_float_copied_kept, target="python", cache=False)
    for x in ([-1.0, -1.0, -2.0, -1.0], [-1.0, 2.5, -1.0, 9.0], [0.0, 1.0, 0.0, -1.0]):
        want, got = np.zeros(4), np.zeros(4)
        _python_float_copied_kept(np.array(x), f, want)
        kernel(np.array(x), f, got)
        assert _same(got, want), (x, got, want)
    with pytest.raises(polyfuse.UnsupportedError, match=r":\d+:.*local 's'.*Python float.*NEP 50"):
        polyfuse.kernel(_python_float_scaled_kept, target="python", cache=False)(np.zeros(2), f[:2], np.zeros(2))


PYTHON_BOOLS = [  # u: Python's True until the data give it an np.bool_
    "for i in range(x.shape[0]):\n        u = u or c[i] == 1\n    return u + u, u * 1.5",
    "t = 0\n    for i in range(x.shape[0]):\n        t = u + u\n        u = x[i] > 0\n    return t",
    "o = np.zeros(x.shape[0])\n    for i in range(x.shape[0]):\n        o[i] = u + u\n        u = x[i] > 0\n    return o",
    "t = 0.0\n    for i in range(x.shape[0]):\n        t = u * 1.5 + (u + 1)\n        u = x[i] > 0\n    return t",
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("body", PYTHON_BOOLS)
def test_loop_bool_local_of_a_python_bool_in_arithmetic(body, target):
    """A bool local that holds Python's ``True`` or an np.bool_ as the data decide, in a loop:
    ``u + u`` is the int 2 of Python's bools and ``np.True_`` of NumPy's (a logical or), so the
    local is split into versions (exact); it gave 1 and ``np.True_`` where Python gives 2 (fe53).
    In a loop kept as written it is refused at the Python bool's assignment."""
    func = define(f"def kern(x, c):\n    u = True\n    {body}\n")
    kernel = polyfuse.kernel(func, target=target, cache=False)
    for x, c in (([1.0, -1.0, 2.0], [1, 0, 1]), ([2.0, 1.0], [0, 0]), ([-2.0, -1.0], [1, 0]), ([2.0], [1])):
        want, got = func(np.array(x), np.array(c)), kernel(np.array(x), np.array(c))
        assert all(_same(g, w) for g, w in zip(got if isinstance(got, tuple) else (got,),
                                                want if isinstance(want, tuple) else (want,))), (x, c, want, got)
    if body is PYTHON_BOOLS[1] and target == "python":
        kept = define("def kern(x, c):\n    u = True\n    t = 0\n    for i in range(x.shape[0]):\n"
                      "        if x[i] > 5:\n            break\n        t = u + u\n        u = x[i] > 0\n    return t\n")
        with pytest.raises(polyfuse.UnsupportedError, match=r":2:.*local 'u'.*Python bool.*True \+ True is the int 2"):
            polyfuse.kernel(kept, target="python", cache=False)(np.ones(2), np.ones(2))


def _root_copied(eq, remap):
    for lab in range(1, eq.shape[0]):
        a = lab
        while eq[a] != a:
            a = eq[a]
        root = a
        remap[lab] = remap[root] + 1


def _root_copied_meets_int32(eq, remap):
    for lab in range(1, eq.shape[0]):
        a = lab
        while eq[a] != a:
            a = eq[a]
        root = a
        remap[lab] = remap[lab] + root


def test_kept_loop_local_copied_into_a_local_read_alike():
    """``a`` holds a Python int (``a = lab``) or an np.int64 (``a = eq[a]`` in a while loop), and
    the kernel has int32 values, with which the two promote differently (NEP 50).  Copied into
    ``root`` that only indexes, its kind never shows: compiled (refused before fe53: any copy into a
    user's local counted, ccl_two_pass_4's ``root = _find(eq, lab)``).  Where the copy meets an
    int32 (``remap[lab] + root``) it stays refused."""
    eq = np.array([0, 0, 1, 3, 3, 2])
    want, got = np.zeros(6, dtype=np.int32), np.zeros(6, dtype=np.int32)
    _root_copied(eq, want)
    polyfuse.kernel(_root_copied, target="python", cache=False)(eq, got)
    assert _same(got, want), (got, want)
    with pytest.raises(polyfuse.UnsupportedError, match=r":\d+:.*local 'a'.*Python int.*np.int64.*NEP 50"):
        polyfuse.kernel(_root_copied_meets_int32, target="python", cache=False)(eq, np.zeros(6, dtype=np.int32))


def _find_root(eq, a):
    while eq[a] != a:
        a = eq[a]
    return a


def _roots_of_int32_labels(labels, eq, out):
    for i in range(labels.shape[0]):
        out[i] = _find_root(eq, labels[i])


def _roots_plus_int32(labels, eq, out):
    for i in range(labels.shape[0]):
        out[i] = _find_root(eq, labels[i]) + labels[0]


def test_kept_loop_local_of_two_int_dtypes_read_alike():
    """``a`` is an int32 label, then an int64 element of ``eq`` in the helper's while loop (a loop
    kept as written).  Read only by a comparison with int64 values, as a subscript and stored, its
    value alone counts: one int64 local is exact (refused before fe53: reads in a kept loop were not
    looked at).  Where it meets an int32 (``+ labels[0]``: int32 arithmetic while ``a`` is the
    int32 label) it stays refused."""
    labels, eq = np.array([2, 1, 0, 3], dtype=np.int32), np.array([0, 0, 1, 3])
    want, got = np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    _roots_of_int32_labels(labels, eq, want)
    polyfuse.kernel(_roots_of_int32_labels, target="python", cache=False)(labels, eq, got)
    assert _same(got, want), (got, want)
    with pytest.raises(polyfuse.UnsupportedError, match=r":\d+:.*local 'a'.*np.int32.*np.int64"):
        polyfuse.kernel(_roots_plus_int32, target="python", cache=False)(labels, eq, np.zeros(4, dtype=np.int64))
