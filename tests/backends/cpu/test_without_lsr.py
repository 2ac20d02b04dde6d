"""``POLYFUSE_TILED_LSR=0``: the machine code of time-tiled nests is generated without LLVM's loop
strength reduction (backends/cpu/llvm.py ``without_lsr``): which functions, the default, the results."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU, compiled_suite_kernel

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def test_the_phases_of_a_time_tiled_nest_go_without_lsr_and_compute_the_same(monkeypatch):
    monkeypatch.setenv("POLYFUSE_TILED_LSR", "0")
    spec, args, kernel, variant = compiled_suite_kernel("jacobi-2d")
    assert any(d.applied for d in variant.stages["schedule"].time_tiling)
    assert variant.stages["loop ast"].time_tiled
    artifact = variant.backend.artifact
    assert artifact.without_lsr == ("jacobi_2d.phase0", "jacobi_2d.phase0.region")
    ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel(*ours)
    spec.func(*expected)
    for name in spec.outputs:
        position = list(spec.func.__code__.co_varnames).index(name)
        np.testing.assert_allclose(ours[position], expected[position], rtol=1e-12)


def test_untiled_kernels_keep_lsr(monkeypatch):
    monkeypatch.setenv("POLYFUSE_TILED_LSR", "0")
    _, _, _, variant = compiled_suite_kernel("gemm")
    assert not variant.stages["loop ast"].time_tiled
    assert variant.backend.artifact.without_lsr == ()


def test_by_default_lsr_runs_everywhere(monkeypatch):
    monkeypatch.delenv("POLYFUSE_TILED_LSR", raising=False)
    _, _, _, variant = compiled_suite_kernel("jacobi-2d")
    assert variant.stages["loop ast"].time_tiled
    assert variant.backend.artifact.without_lsr == ()
