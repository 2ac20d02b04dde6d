"""Other dtype spellings and ``shape=`` (frontend/dtype_spellings.py), ``divmod``
(frontend/desugar.py: Divmod) and ``.item()`` (frontend/arrays.py): third-party code as written,
against the undecorated function."""

import numpy as np
import pytest

import polyfuse

TARGETS = ("python", "cpu")


def ridges(data):
    """parakeet style: the shape by keyword, the dtype a string."""
    keep = np.ones(shape=data.shape, dtype='bool')
    for i in range(1, data.shape[0] - 1):
        keep[i] = data[i] >= data[i - 1] and data[i] >= data[i + 1]
    return keep


def spelled(x):
    a = np.zeros(x.shape, np.double)
    b = np.empty_like(x, dtype=np.bool_)
    c = np.full(x.shape, 2, 'i8')
    d = np.zeros(shape=(x.shape[0], 2), dtype=np.intp)
    for i in range(x.shape[0]):
        a[i] = x[i] * 2
        b[i] = x[i] > 0.5
        c[i] += np.int_(i)
        d[i, 1] = i
    return a, b, c, d, x.astype('float32'), x.astype(np.single), np.bool_(x[0] > 0.2)


def unravel(flat, width, out):
    for k in range(flat.shape[0]):
        row, col = divmod(k, width)
        out[row, col] = flat[k] + divmod(k, 3)[1] - divmod(k, 5)[0]


def float_divmod(x, step, out):
    for i in range(x.shape[0]):
        q, r = divmod(x[i], step)
        out[i] = q * 10.0 + r


def _same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("target", TARGETS)
def test_dtype_spellings(target):
    x = np.random.default_rng(7).random(9)
    _same(polyfuse.kernel(ridges, target=target)(x), ridges(x))
    _same(polyfuse.kernel(spelled, target=target)(x), spelled(x))


@pytest.mark.parametrize("target", TARGETS)
def test_divmod(target):
    flat = np.random.default_rng(8).random(12)
    got, want = np.zeros((3, 4)), np.zeros((3, 4))
    polyfuse.kernel(unravel, target=target)(flat, 4, got)
    unravel(flat, 4, want)
    np.testing.assert_array_equal(got, want)
    x = flat * 5 - 2  # negative values: Python's floor division and modulo
    got, want = np.zeros(12), np.zeros(12)
    polyfuse.kernel(float_divmod, target=target)(x, 0.3, got)
    float_divmod(x, 0.3, want)
    np.testing.assert_array_equal(got, want)


def half(x):
    return np.zeros(x.shape, dtype='f2')


def test_unsupported_dtype_string_is_refused_where_read():
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_spellings.py:\d+"):
        polyfuse.kernel(half, target="python")(np.ones(3))


def total_item(x):
    return x.sum().item() + x[0].item() + x[:1].item()


def count_item(x):
    return (x > 2).sum().item() * 2


def whole_item(x):
    return x.item()


@pytest.mark.parametrize("target", TARGETS)
def test_item(target):
    """``.item()`` of one element: a Python number, as NumPy gives."""
    x = np.random.default_rng(14).random(9)
    _same(polyfuse.kernel(total_item, target=target)(x), total_item(x))
    _same(polyfuse.kernel(count_item, target=target)(np.arange(6)), count_item(np.arange(6)))


def test_item_of_many_elements_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_spellings.py:\d+.*item\(\) of an array"):
        polyfuse.kernel(whole_item, target="python")(np.ones(3))
