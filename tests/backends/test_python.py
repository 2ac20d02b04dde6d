"""The Python backend: generated source is plain Python that runs the schedule's loops."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from polyfuse.backends.python import compile_python, parameters

import polyfuse
from polyfuse.model import ir


def saxpy(n, a, X, Y):
    for i in range(n):
        Y[i] = a * X[i] + Y[i]


def test_generated_source_is_python_and_runs():
    k = polyfuse.kernel(saxpy, target="python", verify=True)
    variant = k.compile(4, 2.0, np.ones(4), np.ones(4))
    backend = variant.backend
    assert backend.source.startswith("def saxpy(")
    compile(backend.source, "<check>", "exec")
    assert backend.parameters[:4] == ("n", "a", "X", "Y")
    assert parameters(variant.program) == backend.parameters
    Y = np.ones(4)
    k(4, 2.0, np.arange(4.0), Y)
    assert list(Y) == [1, 3, 5, 7]


def test_compile_python_from_program():
    k = polyfuse.kernel(saxpy, target="python")
    program = k.compile(3, 1.0, np.ones(3), np.ones(3)).program
    kernel = compile_python(program)
    X, Y = np.arange(3.0), np.zeros(3)
    env = {"n": 3, "a": 2.0, "X": X, "Y": Y, "X__shape0": 3, "Y__shape0": 3}
    kernel(env)
    assert list(Y) == [0, 2, 4]


def test_scalars_are_typed_zero_d_arrays():
    def f(n, A, B):
        for i in range(n):
            s = A[i]
            s *= 2
            B[i] = s

    A = np.arange(4, dtype=np.float32)
    B = np.zeros(4, np.float32)
    polyfuse.kernel(f, target="python")(4, A, B)
    assert B.dtype == np.float32 and list(B) == [0, 2, 4, 6]


def test_each_signature_compiles_once():
    k = polyfuse.kernel(saxpy, target="python")
    for n in (2, 3, 4):
        k(n, 1.0, np.ones(n), np.ones(n))
    k(2, 1.0, np.ones(2, np.float32), np.ones(2, np.float32))
    assert len(k.signatures) == 2
    k(1, 1.0, np.ones(1), np.ones(1))  # axes of extent 1 broadcast in NumPy: a signature of their own
    assert len(k.signatures) == 3


def test_decorator_forms():
    @polyfuse.kernel
    def plain(n, A):
        for i in range(n):
            A[i] = 1.0

    @polyfuse.kernel(target="python", fuse="none")
    def configured(n, A):
        for i in range(n):
            A[i] = 2.0

    assert isinstance(plain, polyfuse.Kernel) and plain.py_func.__name__ == "plain"
    assert configured.options.fuse == "none"
    A = np.zeros(3)
    configured(3, A)
    assert list(A) == [2.0] * 3


def nested_rounds(x, out):
    for i in range(x.shape[0]):
        out[i] = float(int(round(float(int(round(float(int(round(float(int(round(x[i]))))))))))))


def test_shared_operands_are_written_once():
    """``int(x)`` tests one ``x`` about ten times (NaN, infinities, range): a tree walk wrote four
    nested ``int(round(...))`` as 1.2 MB of source; each shared operand is computed once now."""
    k = polyfuse.kernel(nested_rounds, target="python")
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.7])
    out, expected = np.zeros(5), np.zeros(5)
    k(x, out)
    nested_rounds(x, expected)
    assert out.tolist() == expected.tolist()
    assert len(k.compile(x, out).backend.source) < 20_000
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        k(np.array([1.0, np.nan]), np.zeros(2))
    with pytest.raises(OverflowError):
        k(np.array([1e300]), np.zeros(1))


def test_a_value_named_in_one_branch_is_computed_again_after_it():
    """A shared operand first computed in a branch that may not run is computed again where it
    is needed outside that branch (``ir.SharedPython``'s arms)."""
    x = ir.Load("a", (ir.Var("i", "int64"),), "float64")
    s = ir.BinOp("*", x, x, "float64")
    picked = ir.Select(ir.Compare(">", x, ir.Const(0.0, "float64")), ir.BinOp("+", s, s, "float64"),
                       ir.Const(1.0, "float64"), "float64")
    either = ir.BoolOp("or", (ir.Compare(">", x, ir.Const(5.0, "float64")), ir.Compare(">", s, ir.Const(4.0, "float64"))))
    exprs = (ir.BinOp("+", picked, s, "float64"), ir.Select(either, s, ir.BinOp("-", s, s, "float64"), "float64"))
    shared = ir.SharedPython(exprs, "_v", itertools.count())
    texts = [shared.render(e) for e in exprs]
    assert texts[0].count(":= (_v0 * _v0)") == 2  # ``s``: once in the branch, once after it
    for a in (np.array([-3.0]), np.array([3.0]), np.array([1.5]), np.array([6.0])):
        env = {"a": a, "i": 0, "_np": np}
        assert [eval(t, env) for t in texts] == [eval(ir.to_python(e), {"a": a, "i": 0, "_np": np}) for e in exprs]
