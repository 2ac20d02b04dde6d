"""A pytest plugin that writes each test's process CPU time (this process and its reaped
children, user + system) to ``$PYTEST_CPU_TIMES`` as tab-separated lines: seconds, the
thread CPU seconds inside polyfuse's compiles (``compile_kernel``: front end to the backend's
IR), inside LLVM's generation of machine code on first calls (``LLVMKernel._generated``), and
the test id.  What is left of the first column is the test's own work: the reference
computations (the undecorated Python functions, NumPy), the compiled calls, hypothesis.

    PYTHONPATH=benchmarks PYTEST_CPU_TIMES=/tmp/cpu.tsv \\
        python -m pytest -q -n 0 -p pytest_cpu_times tests/corpus -k np21

CPU time, not wall time: on a loaded machine a test's wall time counts the other processes.
"""

from __future__ import annotations

import functools
import os
import resource
import time

import pytest

_spent = {"compile": 0.0, "machine code": 0.0}
_depth = {"compile": 0, "machine code": 0}


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(what: str, fn):
    """``fn`` with its thread CPU added to ``_spent[what]`` (outermost calls only)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _depth[what] += 1
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _depth[what] -= 1
            if not _depth[what]:
                _spent[what] += time.thread_time() - start
    return wrapper


def pytest_configure(config):
    import importlib

    from polyfuse import compiler

    # (kernel.py calls the compiler's compile_kernel by its own name for it: patched there)
    kernel_module = importlib.import_module("polyfuse.kernel")
    kernel_module.compile_kernel = _timed("compile", compiler.compile_kernel)
    try:
        from polyfuse.backends.cpu import llvm
    except ImportError:
        return
    llvm.LLVMKernel._generated = _timed("machine code", llvm.LLVMKernel._generated)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start, compiled, generated = _cpu(), _spent["compile"], _spent["machine code"]
    yield
    path = os.environ.get("PYTEST_CPU_TIMES")
    if path:
        with open(path, "a") as out:
            out.write(f"{_cpu() - start:.4f}\t{_spent['compile'] - compiled:.4f}\t"
                      f"{_spent['machine code'] - generated:.4f}\t{item.nodeid}\n")
