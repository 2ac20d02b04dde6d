"""``POLYFUSE_TILED_LSR=0``: the machine code of time-tiled nests is generated without LLVM's loop
strength reduction (backends/cpu/llvm.py ``without_lsr``): which functions, the default, the results."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import HAS_CPU, compiled_suite_kernel

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def test_the_phases_of_a_time_tiled_nest_go_without_lsr_and_compute_the_same(monkeypatch):
    """With ``POLYFUSE_TILED_LOAD_PRE=0`` too (one compile for both A/B knobs): those functions are
    optimised without GVN's load PRE across iterations (``without_load_pre``), which changes them."""
    monkeypatch.setenv("POLYFUSE_TILED_LSR", "0")
    monkeypatch.setenv("POLYFUSE_TILED_LOAD_PRE", "0")
    spec, args, kernel, variant = compiled_suite_kernel("jacobi-2d")
    assert any(d.applied for d in variant.stages["schedule"].time_tiling)
    assert variant.stages["loop ast"].time_tiled
    artifact = variant.backend.artifact
    assert artifact.without_lsr == ("jacobi_2d.phase0", "jacobi_2d.phase0.region")
    assert artifact.without_load_pre == artifact.without_lsr
    assert artifact.optimized_ir != dataclasses.replace(artifact, without_load_pre=()).optimized_ir
    ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel(*ours)
    spec.func(*expected)
    for name in spec.outputs:
        position = list(spec.func.__code__.co_varnames).index(name)
        np.testing.assert_array_equal(ours[position], expected[position])


def test_untiled_kernels_keep_lsr(monkeypatch):
    monkeypatch.setenv("POLYFUSE_TILED_LSR", "0")
    _, _, _, variant = compiled_suite_kernel("gemm")
    assert not variant.stages["loop ast"].time_tiled
    assert variant.backend.artifact.without_lsr == variant.backend.artifact.without_load_pre == ()


def test_by_default_lsr_runs_everywhere(monkeypatch):
    monkeypatch.delenv("POLYFUSE_TILED_LSR", raising=False)
    _, _, _, variant = compiled_suite_kernel("jacobi-2d")
    assert variant.stages["loop ast"].time_tiled
    assert variant.backend.artifact.without_lsr == variant.backend.artifact.without_load_pre == ()

