"""polyfuse.interleave: iterations of a parallel loop interleaved around float reductions.

The transformation must never change a result, not even in the last bit: every test compares
with the plain Python function exactly, on both backends (the Python backend runs the same loop
AST, so it checks the rewrite without LLVM)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU, assert_same_arrays, copy_args, define
from hypothesis import event, given, note, settings
from hypothesis import strategies as st
from program_gen import COMMON, programs, run_plain

import polyfuse
from polyfuse.bench import suite
from polyfuse.passes.interleave import INTERLEAVE

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
    k = polyfuse.kernel(fn, interleave=True, verify=True, **options)
    plain = polyfuse.kernel(fn, verify=True, **options)
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


@pytest.mark.parametrize("target", TARGETS)
def test_loop_code_has_full_groups_and_a_remainder(target):
    args = (np.ones((6, 5)), np.zeros(6))
    code = polyfuse.kernel(row_sums, target=target, interleave=True).explain(*args)["loop code"]
    assert f"range(0, A.shape[0], {INTERLEAVE}):  # parallel" in code
    assert f"if ((_t0 + {INTERLEAVE}) <= A.shape[0]):" in code
    assert "for _t0_rest in range(_t0, A.shape[0]):" in code


def test_off_by_default_and_by_environment(monkeypatch):
    args = (np.ones((6, 5)), np.zeros(6))
    assert interleaved(polyfuse.kernel(row_sums), *args) == []
    monkeypatch.setenv("POLYFUSE_INTERLEAVE", "0")
    assert interleaved(polyfuse.kernel(row_sums, interleave=True), *args) == []


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
    records = check_exact(kernel.func, args, target=TARGETS[-1])
    assert records, f"{name} has a float reduction inside a parallel loop"


@settings(max_examples=12, **COMMON)
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
