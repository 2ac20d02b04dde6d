"""Environment knobs set around a call and restored after (the runtime reads them at each call),
for the A/B scripts here that time contenders with other knobs in one process."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def knobs_set(knobs: dict[str, str]) -> Iterator[None]:
    """``knobs`` in ``os.environ`` while the block runs; each name's old value (or absence) after."""
    saved = {k: os.environ.get(k) for k in knobs}
    os.environ.update(knobs)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def with_knobs(function, knobs: dict[str, str]):
    """``function`` run with ``knobs`` set (``knobs_set``)."""
    def run(*args):
        with knobs_set(knobs):
            function(*args)

    return run
