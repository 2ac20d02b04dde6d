"""Compiles, disk-cache loads, calls and explain() from many threads at once (isl is not thread-safe:
every isl use must hold the one lock)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import polyfuse


def scale_rows(A, s, out):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i, j] = A[i, j] * s[i]


def blur(x, y):
    for i in range(1, x.shape[0] - 1):
        y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1]


def row_sums(A, out):
    for i in range(A.shape[0]):
        out[i] = 0.0
        for j in range(A.shape[1]):
            out[i] += A[i, j]


def chain(x, t, y):
    for i in range(x.shape[0]):
        t[i] = x[i] * 2.0
    for i in range(1, x.shape[0]):
        y[i] = t[i] + t[i - 1]


def _args(func, dtype, rng):
    n = 9 + int(rng.integers(0, 4))
    if func is scale_rows:
        return rng.random((n, 5)).astype(dtype), rng.random(n).astype(dtype), np.zeros((n, 5), dtype)
    if func is row_sums:
        return rng.random((n, 4)).astype(dtype), np.zeros(n, dtype)
    if func is blur:
        return rng.random(n).astype(dtype), np.zeros(n, dtype)
    return rng.random(n).astype(dtype), np.zeros(n, dtype), np.zeros(n, dtype)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYFUSE_CACHE_DIR", str(tmp_path / "kernels"))
    monkeypatch.delenv("POLYFUSE_DISABLE_CACHE", raising=False)
    return tmp_path / "kernels"


def test_eight_threads_compile_load_call_and_explain_different_kernels(cache_dir):
    """Each round builds fresh kernel objects, so rounds after the first load from the disk cache
    while other threads compile; every result is compared with the undecorated function."""
    funcs = (scale_rows, blur, row_sums, chain)
    failures: list[str] = []
    start = threading.Barrier(8)

    def work(worker: int) -> None:
        rng = np.random.default_rng(worker)
        start.wait()
        for round_ in range(3):
            func = funcs[(worker + round_) % len(funcs)]
            dtype = np.float32 if (worker + round_) % 2 else np.float64
            kernel = polyfuse.kernel(func, fuse=("smart", "max")[worker % 2])
            args = _args(func, dtype, rng)
            expected = tuple(a.copy() for a in args)
            func(*expected)
            try:
                kernel(*args)
                kernel.explain(*args)
                for e, a in zip(expected, args):
                    np.testing.assert_allclose(a, e, rtol=1e-6)
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                failures.append(f"worker {worker} round {round_} {func.__name__} {dtype.__name__}: {exc!r}")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, "\n".join(failures)
    assert list(cache_dir.glob("*.pkl")), "nothing reached the disk cache"
