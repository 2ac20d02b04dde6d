"""Global tuples of tuples of numbers (``DIRS = ((0, 1), (1, 0), ...)``), read as constant tables
as numba reads them (frontend/desugar.py: Constants): elements at constant subscripts are the
numbers, at computed ones the element of a hidden frozen array as the table's Python number;
rows unpacked (``di, dj = DIRS[d]``) and iterated (``for di, dj in DIRS``)."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse

DIRS = ((0, 1), (1, 0), (0, -1), (-1, 0))
MIX = ((0.25, 0.5), (1.5, -2.0))
CUBE = (((1, 2), (3, 4)), ((5, 6), (7, 8)))
RAGGED = ((1, 2), (3,))


def neighbours(g):
    n, m = g.shape
    out = np.zeros_like(g)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            s = g[i, j] * 0
            for d in range(4):
                s += g[i + DIRS[d][0], j + DIRS[d][1]]
            out[i, j] = s
    return out


def unpacked(g):
    n, m = g.shape
    out = np.zeros_like(g)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            for d in range(len(DIRS)):
                di, dj = DIRS[d]
                out[i, j] = max(out[i, j], g[i + di, j + dj])
    return out


def iterated(g):
    s = g[1, 1] * 0
    for di, dj in DIRS:
        s += g[1 + di, 1 + dj]
    return s


def weighted(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = MIX[i % 2][0] * x[i] + MIX[1][i % 2]  # Python floats: float32 data stays float32
    return out


def cube_sum(k):
    s = 0
    for a in range(2):
        for b in range(2):
            s += CUBE[a][b][k]
    return s


def ragged(x):
    return x[0] * RAGGED[0][1]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, args", [
    (neighbours, (np.arange(30.0).reshape(5, 6),)),
    (neighbours, (np.arange(30, dtype=np.int32).reshape(5, 6),)),
    (unpacked, (np.random.default_rng(0).standard_normal((4, 5)),)),
    (iterated, (np.arange(9.0).reshape(3, 3),)),
    (weighted, (np.linspace(0, 1, 7, dtype=np.float32),)),
    (weighted, (np.linspace(0, 1, 1),)),
    (cube_sum, (1,)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_tables_match_python(func, args, target):
    expected, got = func(*args), polyfuse.kernel(func, target=target)(*args)
    assert type(got) is type(expected)
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_a_ragged_table_is_refused_at_its_use():
    with pytest.raises(polyfuse.UnsupportedError, match="RAGGED"):
        polyfuse.kernel(ragged, target="python")(np.ones(2))
