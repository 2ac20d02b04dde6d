"""``helper(...)[k]`` of a helper returning a tuple, compared with the undecorated function.

npbench's azimint_hist (pythran and numba versions) writes ``histogram(radius, npt)[0]`` of a
helper returning ``hist, bin_edges``; polyfuse refused the subscript of the inlined tuple.  An
element is taken where the others are names, constants or attributes of names (dropping them does
nothing); another element (``a * 2``, which may raise in NumPy) keeps the subscript refused.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse.errors import UnsupportedError


def edges(a, bins):
    e = np.zeros(bins + 1)
    lo, hi = a.min(), a.max()
    for i in range(e.shape[0]):
        e[i] = lo + i * (hi - lo) / bins
    e[-1] = hi
    return e


def histogram(a, bins, weights):
    hist = np.zeros((bins,), dtype=a.dtype)
    bin_edges = edges(a, bins)
    for i in range(a.shape[0]):
        b = int(bins * (a[i] - bin_edges[0]) / (bin_edges[-1] - bin_edges[0])) if a[i] != bin_edges[-1] else bins - 1
        hist[b] += weights[i]
    return hist, bin_edges


def pair(x):
    return x, x.shape


def k_first(a, w, n):
    return histogram(a, n, weights=w)[0] / (histogram(a, n, w)[0] + 1.0)


def k_last(a, w, n):
    return histogram(a, n, w)[-1] * 2.0


def k_straight_line(x):
    return pair(x)[0] + 1.0


def doubled(a):
    return a, a * 2


def k_not_discardable(a):
    return doubled(a)[0]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (k_first, (np.linspace(0.0, 1.0, 23) ** 2, np.arange(23.0), 5)),
    (k_last, (np.linspace(0.0, 1.0, 23) ** 2, np.arange(23.0), 5)),
    (k_straight_line, (np.arange(6.0),)),
], ids=["first", "last", "straight-line"])
def test_element_of_helper_tuple(fn, args, target):
    want = fn(*args)
    got = polyfuse.kernel(fn, target=target, verify=True)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_other_elements_must_be_discardable():
    with pytest.raises(UnsupportedError, match=r"element 0 of the tuple .*unpack it instead"):
        polyfuse.kernel(k_not_discardable)(np.arange(4.0))
