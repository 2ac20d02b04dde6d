"""Native entries: one call plan's whole call (argument checks, overlap check, kernel-local
arrays, the phases, the return value) as one machine-code function that CPython calls directly,
made for a plan on its ``NATIVE_AFTER``-th call.  This module says what an entry checks and does
(``EntrySpec``); backends/cpu/entry.py emits the machine code.

Why: a ``CallPlan`` (runtime/variant.py) already skips everything that depends only on sizes, but
its Python path still costs a few microseconds: the key of every argument (a tuple of the
dtype, shape, strides and writeable flag), the data pointers, the overlap ranges, and ctypes,
which converts each argument of each phase function (~0.1 us each).  For a kernel whose work is
a few nanoseconds (numpy-benchmarks' ``hasting``: three scalar expressions) that is the whole
time.  An entry does the same checks on the objects' C fields, in machine code:

* the argument count; per array argument: exactly ``np.ndarray``, the same dtype object the
  plan saw (its key, which the entry keeps, holds it), the rank, every extent and stride, the
  writeable flag (``call_key``'s fields, all of them); per int: exactly the type the plan saw
  (``int`` or a numpy integer type) and the same value; per float: exactly the type the plan saw
  (``float``, ``np.float64`` or ``np.float32``);
* per pair of arrays that must not overlap: the byte ranges apart;
* for a parallel phase it calls serially (measured too small for threads, or one thread): that
  the measurement still stands (``LLVMKernel.serial_epoch``), or the thread count
  (``threads.THREADS_EPOCH``).

If any check fails, nothing has run and it returns ``MISS``: the Kernel then takes the
``CallPlan`` path, which decides as before (another plan, the full checks, the same errors; byte
ranges that meet go to ``np.shares_memory`` there).  Otherwise it takes its own set of
kernel-local arrays (a compare-and-swap: a set in use by another thread's call is a miss, and
that call takes the plan's pool) and zeroes those the pool zeroes; where the kernel has an
index-error flag (one per module, not per call), owns it (a compare-and-swap of its own word
while no Python-path call holds the flag: ``LLVMKernel.owning_index_flags``; else a miss, and the
Python path waits its turn); makes the fresh result arrays
(the plan's makers), lets go of the GIL (compiled code runs without it, as through ctypes),
calls the phases with the plan's size arguments, checks the index-error flag after each (where it
is set, the kernel's ``raise_index_error`` raises), takes the GIL back and returns what the
kernel returns: None, a result array, an argument, a permutation of one (``ndarray.transpose``) or
what a Python ``finish`` makes of the arguments and results (other views, tuples, scalars).  The
Kernel calls the entry itself: no Python frame between ``kernel(*args)`` and the machine code.

Numpy bool scalars, complex numbers and device arrays get no entry (their calls keep the plan's
Python path); neither do plans whose phases run on threads (their work is
long: the call path is a small part of it) or whose local arrays are too large to keep.

The entry reads ``PyArrayObject``'s fields at NumPy's public ABI offsets, each object's type at
``PyObject``'s and a tuple's first item at ``PyTupleObject``'s; ``available()`` checks them on
probe objects once, and where they differ (another Python, a debug build) no entry is made.
``POLYFUSE_NATIVE_ENTRY=0`` turns entries off (read when a plan is made).
"""

from __future__ import annotations

import ctypes
import platform
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyfuse.model.scop import Returned
from polyfuse.runtime import threads
from polyfuse.runtime.variant import PLAN_INT_SCALARS, CallPlan, address, returned

# PyObject's type and PyArrayObject's fields (numpy/ndarraytypes.h, ``PyArrayObject_fields``)
TYPE, DATA, NDIM, DIMS, STRIDES, DESCR, FLAGS = 8, 16, 24, 32, 40, 56, 64
WRITEABLE = 0x0400  # NPY_ARRAY_WRITEABLE
TUPLE_ITEMS = 24  # PyTupleObject's ob_item (an entry's table is the first item of its __self__)


@dataclass(frozen=True)
class ArrayGuard:
    """An array argument as the plan saw it."""

    descr: int  # id() of its dtype object (the spec keeps the plan's key, which holds it)
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    writeable: bool
    span: tuple[int, int]  # [first, last + 1) bytes it touches from its data pointer


@dataclass(frozen=True)
class IntGuard:
    """An int argument: exactly ``int`` (``size`` 0) or a numpy integer scalar type, whose value
    is a C integer of ``size`` bytes right after the object header."""

    value: int
    pytype: int  # id() of its type
    size: int = 0
    signed: bool = True


@dataclass(frozen=True)
class FloatGuard:
    """A float argument: exactly ``float`` or ``np.float64`` (``size`` 8: a C double, read through
    PyFloat_AsDouble), or ``np.float32`` (``size`` 4: a C float after the header)."""

    pytype: int  # id() of its type
    size: int = 8


Guard = ArrayGuard | IntGuard | FloatGuard


@dataclass(frozen=True)
class PhaseCall:
    """One phase called serially: its function's address and, for a parallel phase, its trip count
    (the function then takes the iterations [0, count))."""

    address: int
    count: int | None = None


@dataclass(frozen=True)
class Result:
    """A fresh result array: ``make(shape, dtype)``."""

    make: Callable[..., Any]
    shape: tuple[int, ...]
    dtype: Any


@dataclass(frozen=True)
class Finish:
    """What the entry returns after the phases ran: ``function(*operands)``, an operand being
    ("arg", k), ("result", j) or ("object", value); ``function`` None: the single operand itself."""

    function: Callable[..., Any] | None
    operands: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, eq=False)
class EntrySpec:
    """Everything one entry checks, makes and calls."""

    guards: tuple[Guard, ...]  # one per argument, in order
    results: tuple[Result, ...]  # fresh result arrays
    tail: tuple[int | tuple[str, int], ...]  # i64 values after the arguments; ("result", j) for result j
    pairs: tuple[tuple[int, int], ...]  # argument positions that must not overlap
    phases: tuple[PhaseCall, ...]
    finish: Finish | None  # None: the kernel returns None
    miss: Any  # returned where a check fails
    raiser: Callable[[], Any]  # raises the error a phase recorded in the index-error flag
    index_flag: int = 0  # address of the index-error flag, 0 where there is none
    # addresses of the kernel's (Python-path, native-entry) owner words of that flag: an entry
    # runs only where no other call holds it (LLVMKernel.owning_index_flags), else misses
    index_owners: tuple[int, int] = (0, 0)
    epochs: tuple[tuple[int, int], ...] = ()  # (address, value): int64s that must still hold their values
    # kernel-local arrays of the entry's own (their addresses are in ``tail``): ``busy``, the
    # address of an int64 that a call sets from 0 to 1 while it uses them (a call that finds it 1,
    # from another thread, misses and takes the plan's pool), and the (address, bytes) zeroed first
    busy: int = 0
    zero: tuple[tuple[int, int], ...] = ()
    keep: tuple = ()  # what those addresses belong to
    # the address of an int64 that each call takes one from, missing at 0 (0: none): the calls a
    # product on the library's threads may run without the runtime's measurement (``library_calls``)
    countdown: int = 0


def available() -> bool:
    """Whether this Python and NumPy lay out objects as the entries read them (checked once)."""
    if _LAYOUT_OK is None:
        _probe()
    return bool(_LAYOUT_OK)


_LAYOUT_OK: bool | None = None


def _probe() -> None:
    global _LAYOUT_OK
    _LAYOUT_OK = platform.python_implementation() == "CPython" and ctypes.sizeof(ctypes.c_void_p) == 8 and all(
        _fields_read_back(p) for p in _probe_arrays()
    ) and all(_word(id(x), TYPE) == id(type(x)) for x in (1, 2.5, np.float64(2.5))) and all(
        _word(id(t), TUPLE_ITEMS) == id(t[0]) for t in ((np.empty(1), 2), (3.5,))) and all(
        _scalar_read_back(x) for x in (np.int8(-5), np.uint16(65000), np.int64(-2**40), np.float32(1.25)))


def _probe_arrays() -> list[np.ndarray]:
    readonly = np.arange(4.0)
    readonly.flags.writeable = False
    return [np.arange(6.0)[1:], np.zeros((3, 4), dtype=np.int32)[:, 1::2], np.empty(0),
            np.empty((2, 3, 4)).transpose(2, 0, 1)[::-1], readonly]


def _word(address: int, offset: int) -> int:
    return ctypes.c_int64.from_address(address + offset).value


def _scalar_read_back(value: np.generic) -> bool:
    """A numpy scalar's value right after its object header, as an entry reads it."""
    kinds: dict[str, Any] = {"i1": ctypes.c_int8, "u2": ctypes.c_uint16, "i8": ctypes.c_int64, "f4": ctypes.c_float}
    kind = kinds[value.dtype.str[1:]]
    return _word(id(value), TYPE) == id(type(value)) and kind.from_address(id(value) + DATA).value == value


def _fields_read_back(array: np.ndarray) -> bool:
    base = id(array)
    ndim = ctypes.c_int32.from_address(base + NDIM).value
    dims, strides = _word(base, DIMS), _word(base, STRIDES)
    flags = ctypes.c_int32.from_address(base + FLAGS).value
    return (_word(base, TYPE) == id(np.ndarray) and _word(base, DATA) == array.ctypes.data and ndim == array.ndim
            and tuple(_word(dims, 8 * d) for d in range(ndim)) == array.shape
            and tuple(_word(strides, 8 * d) for d in range(ndim)) == array.strides
            and _word(base, DESCR) == id(array.dtype) and bool(flags & WRITEABLE) == array.flags.writeable)



# ---- a plan's native entry ----------------------------------------------------------------------

NATIVE_AFTER = 4  # a plan's calls before its native entry is made


class _Miss:
    def __repr__(self) -> str:
        return "MISS"


MISS = _Miss()  # what an entry returns where the call is not its plan's (nothing ran)


def warm(plan: CallPlan, key: tuple) -> None:
    """Count a call of ``plan`` (at ``key``, its arguments' ``call_key``); from the
    ``NATIVE_AFTER``-th, make its native entry where the plan allows one (tried again at powers of
    two: a phase measured on threads now may be measured serial later; and on the first call after
    the thread count changed: phases that ran on the team run serially on one thread, and
    ``threads.limited_to(1)`` around a series of calls -- the bench's one-thread column -- would
    otherwise reach the entry only at the next power of two, or never)."""
    plan.calls = calls = plan.calls + 1
    if calls < NATIVE_AFTER or not plan.native:
        return
    epoch = threads.THREADS_EPOCH.value
    if not calls & (calls - 1) or plan.tried_epoch not in (None, epoch):
        plan.tried_epoch = epoch
        plan.fast = native_call(plan, key)


def outdated(plan: CallPlan) -> bool:
    """Whether the thread count changed since ``plan`` last tried to make its native entry: an
    entry made then misses every call from now on (its ``threads.THREADS_EPOCH`` word), and the
    caller asks :func:`warm` to make it anew.  Without this, an entry once made was never made
    again: after the bench's one-thread column (``threads.limited_to(1)``) every call of the
    kernel, on one thread and on two again, ran the plan's Python path after two misses (3mm at
    the bench size, load 17: 4.1-4.3 ms a call against 3.8 by the entry, docs/performance.md,
    session 35); a plan whose entry was never made tries at powers of two and at such changes
    already (``warm``)."""
    return plan.tried_epoch is not None and plan.tried_epoch != threads.THREADS_EPOCH.value


def guards(plan: CallPlan, key: tuple) -> tuple[Guard, ...] | None:
    """What a native entry checks of each argument: exactly what ``call_key`` keyed the plan on
    (``key``); None where an argument is of a kind the entries do not read (those calls keep the
    plan's Python path)."""
    if not available():
        return None
    spans = dict(zip(plan.arrays, plan.spans))
    found: list[Guard] = []
    for k, (argument, part) in enumerate(zip(plan.arguments, key)):
        if argument.kind == "array" and type(part) is tuple and isinstance(part[0], np.dtype):
            dtype, shape, strides, writeable = part
            found.append(ArrayGuard(id(dtype), shape, strides, writeable, spans[k]))
        elif argument.kind == "int" and type(part) is int:
            found.append(IntGuard(part, id(int)))
        elif argument.kind == "int" and type(part) is tuple and part[0] in PLAN_INT_SCALARS:
            kind, value = part
            found.append(IntGuard(value, id(kind), np.dtype(kind).itemsize, np.dtype(kind).kind == "i"))
        elif argument.kind == "float" and part in (float, np.float64, np.float32):
            found.append(FloatGuard(id(part), 4 if part is np.float32 else 8))
        else:
            return None
    return tuple(found)


def native_call(plan: CallPlan, key: tuple) -> Callable[..., Any] | None:
    """``entry(*args) -> result``: the plan's native entry, which returns ``MISS`` (nothing ran)
    where the arguments are not the plan's; None where a phase would not run serially now."""
    launch, kernel, checks = plan.launch, plan.launch.kernel, guards(plan, key)
    keys = launch.serial_keys()
    # a parallel phase runs serially where it was measured too small for threads, or on one thread
    epochs = [(ctypes.addressof(kernel.serial_epoch), kernel.serial_epoch.value)] if keys else []
    countdown = launch.library_countdown()
    if countdown is not None:  # products on the library's threads while their measurement allows
        launch.disarm()  # (an entry made anew, the thread count changed: the new count's measurement decides)
        keys = keys - launch.library_keys()
        epochs.append((ctypes.addressof(threads.THREADS_EPOCH), threads.THREADS_EPOCH.value))
    if keys and not keys <= kernel.serial_sizes:
        if threads.get_num_threads() != 1 or (countdown is None and kernel.has_library()):
            return None  # (a product whose library's threads are a candidate: measured on one thread too)
        epochs = [(ctypes.addressof(threads.THREADS_EPOCH), threads.THREADS_EPOCH.value)]
    if checks is None or not all(type(v) is int for v in plan.tail):
        return None  # an argument the entries do not read, or a size argument that is not an int
    results = getattr(plan, "results", ())
    slots = {slot: j for j, (_, _, _, _, slot) in enumerate(results)}
    # the entry's own set of kernel-local arrays (the plan's pool serves calls while it is in use)
    own = plan.locals.new_set() if plan.locals is not None else None
    busy = ctypes.c_int64(0)
    tail = own.tail if own is not None else plan.tail

    def raiser() -> None:
        kernel.raise_index_error()  # a phase recorded an index error (or a failed assert)
        raise AssertionError("a native entry saw an index error that was not recorded")

    spec = EntrySpec(
        guards=checks, results=tuple(Result(make, shape, dtype) for _, make, shape, dtype, _ in results),
        tail=tuple(("result", slots[k]) if k in slots else value for k, value in enumerate(tail)),
        pairs=tuple((plan.arrays[i], plan.arrays[j]) for i, j, _ in plan.pairs),
        phases=() if plan.run == plan._run_views else tuple(PhaseCall(c.address, c.count) for c in launch.serial),
        finish=_finish(plan), miss=MISS, raiser=raiser, index_flag=launch.index_flag(),
        index_owners=launch.index_owners(),
        # the parallel phases run serially while ``serial_sizes`` is not measured anew (parallel.py)
        # or the thread count stays 1
        epochs=tuple(epochs),
        busy=ctypes.addressof(busy) if own is not None else 0,
        zero=tuple((address(array), array.nbytes) for array in own.zeroed) if own is not None else (),
        keep=(own, busy, key),  # the key holds the dtypes whose addresses the entry compares
        countdown=0 if countdown is None else ctypes.addressof(countdown),
    )
    return launch.compile_entry(spec)


def _finish(plan: CallPlan):
    """What a native entry returns after its phases ran: what ``_run_returning`` returns."""
    spec = plan.variant_returns
    if spec is None:
        return None
    names = [name for name, *_ in plan.results]
    positions = dict(plan.positions)
    if isinstance(spec, Returned) and spec.how == "array":
        return Finish(None, (("result", names.index(spec.name)),))
    if isinstance(spec, Returned) and spec.how == "arg":
        return Finish(None, (("arg", positions[spec.name]),))
    if isinstance(spec, Returned) and spec.how == "view" and plan.views[id(spec)].axes is not None:
        # ``.T``, ``np.transpose``: what view_of does for a permutation, without its tests
        return Finish(np.ndarray.transpose, (("arg", positions[spec.name]), ("object", plan.views[id(spec)].axes)))
    views, count = plan.views, len(plan.arguments)

    def finish(*operands: Any) -> Any:
        values = dict(zip(names, operands[count:]))
        for name, k in positions.items():
            values[name] = operands[k]
        return returned(spec, values, views)

    return Finish(finish, tuple(("arg", k) for k in range(count)) + tuple(("result", j) for j in range(len(names))))
