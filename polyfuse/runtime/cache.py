"""Disk cache of compiled kernels.

The key is content, not file times: the kernel's normalized source and the modules it reads,
the call signature, the options, the versions of polyfuse and of the tools that generate code,
and the CPU.  An entry holds the optimized LLVM IR and the machine code generated from it (linked
again on load, skipping isl, the optimizer and LLVM's code generator), the runtime's checks and
the rendered explain() sections, so explain() and inspect_llvm() still work after a hit.  An
unwritable cache directory warns once and the cache stays in memory only.  ``POLYFUSE_DISABLE_CACHE=1`` turns it off; ``POLYFUSE_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import pickle
import tempfile
import warnings
from pathlib import Path
from typing import Any

from polyfuse import options

log = logging.getLogger("polyfuse")
FORMAT = 1
_warned = False


def enabled() -> bool:
    return options.cache_enabled()


def directory() -> Path:
    configured, xdg = options.cache_directory_setting()
    if configured:
        return Path(configured)
    base = xdg or str(Path.home() / ".cache")
    return Path(base) / "polyfuse"


def versions() -> str:
    import islpy
    import llvmlite
    import numpy

    from polyfuse.runtime.linalg_library import describe as blas
    from polyfuse.version import __version__

    return (f"polyfuse={__version__} source={source_digest()} islpy={islpy.version.VERSION_TEXT} "
            f"llvmlite={llvmlite.__version__} numpy={numpy.__version__} blas={blas()}")


CODE_PACKAGES = ("polyfuse", "polyfuse.frontend", "polyfuse.backends")


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """A hash of polyfuse's own code (every module, subpackages included), so a changed compiler
    never reuses old entries."""
    return digest_of(code_folders())


def code_folders() -> list[Path]:
    """The folders of polyfuse's code packages (found without importing them)."""
    folders: list[Path] = []
    for name in CODE_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None:
            folders.extend(Path(p) for p in spec.submodule_search_locations or [])
    return folders


def digest_of(folders: list[Path]) -> str:
    """A hash of every ``*.py`` file under ``folders``, at any depth, with its relative path."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cpu_key() -> str:
    """The host CPU and the LLVM settings the cached code was made with (the JIT's code model,
    the pipeline's options): an entry is valid for these only."""
    from polyfuse.hardware import llvm_host
    from polyfuse.options import (
        blas_beta_zero,
        blas_plain_library,
        blas_row_chunks,
        blas_row_chunks_gemv,
        blas_row_chunks_guarded,
        blas_scale_fold,
        blas_stack_chunks,
        blas_symm,
        carried_loads_enabled,
        carried_loads_guarded,
        epilogue_chains,
        first_violation,
        gemv_row_loops,
        guarded_checks,
        integer_checks,
        jit_small_code,
        join_phases,
        lazy_streams,
        machine,
        mask_moves_guard,
        math_chains,
        math_loop_interleave,
        mirror_epilogues,
        narrow_gemm,
        one_row_copy,
        overlap_rows,
        overwritten_companions,
        overwritten_forward,
        overwritten_stores,
        packed_twins,
        phase_chains,
        prefetch_bytes,
        product_pairs,
        product_sums,
        product_twins,
        rare_loops,
        reciprocal_quotients,
        register_tiles_wide,
        row_alias_checks,
        row_heads,
        row_heads_alike,
        scale_after_product,
        stack_row_gemm,
        stream_math,
        stream_store_bytes,
        tiled_frozen_ivs,
        tiled_load_pre,
        tiled_lsr,
        tiled_twins,
        tiled_wide,
        triangle_chunks,
        vector_checks,
    )

    model = "small-pic" if jit_small_code() else "jit-default"
    checks = "row-checks" if row_alias_checks() else "hoisted-checks"
    chunks = ((" blas-row-chunks" if blas_row_chunks() else "") + (" gemv" if blas_row_chunks_gemv() else "")
              + (" guarded" if blas_row_chunks_guarded() else "")
              + (" triangles" if triangle_chunks() else "") + (" stacks" if blas_stack_chunks() else "")
              + (" product-pairs" if product_pairs() else "") + (" plain-library" if blas_plain_library() else ""))
    chunks += ("" if overlap_rows() else " no-overlap-rows") + (" joined-phases" if join_phases() else "") + ("" if reciprocal_quotients() else " divide")
    chunks += (" phase-chains" if phase_chains() else " epilogue-chains" if epilogue_chains() else "") + ("" if narrow_gemm() else " no-narrow-gemm")
    chunks += "" if stack_row_gemm() else " stack-gemm"
    chunks += "" if mirror_epilogues() else " no-mirror-epilogue"
    lsr = ("" if tiled_lsr() else " tiled-no-lsr") + (" tiled-twins" if tiled_twins() else "") + (" packed-twins" if packed_twins() else "")
    lsr += " product-twins" if product_twins() else ""
    lsr += "" if tiled_wide() else " tiled-narrow"
    lsr += "" if register_tiles_wide() else " register-tiles-narrow"
    lsr += "" if tiled_load_pre() else " tiled-no-load-pre"
    lsr += f" row-heads-{row_heads()}" if row_heads() else ""
    lsr += "" if row_heads_alike() or not row_heads() else " heads-apart"
    lsr += "" if one_row_copy() or not row_heads() else " row-copies"
    lsr += "" if carried_loads_enabled() else " no-carried-loads"
    lsr += "" if rare_loops() else " rare-loops-optimised"
    lsr += "" if tiled_frozen_ivs() else " tiled-recurrences"
    lsr += "" if vector_checks() else " checks-branch"
    lsr += "" if guarded_checks() else " checks-unguarded"
    lsr += "" if carried_loads_guarded() or not carried_loads_enabled() else " carried-selects"
    math = f" math-interleave-{math_loop_interleave()}"
    math += " math-chains" if math_chains() else ""
    scaled = "" if scale_after_product() else " operands-scaled-first"  # a frontend choice, keyed here too
    scaled += "" if integer_checks() else " float-checks"  # a frontend choice, keyed here too
    scaled += "" if product_sums() else " product-sums-stored"  # a frontend choice, keyed here too
    scaled += "" if blas_beta_zero() else " zeroing-kept"  # loop_products' choice, keyed here too
    scaled += "" if blas_symm() else " mirrors-kept"  # loop_products' choice, keyed here too
    scaled += "" if blas_scale_fold() else " scaling-kept"  # loop_products' choice, keyed here too
    scaled += " gemv-row-loops" if gemv_row_loops() else ""  # a frontend choice, keyed here too
    scaled += "" if overwritten_stores() else " stores-kept"  # schedule/overwritten's choice, keyed here too
    scaled += "" if overwritten_forward() else " forward-kept"  # (a stored scalar's row, too)
    scaled += " companions" if overwritten_companions() else ""  # (and the readers it sends there)
    scaled += "" if first_violation() else " all-violations"  # (candidates' isl work counts against the budget)
    cpu = machine()  # tile sizes, panel blocks and the streaming threshold are made from these
    sizes = f" caches-{cpu.l1d}-{cpu.l2}-{cpu.l3}-{cpu.line} streams-{stream_store_bytes()}"
    sizes += " math-streams" if stream_math() else ""
    sizes += " lazy-streams" if lazy_streams() else ""  # (artifacts with streaming twins)
    sizes += f" prefetch-{prefetch_bytes()}" if prefetch_bytes() else ""  # (vector loads prefetched)
    sizes += " mask-moves-guard" if mask_moves_guard() else ""  # (objects made before it may hold llvm#191304)
    cpu_name, features = llvm_host()
    return (f"{cpu_name} {features} {model} {checks}{chunks}{lsr}"
            f"{math}{scaled}{sizes}")


def make_key(source: str, modules: str, signature: str, options: str) -> str:
    text = "\n".join([f"format={FORMAT}", versions(), cpu_key(), options, signature, modules, source])
    return hashlib.sha256(text.encode()).hexdigest()


def load(key: str) -> Any | None:
    if not enabled():
        return None
    path = directory() / f"{key}.pkl"
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)  # noqa: S301 - our own cache directory
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - a damaged entry is a miss, not an error
        log.info("polyfuse: ignoring unreadable cache entry %s: %s", path, exc)
        return None


def store(key: str, entry: Any) -> None:
    global _warned
    if not enabled():
        return
    folder = directory()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=folder, delete=False, suffix=".tmp") as handle:
            pickle.dump(entry, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(handle.name, folder / f"{key}.pkl")
    except OSError as exc:
        if not _warned:
            _warned = True
            warnings.warn(f"polyfuse: cannot write the kernel cache at {folder} ({exc}); "
                          "compiled kernels are kept in memory only", RuntimeWarning, stacklevel=3)


def info() -> dict[str, Any]:
    folder = directory()
    entries = list(folder.glob("*.pkl")) if folder.is_dir() else []
    return {"directory": str(folder), "enabled": enabled(), "entries": len(entries),
            "bytes": sum(p.stat().st_size for p in entries)}


def clear() -> int:
    folder = directory()
    removed = 0
    if folder.is_dir():
        for path in folder.glob("*.pkl"):
            path.unlink(missing_ok=True)
            removed += 1
    return removed
