"""A view of an argument returned by a kernel on dask arrays: the same elements, sliced from the
argument's new value.

On numpy a kernel may return a view of an argument (``return B.T``, ``return x[1:]``, ``return
A[2]``): frontend.returns describes it by its extents, the argument index of its first element
and, per view axis, its step along each argument axis (model.scop.Returned).  Dask arrays are not
modified in place, so the view is taken of the argument's new dask array (or of the argument as it
came, when the kernel does not write it): an integer index along each argument axis no view axis
steps along, a slice with the view's step along each other one, then the view's order of axes
(``transpose``).  Dask slices lazily, so nothing is copied before the result is computed.  A view
axis that steps along two argument axes at once, or along none, is refused (no basic slice makes
it).
"""

from __future__ import annotations

from typing import Any

from polyfuse.errors import UnsupportedError
from polyfuse.model.scop import Returned
from polyfuse.runtime.variant import size_of_text


def sliced_view(base: Any, spec: Returned, values: dict[str, Any], span: Any) -> Any:
    """The view ``spec`` of ``base`` (a dask or numpy array) at the call's sizes ``values``."""
    along = _axes(spec, span)
    shape = tuple(max(0, size_of_text(text, values)) for text in spec.shape)
    if 0 in shape:
        return _empty(base, shape)
    start = [size_of_text(text, values) for text in spec.start]
    index: list[Any] = list(start)  # an argument axis no view axis steps along: the index of the view there
    for k, (axis, step) in enumerate(along):
        stop = start[axis] + step * shape[k]
        index[axis] = slice(start[axis], stop if stop >= 0 else None, step)
    kept = sorted(axis for axis, _ in along)  # the sliced array's axes, in the argument's order
    order = tuple(kept.index(axis) for axis, _ in along)
    result = base[tuple(index)]
    return result if order == tuple(range(len(order))) else result.transpose(order)


def _axes(spec: Returned, span: Any) -> list[tuple[int, int]]:
    """Per view axis, the one argument axis it steps along and its step."""
    along: list[tuple[int, int]] = []
    for steps in spec.steps:
        moving = [(axis, step) for axis, step in enumerate(steps) if step]
        if len(moving) != 1 or any(moving[0][0] == axis for axis, _ in along):
            raise UnsupportedError(f"on dask arrays a returned view of {spec.name} must step along one axis of "
                                   f"{spec.name} per axis of the view (a slice, an index, a transpose)", span, "return")
        along.append(moving[0])
    return along


def _empty(base: Any, shape: tuple[int, ...]) -> Any:
    """An empty result of the view's shape and the base's dtype (its elements are none of the base's)."""
    import dask.array as da
    import numpy as np

    return da.empty(shape, dtype=base.dtype) if hasattr(base, "dask") else np.empty(shape, dtype=base.dtype)
