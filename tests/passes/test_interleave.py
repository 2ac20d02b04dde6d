"""polyfuse.interleave: iterations of a parallel loop interleaved around float reductions.

The transformation must never change a result, not even in the last bit: every test compares
with the plain Python function exactly, on both backends (the Python backend runs the same loop
AST, so it checks the rewrite without LLVM).  ``interleave=True`` interleaves every float
reduction 4 times; the cpu target's default (``interleave=None``) the latency-bound ones, one
vector of lanes of copies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU, assert_same_arrays, copy_args, define
from hypothesis import event, given, note, settings
from hypothesis import strategies as st
from program_gen import COMMON, programs, run_plain

import polyfuse
from polyfuse.bench import suite
from polyfuse.options import Options, vector_bytes
from polyfuse.passes.interleave import INTERLEAVE, MAX_STATEMENT_COPIES

TARGETS = ["python"] + (["cpu"] if HAS_CPU else [])


def row_sums(A, Z):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j] * A[i, j]
        Z[i] = s


def lower_triangle_sums(A, Z):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(i):
            s += A[i, j]
        Z[i] = s


def int_row_sums(A, Z):
    for i in range(A.shape[0]):
        s = 0
        for j in range(A.shape[1]):
            s += A[i, j]
        Z[i] = s


def matvec_pairs(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[0]):
            acc = 0.0
            for k in range(A.shape[1]):
                acc += A[i, k] * B[j, k]
            C[i, j] = acc


def interleaved(k, *args) -> list[dict]:
    return k.explain(*args)["interleaved loops"]


def check_exact(fn, args, **options) -> list[dict]:
    """Run ``fn`` with and without interleaving: bitwise the same results (same operations in the
    same order), and those match the Python function. Returns the interleaving records."""
    options = {"interleave": True, **options}
    k = polyfuse.kernel(fn, verify=True, **options)
    plain = polyfuse.kernel(fn, verify=True, **{**options, "interleave": False})
    expected, actual, reference = copy_args(args), copy_args(args), copy_args(args)
    fn(*reference)
    plain(*expected)
    k(*actual)
    for e, a, r in zip(expected, actual, reference):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(a, e)
            np.testing.assert_allclose(a, r, rtol=1e-12, atol=1e-14)  # vector_math exp: <= 1 ulp
    return interleaved(k, *copy_args(args))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rows", [0, 1, 3, 4, 5, 8, 11])
def test_row_reductions_interleaved_exactly(target, rows):
    rng = np.random.default_rng(rows)
    args = (rng.standard_normal((rows, 13)), np.zeros(rows))
    records = check_exact(row_sums, args, target=target)
    if rows == 1:  # an axis of extent 1 is a constant in its signature: one row, nothing to interleave
        assert records == []
        return
    assert [(r["copies"], r["reductions"]) for r in records] == [(INTERLEAVE, ("S1",))]
    assert records[0]["renamed"] == ("s",)  # each interleaved row has its own accumulator


def row_sums_last_kept(A, Z, last):
    s = -1.0
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j] * A[i, j]
        Z[i] = s
    last[0] = s  # the last row's sum: the copy that runs last must be the one named s


def row_sums_last_returned(A, Z):
    s = -1.0
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j]
        Z[i] = s
    return s


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rows", [0, 3, 4, 5, 8, 16, 17])
def test_private_local_read_after_the_loop_holds_the_last_rows_value(target, rows):
    """Row counts that are multiples of the copies end in a jammed group, not in the remainder."""
    rng = np.random.default_rng(rows)
    check_exact(row_sums_last_kept, (rng.standard_normal((rows, 13)), np.zeros(rows), np.zeros(1)),
                target=target)
    A = rng.standard_normal((rows, 9))
    want = row_sums_last_returned(A, np.zeros(rows))
    for options in ({"interleave": True}, {}):
        got = polyfuse.kernel(row_sums_last_returned, target=target, **options)(A, np.zeros(rows))
        assert got == want


@pytest.mark.parametrize("target", TARGETS)
def test_loop_code_has_full_groups_and_a_remainder(target):
    args = (np.ones((6, 5)), np.zeros(6))
    code = polyfuse.kernel(row_sums, target=target, interleave=True).explain(*args)["loop code"]
    assert f"range(0, A.shape[0], {INTERLEAVE}):  # parallel" in code
    assert f"if ((_t0 + {INTERLEAVE}) <= A.shape[0]):" in code
    assert "for _t0_rest in range(_t0, A.shape[0]):" in code


def test_default_only_on_the_cpu_target_and_off_by_environment(monkeypatch):
    args = (np.ones((6, 5)), np.zeros(6))
    assert interleaved(polyfuse.kernel(row_sums, target="python"), *args) == []
    assert interleaved(polyfuse.kernel(row_sums, interleave=False), *args) == []
    if HAS_CPU:
        assert interleaved(polyfuse.kernel(row_sums), *args) != []
    monkeypatch.setenv("POLYFUSE_INTERLEAVE", "0")
    assert interleaved(polyfuse.kernel(row_sums, interleave=True), *args) == []
    assert interleaved(polyfuse.kernel(row_sums), *args) == []


def test_options_key_names_the_mode(monkeypatch):
    # entries compiled before the default turned on (interleave=0) must miss
    assert f"interleave={vector_bytes()}B:latency" in Options().key()
    assert f"interleave={INTERLEAVE} " in Options(interleave=True).key()
    assert "interleave=0 " in Options(interleave=False).key()
    assert "interleave=0 " in Options(target="python").key()
    monkeypatch.setenv("POLYFUSE_INTERLEAVE", "0")
    assert "interleave=0 " in Options().key()


@pytest.mark.parametrize("target", TARGETS)
def test_not_when_inner_bounds_depend_on_the_loop(target):
    rng = np.random.default_rng(1)
    assert check_exact(lower_triangle_sums, (rng.standard_normal((9, 9)), np.zeros(9)), target=target) == []


def test_not_for_integer_reductions():
    # LLVM vectorizes integer sums itself (they reassociate exactly)
    args = (np.arange(40, dtype=np.int64).reshape(8, 5), np.zeros(8, dtype=np.int64))
    assert check_exact(int_row_sums, args) == []


@pytest.mark.parametrize("target", TARGETS)
def test_innermost_parallel_loop_around_the_reduction(target):
    # j, not i: only the loop right around the reduction is interleaved (blas=False: else the
    # accumulator folds into C[i, j] and the product runs as one BLAS call, schedule/accumulators.py)
    rng = np.random.default_rng(2)
    args = (rng.standard_normal((5, 7)), rng.standard_normal((6, 7)), np.zeros((5, 6)))
    records = check_exact(matvec_pairs, args, target=target, blas=False)
    assert [(r["loop"], r["reductions"]) for r in records] == [("_t1", ("S1",))]


@pytest.mark.parametrize("name", ["softmax", "attention_rows", "mvt", "gesummv"])
def test_suite_kernels_unchanged_bitwise(name):
    kernel = suite.get(name)
    args = kernel.make_args(np.random.default_rng(0), **kernel.sizes["test"])
    records = check_exact(kernel.func, args, target=TARGETS[-1], **_LOOPS.get(name, {}))
    assert records, f"{name} has a float reduction inside a parallel loop"


#: gesummv's products run on ?gemv by default (schedule/loop_products.py: no other statement reads
#: their matrices); its loops are what these tests interleave
_LOOPS = {"gesummv": {"blas": False}}


@settings(max_examples=6, **COMMON)
@given(prog=programs(), n=st.integers(0, 9), seed=st.integers(0, 2**16))
def test_random_programs_interleaved(prog, n, seed):
    """Generated programs, interleaved where they qualify, against the plain function."""
    note(prog.source)
    fn = define(prog.source, "kern")
    args = prog.make_args(np.random.default_rng(seed), n)
    expected = run_plain(fn, args)
    rtol, atol = prog.tolerance
    for target in TARGETS:
        k = polyfuse.kernel(fn, target=target, interleave=True, verify=True)
        actual = copy_args(args)
        with np.errstate(all="ignore"):
            k(*actual)
        event(f"interleaved loops: {len(interleaved(k, *copy_args(args)))}")
        assert_same_arrays(expected, actual, rtol=rtol, atol=atol,
                           names=["n", "alpha"] + [a.name for a in prog.arg_arrays])


# ---- the cpu target's default: latency-bound reductions, one vector of lanes of copies --------

def row_max(A, Z):
    for i in range(A.shape[0]):
        m = A[i, 0]
        for j in range(1, A.shape[1]):
            m = max(m, A[i, j])
        Z[i] = m


def exp_row_sums(A, Z):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += math.exp(A[i, j])
        Z[i] = s


def numpy_row_sums(A):
    return A.sum(axis=1)


def numpy_dots(A, x, Z):
    for i in range(A.shape[0]):
        Z[i] = np.sum(A[i, :] * x)


def numpy_row_squares(A, Z):
    for i in range(A.shape[0]):
        Z[i] = np.sum(A[i, :] * A[i, :])


def lanes(dtype) -> int:
    return min(vector_bytes() // np.dtype(dtype).itemsize, MAX_STATEMENT_COPIES)


def check_default(fn, args, threads: int | None = None, monkeypatch=None, **options) -> list[dict]:
    """The default-interleaved kernel (threads on) bitwise equal to the Python function and to
    the kernel with interleaving off; returns the interleaving records."""
    if threads is not None:
        monkeypatch.setenv("POLYFUSE_NUM_THREADS", str(threads))
    k = polyfuse.kernel(fn, verify=True, **options)
    plain = polyfuse.kernel(fn, verify=True, interleave=False, **options)
    reference, expected, actual = copy_args(args), copy_args(args), copy_args(args)
    fn(*reference)
    plain(*expected)
    k(*actual)
    for r, e, a in zip(reference, expected, actual):
        if isinstance(r, np.ndarray):  # bit for bit: the sign of a zero too
            np.testing.assert_array_equal(a, r)
            assert a.tobytes() == r.tobytes() == e.tobytes()
    return interleaved(k, *copy_args(args))


needs_cpu = pytest.mark.skipif(not HAS_CPU, reason="the default interleaving is the cpu target's")


@needs_cpu
@pytest.mark.parametrize("name", ["mvt", "gesummv"])
@pytest.mark.parametrize("threads", [1, 2])
def test_default_interleaves_matrix_vector_rows(name, threads, monkeypatch):
    kernel = suite.get(name)
    n = lanes(np.float64) * 3 + 5  # full groups and a remainder
    args = kernel.make_args(np.random.default_rng(3), n=n)
    records = check_default(kernel.func, args, threads, monkeypatch, **_LOOPS.get(name, {}))
    assert records and all(r["copies"] == lanes(np.float64) for r in records)


@needs_cpu
@pytest.mark.parametrize("rows", [0, 1, 2, 7, 8, 9, 23])
def test_default_remainder_rows(rows):
    rng = np.random.default_rng(rows)
    records = check_default(row_sums, (rng.standard_normal((rows, 19)), np.zeros(rows)))
    assert [r["copies"] for r in records] == ([] if rows == 1 else [lanes(np.float64)])


@needs_cpu
def test_default_max_reduction():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((21, 37)) - 9.0
    # a zero maximum reruns the row in order (passes.lanes): in order max(-0.0, 0.0) is -0.0, but
    # j = 17 shares lane 0 with j = 1 and is combined first, which gives 0.0; each copy must test
    # its own lanes' maximum, not copy 0's
    for row in (3, 13):
        A[row, 2], A[row, 17] = -0.0, 0.0
    records = check_default(row_max, (A, np.zeros(21)))
    assert records and records[0]["copies"] == lanes(np.float64)
    code = polyfuse.kernel(row_max).explain(A, np.zeros(21))["loop code"]
    assert code.count("== 0.0)") > 2  # one exact-rerun test per copy, not copy 0's for all
    for target in TARGETS:  # interleave=True (4 copies) too
        expected, actual = np.zeros(21), np.zeros(21)
        row_max(A, expected)
        polyfuse.kernel(row_max, target=target, interleave=True)(A, actual)
        assert actual.tobytes() == expected.tobytes()


@needs_cpu
def test_default_float32_gets_a_vector_of_float32_lanes(monkeypatch):
    rng = np.random.default_rng(5)
    A = rng.standard_normal((lanes(np.float32) + 3, 29)).astype(np.float32)
    records = check_default(row_sums, (A, np.zeros(A.shape[0], dtype=np.float32)), 2, monkeypatch)
    assert [r["copies"] for r in records] == [lanes(np.float32)]


@needs_cpu
def test_default_leaves_heavier_bodies_alone():
    rng = np.random.default_rng(6)
    assert check_default(exp_row_sums, (rng.random((12, 9)), np.zeros(12))) == []


@needs_cpu
@pytest.mark.parametrize("fn", [numpy_row_sums, numpy_row_squares])
def test_numpy_sums_are_not_interleaved(fn):
    """NumPy sums (``reassoc``) are summed in blocks of vector lanes (passes.blocked_sums) for
    NumPy's accuracy; a row's sum of squares is no matrix-vector row (nothing shared by the rows)."""
    A = np.random.default_rng(7).random((16, 5000))
    args = (A,) if fn is numpy_row_sums else (A, np.zeros(16))
    explanation = polyfuse.kernel(fn).explain(*args)
    assert explanation["interleaved loops"] == []
    assert explanation["blocked sums"] != []


@needs_cpu
@pytest.mark.parametrize("cols", [100, 5000])
def test_numpy_matrix_vector_rows_are_interleaved_each_in_its_blocks(cols):
    """A matrix-vector product's rows (``np.sum(A[i, :] * x)``, NumPy's ``A @ x``) run 8 side by
    side, each still summed in blocks, within a few ulps of NumPy."""
    rng = np.random.default_rng(7)
    A, x = rng.random((19, cols)), rng.random(cols)
    kernel = polyfuse.kernel(numpy_dots)
    explanation = kernel.explain(A, x, np.zeros(19))
    assert [d["copies"] for d in explanation["interleaved loops"]] == [lanes(np.float64)]
    assert explanation["blocked sums"] != []
    Z = np.zeros(19)
    kernel(A, x, Z)
    np.testing.assert_allclose(Z, A @ x, rtol=1e-14)


@needs_cpu
def test_explain_renders_interleaved_loops():
    args = (np.ones((9, 5)), np.zeros(9))
    text = str(polyfuse.kernel(row_sums).explain(*args))
    assert f"- loop _t0: {lanes(np.float64)} iterations side by side around (S1); own copies of s" in text


@needs_cpu
def test_interleaved_rows_are_not_gathered(monkeypatch):
    """LLVM's SLP vectorizer packed the copies' loads (one per row) into gathers, 2-4x slower than
    scalar loads on our machine: the cpu target asks for none unless POLYFUSE_VECTOR_GATHERS=1."""
    args = (np.ones((9, 5)), np.zeros(9))
    assert "gathers=off" in Options().key()
    assert "@llvm.masked.gather" not in polyfuse.kernel(row_sums).inspect_llvm(*args)
    monkeypatch.setenv("POLYFUSE_VECTOR_GATHERS", "1")
    assert "gathers=on" in Options().key()
    assert "gathers" not in Options(target="python").key()


# ---- sequential loops: interleaved only where every dependence keeps its order --------------

def scalar_target_sums(A, x, y):
    """Every row adds into y[0]: jammed, y[0] would get the rows' terms in another order."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            y[0] += A[i, j] * x[j]


def running_rows(A, x):
    """Row i reads row i - 1's result."""
    for i in range(1, A.shape[0]):
        s = 0.0
        for j in range(A.shape[1]):
            s += A[i, j]
        x[i] = x[i - 1] * 0.5 + s


def reads_carried_array(A, t, y):
    """Row i's chain reads y, which rows before it updated: jammed, row i + 1 would read y before
    row i's updates."""
    for i in range(A.shape[0]):
        t[i] = 0.0
        for j in range(A.shape[1]):
            t[i] += A[i, j] * y[j]
        for j in range(A.shape[1]):
            y[j] += A[i, j] * t[i]


@needs_cpu
@pytest.mark.parametrize("name", ["atax", "bicg"])
@pytest.mark.parametrize("threads", [1, 2])
def test_sequential_row_loops_interleaved(name, threads, monkeypatch):
    """atax / bicg: ``y[j] += A[i, j] * tmp[i]`` over a sequential ``i``: each y[j] still gets
    its terms in row order, and ``tmp[i]`` belongs to one row."""
    kernel = suite.get(name)
    m, n = lanes(np.float64) * 2 + 3, lanes(np.float64) + 5  # remainders in both loops
    args = kernel.make_args(np.random.default_rng(8), m=m, n=n)
    # blas=False: the loop as written (blas=True also has it in chunks with partial sums,
    # passes.private_sums, whose row loops are interleaved the same way: tests/passes/test_private_sums.py)
    records = check_default(kernel.func, args, threads, monkeypatch, blas=False)
    assert [(r["copies"], bool(r["carried"])) for r in records] == [(lanes(np.float64), True)]


@needs_cpu
@pytest.mark.parametrize("fn", [scalar_target_sums, running_rows, reads_carried_array])
def test_sequential_loops_left_alone_when_a_dependence_would_turn(fn):
    """(Each fails, with wrong results, when the check lets every array through.)"""
    rng = np.random.default_rng(9)
    A = rng.standard_normal((19, 11))
    args = {scalar_target_sums: (A, rng.standard_normal(11), np.zeros(1)),
            running_rows: (A, np.zeros(19)),
            reads_carried_array: (A, np.zeros(19), rng.standard_normal(11))}[fn]
    records = check_default(fn, args)
    assert not any(r["carried"] or r["loop"] == "_t0" for r in records), records


@pytest.mark.parametrize("target", TARGETS)
def test_sequential_loop_interleaved_on_request_too(target):
    kernel = suite.get("atax")
    args = kernel.make_args(np.random.default_rng(10), m=11, n=6)
    records = check_exact(kernel.func, args, target=target, blas=False)  # (as above)
    assert [(r["copies"], r["carried"]) for r in records] == [(INTERLEAVE, ("y",))]
    text = str(polyfuse.kernel(kernel.func, target=target, interleave=True).explain(*copy_args(args)))
    assert "a sequential loop: each element of y still updated in its order" in text
