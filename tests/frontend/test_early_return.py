"""Helpers that return from inside their loops (frontend/early_return.py): one return at the end,
so they inline as value helpers; compared with Python on both targets, and an array returned from
a loop refused at the helper's return."""

from __future__ import annotations

import ast
import linecache

import numpy as np
import pytest
from polyfuse.frontend.early_return import single_exit

import polyfuse
from polyfuse import UnsupportedError


def _module(source: str) -> dict:
    filename = f"<early-return-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


SOURCE = '''
def count_below(row, t):
    """Counts leading values under t."""
    for j in range(row.shape[0]):
        if row[j] >= t:
            return j
    return row.shape[0]

def steps(v):
    n = 0
    while v > 1.0:
        v = v / 3.0
        n += 1
        if n > 5:
            return -n
    return n

def k(M, t):
    out = np.zeros(M.shape[0], dtype=np.int64)
    for i in range(M.shape[0]):
        out[i] = count_below(M[i], t) + steps(M[i, 0] * 500.0)
    return out

def first_row(M, t):
    for i in range(M.shape[0]):
        if M[i, 0] > t:
            return M[i]
    return M[0]

def bad(M, t):
    return first_row(M, t) * 2.0
'''


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_returns_from_loops_match_python(target):
    ns = _module(SOURCE)
    M = np.random.default_rng(3).random((9, 6))
    kernel = polyfuse.kernel(ns["k"], target=target)  # one variant serves every t
    for t in (0.2, 0.7, 1.5):
        np.testing.assert_array_equal(kernel(M, t), ns["k"](M, t))


def test_an_array_returned_from_a_loop_is_refused_at_the_return():
    ns = _module(SOURCE)
    with pytest.raises(UnsupportedError) as err:
        polyfuse.kernel(ns["bad"], target="python")(np.ones((3, 2)), 0.5)
    first = str(err.value).splitlines()[0]
    assert ":27:" in first and "return M[i]" in str(err.value)


def test_helpers_without_returns_in_loops_are_left_alone():
    body = ast.parse("def f(x):\n    if x > 0:\n        return 1\n    return 2\n").body[0].body
    assert single_exit(body) is body


def digits_until_bad(text):
    """A decoder that stops at the first bad character: ``return out[:i]`` from inside the loop,
    ``return out`` at the end (fe43: refused before), and an if/elif chain whose last leaf returns,
    so the rest of the loop body (reading ``d``) goes into the two leaves that assign ``d``."""
    out = np.zeros(text.shape[0], dtype=np.int64)
    for i in range(text.shape[0]):
        c = text[i]
        if 48 <= c <= 57:
            d = c - 48
        elif 97 <= c <= 102:
            d = c - 87
        else:
            return out[:i]
        out[i] = d * 2
    return out


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_a_prefix_of_the_returned_array_from_a_loop(target):
    kernel = polyfuse.kernel(digits_until_bad, target=target)
    for text in (b"09af", b"1x2", b"", b"z", b"ab9g"):
        t = np.frombuffer(text, dtype=np.uint8).copy()
        want, got = digits_until_bad(t), kernel(t)
        assert got.dtype == want.dtype and np.array_equal(got, want), (text, got, want)


def list_until_negative(x):
    res = []
    for i in range(x.shape[0]):
        if x[i] < 0:
            return res[:i]
        res.append(x[i])
    return res


def test_a_list_returned_whole_or_in_part_is_still_refused():
    """A list is no array: its prefix is not rewritten as one (it returned an array for Python's
    list before the rewrite was limited to names bound by calls such as np.zeros)."""
    with pytest.raises(UnsupportedError, match="list 'res'"):
        polyfuse.kernel(list_until_negative, target="python")(np.array([1.0, -2.0]))


def power_iteration_or_zero(A, x0, iters):
    """``return 0.0, x`` inside the loop beside ``return lam, x`` at the end, ``x`` bound again
    after the early return in the loop (fe52: refused as an array returned from a loop)."""
    x = x0 / np.linalg.norm(x0)
    lam = 0.0
    for _ in range(iters):
        y = A @ x
        nrm = np.linalg.norm(y)
        if nrm == 0.0:
            return 0.0, x
        x = y / nrm
        lam = x @ (A @ x)
    return lam, x


def test_a_name_bound_before_the_loop_is_returned_itself():
    kernel = polyfuse.kernel(power_iteration_or_zero, target="python")
    for A in (np.zeros((2, 2)), np.array([[0.0, 1.0], [0.0, 0.0]]), np.diag([3.0, 1.0])):
        (want_lam, want_x), (lam, x) = power_iteration_or_zero(A, np.ones(2), 3), kernel(A, np.ones(2), 3)
        assert type(lam) is type(want_lam) and lam == want_lam and np.array_equal(x, want_x), (A, lam, x)
