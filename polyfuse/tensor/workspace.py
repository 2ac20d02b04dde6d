"""Workspaces: intermediate buffers kept across calls, one buffer set per call at a time.

A :class:`Workspace` hands a call a set of scratch buffers of a layout and takes it back when
the call ends; einsum's staged calls and every spec keep one.  :func:`workspace_bytes` and
:func:`clear_workspaces` see all of them.  Separate because it is a small, thread-safe memory
pool with no knowledge of einsum or specs: both use it, neither owns it.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

#: A workspace keeps buffer sets for at most this many recent layouts (shape keys) ...
WORKSPACE_KEYS = 8
#: ... and at most this many sets of one layout (calls running at the same time each take one) ...
WORKSPACE_SETS = 2
#: ... and at most this many bytes in all; a set larger than this is allocated per call.
WORKSPACE_BYTES = 64 << 20

#: The buffers of one call: (shape, dtype) of each, in order.
Layout = tuple[tuple[tuple[int, ...], np.dtype], ...]

_workspaces: weakref.WeakSet[Workspace] = weakref.WeakSet()


class Workspace:
    """Scratch buffers for a call's intermediates, kept for the next call of the same layout.

    Why: a fresh multi-MiB ``np.empty`` costs its page faults on every call (the MLP spec at the
    bench sizes: 6.2 ms per call with two fresh 4 MiB intermediates, 4.35 ms when they are
    reused).  :meth:`take` hands a buffer set to one call at a time: it comes out of the pool or
    is allocated, and goes back when the call ends, so two threads calling at once get two sets.
    The pool is bounded by :data:`WORKSPACE_KEYS`, :data:`WORKSPACE_SETS` and
    :data:`WORKSPACE_BYTES` (least recently returned sets go first).  Buffers never leave the
    call: results are fresh arrays or the caller's ``out=``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: OrderedDict[Layout, list[list[np.ndarray]]] = OrderedDict()
        _workspaces.add(self)

    @contextmanager
    def take(self, layout: Layout) -> Iterator[list[np.ndarray]]:
        """A buffer set of ``layout`` for the duration of the ``with`` block (contents undefined)."""
        with self._lock:
            sets = self._free.get(layout)
            buffers = sets.pop() if sets else None
        if buffers is None:
            buffers = [np.empty(shape, dtype) for shape, dtype in layout]
        try:
            yield buffers
        finally:
            self._give_back(layout, buffers)

    def _give_back(self, layout: Layout, buffers: list[np.ndarray]) -> None:
        with self._lock:
            sets = self._free.setdefault(layout, [])
            self._free.move_to_end(layout)
            if len(sets) < WORKSPACE_SETS:
                sets.append(buffers)
            while self._free and (len(self._free) > WORKSPACE_KEYS or self._held() > WORKSPACE_BYTES):
                oldest, kept = next(iter(self._free.items()))
                if kept:
                    kept.pop(0)
                if not kept:
                    del self._free[oldest]

    def _held(self) -> int:
        return sum(b.nbytes for sets in self._free.values() for bufs in sets for b in bufs)

    def nbytes(self) -> int:
        """Bytes of the buffers this workspace keeps between calls (not those lent out now)."""
        with self._lock:
            return self._held()

    def clear(self) -> None:
        """Drop the kept buffers (lent ones come back and are kept again)."""
        with self._lock:
            self._free.clear()


def workspace_bytes() -> int:
    """Bytes that polyfuse keeps in workspaces between calls: every spec's and polyfuse.einsum's."""
    return sum(ws.nbytes() for ws in list(_workspaces))


def clear_workspaces() -> None:
    """Drop every kept workspace buffer (specs' and polyfuse.einsum's); later calls allocate afresh."""
    for ws in list(_workspaces):
        ws.clear()
