"""What the machine offers: cache sizes, line size, SIMD width, CPUs.  Read from Linux's sysfs
(py-cpuinfo misreports caches on some AMD EPYC machines), with documented defaults where nothing
can be read.  Overrides are passed in: the ``POLYFUSE_*`` variables that set them are read in
polyfuse.options (``machine()``, ``vector_bytes()``), the one place that reads the environment.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CACHE_ROOT = Path("/sys/devices/system/cpu/cpu0/cache")
DEFAULTS = {"l1d": 32 * 1024, "l2": 1024 * 1024, "l3": 32 * 1024 * 1024, "line": 64}
# The most last-level cache one usable CPU is counted for.  Real parts give 1.4-4 MiB per core
# (12 with AMD's stacked L3); a virtual machine's sysfs reports the host's whole L3 (480 MiB seen
# on a 2-vCPU VM), most of which other guests use.  Streaming thresholds and panel blocks sized
# from such a figure would never trigger, so sysfs's L3 is capped at this much per usable CPU.
L3_PER_CPU_CAP = 16 * 1024 * 1024


@dataclass(frozen=True)
class CpuInfo:
    name: str
    l1d: int  # bytes
    l2: int
    l3: int
    line: int
    cpus: int
    sources: tuple[tuple[str, str], ...]  # (field, "sysfs" | "env" | "default")


def available_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parse_size(text: str) -> int:
    """'48K' -> 49152; '1024K', '32M', '65536' also accepted."""
    text = text.strip().upper()
    scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * scale


def _read_sysfs(root: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for index in sorted(root.glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = parse_size((index / "size").read_text())
            line = int((index / "coherency_line_size").read_text())
        except (OSError, ValueError):
            continue
        key = {1: "l1d", 2: "l2", 3: "l3"}.get(level)
        if key is None or (level == 1 and kind != "Data"):
            continue
        found[key] = size
        found.setdefault("line", line)
    return found


def _cpuinfo(field: str) -> str | None:
    """The value of the first ``field`` line of /proc/cpuinfo (None where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(field):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _cpu_name() -> str:
    return _cpuinfo("model name") or platform.processor() or platform.machine()


def cpu_info(root: Path = CACHE_ROOT, overrides: Mapping[str, int] | None = None) -> CpuInfo:
    """Cache sizes from sysfs under ``root``; ``overrides`` (field -> bytes, from the environment)
    win, documented defaults fill what neither gives."""
    return _cpu_info(root, tuple(sorted((overrides or {}).items())))


@lru_cache(maxsize=4)
def _cpu_info(root: Path, overrides: tuple[tuple[str, int], ...]) -> CpuInfo:
    sysfs = _read_sysfs(root)
    given = dict(overrides)
    values, sources = {}, []
    for key, default in DEFAULTS.items():
        if key in given:
            values[key], source = given[key], "env"
        elif key == "l3" and key in sysfs and sysfs[key] > L3_PER_CPU_CAP * available_cpus():
            values[key], source = L3_PER_CPU_CAP * available_cpus(), "sysfs, capped per cpu"
        elif key in sysfs:
            values[key], source = sysfs[key], "sysfs"
        else:
            values[key], source = default, "default"
        sources.append((key, source))
    return CpuInfo(_cpu_name(), values["l1d"], values["l2"], values["l3"], values["line"],
                   available_cpus(), tuple(sources))


@lru_cache(maxsize=1)
def simd_bytes() -> int:
    """Width of the widest SIMD registers: 64 with AVX-512, 32 with AVX, else 16 (from the
    ``flags`` line of /proc/cpuinfo).  Register tiles are sized from it (polyfuse.schedule.tiling)."""
    flags = set((_cpuinfo("flags") or "").split())
    return 64 if "avx512f" in flags else 32 if "avx" in flags else 16


def vector_registers(vector_bytes: int) -> int:
    """Vector registers of the SIMD width ``vector_bytes``: 32 with AVX-512's 64-byte vectors,
    16 with AVX's and SSE's (x86-64)."""
    return 32 if vector_bytes >= 64 else 16


@lru_cache(maxsize=1)
def llvm_host() -> tuple[str, str]:
    """The host CPU as LLVM names it (``rocketlake``) and its feature string (``+avx2,+avx512f,...``),
    what every target machine of the cpu backend is made for and the disk cache's key names.
    Read once per process: llvmlite asks LLVM again on each call (~0.2 ms for the name, ~0.5 for
    the flattened features), and a small compile asked 4 times (docs/performance.md, session 28)."""
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def llvm_host_has(feature: str) -> bool:
    """Does the host CPU have LLVM's ``feature`` (``avx512f``)?"""
    return f"+{feature}" in llvm_host()[1].split(",")
