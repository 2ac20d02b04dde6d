"""fe45's forms from numba-style code (tests/corpus/batch_fe45): elements of tuple displays at
computed indices (Python's IndexError, negative indices), loops over tuples of values, value
helpers whose ifs assign locals and return tuples, ping-pong buffers read element-wise into
locals, and scratch locals reused under an if (a fresh name per branch only where no read sees
the value the if leaves).  fe48, the gaps fe45 left: ``np.frombuffer`` of bytes constants as
tables (frontend/byte_tables.py), ``n = e; if n < 1: n = 1`` as one binding, allocations sized
by reductions of the data (frontend/call_sizes.py: ``call_time_data_source``)."""

import numpy as np
import pytest
from numba import njit

import polyfuse


def table_steps(x, k):
    steps = (1.5, -2.0, 0.25)
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] * steps[k - i]  # negative indices count from the end; below -3: IndexError
    return out


def pair_sums(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        j = i + 1
        for q in (i, j):
            s += x[q]
    return s


@njit
def _order(a, b):
    if a > b:
        return b, a
    return a, b


@njit
def _hue(r, g, b):
    mx = max(r, g, b)
    d = mx - min(r, g, b)
    if d == 0:
        return 0.0
    if mx == r:
        h = (g - b) / d
    elif mx == g:
        h = 2.0 + (b - r) / d
    else:
        h = 4.0 + (r - g) / d
    h /= 6.0
    if h < 0:
        h += 1.0
    return h


def sorted_pairs_and_hues(x):
    lo = np.empty(x.shape[0] - 1)
    hue = np.empty(x.shape[0] - 2)
    for i in range(x.shape[0] - 1):
        a, b = _order(x[i], x[i + 1])
        lo[i] = a - b
    for i in range(x.shape[0] - 2):
        hue[i] = _hue(x[i], x[i + 1], x[i + 2])
    return lo, hue


def ping_pong_elements(grid, steps):
    g = grid.copy()
    nxt = np.empty_like(g)
    h, w = g.shape
    for _ in range(steps):
        for i in range(h):
            for j in range(w):
                c = g[i, j]
                nxt[i, j] = c + g[(i + 1) % h, j] if c > 0 else c - 1
        g, nxt = nxt, g
    return g


def scratch_in_branches(x):
    s = 0.0
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        best = 0.0
        if x[i] > 0.5:
            v = x[i] * 2
            if v > best:
                best = v
        elif x[i] < -0.5:
            v = -x[i]
            best = v + 1
        for k in range(i):
            v = x[k] - x[i]
            if v > best:
                best = v
        out[i] = best
        s += best
    return out, s


def live_after_the_if(x):
    t = -1.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            t = x[i]
    return t


def sum_then_offset(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            s += x[i]
        s += 0.25  # a Python float where no element was added, NumPy's after one was
    return s


HEX = b"0123456789abcdef"


@njit
def _digit(table, v):
    return table[v]


def byte_tables(data, w):
    digits = np.frombuffer(HEX, dtype=np.uint8)
    words = np.frombuffer(b"\x01\x00\x02\x00\xff\xff", dtype=np.int16, count=2, offset=2)
    out = np.empty(2 * data.shape[0], dtype=np.uint8)
    total = 0
    for i in range(data.shape[0]):
        out[2 * i] = _digit(digits, data[i] >> 4)  # a table passed to a helper: read there
        out[2 * i + 1] = np.frombuffer(b"ABCDEFGHIJKLMNOP", dtype=np.uint8)[data[i] & 15]
        total += digits[data[i] & 15] + words[i % len(words)]  # uint8 + int16 + a Python int: int16
    nc = int(w // 0.7)
    if nc < 1:
        nc = 1
    cells = np.zeros(nc * nc, dtype=np.int64)
    cells[data[0] % (nc * nc)] = 1
    return out, total, cells


def data_sized(labels, w):
    n = int(labels.max()) + 1
    mass = np.zeros(n)
    for i in range(labels.shape[0]):
        mass[labels[i]] += w[i]
    extra = 0.0
    if w.shape[0] > 2:  # a test of sizes: the call computes the size where Python does
        spare = np.zeros(labels.min() + 3)
        spare[labels[0] % 3] = w[0]
        extra = spare.sum()
    return mass, np.zeros((np.max(labels) + 2, 2)), extra


RNG = np.random.default_rng(45)
CASES = [
    (byte_tables, (RNG.integers(0, 256, 6).astype(np.uint8), 2.5)),
    (byte_tables, (RNG.integers(0, 256, 1).astype(np.uint8), 0.5)),
    (data_sized, (RNG.integers(0, 5, 7), RNG.random(7))),
    (data_sized, (RNG.integers(0, 5, 2), RNG.random(2))),
    (table_steps, (RNG.standard_normal(5), 2)),
    (pair_sums, (RNG.standard_normal(6),)),
    (sorted_pairs_and_hues, (RNG.random(7),)),
    (ping_pong_elements, (RNG.integers(-2, 3, (4, 3)), 3)),
    (scratch_in_branches, (RNG.standard_normal(8),)),
    (live_after_the_if, (RNG.standard_normal(5),)),
    (sum_then_offset, (np.array([0.1, 0.2]),)),
    (sum_then_offset, (np.array([0.1, 0.7, 0.2]),)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_fe45_forms_match_python(fn, args):
    got = polyfuse.kernel(fn, target="python")(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_a_tuple_index_out_of_range_raises_python_s_index_error():
    kernel = polyfuse.kernel(table_steps, target="python")
    with pytest.raises(IndexError, match="tuple index out of range"):
        kernel(np.ones(6), 1)  # i = 5: steps[-4]
    with pytest.raises(IndexError):
        table_steps(np.ones(6), 1)


def float_tuple_index(x, k):
    t = (1.0, 2.0)
    return x[0] * t[k / 2]


def test_a_tuple_indexed_by_a_float_is_refused_as_python_s_type_error():
    with pytest.raises(TypeError):
        float_tuple_index(np.ones(2), 2)
    with pytest.raises(polyfuse.UnsupportedError, match="tuple indexed by a float64"):
        polyfuse.kernel(float_tuple_index, target="python")(np.ones(2), 2)


def numpy_bool_tuple_index(x, k):
    t = (1.0, x[1])
    return t[k[0] > 0] + t[k.shape[0] > 1]  # a Python bool indexes a tuple, NumPy's does not


def test_a_tuple_indexed_by_a_numpy_bool_is_refused_as_python_s_type_error():
    with pytest.raises(TypeError):
        numpy_bool_tuple_index(np.ones(2), np.ones(2))
    with pytest.raises(polyfuse.UnsupportedError, match="tuple indexed by a NumPy bool"):
        polyfuse.kernel(numpy_bool_tuple_index, target="python")(np.ones(2), np.ones(2))
