"""benchmarks/gcc_stencils.py's C loops compute what the suite's Python stencils compute."""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib
import shutil

import numpy as np
import pytest

from polyfuse.bench import suite

_PATH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "gcc_stencils.py"


def _module():
    spec = importlib.util.spec_from_file_location("gcc_stencils", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
@pytest.mark.parametrize("name", ["jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d", "seidel-2d"])
def test_c_loops_match_the_suite(name, tmp_path):
    gcc_stencils = _module()
    sk = suite.get(name)
    sizes = dict(sk.sizes["test"])
    assert set(gcc_stencils.preset_sizes(sk, "medium")) == set(sizes)  # PolyBench's MEDIUM names the same sizes
    base = sk.make_args(np.random.default_rng(0), **sizes)
    lib = gcc_stencils.compile_c(name, sizes, "gcc", ["-O3", "-march=native"], str(tmp_path))
    c_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in base)
    lib.kernel(*[ctypes.c_void_p(a.ctypes.data) for a in c_args if isinstance(a, np.ndarray)])
    py_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in base)
    sk.func(*py_args)
    for c, p in zip(c_args, py_args):
        if isinstance(p, np.ndarray):
            np.testing.assert_allclose(c, p, rtol=1e-12, atol=1e-12)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_ceiling_times_both_compilers_in_cache(tmp_path, monkeypatch):
    gcc_stencils = _module()
    monkeypatch.setitem(gcc_stencils.IN_CACHE, "jacobi-1d", {"n": 20})
    monkeypatch.setattr(gcc_stencils, "MIN_UPDATES", 1000)
    for sub in ("preset", "in_cache"):
        (tmp_path / sub).mkdir()
    c = gcc_stencils.ceiling("jacobi-1d", "test", 1, "gcc", ["-O3"], str(tmp_path))
    steps = c["in_cache_sizes"]["tsteps"]
    assert c["in_cache_sizes"]["n"] == 20 and steps * gcc_stencils.updates_per_step("jacobi-1d", {"n": 20}) >= 990
    assert set(c["ns_per_update"]) == {"gcc", "gcc in cache", "polyfuse 1T", "polyfuse 1T in cache"}
    assert all(v > 0 for v in c["ns_per_update"].values()) and c["ceiling"] > 0
