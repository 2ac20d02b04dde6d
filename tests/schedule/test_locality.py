"""The loop-order pass: stride-1 loops move innermost only when legal and better."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python, define

import polyfuse
from polyfuse.bench.suite import softmax
from polyfuse.model import ir
from polyfuse.model.ir import linear_coefficient as coefficient

MATMUL_KJ = '''def mm(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            C[i, j] = 0.0
            for k in range(A.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
'''


def _loop_order(explanation) -> list[dict]:
    return explanation["loop order"]


def test_matmul_with_k_innermost_gets_j_innermost():
    fn = define(MATMUL_KJ, "mm")
    args = (np.random.rand(5, 7), np.random.rand(7, 6), np.zeros((5, 6)))
    k = check_against_python(fn, args, kernel=polyfuse.kernel(fn, target="cpu", blas=False, verify=True))  # loops
    decisions = _loop_order(k.explain(*args))
    assert any(d["applied"] and d["distributed"] and d["score_after"] > d["score_before"] for d in decisions)
    code = k.explain(*args)["loop code"].splitlines()
    innermost = [line for line in code if "S1(" in line][0]
    loop_above = code[code.index(innermost) - 1]
    j_loop = innermost.split("S1(")[1].split(",")[1].strip()  # S1(i, j, k)'s j, however tiled
    assert loop_above.strip().startswith(f"for {j_loop} in ")  # the j loop now encloses the update directly


def test_fuse_none_keeps_the_programmers_order():
    fn = define(MATMUL_KJ, "mm")
    args = (np.random.rand(4, 3), np.random.rand(3, 5), np.zeros((4, 5)))
    k = polyfuse.kernel(fn, target="python", fuse="none", verify=True)
    assert _loop_order(k.explain(*args)) == []


def test_illegal_interchange_is_not_applied():
    # A[i, j] depends on A[i - 1, j + 1]: interchanging i and j would read values not yet computed
    fn = define('''def wave(A, n):
    for i in range(1, n):
        for j in range(0, n - 1):
            A[i, j] = A[i - 1, j + 1] + A[i, j] * A[j, i]
''', "wave")
    args = (np.random.rand(6, 6), 6)
    k = check_against_python(fn, args, target="cpu")
    for decision in _loop_order(k.explain(*args)):
        assert not decision["applied"] or decision["loops"] == decision["order"]


def test_reduction_is_not_moved_innermost():
    # C[i, j] += A[i, k] * A[j, k]: k innermost walks A by rows but makes a serial reduction
    fn = define('''def syrk_like(A, C):
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            for j in range(A.shape[0]):
                C[i, j] += A[i, k] * A[j, k]
''', "syrk_like")
    args = (np.random.rand(5, 4), np.zeros((5, 5)))
    k = check_against_python(fn, args, target="cpu")
    assert not any(d["applied"] for d in _loop_order(k.explain(*args)))


def test_a_row_sum_keeps_its_reduction_innermost_numpy_or_loops():
    """x.sum(axis=-1) may reassociate (ir.BinOp.reassoc): with its reduction loop innermost it
    streams rows and vectorizes into partial sums.  The same sum as a user loop is a serial
    chain there, but walking ``x`` by columns instead read a cache line per element (a 4096 x
    4096 row sum 98-122 ms against 5.7 ms): the loop keeps its order, and the interleave pass
    runs a vector of rows side by side (exact).  ``out[i]`` read and written is one stream, so it
    scores once."""
    numpy_form = define("def rows(x):\n    return x.sum(axis=-1)\n")
    loop_form = define('''def rows_loop(x, out):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i] = out[i] + x[i, j]
''')
    x = np.random.rand(6, 9)
    explained = polyfuse.kernel(numpy_form, verify=True).explain(x)
    assert not any(d["applied"] for d in _loop_order(explained))
    assert [s["reassociable"] for s in explained["statements"]] == [False, True]
    k = check_against_python(loop_form, (x, np.zeros(6)), target="cpu", rtol=0, atol=0)
    assert not any(d["applied"] for d in _loop_order(k.explain(x, np.zeros(6))))


@pytest.mark.parametrize("statement", ["y[i] += A[i, j]", "y[i] = A[i, j] * 2.0 + y[i]", "y[j] += A[i, j]"])
def test_sums_along_the_rows_or_columns_walk_the_matrix_by_rows(statement):
    fn = define(f'''def sums(A, y):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            {statement}
''', "sums")
    args = (np.random.rand(19, 21), np.random.rand(21))
    k = check_against_python(fn, args, target="cpu", rtol=0, atol=0)
    assert not any(d["applied"] for d in _loop_order(k.explain(*args)))


def test_a_copy_written_by_columns_still_gets_its_rows_innermost():
    """The near miss: ``B[i, j] = B[i, j] + A[i, j]`` under ``for j: for i`` (every access by
    columns) is reordered, ``B[i, j]`` counted once."""
    fn = define('''def add(A, B):
    for j in range(A.shape[1]):
        for i in range(A.shape[0]):
            B[i, j] = B[i, j] + A[i, j]
''', "add")
    args = (np.random.rand(9, 11), np.random.rand(9, 11))
    k = check_against_python(fn, args, target="cpu", rtol=0, atol=0)
    assert any(d["applied"] and d["order"][-1] == "j" for d in _loop_order(k.explain(*args)))


@pytest.mark.parametrize("expr, expected", [
    (ir.BinOp("+", ir.Var("i", "int64"), ir.Var("j", "int64"), "int64", True), 1),
    (ir.BinOp("*", ir.Const(3, "int64"), ir.Var("i", "int64"), "int64", True), 3),
    (ir.Unary("neg", ir.Var("i", "int64"), "int64", True), -1),
    (ir.Var("j", "int64"), 0),
    (ir.BinOp("//", ir.Var("i", "int64"), ir.Const(2, "int64"), "int64", True), None),
])
def test_coefficient(expr, expected):
    assert coefficient(expr, "i") == expected


def _exp_loop_parallel(kernel, args) -> bool:
    """Some line computing math.exp sits right under a loop marked parallel."""
    lines = kernel.explain(*args)["loop code"].splitlines()
    return any("# parallel" in prev and "math.exp" in line for prev, line in zip(lines, lines[1:]))


@pytest.mark.parametrize("vector_math", [True, False])
def test_exp_is_split_from_the_reduction_so_it_vectorizes(vector_math):
    fn = softmax  # polyfuse.suite's: e = exp(x - m); out = e; s += e
    args = (np.random.default_rng(0).standard_normal((6, 37)), np.zeros((6, 37)))
    kernel = polyfuse.kernel(fn, target="cpu", vector_math=vector_math, verify=True)
    k = check_against_python(fn, args, kernel=kernel, rtol=1e-12)
    decisions = [d for d in _loop_order(k.explain(*args)) if d["applied"]]
    split = [d for d in decisions if "exp/log run in a parallel loop" in d["reason"]]
    assert bool(split) is vector_math
    assert _exp_loop_parallel(k, args) is vector_math
