"""The LLVM backend (target="cpu"): IR is inspectable and runs like the plain function.

Regression tests for bugs found while writing the suite are named in their docstrings.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU, define

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py yet")


def saxpy(n, a, X, Y):
    for i in range(n):
        Y[i] = a * X[i] + Y[i]


def test_inspect_llvm_returns_ir():
    k = polyfuse.kernel(saxpy, target="cpu", verify=True)
    ir = k.inspect_llvm(4, 2.0, np.ones(4), np.ones(4))
    assert isinstance(ir, str)
    assert "define" in ir
    Y = np.ones(4)
    k(4, 2.0, np.arange(4.0), Y)
    assert list(Y) == [1, 3, 5, 7]


def test_cpu_and_python_agree_on_a_reduction():
    def dot(n, A, B, out):
        for i in range(n):
            out[0] += A[i] * B[i]

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal(100), rng.standard_normal(100)
    outs = []
    for target in ("python", "cpu"):
        out = np.zeros(1)
        polyfuse.kernel(dot, target=target)(100, A, B, out)
        outs.append(out[0])
    expected = np.zeros(1)
    dot(100, A, B, expected)
    np.testing.assert_allclose(outs, [expected[0]] * 2, rtol=1e-12)


ZEROS_LOCAL_READ_ONLY = '''def kern(n, A):
    T = np.zeros((n,))
    for i in range(n):
        A[i] = T[i] + 1.0
'''


def test_read_of_never_written_zeros_local():
    """Regression: contraction turned T into an uninitialised register."""
    fn = define(ZEROS_LOCAL_READ_ONLY, "kern")
    A = np.full(5, 7.0)
    polyfuse.kernel(fn, target="cpu")(5, A)
    assert list(A) == [1.0] * 5


def test_read_of_never_written_zeros_local_python_target():
    fn = define(ZEROS_LOCAL_READ_ONLY, "kern")
    A = np.full(5, 7.0)
    polyfuse.kernel(fn, target="python")(5, A)
    assert list(A) == [1.0] * 5


def test_read_of_partly_written_zeros_local():
    fn = define('''def kern(n, A):
    T = np.zeros((n,))
    T[1] = 2.0
    for i in range(n):
        A[i] = T[i] + 1.0
''', "kern")
    A = np.full(5, 7.0)
    polyfuse.kernel(fn, target="cpu")(5, A)
    assert list(A) == [1.0, 3.0, 1.0, 1.0, 1.0]


def test_float_modulo_sign_of_zero():
    """Regression: Python gives 0.0 % -2.5 == -0.0 and -0.0 % 2.5 == 0.0."""
    def f(n, A, B):
        for i in range(n):
            B[i] = A[i] % -2.5
            B[i + n] = A[i] % 2.5

    A = np.array([0.0, -0.0, 5.0, -5.0])
    expected = np.zeros(8)
    f(4, A, expected)
    actual = np.zeros(8)
    polyfuse.kernel(f, target="cpu")(4, A, actual)
    assert np.array_equal(actual, expected)
    assert np.array_equal(np.signbit(actual), np.signbit(expected))


def test_fastmath_is_opt_in_and_reassociates_reductions():
    def total(A, out):
        s = 0.0
        for i in range(A.shape[0]):
            s += A[i] * A[i]
        out[0] = s

    A = np.random.default_rng(0).random(1000)
    strict, fast = np.zeros(1), np.zeros(1)
    strict_kernel = polyfuse.kernel(total, target="cpu")
    fast_kernel = polyfuse.kernel(total, target="cpu", fastmath=True)
    strict_kernel(A, strict)
    fast_kernel(A, fast)
    expected = np.zeros(1)
    total(A, expected)
    assert strict[0] == expected[0]  # no reassociation by default: bitwise the same sum
    assert fast[0] == pytest.approx(expected[0], rel=1e-12)
    assert " fast " not in strict_kernel.inspect_llvm(A, strict, optimized=False)
    assert "fadd fast" in fast_kernel.inspect_llvm(A, fast, optimized=False)


def test_fastmath_exp_is_vectorizable_and_within_one_ulp():
    def f(A, B):
        for i in range(A.shape[0]):
            B[i] = math.exp(A[i])

    x = np.concatenate([np.linspace(-760.0, 720.0, 50001), np.random.default_rng(0).normal(0, 10, 20000),
                        [np.nan, np.inf, -np.inf, 0.0, -0.0, 709.78, 709.79, -745.1, -745.2]])
    out = np.zeros_like(x)
    kernel = polyfuse.kernel(f, target="cpu", fastmath=True)
    kernel(x, out)
    with np.errstate(over="ignore"):
        ref = np.exp(x)
    normal = np.isfinite(ref) & (ref >= np.finfo(np.float64).tiny)
    assert np.all(np.abs(out[normal] - ref[normal]) <= np.spacing(ref[normal]))  # the docs' 1 ulp
    special = ~np.isfinite(ref) | np.isnan(x) | (ref == 0)
    assert np.array_equal(out[special], ref[special], equal_nan=True)
    assert "llvm.exp" not in kernel.inspect_llvm(x, out, optimized=False)


def test_kernels_compile_and_run_from_several_threads():
    """isl is not thread-safe: polyfuse serialises its isl work, calls stay concurrent."""
    import threading

    from polyfuse.bench import suite

    errors = []

    def work(name):
        try:
            spec = suite.get(name)
            args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
            expected = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
            polyfuse.kernel(spec.func, target="cpu")(*args)
            spec.func(*expected)
            for a, e in zip(args, expected):
                if isinstance(a, np.ndarray):
                    np.testing.assert_allclose(a, e, rtol=1e-9)
        except Exception as exc:  # noqa: BLE001 - collected and reported below
            errors.append((name, repr(exc)))

    threads = [threading.Thread(target=work, args=(n,)) for n in ("gemm", "chain3", "softmax", "atax", "lu")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def many_constants(x, A, B):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)  # a polynomial's constants inside a row loop, more than the free registers
    far = np.sin(x * 1.0e7)  # beyond the inline reduction: calls libm from a helper
    return e / e.sum(axis=-1, keepdims=True) + far, A @ B  # and a product on BLAS


@pytest.mark.parametrize("small", ["0", "1"])
def test_small_code_model_runs_the_same_code(monkeypatch, small):
    """The x86-64 small code model with PIC (constants addressed relative to the instruction,
    other objects and libraries through RuntimeDyld's stubs and GOT) computes what the large
    one does: inline math, a libm fallback and BLAS."""
    monkeypatch.setenv("POLYFUSE_JIT_SMALL_CODE", small)
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    rng = np.random.default_rng(0)
    x, A, B = rng.standard_normal((37, 301)), rng.random((40, 50)), rng.random((50, 30))
    soft, product = polyfuse.kernel(many_constants)(x, A, B)
    expected_soft, expected_product = many_constants(x, A, B)
    np.testing.assert_allclose(soft, expected_soft, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(product, expected_product, rtol=1e-13)


def eliminate(A, k):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] -= A[i, k] * A[k, j]  # row i written, row k read: they overlap at i == k


def test_row_alias_checks_stay_with_their_loop_and_change_nothing_else(monkeypatch):
    """POLYFUSE_ROW_ALIAS_CHECKS (default on) keeps the vectorizer's overlap check inside the row
    loop instead of one hoisted check over every row: other code, same results, and the option is
    reset after polyfuse's pipeline (numba compiles in the same process)."""
    import numba

    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    A = np.random.default_rng(2).random((40, 50))
    texts = {}
    for setting in ("1", "0"):
        monkeypatch.setenv("POLYFUSE_ROW_ALIAS_CHECKS", setting)
        kernel = polyfuse.kernel(eliminate)
        got, expected = A.copy(), A.copy()
        kernel(got, 3)
        eliminate(expected, 3)
        np.testing.assert_array_equal(got, expected)
        texts[setting] = kernel.inspect_llvm(A.copy(), 3)
    assert texts["1"] != texts["0"]
    got, expected = A.copy(), A.copy()
    numba.njit(eliminate)(got, 3)  # compiled after polyfuse's pipeline: LLVM's own defaults again
    eliminate(expected, 3)
    np.testing.assert_array_equal(got, expected)


# int(x) of a float tests one x node for NaN, infinity and range (about ten uses), so nested
# int() calls make a DAG whose tree is exponential in the depth; a loop kept as written (the
# ``continue``) takes its own path through backends/cpu/region.py.  A campaign statement of this
# shape (seed 38001) spent minutes in LLVM's O3: 17,439 and 63,751 instructions for these two.
SHARED_OPERANDS = {
    "statement": """
def kern(n, M, N):
    for i in range(n):
        N[i, i] -= int(round(np.float64(int(round(np.float64(M[i, 0]), 6))), 6))
""",
    "kept_as_written": """
def kern(n, M, N):
    for i in range(n):
        if M[i, 1] <= 1.0:
            continue
        N[i, i] -= int(round(np.float64(int(round(np.float64(M[i, 0]), 6))), 6))
""",
}


@pytest.mark.parametrize("form", sorted(SHARED_OPERANDS))
def test_shared_operands_are_emitted_once(form):
    """Each node of an expression is emitted once where its value dominates (ExprEmitter.emit),
    not once per path to it in the expression's tree (cs53)."""
    fn = define(SHARED_OPERANDS[form], "kern")
    M = np.random.default_rng(5).uniform(-1e4, 1e4, (9, 9))
    N = np.arange(81, dtype=np.int32).reshape(9, 9)
    kernel = polyfuse.kernel(fn, target="cpu", verify=True)
    text = kernel.inspect_llvm(9, M, N.copy(), optimized=False)
    instructions = sum(1 for line in text.splitlines() if line.startswith("  ") and not line.lstrip().startswith(";"))
    assert instructions < 2000, instructions
    got, expected = N.copy(), N.copy()
    kernel(9, M, got)
    fn(9, M, expected)
    np.testing.assert_array_equal(got, expected)
    M[4, 0], M[4, 1] = np.nan, 5.0  # the shared checks still run where Python's do: int(nan)
    for call in (fn, kernel):
        with pytest.raises(ValueError, match="NaN"):
            call(9, M, N.copy())
