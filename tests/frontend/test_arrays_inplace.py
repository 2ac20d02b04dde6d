"""NumPy's assignment semantics in compiled kernels: the right-hand side is evaluated in full
before anything is written, also when it reads the elements being written (shifted, reversed
and transposed slices, views bound to names, ``+=`` on a view).  Random statements of that kind
are compiled for the python and cpu targets and compared with the undecorated function."""

from __future__ import annotations

import linecache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polyfuse

_OPS = ["=", "+=", "-=", "*="]


def _kernel_from(source: str):
    filename = f"<inplace-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"]


@st.composite
def _one_d(draw) -> tuple[tuple[int, ...], list[str]]:
    """A statement on a vector ``A`` whose two sides overlap."""
    n = draw(st.integers(4, 9))
    s = draw(st.integers(1, 3))
    op = draw(st.sampled_from(_OPS))
    whole = "A[:]" if op == "=" else "A"  # A = ... would bind a new array, not write
    length = draw(st.integers(1, n - s))
    a, b = draw(st.permutations([0, s]))
    forms = [
        [f"A[{s}:] {op} A[:-{s}]"],
        [f"A[:-{s}] {op} A[{s}:] * 2.0"],
        [f"A[{a}:{a + length}] {op} A[{b}:{b + length}] - B[:{length}]"],
        [f"A[::-1] {op} A"],
        [f"{whole} {op} A[::-1] + 1.0"],
        [f"v = A[{s}:]", f"v {op} A[:-{s}]"],
        ["v = A[::-1]", f"v[{s}:] {op} A[{s}:] * v[{s}:]"],
        [f"A[1:] {op} np.maximum(A[:-1], B[1:])"],
    ]
    return (n,), draw(st.sampled_from(forms))


@st.composite
def _two_d(draw) -> tuple[tuple[int, ...], list[str]]:
    """A statement on a matrix ``A`` whose two sides overlap (``A`` square where a transpose
    is written into it)."""
    r, c = draw(st.integers(3, 6)), draw(st.integers(3, 6))
    s = draw(st.integers(1, 2))
    op = draw(st.sampled_from(_OPS))
    whole = "A[...]" if op == "=" else "A"
    forms = [
        ((r, c), [f"A[{s}:, :] {op} A[:-{s}, :] * 2 + A[{s}:, :]"]),
        ((r, c), [f"A[:, {s}:] {op} A[:, :-{s}]"]),
        ((r, c), [f"A[::-1, :] {op} A"]),
        ((r, c), [f"A[:, ::-1] {op} A[:, :] - B"]),
        ((r, r), [f"A[:, :] {op} A.T"]),
        ((r, r), [f"{whole} {op} np.transpose(A) * 0.5 + A[::-1, ::-1]"]),
        ((r, c), [f"v = A[{s}:, 1:]", f"v {op} A[:-{s}, :-1]"]),
        ((r, r), ["v = A.T", f"v {op} A"]),
        ((r, c), ["for i in range(1, A.shape[0]):", f"    A[i, :] {op} A[i - 1, ::-1]"]),
        ((r, c), [f"A[{s}:, :] {op} A[:-{s}, :].sum(axis=0) + A[:, 0:1][{s}:]"]),
        ((r, r), ["for i in range(1, A.shape[0]):", f"    A[i, 1:i] {op} A[i - 1, :i - 1] + A[i - 1, 1:i]"]),
        ((r, r), ["for i in range(A.shape[0]):", f"    A[i, 1:i + 1] {op} A[i, :i] * B[i, :i]"]),
    ]
    return draw(st.sampled_from(forms))


def _check(shape: tuple[int, ...], lines: list[str]) -> None:
    source = "def k(A, B):\n" + "".join(f"    {line}\n" for line in lines)
    k = _kernel_from(source)
    rng = np.random.default_rng(sum(shape))
    A, B = rng.random(shape), rng.random(shape)
    expected = A.copy()
    k(expected, B.copy())
    for target in ("python", "cpu"):
        actual = A.copy()
        polyfuse.kernel(k, target=target, verify=True)(actual, B.copy())
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-14, err_msg=f"{target}:\n{source}")


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_one_d())
def test_in_place_vector_statements_read_the_old_values(program):
    _check(*program)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_two_d())
def test_in_place_matrix_statements_read_the_old_values(program):
    _check(*program)


def test_a_view_written_through_its_name_changes_the_array():
    def k(A, B):
        v = A[1:]
        v += A[:-1]
        w = B.T
        w[0, :] = 1.0
        t = A[::2]
        A[...] = 0.5
        B[-1, :] = t[: B.shape[1]]

    A, B = np.arange(10.0), np.zeros((4, 3))
    expected = (A.copy(), B.copy())
    k(*expected)
    for target in ("python", "cpu"):
        actual = (A.copy(), B.copy())
        polyfuse.kernel(k, target=target, verify=True)(*actual)
        for e, a in zip(expected, actual):
            np.testing.assert_array_equal(a, e)


def test_floordiv_mod_and_power_in_place_on_names_write_through_aliases():
    """``b = a; b //= 2`` halves ``a`` too (NumPy's ``//=``, ``%=`` and ``**=`` on an array write in
    place); they were written out as ``b = b // 2``, which bound a new array and left ``a`` as it
    was, and ``a //= 2`` on an argument was refused.  A scalar's ``s //= 2`` stays ``s = s // 2``."""
    source = ("def k(a, m, x):\n    b = a\n    b //= 2\n    a %= 7\n    r = m[1]\n    r **= 2\n    m **= 1.5\n"
              "    s = 100\n    for i in range(a.shape[0]):\n        s //= 2\n        s += a[i]\n        x %= 3.0\n"
              "    return b, s, x\n")
    k = _kernel_from(source)
    args = (np.arange(-9, 9), np.linspace(0.5, 3.0, 12).reshape(3, 4), 10.5)
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    returned = k(*expected)
    for target in ("python", "cpu"):
        actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got = polyfuse.kernel(k, target=target, verify=True)(*actual)
        np.testing.assert_array_equal(actual[0], expected[0])
        np.testing.assert_allclose(actual[1], expected[1], rtol=1e-14)
        np.testing.assert_array_equal(got[0], returned[0])
        assert got[1:] == returned[1:]


def test_in_place_float_into_an_int_array_is_refused_naming_the_operator():
    k = _kernel_from("def k(a):\n    a //= 2.5\n")
    with pytest.raises(polyfuse.UnsupportedError, match=r"in-place //= of a float value into integer array 'a'"):
        polyfuse.kernel(k, target="python")(np.arange(4))


def test_in_place_float_into_one_int_element_truncates_as_python_stores_it():
    """``M[i, 0] += 0.5`` of an int array is Python's read, add and store of one element, which
    NumPy's element store truncates (cp37: it was refused as NumPy's array cast, seed 31010 of
    ``cpu_campaign.py --style wild``); the array form ``M[:] += x`` is still refused."""
    k = _kernel_from("def k(M, x):\n    for i in range(M.shape[0]):\n        M[i, 0] += x[i] * 1.5\n"
                     "        M[i, 1] -= x[i] / 3.0\n    M[0, 0] *= 0.5\n")
    args = (np.arange(-6, 6).reshape(4, 3).astype(np.int32), np.linspace(-3.0, 3.0, 4))
    expected = args[0].copy()
    k(expected, args[1])
    for target in ("python", "cpu"):
        actual = args[0].copy()
        polyfuse.kernel(k, target=target, verify=True)(actual, args[1])
        np.testing.assert_array_equal(actual, expected)
    whole = _kernel_from("def k(M, x):\n    M[:] += x\n")
    with pytest.raises(polyfuse.UnsupportedError, match=r"in-place \+= of a float value into integer array 'M'"):
        polyfuse.kernel(whole, target="python")(np.arange(4), np.ones(4))
