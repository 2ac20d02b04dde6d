"""The race detector the random CUDA tests rely on (simulator_order), checked on its own."""

from __future__ import annotations

import os
import sys

if "NUMBA_ENABLE_CUDASIM" not in os.environ and os.environ.get("POLYFUSE_TEST_GPU", "") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if "numba.cuda" not in sys.modules and "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].ENABLE_CUDASIM = 1


import numpy as np
import pytest
from conftest import define
from simulator_order import device_launches, shuffled_simulator

import polyfuse

cuda = pytest.importorskip("numba.cuda")
from numba import config as numba_config  # noqa: E402

SIMULATOR = bool(numba_config.ENABLE_CUDASIM)
if not SIMULATOR and not cuda.is_available():
    pytest.skip("no CUDA GPU and the simulator is off", allow_module_level=True)

RACY = """
def racy(A, out):
    for i in range(A.shape[0]):
        out[0] = A[i]
"""


def test_the_order_perturbation_changes_the_order_of_blocks():
    """The detector itself: under the shuffle, a kernel whose threads all write one element ends
    with a value that depends on the order (a hand-written racy kernel, not polyfuse's)."""
    seen = set()

    @cuda.jit
    def last_writer(out):
        out[0] = cuda.blockIdx.x

    for seed in range(8):
        out = np.zeros(1, dtype=np.int64)
        with shuffled_simulator(seed) as active:
            if not active:
                pytest.skip("not on the simulator")
            last_writer[8, 1](out)
        seen.add(int(out[0]))
    assert len(seen) > 1


def test_a_serial_write_loop_is_never_mapped_to_threads():
    """``out[0] = A[i]`` carries an output dependence: polyfuse keeps the loop serial and the last
    value wins, under every launch configuration and order."""
    fn = define(RACY, "racy")
    A = np.arange(40.0)
    for seed in range(3):
        out = np.zeros(1)
        with device_launches():
            kernel = polyfuse.kernel(fn, target="cuda")
            kernel.compile(A, out)
        with shuffled_simulator(seed):
            kernel(A, out)
        assert out[0] == A[-1]
    mapping = kernel.explain(A, out)["gpu mapping"]
    assert "single thread" in mapping
