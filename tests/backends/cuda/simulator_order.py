"""Perturbing the order in which numba's CUDA simulator runs blocks and threads: a race detector.

The simulator runs the blocks of a grid one after another, in index order, and the threads of a
block as Python threads started in index order.  A kernel whose result depends on that order
(two threads touching one element with a write between them, a missing barrier) can still pass
every run.  ``shuffled_simulator(seed)`` runs blocks and starts threads in a random order and
makes Python switch threads very often, so such a kernel gives a different answer than the
undecorated function on some seeds.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Iterator

import numpy as np


class _ShuffledIndices:
    """numpy, except that ``ndindex`` yields the index tuples in a random order."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def ndindex(self, *shape):
        points = list(np.ndindex(*shape))
        self._rng.shuffle(points)
        return iter(points)

    def __getattr__(self, name: str):
        return getattr(np, name)


def simulator_kernel_module():
    """The simulator's kernel-launch module (numba.cuda or numba-cuda's copy), or None."""
    for name, module in list(sys.modules.items()):
        if name.endswith("cuda.simulator.kernel") and hasattr(module, "BlockManager"):
            return module
    return None


@contextlib.contextmanager
def shuffled_simulator(seed: int) -> Iterator[bool]:
    """Within the block, blocks and threads start in a seeded random order and threads switch
    every microsecond.  Yields False (and changes nothing) when the simulator is not in use."""
    module = simulator_kernel_module()
    if module is None:
        yield False
        return
    interval = sys.getswitchinterval()
    original = module.np
    module.np = _ShuffledIndices(random.Random(seed))
    sys.setswitchinterval(1e-6)
    try:
        yield True
    finally:
        module.np = original
        sys.setswitchinterval(interval)


@contextlib.contextmanager
def device_launches() -> Iterator[None]:
    """Kernels compiled inside use a real GPU's launch configuration (POLYFUSE_CUDA_LAUNCH)."""
    import os

    previous = os.environ.get("POLYFUSE_CUDA_LAUNCH")
    os.environ["POLYFUSE_CUDA_LAUNCH"] = "device"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("POLYFUSE_CUDA_LAUNCH", None)
        else:
            os.environ["POLYFUSE_CUDA_LAUNCH"] = previous


class _Recorder:
    """A compiled CUDA kernel whose launch configurations (``kernel[grid, block]``) are recorded."""

    def __init__(self, kernel, index: int, log: list) -> None:
        self._kernel, self._index, self._log = kernel, index, log

    def __getitem__(self, config):
        grid, block = config
        self._log.append((self._index, tuple(np.atleast_1d(grid)), tuple(np.atleast_1d(block))))
        return self._kernel[config]


@contextlib.contextmanager
def recorded_launches(backend) -> Iterator[list]:
    """Within the block, each launch of a compiled CUDA backend's kernels is recorded in the
    yielded list as (launch index, grid, block): what ran, not what was planned."""
    kernels = dict(backend.kernels)
    log: list = []
    backend.kernels.update({index: _Recorder(k, index, log) for index, k in kernels.items()})
    try:
        yield log
    finally:
        backend.kernels.update(kernels)
