"""The record a corpus module lists for each kernel (see tests/corpus/README.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    """One kernel and how to call it.

    ``make_args(rng)`` returns the positional arguments (fresh arrays each time).  ``rtol``/``atol``
    compare floats; integers and bools must be equal.  ``fuses``/``targets`` narrow where a case
    runs (only when a mode cannot apply, with the reason in ``why_narrowed``)."""

    name: str
    func: Callable
    make_args: Callable[[Any], tuple]
    rtol: float = 1e-9
    atol: float = 1e-12
    fuses: tuple[str, ...] = ("none", "smart", "max")
    targets: tuple[str, ...] = ("python", "cpu")
    why_narrowed: str = ""
