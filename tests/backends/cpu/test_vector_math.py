"""Inline exp and log (``vector_math=True``, the default on target="cpu"): within 2 ulp of
Python's math module on every range, special values exactly as libm."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")


def exps(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i])


def logs(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log(x[i])


def _ulps(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    finite = np.isfinite(expected) & (expected != 0)
    return np.abs(actual[finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))


def _reference(fn, x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x, dtype=np.float64)
    for i, v in enumerate(x.astype(np.float64)):
        try:
            out[i] = fn(v)
        except (ValueError, OverflowError):
            out[i] = np.nan if v < 0 or math.isnan(v) else (-np.inf if v == 0 else np.inf)
    return out


def _run(kernel, x):
    out = np.empty_like(x)
    kernel(x, out)
    return out


def test_exp_within_two_ulp_everywhere():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-745, 709.7, 20000), rng.uniform(-1, 1, 20000),
                        rng.uniform(-1e-8, 1e-8, 2000), [0.0, -0.0, 1.0, -1.0, 709.78, -745.1]])
    actual = _run(polyfuse.kernel(exps), x)
    assert _ulps(actual, _reference(math.exp, x)).max() <= 2


def test_log_within_two_ulp_everywhere():
    rng = np.random.default_rng(1)
    x = np.concatenate([10.0 ** rng.uniform(-307, 308, 20000), rng.uniform(0.5, 2.0, 20000),
                        1.0 + rng.uniform(-1e-6, 1e-6, 2000), [5e-324, 1e-310, 2.2250738585072014e-308,
                                                               1.0, 2.0, 0.5, 1.7976931348623157e308]])
    actual = _run(polyfuse.kernel(logs), x)
    assert _ulps(actual, _reference(math.log, x)).max() <= 2


@pytest.mark.parametrize("fn, values, expected", [
    (exps, [np.inf, -np.inf, np.nan, 710.0, -800.0], [np.inf, 0.0, np.nan, np.inf, 0.0]),
    (logs, [np.inf, 0.0, -0.0, -1.0, np.nan, -np.inf], [np.inf, -np.inf, -np.inf, np.nan, np.nan, np.nan]),
])
def test_special_values_as_libm(fn, values, expected):
    actual = _run(polyfuse.kernel(fn), np.array(values))
    np.testing.assert_array_equal(actual, np.array(expected))


@pytest.mark.parametrize("fn, ref", [(exps, math.exp), (logs, math.log)])
def test_float32_within_one_ulp_of_the_rounded_double(fn, ref):
    x = np.random.default_rng(2).uniform(0.01, 80.0, 5000).astype(np.float32)
    actual = _run(polyfuse.kernel(fn), x)
    expected = _reference(ref, x).astype(np.float32)
    assert np.max(np.abs(actual - expected) / np.spacing(np.abs(expected))) <= 1


@pytest.mark.parametrize("fn, ref", [(exps, math.exp), (logs, math.log)])
def test_vector_math_off_is_exactly_libm(fn, ref):
    x = np.random.default_rng(3).uniform(0.01, 50.0, 1000)
    actual = _run(polyfuse.kernel(fn, vector_math=False), x)
    np.testing.assert_array_equal(actual, _reference(ref, x))


def test_the_inline_functions_vectorize():
    x = np.ones(64)
    for fn in (exps, logs):
        ir = polyfuse.kernel(fn).inspect_llvm(x, np.empty(64))
        assert "<8 x double>" in ir or "<4 x double>" in ir
        assert "@llvm.exp" not in ir and "@llvm.log" not in ir
