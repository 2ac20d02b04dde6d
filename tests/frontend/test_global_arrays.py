"""Global NumPy arrays read in a kernel (frontend/global_arrays.py): constants frozen when the
kernel first compiles, as numba freezes them; writes refused at the write."""

from __future__ import annotations

import numpy as np
import pytest
from global_tables import from_table

import polyfuse

TABLE = np.array([1.0, 2.0, 3.0])
GRID = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]  # not contiguous: frozen as a C-ordered copy
SCALES = np.array([0.5, 2.0])


def table_lookup(idx, out):
    for i in range(idx.shape[0]):
        out[i] = TABLE[idx[i] % TABLE.shape[0]] + GRID[i % 3, i % 2]


def _own_table(k):
    return TABLE[k % 3]


def two_tables(idx):
    s = 0.0
    for i in range(idx.shape[0]):
        s += _own_table(idx[i]) + from_table(idx[i])  # this module's TABLE and global_tables' TABLE
    return s


def scaled(x, fn=np.abs):
    return fn(x) * SCALES[1]


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_global_arrays_are_read_as_constants(target):
    idx = np.array([0, 4, 2, 7, 5])
    out, want = np.zeros(5), np.zeros(5)
    polyfuse.kernel(table_lookup, target=target)(idx, out)
    table_lookup(idx, want)
    np.testing.assert_array_equal(out, want)
    assert polyfuse.kernel(two_tables, target=target)(idx) == two_tables(idx)
    x = np.array([-1.0, 2.0])
    np.testing.assert_array_equal(polyfuse.kernel(scaled, target=target)(x), scaled(x))


def test_a_global_array_is_frozen_at_the_first_call():
    """As numba: a change of the global after the kernel compiled is not seen; a new kernel sees it."""
    k = polyfuse.kernel(_own_table_sum, target="python")
    before = k(np.arange(4))
    assert before == _own_table_sum(np.arange(4))
    TABLE[0] = 100.0
    try:
        assert k(np.arange(4)) == before
        assert k(np.arange(4, dtype=np.int32)) == before  # another signature: the same frozen copy
        assert polyfuse.kernel(_own_table_sum, target="python")(np.arange(4)) == _own_table_sum(np.arange(4))
    finally:
        TABLE[0] = 1.0


def _own_table_sum(idx):
    s = 0.0
    for i in range(idx.shape[0]):
        s += _own_table(idx[i])
    return s


def write_global(x):
    for i in range(x.shape[0]):
        TABLE[i % 3] = x[i]


def _fill(a, v):
    a[0] = v


def write_global_in_helper(x):
    _fill(TABLE, x[0])


def write_global_slice(x):
    TABLE[:] = x[:3]


@pytest.mark.parametrize("fn", [write_global, write_global_in_helper, write_global_slice])
def test_writing_a_global_array_is_refused_at_the_write(fn):
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_global_arrays.py:\d+:\d+: 'TABLE' is a global "
                       r"NumPy array.*frozen when it compiles.*pass the array as an argument"):
        polyfuse.kernel(fn, target="python")(np.ones(4))
    np.testing.assert_array_equal(TABLE, [1.0, 2.0, 3.0])


def test_explain_and_compile_see_the_frozen_arrays():
    k = polyfuse.kernel(table_lookup, target="python")
    args = (np.array([0, 1]), np.zeros(2))
    assert "TABLE" in str(k.explain(*args))
    k.compile(*args)


OFFSETS = (-1, 0, 1)
WTS = (0.25, 0.5, 0.25)
MIXED = ((0, 1), (1.5, 0))  # a table of mixed types
PRIMES = [2, 3, 5]


def tuple_stencil(x, out):
    for i in range(1, x.shape[0] - 1):
        s = 0.0
        for k in range(len(OFFSETS)):
            s += WTS[k] * x[i + OFFSETS[k]]  # computed indices: the tuples' hidden arrays
        for o in OFFSETS:
            s += o * WTS[-1]
        out[i] = s + WTS[1] + len(WTS)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_global_tuples_of_numbers_are_constants(target):
    x = np.array([1.0, -2.0, 0.5, 4.0, 3.0])
    out, want = np.zeros(5), np.zeros(5)
    polyfuse.kernel(tuple_stencil, target=target)(x, out)
    tuple_stencil(x, want)
    np.testing.assert_array_equal(out, want)


def nested_tuple(x):
    return x[MIXED[0][1]]  # a table of numbers of one type is supported (test_global_number_tables.py)


def global_list(x):
    return x[0] * PRIMES[1]


@pytest.mark.parametrize("fn, kind", [(nested_tuple, "tuple"), (global_list, "list")])
def test_other_globals_are_refused_with_what_is_read(fn, kind):
    with pytest.raises(polyfuse.UnsupportedError, match=rf"test_global_arrays.py:\d+:\d+: global '\w+' \(a {kind}\) "
                       "is not a value a kernel can read; globals may be numbers, NumPy arrays and tuples"):
        polyfuse.kernel(fn, target="python")(np.ones(3))


def random_inside(n):
    s = 0.0
    for _ in range(n):
        s += np.random.random()
    return s


def test_random_numbers_inside_a_kernel_are_refused_with_the_reason():
    with pytest.raises(polyfuse.UnsupportedError, match=r"random numbers drawn inside the kernel "
                       r"\(np\.random\.random\) are not supported.*pass the array"):
        polyfuse.kernel(random_inside, target="python")(3)
