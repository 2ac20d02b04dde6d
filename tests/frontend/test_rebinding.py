"""Names bound again (frontend/rewrite.py ``rename_rebound``, frontend/arrays.py ``bind_name``):
an argument or a local array bound again at the top level of the body is a new name from there on,
as in Python (``image = image.astype(np.float32)``; the caller's array is untouched); a temporary
bound again after the loop that bound it has ended is a new temporary.  Every case is compared
with the undecorated function, arguments included."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse.errors import UnsupportedError

TARGETS = ("python", "cpu")


def blur(image, output):
    image = image.astype(np.float32)
    rows = np.empty((image.shape[0], image.shape[1] - 2), dtype=np.float32)
    for y in range(rows.shape[0]):
        rows[y, :] = (image[y, :-2] + image[y, 1:-1] + image[y, 2:]) / 3.0
    output = np.clip(rows, 0.0, 255.0).astype(np.uint8)
    return output


def transpose_in_place(A):
    A = np.transpose(A, (2, 1, 0))  # a view: writing it writes the caller's A
    A[0] += 1.0
    return A


def scalar_arguments(x, dx, n):
    dx = dx * 2
    dx *= 3
    n = n - 1  # an integer size again: still affine (n - 1)
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * dx
    return out


def local_array_again(x):
    d = np.empty(x.shape[0])
    d = np.exp(x)
    return d


def twice(x):
    x = x * 2.0
    x = x[1:] + x[:-1]
    return x


def size_taken_before(x):
    n = x.shape[0]  # the argument's extent, not the slice's
    x = x[1:]
    s = 0.0
    for i in range(n - 1):
        s += x[i]
    return s


def temporaries_per_loop(x):
    out = np.zeros_like(x)
    for k in range(1):
        g = x[k] * 2.0
        out[k] = g
    for k in range(1, x.shape[0]):
        g = x[k] + 1.0  # a new g: the first one's loop has ended
        out[k] = g + out[k - 1]
    return out


def length_of_temporary(x):
    t = x * 2
    out = np.zeros(len(t))
    for i in range(len(t)):
        out[i] = t[i] + t.shape[0]
    return out


def conjugate_gradient(A, b, x, iters):
    r = b - A @ x
    p = r + 0.0
    rs = r @ r
    for i in range(iters):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p  # the argument once, then each iteration's new x
        r = r - alpha * Ap
        rsnew = r @ r
        p = r + (rsnew / rs) * p
        rs = rsnew
    return x


def copies_per_step(u, steps):
    un = np.empty_like(u)
    for n in range(steps):
        un = u.copy()  # npbench's cavity_flow: a fresh copy each step
        u[1:-1] = un[1:-1] + 0.1 * (un[2:] - 2 * un[1:-1] + un[:-2])
    return u


def reversed_each_step(x, steps):
    y = x * 1.0
    for t in range(steps):
        y = y[::-1] * 0.5 + y  # the whole right-hand side before any write
    return y


def size_bound_again_in_its_loop(n, A):
    for i in range(n):  # range(n) is computed once, from the argument
        n = 3
        A[i] = n + i
    return n


def _inputs(rng):
    return {
        blur: ((rng.random((6, 7)) * 300).astype(np.uint8), np.zeros((6, 5), np.uint8)),
        transpose_in_place: (rng.random((2, 3, 4)),),
        scalar_arguments: (np.arange(5.0), 0.5, 5),
        local_array_again: (rng.random(4),),
        twice: (rng.random(7),),
        size_taken_before: (rng.random(6),),
        temporaries_per_loop: (rng.random((4, 3)),),
        length_of_temporary: (rng.random(5),),
        copies_per_step: (rng.random(10), 4),
        size_bound_again_in_its_loop: (4, rng.random(6)),
        reversed_each_step: (rng.random(7), 3),
    }


CASES = list(_inputs(np.random.default_rng(0)))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_bound_again_matches_python(fn, target):
    args = _inputs(np.random.default_rng(1))[fn]
    expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = fn(*expected_args)
    actual = polyfuse.kernel(fn, target=target)(*actual_args)
    np.testing.assert_array_equal(actual, expected)
    assert np.asarray(actual).dtype == np.asarray(expected).dtype
    for e, a in zip(expected_args, actual_args):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(a, e)  # the caller's arrays: untouched or written as in Python


def rebound_in_a_loop(A, out):
    for i in range(2):
        A = A * 2.0  # the argument, then the new arrays: the caller's A stays as it was
    out[:] = A


def test_an_argument_bound_again_inside_a_loop_is_a_copy_from_there_on():
    for target in TARGETS:
        A, out = np.arange(3.0), np.zeros(3)
        polyfuse.kernel(rebound_in_a_loop, target=target)(A, out)
        np.testing.assert_array_equal(out, np.arange(3.0) * 4)
        np.testing.assert_array_equal(A, np.arange(3.0))


def rebound_and_written_in_a_loop(A, out):
    for i in range(2):
        A[0] = 1.0  # the first iteration writes the caller's array, later ones a new one
        A = A * 2.0
    out[:] = A


def test_an_argument_written_in_place_and_bound_again_in_a_loop_is_refused_where_it_is():
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(rebound_and_written_in_a_loop, target="python")(np.ones(3), np.zeros(3))
    assert "inside a loop or branch" in str(info.value)
    assert info.value.span.line == rebound_and_written_in_a_loop.__code__.co_firstlineno + 3


def test_a_solver_binding_its_vectors_again_in_the_loop():
    rng = np.random.default_rng(2)
    m = rng.random((6, 6))
    A, b = m @ m.T + 6 * np.eye(6), rng.random(6)
    for target in TARGETS:
        np.testing.assert_allclose(polyfuse.kernel(conjugate_gradient, target=target)(A, b, np.zeros(6), 5),
                                   conjugate_gradient(A, b, np.zeros(6), 5), rtol=1e-10)


def aliased_then_bound_again(x, steps):
    y = x * 1.0
    for t in range(steps):
        z = y  # z keeps the old array in Python
        y = y + 1.0
    return y, z


def dtype_changes_in_the_loop(x, steps):
    y = x * 2
    for t in range(steps):
        y = y * 0.5
    return y


@pytest.mark.parametrize("fn, args, words", [
    # z = y binds a copy (nothing writes either in place), a temporary of the loop: read after it
    (aliased_then_bound_again, (np.arange(3.0), 2), "outside the loop or branch that binds it"),
    (dtype_changes_in_the_loop, (np.arange(3), 2), "is float64, not int64"),
], ids=["aliased", "dtype"])
def test_binding_again_in_a_loop_is_refused_where_writing_in_place_would_differ(fn, args, words):
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert words in str(info.value)
