"""The Python backend: generated source is plain Python that runs the schedule's loops."""

from __future__ import annotations

import numpy as np
from polyfuse.backends.python import compile_python, parameters

import polyfuse


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
