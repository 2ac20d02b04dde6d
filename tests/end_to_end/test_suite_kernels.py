"""Differential test: every suite kernel, every fusion mode and target, against its Python original."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import FUSES, TARGETS, assert_same_arrays, copy_args

import polyfuse
from polyfuse.bench import suite

NAMES = list(suite.KERNELS)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fuse", FUSES)
@pytest.mark.parametrize("name", NAMES)
def test_suite_kernel_matches_python(name, fuse, target):
    sk = suite.KERNELS[name]
    k = polyfuse.kernel(sk.func, target=target, fuse=fuse, verify=True)
    assert k.py_func is sk.func
    params = list(inspect.signature(sk.func).parameters)
    for seed in (0, 1):
        args = sk.make_args(np.random.default_rng(seed), **sk.sizes["test"])
        expected = copy_args(args)
        k.py_func(*expected)
        actual = copy_args(args)
        assert k(*actual) is None
        assert_same_arrays(expected, actual, rtol=1e-9, names=params)
    # the second call reused the compiled variant
    assert len(k.signatures) == 1


def test_suite_outputs_name_parameters():
    for sk in suite.KERNELS.values():
        params = set(inspect.signature(sk.func).parameters)
        assert set(sk.outputs) <= params, sk.name
        assert {"test", "quick", "bench"} <= set(sk.sizes), sk.name


@pytest.mark.parametrize("fuse, nests", [("none", 3), ("smart", 1), ("max", 1)])
def test_chain3_fused_loop_nests(fuse, nests):
    sk = suite.KERNELS["chain3"]
    k = polyfuse.kernel(sk.func, target="python", fuse=fuse, verify=True)
    args = sk.make_args(np.random.default_rng(0), **sk.sizes["test"])
    e = k.explain(*args)
    assert e.fused_loop_nests() == nests
    decisions = e["fusion"]
    assert len(decisions) == 2
    assert all(d["fused"] == (fuse != "none") for d in decisions)
    for d in decisions:
        assert set(d) >= {"first", "second", "fused", "reason", "dependences"}
        assert d["reason"]
        # consecutive chain stages exchange a temporary through a RAW dependence
        assert any(dep.startswith("RAW on T") for dep in d["dependences"]), d
    if fuse == "none":
        assert all("none" in d["reason"] for d in decisions)
