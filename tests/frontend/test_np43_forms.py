"""np43's forms (tests/corpus/batch_np43.py's refusals and crash, made general): the ufuncs
whose ``reduce`` is one left fold in index order (np.logaddexp.reduce, np.logaddexp2 since np45, np.hypot, np.subtract,
np.divide, np.fmax/fmin; from the identity where the ufunc has one), a reshape to sizes that are
arithmetic of an argument's extents; each kernel (python backend: the subject is the front end)
against the undecorated function, values, dtypes and the Python type of returned numbers."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import corpus_kernel

import polyfuse


def _same(got, expected):
    pairs = zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]
    for g, e in pairs:
        assert type(g) is type(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)  # the same fold in the same order: the same bits


def folds(x, A, b):
    return (np.logaddexp.reduce(x), np.hypot.reduce(x[::-1]), np.logaddexp.reduce(A, axis=1),
            np.subtract.reduce(A, axis=0), np.fmax.reduce(A, -1), np.subtract.reduce(b), np.divide.reduce(b),
            np.logaddexp2.reduce(x), np.logaddexp2.reduce(A, axis=0))


@pytest.mark.parametrize("n", [0, 1, 6])
def test_ufunc_reduce_is_numpys_left_fold(n):
    rng = np.random.default_rng(n)
    k = polyfuse.kernel(folds, target="python", fuse="none")
    x = np.array([-0.0, 2.5, -3.0, 1e3, -np.inf, 0.5])[:n] if n < 6 else rng.standard_normal(n).astype(np.float32)
    args = (x, rng.standard_normal((3, 4)) * 20, rng.integers(1, 9, 4).astype(np.int8))
    with np.errstate(all="ignore"):
        _same(k(*args), folds(*args))


def fold_empty(A):
    return np.subtract.reduce(A, axis=1)


def test_ufunc_reduce_without_identity_of_an_empty_axis_is_a_value_error():
    k = polyfuse.kernel(fold_empty, target="python")
    with pytest.raises(ValueError, match="reduction operation subtract which has no identity"):
        k(np.zeros((2, 0)))


def fold_refused(x):
    return np.copysign.reduce(x)


def test_other_ufunc_reduce_names_the_folds_supported():
    with pytest.raises(polyfuse.UnsupportedError, match="np.logaddexp2, np.subtract"):
        polyfuse.kernel(fold_refused, target="python")(np.ones(3))


def test_reshape_to_arithmetic_of_argument_extents():
    # the size text img.shape[0] + 1 - w.shape[0] ends as A.shape[d] does (np43: an InternalError)
    rng = np.random.default_rng(0)
    im2col = corpus_kernel("batch_np43", "conv2d_im2col")
    img, w = rng.random((5, 6)), rng.standard_normal((3, 2))
    np.testing.assert_allclose(polyfuse.kernel(im2col, target="python")(img, w), im2col(img, w), rtol=1e-12)


def kept_values(x, t):
    buf = np.empty(x.shape[0])
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            buf[k] = x[i]
            k += 1
    return buf[:k].copy(), buf[:k]


def test_returned_prefix_copy_is_a_new_array_and_the_slice_a_view():
    x = np.random.default_rng(0).standard_normal(9)
    copied, view = polyfuse.kernel(kept_values, target="python")(x, 0.1)
    expected = kept_values(x, 0.1)
    np.testing.assert_array_equal(copied, expected[0])
    assert copied.flags.owndata and copied.base is None  # np43: a view of the 9-element buffer
    assert view.base is not None and np.shares_memory(view, view.base)


def argwheres(A, x, t):
    return np.argwhere(A > t), np.argwhere((x[1:-1] > x[:-2]) & (x[1:-1] > x[2:])).ravel() + 1, np.argwhere(x < t)


def rows_kept(X, c, t):
    r = t - 0.5
    z = (X - X.mean(axis=0)) / X.std(axis=0)
    inside = ((X - c) ** 2).sum(axis=1) <= r * r
    return X[(np.abs(z) < 1.5).all(axis=1)], inside.sum(), np.flatnonzero(inside)


def test_argwhere_and_selections_of_locals_reduced_along_an_axis():
    rng = np.random.default_rng(3)
    for fn, args in ((argwheres, (rng.random((3, 4)), rng.standard_normal(9))),
                     (rows_kept, (rng.standard_normal((8, 2)), np.array([0.1, -0.2])))):
        k = polyfuse.kernel(fn, target="python")
        for t in (0.5, 2.0):  # 2.0: no element passes (empty results keep their shapes)
            got, expected = k(*args, t), fn(*args, t)
            for g, e in zip(got, expected):
                assert type(g) is type(e) and g.dtype == e.dtype and g.shape == e.shape
                np.testing.assert_array_equal(g, e)


def kth_values(x, k):
    m = x.shape[0] // 2
    return np.partition(x, m)[m], np.partition(x * 2, k)[k]


def test_partition_kth_element_is_the_sorted_kth():
    k = polyfuse.kernel(kth_values, target="python")
    for x, kth in ((np.array([3.0, np.nan, -1.0, 2.0, 0.5]), -2),
                   (np.array([5, -3, 7, 1], np.int32), 3)):
        got, expected = k(x, kth), kth_values(x, kth)
        for g, e in zip(got, expected):
            assert type(g) is type(e)
            np.testing.assert_array_equal(g, e)
    with pytest.raises(ValueError):  # a kth outside x: NumPy's ValueError, not sort's IndexError
        k(np.ones(3), 3)


def zscored(x):
    sel = x[x > 0]
    m = sel.mean()
    s = sel.std()
    return (sel - m) / s, sel.var(ddof=1), np.std(x[x < 0])


def zscored_after_a_write(x):
    sel = x[x > 0]
    m = sel.mean()
    x[0] = 100.0  # sel still holds the old values: not x[x > 0] read again
    return sel - m


def test_selection_read_again_in_the_return_and_its_spread():
    k = polyfuse.kernel(zscored, target="python")
    for x in (np.random.default_rng(5).standard_normal(9), np.array([-1.0, -2.0])):  # none selected: NaN
        with np.errstate(all="ignore"):
            got, expected = k(x), zscored(x)
        for g, e in zip(got, expected):
            assert type(g) is type(e) and np.shape(g) == np.shape(e)
            np.testing.assert_allclose(g, e, rtol=1e-12)
    with pytest.raises(polyfuse.UnsupportedError, match="'sel' holds a boolean-mask selection"):
        polyfuse.kernel(zscored_after_a_write, target="python")(np.ones(3))


def unique_shares(x, w):
    u, c = np.unique(x, return_counts=True)
    p = c / c.sum()
    ent = -np.log(p) * p
    s = np.sqrt(p) * w - 1
    o = np.argsort(-c, kind="stable")  # np47: the order of the first count elements
    d = np.argsort(p, kind="stable")[::-1]
    rows = np.zeros((len(u), 2))  # np47: of two axes
    for k in range(len(u)):
        rows[k, :] = u[k] * w
    rows[-1, 0] = -1.0
    return u, p, u[o], c[o], s[d], o, rows / c[:, None], ent.sum(), s, p[0], len(s)


def test_elementwise_arithmetic_of_arrays_of_uniques_length():
    k = polyfuse.kernel(unique_shares, target="python")
    for x in (np.random.default_rng(0).integers(0, 4, 9), np.array([3]), np.array([2, 5, 5, 2, 9, 2])):
        got, expected = k(x, 0.5), unique_shares(x, 0.5)
        for g, e in zip(got, expected):
            assert type(g) is type(e) and np.shape(g) == np.shape(e)
            np.testing.assert_allclose(g, e, rtol=1e-12)


def told_ranks(x):
    edges = np.quantile(x, [0.25, 0.5, 0.75])  # a list of q: a 1-d local, passed to a helper
    cdf = np.cumsum(np.abs(x))
    cdf /= cdf[-1]  # np47: an array augmented in place keeps its rank
    return np.searchsorted(edges, x, side="right"), np.median(np.stack([x[:-2], x[1:-1], x[2:]]), axis=0), \
        np.searchsorted(cdf, 0.5, side="right"), np.append(x[0], x[1:] - 0.97 * x[:-1]), \
        np.divide(x, cdf, out=np.zeros_like(x), where=x > 0)


def test_ranks_of_np_stack_and_of_quantiles_of_a_list():
    x = np.random.default_rng(2).standard_normal(9)
    got, expected = polyfuse.kernel(told_ranks, target="python", fuse="none")(x), told_ranks(x)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-12)


def extreme_position(A):
    return np.unravel_index(A.argmax(), A.shape), np.unravel_index(np.argmin(A), A.shape)


def test_unravel_index_of_an_argmin_or_argmax_of_the_same_array():
    A = np.random.default_rng(4).standard_normal((2, 3, 4))
    got, expected = polyfuse.kernel(extreme_position, target="python", fuse="none")(A), extreme_position(A)
    assert got == expected and all(type(g) is np.int64 for part in got for g in part)


def hist2d_at(x, y, w):
    ix = np.minimum((x * 3).astype(np.int64), 2)
    iy = y - 1
    H = np.zeros((3, 3))
    np.add.at(H, (ix, iy), w)
    return H


def test_ufunc_at_of_two_local_index_arrays_broadcasts_as_numpy():
    k = polyfuse.kernel(hist2d_at, target="python", fuse="none")
    x = np.random.default_rng(6).random(5)
    for y, w in ((np.array([1, 2, 0, 3, 1]), np.arange(5.0)), (np.array([2]), np.array([0.5]))):  # 0: wraps
        np.testing.assert_array_equal(k(x, y, w), hist2d_at(x, y, w))
    with pytest.raises(IndexError):  # lengths 5 and 2: NumPy's shape mismatch
        k(x, np.array([1, 2]), np.ones(1))


def add_at_local(x, b):
    lab = x % 3
    a = np.zeros(3)
    np.add.at(a, lab, b)
    return a


def test_ufunc_at_of_a_local_index_broadcasts_a_value_of_one_element():
    k, x = polyfuse.kernel(add_at_local, target="python", fuse="none"), np.array([0, 1, 5, 2])
    np.testing.assert_array_equal(k(x, np.array([2.0])), add_at_local(x, np.array([2.0])))  # np39: AssertionError
    with pytest.raises(ValueError):  # lengths 4 and 2: NumPy's ValueError
        k(x, np.ones(2))


def along(X):
    return np.apply_along_axis(np.linalg.norm, 1, X), np.apply_along_axis(np.sum, -2, X)


def test_apply_along_axis_of_a_numpy_function_is_its_axis_form():
    """np47: f(a, axis=...), and NumPy's ValueError where the other axes hold no element."""
    k = polyfuse.kernel(along, target="python")
    X = np.random.default_rng(6).integers(-4, 5, (4, 3)).astype(np.int32)
    for g, e in zip(k(X), along(X)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-12)
    with pytest.raises(ValueError, match="Cannot apply_along_axis when any iteration dimensions are 0"):
        k(np.zeros((0, 3), np.int32))


def group_means_inline(keys, vals):
    uk, inv = np.unique(keys, return_inverse=True)
    n = np.bincount(inv, minlength=len(uk))
    mean = np.bincount(inv, weights=vals) / n
    return uk, np.bincount(inv, weights=vals * vals) / n - mean ** 2, vals - mean[inv]


def test_bincounts_of_the_inverse_inside_expressions_and_gathers_by_it():
    """np47: np.bincount(inv, ...) inside a statement bound to a name first (an array of
    np.unique's length), minlength=len(uk), and mean[inv] a gather checked per element."""
    k = polyfuse.kernel(group_means_inline, target="python")
    for keys in (np.array([3, 1, 3, 2, 2, 3]), np.array([7])):
        vals = np.arange(keys.shape[0]) * 1.5
        with np.errstate(all="ignore"):
            got = k(keys, vals)
        for g, e in zip(got, group_means_inline(keys, vals)):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-12)
