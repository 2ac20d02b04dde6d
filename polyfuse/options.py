"""Compilation options and the typed environment knobs (``POLYFUSE_*``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from polyfuse.schedule.scheduler import FUSE_MODES

from .errors import ArgumentError

TARGETS = ("cpu", "python", "cuda")


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("", "0", "false", "no", "off")


@dataclass(frozen=True)
class Options:
    """What a kernel is compiled with; part of every cache key."""

    target: str = "cpu"
    fuse: str = "smart"
    verify: bool = False  # re-check the final schedule against every dependence (tests turn it on)
    opt_level: int = 3
    contract: bool = True  # shrink kernel-local arrays that fusion made short-lived
    # tile perfect nests with reuse to fit half of the L2 cache; off by default because on our
    # benchmark machine it did not pay without register blocking (see docs/performance.md)
    tile: bool = False
    # register tiles: a matrix product's outputs stay in vector registers across its reduction
    # loop (polyfuse.registers); POLYFUSE_REGISTER_TILES=0 turns them off everywhere
    registers: bool = True
    # interleave a few iterations of a parallel loop around float reductions so that their add
    # chains overlap (polyfuse.interleave); off by default: it pays when the rows are in cache
    # (polyfuse.spec turns it on for its row-blocked loop steps) and loses on streaming loops
    interleave: bool = False
    # allow LLVM to reassociate float arithmetic (vectorized reductions); results then differ
    # from the Python function in the last bits, so it is off unless asked for
    fastmath: bool = False
    # exp and log as inline polynomials LLVM can vectorize (within 2 ulp of libm, no
    # reassociation) instead of one libm call per element; False: exactly Python's math results
    vector_math: bool = True

    def tile_budget(self) -> int:
        """Bytes a tile's footprint may use (0: no tiling)."""
        if not self.tile:
            return 0
        from .hardware import cpu_info

        return cpu_info().l2 // 2

    def time_tiling_enabled(self) -> bool:
        """Time tiling of stencils (polyfuse.time_tiling): CPU targets, unless POLYFUSE_TIME_TILING=0."""
        return self.target != "cuda" and env_flag("POLYFUSE_TIME_TILING", True)

    def _time_tiling_key(self) -> str:
        # POLYFUSE_TIME_TILE_SIZES (fixed sizes for experiments) changes the code too
        return (os.environ.get("POLYFUSE_TIME_TILE_SIZES") or "model") if self.time_tiling_enabled() else "off"

    def register_tile_bytes(self) -> int:
        """SIMD register width the register tiles are sized for (0: no register tiles)."""
        if not self.registers or self.target == "cuda" or not env_flag("POLYFUSE_REGISTER_TILES", True):
            return 0
        from .hardware import vector_bytes

        return vector_bytes()

    def minmax_lane_bytes(self) -> int:
        """SIMD width max/min reductions are split into lanes for (polyfuse.lanes; 0: not split).
        Exact, so always on for CPU targets unless POLYFUSE_MINMAX_LANES=0."""
        if self.target == "cuda" or not env_flag("POLYFUSE_MINMAX_LANES", True):
            return 0
        from .hardware import vector_bytes

        return vector_bytes()

    def interleave_copies(self) -> int:
        """Iterations interleaved around float reductions (0: none; GPUs map the loop to threads)."""
        if not self.interleave or self.target == "cuda" or not env_flag("POLYFUSE_INTERLEAVE", True):
            return 0
        from polyfuse.passes.interleave import INTERLEAVE

        return INTERLEAVE

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ArgumentError(f"target={self.target!r}; choose one of {', '.join(TARGETS)}")
        if self.fuse not in FUSE_MODES:
            raise ArgumentError(f"fuse={self.fuse!r}; choose one of {', '.join(FUSE_MODES)}")
        if not 0 <= self.opt_level <= 3:
            raise ArgumentError(f"opt_level={self.opt_level!r}; choose 0..3")

    def key(self) -> str:
        return (f"target={self.target} fuse={self.fuse} verify={self.verify} O{self.opt_level} "
                f"contract={self.contract} tile={self.tile} fastmath={self.fastmath} vector_math={self.vector_math} "
                f"registers={self.register_tile_bytes()} lanes={self.minmax_lane_bytes()} "
                f"interleave={self.interleave_copies()} "
                f"time_tiling={self._time_tiling_key()}")


def default_verify() -> bool:
    """``POLYFUSE_VERIFY=1`` turns the schedule verifier on for every kernel."""
    return env_flag("POLYFUSE_VERIFY")


def debug_errors() -> bool:
    """``POLYFUSE_DEBUG=1`` re-raises internal exceptions with their full traceback."""
    return env_flag("POLYFUSE_DEBUG")
