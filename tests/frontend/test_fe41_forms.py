"""fe41's forms from numba-style code (tests/corpus/batch_fe41): an early return before a loop
with its own continue, an inlined helper's tuple of a local it changed, sizes the call computes
from ``**``, shifts and ``a if test else b``, an early-returned empty array of other extents (alone
or in a returned tuple),
``return buf[:k].copy()``, a rotation of a buffer bound to arithmetic; and the refusals' words."""

import numpy as np
import pytest
from conftest import corpus_kernel
from numba import njit

import polyfuse


def first_run_filled(x, new):
    old = x[0]
    if old == new:
        return 0
    filled = 0
    sp = x.shape[0]
    while sp > 0:
        sp -= 1
        if x[sp] != old:
            continue
        filled += 1
    return filled


@njit
def _pop(h, size):
    key = h[0]
    size -= 1
    h[0] = h[size]
    return key, size


def pop_all(h):
    size = h.shape[0]
    s = 0.0
    while size > 0:
        k, size = _pop(h, size)
        s += k * size
    return s


def computed_extents(x, k, w):
    counts = np.zeros(4**k, dtype=np.int64)
    codes = np.zeros(1 << (2 * k), dtype=np.int64)
    n = x.shape[0]
    out = np.empty(n - w + 1 if n >= w else 0)
    for i in range(out.shape[0]):
        out[i] = x[i] + x[i + w - 1]
    steps = np.zeros((n - w) // w + 1)
    return counts.shape[0] + codes.shape[0], out, steps


def windows_or_empty(x, w):
    nw = x.shape[0] - w + 1
    if nw <= 0:
        return np.zeros(0)
    out = np.empty(nw)
    for i in range(nw):
        out[i] = x[i] - x[i + w - 1]
    return out


def pairs_or_empty(x, w):
    n = x.shape[0]
    if n < w:
        return np.zeros((0, 2)), 0
    out = np.empty((n - w + 1, 2))
    for i in range(n - w + 1):
        out[i, 0] = x[i]
        out[i, 1] = x[i + w - 1]
    return out, n - w + 1


def kept_copy(x):
    buf = np.empty(2 * x.shape[0], dtype=np.int64)
    k = 0
    for i in range(x.shape[0]):
        while k > 0 and buf[k - 1] > x[i]:
            k -= 1
        buf[k] = i
        k += 1
    return buf[:k - 1].copy()


rotate_three_buffers = corpus_kernel("batch_fe41", "rotate_three_buffers")


def counted_after_early_return(x):
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            k += 1
    out = np.empty(k, dtype=np.int64)
    p = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out[p] = i
            p += 1
    return out


def counted_pair_after_early_return(x):
    """The tuple form (fe52's rle_encode_pairs): empty prefixes of both buffers on the early path
    (counted_allocations.empty_early_returns, er52; refused before)."""
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            k += 1
    out = np.empty(k, dtype=np.int64)
    vals = np.empty(k)
    p = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out[p] = i
            vals[p] = x[i]
            p += 1
    return out, vals


RNG = np.random.default_rng(41)
CASES = [(first_run_filled, (np.array([1, 1, 0, 1]), 2)), (first_run_filled, (np.array([2, 1]), 2)),
         (pop_all, (RNG.random(5),)),
         (computed_extents, (RNG.random(6), 2, 3)), (computed_extents, (RNG.random(6), 0, 6)),
         (windows_or_empty, (RNG.random(5), 2)), (windows_or_empty, (RNG.random(5), 7)),
         (pairs_or_empty, (RNG.random(5), 2)), (pairs_or_empty, (RNG.random(3), 5)),
         (kept_copy, (RNG.random(6),)), (kept_copy, (np.zeros(0),)),
         (rotate_three_buffers, (RNG.random(4), 2)),
         (counted_after_early_return, (RNG.random(4),)), (counted_after_early_return, (np.zeros(0),)),
         (counted_pair_after_early_return, (RNG.random(4),)), (counted_pair_after_early_return, (np.zeros(0),))]
# the fixes' cpu check (the python target checks the rest, as the lowering is the same)
ON_CPU = {pop_all, windows_or_empty, computed_extents}


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_fe41_forms_match_python(fn, args):
    for target in ("python", "cpu") if fn in ON_CPU else ("python",):
        got = polyfuse.kernel(fn, target=target)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_a_negative_power_of_a_size_is_refused_at_the_call():
    with pytest.raises(polyfuse.ArgumentError, match=r"4 \*\* k is 0.25"):
        polyfuse.kernel(computed_extents, target="python")(RNG.random(6), -1, 3)


def counted_and_count_after_early_return(x):
    if x.shape[0] == 0:
        return np.zeros(0), 0
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            k += 1
    return np.zeros(k), k


def argument_prefix_copy(x):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            k += 1
    return x[:k].copy()


@njit
def _fib(n):
    if n < 2:
        return n
    return _fib(n - 1) + _fib(n - 2)


def fib_table(n):
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = _fib(i)
    return out


@pytest.mark.parametrize("fn, args, words", [
    (counted_and_count_after_early_return, (RNG.random(4),), "extents '0' and 'returned item 1' differ"),
    (argument_prefix_copy, (RNG.random(4),), "slice bound 'k' may be negative"),
    (fib_table, (4,), "cannot recurse: write it as a loop"),
])
def test_fe41_refusals_name_the_construct(fn, args, words):
    with pytest.raises(polyfuse.UnsupportedError, match="test_fe41_forms.py") as err:
        polyfuse.kernel(fn, target="python")(*args)
    assert words in str(err.value)
