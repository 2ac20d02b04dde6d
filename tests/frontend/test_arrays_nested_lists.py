"""``np.array`` of nested lists of scalars (frontend/arrays.py ``listed``): a constant-shaped
array in the dtype NumPy's array construction gives, compared with the undecorated function."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse


def sobel_x(img):
    k = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]])
    out = np.zeros((img.shape[0] - 2, img.shape[1] - 2))
    for i in range(3):
        for j in range(3):
            out += k[i, j] * img[i:i + img.shape[0] - 2, j:j + img.shape[1] - 2]
    return out


def rotate(p, theta):
    R = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    return p @ R.T


def scaled(x):
    return x * np.array([[1, 2, 3]], dtype=np.float32)


def column(x):
    return x @ np.array([[1.0], [2.0]]), np.array(((True, False), (False, False)))


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, args", [
    (sobel_x, (np.arange(30.0).reshape(5, 6) ** 1.5,)), (sobel_x, (np.arange(16).reshape(4, 4),)),
    (rotate, (np.arange(8.0).reshape(4, 2), 0.3)), (scaled, (np.arange(3, dtype=np.float32).reshape(3, 1),)),
    (column, (np.arange(6.0).reshape(3, 2),)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_nested_lists_make_numpys_array(fn, args, target):
    got, want = polyfuse.kernel(fn, target=target)(*args), fn(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12)


def ragged(x):
    return x + np.array([[1.0, 2.0], [3.0]])


def test_a_ragged_list_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="rectangular shape"):
        polyfuse.kernel(ragged, target="python")(np.ones(2))
