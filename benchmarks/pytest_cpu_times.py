"""A pytest plugin that writes each test's process CPU time (this process and its reaped
children, user + system) to ``$PYTEST_CPU_TIMES`` as ``seconds<TAB>test id`` lines.

    PYTHONPATH=benchmarks PYTEST_CPU_TIMES=/tmp/cpu.tsv \\
        python -m pytest -q -n 0 -p pytest_cpu_times tests/corpus -k np21

CPU time, not wall time: on a loaded machine a test's wall time counts the other processes.
"""

from __future__ import annotations

import os
import resource

import pytest


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = _cpu()
    yield
    path = os.environ.get("PYTEST_CPU_TIMES")
    if path:
        with open(path, "a") as out:
            out.write(f"{_cpu() - start:.4f}\t{item.nodeid}\n")
