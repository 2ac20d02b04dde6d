"""Which BLAS/LAPACK the compiled code calls: the very library NumPy calls, where it can be found.

``x @ y`` in a kernel must give NumPy's bits, and two OpenBLAS builds need not agree (the strided
``ddot`` kernel of SciPy's OpenBLAS 0.3.30 and NumPy's 0.3.31 round differently), so the first
choice is NumPy's own library: the ``scipy-openblas`` its wheels bundle, whose Fortran routines
are exported as ``scipy_dgemm_64_`` (ILP64: every integer argument is 64-bit) or ``scipy_dgemm_``
(LP64), the same kernels NumPy's ``cblas_*`` calls reach, sharing its thread pool.  Otherwise
(a NumPy built against MKL, Accelerate or a system BLAS) it is SciPy's ``cython_blas`` /
``cython_lapack``: LP64, results within BLAS's usual tolerance of NumPy's.  The choice is part of
the disk-cache key (:func:`describe`), since code compiled for one integer width must not be
loaded for the other.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from polyfuse.options import blas_library


@dataclass(frozen=True)
class Library:
    """Where the routines are: ``address(name)`` of a Fortran routine named the LAPACK way
    (``"dgemm"``, ``"spotrf"``), 0 when this library lacks it."""

    name: str
    int_bits: int  # the width of every Fortran INTEGER argument
    _lookup: object = field(repr=False, compare=False)
    handle: Any = field(default=None, repr=False, compare=False)  # the ctypes library, where it is one

    def address(self, routine: str) -> int:
        return self._lookup(routine)  # type: ignore[operator]


@functools.cache
def library() -> Library | None:
    """NumPy's bundled OpenBLAS, else SciPy's, else None (no BLAS: products run as loops).
    ``POLYFUSE_BLAS=scipy`` (or ``none``) skips NumPy's, to compare or to work around a build."""
    choice = blas_library()
    if choice == "none":
        return None
    return (_numpy_openblas() if choice == "numpy" else None) or _scipy_cython()


def describe() -> str:
    found = library()
    return "none" if found is None else f"{found.name}/int{found.int_bits}"


@functools.cache
def thread_count_functions() -> tuple[Callable[[], int], Callable[[int], None]] | None:
    """NumPy's OpenBLAS ``openblas_get_num_threads`` and ``openblas_set_num_threads`` (as
    ``scipy_openblas_{get,set}_num_threads64_``, or without the 64 for LP64), as ctypes functions,
    or None where the library in use is another one or lacks them.  The count is the process's
    (the pthreads build keeps one for every thread, ``openblas_set_num_threads_local`` included:
    benchmarks/openblas_local.py); :func:`blas_on_one_thread` is the only writer polyfuse has."""
    found = library()
    if found is None or found.name != "numpy-openblas":
        return None
    for suffix in (("64_", "_64_") if found.int_bits == 64 else ("", "_")):
        get = getattr(found.handle, f"scipy_openblas_get_num_threads{suffix}", None)
        put = getattr(found.handle, f"scipy_openblas_set_num_threads{suffix}", None)
        if get is not None and put is not None:
            break
    else:
        return None
    get.restype, get.argtypes = ctypes.c_int, []
    put.restype, put.argtypes = None, [ctypes.c_int]
    return get, put


def can_set_blas_threads() -> bool:
    """Can polyfuse put NumPy's OpenBLAS on one thread around a team run (NumPy's bundled
    OpenBLAS, whose process-wide thread count it can read and set)?  Products that polyfuse's
    own threads split by rows (backends/cpu/phases.py, ``row_chunked``) need it."""
    return thread_count_functions() is not None


_one_thread_lock = threading.Lock()
_one_thread_holders = 0
_one_thread_saved = 1


@contextlib.contextmanager
def blas_on_one_thread() -> Iterator[None]:
    """NumPy's OpenBLAS on one thread while the block runs: set once by the caller of a team run
    whose members call BLAS on their own rows (backends/cpu/parallel.py), not by each member.
    The count is the process's, so entries are counted: the first one (of any Python thread, or
    nested) saves the count and sets 1, the last one out puts the saved count back.  While any
    holder runs, NumPy's own products in other threads of the process run on one thread too (a
    matter of speed only); after the last one leaves, the count is what it was before the first
    came in.  A count set by someone else while a holder runs is overwritten on the way out."""
    global _one_thread_holders, _one_thread_saved
    functions = thread_count_functions()
    if functions is None:
        yield
        return
    get, put = functions
    with _one_thread_lock:
        if _one_thread_holders == 0:
            _one_thread_saved = get()
            if _one_thread_saved != 1:
                put(1)
        _one_thread_holders += 1
    try:
        yield
    finally:
        with _one_thread_lock:
            _one_thread_holders -= 1
            if _one_thread_holders == 0 and _one_thread_saved != 1:
                put(_one_thread_saved)


def _one_thread_after_fork() -> None:
    """In a child process just forked: the holders of ``blas_on_one_thread`` were other threads
    of the parent (a team run under way there), which the child does not have, so nobody would
    put the count back or free the lock (fz27): a new lock, no holders, the saved count back."""
    global _one_thread_lock, _one_thread_holders
    _one_thread_lock = threading.Lock()
    if _one_thread_holders:
        _one_thread_holders = 0
        functions = thread_count_functions()
        if functions is not None and _one_thread_saved != 1:
            functions[1](_one_thread_saved)


os.register_at_fork(after_in_child=_one_thread_after_fork)


def _numpy_openblas() -> Library | None:
    try:
        import numpy as np

        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except Exception:  # an old NumPy without the dict form, or an unusual build
        return None
    if blas.get("name") != "scipy-openblas":
        return None
    ilp64 = "USE64BITINT" in blas.get("openblas configuration", "")
    stem = "libscipy_openblas64_" if ilp64 else "libscipy_openblas"
    folder = os.path.dirname(np.__file__)
    candidates = [path for pattern in (f"{folder}.libs/{stem}*", f"{folder}/.dylibs/{stem}*")
                  for path in sorted(glob.glob(pattern))
                  if (ilp64 or "openblas64" not in os.path.basename(path))]
    suffix = "_64_" if ilp64 else "_"
    for path in candidates:
        try:
            handle = ctypes.CDLL(path)  # already loaded by NumPy: the same handle, the same pool
        except OSError:
            continue

        def lookup(routine: str, handle=handle) -> int:
            try:
                return ctypes.cast(getattr(handle, f"scipy_{routine}{suffix}"), ctypes.c_void_p).value or 0
            except AttributeError:
                return 0

        if lookup("ddot") and lookup("dgemm"):
            return Library("numpy-openblas", 64 if ilp64 else 32, lookup, handle)
    return None


def _scipy_cython() -> Library | None:
    try:
        from scipy.linalg import cython_blas, cython_lapack
    except ImportError:
        return None
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]

    def lookup(routine: str) -> int:
        for module in (cython_blas, cython_lapack):
            capsule = module.__pyx_capi__.get(routine)
            if capsule is not None:
                return get_pointer(capsule, get_name(capsule)) or 0
        return 0

    return Library("scipy-cython", 32, lookup)
