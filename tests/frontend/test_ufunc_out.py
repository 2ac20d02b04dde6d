"""``np.<ufunc>(..., out=y)`` and ``np.clip(..., out=y)`` as statements (frontend/arrays.py
``out_copy``): the value computed in full, then stored into ``y`` under casting='same_kind', as
NumPy's ufuncs store; compared with the undecorated function, arguments included."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def clip_in_place(x):
    np.clip(x, -1, 1, out=x)
    return x


def chained(a, b, c):
    np.add(a, b, out=c)
    np.multiply(c, 2, out=c)
    np.exp(a, out=a)
    np.sqrt(np.abs(b), out=(b,))
    return a, b, c


def into_floats(a, c):
    np.divide(a, 2, out=c)
    return c


def overlapping(x):
    np.add(x[1:], x[:-1], out=x[1:])  # NumPy reads every input before the overlap is written
    return x


def float_into_int(a):
    np.divide(a, 2, out=a)
    return a


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (clip_in_place, (np.linspace(-3, 3, 7),)), (clip_in_place, (np.arange(-3, 4),)),
    (chained, (np.arange(4.0), np.arange(4.0) - 2, np.zeros(4))),
    (chained, (np.arange(3, dtype=np.float32), np.ones(3, np.float32), np.zeros(3, np.float32))),
    (chained, (np.arange(3.0), np.arange(3.0), np.zeros((2, 3)))),  # the value broadcast into out
    (into_floats, (np.arange(5), np.zeros(5))), (overlapping, (np.arange(6.0) ** 2,)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_out_is_numpys(fn, args, target):
    want_args, got_args = _copies(args), _copies(args)
    want, got = fn(*want_args), polyfuse.kernel(fn, target=target)(*got_args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)
    for g, w in zip(got_args, want_args):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_a_cast_numpy_refuses_is_refused():
    with pytest.raises(TypeError):
        float_into_int(np.arange(3))
    with pytest.raises(polyfuse.UnsupportedError, match="casting='same_kind'"):
        polyfuse.kernel(float_into_int, target="python")(np.arange(3))
