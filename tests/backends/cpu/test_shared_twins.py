"""The serial function of a parallel region that runs a time-tiled nest runs the region function on
one thread (backends/cpu/llvm.py ``shared_twins``, ``serial_through_region``) instead of being a
second copy of its loops for LLVM to optimise and generate: which phases, the functions generated,
the results (bit for bit those of the region on one thread, and the plain function's), and a
disk-cache load in another process, which links the serial function to the region's object."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import HAS_CPU, compiled_suite_kernel, copy_args

from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


def _outputs(spec, values) -> list[np.ndarray]:
    names = list(spec.func.__code__.co_varnames)
    return [values[names.index(name)] for name in spec.outputs]


def test_a_time_tiled_region_has_one_body_that_one_thread_runs(monkeypatch):
    monkeypatch.delenv("POLYFUSE_TILED_TWINS", raising=False)
    spec, args, kernel, variant = compiled_suite_kernel("jacobi-2d")
    backend = variant.backend
    assert backend.artifact.twins == (("jacobi_2d.phase0", "jacobi_2d.phase0.region"),)
    serial_ir = backend.pending["jacobi_2d.phase0"]
    assert "declare void @jacobi_2d.phase0.region(" in serial_ir and serial_ir.count("\n") < 40
    ours, expected = copy_args(args), copy_args(args)
    with threads.limited_to(1):
        kernel(*ours)
    spec.func(*expected)
    assert backend.generated == ["jacobi_2d.phase0.region", "polyfuse.barrier", "jacobi_2d.phase0"]
    for got, want in zip(_outputs(spec, ours), _outputs(spec, expected)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_serial_functions_compute_the_plain_functions_bits(monkeypatch):
    monkeypatch.delenv("POLYFUSE_TILED_TWINS", raising=False)
    for name in ("fdtd-2d", "heat-3d"):
        spec, args, kernel, variant = compiled_suite_kernel(name)
        assert variant.backend.artifact.twins
        ours, expected = copy_args(args), copy_args(args)
        with threads.limited_to(1):
            kernel(*ours)
        spec.func(*expected)
        for got, want in zip(_outputs(spec, ours), _outputs(spec, expected)):
            assert got.tobytes() == want.tobytes(), name


def test_other_regions_and_the_knob_keep_their_twins(monkeypatch):
    monkeypatch.delenv("POLYFUSE_TILED_TWINS", raising=False)
    _, _, _, variant = compiled_suite_kernel("covariance")  # regions, not time-tiled
    assert variant.backend.artifact.twins == ()
    monkeypatch.setenv("POLYFUSE_TILED_TWINS", "1")
    _, _, _, variant = compiled_suite_kernel("jacobi-2d")
    assert variant.backend.artifact.twins == ()
    assert "declare void @jacobi_2d.phase0.region(" not in variant.backend.pending["jacobi_2d.phase0"]


def test_a_packed_rows_region_has_one_body_and_the_knob_brings_its_twin_back(monkeypatch):
    # (cholesky's blocked update, passes/packed_rows.py: ~4,900 LLVM instructions per body)
    monkeypatch.delenv("POLYFUSE_PACKED_TWINS", raising=False)
    spec, args, kernel, variant = compiled_suite_kernel("cholesky")
    assert variant.backend.artifact.twins == (("cholesky.phase0", "cholesky.phase0.region"),)
    ours, expected = copy_args(args), copy_args(args)
    with threads.limited_to(1):
        kernel(*ours)
    spec.func(*expected)
    assert variant.backend.generated == ["cholesky.phase0.region", "polyfuse.barrier", "cholesky.phase0"]
    np.testing.assert_allclose(ours[1], expected[1], rtol=1e-12)
    monkeypatch.setenv("POLYFUSE_PACKED_TWINS", "1")
    _, _, _, variant = compiled_suite_kernel("cholesky")
    assert variant.backend.artifact.twins == ()


CHILD = textwrap.dedent('''
    import json
    import numpy as np
    import polyfuse
    from polyfuse.bench import suite

    spec = suite.get("jacobi-1d")
    args = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    expected = spec.make_args(np.random.default_rng(0), **spec.sizes["test"])
    kernel = polyfuse.kernel(spec.func)
    variant = kernel.compile(*args)
    kernel(*args)
    spec.func(*expected)
    print(json.dumps([variant.from_cache, list(variant.backend.generated), list(variant.backend.artifact.twins),
                      all(np.allclose(a, e, rtol=1e-12) for a, e in zip(args, expected) if isinstance(a, np.ndarray))]))
''')


def test_a_disk_cache_load_links_the_serial_function_to_the_regions_object(tmp_path):
    # (jacobi-1d's rows fit L1 at the test size: its whole-row version keeps a serial copy of
    # its own instead of a shared twin, time_tiling.whole_row_version; the tiles alone here)
    env = {**os.environ, "POLYFUSE_CACHE_DIR": str(tmp_path / "kernels"), "POLYFUSE_NUM_THREADS": "1",
           "POLYFUSE_TIME_TILE_WHOLE_ROW": "0"}
    for name in ("POLYFUSE_DISABLE_CACHE", "POLYFUSE_TILED_TWINS"):
        env.pop(name, None)
    script = tmp_path / "child.py"  # (in a file: polyfuse reads the kernels' source)
    script.write_text(CHILD)
    reports = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        reports.append(json.loads(done.stdout.strip().splitlines()[-1]))
    (cold_hit, cold_generated, twins, cold_ok), (warm_hit, warm_generated, _, warm_ok) = reports
    assert twins == [["jacobi_1d.phase0", "jacobi_1d.phase0.region"]]
    assert not cold_hit and cold_ok and "jacobi_1d.phase0" in cold_generated
    assert warm_hit and warm_ok and warm_generated == []  # both objects linked, nothing generated
