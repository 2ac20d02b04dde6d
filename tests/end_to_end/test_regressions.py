"""Kernels an outside randomized run broke, each compared with the undecorated function.

Each module in ``regressions/`` keeps the kernel as found (function, sizes, ``make_args`` and
the options in its header); ``python regressions/X.py`` still runs it standalone.  Found:
a) an InternalError in the LLVM backend (an isl condition's integer 1 in an ``or`` of bools);
b)-g) compiles that did not finish in 120 s (isl's exact dataflow, the scheduler and the legality
checks on programs whose domains split into many pieces).  Each compile must finish within
``COMPILE_SECONDS`` of the compiling thread's CPU time (generous; about 10 s is the target;
CPU time, so that other jobs on a loaded CI machine do not count).
"""

from __future__ import annotations

import copy
import importlib.util
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import polyfuse

COMPILE_SECONDS = 30.0
REGRESSIONS = sorted(Path(__file__).parent.glob("regressions/[a-z]_*.py"))


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"regression_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _function(module: ModuleType):
    (fn,) = [v for name, v in vars(module).items() if name.startswith("kern_") and callable(v)]
    return fn


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.stem)
def test_regression_matches_python_and_compiles_in_bounded_time(path, monkeypatch):
    monkeypatch.delenv("POLYFUSE_COMPILE_SECONDS", raising=False)  # the user's default deadline
    module = _load(path)
    fn = _function(module)
    kernel = polyfuse.kernel(fn, verify=True, **(module.OPTIONS or {}))
    for idx in range(len(module.PARAM_SETS)):
        args, _ = module.make_args(idx)
        expected = copy.deepcopy(args)
        fn(*expected)
        start = time.thread_time()  # the compile's own work: another job's load does not count
        kernel.compile(*args)
        seconds = time.thread_time() - start
        assert seconds < COMPILE_SECONDS, f"{path.stem}: compile took {seconds:.1f} s of CPU"
        kernel(*args)
        for name, got, want in zip(module.ARG_ORDER, args, expected):
            if isinstance(want, np.ndarray):
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=f"{path.stem}: {name}")
