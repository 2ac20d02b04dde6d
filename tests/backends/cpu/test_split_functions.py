"""llvm.split_functions: one module per exported function, the global variables in a module of
their own (declared in the others), internal helpers copied where they are called."""

from __future__ import annotations

import ctypes

import pytest
from conftest import HAS_CPU

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")

MODULE = """\
@flag = local_unnamed_addr global i64 0
@table = private unnamed_addr constant [2 x i64] [i64 3, i64 4]

define internal i64 @helper(i64 %x) {
  %y = mul i64 %x, 2
  ret i64 %y
}

define i64 @"k.phase0"(i64 %x) {
  %y = call i64 @helper(i64 %x)
  store i64 %y, ptr @flag
  ret i64 %y
}

define i64 @"k.phase0.region"(i64 %x) {
  %v = load i64, ptr @flag
  %p = getelementptr [2 x i64], ptr @table, i64 0, i64 1
  %t = load i64, ptr %p
  %y = add i64 %v, %t
  ret i64 %y
}
"""


def test_each_exported_function_gets_a_module_and_the_globals_one():
    from polyfuse.backends.cpu.llvm import split_functions

    pieces = split_functions(MODULE)
    assert pieces is not None and set(pieces) == {"", "k.phase0", "k.phase0.region"}
    assert "@flag = local_unnamed_addr global i64 0" in pieces[""] and "define" not in pieces[""]
    for name in ("k.phase0", "k.phase0.region"):
        assert "@flag = external local_unnamed_addr global i64\n" in pieces[name]
        assert pieces[name].count("define i64 @") == 1
    assert "@helper" in pieces["k.phase0"] and "@helper" not in pieces["k.phase0.region"]


def test_the_pieces_link_and_share_the_global():
    import llvmlite.binding as llvm
    from polyfuse.backends.cpu.llvm import _initialize, _target_machine, split_functions

    pieces = split_functions(MODULE)
    assert pieces is not None
    base = llvm.parse_assembly(pieces.pop(""))
    engine = llvm.create_mcjit_compiler(base, _target_machine(_initialize()))
    for name, text in pieces.items():
        module = llvm.parse_assembly(text)
        module.name = name
        engine.add_module(module)
    kind = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)
    phase = kind(engine.get_function_address("k.phase0"))
    region = kind(engine.get_function_address("k.phase0.region"))
    assert phase(5) == 10 and region(0) == 14  # the flag the first one stored, plus table[1]


def test_a_global_of_another_form_keeps_the_module_whole():
    from polyfuse.backends.cpu.llvm import split_functions

    assert split_functions(MODULE.replace("global i64 0", "global [2 x i64] zeroinitializer")) is None


def test_the_first_call_counts_its_llvm_work():
    """A function's optimisation and code generation on first use is compile time the bench
    reports (``build_seconds``); a second call builds nothing more."""
    import numpy as np

    import polyfuse

    def double(A, B):
        for i in range(A.shape[0]):
            B[i] = 2.0 * A[i]

    kernel = polyfuse.kernel(double, cache=False)
    A, B = np.arange(16.0), np.zeros(16)
    backend = kernel.compile(A, B).backend
    assert backend.build_seconds == 0.0
    kernel(A, B)
    built = backend.build_seconds
    assert built > 0.0
    kernel(A, B)
    assert backend.build_seconds == built
    np.testing.assert_array_equal(B, 2.0 * A)


def test_a_function_generated_again_in_the_process_reuses_its_machine_code(monkeypatch):
    """Two kernels whose function has the same IR and LLVM settings: the second links the first's
    machine code (no optimiser run) and keeps it with its objects; other settings generate anew."""
    import numpy as np
    from polyfuse.backends.cpu import llvm as backend_llvm

    import polyfuse

    def triple(A, B):
        for i in range(A.shape[0]):
            B[i] = 3.0 * A[i] - 1.0

    runs: list[int] = []
    # the process's machine code by IR starts empty: another test (or a rerun of this one) that
    # generated the same function earlier would leave the first kernel nothing to optimise
    monkeypatch.setattr(backend_llvm, "_OBJECTS", type(backend_llvm._OBJECTS)())
    optimize = backend_llvm.optimize
    monkeypatch.setattr(backend_llvm, "optimize", lambda module, artifact, *name: (runs.append(1), optimize(module, artifact, *name)))
    A = np.arange(16.0)
    made = []
    for opt_level in (3, 3, 2):
        B = np.zeros(16)
        kernel = polyfuse.kernel(triple, cache=False, opt_level=opt_level)
        backend = kernel.compile(A, B).backend
        runs.clear()
        kernel(A, B)
        expected = np.zeros(16)
        triple(A, expected)
        np.testing.assert_array_equal(B, expected)
        made.append((len(runs), dict(backend.artifact.objects)))
    (first, objects), (again, reused), (other, _) = made
    assert first >= 1 and again == 0 and other >= 1
    assert reused == objects  # the same machine code, stored with the second kernel's objects
