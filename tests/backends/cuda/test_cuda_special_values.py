"""Math at special values on target="cuda": where Python's ``math`` raises (``log(0.0)``,
``sqrt(-1.0)``, ``pow(-8.0, 1/3)``, ``expm1(1e3)``), a GPU's libdevice returns -inf, NaN or inf,
and so do the user's NumPy calls on NumPy scalars. Numba's simulator runs the generated ``_math``
calls as Python, so it raised ``math domain error`` from inside a kernel whose plain function
gives a number (cp36's scalar campaign, seed 30031); ``backends/cuda/simulator.ieee_math``
stands in for ``math`` there."""

from __future__ import annotations

import math
import os
import sys

if "NUMBA_ENABLE_CUDASIM" not in os.environ and os.environ.get("POLYFUSE_TEST_GPU", "") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # as tests/backends/cuda/test_cuda.py, before numba.cuda
    if "numba.cuda" not in sys.modules and "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].ENABLE_CUDASIM = 1

import numpy as np
import pytest
from polyfuse.backends.cuda.exprs import ExprRenderer, helper_source
from polyfuse.backends.cuda.simulator import ieee_math

import polyfuse
from polyfuse.model import ir

pytest.importorskip("numba.cuda")


def special(x, k, out):
    for i in range(x.shape[0]):
        out[i, 0] = np.log(x[i])                 # log(0) = -inf, log(-1) = nan
        out[i, 1] = np.sqrt(x[i])                # sqrt(-1) = nan
        out[i, 2] = x[i] ** -0.5                 # pow(0, -0.5) = inf, pow(-1, -0.5) = nan
        out[i, 3] = np.expm1(x[i] * 1000.0)      # overflow: inf
        out[i, 4] = float(k[i]) // math.pow(k[i], np.log(k[i]))  # pow(0, -inf) = inf


def test_math_at_special_values_gives_numpys_infs_and_nans():
    x = np.array([0.0, -0.0, -1.0, 1.0, 4.0, 2.0])
    k = np.array([0, 1, 2, 3, 1, 2])
    expected = np.zeros((6, 5))
    with np.errstate(all="ignore"):
        special(x, k, expected)
    actual = np.zeros((6, 5))
    with np.errstate(all="ignore"):
        polyfuse.kernel(special, target="cuda")(x, k, actual)
    np.testing.assert_array_equal(actual, expected)  # NaN equal to NaN, -inf to -inf


def test_ieee_math_keeps_maths_values_and_types():
    m = ieee_math()
    assert m.log(0.0) == -math.inf and math.isnan(m.sqrt(-1.0)) and m.exp(1e3) == math.inf
    assert m.pow(0.0, -1.0) == math.inf and math.isnan(m.fmod(math.inf, 2.0))
    assert m.gamma(-0.0) == -math.inf and math.isnan(m.gamma(-2.0)) and m.lgamma(0.0) == math.inf
    assert m.log(8.0) == math.log(8.0) and m.floor(2.5) == 2 and m.pi == math.pi
    with pytest.raises(ValueError):
        m.floor(math.nan)  # an integer CUDA leaves undefined: still math's error


def signs(x, xs, k, out, outs, iout):
    for i in range(x.shape[0]):
        out[i] = np.sign(x[i])
        outs[i] = np.sign(xs[i]) * 2
        iout[i] = np.sign(k[i])


def test_sign_of_infinities_is_one_not_nan():
    """``_npsign`` computed 1 as ``x - x + 1``: NaN for an infinite ``x`` (cp36, seed 30110), on a
    GPU as on the simulator. Floats now take ``_npfsign``; integers keep their dtype."""
    x = np.array([np.inf, -np.inf, -0.0, 0.0, np.nan, 2.5, -1e30])
    k = np.array([5, -3, 0, 0, 1, -1, 2**40])
    expected = (np.zeros(7), np.zeros(7, np.float32), np.zeros(7, np.int64))
    signs(x, x.astype(np.float32), k, *expected)
    actual = (np.zeros(7), np.zeros(7, np.float32), np.zeros(7, np.int64))
    polyfuse.kernel(signs, target="cuda")(x, x.astype(np.float32), k, *actual)
    for e, a in zip(expected, actual):
        np.testing.assert_array_equal(a, e)
        assert not np.signbit(a[2:4]).any()  # np.sign(-0.0) is 0.0


def roundings(x, out):
    for i in range(x.shape[0]):
        out[i, 0] = np.floor(x[i])
        out[i, 1] = np.ceil(x[i])
        out[i, 2] = x[i] // 2.0
        out[i, 3] = np.rint(x[i])


def test_floor_and_ceil_keep_a_zeros_sign():
    """cp36, simulator with inf/NaN (seed 30113): ``np.floor(-0.0)`` and ``np.ceil(-0.5)`` gave
    0.0 for NumPy's -0.0 (``x - x + floor(x)``)."""
    x = np.array([-0.0, 0.0, -0.5, 0.5, -1.5, 2.5, -np.inf, np.nan])
    expected, actual = np.zeros((8, 4)), np.zeros((8, 4))
    with np.errstate(all="ignore"):
        roundings(x, expected)
        polyfuse.kernel(roundings, target="cuda")(x, actual)
    np.testing.assert_array_equal(actual, expected)
    np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


def _helper_on_the_cpu(function: str, dtype: str, arity: int):
    """``np.<function>`` of ``arity`` variables of ``dtype`` as the CUDA renderer writes it, its
    device helpers jitted by numba's CPU jit (whose int64 wraps as a GPU's does)."""
    numba = pytest.importorskip("numba")
    names = "abc"[:arity]
    renderer = ExprRenderer(set(), set())
    text = renderer.render(ir.Call(function, tuple(ir.Var(n, dtype, True) for n in names), dtype, lib="np"))
    source = helper_source(renderer.helpers).replace("@_cuda.jit(device=True)", "@_nb.njit")
    namespace: dict = {"_nb": numba, "_math": math, "_INF": math.inf}
    exec(source + f"\n@_nb.njit\ndef run({', '.join(names)}):\n    return {text}\n", namespace)  # noqa: S102
    return namespace["run"]


def test_numpy_power_of_integers_is_an_integer_power():
    """``np.power`` of two Python ints (``np.power(k, k)`` of a loop variable, seed 30112) ran as a
    float ``pow``: 1.8e19 for NumPy's int64 ``16 ** 16`` (which wraps to 0), ``15 ** 14``
    rounded. Rendered and run by numba's CPU jit, whose int64 wraps as a GPU's does (the
    simulator's Python ints do not)."""
    run = _helper_on_the_cpu("pow", "int64", 2)
    for base, exponent in [(16, 16), (15, 14), (-3, 39), (7, 0), (2, 63)]:
        with np.errstate(all="ignore"):
            assert run(base, exponent) == np.power(np.int64(base), np.int64(exponent))


def test_logaddexp2_helper_is_numpys_at_special_values():
    """np45's ``_logaddexp2`` (npy_logaddexp2: ``x + 1`` for equal values, infinities included;
    NaN propagates), rendered and run by numba's CPU jit."""
    run = _helper_on_the_cpu("logaddexp2", "float64", 2)
    values = [np.inf, -np.inf, np.nan, 0.0, -0.0, 3.0, -2.5, 1e308, -1e308, 1100.0, -1099.5]
    for x in values:
        for y in values:
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(run(x, y), np.logaddexp2(x, y), rtol=4e-16)


def test_exp2_helper_is_numpys_at_special_values():
    """``_exp2`` at infinities, NaN and past 2**53 (pow(2.0 + x - x, x) gave NaN at -inf and inf,
    and pow(0, x) where x + 2.0 - x lost the 2), rendered and run by numba's CPU jit."""
    run = _helper_on_the_cpu("exp2", "float64", 1)
    for x in [np.inf, -np.inf, np.nan, 0.0, -0.0, 3.0, -2.5, 1023.5, -1074.0, -1100.5, 1e16, -1e16, 1e308, -1e308]:
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(run(x), np.exp2(x), rtol=4e-16)


def quotients(x, y, out):
    for i in range(x.shape[0]):
        out[i, 0] = 2.0 / (x[i] % y[i])                      # a zero remainder: inf, not ZeroDivisionError
        out[i, 1] = (0.5 ** -1) / (i % y[i]) + np.float32(1.0) / math.fmod(x[i], y[i])


def test_division_by_a_zero_out_of_math_is_inf_on_the_simulator():
    """The simulator's ``_math.fmod`` returned a Python float, and a Python float divided by
    0.0 raises ZeroDivisionError where a GPU (and the plain function's NumPy scalars) give inf
    (cp36, seed 30113): ``ieee_math``'s float results are NumPy scalars."""
    x, y = np.array([6.0, -4.0, 7.0, 0.0]), np.array([3.0, 2.0, 2.0, 5.0])
    expected, actual = np.zeros((4, 2)), np.zeros((4, 2))
    with np.errstate(all="ignore"):
        quotients(x, y, expected)
        polyfuse.kernel(quotients, target="cuda")(x, y, actual)
    np.testing.assert_array_equal(actual, expected)
