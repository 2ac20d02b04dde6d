"""np.convolve and np.correlate of 1-d arrays (frontend/arrays.py ``Lowering.convolve``), every
mode, against NumPy on the same inputs; npbench's blur (row and column convolutions in loops)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.errors import ArgumentError, UnsupportedError


def all_modes(a, v):
    return (np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(a, v, mode="valid"),
            np.correlate(a, v, mode="full"), np.correlate(a, v, "same"), np.correlate(a, v))


def convolved_in_an_expression(a, v):
    return np.convolve(a, v, mode="valid") * 2.0 + a[: a.shape[0] - v.shape[0] + 1]


def blur(image, output):  # npbench blur, as written there
    image = image.astype(np.float32)
    blur_x = np.empty((image.shape[0], image.shape[1] - 2), dtype=np.float32)
    blur_y = np.empty(output.shape, dtype=np.float32)
    filter = np.array([1.0, 1.0, 1.0], dtype=np.float32) / 3.0
    for y in range(blur_x.shape[0]):
        blur_x[y, :] = np.convolve(image[y, :], filter, mode='valid')
    for x in range(blur_y.shape[1]):
        blur_y[:, x] = np.convolve(blur_x[:, x], filter, mode='valid')
    output = np.clip(blur_y, 0.0, 255.0).astype(np.uint8)
    return output


@functools.cache
def _all_modes(target):
    """One kernel per target: the examples reuse the variants of the dtypes seen before."""
    return polyfuse.kernel(all_modes, target=target)


@pytest.mark.parametrize("target", ("python", "cpu"))
@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 12), m=st.integers(1, 12), dtype=st.sampled_from(["float64", "float32", "int64", "int32"]))
def test_every_mode_matches_numpy(target, n, m, dtype):
    n, m = max(n, m), min(n, m)
    rng = np.random.default_rng(n * 13 + m)
    a, v = (rng.random(n) * 10).astype(dtype), (rng.random(m) * 10).astype(dtype)
    kernel = _all_modes(target)
    for got, want in zip(kernel(a, v), all_modes(a, v)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_a_convolution_inside_an_expression():
    a, v = np.arange(7.0), np.array([0.5, 0.25, 2.0])
    np.testing.assert_allclose(polyfuse.kernel(convolved_in_an_expression)(a, v), convolved_in_an_expression(a, v))


def test_npbench_blur():
    rng = np.random.default_rng(4)
    image = (rng.random((20, 24)) * 255).astype(np.uint8)
    got = polyfuse.kernel(blur)(image, np.zeros((18, 22), np.uint8))
    want = blur(image, np.zeros((18, 22), np.uint8))
    assert got.dtype == want.dtype
    assert np.abs(got.astype(int) - want).max() <= 1  # float32 sums in another order may round across .5


def shorter_first_modes(a, v):
    return np.convolve(a, v), np.correlate(a, v, mode="full"), np.convolve(a, v, "same"), np.convolve(a, v, "valid")


def test_a_shorter_first_array():
    """'full' sums each output's pairs whichever array is longer; np.convolve's 'same' and
    'valid' swap the two where the second is longer, as NumPy does (one branch each, by the
    sizes: the same kernel takes both orders); np.correlate's follow the first array's length, so
    a call where it is shorter is refused, naming the call and line."""
    k = polyfuse.kernel(shorter_first_modes, target="python")
    for n, m in ((3, 5), (5, 3), (2, 2), (1, 4), (4, 1)):
        a, v = np.arange(n) + 1.0, np.arange(m) ** 2 - 1.5
        for got, want in zip(k(a, v), shorter_first_modes(a, v)):
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ArgumentError, match=r"np.correlate\(a, v, mode='same'\) at .*test_convolve.py:\d+ is "
                       r"compiled for len\(a\) >= len\(v\)"):
        polyfuse.kernel(all_modes)(np.ones(3), np.ones(5))


def convolve_2d(a, v):
    return np.convolve(a, v)


def convolve_complex(a, v):
    return np.convolve(a * 1j, v)


@pytest.mark.parametrize("fn, args", [(convolve_2d, (np.ones((3, 3)), np.ones(2))),
                                      (convolve_complex, (np.ones(3), np.ones(2)))])
def test_other_operands_are_refused_where_they_are(fn, args):
    with pytest.raises(UnsupportedError, match="convolve") as e:
        polyfuse.kernel(fn)(*args)
    assert e.value.span is not None
