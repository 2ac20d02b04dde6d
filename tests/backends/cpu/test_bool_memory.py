"""Bool arrays in memory: one byte per element, read as ``byte != 0`` and written as 0 or 1
(``ExprEmitter.load_element`` / ``store_element``), so loops over masks vectorize (a ``load i1``
from byte-strided memory cannot be widened: a vector of i1 is packed bits)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")


def band_means(values, positions, bands):
    """The mean of ``values`` whose position lies in each of ``bands`` equal bands."""
    top = positions.max()
    out = np.zeros(bands)
    for b in range(bands):
        low = top * b / bands
        high = top * (b + 1) / bands
        inside = np.logical_and(low <= positions, positions < high)
        out[b] = values[inside].mean()
    return out


def flags(x, limit, out):
    out[:] = x > limit


def masked_total(x, keep):
    return np.sum(np.where(keep, x, 0.0))


def test_masks_made_and_read_in_a_loop_match_numpy():
    rng = np.random.default_rng(4)
    values, positions = rng.random(5000), rng.random(5000)
    kernel = polyfuse.kernel(band_means)
    with np.errstate(invalid="ignore"):  # an empty band's mean is NaN, in both
        np.testing.assert_allclose(kernel(values, positions, 37), band_means(values, positions, 37), rtol=1e-12)


def test_written_bools_are_the_bytes_0_and_1():
    x = np.random.default_rng(5).random(1001)
    out = np.empty(1001, dtype=bool)
    polyfuse.kernel(flags)(x, 0.5, out)
    np.testing.assert_array_equal(out, x > 0.5)
    assert set(np.unique(out.view(np.uint8))) <= {0, 1}


def test_a_bool_argument_is_read_as_numpy_reads_it():
    x = np.arange(1000.0)
    keep = np.random.default_rng(6).random(1000) < 0.3
    assert polyfuse.kernel(masked_total)(x, keep) == masked_total(x, keep)
    strided = np.random.default_rng(7).random(2000) < 0.5
    assert polyfuse.kernel(masked_total)(x, strided[::2]) == masked_total(x, strided[::2])


def test_a_loop_reading_a_mask_vectorizes():
    x, keep = np.ones(4096), np.ones(4096, dtype=bool)
    ir = polyfuse.kernel(masked_total).inspect_llvm(x, keep)
    assert "x i8>" in ir  # the mask is loaded as a vector of bytes
    assert "insertelement <8 x i1>" not in ir and "insertelement <4 x i1>" not in ir
