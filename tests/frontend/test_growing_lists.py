"""Lists built by append and returned prefixes ``buf[:k]`` (frontend/growing_lists.py): an
upper-bound buffer plus a count, handed back as ``buf[:count]``.  Each kernel is compared with
the undecorated function on several inputs, empty and size 1 among them; what stays refused is
refused at its line."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_result

import polyfuse


def above(x, t):
    out = []
    for i in range(x.shape[0]):
        if x[i] > t:
            out.append(x[i])
    return np.array(out)


def pairs_sum(a, b):
    res = []
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            if a[i] + b[j] == 0:
                res.append(i * b.shape[0] + j)
    return np.array(res)


def two_sites(x):
    out = []
    for i in range(len(x)):
        if x[i] > 0:
            out.append(i)
    for i in range(len(x) - 1, -1, -1):
        if x[i] < -1.0:
            out.append(-i)
    return np.asarray(out), len(out)


def widened(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(1)
        else:
            out.append(0.5)
    return np.array(out, dtype=np.float64)


def mixed(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(1)
        else:
            out.append(0.5)
    return np.array(out)


def with_dtype(x):
    out = []
    for i in range(1, x.shape[0]):
        if x[i] != x[i - 1]:
            out.append(i)
    return np.array(out, dtype=np.int32)


def bound_first(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(i)
    arr = np.array(out, dtype=np.int32)
    total = x.shape[0] - 1
    return total, arr


def flags(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] > 0)
    return np.array(out)


def capped(x, k):
    out = []
    for i in range(x.shape[0]):
        if len(out) < k and x[i] > 0:
            out.append(x[i])
    return np.array(out)


def compact(x, t):
    buf = np.empty_like(x)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            buf[k] = x[i]
            k += 1
    return buf[:k], k


def compact_argument(x, t):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            x[k] = x[i]
            k += 1
    return x[:k]


def rows_kept(X, t):
    out = np.zeros_like(X)
    k = 0
    for i in range(X.shape[0]):
        if X[i, 0] > t:
            for j in range(X.shape[1]):
                out[k, j] = X[i, j]
            k += 1
    return k, out[:k]


def triangular(x):
    out = []
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            if abs(x[i] - x[j]) < 1.0:
                out.append(i * 100 + j)
    return np.array(out)


def triangular_reversed(x):
    out = []
    for i in range(x.shape[0] - 1, -1, -1):
        for j in range(i):
            for k in range(j, i + 2):
                out.append(x[j] * k)
    return np.array(out)


def peaks_while(x):
    """A while loop's appends: at most one per iteration, and every path adds 1 or 2 to i."""
    peaks = []
    i = 1
    n = x.shape[0]  # bound after the list is made
    while i < n - 1:
        if x[i] > x[i - 1] and x[i] > x[i + 1]:
            peaks.append(i)
            i += 2
        else:
            i += 1
    return np.array(peaks)


def strided_whiles(x, m):
    out = []
    for r in range(m):
        j = x.shape[0] - 1 - r
        while j >= 0 and x[j] > -1.5:
            if x[j] > 0:
                out.append(x[j])
            j -= 2
    return np.array(out)


def _vectors(n, dtype=np.float64):
    return (np.random.default_rng(n).standard_normal(n) * 2).astype(dtype)


CASES = [
    (above, lambda n: (_vectors(n), 0.2)),
    (above, lambda n: (_vectors(n, np.float32), 0.2)),
    (above, lambda n: (np.arange(n, dtype=np.int32) - 2, 0)),
    (pairs_sum, lambda n: (np.arange(n) - n // 2, np.arange(3) - 1)),
    (two_sites, lambda n: (_vectors(n),)),
    (widened, lambda n: (_vectors(n),)),
    (with_dtype, lambda n: (np.round(_vectors(n)),)),
    (flags, lambda n: (_vectors(n),)),
    (bound_first, lambda n: (_vectors(n),)),
    (capped, lambda n: (_vectors(n), 2)),
    (compact, lambda n: (_vectors(n), 0.5)),
    (compact_argument, lambda n: (_vectors(n), 0.5)),
    (rows_kept, lambda n: (_vectors(3 * n).reshape(n, 3), 0.0)),
    (triangular, lambda n: (_vectors(n),)),
    (triangular_reversed, lambda n: (_vectors(n),)),
    (peaks_while, lambda n: (_vectors(n),)),
    (strided_whiles, lambda n: (_vectors(n), 3)),
]


@pytest.mark.parametrize("target, fuse", [("python", "none"), ("cpu", "smart")])
@pytest.mark.parametrize("func, make", CASES, ids=[f"{c[0].__name__}{k}" for k, c in enumerate(CASES)])
def test_matches_the_undecorated_function(func, make, target, fuse):
    kernel = polyfuse.kernel(func, target=target, fuse=fuse, verify=True)
    for n in (0, 1, 2, 9):
        args = make(n)
        expected_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        actual_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        assert_same_result(func(*expected_args), kernel(*actual_args))
        for e, a in zip(expected_args, actual_args):
            assert_same_result(e, a)


def test_an_empty_list_is_float64_as_numpy_makes_it():
    """np.array([]) is float64 whatever the items would have been; with dtype= it is that."""
    got = polyfuse.kernel(above, target="cpu")(np.arange(4), 10)
    assert got.dtype == np.float64 and got.shape == (0,)
    assert polyfuse.kernel(above, target="cpu")(np.arange(4), 1).dtype == np.int64
    assert polyfuse.kernel(with_dtype, target="cpu")(np.zeros(3)).dtype == np.int32


def in_while(x):
    out = []
    i = 0
    while i < x.shape[0]:
        out.append(x[i])
        i = i + 2 if x[i] > 0 else i + 1
    return np.array(out)


def squares(x):
    out = []
    for i in range(x.shape[0]):
        for j in range(i * i, x.shape[0]):
            out.append(x[i] - x[j])
    return np.array(out)


def of_tuples(x):
    out = []
    for i in range(x.shape[0]):
        out.append((i, x[i]))
    return np.array(out)


def iterated(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i])
    s = 0.0
    for v in out:
        s += v
    return s


def float_end(x):
    out = np.empty_like(x)
    t = 0.0
    for i in range(x.shape[0]):
        t += 0.5
    return out[:t]


def list_returned(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i])
    return out


@pytest.mark.parametrize("func, line, words", [
    (in_while, "while i < x.shape[0]:", "inside a while loop whose counter does not run"),
    (squares, "range(i * i, x.shape[0])", "whose bounds read i other than linearly"),
    (of_tuples, "out.append((i, x[i]))", "only lists of numbers"),
    (iterated, "for v in out:", "list 'out' used here"),
    (list_returned, "return out", "return np.array(out)"),
    (mixed, "out = []", "dtypes float64 and int64"),
    (float_end, "return out[:t]", "needs an integer there"),
])
def test_what_stays_refused_is_refused_at_its_line(func, line, words):
    with pytest.raises(polyfuse.UnsupportedError) as info:
        polyfuse.kernel(func, target="python")(np.arange(3.0))
    message = str(info.value)
    assert words in message and line in message and "test_growing_lists.py:" in message


def test_on_dask_arrays_a_prefix_is_refused():
    """buf[:k] needs the whole run before its length is known: not per block."""
    da = pytest.importorskip("dask.array")
    with pytest.raises(polyfuse.UnsupportedError, match="known only once the whole array"):
        polyfuse.kernel(compact)(da.from_array(np.arange(6.0), chunks=3), 1.0)
