"""A pytest plugin that writes every disk-cache lookup of polyfuse's compiles to
``$PYTEST_CACHE_KEYS.<worker>.tsv`` (one file per test process; ``main`` without xdist) as
tab-separated lines: the worker, the test id, the cache key's first 16 hex digits, ``hit`` or
``miss``, the thread CPU seconds of the compile that followed a miss (``compile_kernel``), of
LLVM's machine code generated while the kernel stayed the latest looked up (first calls) and of
making and writing its cache entries (``_cache_entry``: the explanation the entry keeps;
``cache.store``: pickling).

    PYTHONPATH=benchmarks PYTEST_CACHE_KEYS=/tmp/keys python -m pytest -q -p pytest_cache_keys

``benchmarks/cache_key_repeats.py /tmp/keys.*.tsv`` then counts the misses of one key in more
than one process: the compiles a cache folder shared by the run's test processes would save.
``$PYTEST_CACHE_KEYS.<worker>.span`` holds the wall clock of the process's first test's start and
last test's end and its test count (the idle tail of a process that ran out of tests).
Only CPU-target compiles with the cache on look a key up; the others are counted as ``none``,
keyed ``py...`` by their function's code, signature and options.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time

_rows: list[list] = []
_test = {"id": ""}
_span: dict[str, float] = {}  # wall clock of the process's first test start and last test end


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _uncached_key(py_func, arguments, options) -> str:
    """The function's code (file, line, bytecode), signature and options, hashed: a compile
    that no cache key names (the python target, ``cache=False``) seen again in a process."""
    from polyfuse.runtime.signature import signature_key

    code = getattr(py_func, "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}:{code.co_code.hex()}" if code else repr(py_func)
    text = f"{where}\n{signature_key(arguments)}\n{options.key()}"
    return "py" + hashlib.sha256(text.encode()).hexdigest()[:14]


def pytest_configure(config):
    import importlib

    from polyfuse import compiler
    from polyfuse.runtime import cache

    original_load = cache.load

    @functools.wraps(original_load)
    def load(key):
        entry = original_load(key)
        _rows.append([_worker(), _test["id"], key[:16], "miss" if entry is None else "hit", 0.0, 0.0, 0.0])
        return entry

    cache.load = load
    original_store = cache.store

    @functools.wraps(original_store)
    def store(key, entry):
        start = time.thread_time()
        try:
            return original_store(key, entry)
        finally:
            if _rows:
                _rows[-1][6] += time.thread_time() - start

    cache.store = store
    kernel_module = importlib.import_module("polyfuse.kernel")
    original_entry = kernel_module._cache_entry  # the entry's explanation: rendered for the cache

    @functools.wraps(original_entry)
    def cache_entry(variant, options):
        start = time.thread_time()
        try:
            return original_entry(variant, options)
        finally:
            if _rows:
                _rows[-1][6] += time.thread_time() - start

    kernel_module._cache_entry = cache_entry
    original_compile = compiler.compile_kernel

    @functools.wraps(original_compile)
    def compile_kernel(py_func, arguments, options):
        start = time.thread_time()
        try:
            return original_compile(py_func, arguments, options)
        finally:
            spent = time.thread_time() - start
            if options.target == "cpu" and _rows and _rows[-1][3] == "miss":
                _rows[-1][4] += spent
            else:  # python target, or the cache off: no cache key; ``py`` + what would name it
                _rows.append([_worker(), _test["id"], _uncached_key(py_func, arguments, options), "none", spent, 0.0, 0.0])

    kernel_module.compile_kernel = compile_kernel
    try:
        from polyfuse.backends.cpu import llvm
    except ImportError:
        return
    original_generated = llvm.LLVMKernel._generated

    @functools.wraps(original_generated)
    def generated(self, *args, **kwargs):
        start = time.thread_time()
        try:
            return original_generated(self, *args, **kwargs)
        finally:
            if _rows:
                _rows[-1][5] += time.thread_time() - start

    llvm.LLVMKernel._generated = generated


def pytest_runtest_protocol(item, nextitem):
    _test["id"] = item.nodeid
    _span.setdefault("first", time.time())


def pytest_runtest_logfinish(nodeid, location):
    _span["last"] = time.time()
    _span["tests"] = _span.get("tests", 0) + 1


def pytest_unconfigure(config):
    out = os.environ.get("PYTEST_CACHE_KEYS")
    if not out or not _rows:
        return
    with open(f"{out}.{_worker()}.span", "w") as handle:
        handle.write(f"{_worker()}\t{_span.get('first', 0):.1f}\t{_span.get('last', 0):.1f}\t{_span.get('tests', 0)}\n")
    with open(f"{out}.{_worker()}.tsv", "w") as handle:
        for row in _rows:
            handle.write("\t".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row) + "\n")
