"""Traffic estimates of fusion decisions (polyfuse.traffic), as explain() shows them."""

from __future__ import annotations

import numpy as np

import polyfuse
from polyfuse.analysis.traffic import evaluate
from polyfuse.bench.suite import chain3


def scale_then_add(A, T, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            T[i, j] = 2.0 * A[i, j]
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i, j] = T[i, j] + A[i, j]


def test_chain_fusion_saves_one_pass_over_each_intermediate():
    n = 1000
    A, B, out = np.ones(n), np.ones(n), np.zeros(n)
    fusion = polyfuse.kernel(chain3).explain(A, B, out)["fusion"]
    assert [r["fused"] for r in fusion] == [True, True]
    first = fusion[0]
    assert first["traffic"]["shared"] == ("T1",)
    here = first["at_these_sizes"]
    assert here["saved_bytes"] == n * 8  # one pass over T1
    assert here["footprint_bytes"] <= 64 and here["footprint_fits"] == "L1"  # a few elements per i


def test_footprint_of_a_row_fused_loop_grows_with_the_row():
    rows, cols = 30, 500
    A, T, out = np.ones((rows, cols)), np.zeros((rows, cols)), np.zeros((rows, cols))
    kernel = polyfuse.kernel(scale_then_add)
    record = next(r for r in kernel.explain(A, T, out)["fusion"] if r["depth"] == 0)
    assert record["fused"]
    here = record["at_these_sizes"]
    assert set(record["traffic"]["shared"]) == {"A", "T"}
    assert here["saved_bytes"] == 2 * rows * cols * 8
    assert here["footprint_bytes"] == 3 * cols * 8  # one i: a row of A, T and out
    text = str(kernel.explain(A, T, out))
    assert "traffic: saves" in text and "fits L1" in text


def test_the_estimate_is_per_call():
    small = np.ones((4, 6)), np.zeros((4, 6)), np.zeros((4, 6))
    big = np.ones((4, 60_000)), np.zeros((4, 60_000)), np.zeros((4, 60_000))
    kernel = polyfuse.kernel(scale_then_add)
    small_record = next(r for r in kernel.explain(*small)["fusion"] if r["depth"] == 0)
    big_record = next(r for r in kernel.explain(*big)["fusion"] if r["depth"] == 0)
    assert small_record["at_these_sizes"]["footprint_fits"] == "L1"
    assert big_record["at_these_sizes"]["footprint_bytes"] == 3 * 60_000 * 8
    assert big_record["at_these_sizes"]["footprint_fits"] != "L1"


def test_evaluate_is_none_for_unknown_names_or_no_estimate():
    assert evaluate(None, {}) is None
    assert evaluate("(8 * n)", {}) is None
    assert evaluate("(8 * min(n, 3))", {"n": 5}) == 24


def test_the_footprint_is_computed_by_explain_also_after_a_disk_cache_load(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(tmp_path / "kernels"))
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE", raising=False)
    rows, cols = 3, 50
    args = np.ones((rows, cols)), np.zeros((rows, cols)), np.zeros((rows, cols))
    compiled = polyfuse.kernel(scale_then_add)
    variant = compiled.compile(*args)
    decision = next(d for d in variant.stages["schedule"].decisions if d.traffic is not None)
    assert "footprint_bytes" not in vars(decision.traffic)  # the compile left it to explain()
    loaded = polyfuse.kernel(scale_then_add)
    assert loaded.compile(*args).from_cache
    records = [next(r for r in k.explain(*args)["fusion"] if r["depth"] == 0) for k in (compiled, loaded)]
    assert records[0]["at_these_sizes"] == records[1]["at_these_sizes"]
    assert records[1]["at_these_sizes"]["footprint_bytes"] == 3 * cols * 8
    assert records[1]["traffic"]["footprint_bytes"]  # the formula, for str(explanation)
