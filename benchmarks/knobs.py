"""Environment knobs set around a call and restored after (the runtime reads them at each call),
and NumPy's BLAS held on one thread around a call, for the A/B scripts here that time
contenders with other settings in one process."""

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


def one_blas_thread(function):
    """``function`` run with NumPy's BLAS on one thread (threadpoolctl, imported only here: the
    scripts that never ask for it run without it)."""
    from threadpoolctl import threadpool_limits

    def run(*args):
        with threadpool_limits(1, user_api="blas"):
            function(*args)

    return run
