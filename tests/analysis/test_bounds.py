"""Call-time bounds proofs (polyfuse.bounds): exact for affine, triangular, strided and min/max code."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse import ArgumentError


def stencil(n, A, B):
    for i in range(1, n - 1):
        B[i] = A[i - 1] + A[i + 1]


@pytest.mark.parametrize("n, size, ok", [(5, 5, True), (6, 5, False), (2, 0, True), (0, 0, True),
                                         (3, 3, True), (4, 3, False)])
def test_stencil_bounds_are_exact(n, size, ok):
    k = polyfuse.kernel(stencil, target="python")
    A, B = np.ones(size), np.zeros(size)
    if ok:
        k(n, A, B)
    else:
        with pytest.raises(ArgumentError, match="out-of-bounds"):
            k(n, A, B)


def test_message_names_array_axis_and_sizes():
    k = polyfuse.kernel(stencil, target="python")
    with pytest.raises(ArgumentError) as info:
        k(7, np.ones(5), np.zeros(10))
    msg = str(info.value)
    assert "A[0..6]" in msg and "axis 0" in msg and "5" in msg and "n=7" in msg, msg


def triangular(n, A):
    for i in range(n):
        for j in range(i + 1, n):
            A[i, j] = A[j, i]


def test_triangular_needs_square():
    k = polyfuse.kernel(triangular, target="python")
    k(4, np.ones((4, 4)))
    with pytest.raises(ArgumentError):
        k(4, np.ones((4, 3)))
    with pytest.raises(ArgumentError):
        k(4, np.ones((3, 4)))
    k(1, np.ones((1, 1)))  # inner loop empty: nothing touched beyond [0, 0]... nothing at all


def strided(n, A, B):
    for i in range(0, n, 3):
        B[i // 3] = A[i]


def test_strided_and_floordiv_bounds():
    k = polyfuse.kernel(strided, target="python")
    A = np.arange(7.0)
    B = np.zeros(3)
    k(7, A, B)  # i in {0, 3, 6}: A up to 6, B up to 2
    assert list(B) == [0.0, 3.0, 6.0]
    with pytest.raises(ArgumentError):
        k(7, A, np.zeros(2))
    k(6, np.arange(4.0), np.zeros(2))  # i in {0, 3}: A[3] is the last element touched


def clamped(n, m, A, B):
    for i in range(n):
        B[i] = A[min(i, m - 1)]


def test_min_in_subscript_bounds():
    k = polyfuse.kernel(clamped, target="python")
    B = np.zeros(6)
    k(6, 3, np.array([1.0, 2.0, 3.0]), B)
    assert list(B) == [1, 2, 3, 3, 3, 3]
    with pytest.raises(ArgumentError):
        k(6, 4, np.array([1.0, 2.0, 3.0]), B)


def test_guarded_access_is_only_checked_where_executed():
    def guarded(n, A, B):
        for i in range(n):
            if i < 3:
                B[i] = A[i]

    k = polyfuse.kernel(guarded, target="python")
    k(10, np.ones(3), np.zeros(3))
    with pytest.raises(ArgumentError):
        k(10, np.ones(2), np.zeros(3))


def test_local_array_sized_from_arguments():
    def local(n, A, B):
        T = np.zeros((n + 1,))
        for i in range(n):
            T[i + 1] = A[i]
        for i in range(n):
            B[i] = T[i] + T[i + 1]

    A = np.arange(4.0)
    B = np.zeros(4)
    polyfuse.kernel(local, target="python")(4, A, B)
    assert list(B) == [0, 1, 3, 5]


def test_bounds_cached_per_sizes_not_values():
    k = polyfuse.kernel(stencil, target="python")
    k(5, np.ones(5), np.zeros(5))
    with pytest.raises(ArgumentError):  # same signature, new sizes: proven again
        k(5, np.ones(4), np.zeros(5))


def offset(X, k, out):
    for i in range(out.shape[0]):
        out[i] = X[i] + k


def window(X, k, out):
    for i in range(out.shape[0]):
        out[i] = X[i + k]


def test_proofs_are_keyed_on_the_parameters_that_decide_them():
    X, out = np.arange(8.0), np.zeros(4)
    k = polyfuse.kernel(offset, target="python")
    k(X, 1, out)
    assert k.compile(X, 1, out).bounds.deciding == ("X__shape0", "out__shape0")
    k(X, 2, out)  # another k: no new proof needed, none made
    assert len(k.compile(X, 1, out).bounds._safe) == 1
    w = polyfuse.kernel(window, target="python")
    w(X, 4, out)
    assert "k" in w.compile(X, 4, out).bounds.deciding
    with pytest.raises(ArgumentError, match="out-of-bounds access"):
        w(X, 5, out)  # X[5 + 3] is past the end
    with pytest.raises(ArgumentError, match="out-of-bounds access"):
        w(X, -1, out)


def square_scratch(A, B):
    n, m = A.shape
    T = np.empty((n, n))
    for i in range(n):
        for j in range(m):
            T[i, j] = A[i, j] * 2.0
    for i in range(n):
        for j in range(m):
            B[i, j] = T[i, j] + 1.0


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fuse", ["none", "smart", "max"])
def test_a_local_array_written_past_its_extent_raises_also_when_contraction_removes_it(target, fuse):
    """Fusion contracts T to one value per iteration, so the final program never indexes it; the
    writes as written still run past axis 1 when m > n, where Python raises IndexError."""
    k = polyfuse.kernel(square_scratch, target=target, fuse=fuse)
    A = np.random.default_rng(0).random((4, 3))
    B, expected = np.zeros((4, 3)), np.zeros((4, 3))
    k(A, B)  # m <= n: in bounds
    square_scratch(A, expected)
    np.testing.assert_array_equal(B, expected)
    with pytest.raises(IndexError):
        square_scratch(A.T.copy(), np.zeros((3, 4)))
    with pytest.raises(ArgumentError, match=r"T\[:, 0..3\] but axis 1 of T has extent 3"):
        k(A.T.copy(), np.zeros((3, 4)))


PARAMETER_SETS = [
    "[n, m] -> { : n > 3 and m = 2n or n < 0 }",  # an equality, a disjunction
    "[n, m] -> { : m >= n + 2 and 0 <= n <= 5 }",
    "[n, m] -> { : exists k: n = 2k and m > 0 }",  # an existential: isl decides
    "[n, m] -> { [i] : 0 <= i < n and i >= m }",  # set dimensions (an assert's failing iterations): isl decides
    "[n, m] -> { : false }",
    "[n, m] -> { : }",
]


@pytest.mark.parametrize("text", PARAMETER_SETS)
def test_parameter_sets_test_points_as_isl_does(text):
    """The bounds checks test a call's sizes against parameter sets in Python where a set is
    affine constraints only; the answers are isl's, before and after a pickle round trip (the
    disk cache keeps the constraints and the isl text, parsed only for the sets Python cannot test)."""
    import pickle

    import islpy as isl

    from polyfuse.analysis.bounds import ParameterSet, _Point

    class Checker:
        params = ("n", "m")

        def _point(self, values):
            return isl.Set(f"[n, m] -> {{ : n = {values['n']} and m = {values['m']} }}")

    value = isl.Set(text)
    for tested in (ParameterSet(value), pickle.loads(pickle.dumps(ParameterSet(value)))):
        for n in range(-2, 8):
            for m in range(-2, 14, 3):
                values = {"n": n, "m": m}
                point = _Point(Checker(), values)
                expected = not value.intersect_params(Checker()._point(values)).is_empty()
                assert tested.holds_for(values, point) == expected, (text, values)
    assert (ParameterSet(value).pieces is None) == ("exists" in text or "[i]" in text)
