"""Make numba's CUDA simulator allocate ``cuda.shared.array`` once per block, whatever the thread order.

The simulator runs every CUDA thread as a Python thread, and ``FakeCUDAShared.array`` finds a
block's shared array in a dict keyed by the calling source line: look the key up, and if it is
missing, allocate and store.  Two threads switched out between the look-up and the store each get
an array of their own.  Every element that such a thread stages then goes missing from the block's
array (the other threads read what ``np.empty`` left there) and it reads garbage itself: a staged
kernel (2mm with device tiles) gave one row of wrong partial sums and a NaN in CI, with a real GPU
and polyfuse's barriers not involved.  ``make_shared_arrays_thread_safe`` serialises the look-up
and the store; everything else of the simulator is unchanged.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

_ALLOCATION_LOCK = threading.Lock()


def simulator_kernelapi():
    """The simulator's kernel-API module (numba.cuda's or numba-cuda's copy), or None when not imported."""
    for name, module in list(sys.modules.items()):
        if name.endswith("cuda.simulator.kernelapi") and hasattr(module, "FakeCUDAShared"):
            return module
    return None


def make_shared_arrays_thread_safe() -> bool:
    """Replace ``FakeCUDAShared.array`` by a locked version (once); False when there is no simulator."""
    kernelapi = simulator_kernelapi()
    if kernelapi is None:
        return False
    shared = kernelapi.FakeCUDAShared
    if getattr(shared.array, "polyfuse_locked", False):
        return True
    dynamic = shared.array
    as_dtype = kernelapi.numpy_support.as_dtype
    numba_type = kernelapi.types.Type

    def array(self, shape, dtype):
        if shape == 0:  # dynamic shared memory: one buffer for all, nothing to race on
            return dynamic(self, shape, dtype)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)  # the simulator's key: one array per line
        with _ALLOCATION_LOCK:
            found = self._allocations.get(key)
            if found is None:
                found = np.empty(shape, as_dtype(dtype) if isinstance(dtype, numba_type) else dtype)
                self._allocations[key] = found
        return found

    array.polyfuse_locked = True  # type: ignore[attr-defined]
    array.__doc__ = shared.array.__doc__
    shared.array = array
    return True
