"""Python spellings numba users write (frontend/desugar.py), each against the undecorated function:
global constants, tuple assignments, the other augmented operators, loops over arrays, sizes of
kernel-local arrays."""

from __future__ import annotations

from math import sqrt

import numpy as np
import pytest

import polyfuse
from frontend.rewrite import helper_texts

SCALE = 2.5
EPS = np.float32(1e-3)
STEPS = 3
FLAG = True


def scaled(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] * SCALE + 1.0 if FLAG else 0.0


def float32_constant(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i] + EPS  # float32 + np.float32: stays float32, as in NumPy


def time_steps(x):
    for _ in range(STEPS):
        for i in range(1, x.shape[0] - 1):
            x[i] = 0.5 * (x[i - 1] + x[i + 1])


def _half(v):
    return v * HALF


HALF = 0.5


def helper_reads_a_constant(x, y):
    for i in range(x.shape[0]):
        y[i] = _half(x[i])


def running_pair(x, y):
    s, t = 0.0, 1.0
    for i in range(x.shape[0]):
        s, t = s + x[i], t * 0.5 + s  # both values from the old s and t
    y[0] = s
    y[1] = t


def swap_rows(a, b):
    for i in range(a.shape[0]):
        a[i], b[i] = b[i], a[i]


def rotate(a):
    for i in range(a.shape[0] - 2):
        a[i], a[i + 1], a[i + 2] = a[i + 2], a[i], a[i + 1]


def more_operators(x, k):
    for i in range(x.shape[0]):
        x[i] //= 3
        x[i] %= 7
        x[i] **= 2
        k[i] //= 2.5


def iterate_elements(x):
    total = 0.0
    for v in x:
        total += v * v
    return total


def iterate_rows(A, out):
    k = 0
    for row in A:
        s = 0.0
        for j in range(row.shape[0]):
            s += row[j]
        out[k] = s
        k += 1


def enumerate_and_write(x, y):
    for i, v in enumerate(x):
        x[i] = 2.0 * v  # v was read before this write
        y[i] = v + x[i]


def zip_pairs(x, y, out):
    for i, (a) in enumerate(x):
        out[i] = a
    for a, b in zip(x, y):
        out[0] += a * b


def local_sizes(x, out):
    tmp = np.empty_like(x)
    pad = np.zeros(x.shape[0] + 2)
    for i in range(len(tmp)):
        tmp[i] = x[i] + 1.0
    for i in range(1, pad.shape[0] - 1):
        pad[i] = tmp[i - 1]
    for i in range(pad.shape[-1] - 2):
        out[i] = pad[i] + pad[i + 2]


def ndindex_loops(A, out):
    """np.ndindex over an argument's shape, with the index tuple in subscripts and indexed."""
    for idx in np.ndindex(A.shape):
        out[idx] = A[idx] * 2.0 + idx[0] - idx[-1]
    tmp = np.zeros((A.shape[0], 2))
    for i, j in np.ndindex(tmp.shape):
        tmp[i, j] = A[i, j]
    for i, j in np.ndindex(A.shape[0], 2):
        out[i, j] += tmp[i, j]


def loops_over_temporaries(x, A, out):
    """Loops over arrays the NumPy lowering made (frontend/array_loops.py): a 1-D temporary's
    elements are copies, a 2-D one's rows are views, enumerate(start=), enumerate(zip())."""
    grid = np.linspace(-1.5, 1.5, x.shape[0])
    for i, g in enumerate(grid):
        grid[min(i + 1, x.shape[0] - 1)] = 0.0  # the next element changes: the next copy sees it
        out[i, 0] = g * x[i]
    T = A * 2.0
    for k, row in enumerate(T, 1):
        row[0] = float(k)  # a view: the write lands in T, and the row sees it
        for j in range(len(row)):
            out[k - 1, 1] += row[j] + row.shape[0]
    for k, (r, y) in enumerate(zip(T, x), start=-2):
        out[k + 2, 2] = r[1] * y + k
    for a, b in zip(T[1], grid):
        out[0, 3] += a * b
    for v in A[1:, 2]:
        out[1, 3] += v


def imports_in_the_body(x, out):
    """Imports of numpy, math and their functions in the body bind what globals would; module
    functions by name (here and in a helper) are the module's."""
    import math as m

    import numpy
    from numpy import float32, maximum
    for i in range(x.shape[0]):
        out[i] = m.floor(x[i]) + float32(x[i]) + maximum(x[i], 0.5) + _root_twice(abs(x[i]))
    out[0] = numpy.sum(x)


def _root_twice(v):
    return sqrt(v) * 2.0


def _clamp(i, offset, maxval):
    return min(max(0, i + offset), maxval)


def shape_held_in_a_local(x, w, out):
    """numpy-benchmarks' conv: shapes held in locals (tuple locals written out), read in a
    tuple of subscripts."""
    sx = x.shape
    sw = w.shape
    for i in range(sx[0]):
        for j in range(sx[1]):
            for ii in range(sw[0]):
                for jj in range(sw[-1]):
                    idx = _clamp(i, ii - sw[0] // 2, sw[0]), _clamp(j, jj - sw[0] // 2, sw[0])
                    out[i, j] += x[idx] * w[ii, jj]


def _vec(rng, n=11, dtype=np.float64):
    return rng.standard_normal(n).astype(dtype)


CASES = [
    (scaled, lambda r: (_vec(r), np.zeros(11))),
    (float32_constant, lambda r: (_vec(r, dtype=np.float32), np.zeros(11, np.float32))),
    (time_steps, lambda r: (_vec(r),)),
    (helper_reads_a_constant, lambda r: (_vec(r), np.zeros(11))),
    (running_pair, lambda r: (_vec(r), np.zeros(2))),
    (swap_rows, lambda r: (_vec(r), _vec(r))),
    (rotate, lambda r: (_vec(r),)),
    (more_operators, lambda r: (r.integers(-50, 50, 9), _vec(r, 9))),
    (iterate_elements, lambda r: (_vec(r),)),
    (iterate_rows, lambda r: (r.standard_normal((5, 4)), np.zeros(5))),
    (enumerate_and_write, lambda r: (_vec(r), np.zeros(11))),
    (zip_pairs, lambda r: (_vec(r, 7), _vec(r, 5), np.zeros(7))),
    (local_sizes, lambda r: (_vec(r), np.zeros(11))),
    (ndindex_loops, lambda r: (r.standard_normal((5, 4)), np.zeros((5, 4)))),
    (shape_held_in_a_local, lambda r: (r.standard_normal((7, 6)), r.standard_normal((3, 3)), np.zeros((7, 6)))),
    (imports_in_the_body, lambda r: (_vec(r), np.zeros(11))),
    (loops_over_temporaries, lambda r: (_vec(r, 6), r.standard_normal((5, 4)), np.zeros((6, 4)))),
]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("func, make", CASES, ids=[c[0].__name__ for c in CASES])
def test_matches_the_undecorated_function(func, make, target):
    args = make(np.random.default_rng(1))
    expected = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    want = func(*expected)
    got = polyfuse.kernel(func, target=target, verify=True)(*args)
    if want is not None:
        assert type(got) is type(want) and np.isclose(got, want, rtol=1e-12)
    for e, a in zip(expected, args):
        assert a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)


def test_global_constant_values_are_part_of_the_cache_key(monkeypatch):
    before = helper_texts(helper_reads_a_constant)
    assert "HALF=float:0.5" in before
    monkeypatch.setitem(globals(), "HALF", 0.25)
    assert helper_texts(helper_reads_a_constant) != before


def row_reassigned(A, out):
    for row in A:
        row = A[0]
        out[0] = row[0]


def test_a_row_name_the_loop_reassigns_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="for loop over something other than range"):
        polyfuse.kernel(row_reassigned)(np.ones((3, 2)), np.zeros(3))


def temporary_rebound_in_its_loop(x, out):
    t = x * 2.0
    for i, v in enumerate(t):
        t = t + 1.0  # Python goes on iterating the old array: refused, not read from the new one
        out[i] = v


def test_a_temporary_the_loop_binds_again_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match="for loop binding a tuple"):
        polyfuse.kernel(temporary_rebound_in_its_loop)(np.ones(3), np.zeros(3))
