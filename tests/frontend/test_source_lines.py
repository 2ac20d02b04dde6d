"""frontend.source.source_lines finds each function's lines as inspect.getsourcelines does
(it skips inspect's tokenizer where the code object says where the function ends)."""

from __future__ import annotations

import importlib
import inspect
import linecache
import sys
import types
from pathlib import Path

import pytest
from polyfuse.frontend.source import read_source, register_source, source_lines

from polyfuse.bench import numpy_suite, suite
from polyfuse.errors import UnsupportedError

CORPUS_DIR = Path(__file__).parent.parent / "corpus"
CORPUS = sorted(p.stem for p in CORPUS_DIR.glob("num*.py"))


def _functions(module: types.ModuleType) -> list[types.FunctionType]:
    return [v for v in vars(module).values()
            if isinstance(v, types.FunctionType) and v.__module__ == module.__name__]


@pytest.mark.parametrize("module", [suite, numpy_suite], ids=lambda m: m.__name__)
def test_the_suites_functions(module):
    functions = _functions(module) + [k.func for k in getattr(module, "KERNELS", {}).values()]
    assert functions
    for fn in functions:
        assert source_lines(fn) == inspect.getsourcelines(fn), fn.__qualname__


@pytest.mark.parametrize("name", CORPUS)
def test_the_corpus_functions(name):
    if str(CORPUS_DIR) not in sys.path:
        sys.path.insert(0, str(CORPUS_DIR))  # as tests/corpus/test_corpus.py imports them
    module = importlib.import_module(name)
    for fn in _functions(module):
        assert source_lines(fn) == inspect.getsourcelines(fn), fn.__qualname__


def _decorated(x):
    return x


@_decorated
def one_line(a): return a + 1  # noqa: E704


def closing_bracket_after_the_last_instruction(a):
    return (a +
            1
)


def nested_and_trailing_comment(a):
    def inner(b):
        return [b * k for k in range(3)]
    # a comment, then a blank line

    return inner(a)
# the next function starts here


def test_forms_that_end_unusually():
    for fn in (one_line, closing_bracket_after_the_last_instruction, nested_and_trailing_comment):
        assert source_lines(fn) == inspect.getsourcelines(fn), fn.__name__


def test_code_registered_in_linecache():
    text = "def added(a):\n    return a * 2\n"
    filename = "<polyfuse-test-source-lines>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(text, filename, "exec"), namespace)
    assert source_lines(namespace["added"]) == (text.splitlines(True), 1)


def test_registered_source_survives_clearcache():
    """Generated kernels (dask block variants, einsum kernels, kernels unpickled where their
    file is gone) compile again for each new signature; ``linecache.clearcache()`` (IPython and
    some tests call it) must not make their source unreadable: a later variant of a dask block
    kernel failed with 'cannot read the source' when a test in between cleared the cache."""
    text = "def tripled(a):\n    return a * 3\n"
    filename = "<polyfuse-test-registered-source>"
    register_source(filename, text)
    namespace: dict = {}
    exec(compile(text, filename, "exec"), namespace)
    linecache.clearcache()
    assert read_source(namespace["tripled"]).tree.name == "tripled"
    assert source_lines(namespace["tripled"]) == (text.splitlines(True), 1)
    assert linecache.getlines(filename) == text.splitlines(True)  # tracebacks show it again


def test_source_of_another_function_after_the_file_changed_is_refused():
    """Lines added above a function after it was defined move its code object's first line into
    the function before it, which inspect walks back to: compiling that one ran another kernel
    than Python runs (``second`` gave ``first``'s sum, 7.0 for the product 8.0; fe53).  Refused,
    naming both, where the def found is not the function's name and parameters."""
    text = "def first(x):\n    return x + 1\n\n\ndef second(x):\n    return x * 2\n"
    filename = "<polyfuse-test-changed-source>"
    register_source(filename, text)
    namespace: dict = {}
    exec(compile(text, filename, "exec"), namespace)
    assert read_source(namespace["second"]).tree.name == "second"
    register_source(filename, "def added(y):\n    return y\n\n\n" + text)  # the file as edited
    with pytest.raises(UnsupportedError, match=r"'second'.*:5 now holds 'def first\(x\)'.*file changed"):
        read_source(namespace["second"])
    register_source(filename, text.replace("def second(x)", "def second(y, z)"))
    with pytest.raises(UnsupportedError, match=r"'def second\(y, z\)', not 'def second\(x\)'"):
        read_source(namespace["second"])
