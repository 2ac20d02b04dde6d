"""The machine a bench runs on: CPU, package versions, polyfuse's and BLAS's thread pools.

:func:`machine_info` is recorded with every report (and printed by ``polyfuse version``);
:func:`blas_plans` says on which BLAS thread counts numpy code is timed and :func:`_blas_limit`
applies one.  Separate because every section asks it and it measures nothing itself.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import platform
from collections.abc import Iterator
from typing import Any

from polyfuse.bench.records import BenchSettings


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def package_version(module: str) -> str:
    try:
        mod = __import__(module)
    except Exception as exc:  # noqa: BLE001 - a broken optional package is reported, not raised
        return f"unavailable ({type(exc).__name__})"
    version = getattr(mod, "__version__", None)
    if version is None and module == "islpy":
        version = getattr(mod, "version", None)
    if version is None:
        from importlib import metadata

        try:
            version = metadata.version(module)
        except metadata.PackageNotFoundError:
            version = "unknown"
    return str(version)


def machine_info() -> dict[str, Any]:
    usable: int | None
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "machine": platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": {m: package_version(m) for m in ("polyfuse", "numpy", "numba", "llvmlite", "islpy",
                                                    "opt_einsum")},
    }


def threadpool_info() -> list[dict[str, Any]] | None:
    """threadpoolctl's view of the BLAS/OpenMP pools loaded now (None: threadpoolctl not installed).

    Only recorded: the bench leaves BLAS threads as they are."""
    if importlib.util.find_spec("threadpoolctl") is None:
        return None
    try:
        import threadpoolctl

        keep = ("user_api", "internal_api", "prefix", "version", "num_threads", "threading_layer",
                "architecture")
        return [{k: v for k, v in pool.items() if k in keep} for pool in threadpoolctl.threadpool_info()]
    except Exception as exc:  # noqa: BLE001 - informational only
        return [{"error": f"{type(exc).__name__}: {exc}"}]


def polyfuse_threads() -> int | None:
    """Threads polyfuse runs parallel loops on (None: this polyfuse has no thread pool)."""
    try:
        from polyfuse.runtime import threads
    except ImportError:
        return None
    return threads.get_num_threads()


def set_polyfuse_threads(count: int) -> None:
    os.environ["POLYFUSE_NUM_THREADS"] = str(count)
    try:
        from polyfuse.runtime import threads
    except ImportError:
        return
    threads.set_num_threads(count)


def blas_threads() -> int | None:
    """Threads of the first BLAS pool threadpoolctl sees (None: unknown)."""
    for pool in threadpool_info() or ():
        if pool.get("user_api") == "blas" and isinstance(pool.get("num_threads"), int):
            return pool["num_threads"]
    return None


def blas_plans(settings: BenchSettings) -> list[tuple[str, int | None]]:
    """The BLAS thread counts numpy code is timed on, as (label, limit or None for "as they are").

    With ``--blas-threads N``: only N (the whole run is limited already).  Otherwise BLAS as
    configured and, when that is more than one thread and threadpoolctl is installed, one thread
    too; the faster counts.  Multi-threaded OpenBLAS stalls on a small machine whose cores other
    jobs use (benchmarks/README.md), and one BLAS thread is what numpy gets there."""
    if settings.blas_threads is not None:
        return [(str(settings.blas_threads), None)]
    configured = blas_threads()
    if configured is None:
        return [("as configured", None)]
    plans: list[tuple[str, int | None]] = [(str(configured), None)]
    if configured > 1:
        plans.append(("1", 1))
    return plans


@contextlib.contextmanager
def polyfuse_on(count: int | None) -> Iterator[None]:
    """polyfuse on ``count`` threads inside the block (None: as set).  On one thread NumPy's
    OpenBLAS is held at one thread too: the products polyfuse hands to the library would
    otherwise use the second core, and the one-thread column must not rest on threads."""
    if count is None:
        yield
        return
    from polyfuse.runtime import threads
    from polyfuse.runtime.linalg_library import blas_on_one_thread

    with threads.limited_to(count), blas_on_one_thread() if count == 1 else contextlib.nullcontext():
        yield


@contextlib.contextmanager
def _blas_limit(limit: int | None) -> Iterator[None]:
    if limit is None:
        yield
        return
    import threadpoolctl

    with threadpoolctl.threadpool_limits(limits=limit, user_api="blas"):
        yield
