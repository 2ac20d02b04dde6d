"""backends/cuda/simulator.py: one shared array per block on numba's simulator, whatever the thread order.

The simulator's allocation is a look-up then a store on a dict shared by a block's threads; these
tests switch threads after every look-up (a dict whose ``get`` sleeps), the interleaving that gave
a staged 2mm kernel one wrong row and a NaN in CI.  With numba's unlocked allocation all three
fail (checked by hand: the first then reads np.empty's garbage where a neighbour staged).
"""

from __future__ import annotations

import os
import sys
import time

if "NUMBA_ENABLE_CUDASIM" not in os.environ and os.environ.get("POLYFUSE_TEST_GPU", "") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if "numba.cuda" not in sys.modules and "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].ENABLE_CUDASIM = 1

import numpy as np
import pytest
from conftest import assert_same_arrays, copy_args
from simulator_order import device_launches, shuffled_simulator

import polyfuse
from polyfuse.bench import suite

cuda = pytest.importorskip("numba.cuda")
from numba import config as numba_config  # noqa: E402
from polyfuse.backends.cuda.simulator import make_shared_arrays_thread_safe, simulator_kernelapi  # noqa: E402

pytestmark = pytest.mark.skipif(not numba_config.ENABLE_CUDASIM, reason="about numba's CUDA simulator")


class _SwitchingDict(dict):
    """A dict that gives the other threads a turn after each look-up: the allocation race made certain."""

    def get(self, key, default=None):
        found = super().get(key, default)
        time.sleep(0.0005)
        return found


@pytest.fixture
def switching_allocations(monkeypatch):
    assert make_shared_arrays_thread_safe()
    shared = simulator_kernelapi().FakeCUDAShared
    original_init = shared.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self._allocations = _SwitchingDict()

    monkeypatch.setattr(shared, "__init__", init)


def test_every_thread_of_a_block_gets_the_same_shared_array(switching_allocations):
    @cuda.jit
    def rotate(out):
        staged = cuda.shared.array(64, np.float64)
        t = cuda.threadIdx.x
        staged[t] = t
        cuda.syncthreads()
        out[cuda.blockIdx.x, t] = staged[(t + 1) % 64]

    out = np.full((2, 64), -1.0)
    rotate[2, 64](out)
    np.testing.assert_array_equal(out, np.broadcast_to((np.arange(64) + 1) % 64, (2, 64)))


def test_installing_twice_keeps_one_locked_allocation():
    assert make_shared_arrays_thread_safe() and make_shared_arrays_thread_safe()
    assert simulator_kernelapi().FakeCUDAShared.array.polyfuse_locked


def test_a_staged_matrix_product_with_device_tiles_matches_python(switching_allocations):
    """The CI failure's kernel and sizes (2mm, fuse='none', tiles 8 x 32, chunks of 32)."""
    sk = suite.KERNELS["2mm"]
    args = sk.make_args(np.random.default_rng(1), ni=8, nj=11, nk=37, nl=33)
    with device_launches():
        k = polyfuse.kernel(sk.func, target="cuda", fuse="none")
        backend = k.compile(*args).backend
    assert "tiles 8 x 32, chunk 32" in backend.describe() and "_cuda.shared.array" in backend.source
    expected = copy_args(args)
    sk.func(*expected)
    actual = copy_args(args)
    with shuffled_simulator(3):
        k(*actual)
    assert_same_arrays(expected, actual, rtol=1e-9)
