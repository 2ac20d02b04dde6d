"""Scalar expansion: accumulators get one slot per iteration when that lets loops reorder."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python, define

import polyfuse
from polyfuse.model import ir
from polyfuse.schedule.expansion import isl_text

MATMUL_ACC = '''def mm(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            acc = 0.0
            for k in range(A.shape[1]):
                acc += A[i, k] * B[k, j]
            C[i, j] = acc
'''


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_accumulator_is_expanded_and_j_moves_innermost(target):
    fn = define(MATMUL_ACC, "mm")
    args = (np.random.rand(5, 7), np.random.rand(7, 6), np.zeros((5, 6)))
    # blas=False: with BLAS the accumulator folds into C[i, j] and the product runs as one call
    kernel = polyfuse.kernel(fn, target=target, verify=True, blas=False)
    check_against_python(fn, args, target=target, kernel=kernel)
    decisions = kernel.explain(*args)["loop order"]
    assert any(d["applied"] and "expanding acc along j" in d["reason"] for d in decisions)


def test_scalar_live_after_the_loop_is_not_expanded():
    # s carries a value out of the j loop: one slot per j would change what C[i] reads
    fn = define('''def f(A, B, C):
    for i in range(A.shape[0]):
        s = 0.0
        for j in range(B.shape[1]):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
        C[i] = s
''', "f")
    args = (np.random.rand(4, 3), np.random.rand(3, 5), np.zeros(4))
    kernel = check_against_python(fn, args, target="cpu")
    assert not any("expanding" in d["reason"] for d in kernel.explain(*args)["loop order"])


def test_isl_text_of_integer_expressions():
    n = ir.Var("n", "int64")
    expr = ir.BinOp("min", ir.BinOp("//", n, ir.int_const(2), "int64", True), ir.int_const(7), "int64", True)
    assert isl_text(expr) == "min(floor(n/2), (7))"
    with pytest.raises(ValueError):
        isl_text(ir.Select(ir.Compare("<", n, ir.int_const(0)), n, n, "int64", True))


EMPTY_STRIDED_LOOP = '''
def kern(n, A):
    for i in range(0, n, 2):
        s = 0.0
        for j in range(n):
            s += A[i]
        A[0] = s
'''


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_expanded_scalar_of_an_empty_loop_has_shape_zero(target):
    """``s`` expanded along ``i`` has extent ``last i + 1``, which is -1 when the loop is empty
    (n = 0): the call used to fail with "negative shape" (found by random programs)."""
    fn = define(EMPTY_STRIDED_LOOP, "kern")
    for n in (0, 1, 2, 7):
        check_against_python(fn, (n, np.arange(n + 4, dtype=np.float64)), target=target)


def test_the_compile_keeps_the_dependences_the_scheduler_computed_for_the_expanded_program(monkeypatch):
    """The expanded program's dependences are computed once, by the scheduler (the schedule was
    verified against them), not again by the compiler."""
    from polyfuse import compiler
    from polyfuse.analysis import dependences

    computed: list[str] = []
    compute = dependences.compute_dependences

    def counted(scop, schedule=None):
        computed.append(scop.name)
        return compute(scop, schedule)

    monkeypatch.setattr(compiler, "compute_dependences", counted)
    fn = define(MATMUL_ACC, "mm")
    args = (np.random.rand(5, 7), np.random.rand(7, 6), np.zeros((5, 6)))
    variant = polyfuse.kernel(fn, target="python", verify=True, blas=False, cache=False).compile(*args)
    sched = variant.stages["schedule"]
    assert sched.scop is not None and sched.scop is not variant.stages["lift"]  # expanded
    assert computed == ["mm"]  # the program's own; none for the expanded one
    assert variant.stages["verify"] == "every dependence respected"
