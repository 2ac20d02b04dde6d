"""np.linalg.norm with ord= (frontend/array_norms.py), np.tensordot with axes= pairs and np.kron
of matrices (frontend/array_tensordot.py), np.sinc and np.fix (frontend/array_ufunc_formulas.py), x.sort()
and np.copyto(where=) (frontend/array_statements.py), integer arrays to integer array powers
(frontend/arrays.py: binop): NumPy's values, dtypes and shapes, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def norms(x, A):
    return (np.linalg.norm(x, 1), np.linalg.norm(x, -np.inf), np.linalg.norm(x, 0), np.linalg.norm(x, 3),
            np.linalg.norm(A, np.inf), np.linalg.norm(A, ord=-1, keepdims=True), np.linalg.norm(A, 1, axis=1),
            np.linalg.norm(A, 0.5, -1, True))


def contractions(A, B, V, W):
    return (np.tensordot(A, B, axes=([1], [0])), np.tensordot(V, W, axes=([0, -1], [2, 0])),
            np.kron(A[0] + 1.0, B), np.sinc(A), np.fix(V * 3))


def int_powers(a, b, k):
    return 2 ** a, a ** b, b ** k, (a > 1).max(), np.min(b > 0, axis=0, keepdims=True)  # bool max/min


def _same(want, got):
    for w, g in zip(want, got):
        w, g = np.asarray(w), np.asarray(g)
        assert w.dtype == g.dtype and w.shape == g.shape
        np.testing.assert_allclose(g, w, rtol=1e-6 if w.dtype == np.float32 else 1e-12)


def test_norms_tensordot_kron_and_int_powers_match_numpy():
    rng = np.random.default_rng(3)
    kernel = polyfuse.kernel(norms)
    x, A = rng.standard_normal(5).astype(np.float32), rng.integers(-3, 3, (3, 4)).astype(np.int32)
    _same(norms(x, A), kernel(x, A))  # float32 kept, integers in float64 (as NumPy converts them)
    args = (rng.standard_normal((2, 3)), rng.standard_normal((3, 2)), rng.standard_normal((2, 3, 4)),
            rng.standard_normal((4, 3, 2)))
    _same(contractions(*args), polyfuse.kernel(contractions)(*args))
    powers = polyfuse.kernel(int_powers)
    ints = (np.arange(5, dtype=np.int16), np.array([0, 3, 1, 2, 4], dtype=np.int32), 3)
    _same(int_powers(*ints), powers(*ints))
    with pytest.raises(ValueError, match="Integers to negative integer powers"):  # NumPy's error, where it runs
        powers(np.arange(5), np.arange(5) - 1, 2)


def norm_three(A):
    return np.linalg.norm(A, 3)


def norm_vector_fro(x):
    return np.linalg.norm(x, "fro")


def tensordot_uneven(A, B):
    return np.tensordot(A, B, axes=([0, 1], [0]))


def int_negative_constant(a):
    return a ** -1


def norm_complex(z):
    return np.linalg.norm(z, axis=-1)


@pytest.mark.parametrize("fn, arg, what", [
    (norm_three, np.ones((2, 2)), r"ord=3\.0 of a matrix \(NumPy refuses it\)"),
    (norm_vector_fro, np.ones(2), r"ord='fro' of a vector"),
    (tensordot_uneven, np.ones((2, 2)), "pair of lists of different lengths"),
    (int_negative_constant, np.ones(2, dtype=np.int64), "non-negative integer constant"),
    (norm_complex, np.ones((2, 3), complex), "norm\\(\\) of a complex array"),
])
def test_refused_variants_say_where_and_why(fn, arg, what):
    args = (arg, arg) if fn is tensordot_uneven else (arg,)
    with pytest.raises(polyfuse.UnsupportedError, match=rf"test_array_norms.py:\d+.*{what}"):
        polyfuse.kernel(fn)(*args)


def in_place_statements(x, X, dst, src, P, F):
    y = x.copy()
    y.sort()  # a local
    X[0].sort(kind="stable")  # a view of an argument
    np.copyto(dst, src, where=src > 0)
    P = F @ P
    return y, np.eye(P.shape[0]) - P


def test_sort_method_copyto_where_and_eye_of_a_local_extent_match_numpy():
    rng = np.random.default_rng(4)
    args = (rng.standard_normal(6), rng.standard_normal((4, 3)), rng.integers(-5, 5, 5).astype(np.float32),
            rng.integers(-5, 5, 5), rng.standard_normal((3, 3)), rng.standard_normal((3, 3)))
    want_args = [a.copy() for a in args]
    got_args = [a.copy() for a in args]
    _same(in_place_statements(*want_args), polyfuse.kernel(in_place_statements)(*got_args))
    _same(want_args, got_args)  # X's first row sorted in place, dst written where src > 0 (int64 cast into float32)
