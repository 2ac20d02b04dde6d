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

import math
import sys
import threading
import types

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


# ``math`` functions whose IEEE result (what libdevice returns on a GPU, and what the NumPy ufunc
# of the user's function gives) Python's ``math`` replaces by ValueError or OverflowError, and the
# NumPy ufunc that computes that result instead.
_IEEE_UFUNCS = {
    "sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "exp2": "exp2", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "pow": "power", "fmod": "fmod", "ldexp": "ldexp",
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "arcsin", "acos": "arccos", "atanh": "arctanh",
    "acosh": "arccosh", "sinh": "sinh", "cosh": "cosh", "remainder": "remainder", "hypot": "hypot",
}


def _gamma(x: float) -> float:
    """``tgamma`` at math.gamma's errors: +-inf at a zero (its sign), NaN at a negative integer and
    at -inf, inf past the largest float."""
    if x == 0:
        return math.copysign(math.inf, x)
    if x < 0 and (x == math.floor(x) or math.isinf(x)):
        return math.nan
    return math.inf


def _ieee(name: str, function):
    if name in ("gamma", "lgamma"):
        fallback = _gamma if name == "gamma" else (lambda x: math.inf)  # lgamma at a pole: inf
    else:
        ufunc = getattr(np, _IEEE_UFUNCS[name])

        def fallback(*args):
            with np.errstate(all="ignore"):
                return float(ufunc(*(float(a) for a in args)))

    def wrapped(*args):
        try:
            result = function(*args)
        except (ValueError, OverflowError):
            result = fallback(*args)
        return _as_device_float(result, args)

    wrapped.__name__ = wrapped.__qualname__ = name
    return wrapped


def _as_device_float(result, args):
    """A float result as the NumPy scalar a GPU's function returns: float32 of float32 arguments,
    else float64. A Python float would raise ZeroDivisionError as a divisor (``1.0 / fmod(x, y)``
    where ``fmod`` gives 0.0: inf on a GPU) and would meet float32 values as a weak float."""
    if type(result) is not float:
        return result  # math.floor's int, math.isnan's bool
    single = all(isinstance(a, np.float32) for a in args if isinstance(a, (float, np.floating)))
    return np.float32(result) if single and any(isinstance(a, np.float32) for a in args) else np.float64(result)


def _numpy_floats(name: str, function):
    def wrapped(*args):
        return _as_device_float(function(*args), args)

    wrapped.__name__ = wrapped.__qualname__ = name
    return wrapped


def ieee_math():
    """A stand-in for ``math`` in kernels run on the simulator, whose functions return what CUDA's
    libdevice returns where Python's ``math`` raises: ``log(0.0)`` is -inf, ``sqrt(-1.0)`` and
    ``pow(-8.0, 1/3)`` NaN, ``exp(1000.0)`` inf, ``fmod(inf, 2.0)`` NaN. On a GPU numba compiles
    ``math`` itself; the simulator runs it as Python, and the user's function (NumPy's ufuncs on
    NumPy scalars) gives the IEEE values, so only the simulator needs this. ``floor`` and ``ceil``
    of NaN (an integer CUDA leaves undefined) still raise. Float results are NumPy scalars of the
    arguments' width (see ``_as_device_float``), and so are ``nan``, ``inf``, ``pi`` and ``e``."""
    module = types.ModuleType("polyfuse_ieee_math")
    for name in dir(math):
        if name.startswith("_"):
            continue
        value = getattr(math, name)
        if name in _IEEE_UFUNCS or name in ("gamma", "lgamma"):
            value = _ieee(name, value)
        elif callable(value):
            value = _numpy_floats(name, value)
        elif isinstance(value, float):
            value = np.float64(value)  # nan, inf, pi, e: a NumPy scalar divides by zero as a GPU does
        setattr(module, name, value)
    return module
