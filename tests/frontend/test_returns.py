"""Kernels return what the undecorated function returns: the same values with the same Python
types, the caller's own array when an argument is returned, a fresh array per call when the
kernel allocates it; and the allocators np.empty/zeros/ones/full and their _like forms."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import polyfuse
from polyfuse import UnsupportedError

TARGETS = ("python", "cpu")


def run_both(fn, *args, target="cpu", fuse="smart", calls=3):
    """The kernel's results over ``calls`` calls (the third takes the planned path) and py_func's."""
    kernel = polyfuse.kernel(fn, target=target, fuse=fuse, verify=True)
    results = [kernel(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]) for _ in range(calls)]
    expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    return results, expected


def same(actual, expected):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            same(a, e)
        return
    assert type(actual) is type(expected), (type(actual), type(expected))
    if isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-12)


# ---- scalars -----------------------------------------------------------------------------------

def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def count(n):
    c = 0
    for i in range(n):
        c += i
    return c


def weak_float(n):
    s = 0.0
    for i in range(n):
        s += 0.5 * i
    return s


def int_sum(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def mean(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s / x.shape[0]


def first(x):
    return x[0]


def choice_of_a_python_local(x, k):
    """``w = s if c else s`` of a Python float ``s``: the float 1.0 (cf50's choice fuzz:
    np.float64(1.0), the choice's flag NumPy's)."""
    w = 0.0
    s = 1.0
    for i in range(x.shape[0]):
        if k[i] == 0:
            if x[i] > 0.0:
                w = s if x[i] > 2 else s
            s = w
        else:
            w = x[i] * 2.0
    return w


def bool_choice(a, k):
    """``u and a[i] > 0.0`` of the Python ``u = False`` is that False (cf50: np.False_), of a
    local of two dtypes (``u``, split into versions) and of one (``w``, flagged)."""
    u = w = False
    for i in range(a.shape[0]):
        u = (u and a[i] > 0.0) if k[i] > 0 else np.float32(0.5)
        w = (w and a[i] > 0.0) if k[i] > 0 else True
    return u, w


def through_a_second_local(x):
    """``u = t * 3`` of a ``t`` given Python ints and floats: Python's int 7 where no
    element ran (7.0 before: u's flag did not follow t's)."""
    t = 2
    for i in range(x.shape[0]):
        t += x[i] if x[i] > 5.0 else 0.25
    u = t * 3
    return u + 1


def kept_loop_choice(x, n):
    """``s += x[i] if x[i] > s else s`` in a loop kept as written: np.int32 where an element
    won (the flag's test read the new ``s``: the Python int 6)."""
    s = 0
    i = 0
    while i < n:
        s += x[i] if x[i] > s else s
        i += 1
    return s


def complex_sum(x, n):
    """``s += x[k]`` of a Python ``s = 0j``: Python's complex where ``x`` is float64, as
    ``complex.__add__`` takes an np.float64 (a float subclass) before NumPy is asked (cx53:
    np.complex128); NumPy's complex64 / complex128 of float32, int64 and complex64 elements, and
    of ``x[0] + s``, whose np.float64 goes first; ``s == x[1]`` a Python bool where ``s`` is Python's
    complex before an np.float64, else NumPy's."""
    s = 0j
    for k in range(n):
        s += x[k]
    return s, s * x[0] - 1.5, x[0] + s, 2j / x[0], s == x[1], 1j != x[0]


def complex_choice(x, c):
    """``s if c else x[0]`` of a Python ``s = 0j``: NumPy's real scalar where ``c`` is false,
    without the ComplexWarning of converting the complex result (cx53)."""
    s = 0j
    u = s if c else x[0]
    return u


def scaled(n, a):
    return a * n + 1


def root(n):
    return math.sqrt(n)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, args", [
    (total, (np.arange(6.0),)),
    (total, (np.arange(6.0, dtype=np.float32),)),
    (count, (7,)),
    (weak_float, (5,)),
    (int_sum, (np.arange(6, dtype=np.int32),)),
    (int_sum, (np.arange(6, dtype=np.int64),)),
    (mean, (np.arange(6.0),)),
    (first, (np.arange(3, dtype=np.int32),)),
    (scaled, (4, 2.5)),
    (root, (9,)),
    (choice_of_a_python_local, (np.array([0.7, 1.0]), np.array([0, 0]))),
    (bool_choice, (np.array([1.0, 2.0]), np.array([1, 1]))),
    (through_a_second_local, (np.zeros(0),)),
    (kept_loop_choice, (np.array([3, -2], dtype=np.int32), 2)),
    (complex_sum, (np.array([2.0, 0.5]), 2)),
    (complex_sum, (np.array([2.0, 0.5]), 0)),
    (complex_sum, (np.array([2.0, 0.5], dtype=np.float32), 2)),
    (complex_sum, (np.array([2, 3]), 2)),
    (complex_sum, (np.array([2.0, 0.5j], dtype=np.complex64), 2)),
    (complex_choice, (np.array([2.0]), False)),
    (complex_choice, (np.array([2], dtype=np.int32), True)),
], ids=lambda v: getattr(v, "__name__", "args"))
def test_scalar_return_has_the_python_type_and_value(fn, args, target):
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        results, expected = run_both(fn, *args, target=target)
    for result in results:
        same(result, expected)


def doubled_sum(x, n, c):
    """``u = s * 2`` of ``s = 0`` then ``s += x[k]``: Python's int where no ``k`` ran, as ``s``
    (``return u + 1`` gave 1.0: ``u``, given NumPy values only, fell back to its dtype's kind)."""
    s = 0
    for k in range(n):
        s += x[k]
    u = s * 2
    return u + 1


def doubled_bool_sum(x, n, c):
    s = False
    for k in range(n):
        s += x[k]
    u = s * 2
    return u + 1


def copied_sum(x, n, c):
    s = 0
    for k in range(n):
        s += x[k]
    u = s
    v = u * 2
    return v


def copied_float_sum(x, n, c):
    s = 0.0
    for k in range(n):
        s += x[k]
    u = s
    v = u * 2
    return v


def shifted_sum(x, n, c):
    s = 0
    for k in range(n):
        s += x[k]
    u = s + 0.5
    return u


def negated_bool_sum(x, n, c):
    s = False
    for k in range(n):
        s += x[k]
    u = -s
    return u


def clipped_float_sum(x, n, c):
    s = 0.0
    for k in range(n):
        s += x[k]
    u = max(s, 1)
    return u


def chosen_sum(x, n, c):
    """``u = s if c else 3``: a local of two types (frontend.local_versions), whose ``s`` branch
    is Python's int where no ``k`` ran (np.float64(0.0) before: the version of s's dtype)."""
    s = 0
    for k in range(n):
        s += x[k]
    u = s if c else 3
    return u


def chosen_bool_sum(x, n, c):
    s = False
    for k in range(n):
        s += x[k]
    u = s if c else 3
    return u


def clipped_sum(x, n, c):
    s = 0.0
    for k in range(n):
        s += x[k]
    u = min(s, 1.5)
    return u * 2


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", [doubled_sum, doubled_bool_sum, copied_sum, copied_float_sum, shifted_sum,
                                negated_bool_sum, clipped_float_sum, chosen_sum, chosen_bool_sum, clipped_sum],
                         ids=lambda f: f.__name__)
def test_a_local_computed_from_a_flagged_local_keeps_its_kind(fn, target):
    """A local computed from a local that holds a Python number until a loop runs (``u = s * 2``,
    ``u = s``, ``-s``, ``max(s, 1)``, ``s if c else 3``, ``min(s, 1.5)``) is Python's int, float or
    bool where that local is, NumPy's scalar once the loop ran: value and type as py_func's."""
    kernel = polyfuse.kernel(fn, target=target)
    for x in (np.ones(3), np.arange(3, dtype=np.int32)):
        for n in (0, 1, 3):
            for c in (0, 1):
                same(kernel(x, n, c), fn(x, n, c))


def bool_extremes(x):
    u = False
    return max(u, True), min(x[0] > 0, x[1] > 0)


def test_extreme_of_bools_is_a_bool():
    """``max(False, True)`` is the bool ``True`` (cf50's choice fuzz: the kernel gave the int 1)."""
    x = np.array([1.0, -1.0])
    same(polyfuse.kernel(bool_extremes, target="python")(x), bool_extremes(x))


def guarded_choices(x):
    ok = x.shape[0] > 2 and x[2] > 0.0
    m = 0
    for i in range(x.shape[0]):
        m = x[i + 1] if i + 1 < x.shape[0] and x[i + 1] > m else m
    return ok, m


def test_choice_operands_are_read_where_python_reads_them():
    """The kind flags of ``ok`` (the Python bool ``False`` or an np.bool_) and ``m`` converted
    the choice's operands unguarded, so ``x[2]`` and ``x[i + 1]`` were bounds-checked at every
    size: an ArgumentError for a 2-element ``x`` (cz52: feature_campaign selections seed 38005)."""
    kernel = polyfuse.kernel(guarded_choices, target="python")
    for x in (np.array([0.5, -1.0]), np.array([-1.0, 2.0, 3.0])):
        same(kernel(x), guarded_choices(x))


def choice_reads_a_python_local(x, k):
    w = 0.0
    for i in range(x.shape[0]):
        w = w + 0.5 if x[i] < 0.5 else x[i] - 1.0
    return w


def choice_reads_a_python_local_kept(x, k):
    w = 0.0
    for i in range(x.shape[0]):
        if k[i] > 3:
            break
        w = w + 0.5 if x[i] < 0.5 else x[i] - 1.0
    return w


@pytest.mark.parametrize("fn", [choice_reads_a_python_local, choice_reads_a_python_local_kept])
def test_choice_of_an_operand_reading_a_flagged_local_has_its_kind(fn):
    """``w = w + 0.5 if c else x[i] - 1.0`` of a Python ``w = 0.0``: the float where every ``c``
    held, np.float64 once ``x[i] - 1.0`` was chosen (the choice's flag was NumPy's: np.float64(1.0)
    for Python's 1.0; cp52's control_fuzz seed 5203 #38), in a loop kept as written too."""
    kernel = polyfuse.kernel(fn, target="python")
    for x in (np.array([0.1, 0.2]), np.array([0.1, 0.7, 0.2]), np.array([0.7])):
        same(kernel(x, np.zeros(x.shape[0], np.int32)), fn(x, np.zeros(x.shape[0], np.int32)))


def test_expected_python_types():
    assert type(total(np.arange(3.0))) is np.float64
    assert type(weak_float(3)) is float and type(count(3)) is int
    assert type(int_sum(np.arange(3, dtype=np.int32))) is np.int32
    assert type(choice_of_a_python_local(np.array([0.7, 1.0]), np.array([0, 0]))) is float
    assert bool_choice(np.array([1.0]), np.array([1])) == (False, False) and type(through_a_second_local(np.zeros(0))) is int
    assert type(kept_loop_choice(np.array([3, -2], dtype=np.int32), 2)) is np.int32


# ---- arrays ------------------------------------------------------------------------------------

def returns_argument(x, y):
    for i in range(x.shape[0]):
        y[i] = 2.0 * x[i]
    return y


@pytest.mark.parametrize("target", TARGETS)
def test_returned_argument_is_the_callers_object(target):
    kernel = polyfuse.kernel(returns_argument, target=target)
    x = np.arange(4.0)
    for _ in range(3):
        y = np.zeros(4)
        assert kernel(x, y) is y
        np.testing.assert_array_equal(y, 2.0 * x)


def k_empty(x):
    y = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = x[i] + 1
    return y


def k_zeros(x):
    y = np.zeros((x.shape[0], 2), dtype=np.int32)
    for i in range(x.shape[0]):
        y[i, 0] = x[i]
    return y


def k_ones(x):
    y = np.ones(x.shape[0], np.float32)
    for i in range(1, x.shape[0]):
        y[i] = y[i] * x[i]
    return y


def k_full(x):
    y = np.full((x.shape[0], 3), 2)
    for i in range(x.shape[0]):
        y[i, 1] += x[i]
    return y


def k_full_float(x, v):
    y = np.full(x.shape[0], v, dtype=np.float32)
    return y


def k_empty_like(x):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = -x[i]
    return y


def k_zeros_like(x):
    y = np.zeros_like(x, dtype=np.float64)
    for i in range(0, x.shape[0], 2):
        y[i] = x[i] / 2
    return y


def k_ones_like(x):
    y = np.ones_like(x)
    for i in range(x.shape[0] - 1):
        y[i + 1] += y[i]
    return y


def k_full_like(x):
    y = np.full_like(x, 3.5)
    for i in range(x.shape[0]):
        y[i] -= x[i]
    return y


def k_positional_dtype(x):
    y = np.zeros(x.shape[0], np.int32)
    z = np.full_like(x, 7, np.int64)
    for i in range(x.shape[0]):
        y[i] = z[i] + 1
    return y, z


def k_dtype_of(x):
    y = np.empty((2, x.shape[0]), dtype=x.dtype)
    for i in range(x.shape[0]):
        y[0, i] = x[i]
        y[1, i] = 2 * x[i]
    return y


def k_like_local(x):
    t = np.zeros((x.shape[0], 2))
    y = np.full_like(t, -1.0)
    for i in range(x.shape[0]):
        y[i, 1] = t[i, 0] + x[i]
    return y


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, args", [
    (k_empty, (np.arange(5.0),)),
    (k_zeros, (np.arange(5, dtype=np.int64),)),
    (k_ones, (np.arange(5.0),)),
    (k_full, (np.arange(5, dtype=np.int32),)),
    (k_full_float, (np.arange(5.0), 1.25)),
    (k_empty_like, (np.arange(5, dtype=np.int32),)),
    (k_zeros_like, (np.arange(5, dtype=np.int32),)),
    (k_ones_like, (np.arange(5, dtype=np.int64),)),
    (k_full_like, (np.arange(5.0, dtype=np.float32),)),
    (k_like_local, (np.arange(5.0),)),
    (k_positional_dtype, (np.arange(5.0),)),
    (k_dtype_of, (np.arange(5, dtype=np.int32),)),
], ids=lambda v: getattr(v, "__name__", "args"))
def test_new_array_of_each_allocator(fn, args, target):
    results, expected = run_both(fn, *args, target=target)
    for result in results:
        same(result, expected)


def ones_as_local(x, out):
    w = np.ones((x.shape[0], 2))
    for i in range(x.shape[0]):
        w[i, 1] = x[i]
    for i in range(x.shape[0]):
        out[i] = w[i, 0] + w[i, 1]


@pytest.mark.parametrize("fuse", ["none", "max"])
def test_ones_as_an_ordinary_local(fuse):
    x, out = np.arange(4.0), np.zeros(4)
    polyfuse.kernel(ones_as_local, fuse=fuse, verify=True)(x, out)
    np.testing.assert_array_equal(out, x + 1)


# ---- tuples ------------------------------------------------------------------------------------

def mean_var(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    m = s / x.shape[0]
    v = 0.0
    for i in range(x.shape[0]):
        v += (x[i] - m) ** 2
    return m, v / x.shape[0]


def scalar_and_array(x, y):
    s = 0
    z = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i]
        z[i] = 2 * x[i]
        s += 1
    return s, (y, z)


@pytest.mark.parametrize("target", TARGETS)
def test_tuples(target):
    for fn, args in ((mean_var, (np.arange(7.0),)), (scalar_and_array, (np.arange(3.0), np.zeros(3)))):
        results, expected = run_both(fn, *args, target=target)
        for result in results:
            same(result, expected)


# ---- escaping results: never contracted, fresh per call ----------------------------------------

def temporary_returned(x, out):
    t = np.empty_like(x)
    for i in range(x.shape[0]):
        t[i] = x[i] * 2.0
    for i in range(x.shape[0]):
        out[i] = t[i] + 1.0
    return t


@pytest.mark.parametrize("target", TARGETS)
def test_returned_temporary_is_not_contracted_under_fuse_max(target):
    # (no disk cache: a variant loaded from it keeps no compile stages to inspect)
    kernel = polyfuse.kernel(temporary_returned, target=target, fuse="max", verify=True, cache=False)
    x = np.arange(6.0)
    out = np.zeros(6)
    t = kernel(x, out)
    np.testing.assert_array_equal(t, 2.0 * x)
    np.testing.assert_array_equal(out, 2.0 * x + 1.0)
    stages = kernel.compile(x, out).stages
    assert all(d.array != "t" for d in stages.records.get("contraction", ()))
    assert stages["final scop"].array("t").shape == stages["lift"].array("t").shape


@pytest.mark.parametrize("target", TARGETS)
def test_every_call_returns_a_fresh_array(target):
    kernel = polyfuse.kernel(k_ones, target=target)
    x = np.arange(4.0)
    results = [kernel(x) for _ in range(4)]  # the later calls take the planned path on cpu
    for k, first_result in enumerate(results):
        for second in results[k + 1:]:
            assert first_result is not second and not np.shares_memory(first_result, second)
    results[0][:] = 99.0
    np.testing.assert_array_equal(results[-1], k_ones(x))


def no_return(x):
    for i in range(x.shape[0]):
        x[i] = 1.0


def test_a_kernel_without_return_still_returns_none():
    kernel = polyfuse.kernel(no_return)
    assert all(kernel(np.zeros(3)) is None for _ in range(3))


# ---- what is refused ---------------------------------------------------------------------------

def early_return(x):
    for i in range(x.shape[0]):
        x[i] = 1.0
        return x
    return x + 1.0  # another array than the early return's (one name returned everywhere is supported)


def return_in_if(n, x):
    if n > 2:
        return x
    x[0] = 1.0


def zero_d(x):
    t = np.zeros(())
    return t


def full_bool(x):
    y = np.full(x.shape[0], True)
    return y


def full_without_value(x):
    y = np.full(x.shape[0])
    return y


def like_of_scalar(x):
    s = 0.0
    y = np.zeros_like(s)
    return y


def element_or_bool_past_a_kept_loop(x):
    t = x[0] > 0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            t = x[i]
            break
    return t


def int_element_plus_int_or_float(n, b):
    s = 0  # a Python int, or a float where the loop runs: b[0] + s is np.int64 or np.float64
    for i in range(n - 2):
        s += 0.5
    return b[0] + s


def int_element_plus_int_or_float_copied(n, b):
    s = 0
    for i in range(n - 2):
        s += 0.5
    t = b[0] + s  # np.int64 where s is the Python int: Python returns t's type
    return t


@pytest.mark.parametrize("fn, args, words", [
    (int_element_plus_int_or_float, (1, np.arange(3)), "NumPy dtype depends on whether local 's'"),
    (int_element_plus_int_or_float_copied, (1, np.arange(3)), "NumPy dtype depends on whether local 's'"),
    (element_or_bool_past_a_kept_loop, (np.zeros(3),), "np.bool here and a np.float64 elsewhere"),
    (full_without_value, (np.zeros(3),), "np.full with other than (shape, value, dtype) arguments"),
    (like_of_scalar, (np.zeros(3),), "is not an array argument or local array"),
    (early_return, (np.zeros(3),), "return of an array from inside a loop or if"),
    (return_in_if, (3, np.zeros(3)), "the body can end without a return"),
    (zero_d, (np.zeros(3),), "0-d array"),
    (full_bool, (np.zeros(3),), "bool"),
])
def test_refused_with_a_located_error(fn, args, words):
    with pytest.raises(UnsupportedError) as info:
        polyfuse.kernel(fn, target="python")(*args)
    assert words in str(info.value)
    assert f"{__file__}:" in str(info.value)


def test_cuda_runs_ones_and_full_locals():
    pytest.importorskip("numba")
    x, out = np.arange(4.0), np.zeros(4)
    polyfuse.kernel(ones_as_local, target="cuda")(x, out)
    np.testing.assert_array_equal(out, x + 1)


def test_cuda_refuses_returns():
    pytest.importorskip("numba")
    with pytest.raises(UnsupportedError, match="target='cuda' kernels cannot return values"):
        polyfuse.kernel(total, target="cuda").compile(np.arange(3.0))



def transposed_argument(A):  # npbench permute_inplace_3d
    A = np.transpose(A, (2, 1, 0))
    return A


def slices_of_an_argument(x, k):
    return x[k:], x[::-1], x[1:-1:2], x[None, 2:]


def view_written_then_returned(A):
    B = A.T
    B[0] += 1.0
    return B, A[1]


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn, make", [
    (transposed_argument, lambda: (np.arange(24.0).reshape(2, 3, 4),)),
    (slices_of_an_argument, lambda: (np.arange(10.0), 3)),
    (slices_of_an_argument, lambda: (np.arange(10.0), 12)),  # clamped: an empty view
    (view_written_then_returned, lambda: (np.arange(12.0).reshape(3, 4),)),
], ids=["transpose", "slices", "empty slice", "written view"])
def test_a_returned_view_of_an_argument_is_numpys_view(fn, make, target):
    expected_args, actual_args = make(), make()
    expected, actual = fn(*expected_args), polyfuse.kernel(fn, target=target)(*actual_args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = actual if isinstance(actual, tuple) else (actual,)
    for e, a in zip(expected, actual):
        np.testing.assert_array_equal(a, e)
        assert a.shape == e.shape and (a.size == 0 or a.strides == e.strides)
        assert a.size == 0 or np.shares_memory(a, actual_args[0])  # the caller's memory, as NumPy returns it
    for a in actual:
        if a.size:
            a.flat[0] = -7.0  # writes through to the argument
            assert -7.0 in actual_args[0]
