"""``rows, cols = M.shape`` inside a loop, or of a local array (frontend/arrays.py:
``Lowering.unpack_shape``): one integer local per extent, as Python binds them; another number
of names is refused at the statement.  Compared with the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse

RNG = np.random.default_rng(5)


def per_matrix_sums(Ms, out):
    for k in range(Ms.shape[0]):
        M = Ms[k]
        rows, cols = M.shape
        s = 0.0
        for i in range(rows):
            for j in range(cols):
                s += M[i, j] * (i + 1)
        out[k] = s


def slice_shapes(Ms, out):
    for k in range(Ms.shape[0]):
        rows, cols = Ms[k, 1:].shape
        out[k] = rows * 10 + cols


def argument_shape_in_a_loop(A, out):
    for k in range(out.shape[0]):
        n, m = A.shape
        out[k] = n * m + k


def local_shape(A):
    T = A[1:, :] * 2.0
    n, m = T.shape
    total = 0.0
    for i in range(n):
        for j in range(m):
            total += T[i, j]
    return total


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (per_matrix_sums, (RNG.random((3, 4, 5)), np.zeros(3))),
    (slice_shapes, (RNG.random((2, 4, 3)), np.zeros(2))),
    (argument_shape_in_a_loop, (RNG.random((3, 2)), np.zeros(4))),
    (local_shape, (RNG.random((4, 3)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_shapes_unpacked_as_python(fn, args, target):
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*expected)
    got = polyfuse.kernel(fn, target=target, verify=True)(*actual)
    np.testing.assert_allclose(got if want is not None else actual[-1], want if want is not None else expected[-1],
                               rtol=1e-13)


def test_another_number_of_names_is_refused_at_the_statement():
    def k(Ms, out):
        for i in range(out.shape[0]):
            a, b = Ms[i].shape
            out[i] = a + b
    with pytest.raises(polyfuse.UnsupportedError, match="2 names unpack") as err:
        polyfuse.kernel(k)(np.ones((2, 3, 4, 5)), np.zeros(2))
    assert "a, b = Ms[i].shape" in str(err.value)
