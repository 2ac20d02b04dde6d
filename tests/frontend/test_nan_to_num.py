"""``np.nan_to_num`` (frontend/array_formulas.py: ``_nan_to_num``) against NumPy: NaN, +inf and
-inf replaced by the defaults (0.0, the dtype's largest and smallest finite values) or by
``nan=``/``posinf=``/``neginf=`` cast to the array's dtype; integer arrays copied."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse

X = np.array([np.nan, np.inf, -np.inf, 1.0, -0.0, 3.5])


def defaults(x):
    return np.nan_to_num(x)


def given(x):
    return np.nan_to_num(x, copy=True, nan=-1.0, posinf=5, neginf=None) * 2


def in_a_mean(x):  # the infinities as 0 too: a mean of +-max sums to NumPy's value only in its order
    return np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0).mean()


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("fn", [defaults, given, in_a_mean])
def test_nan_to_num_as_numpy(fn, dtype, target):
    x = X.astype(dtype) if dtype is not np.int64 else np.arange(6)
    with np.errstate(all="ignore"):
        want, got = fn(x.copy()), polyfuse.kernel(fn, target=target)(x.copy())
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_copy_false_is_refused():
    def k(x):
        return np.nan_to_num(x, copy=False)
    with pytest.raises(polyfuse.UnsupportedError, match="copy= other than True"):
        polyfuse.kernel(k)(X.copy())
