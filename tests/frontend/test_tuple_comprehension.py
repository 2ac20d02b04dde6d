"""Index tuples built by comprehension over tuples of a known length (frontend/tuple_comprehension.py)."""

import numpy as np
import pytest

import polyfuse

# the targets and fusion modes of a function compiled in consecutive tests share one lift (conftest)
pytestmark = pytest.mark.usefixtures("one_lift_per_program")


def wrap(pos, offset, bound):
    return (pos + offset) % bound


def clamp(pos, offset, bound):
    return min(bound - 1, max(0, pos + offset))


def reflect(pos, offset, bound):
    idx = pos + offset
    return min(2 * (bound - 1) - idx, max(idx, -idx))


def local_maxima_wrap(data):
    """parakeet's nd_local_maxima with its default mode: a window the size of the array."""
    wsize = data.shape
    result = np.ones(data.shape, bool)
    for pos in np.ndindex(data.shape):
        myval = data[pos]
        for offset in np.ndindex(wsize):
            neighbor_idx = tuple(wrap(p, o - w // 2, w) for (p, o, w) in zip(pos, offset, wsize))
            result[pos] &= (data[neighbor_idx] <= myval)
    return result


def local_maxima_3x3(data, out):
    """A 3 x 3 window with clamped and reflected neighbours, the tuple passed whole to a subscript."""
    for pos in np.ndindex(data.shape):
        best = data[pos]
        for offset in np.ndindex((3, 3)):
            near = tuple(clamp(p, o - 1, w) for p, o, w in zip(pos, offset, data.shape))
            far = tuple([reflect(p, 2 * o - 2, w) for p, o, w in zip(pos, offset, data.shape)])
            best = max(best, data[near] + 0.5 * data[far])
        out[pos] = best


def shifted_sums(x, out):
    """enumerate, range and a single sequence as the comprehension's iterable; pos[k] and a tuple
    element read back."""
    for pos in np.ndindex(x.shape):
        up = tuple((p + k) % n for k, (p, n) in enumerate(zip(pos, x.shape)))
        steps = tuple(2 * k - 1 for k in range(2))
        same = tuple(p for p in pos)
        out[pos] = x[up] + steps[1] * x[same] - pos[0] + up[-1]


def mixed_shapes(x, y, out):
    """zip stops at its shortest sequence, as Python's does: the first two axes of x's shape."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            corner = tuple(min(a, b - 1) for a, b in zip((i, j), x.shape))
            out[i, j] = x[corner[0], corner[1], 0] + y[j]


CASES = [
    (local_maxima_wrap, lambda rng: (rng.random((5, 4, 3, 2)),)),
    (local_maxima_wrap, lambda rng: (np.round(rng.random((6, 7)) * 4.0),)),  # ties
    (local_maxima_3x3, lambda rng: (rng.random((6, 5)), np.zeros((6, 5)))),
    (shifted_sums, lambda rng: (rng.random((4, 5)), np.zeros((4, 5)))),
    (mixed_shapes, lambda rng: (rng.random((3, 4, 2)), rng.random(5), np.zeros((6, 5)))),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{c[0].__name__}{k}" for k, c in enumerate(CASES)])
def test_matches_the_undecorated_function(case, target):
    func, make = CASES[case]
    rng = np.random.default_rng(case)
    args = make(rng)
    expected_args = [np.copy(a) for a in args]
    expected = func(*expected_args)
    got_args = [np.copy(a) for a in args]
    got = polyfuse.kernel(func, target=target)(*got_args)
    if expected is not None:
        np.testing.assert_array_equal(got, expected)
    for a, b in zip(got_args, expected_args):
        np.testing.assert_array_equal(a, b)


def local_maxima_found(data):
    wsize = data.shape
    result = np.ones(data.shape, bool)
    for pos in np.ndindex(data.shape):
        for offset in np.ndindex(wsize):
            neighbor_idx = tuple(wrap(p, o - w // 2, w) for (p, o, w) in zip(pos, offset, wsize))
            result[pos] &= (data[neighbor_idx] <= data[pos])
    return result


def test_a_local_maximum_is_found_where_numpy_finds_it():
    data = np.zeros((4, 5, 3))
    data[1, 2, 0] = 3.0
    got = polyfuse.kernel(local_maxima_found)(data)
    assert got[1, 2, 0] and got.sum() == 1
    np.testing.assert_array_equal(got, local_maxima_found(data))


def over_an_array(x, out):
    for i in range(out.shape[0]):
        t = tuple(v for v in x)  # an array's length is known only at the call: not unrolled
        out[i] = t[0]


def filtered(x, out):
    for pos in np.ndindex(x.shape):
        t = tuple(p for p in pos if p > 0)  # a data-dependent length
        out[pos] = len(t)


@pytest.mark.parametrize("func", [over_an_array, filtered])
def test_comprehensions_of_unknown_length_are_refused_at_their_line(func):
    x = np.arange(3.0)
    out = np.zeros(3) if func is over_an_array else np.zeros(3)
    with pytest.raises(polyfuse.UnsupportedError, match="test_tuple_comprehension.py"):
        polyfuse.kernel(func)(x, out)
