"""Python's builtin ``sum`` of an array or a generator (frontend/builtin_helpers.py,
frontend/desugar.py: GeneratorLoops): elements added one after another, as Python adds them, so
the results are bitwise those of the undecorated function."""

import math

import numpy as np
import pytest

import polyfuse

TARGETS = ("python", "cpu")


def average(x):
    return sum(x) / len(x)


def offset_total(x):
    return sum(x, 10.0)


def row_totals(A, out):
    for i in range(A.shape[0]):
        out[i] = sum(A[i]) * 2


def dot_gen(x, y):
    return sum(x[i] * y[i] for i in range(x.shape[0]))


def positive_squares(x):
    return sum(v * v for v in x if v > 0.5)


def zipped(x, y):
    i = 3  # the generator's i is its own
    return sum(a * b for a, b in zip(x, y)) + i


def shadowed(x, sum):
    return x[0] * sum


def twice(values):
    total = 0.0
    for v in values:
        total += v
    for v in values:
        total += v
    return total


def generator_twice(x):
    return twice(v * 2 for v in x)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, args", [
    (average, (np.arange(1.0, 40.0) * 0.1,)), (offset_total, (np.arange(9.0) / 7,)),
    (average, (np.arange(7),)), (dot_gen, (np.arange(9.0) / 3, np.arange(9.0)[::-1] / 7)),
    (positive_squares, (np.linspace(0.0, 1.0, 11),)), (zipped, (np.arange(5.0) / 3, np.arange(5.0))),
    (shadowed, (np.arange(3.0), 2.5)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_builtin_sum(fn, args, target):
    got, want = polyfuse.kernel(fn, target=target)(*args), fn(*args)
    assert type(got) is type(want)
    assert got == want  # the same additions in the same order


@pytest.mark.parametrize("target", TARGETS)
def test_sum_of_rows(target):
    A = np.random.default_rng(12).random((4, 30))
    got, want = np.zeros(4), np.zeros(4)
    polyfuse.kernel(row_totals, target=target)(A, got)
    row_totals(A, want)
    np.testing.assert_array_equal(got, want)


def column_totals(A):
    return sum(A)


def column_totals_from(A):
    return sum(A, 0.5)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("A", [np.arange(12.0).reshape(4, 3) / 7, np.arange(12, dtype=np.int8).reshape(4, 3) * 20,
                               np.arange(12).reshape(4, 3) % 3 == 0, np.arange(12.0, dtype=np.float32).reshape(3, 2, 2)],
                         ids=["float64", "int8", "bool", "float32-3d"])
def test_sum_of_a_2d_array_adds_its_rows(A, target):
    """Python adds the rows as arrays from ``0`` (a bool array's sum is int64, int8 wraps)."""
    for fn in (column_totals, column_totals_from):
        got, want = polyfuse.kernel(fn, target=target)(A), fn(A)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_generator_read_twice_is_refused():
    """Python's generator is spent after the first loop; the kernel refuses it, never loops twice."""
    assert generator_twice(np.ones(3)) == 6.0
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_builtin_sum.py:\d+.*generator passed to twice"):
        polyfuse.kernel(generator_twice, target="python")(np.ones(3))


def converged(x, y):
    count = 0
    for i in range(x.shape[0]):
        if math.isclose(x[i], y[i], rel_tol=1e-3):
            count += 1
    return count


def near(x, y, out):
    for i in range(x.shape[0]):
        out[i] = math.isclose(x[i], y[i], abs_tol=0.05)


@pytest.mark.parametrize("target", TARGETS)
def test_math_isclose_with_keywords(target):
    """CPython's test step by step (frontend/builtin_helpers.py): equal infinities are close,
    NaN never is."""
    x = np.array([1.0, 2.0, np.inf, np.nan, 0.0, -np.inf, 5.0])
    y = np.array([1.0005, 2.1, np.inf, np.nan, 0.04, np.inf, 5.0])
    assert polyfuse.kernel(converged, target=target)(x, y) == converged(x, y)
    got, want = np.zeros(7, bool), np.zeros(7, bool)
    polyfuse.kernel(near, target=target)(x, y, got)
    near(x, y, want)
    np.testing.assert_array_equal(got, want)


def matrix_totals(A):
    return sum(A) * 2


def matrix_totals_from(A, start):
    return sum(A, start)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("A", [
    np.random.default_rng(3).random((5, 3)), np.arange(6).reshape(3, 2), np.ones((2, 2), bool),
    (np.arange(8, dtype=np.int8) * 40).reshape(2, 2, 2), np.random.default_rng(4).random((1, 3)).astype(np.float32),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_sum_of_a_matrix_adds_its_rows(A, target):
    """``sum(A)`` of a 2-d (or higher) array is Python's ``0 + A[0] + A[1] + ...``: an array of
    ``A``'s row shape, in NumPy's dtype for ``0 + A[0]`` (``int64`` for booleans, ``int8`` wraps)."""
    got, want = polyfuse.kernel(matrix_totals, target=target)(A), matrix_totals(A)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    got = polyfuse.kernel(matrix_totals_from, target=target)(A, 1.5)
    np.testing.assert_array_equal(got, matrix_totals_from(A, 1.5))


def test_sum_of_an_empty_matrix_is_refused_at_the_call():
    """Python's ``sum`` of no rows is the integer 0, not an array: refused, never a wrong value."""
    with pytest.raises(polyfuse.ArgumentError):
        polyfuse.kernel(matrix_totals, target="python")(np.zeros((0, 3)))
