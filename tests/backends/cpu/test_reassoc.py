"""NumPy reductions in vector partial sums (``ir.BinOp.reassoc`` -> LLVM's ``reassoc`` flag).

NumPy sums pairwise and BLAS's dot in SIMD partial sums; polyfuse's loops for the same NumPy
code (np.sum, x.sum(axis=-1), np.mean, ``a @ b`` of vectors, ``A @ x`` as loops) let LLVM's
loop vectorizer keep partial sums in vector lanes.  Checked here: the IR really is vectorized,
the results are about as accurate as NumPy's, NaN and inf behave as in NumPy, loops the user
wrote still add in index order, bit for bit, and ``fastmath=True`` is unchanged.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py yet")


def total(x):
    return np.sum(x)


def rows(X):
    return X.sum(axis=-1)


def mean(x):
    return np.mean(x)


def dot(a, b):
    return a @ b


def matvec(A, x):
    return A @ x


def trisolv(L, x, b):  # npbench's: a dot product whose extent grows with i
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def user_sum(x):
    s = x[0] * 0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def user_rows(X, out):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[i] = out[i] + X[i, j]


RNG = np.random.default_rng(0)
X64 = RNG.random((16, 1000))
X32 = X64.astype(np.float32)


# ---- the IR ----------------------------------------------------------------------------------
def _vector_reassoc_adds(ir_text: str) -> list[str]:
    return re.findall(r"fadd reassoc <\d+ x (?:double|float)>", ir_text)


@pytest.mark.parametrize("fn, args, options", [
    (total, (X64[0],), {}),
    (total, (X32[0],), {}),
    (rows, (X64,), {}),
    (mean, (X64[0],), {}),
    # a dot product of plain vectors is BLAS ?dot (NumPy's call, its bits) unless blas=False
    (dot, (X64[0], X64[1]), {"blas": False}),
    (dot, (X32[0], X32[1]), {"blas": False}),
    (matvec, (X64, X64[0]), {"blas": False}),
    (trisolv, (X64[:, :16] + np.eye(16), X64[0, :16], X64[1, :16]), {"blas": False}),
])
def test_numpy_reductions_vectorize_into_partial_sums(fn, args, options):
    text = polyfuse.kernel(fn, **options).inspect_llvm(*args)
    assert _vector_reassoc_adds(text), "no vector fadd reassoc in the reduction loop"
    assert "vector.reduce.fadd" in text  # the partial sums combined after the loop
    for flag in ("fast", "nnan", "ninf", "nsz", "arcp", "afn"):
        assert not re.search(rf"\bf(?:add|mul|sub|div) (?:\w+ )*{flag}\b", text), flag


@pytest.mark.parametrize("fn, args", [(user_sum, (X64[0],)), (user_rows, (X64, np.zeros(16)))])
def test_user_loops_get_no_reassoc_flag(fn, args):
    text = polyfuse.kernel(fn).inspect_llvm(*args)
    assert "reassoc" not in text and "vector.reduce.fadd" not in text


def test_fastmath_keeps_its_fast_flags():
    text = polyfuse.kernel(total, fastmath=True).inspect_llvm(X64[0])
    assert re.search(r"fadd fast <\d+ x double>", text)


# ---- user loops: index order, bit for bit ---------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_user_loop_still_adds_in_index_order(dtype):
    x = (RNG.random(100_000) - 0.3).astype(dtype)
    expected = x[0] * 0
    for v in x:  # numpy scalars: Python's loop in the array's precision, in index order
        expected += v
    got = polyfuse.kernel(user_sum)(x)
    assert type(got) is type(expected) and got == expected
    out = np.zeros(16, dtype)
    polyfuse.kernel(user_rows)(X64.astype(dtype), out)
    reference = np.zeros(16, dtype)
    user_rows(X64.astype(dtype), reference)
    np.testing.assert_array_equal(out, reference)


# ---- accuracy against an exact reference ----------------------------------------------------
def _exact_dot(a: np.ndarray, b: np.ndarray) -> float:
    """sum(a * b) correctly rounded to float64: each product split exactly into p + e
    (Dekker's two-product; exact already for float32 inputs, whose products fit in float64)."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    p = a * b
    split = 134217729.0  # 2**27 + 1

    def halves(v):
        t = split * v
        hi = t - (t - v)
        return hi, v - hi

    (ah, al), (bh, bl) = halves(a), halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return math.fsum(np.concatenate([p, e]).tolist())


#: the bound: polyfuse's error is at most 4 times NumPy's plus 2 eps of the sum of the terms'
#: magnitudes (for positive data 2 ulp of the result).  Measured on AVX-512 (256-bit vectors):
#: at most 2.0 eps * sum|terms|, while the index-order loop was up to ~50 eps at n = 1e5.
FACTOR, SLACK = 4.0, 2.0


def _check(got, numpy_value, exact, magnitude, eps, what):
    error, numpy_error = abs(float(got) - exact), abs(float(numpy_value) - exact)
    assert error <= FACTOR * numpy_error + SLACK * eps * magnitude, (
        f"{what}: error {error / (eps * magnitude):.2f} eps, NumPy's {numpy_error / (eps * magnitude):.2f} eps "
        "(in units of eps * sum|terms|)")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("signs", ["positive", "mixed"])
@pytest.mark.parametrize("n", [1000, 10_007, 100_000])
def test_accuracy_is_numpys_within_a_small_factor(dtype, signs, n):
    rng = np.random.default_rng(n)
    kernels = {f.__name__: polyfuse.kernel(f) for f in (total, mean, dot, rows)}
    eps = float(np.finfo(dtype).eps)
    for _ in range(3):
        x, y = (rng.random(n) - (0.5 if signs == "mixed" else 0.0) for _ in range(2))
        x, y = x.astype(dtype), y.astype(dtype)
        exact, magnitude = math.fsum(x.astype(np.float64).tolist()), float(np.sum(np.abs(x), dtype=np.float64))
        _check(kernels["total"](x), np.sum(x), exact, magnitude, eps, "np.sum")
        _check(kernels["mean"](x), np.mean(x), exact / n, magnitude / n, eps, "np.mean")
        terms = float(np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64)))
        _check(kernels["dot"](x, y), x @ y, _exact_dot(x, y), terms, eps, "a @ b")
        X = x[:n - n % 50].reshape(50, -1)
        got, want = kernels["rows"](X), X.sum(axis=-1)
        for row, g, w in zip(X, got, want):
            _check(g, w, math.fsum(row.astype(np.float64).tolist()), float(np.sum(np.abs(row), dtype=np.float64)),
                   eps, "x.sum(axis=-1)")


# ---- special values ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_and_inf_behave_as_in_numpy(dtype):
    kernel, dotted = polyfuse.kernel(total), polyfuse.kernel(dot)
    big = np.full(1000, np.finfo(dtype).max / 4, dtype)  # overflows to inf, in any order
    with np.errstate(invalid="ignore", over="ignore"):
        for specials in ([np.nan], [np.inf], [-np.inf], [np.inf, -np.inf], [np.nan, np.inf]):
            x = RNG.random(1003).astype(dtype)
            x[RNG.choice(1003, len(specials), replace=False)] = specials
            np.testing.assert_equal(kernel(x), np.sum(x))
            np.testing.assert_equal(dotted(x, np.ones_like(x)), x @ np.ones_like(x))
        assert kernel(big) == np.sum(big) == np.inf
