"""A list or tuple default of numbers that the body reads only as an input NumPy converts (ufuncs,
np.sum-like reductions, comparisons with their results) is passed as ``np.asarray`` of it
(numpy-benchmarks' check_mask: ``def check_mask(db, mask=[1, 0, 1])``).  Any other use stays
refused at the default, since a list's meaning differs there."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse import UnsupportedError


def rows_matching(db, mask=[1, 0, 1]):  # noqa: B006 - the construct under test
    out = np.zeros(db.shape[0], dtype=bool)
    for idx, line in enumerate(db):
        target, vector = line[0], line[1:]
        if (mask == np.bitwise_and(mask, vector)).all():
            if target == 1:
                out[idx] = 1
    return out


def weighted(x, w=(0.5, 2.0, -1.0)):
    return np.sum(np.multiply(x, w)) + np.max(w) * x


def subscripted(x, w=[1, 2, 3]):  # noqa: B006
    return x * w[0]


def repeated(x, w=[1, 2, 3]):  # noqa: B006
    return np.sum(w * 2) + x


def aliased(x, w=[1.0, 2.0, 3.0]):  # noqa: B006
    v = np.asarray(w)
    v[0] = 5.0
    return x + np.sum(w)


def ufunc_out(x, w=[1.0, 2.0, 3.0]):  # noqa: B006
    np.add(x, x, w)
    return x


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 2**16))
def test_list_default_as_ufunc_input_matches_python(n, seed):
    db = np.random.default_rng(seed).integers(0, 2, size=(n, 4)).astype(bool)
    kernel = polyfuse.kernel(rows_matching)
    np.testing.assert_array_equal(kernel(db), kernel.py_func(db))


def test_passed_mask_still_wins_over_the_default():
    db = np.random.default_rng(1).integers(0, 2, size=(12, 4)).astype(bool)
    kernel = polyfuse.kernel(rows_matching)
    mask = np.array([0, 1, 1])
    np.testing.assert_array_equal(kernel(db, mask), kernel.py_func(db, mask))


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_tuple_default_in_reductions_matches_python(target):
    x = np.random.default_rng(2).random(3)
    kernel = polyfuse.kernel(weighted, target=target)
    got, want = kernel(x), kernel.py_func(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("fn", [subscripted, repeated, aliased, ufunc_out])
def test_other_uses_of_a_list_default_stay_refused(fn):
    with pytest.raises(UnsupportedError, match="is not a number") as info:
        polyfuse.kernel(fn)(np.ones(3))
    assert f"{__file__}:" in str(info.value)
