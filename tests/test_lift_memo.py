"""polyfuse/lift_memo.py: a function's variants share one lift, scalar check and dependence
analysis, and only when nothing the lift reads has changed."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python, define

import polyfuse
from polyfuse import lift_memo
from polyfuse.model.loop_ast import render

SCALED = """
def scaled(A, B):
    for i in range(A.shape[0]):
        B[i] = A[i] * C + helper(A[i])
"""
HELPER = "def helper(x):\n    return x + 1.0\n"
OTHER_HELPER = "def helper(x):\n    return x - 1.0\n"


def _function(c: float = 2.0):
    helper = define(HELPER)
    return define(SCALED, namespace={"C": c, "helper": helper})


def _args(dtype=np.float64):
    return np.arange(6, dtype=dtype), np.zeros(6, dtype=dtype)


def _variant(fn, args=None, **options):
    kernel = polyfuse.kernel(fn, verify=True, cache=False, **options)
    check_against_python(fn, args or _args(), kernel=kernel)
    return kernel.compile(*(args or _args()))


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setenv("POLYFUSE_LIFT_MEMO", "1")
    lift_memo.clear()
    yield
    lift_memo.clear()


def _same_front(first, second) -> bool:
    return all(first.stages[s] is second.stages[s] for s in lift_memo.STAGES)


def test_the_variants_of_a_function_share_its_front_half_and_compile_as_a_cold_compile():
    fn = _function()
    none = _variant(fn, target="python", fuse="none")
    smart = _variant(fn, target="python", fuse="smart")
    assert _same_front(none, smart)
    assert smart.stages.seconds["lift"] == 0.0
    lift_memo.clear()
    cold = _variant(fn, target="python", fuse="smart")
    assert not _same_front(smart, cold)
    # the later stages saw what a cold compile leaves them: the deadline's tallies, the same code
    for tally in ("spent", "blocks", "skipped", "timed_out"):
        assert getattr(smart.stages["deadline"], tally) == getattr(cold.stages["deadline"], tally)
    assert list(smart.stages.outputs) == list(cold.stages.outputs)
    assert render(smart.stages["loop ast"]) == render(cold.stages["loop ast"])


def test_a_front_half_is_not_reused_for_another_signature_blas_or_knob(monkeypatch):
    fn = _function()
    first = _variant(fn, target="python")
    assert not _same_front(first, _variant(fn, _args(np.float32), target="python"))
    assert not _same_front(first, _variant(fn, target="python", blas=False))
    monkeypatch.setenv("POLYFUSE_ISL_BUDGET", "2000000")
    assert not _same_front(first, _variant(fn, target="python"))
    monkeypatch.delenv("POLYFUSE_LIFT_MEMO")  # off by default
    off = _variant(fn, target="python")
    assert not _same_front(off, _variant(fn, target="python"))


def test_a_front_half_is_not_reused_after_a_global_the_function_reads_changes():
    fn = _function(2.0)
    first = _variant(fn, target="python")
    fn.__globals__["C"] = 3.0  # a constant read from the globals
    second = _variant(fn, target="python", fuse="none")
    assert not _same_front(first, second)
    fn.__globals__["helper"] = define(OTHER_HELPER)  # a helper inlined
    third = _variant(fn, target="python", fuse="max")
    assert not _same_front(second, third)
    assert _same_front(third, _variant(fn, target="python", fuse="smart"))


def test_a_front_half_that_raises_is_not_kept():
    fn = define("def bad(A):\n    for i in range(A.shape[0]):\n        A[i] = s\n        s = 1.0\n")
    for fuse in ("none", "smart"):
        with pytest.raises(polyfuse.UnsupportedError, match="'s'"):
            polyfuse.kernel(fn, target="python", fuse=fuse).compile(np.zeros(3))
    assert not lift_memo._kept
