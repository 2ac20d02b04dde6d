"""numba-style products (``s = 0; for k: s += A[i, k] * B[k, j]; C[i, j] = alpha * s + beta * C[i, j]``)
folded into the element they feed so that they run as one BLAS call (schedule/accumulators.py),
only where isl's dataflow allows and the product then lifts; checked against the user's function
(to BLAS's reassociation where folded, bit for bit where kept)."""

import linecache

import numpy as np
import pytest
from conftest import SYMM_LOOPS as SYMM
from polyfuse.backends.cpu import blas

import polyfuse

pytestmark = pytest.mark.skipif(not blas.available(), reason="no BLAS library found")

GEMM = """
def k(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
            C[i, j] = alpha * s + beta * C[i, j]
"""


def _kernel(source: str, **options):
    filename = f"<test-accumulators-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"np": np, "prange": range}
    if "prange" in source:
        from numba import prange

        namespace["prange"] = prange
    exec(compile(source, filename, "exec"), namespace)
    return namespace["k"], polyfuse.kernel(namespace["k"], cache=False, **options)


def _run(source: str, *args, exact: bool = False, **options):
    """Run the user's function and the kernel on copies, compare every array argument and the
    results; return the kernel's explanation."""
    fn, kernel = _kernel(source, **options)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected, result = fn(*want), kernel(*got)
    for w, g in [*zip(want, got), (expected, result)]:
        if isinstance(w, np.ndarray | float | int) and not isinstance(w, bool):
            if exact:
                np.testing.assert_array_equal(g, w)
            else:
                tol = 1e-12 if np.asarray(w).dtype == np.float64 else 2e-5
                np.testing.assert_allclose(g, w, rtol=tol, atol=0)
    return kernel.explain(*args).to_dict()


def _m(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed + sum(shape)).random(shape).astype(dtype)


def _folded(explained) -> list[bool]:
    return [d["folded"] for d in explained.get("accumulators", ())]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numba_style_gemm_folds_alpha_and_beta_into_one_call(dtype):
    explained = _run(GEMM, 1.5, 1.2, _m(60, 70, dtype=dtype), _m(60, 80, dtype=dtype), _m(80, 70, dtype=dtype))
    (acc,) = explained["accumulators"]
    assert acc["folded"] and acc["scalar"] == "s" and acc["into"] == "C[i, j]"
    (product,) = explained["loop products"]
    assert product["product"].startswith("C += ") and "alpha) * A @ B" in product["product"].replace("C += alpha", "C += (alpha)")


@pytest.mark.parametrize("consumer", ["C[i, j] = s", "C[i, j] = s * alpha", "C[i, j] += s",
                                      "C[i, j] = C[i, j] * beta + alpha * s"])
def test_consumer_forms(consumer):
    source = GEMM.replace("C[i, j] = alpha * s + beta * C[i, j]", consumer)
    explained = _run(source, 0.5, 2.0, _m(40, 30), _m(40, 50), _m(50, 30))
    assert _folded(explained) == [True] and len(explained["loop products"]) == 1


def test_numba_style_2mm_reuses_one_scalar_in_both_nests():
    source = """
def k(alpha, beta, tmp, A, B, C, D):
    for i in range(tmp.shape[0]):
        for j in range(tmp.shape[1]):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
            tmp[i, j] = alpha * s
    for i in range(D.shape[0]):
        for j in range(D.shape[1]):
            s = 0.0
            for k in range(C.shape[0]):
                s += tmp[i, k] * C[k, j]
            D[i, j] = s + beta * D[i, j]
"""
    n = 40
    explained = _run(source, 1.5, 1.2, _m(n, n + 2), _m(n, n + 4), _m(n + 4, n + 2), _m(n + 2, n + 6),
                     _m(n, n + 6))
    assert _folded(explained) == [True, True] and len(explained["loop products"]) == 2


def test_an_accumulator_read_after_its_nest_is_kept():
    """The last sum is stored after the loops: folding would lose it."""
    source = GEMM.replace("    for i", "    s = 0.0\n    for i").replace(
        "            C[i, j] = alpha * s + beta * C[i, j]\n",
        "            C[i, j] = alpha * s + beta * C[i, j]\n    C[0, 0] = s\n")
    explained = _run(source, 1.5, 1.2, _m(30, 20), _m(30, 25), _m(25, 20), exact=True)
    assert _folded(explained) == [False] and "dataflow" in explained["accumulators"][0]["reason"]


def test_a_returned_accumulator_is_kept():
    source = GEMM.replace("    for i", "    s = 0.0\n    for i").replace(
        "            C[i, j] = alpha * s + beta * C[i, j]\n",
        "            C[i, j] = alpha * s + beta * C[i, j]\n    return s\n")
    explained = _run(source, 1.5, 1.2, _m(30, 20), _m(30, 25), _m(25, 20), exact=True)
    # not folded; the returned local's type (Python's 0.0 after zero trips, else NumPy's
    # float64) is flagged beside each assignment, so the nest is no longer an accumulator at all
    assert not any(_folded(explained))


def test_an_accumulator_carried_across_iterations_is_kept():
    """``s`` starts at zero once per row: the sums of a row run on, not one per element."""
    source = """
def k(C, A, B):
    for i in range(C.shape[0]):
        s = 0.0
        for j in range(C.shape[1]):
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
            C[i, j] = s
"""
    explained = _run(source, _m(30, 20), _m(30, 25), _m(25, 20), exact=True)
    assert _folded(explained) == []  # not an init, a loop and a consumer side by side


def test_an_accumulation_that_reads_the_result_is_kept():
    """Each element of row i reads C[i, k], some of which the consumer already wrote."""
    source = """
def k(C, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            s = 0.0
            for k in range(C.shape[1]):
                s += C[i, k] * B[k, j]
            C[i, j] = s
"""
    explained = _run(source, _m(20, 20), _m(20, 20), exact=True)
    assert _folded(explained) == [False] and "reads C" in explained["accumulators"][0]["reason"]


def test_integer_accumulators_stay_loops():
    source = GEMM.replace("s = 0.0", "s = 0")
    a, b = (np.arange(30 * 25).reshape(30, 25) % 7), (np.arange(25 * 20).reshape(25, 20) % 5)
    explained = _run(source, 3, 2, np.ones((30, 20), dtype=np.int64), a, b, exact=True)
    assert _folded(explained) == [False] and "int64" in explained["accumulators"][0]["reason"]
    assert "loop products" not in explained


def test_a_float64_accumulator_of_float32_values_stays_loops():
    """Folding would sum in float32."""
    dtype = np.float32
    source = GEMM.replace("s = 0.0", "s = np.float64(0.0)")
    explained = _run(source, 1.5, 1.2, _m(30, 20, dtype=dtype), _m(30, 25, dtype=dtype), _m(25, 20, dtype=dtype),
                     exact=True)
    assert _folded(explained) == [False] and "dtype" in explained["accumulators"][0]["reason"]


def test_a_domain_no_product_covers_stays_loops_bit_for_bit():
    """Not a box nor a triangle with its diagonal or next to it: the product would not lift, so the fold is
    undone and the loops run as written."""
    source = """
def k(C, A, B):
    for i in range(C.shape[0]):
        for j in range(i - 1):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
            C[i, j] = s
"""
    explained = _run(source, _m(30, 30), _m(30, 25), _m(25, 30), exact=True)
    assert _folded(explained) == [False] and "BLAS" in explained["accumulators"][0]["reason"]
    assert "loop products" not in explained


@pytest.mark.parametrize("term", ["min(A[i, k], B[k, j])", "A[i, k]", "A[i, k] * B[k, j] * A[i, j + 0 * k]"])
def test_an_accumulation_of_no_product_stays_loops_bit_for_bit(term):
    """A sum of something other than two operands' product folds (isl's dataflow allows it) but
    can never run on BLAS: refused, as when its product does not lift (decided before the
    folded program's dependences: regression program b spent 40% of its compile on them)."""
    source = f"""
def k(C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            s = 0.0
            for k in range(A.shape[1]):
                s += {term}
            C[i, j] = 2.0 * s + C[i, j]
"""
    explained = _run(source, _m(30, 20), _m(30, 25), _m(25, 20), exact=True)
    assert _folded(explained) == [False]
    assert explained["accumulators"][0]["reason"] == "kept as written: the product it folds into cannot run on BLAS here"
    assert "loop products" not in explained


def test_blas_false_keeps_the_loops():
    explained = _run(GEMM, 1.5, 1.2, _m(30, 20), _m(30, 25), _m(25, 20), exact=True, blas=False)
    assert "accumulators" not in explained


def test_numba_style_syrk_folds_onto_the_triangle():
    source = """
def k(alpha, C, A):
    for i in range(C.shape[0]):
        for j in range(i + 1):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * A[j, k]
            C[i, j] += alpha * s
"""
    explained = _run(source, 1.5, _m(50, 50), _m(50, 40))
    assert _folded(explained) == [True]
    assert explained["loop products"][0]["product"].endswith("triangle j <= i")


def test_a_prange_claim_is_judged_on_the_loops_as_written():
    """The claim is about the user's loop; the product leaving it does not change the answer."""
    explained = _run(GEMM.replace("for i in range", "for i in prange"), 1.5, 1.2, _m(40, 30), _m(40, 50),
                     _m(50, 30))
    assert _folded(explained) == [True]
    assert [c["parallel"] for c in explained["prange claims"]] == [True]


def test_a_consumer_under_a_condition_is_kept():
    """Folding would write C[i, j] = rest on the iterations the condition skips."""
    source = GEMM.replace("            C[i, j] = alpha * s + beta * C[i, j]",
                          "            if i != j:\n                C[i, j] = alpha * s + beta * C[i, j]")
    explained = _run(source, 1.5, 1.2, _m(40, 30), _m(40, 50), _m(50, 30), exact=True)
    assert _folded(explained) == [False] and "condition" in explained["accumulators"][0]["reason"]


# ---- a folded product's infs and NaNs are the user's ---------------------------------------------

GEMV = """
def k(alpha, beta, y, A, x):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s = s + A[i, j] * x[j]
        y[i] = beta * y[i] + s * alpha
"""
_NONFINITE = {}


def _nonfinite_kernel(name):
    """(the user's function, the kernel) compiled once for the tests below."""
    if name not in _NONFINITE:
        source = {"gemm": GEMM, "symm": SYMM, "gemv": GEMV}[name]
        _NONFINITE[name] = _kernel(source)
    return _NONFINITE[name]


def _same_values(got, want):
    """The same NaNs and signed infs, the finite values to BLAS's reassociation."""
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"NaNs at {np.argwhere(np.isnan(got) != np.isnan(want))}"
    assert np.array_equal(np.isposinf(got), np.isposinf(want)) and np.array_equal(np.isneginf(got), np.isneginf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9, atol=1e-300)


def _planted(rng, shape, count):
    """Random values with ``count`` infs, NaNs, zeros or huge values planted."""
    x = rng.standard_normal(shape)
    for _ in range(count):
        x[tuple(rng.integers(0, n) for n in shape)] = rng.choice([np.inf, -np.inf, np.nan, 0.0, 1e300, -1e300])
    return x


@pytest.mark.parametrize("name", ["gemm", "symm", "gemv"])
@pytest.mark.parametrize("m, n", [(5, 4), (40, 36)])
def test_a_folded_product_gives_the_users_infs_and_nans(forced, monkeypatch, name, m, n):
    """The fold distributes alpha over the terms (``C = rest; C += alpha * A[i, k] * B[k, j]``);
    where BLAS does not run (alpha 0 or not finite, small products, threads' chunks too) the
    loops sum each element first and scale the sum, as the user's function does: an inf alpha
    times a sum of terms some of which are 0 is an inf there, not NaN; inf and NaN operands
    give the function's pattern too, and so does an element with no term (``inf * 0.0``)."""
    from polyfuse.runtime import threads

    monkeypatch.setenv("POLYFUSE_BLAS_ROW_CHUNKS", "1")
    monkeypatch.setenv("POLYFUSE_BLAS_THREADS", "rows")
    threads.set_num_threads(2)
    fn, kernel = _nonfinite_kernel(name)
    rng = np.random.default_rng(m + n)
    shapes = {"gemm": ((m, n), (m, m), (m, n)), "symm": ((m, n), (m, m), (m, n)), "gemv": ((m,), (m, n), (n,))}[name]
    for alpha in (np.inf, -np.inf, np.nan, 0.0, 1.5):
        for planted in (0, 3):
            out, a, b = (_planted(rng, shape, planted) for shape in shapes)
            if planted == 0:
                a[:, 0] = 0.0  # terms that are zero (inf * 0 would be NaN term by term)
            want, got = out.copy(), out.copy()
            with np.errstate(all="ignore"):
                fn(alpha, 1.25, want, a, b)
            kernel(alpha, 1.25, got, a, b)
            _same_values(got, want)
        explained = kernel.explain(1.5, 1.25, out, a, b).to_dict()
        # no term at all (k over range(0); symm's i = 0 alone): the user's alpha * 0.0 + rest
        empty = {"gemm": ((m, n), (m, 0), (0, n)), "symm": ((1, n), (1, 1), (1, n)), "gemv": ((m,), (m, 0), (0,))}
        out, a, b = (_planted(rng, shape, 0) for shape in empty[name])
        want, got = out.copy(), out.copy()
        with np.errstate(all="ignore"):
            fn(alpha, 1.25, want, a, b)
        kernel(alpha, 1.25, got, a, b)
        _same_values(got, want)
    assert _folded(explained) == [True]


@pytest.mark.parametrize("beta_zero", ["1", "0"])
def test_a_folded_products_loops_keep_the_users_consumer(monkeypatch, beta_zero):
    """``C[i, j] = s * alpha`` of a negative sum with alpha = 0 is ``-0.0``: the loops of a
    folded product that alpha keeps off BLAS write the consumer as written (not
    ``0.0 + s * alpha``).  With no term (``A.shape[1] == 0``) it is ``inf * 0.0``, NaN: the
    zeroing folded into the product runs its loops there (POLYFUSE_BLAS_BETA_ZERO), or the
    fold's first statement tests for it."""
    monkeypatch.setenv("POLYFUSE_BLAS_BETA_ZERO", beta_zero)
    fn, kernel = _kernel(GEMM.replace("C[i, j] = alpha * s + beta * C[i, j]", "C[i, j] = s * alpha"))
    A, B = -np.ones((4, 3)), np.ones((3, 5))
    A[0, 0] = 5.0
    for alpha, a, b in ((np.inf, np.ones((4, 0)), np.ones((0, 5))), (1.5, np.ones((4, 0)), np.ones((0, 5))), (0.0, A, B)):
        want, got = np.ones((4, 5)), np.ones((4, 5))
        with np.errstate(all="ignore"):
            fn(alpha, 0.5, want, a, b)
        kernel(alpha, 0.5, got, a, b)
        np.testing.assert_array_equal(got, want)  # (NaNs where want has them)
        np.testing.assert_array_equal(np.signbit(got) & ~np.isnan(got), np.signbit(want) & ~np.isnan(want))
        assert np.signbit(want).sum() == 15 or alpha != 0.0
    assert _folded(kernel.explain(0.0, 0.5, got, A, B).to_dict()) == [True]
