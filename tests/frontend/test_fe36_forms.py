"""fe36's forms: helper arguments that are expressions (``blend(soft_step(2, 1), --5)``),
np.roll by size expressions, np.bincount of np.searchsorted results, rotated buffers, u[inv] of
np.unique, reductions under data-dependent ifs and of mask-selection arithmetic, and refusals
that say what to write; each compiled kernel on the cpu target (threads on) against the
undecorated function."""

from __future__ import annotations

import re

import numpy as np
from kernel_checks import check_calls

import polyfuse


def _check(fn, calls, target="cpu"):
    return check_calls(fn, calls, target)


def soft_step(x, y):
    return x if x > y else y


def blend(x, w):
    return max(x, w) - min(x, 1)


def nested_unary_argument(M, x, n):
    # the helper reads x twice, so its arguments are computed once into locals first; an
    # argument that is a constant expression (--5) or a size (n - 1) was dropped as a size
    # definition while the returned value still read its local
    M[3, 3] = blend(soft_step(2, 1), (--5))  # noqa: B002
    M[0, 0] = 1.0 + blend(n - 1, x.shape[0] // 2) * blend(-x[2], min(n, 3))
    M[1, 1] = blend(abs(-x[0]), -(-x.shape[0]))  # noqa: B002


def test_helper_arguments_that_are_expressions_are_bound_where_read():
    x = np.array([1.5, -2.0, 3.0, 4.0, 0.5])
    _check(nested_unary_argument, [(np.zeros((5, 5)), x, 4), (np.zeros((5, 5)), x[:4], 1)])


def fftshift_rolls(x, X, s):
    # shifts affine in sizes and integer arguments: the gather x[(arange(n) - shift) % n],
    # Python's % for any sign and size; tuples and a roll of a roll pair as NumPy pairs them
    n = x.shape[0]
    h, w = X.shape
    a = np.roll(x, n // 2) + np.roll(x, -(len(x) // 2)) * 2.0 + np.roll(x, 2 * s - n + 1)
    B = np.roll(np.roll(X, h // 2, axis=0), s - w, axis=1) + np.roll(X, (h // 2, -(w // 2)), axis=(0, -1))
    return a, B


def test_roll_by_an_affine_expression_of_sizes():
    calls = [(np.arange(float(n)), np.arange(float(h * w)).reshape(h, w), s)
             for n, h, w, s in ((7, 3, 4, 5), (6, 6, 5, -9), (1, 1, 2, 40), (0, 2, 1, 0))]
    _check(fftshift_rolls, calls)


def binned_counts(x, edges):
    # np.bincount of np.digitize / np.searchsorted results (written as loops by the rewrite):
    # the call computes the length from the expression as written, the kernel counts its own
    idx = np.searchsorted(edges, x, side="right") - 1
    return np.bincount(idx, minlength=edges.shape[0])


def test_bincount_of_digitize_and_searchsorted_results():
    edges = np.linspace(0.1, 0.9, 5)
    rng = np.random.default_rng(1)
    _check(binned_counts, [(rng.uniform(0.1, 1.0, 17), edges), (np.array([1.5]), edges)])
    k = polyfuse.kernel(binned_counts)
    x = np.array([0.5, 0.05])  # searchsorted - 1 gives -1: NumPy's ValueError where it runs
    with np.testing.assert_raises_regex(ValueError, "negative"):
        k(x, edges)


def rotated_buffers(u, steps):
    # three time levels rotated each step (a leapfrog scheme), and a permutation leaving c in place
    a, b, c = u.copy(), np.zeros_like(u), np.zeros_like(u)
    for _ in range(steps):
        for i in range(1, u.shape[0] - 1):
            c[i] = a[i] + 0.5 * (b[i - 1] - 2.0 * b[i] + b[i + 1])
        a, b, c = b, c, a
    a, b, c = b, a, c
    return a + 2.0 * b + 3.0 * c


def test_three_buffers_rotated():
    _check(rotated_buffers, [(np.linspace(0.0, 1.0, 9) ** 2, 4), (np.ones(3), 0)])


def unique_gathers(x, idx):
    # u[inv] of np.unique(..., return_inverse=True) and u[idx] of an integer array argument:
    # the count-checked index chosen per element (NumPy's negative indices, IndexError past it)
    u, inv = np.unique(x, return_inverse=True)
    return u[inv] + 1.0, u[idx] * 2.0


def test_unique_values_gathered_by_index_arrays():
    k = _check(unique_gathers, [(np.array([3.0, 1.0, np.nan, 2.0, 1.0]), np.array([0, 2, -1, -4])),
                                (np.array([5.0]), np.zeros(0, dtype=np.int64))])
    with np.testing.assert_raises(IndexError):
        k(np.array([3.0, 1.0]), np.array([2]))


def partitioned(x):
    return np.partition(x, 2)[:2]  # the two smallest in introselect's order ([2] is supported since np43)


def early_array(x):
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            return x[:i] * 2.0
    return x * 2.0


def scaled_by_max(x):
    d = max(x.shape[0] - 3, 1) * x.sum().astype(np.int64)  # np.int64 or a Python int, by value
    d = max(d, 1)
    return x / d


def test_refusals_say_what_to_write_instead():
    for fn, words in ((partitioned, "np.sort(a)[:k] for the k smallest"),
                      (early_array, "return out[:k]"),
                      (scaled_by_max, "it reads 'd', whose type is not known here")):
        with np.testing.assert_raises_regex(polyfuse.UnsupportedError, re.escape(words)):
            polyfuse.kernel(fn)(np.ones(4))


def passage(steps, level):
    # an early return of a tuple whose item is 'x.max() if x.size else 0' under a data-dependent
    # if: the reduction's accumulator and the item are assigned first in the branches of the
    # 'if x.size:' (an extent test now, not a data test) that the choice is written as
    pos = np.cumsum(steps)
    hit = np.abs(pos) >= level
    if not hit.any():
        return -1, np.abs(pos).max() if pos.size else 0
    return int(np.argmax(hit)), np.abs(pos).max()


def test_reduction_choices_inside_data_dependent_branches():
    _check(passage, [(np.array([1, 1, -1, 1]), level) for level in (1, 2, 5)])


def entropy(labels, k):
    # a selection of a computed test (counts > 0), arithmetic of it bound to a local, then a
    # reduction of arithmetic of that local in the statement right after
    counts = np.bincount(labels, minlength=k)
    p = counts[counts > 0] / labels.shape[0]
    return -(p * np.log2(p)).sum(), (counts[counts > 1] * 0.5).sum()


def test_reductions_of_arithmetic_of_mask_selections():
    _check(entropy, [(np.array([0, 1, 1, 3, 3, 3]), 5), (np.zeros(0, dtype=np.int64), 2)])
