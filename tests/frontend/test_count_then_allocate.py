"""Arrays allocated with a count the kernel computed (frontend/counted_allocations.py): count,
allocate np.empty(k), fill, each kernel against the undecorated function (values, dtype, shape,
the returned object's type), empty (k = 0) and full (k = n) results, reads past the count."""

import numpy as np
import pytest

import polyfuse


def above(x, t):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            k += 1
    out = np.empty(k, dtype=x.dtype)
    j = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            out[j] = x[i]
            j += 1
    return out


def positions_zeros(x, t):
    n = x.shape[0]
    k = 0
    for i in range(n):
        if x[i] > t:
            k = k + 1
    idx = np.zeros(k, dtype=np.int64)
    j = 0
    for i in range(n):
        if x[i] > t:
            idx[j] = i
            j += 1
    return idx, k


def pairs_2d(x, t):
    n = x.shape[0]
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] + x[j] > t:
                k += 1
    out = np.empty((k, 3))
    r = 0
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] + x[j] > t:
                out[r, 0] = i
                out[r, 1] = j
                out[r, 2] = x[i] + x[j]
                r += 1
    return out, out.shape[1], len(out)


def runs_while(x):
    n = x.shape[0]
    k = 0
    i = 0
    while i < n:
        if x[i] > 0:
            k += 1
        i += 1
    out = np.zeros(k)
    j = 0
    for v in x:
        if v > 0:
            out[j] = v * 2.0
            j += 1
    s = out.sum()
    m = out.max() if len(out) > 0 else -1.0
    return out, s, m, out.shape[0], np.zeros(3, dtype=out.dtype), out.ndim


def runs_inner_while(x):
    n = x.shape[0]
    k = 0
    for i in range(n):
        j = i
        while j < n and x[j] > 0:
            k += 1
            j += 1
    out = np.empty(k, dtype=np.int64)
    r = 0
    for i in range(n):
        j = i
        while j < n and x[j] > 0:
            out[r] = j - i
            r += 1
            j += 1
    return out.sum(), out, out.argmax() if k else -1


def both_ends(x, t):
    k = 1
    for i in range(x.shape[0]):
        if x[i] > t:
            k += 2
    out = np.full(k, -1, dtype=np.int32)
    j = 1
    for i in range(x.shape[0]):
        if x[i] > t:
            out[j] = i
            out[j + 1] = -i
            j += 2
    return out.size, out


def over_the_array(x, t):
    k = 0
    for i, v in enumerate(x):
        if v > t and i % 2 == 0:
            k += 1
    out = np.zeros(k, dtype=np.int32)
    for i in range(len(out)):
        out[i] = i * 10
    return out


def first_half(x, t, e):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            k += 1
    out = np.zeros(k, dtype=np.int64)  # (out[:e] past j reads these)
    j = 0
    for i in range(x.shape[0]):
        if x[i] > t and j < k // 2 + 1:
            out[j] = i
            j += 1
    return out[:j], out[:e]


def filled_then_read(x, t, p):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            k += 1
    out = np.empty(k, dtype=x.dtype)
    j = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            out[j] = x[i]
            j += 1
    return out[p]


def summed_loop(x, t):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            k += 1
    out = np.empty(k)
    j = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            out[j] = x[i] - t
            j += 1
    s = 0.0
    for i in range(len(out)):
        s += out[i] * out[i]
    for v in out:
        s += v
    return s, np.mean(out) if k else 0.0


def above_or_empty(x, t):
    if x.shape[0] < 2:
        return np.zeros(0, dtype=x.dtype)
    n = x.shape[0]  # (a size bound after the early return: bound on both paths)
    k = 0
    for i in range(n):
        if x[i] > t:
            k += 1
    out = np.empty(k, dtype=x.dtype)
    j = 0
    for i in range(n):
        if x[i] > t:
            out[j] = x[i]
            j += 1
    return out


def runs_or_empty(a, stop):
    n = a.shape[0]
    if n == 0:
        return np.empty(0, dtype=a.dtype), np.zeros(0, dtype=np.int64)
    for i in range(n):
        if a[i] == stop:
            return np.empty(0, dtype=a.dtype), np.zeros(0, dtype=np.int64)
    runs = 1
    for i in range(1, n):
        if a[i] != a[i - 1]:
            runs += 1
    vals = np.empty(runs, dtype=a.dtype)
    lens = np.zeros(runs, dtype=np.int64)
    k = 0
    vals[0] = a[0]  # (Python's IndexError where n == 0: never reached)
    lens[0] = 1
    for i in range(1, n):
        if a[i] == a[i - 1]:
            lens[k] += 1
        else:
            k += 1
            vals[k] = a[i]
            lens[k] = 1
    return vals, lens


def empty_of_another_dtype(x, t):
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            k += 1
    out = np.empty(k)
    return out


def _same(got, expected):
    assert type(got) is type(expected)
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    assert np.shape(got) == np.shape(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def _check(fn, calls, target):
    k = polyfuse.kernel(fn, target=target, verify=True)
    for args in calls:
        _same(k(*args), fn(*args))


X = np.array([3.0, -1.0, 5.5, 0.0, 7.0])
XI = np.array([4, 1, 9, 2], dtype=np.int32)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_count_then_fill(target):
    _check(above, [(X, 1.0), (X, 100.0), (X, -5.0), (XI, 2), (np.zeros(0), 0.0)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_count_zeros_returned_with_the_count(target):
    _check(positions_zeros, [(X, 1.0), (X, 100.0), (X, -5.0)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_count_of_nested_loops_two_axes(target):
    _check(pairs_2d, [(X, 4.0), (X, 100.0), (X, -100.0), (np.zeros(1), 0.0)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_count_of_a_while_loop_reduced(target):
    _check(runs_while, [(X,), (-X,), (np.abs(X) + 1.0,)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_count_of_an_inner_while_loop(target):
    _check(runs_inner_while, [(X,), (-X,), (np.abs(X) + 1.0,)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_count_by_two_from_one(target):
    _check(both_ends, [(X, 1.0), (X, 100.0), (X, -5.0)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_count_of_a_loop_over_an_array(target):
    _check(over_the_array, [(X, 1.0), (X, 100.0), (X, -5.0)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_returned_slices_of_the_counted_array(target):
    _check(first_half, [(X, 1.0, 1), (X, 1.0, 9), (X, 1.0, -1), (X, 1.0, -9), (X, 100.0, 2), (X, -5.0, 4)], target)


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_reads_check_the_count(target):
    _check(filled_then_read, [(X, 1.0, 0), (X, 1.0, -1), (X, 1.0, 2), (X, 1.0, -3)], target)
    k = polyfuse.kernel(filled_then_read, target=target)
    for args in ((X, 1.0, 3), (X, 1.0, -4), (X, 100.0, 0), (X, 1.0, 5)):
        with pytest.raises(IndexError) as numpy_error:
            filled_then_read(*args)
        with pytest.raises(IndexError) as error:
            k(*args)
        # NumPy's message (the index and the count), naming the user's array
        assert str(error.value) == str(numpy_error.value).replace(" with size", " of 'out' with size")


@pytest.mark.parametrize("target", ["python", "cpu"])
def test_loops_over_the_counted_array(target):
    _check(summed_loop, [(X, 1.0), (X, 100.0)], target)


def test_early_returns_of_empty_arrays_before_the_count():
    # the early returns give out[:0] (counted_allocations.empty_early_returns): one array, a pair
    # (a return in a loop too); cpu only: test_fe41_forms checks the two forms on python
    _check(above_or_empty, [(X, 1.0), (X, 100.0), (XI, 2), (X[:1], 0.0), (np.zeros(0), 0.0)], "cpu")
    runs = np.array([2, 2, 5, 1, 1, 1], dtype=np.int16)
    _check(runs_or_empty, [(runs, 7), (runs, 5), (runs[:1], 0), (runs[:0], 0)], "cpu")


def test_an_empty_early_return_of_another_dtype_keeps_its_dtype():
    # np.zeros(0, np.int64) beside a float64 buffer is no prefix of it: left as written (refused)
    with pytest.raises(polyfuse.UnsupportedError, match="arrays returned from the branches of an if"):
        polyfuse.kernel(empty_of_another_dtype, target="python")(X, 1.0)


def counted_by_data(x, m):
    k = 0
    for i in range(m[0]):
        k += 1
    out = np.empty(k)
    return out


def counted_to_an_element(x):
    m = int(x[0])
    k = 0
    for i in range(m):
        k += 1
    out = np.zeros(k)
    return out


def counted_by_a_search(x):
    k = 0
    i = 0
    while i < x.shape[0] and x[i] > 0:
        k += 1
        i += 2 if x[i] > 1 else 1
    out = np.zeros(k)
    return out


def sliced(x):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            k += 1
    out = np.zeros(k)
    return out[1:]


def test_a_count_the_sizes_do_not_bound_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match=r"range.m.0...: no trip count from the sizes"):
        polyfuse.kernel(counted_by_data, target="python")(X, np.array([2]))
    with pytest.raises(polyfuse.UnsupportedError, match="no trip count from the sizes"):
        polyfuse.kernel(counted_by_a_search, target="python")(X)
    with pytest.raises(polyfuse.UnsupportedError, match=r"reading \['m'\], computed from the data"):
        polyfuse.kernel(counted_to_an_element, target="python")(X)


def test_a_use_past_the_count_is_refused_at_the_use():
    with pytest.raises(polyfuse.UnsupportedError, match=r"out\[1:\]"):
        polyfuse.kernel(sliced, target="python")(X)
