"""The length of a boolean-mask selection in the statement right after it (frontend/arrays.py:
``Lowering.selection_length``): ``len(v)``/``v.shape[0]`` of ``v = x[mask]`` is the count of
``mask``, a Python int, and a returned tuple's items all read the selection.  Compared with the
undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse

RNG = np.random.default_rng(8)


def sum_and_count(x, t):
    p = x[x > t]
    return p.sum(), len(p)


def guarded_mean(x, t):
    p = x[x > t]
    mean = p.sum() / max(p.shape[0], 1)
    return mean


def selected_rows(X, t):
    rows = X[X[:, 0] > t]
    return rows.shape[0]


def counts_in_a_loop(x, t, out):
    for i in range(out.shape[0]):
        p = x[x > t * i]
        out[i] = len(p)


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (sum_and_count, (RNG.random(10), 0.5)), (sum_and_count, (RNG.random(10), 2.0)),
    (guarded_mean, (RNG.random(10), 0.5)), (guarded_mean, (RNG.random(10), 2.0)),
    (selected_rows, (RNG.random((6, 3)), 0.5)), (counts_in_a_loop, (RNG.random(10), 0.3, np.zeros(4))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_selection_lengths_as_numpy(fn, args, target):
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*expected)
    got = polyfuse.kernel(fn, target=target, verify=True)(*actual)
    assert type(got) is type(want)
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        assert type(g) is type(w) and g == w
    np.testing.assert_array_equal(actual[-1], expected[-1])


def test_a_length_read_later_matches_python():
    """Read after the next statement: the mask is kept (frontend/selection_loops.py); a Python int."""
    def k(x, t):
        p = x[x > t]
        s = 1.0
        return len(p) + s
    kernel = polyfuse.kernel(k)
    for x in (RNG.random(5), np.zeros(0)):
        got, want = kernel(x, 0.5), k(x, 0.5)
        assert type(got) is type(want) and got == want
