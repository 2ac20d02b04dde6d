"""benchmarks/thread_cpu_ab.py counts every thread's CPU time, not only the caller's."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import threading
import time

import pytest

_PATH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "thread_cpu_ab.py"


def _module():
    spec = importlib.util.spec_from_file_location("thread_cpu_ab", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread CPU clocks of Linux")
def test_the_busiest_thread_is_the_one_that_worked():
    call_times = _module().call_times

    def spin(seconds: float) -> None:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    go, finished, leave = threading.Event(), threading.Event(), threading.Event()

    def pool_thread() -> None:  # a thread that outlives the call, as a library's pool does
        go.wait(30)
        spin(0.03)
        finished.set()
        leave.wait(30)

    worker = threading.Thread(target=pool_thread)
    worker.start()

    def call() -> None:  # the caller waits while the other thread burns 30 ms of CPU
        go.set()
        finished.wait(30)

    try:
        wall, busiest, cpu, waited, bound = call_times(call, ())
    finally:
        leave.set()
        worker.join()
    assert busiest >= 0.029 and cpu >= busiest and wall >= busiest and waited >= 0 and bound >= busiest
    wall, busiest, cpu, _, _ = call_times(lambda: spin(0.02), ())  # the caller itself
    assert 0.019 <= busiest <= cpu and wall >= 0.019
