"""``np.arange`` with float bounds or step (frontend/arrays.py: ``Lowering.float_arange``), against
NumPy: the length ``ceil((stop - start) / step)`` (computed per call from the arguments) and
NumPy's fill, ``start``, ``start + step``, ``start + i * delta``, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def squares_sum(n):
    t = np.arange(0.0, n, 0.5)
    return (t * t).sum()


def sines(x0, x1, h):
    return np.sin(np.arange(x0, x1, h))


def constants():
    return np.arange(0, 1, 0.1)


def centred(x):
    return x * np.arange(0.5, x.shape[0] + 0.5)


def downwards(h):
    return np.arange(1.0, -1.0, -h)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (squares_sum, (7,)), (squares_sum, (0,)), (sines, (0.1, 2.3, 0.3)), (sines, (1.0, 0.0, 0.1)),
    (sines, (0.0, 1.0, 0.1)), (constants, ()), (centred, (np.ones(5),)), (downwards, (0.3,)),
], ids=lambda v: getattr(v, "__name__", repr(v)))
def test_float_ranges_as_numpy(fn, args, target):
    want = fn(*args)
    got = polyfuse.kernel(fn, target=target, verify=True)(*args)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_bounds_the_call_cannot_compute_are_refused():
    def k(x):
        s = x[0] * 2.0
        return np.arange(0.0, s, 0.5)
    with pytest.raises(polyfuse.UnsupportedError, match="np.arange"):
        polyfuse.kernel(k)(np.ones(3))
