"""``POLYFUSE_JOIN_PHASES=1`` (backends/cpu/phases.py ``join_regions``): consecutive parallel and
serial phases as one parallel region.  The results must be the separate phases' own, bit for bit,
on any number of threads."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU, copy_args

import polyfuse
from polyfuse.bench.numpy_suite import mean_std
from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="no backends/llvm.py")


@pytest.mark.parametrize("func, shape", [(mean_std, (3000,))])
def test_joined_phases_give_the_separate_phases_bits_on_1_2_3_threads(func, shape, forced, monkeypatch):
    args = (np.random.default_rng(6).standard_normal(shape) + 3.0,)
    monkeypatch.setenv("POLYFUSE_JOIN_PHASES", "0")
    threads.set_num_threads(1)
    expected = polyfuse.kernel(func)(*copy_args(args))
    monkeypatch.setenv("POLYFUSE_JOIN_PHASES", "1")
    kernel = polyfuse.kernel(func)
    backend = kernel.compile(*args).backend
    (region,) = [p for p in backend.artifact.phases if p.is_region]
    assert len(region.region.parallel_loops) >= 2
    for count in (1, 2, 3):
        threads.set_num_threads(count)
        for _ in range(2):  # (the first call at a thread count is the measuring, serial one)
            got = kernel(*copy_args(args))
            for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                            got if isinstance(got, tuple) else (got,)):
                assert np.asarray(e).tobytes() == np.asarray(g).tobytes(), count
    assert backend.region_runs.get(region.index, 0) >= 2  # 2 and 3 threads
    np.testing.assert_allclose(np.asarray(kernel(*args)), np.asarray(func(*args)), rtol=1e-12)
