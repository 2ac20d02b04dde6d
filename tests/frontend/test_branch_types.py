"""``a if c else b`` whose branches differ in type (frontend/expressions.py ``select``,
``_pushed``; frontend/returns.py ``_lift_split``): Python's value has the type of the branch that
runs, so the kernel applies each consumer to each branch until the types agree (a store, a cast,
a comparison) and returns the branch's own type.  Before ty34 the branches took one promoted
type: ``(np.float32(x[0]) if c > 0 else 0.1) + 1`` gave ``np.float32(1.1)`` for the float 1.1,
and ``(f[0] if c > 0 else 0.1) * x[1]`` multiplied float32's 0.1.  The builtins ``min``/``max``
of operands of different types are such choices too (``min(f[0], 0.1)``: the float 0.1)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import define
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse


def _arguments(c: int) -> tuple:
    """x float64, f float32, k int8, o a float64 output, n a Python int, c the test."""
    return (np.array([1.25, 2.0]), np.array([1.5, 2.5], dtype=np.float32), np.array([3, 4], dtype=np.int8),
            np.zeros(1), 3, c)


def _same(got, want) -> bool:
    """Equal values of one type (arrays: one dtype)."""
    if isinstance(want, np.ndarray):
        return isinstance(got, np.ndarray) and got.dtype == want.dtype and np.array_equal(got, want)
    return type(got) is type(want) and got == want


def _check(body: str, target: str = "python") -> None:
    func = define(f"def kern(x, f, k, o, n, c):\n    {body}\n")
    kernel = polyfuse.kernel(func, target=target, cache=False)
    for c in (1, -1):  # both branches
        want, got = func(*_arguments(c)), kernel(*_arguments(c))
        assert _same(got, want), f"{body} at c={c}: Python {want!r}, kernel {got!r}"
    assert kernel.python_calls == 0


BODIES = [
    "return (np.float32(x[0]) if c > 0 else 1.5) + 1",  # np.float32(2.25) or the float 2.5
    "return (np.float32(x[0]) if c > 0 else 0.1) + 1",  # 1.1, not float32's 1.1
    "return (f[0] if c > 0 else 0.1) * x[1]",  # 0.1 * 2.0 in float64
    "return (f[0] if c > 0 else 0.1) * f[1]",  # float32 both ways (NEP 50: 0.1 is float32 there)
    "return (n if c > 0 else 0.5) + 1",  # the int 4 or the float 1.5
    "return -(n if c > 0 else 0.5)",
    "return abs(n if c > -5 else -0.5) * 2",
    "return (x[0] > 0 if c > 0 else False) + 1",  # np.int64 or int
    "return (np.float32(x[0]) if c > 0 else np.float64(x[1])) * 3",
    "return (k[0] if c > 0 else 1000) + 1",  # int8 4 or the int 1001
    "return np.sqrt(f[0] if c > 0 else 0.1)",
    "return (f[0] if c > 0 else 0.1)",  # returned as written: no local of one type between
    "return (f[0] or 0.1) + 1",  # and/or: the deciding operand's own type
    "return float(n if c > 0 else 0.5)",  # types agree again
    "return (f[0] if c > 0 else 0.1) + (n if c > 1 else 0.5)",
    "return min(f[0], 0.1) * x[1]",  # builtin min: the operand chosen, in its own type
    "return max(k[0] if c > 0 else np.float32(x[1]), 2)",
    "o[0] = f[0] if c > 0 else 0.1\n    return o",  # stored as 0.1, not float32's
    "s = np.float64(x[0])\n    s += f[0] if c > 0 else 0.1\n    return s",
]


@pytest.mark.parametrize("body", BODIES)
def test_branch_types_are_pythons(body):
    _check(body)


@pytest.mark.parametrize("body", BODIES[:3] + BODIES[-2:])
def test_branch_types_cpu(body):
    _check(body, target="cpu")


LOOPS = """
def kern(x, w, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else 0.0
        y[i] = (x[i] if x[i] > 0 else 0.0) * w[i] + (x[i] if x[i] < 0.5 else 0.1)
    return s
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_loops_keep_matching(dtype):
    """The float32 ReLU idioms: a Python 0.0 combined with float32 values is float32 (NEP 50),
    so the reduction stays ``s + select`` and the stores match Python's values."""
    func = define(LOOPS)
    kernel = polyfuse.kernel(func, target="cpu", cache=False)
    x = np.linspace(-1, 1, 37).astype(dtype)
    w = np.linspace(0.5, 2, 37).astype(dtype)
    y_want, y_got = np.zeros_like(x), np.zeros_like(x)
    want, got = func(x, w, y_want), kernel(x, w, y_got)
    assert _same(got, want)
    np.testing.assert_array_equal(y_got, y_want)


def test_many_choices_in_one_expression():
    """Eight guarded reads of a float32 array, each with a Python 0.0 (every one a choice of
    types): pushed consumers reuse their operands' values, so this compiles in well under a
    second (each push converting its operands again took 3**k conversions), and matches."""
    terms = " + ".join(f"(u[i - {d}] if i >= {d} else 0.0)" for d in range(1, 9))
    func = define(f"def kern(u, out):\n    for i in range(u.shape[0]):\n        out[i] = {terms}\n")
    kernel = polyfuse.kernel(func, target="python", cache=False)
    u = np.linspace(0, 1, 12, dtype=np.float32)
    want, got = np.zeros_like(u), np.zeros_like(u)
    func(u, want), kernel(u, got)
    np.testing.assert_array_equal(got, want)


def test_int_branch_beyond_float64_is_refused_where_it_runs():
    """An int branch returned through a float64 result (its other branch is a float) is exact
    up to 2**53; beyond it the call raises rather than round."""
    func = define("def kern(x, f, k, o, n, c):\n    return (n if c > 0 else 0.5) * 2**60\n")
    kernel = polyfuse.kernel(func, target="python", cache=False)
    assert _same(kernel(*_arguments(-1)), func(*_arguments(-1)))
    with pytest.raises(polyfuse.UnsupportedError, match=r":2:.*beyond 2\*\*53"):
        kernel(*_arguments(1))


BRANCHES = ["n", "0.1", "True", "c > 0", "f[0]", "x[0]", "k[0]", "x[0] > 1", "np.float32(x[1])"]
CONSUMERS = ["({}) + 1", "({}) * x[1]", "({}) * f[1]", "({}) < 1.5", "({}) - k[1]", "({})", "min({}, 2)",
             "({}) or 0.5"]


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(BRANCHES), st.sampled_from(BRANCHES), st.sampled_from(CONSUMERS))
def test_branch_type_pairs(a, b, consumer):
    _check("return " + consumer.format(f"{a} if c > 0 else {b}"))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("line", [
    "A[i] = (i if i > T[0] else T[0]) - M[i][0]",  # i - int8 wraps in int8, T[0] - int8 in int16
    "A[i] = M[i][0] - (i if i > T[0] else T[0])",
    "A[i] = (i if i > T[0] else T[0]) - M[i][i % 2]",
    "A[i] = (np.float32(0.1) if i > T[0] else 0.1) + M[i][0]",  # float32 or float64 per branch
    "A[i] = (0.5 if i > T[0] else M[i][1]) * M[i][0]",  # a float, or int8 * int8 wrapping
    "A[i] = ((i % 2) * T[0] or 3) * M[i][0]",  # 3 * int8 wraps in int8, int16 * int8 in int16
    "A[i] = (T[0] - i % 4 and 2) * M[i][0]",  # 2 * int8 wraps in int8, an int16 0 where T[0] decides
    "A[i] = (T[0] - i % 4 and 2.5) + M[i][0]",  # 2.5 + int8, or int16 0 + int8
])
def test_a_choice_beside_a_chained_subscript_is_typed_per_branch(line, target):
    """``M[i][0]`` reads a row view, so NumPy's lowering (frontend/arrays.py) rebuilds the
    statement's scalar parts; a choice the user wrote stays one (source.IfExp, source.BoolOp),
    typed per branch (cp38: it became one promoted int16, 128 where Python's int8 wraps to -128;
    ``a or b`` became a bool operator)."""
    func = define(f"def kern(A, M, T):\n    for i in range(len(A)):\n        {line}\n")
    dtype = np.float64 if "." in line else np.int64
    M = np.full((12, 2), -120, dtype=np.int8)
    M[::3] = 7
    A, T = np.zeros(12, dtype=dtype), np.array([3], dtype=np.int16)
    want, got = A.copy(), A.copy()
    with np.errstate(over="ignore"):
        func(want, M, T)
        polyfuse.kernel(func, target=target, cache=False)(got, M, T)
    np.testing.assert_array_equal(got, want)
