"""The dependence analysis is bounded: past isl's operation budget, memory-based dependences.

Regressions b-g (tests/end_to_end/test_regressions.py) spent minutes in isl's exact dataflow.
Now every exact analysis of one compile spends from one budget; an array whose analysis fails or
runs out gets every earlier access of an element as a dependence (a superset), says so in
explain(), and the verifier checks it in memory order.  A tiny budget must still give the
Python function's results.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse.analysis.dependences import OVER_BUDGET, flow, memory_based, on_array
from polyfuse.model.scop import isl_name
from tests.conftest import define

SRC = '''
def f(n, A, B, C):
    for i in range(1, n):
        t = A[i - 1] * 0.5
        A[i] = A[i] + t
    for i in range(n):
        B[i] = A[i] + A[n - 1 - i]
    for i in range(n - 1):
        C[i] = B[i + 1] - B[i]
'''


def _run(fn, kernel, n=9):
    rng = np.random.default_rng(0)
    want = [rng.uniform(-1, 1, n) for _ in range(3)]
    got = [a.copy() for a in want]
    fn(n, *want)
    kernel(n, *got)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    return kernel.explain(n, *got)


@pytest.mark.parametrize("fuse", ["smart", "max"])
@pytest.mark.parametrize("target", ["python", "cpu"])
def test_tiny_budget_falls_back_to_memory_based_dependences(monkeypatch, target, fuse):
    monkeypatch.setenv("POLYFUSE_ISL_BUDGET", "200")
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    fn = define(SRC)
    explained = _run(fn, polyfuse.kernel(fn, target=target, fuse=fuse, verify=True))
    bases = {d["basis"] for d in explained["dependences"]}
    assert OVER_BUDGET in bases


def test_default_budget_keeps_exact_dependences():
    fn = define(SRC)
    explained = _run(fn, polyfuse.kernel(fn, target="python", verify=True))
    assert {d["basis"] for d in explained["dependences"]} == {"exact"}


def test_memory_based_is_isl_may_dataflow_without_kills():
    fn = define(SRC)
    n = 9
    variant = polyfuse.kernel(fn, target="python").compile(n, np.zeros(n), np.zeros(n), np.zeros(n))
    scop = variant.stages["lift"]
    for array in ("A", "B", "t"):
        r, w = (on_array(m, isl_name(array)) for m in (scop.reads(), scop.writes()))
        for sink, source in ((r, w), (w, r), (w, w)):
            isl_answer = flow(sink, source, scop.schedule, may=True).get_may_dependence()
            assert memory_based(sink, source, scop.schedule).is_equal(isl_answer)
