"""polyfuse.passes.coalesce: loops over whole rows of C-ordered arrays run as one flat loop.

Each kernel is compared with the undecorated function on the same inputs, with the short last
axes NumPy image code has (``(N, M, 3)``), empty and single-element axes, and views that are not
C-ordered (which must keep their nests)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="the pass runs on the cpu target")


def laplacian(image):
    out = np.abs(4 * image[1:-1, 1:-1] - image[0:-2, 1:-1] - image[2:, 1:-1]
                 - image[1:-1, 0:-2] - image[1:-1, 2:])
    valmax = np.max(out)
    valmax = max(1.0, valmax) + 1e-9
    out /= valmax
    return out


def scaled_sum(a, b):
    return (2.0 * a + b).sum()


def row_broadcast(a, b):
    return a * b  # b has a's last axis only: b[v] past the row is out of bounds


def last_axis_slice(a):
    return a[:, 1:] * 2.0  # a row of the slice is not a row of a


def uses_position(out):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = i * 10 + j


def min_of_product(a, b):
    return (a * b).min()


def run(fn, *args):
    k = polyfuse.kernel(fn, target="cpu", verify=True)
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = k(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    return k, want, got


@pytest.mark.parametrize("shape", [(9, 7, 3), (3, 3, 1), (4, 6, 2), (12, 11, 5)])
def test_laplacian_rows_coalesce_and_match(shape):
    image = np.random.default_rng(1).standard_normal(shape)
    k, want, got = run(laplacian, image)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert got.shape == want.shape
    flat = k.explain(image)["coalesced loops"]
    assert flat  # the stencil's inner loops; the max's and the division's whole nests
    if 1 not in shape:  # an axis of extent 1 is broadcast: other statements
        assert {s for d in flat for s in d["statements"]} >= {"S0", "S5"}


def test_max_of_whole_array_is_one_loop_and_exact():
    image = np.random.default_rng(2).standard_normal((40, 30, 3))
    image[3, 4, 1] = 50.0
    k, want, got = run(laplacian, image)
    np.testing.assert_array_equal(got, want)


def test_reduction_over_whole_arrays():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((17, 9, 3)), rng.standard_normal((17, 9, 3))
    k, want, got = run(scaled_sum, a, b)
    assert got == pytest.approx(want, rel=1e-12)
    k, want, got = run(min_of_product, a, b)
    assert got == want
    assert k.explain(a, b)["coalesced loops"]


def test_broadcast_row_keeps_its_nest():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((6, 3)), rng.standard_normal(3)
    k, want, got = run(row_broadcast, a, b)
    np.testing.assert_array_equal(got, want)
    assert k.explain(a, b)["coalesced loops"] == []


def test_slice_of_last_axis_keeps_its_nest():
    a = np.random.default_rng(5).standard_normal((6, 4))
    k, want, got = run(last_axis_slice, a)
    np.testing.assert_array_equal(got, want)
    assert k.explain(a)["coalesced loops"] == []


def test_iterators_used_as_values_keep_their_nest():
    out = np.zeros((4, 3))
    k, want, got = run(uses_position, out)
    k(out)
    uses_position(want := np.zeros((4, 3)))
    np.testing.assert_array_equal(out, want)
    assert k.explain(out)["coalesced loops"] == []


def test_strided_view_is_not_c_ordered():
    base = np.random.default_rng(6).standard_normal((8, 10, 3))
    view = base[:, ::2]  # rows of 3 with gaps: layout "A"
    k, want, got = run(laplacian, view)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert not any("S0" in d["statements"] and d["loops"][0] != "_t0" for d in k.explain(view)["coalesced loops"])


def test_off_by_environment(monkeypatch):
    monkeypatch.setenv("POLYFUSE_COALESCE", "0")
    image = np.random.default_rng(7).standard_normal((6, 5, 3))
    k, want, got = run(laplacian, image)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert k.explain(image)["coalesced loops"] == []


def whole_max(a):
    return np.max(a)


def whole_min(a):
    return a.min()


@pytest.mark.parametrize("fn", [whole_max, whole_min])
@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf, 0.0, -0.0, None])
def test_whole_array_max_min_bit_for_bit(fn, special):
    """One flat loop in lanes: NaNs anywhere (kept aside from the lanes' compare chain), infinities
    and signed zeros give NumPy's bits."""
    rng = np.random.default_rng(8)
    k = polyfuse.kernel(fn, target="cpu", verify=True)
    for trial in range(6):
        a = rng.standard_normal((7, 9, 3))
        if special is not None:
            a.flat[rng.integers(0, a.size, size=trial + 1)] = special
        if special == 0.0:
            a = np.abs(a) * (-1.0 if fn is whole_max else 1.0) * 0.0 + a * 0.0  # all zeros, mixed signs
        want, got = fn(a), k(a)
        if want == 0.0:  # the zero of the first in order (NumPy's SIMD order may give the other sign)
            assert got == 0.0 and np.signbit(got) == np.signbit(a.ravel()[np.flatnonzero(a.ravel() == 0.0)[0]])
            continue
        assert np.array_equal(np.array(want).view(np.uint64), np.array(got).view(np.uint64)), (trial, want, got)
    assert k.explain(a)["coalesced loops"] and k.explain(a)["minmax lanes"]
