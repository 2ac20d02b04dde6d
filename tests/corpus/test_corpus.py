"""Every corpus kernel, every fusion mode and target, against the undecorated function."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

import polyfuse

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))


def _fuses(case, target: str, module_fuses: tuple[str, ...]) -> tuple[str, ...]:
    """Each fusion mode once: the loop program does not depend on the target, so the transformed
    schedules (smart, the default, and max) run on the cpu target, whose code is what users run,
    and the program order (none), the lowering as written, on the python backend.  A module whose
    ``FUSES`` leaves out max (its subject is how a construct is lowered, not how loops fuse; the
    property tests and the other modules run max) runs none and smart only."""
    wanted = ("none",) if target == "python" else ("smart", "max")
    narrowed = tuple(f for f in case.fuses if f in wanted and f in module_fuses)
    return narrowed or case.fuses[:1]


def _cases():
    for path in sorted(HERE.glob("num*_*.py")):
        module = importlib.import_module(path.stem)
        module_fuses = getattr(module, "FUSES", ("none", "smart", "max"))
        for case in module.CASES:
            for target in case.targets:
                for fuse in _fuses(case, target, module_fuses):
                    yield pytest.param(case, target, fuse, id=f"{path.stem}.{case.name}-{target}-{fuse}")


CASES = list(_cases())


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def assert_same(expected, actual, case, what: str) -> None:
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), f"{what}: {actual!r}"
        for k, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, case, f"{what}[{k}]")
        return
    if expected is None:
        assert actual is None, f"{what}: expected None, got {actual!r}"
        return
    # the same kind of value: an array for an array, np.float64 for np.float64, float for float
    assert type(actual) is type(expected), f"{what}: type {type(actual).__name__} != {type(expected).__name__}"
    e, a = np.asarray(expected), np.asarray(actual)
    assert a.dtype == e.dtype, f"{what}: dtype {a.dtype} != {e.dtype}"
    assert a.shape == e.shape, f"{what}: shape {a.shape} != {e.shape}"
    if e.dtype.kind in "biu":
        np.testing.assert_array_equal(a, e, err_msg=what)
    else:
        np.testing.assert_allclose(a, e, rtol=case.rtol, atol=case.atol, equal_nan=True, err_msg=what)


@pytest.mark.usefixtures("one_lift_per_program")  # the variants of a case are consecutive tests
@pytest.mark.parametrize("case, target, fuse", CASES)
def test_corpus_kernel_matches_the_undecorated_function(case, target, fuse):
    kernel = polyfuse.kernel(case.func, target=target, fuse=fuse, verify=True)
    for seed in (0, 1):
        args = case.make_args(np.random.default_rng(seed))
        expected_args = _copy(args)
        with np.errstate(all="ignore"):
            expected = case.func(*expected_args)
        actual_args = _copy(args)
        with np.errstate(all="ignore"):
            actual = kernel(*actual_args)
        assert_same(expected, actual, case, "return value")
        for k, (e, a) in enumerate(zip(expected_args, actual_args)):
            if isinstance(e, np.ndarray):
                assert_same(e, a, case, f"argument {k}")
