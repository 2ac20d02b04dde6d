"""Which accumulations the NumPy lowering marks as reassociable (``ir.BinOp.reassoc``).

Only the float sums and products polyfuse itself writes for NumPy reductions (np.sum, mean,
var, norm, axis reductions, matrix products as loops) carry the mark; loops the user wrote,
running sums, max/min and integer or complex sums never do.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import define
from polyfuse.frontend import lift
from polyfuse.frontend.checker import REASSOC_CALL

import polyfuse
from polyfuse.model import ir
from polyfuse.runtime.signature import argument_of


def _marked(fn, *values, blas: bool = False) -> list[str]:
    """The source lines of the statements whose value is a reassociable accumulation."""
    names = list(inspect.signature(fn).parameters)
    scop = lift(fn, tuple(argument_of(n, v) for n, v in zip(names, values)), blas=blas)
    marks = [s for s in scop.statements for e in ir.walk(s.value) if isinstance(e, ir.BinOp) and e.reassoc]
    assert all(s.reassociable for s in marks), "the mark sits on the statement's top-level update"
    return [s.source_line for s in marks]


def k_numpy(x, X, A, y):
    t = np.sum(x) + x.mean() + np.var(x) + np.linalg.norm(x) + x.prod()
    r = X.sum(axis=-1) + X.mean(axis=1)
    c = X.sum(axis=0)
    y[:] = A @ x[:A.shape[1]] + r[:A.shape[0]] + c[:A.shape[0]]
    return t + x @ x


def test_numpy_float_reductions_are_marked():
    x, X, A, y = np.ones(8), np.ones((4, 8)), np.ones((4, 8)), np.ones(4)
    lines = _marked(k_numpy, x, X, A, y)
    # np.sum, mean, var (its sum of squares, and its mean), norm (not prod: NumPy multiplies in
    # index order, and lanes could overflow where it does not); two axis sums; the column sum;
    # A @ x as a loop; x @ x
    assert sum("t = " in line for line in lines) == 5
    assert sum("r = " in line for line in lines) == 2
    assert sum("c = " in line for line in lines) == 1
    assert sum("y[:]" in line for line in lines) == 1
    assert sum("return" in line for line in lines) == 1


def k_in_place(A, B, C):
    C[:] = A @ B


def test_a_product_summed_into_the_target_is_marked_as_loops_not_as_a_blas_call():
    A = np.ones((40, 40))
    assert _marked(k_in_place, A, A, A.copy()) == ["C[:] = A @ B"]
    assert _marked(k_in_place, A, A, A.copy(), blas=True) == []  # one Matmul statement


def k_user_loops(x, X, out):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[i] = out[i] + X[i, j]
    return s + p


def k_not_reassociated(x, n, z):
    c = np.cumsum(x)
    m = x.max() + np.min(x)
    k = np.sum(n)
    w = np.sum(z)
    return c[0] + m + k + w.real


@pytest.mark.parametrize("fn, args", [
    (k_user_loops, (np.ones(8), np.ones((3, 8)), np.zeros(3))),
    (k_not_reassociated, (np.ones(8), np.arange(8), np.ones(8, np.complex128))),
])
def test_user_loops_running_sums_extremes_integers_and_complex_are_not_marked(fn, args):
    assert _marked(fn, *args) == []


def test_the_marker_name_is_reserved():
    fn = define(f"def k(x):\n    return {REASSOC_CALL}(x[0] + x[1])\n")
    with pytest.raises(polyfuse.UnsupportedError, match="reserved for polyfuse's generated code"):
        polyfuse.kernel(fn)(np.ones(2))
