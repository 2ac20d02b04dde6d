"""Differential test: every suite kernel, every fusion mode and target, against its Python original."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import FUSES, TARGETS, assert_same_arrays, copy_args

import polyfuse
from polyfuse.bench import suite

NAMES = list(suite.KERNELS)

#: The kernels whose transformed loop programs have forms no other kernel's has: time-tiled
#: stencils (floors, mins and maxes of tile coordinates, skewed bounds) and the loop-AST passes of
#: lu, cholesky (pivot blocks) and floyd-warshall (pivot rows).  The python target runs these
#: under fuse="smart" as well, so that its code for those forms is run.
PYTHON_TRANSFORMED = ("jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d", "seidel-2d", "lu", "cholesky", "floyd-warshall")


def _cases():
    """Every kernel under every fusion mode on the cpu target, whose code is what users run; the
    python target under fuse="none" (the program as written), and "smart" for the kernels of
    ``PYTHON_TRANSFORMED``.  The schedule a mode chooses does not depend on the target (the cpu
    cases check it under smart and max, with ``verify=True``); what the python target adds is its
    own code, whose transformed forms the property tests of
    tests/end_to_end/test_programs_hypothesis.py (python, every fusion mode) and those kernels
    run (as tests/corpus/test_corpus.py does for the corpus)."""
    for name in NAMES:
        for fuse in FUSES:
            for target in TARGETS:
                value = getattr(target, "values", (target,))[0]
                if value == "python" and fuse != "none" and not (fuse == "smart" and name in PYTHON_TRANSFORMED):
                    continue
                marks = getattr(target, "marks", ())
                yield pytest.param(name, fuse, value, marks=marks, id=f"{name}-{fuse}-{value}")


@pytest.mark.usefixtures("one_lift_per_program")  # a kernel's variants are consecutive tests
@pytest.mark.parametrize("name, fuse, target", list(_cases()))
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
