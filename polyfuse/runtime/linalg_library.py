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

import ctypes
import functools
import glob
import os
from dataclasses import dataclass, field
from typing import Any


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
    choice = os.environ.get("POLYFUSE_BLAS", "numpy")
    if choice not in ("numpy", "scipy", "none"):
        raise ValueError(f"POLYFUSE_BLAS={choice!r}: expected 'numpy', 'scipy' or 'none'")
    if choice == "none":
        return None
    return (_numpy_openblas() if choice == "numpy" else None) or _scipy_cython()


def describe() -> str:
    found = library()
    return "none" if found is None else f"{found.name}/int{found.int_bits}"


@functools.cache
def thread_count_setter() -> int:
    """The address of NumPy's OpenBLAS ``openblas_set_num_threads_local`` (OpenBLAS >= 0.3.27:
    ``int f(int)`` sets the thread count of the calling thread's BLAS calls only and returns the
    one before), or 0 where the library in use is another one or lacks it.  Products that
    polyfuse's own threads split by rows (backends/cpu/phases.py, ``row_chunked``) call BLAS on
    one thread each through it, so that no OpenBLAS worker spins beside polyfuse's."""
    found = library()
    if found is None or found.name != "numpy-openblas":
        return 0
    try:
        return ctypes.cast(found.handle.openblas_set_num_threads_local, ctypes.c_void_p).value or 0
    except AttributeError:
        return 0


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
