"""Inline exp and log (``vector_math=True``, the default on target="cpu"): within 1 ulp of
Python's math module (libm) on every range, as the docs promise (measured maximum: 1.0 ulp on
1.4 M exp and 1.2 M log arguments), special values exactly as libm."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from conftest import HAS_CPU, ulps_against_libm

import polyfuse
from polyfuse.options import math_loop_interleave

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")


def exps(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i])


def logs(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log(x[i])


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


EDGES_EXP = [0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 1e-300, 709.78, 709.782712893384, -708.3964185322641,
             -708.39641853226408, -744.44007192138122, -745.1, -745.13321910194110, 0.5 * math.log(2),
             math.log(2), -math.log(2), 88.72283905206835, -103.97208142137205]


def test_exp_within_one_ulp_everywhere():
    """The whole finite range, [-1, 1], tiny arguments, the subnormal results below exp(-708.4)
    (where an ulp is 5e-324) and the last normal ones before overflow."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-745.2, 709.78, 100000), rng.uniform(-1, 1, 50000),
                        rng.uniform(-1e-8, 1e-8, 10000), rng.uniform(-745.2, -708.3, 20000),
                        rng.uniform(700, 709.78, 20000), np.linspace(-746, 710, 20001), EDGES_EXP])
    with np.errstate(under="ignore"):
        actual = _run(polyfuse.kernel(exps), x)
    ulps = ulps_against_libm(actual, _reference(math.exp, x))
    assert ulps.size > 200000 and ulps.max() <= 1, x[np.argmax(ulps)]


EDGES_LOG = [5e-324, 1e-310, 2.2250738585072014e-308, 2.225073858507201e-308, 1.0, 2.0, 0.5,
             1.7976931348623157e308, np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0), math.e, 1e-300, 1e300]


def test_log_within_one_ulp_everywhere():
    """Every binade (subnormals included), [0.5, 2], and arguments within 1e-6 and 1e-12 of 1
    (where the result is tiny and an error would be many of its ulps)."""
    rng = np.random.default_rng(1)
    x = np.concatenate([10.0 ** rng.uniform(-307, 308, 60000), 2.0 ** rng.uniform(-1074, 1024, 60000),
                        rng.uniform(5e-324, 2.3e-308, 10000), rng.uniform(0.5, 2.0, 60000),
                        1.0 + rng.uniform(-1e-6, 1e-6, 10000), 1.0 + rng.uniform(-1e-12, 1e-12, 10000),
                        EDGES_LOG])
    actual = _run(polyfuse.kernel(logs), x)
    ulps = ulps_against_libm(actual, _reference(math.log, x))
    assert ulps.size > 200000 and ulps.max() <= 1, x[np.argmax(ulps)]


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


def doubled(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0


def test_functions_with_inline_math_prefer_the_widest_vectors():
    """LLVM prefers 256-bit vectors on AVX-512 CPUs; the polynomials are arithmetic-bound, so the
    functions that hold them ask for 512 bits (llvm.WIDE_VECTOR_BITS), the others keep LLVM's
    choice.  The lanes compute the same operations either way."""
    x = np.random.default_rng(5).uniform(-20.0, 20.0, 1003)
    assert '"prefer-vector-width"="512"' in polyfuse.kernel(exps).inspect_llvm(x, np.empty_like(x))
    assert "prefer-vector-width" not in polyfuse.kernel(doubled).inspect_llvm(x, np.empty_like(x))
    ulps = ulps_against_libm(_run(polyfuse.kernel(exps), x), _reference(math.exp, x))
    assert ulps.max() <= 1.0


def exps_of_rows(x, out):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = math.exp(x[i, j])


def test_loops_with_inline_math_are_interleaved():
    """The polynomials are chains of dependent FMAs: the innermost loop around one asks the loop
    vectorizer to interleave (options.math_loop_interleave), the outer loop and plain loops do not."""
    ir = polyfuse.kernel(exps_of_rows).inspect_llvm(np.ones((3, 5)), np.empty((3, 5)), optimized=False)
    assert ir.count('"llvm.loop.interleave.count"') == 1
    x = np.ones(8)
    plain = polyfuse.kernel(doubled).inspect_llvm(x, x, optimized=False)
    # (only the main loop of a streamed result, backends/cpu/streams.py, has a count: one vector a step)
    assert re.findall(r'"llvm.loop.interleave.count", i32 (\d+)', plain) in ([], ["1"])
    y = np.random.default_rng(6).uniform(-30.0, 30.0, (7, 301))
    out = np.empty_like(y)
    polyfuse.kernel(exps_of_rows)(y, out)
    assert ulps_against_libm(out.ravel(), _reference(math.exp, y.ravel())).max() <= 1.0


def test_math_loop_interleave_knob(monkeypatch):
    """POLYFUSE_MATH_INTERLEAVE sets the interleave count of those loops (default 4 with 512-bit
    vectors, else 2); a value below 1 or not an integer is refused."""
    monkeypatch.setenv("POLYFUSE_MATH_INTERLEAVE", "3")
    assert math_loop_interleave() == 3
    ir = polyfuse.kernel(exps_of_rows).inspect_llvm(np.ones((3, 5)), np.empty((3, 5)), optimized=False)
    assert '!"llvm.loop.interleave.count", i32 3}' in ir
    for bad in ("0", "two"):
        monkeypatch.setenv("POLYFUSE_MATH_INTERLEAVE", bad)
        with pytest.raises(polyfuse.ArgumentError, match="POLYFUSE_MATH_INTERLEAVE"):
            math_loop_interleave()
    monkeypatch.delenv("POLYFUSE_MATH_INTERLEAVE")
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "32")
    assert math_loop_interleave() == 2
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    assert math_loop_interleave() == 4


def atans_of_exps(x, out):
    for i in range(x.shape[0]):
        out[i] = math.atan(math.exp(x[i]))


def test_math_loop_interleave_per_function(monkeypatch):
    """With 512-bit vectors a loop takes the smallest count of its functions (atan: 1, measured
    slower interleaved; exp: 4); with 256-bit ones 2; a set POLYFUSE_MATH_INTERLEAVE applies to all."""
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    assert math_loop_interleave(["exp"]) == 4
    assert math_loop_interleave(["atan", "exp"]) == 1
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "32")
    assert math_loop_interleave(["atan", "exp"]) == 2
    monkeypatch.setenv("POLYFUSE_MATH_INTERLEAVE", "3")
    assert math_loop_interleave(["atan"]) == 3
    monkeypatch.delenv("POLYFUSE_MATH_INTERLEAVE")
    monkeypatch.delenv("POLYFUSE_VECTOR_BYTES")
    x = np.random.default_rng(7).uniform(-3.0, 3.0, 203)
    out = np.empty_like(x)
    kernel = polyfuse.kernel(atans_of_exps)
    count = math_loop_interleave(["atan", "exp"])
    assert f'!"llvm.loop.interleave.count", i32 {count}}}' in kernel.inspect_llvm(x, out, optimized=False)
    kernel(x, out)
    np.testing.assert_allclose(out, np.arctan(np.exp(x)), rtol=1e-15)


def two_rows_of_exps(x, out):
    for i in range(x.shape[0]):
        out[0, i] = math.exp(x[i])
        out[1, i] = math.exp(-x[i])


def test_a_loop_of_several_math_statements_divides_the_interleave(monkeypatch):
    """Statements that each compute a transcendental are independent chains already (the
    interleave pass's rows): by default the count is divided by their number, down to 1;
    POLYFUSE_MATH_CHAINS=0 keeps the full count."""
    monkeypatch.setenv("POLYFUSE_VECTOR_BYTES", "64")
    monkeypatch.setenv("POLYFUSE_MATH_CHAINS", "0")
    assert math_loop_interleave(["exp"] * 8, 8) == 4
    monkeypatch.delenv("POLYFUSE_MATH_CHAINS")
    assert math_loop_interleave(["exp"] * 8, 8) == 1 and math_loop_interleave(["exp"] * 2, 2) == 2
    x = np.random.default_rng(8).uniform(-3.0, 3.0, 203)
    out = np.empty((2, 203))
    kernel = polyfuse.kernel(two_rows_of_exps)
    assert '!"llvm.loop.interleave.count", i32 2}' in kernel.inspect_llvm(x, out, optimized=False)
    kernel(x, out)
    np.testing.assert_allclose(out, np.exp([x, -x]), rtol=1e-15)


def test_exp_converts_without_scalar_conversions():
    """2**k and the float/int conversions go through the bits of 1.5 * 2**52 + n: AVX2 has no
    packed double <-> int64 instruction, so an fptosi / sitofp of a vector became one scalar
    conversion per lane."""
    x = np.ones(64)
    for fn in (exps, logs):
        ir = polyfuse.kernel(fn).inspect_llvm(x, np.empty(64), optimized=False)
        assert "fptosi" not in ir and "sitofp" not in ir


def log_sum_exp_rows(x):
    m = x.max(axis=-1, keepdims=True)
    return np.log(np.exp(x - m).sum(axis=-1)) + m[:, 0]


def test_exp_inside_a_numpy_sum_is_inline():
    """``np.exp(x - m).sum()`` is a reduction loop (not parallel) that LLVM still vectorizes into
    partial sums: the exp in it is the inline polynomial, not four libm calls per vector."""
    x = np.random.default_rng(7).standard_normal((6, 3000)) * 10.0
    k = polyfuse.kernel(log_sum_exp_rows)
    ir = k.inspect_llvm(x)
    assert "llvm.exp" not in ir and "@exp(" not in ir
    np.testing.assert_allclose(k(x), log_sum_exp_rows(x), rtol=1e-13)
