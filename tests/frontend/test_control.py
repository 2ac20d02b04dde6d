"""Data-dependent if (frontend/control.py): guarded writes keep old values bit for bit; asserts
checked where they run.

PYTEST_DONT_REWRITE: the kernels' own asserts must raise as Python raises them, unrewritten."""

from __future__ import annotations

import numpy as np
import pytest

import polyfuse
from polyfuse.errors import UnsupportedError

TARGETS = ("python", "cpu")


def run_both(fn, *args, target, fuse="smart"):
    expected = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    actual = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    fn(*expected)
    polyfuse.kernel(fn, target=target, fuse=fuse, verify=True)(*actual)
    return expected, actual


def same_bits(a, b):
    return np.array_equal(a.view(np.uint8), b.view(np.uint8))


def keep_positive(x, y):
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            y[i] = x[i]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fuse", ("none", "max"))
def test_guarded_write_keeps_nan_payloads_and_negative_zero(target, fuse):
    x = np.array([1.0, -1.0, 2.0, -3.0, 0.0, 5.0])
    y = np.array([0.0, -0.0, np.nan, np.nan, -0.0, 1.0])
    y.view(np.uint64)[3] |= 0x1234  # a NaN with a payload
    expected, actual = run_both(keep_positive, x, y, target=target, fuse=fuse)
    assert same_bits(expected[1], actual[1])


def first_max(x, out):
    m = x[0]
    k = 0
    for i in range(x.shape[0]):
        v = x[i]
        if v > m:  # the body writes m: the condition is stored before the body runs
            m = v
            k = i
    out[0] = m
    out[1] = k


@pytest.mark.parametrize("target", TARGETS)
def test_argmax_keeps_the_first_of_ties(target):
    x = np.array([1.0, 4.0, 2.0, 4.0, 4.0, 0.0])
    expected, actual = run_both(first_max, x, np.zeros(2), target=target)
    assert actual[1].tolist() == expected[1].tolist() == [4.0, 1.0]


def nested(A, out):
    for i in range(A.shape[0]):
        if A[i, 0] > 0:
            if A[i, 1] > 0:
                out[i] = 1
            elif A[i, 2] > 0:
                out[i] = 2
            else:
                out[i] = 3
        else:
            for j in range(A.shape[1]):  # a loop inside a data-dependent if
                out[i] -= A[i, j]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fuse", ("none", "smart", "max"))
def test_nested_ifs_and_loops_inside_them(target, fuse):
    A = np.random.default_rng(3).standard_normal((40, 4))
    expected, actual = run_both(nested, A, np.zeros(40), target=target, fuse=fuse)
    np.testing.assert_array_equal(expected[1], actual[1])


def condition_overwritten(x, y):
    for i in range(x.shape[0]):
        if x[i] > 0:
            x[i] = -x[i]  # later statements still see the condition evaluated before
            y[i] = 1.0


@pytest.mark.parametrize("target", TARGETS)
def test_condition_is_evaluated_once_before_the_body(target):
    x = np.array([1.0, -2.0, 3.0])
    expected, actual = run_both(condition_overwritten, x, np.zeros(3), target=target)
    np.testing.assert_array_equal(expected[1], actual[1])
    np.testing.assert_array_equal(expected[0], actual[0])


def mixed_condition(n, x, y):
    for i in range(n):
        if i > 2 and x[i] < 0.5 or i == 0:
            y[i] += 1.0
        else:
            y[i] -= x[i]


@pytest.mark.parametrize("target", TARGETS)
def test_affine_and_data_conditions_mixed(target):
    x = np.random.default_rng(4).random(12)
    expected, actual = run_both(mixed_condition, 12, x, np.zeros(12), target=target)
    np.testing.assert_array_equal(expected[2], actual[2])


def set_only_inside(x, y):
    for i in range(x.shape[0]):
        if x[i] > 0:
            t = x[i]
        y[i] = t


def test_local_set_only_inside_a_data_dependent_if_raises_where_python_does():
    """Python's UnboundLocalError where no earlier iteration assigned ``t`` (frontend/unbound_locals.py)."""
    kernel = polyfuse.kernel(set_only_inside, target="python")
    with pytest.raises(UnboundLocalError, match="cannot access local variable 't' where it is not associated"):
        kernel(np.array([-1.0, 2.0]), np.zeros(2))
    x, got, want = np.array([2.0, -1.0, 3.0]), np.zeros(3), np.zeros(3)
    kernel(x, got)
    set_only_inside(x, want)
    np.testing.assert_array_equal(got, want)


def assigned_before(x, y):
    t = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            t = x[i]
        y[i] = t  # the last positive value so far, as in Python


@pytest.mark.parametrize("target", TARGETS)
def test_local_assigned_before_the_if_carries_over(target):
    x = np.array([-1.0, 2.0, -3.0, 4.0, -5.0])
    expected, actual = run_both(assigned_before, x, np.zeros(5), target=target)
    np.testing.assert_array_equal(expected[1], actual[1])


# ---- subscripts computed at run time ---------------------------------------------------------
def gather(x, idx, y):
    for i in range(y.shape[0]):
        y[i] = x[idx[i]]


def scatter(x, idx, y):
    for i in range(idx.shape[0]):
        y[idx[i]] = x[i]


@pytest.mark.parametrize("target", TARGETS)
def test_gather_wraps_negative_indices_once_like_numpy(target):
    x = np.arange(10.0)
    idx = np.array([3, -1, 0, 9, -10, 2])
    expected, actual = run_both(gather, x, idx, np.zeros(6), target=target)
    np.testing.assert_array_equal(expected[2], actual[2])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", (gather, scatter))
@pytest.mark.parametrize("bad", (10, -11))
def test_out_of_range_subscript_raises_index_error(target, fn, bad):
    kernel = polyfuse.kernel(fn, target=target)
    array = "y" if fn is scatter else "x"  # NumPy's message, naming the array
    with pytest.raises(IndexError, match=f"^index {bad} is out of bounds for axis 0 of '{array}' with size 10$"):
        kernel(np.arange(10.0), np.array([1, bad, 2]), np.zeros(10) if fn is scatter else np.zeros(3))
    y = np.zeros(3)
    kernel(np.arange(10.0), np.array([1, 2, 3]), np.zeros(10) if fn is scatter else y)  # usable after


def histogram_then_normalize(b, hist, freq):
    for i in range(b.shape[0]):
        hist[b[i]] += 1
    for k in range(hist.shape[0]):
        freq[k] = hist[k] / b.shape[0]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fuse", ("none", "smart", "max"))
def test_indirect_writes_keep_every_dependence(target, fuse):
    b = np.random.default_rng(5).integers(-6, 6, 40)
    expected, actual = run_both(histogram_then_normalize, b, np.zeros(6, np.int64), np.zeros(6),
                                target=target, fuse=fuse)
    np.testing.assert_array_equal(expected[1], actual[1])
    np.testing.assert_array_equal(expected[2], actual[2])


def guarded_lookup(x, idx, y, m):
    for i in range(idx.shape[0]):
        if idx[i] >= 0 and x[idx[i]] > 0.0:  # x[idx[i]] only where idx[i] >= 0, as in Python
            y[i] = x[idx[i]]
        if idx[i] >= 0:
            if x[idx[i]] > m[0]:  # the body writes m: stored, still only where Python looks
                m[0] = x[idx[i]]


@pytest.mark.parametrize("target", TARGETS)
def test_guarded_run_time_subscripts_are_only_computed_where_python_computes_them(target):
    x = np.array([1.0, -2.0, 3.0, 0.5])
    idx = np.array([-5, 2, 1, -9, 3, 0])
    expected, actual = run_both(guarded_lookup, x, idx, np.zeros(6),
                                np.zeros(1), target=target)
    np.testing.assert_array_equal(expected[2], actual[2])
    np.testing.assert_array_equal(expected[3], actual[3])


def float_subscript(x, y):
    for i in range(y.shape[0]):
        y[i] = x[x[i]]


def gather_by_narrow_ints(table, idx, out):
    for i in range(idx.shape[0]):
        out[i] = table[idx[i]]
    return table[idx] * 2.0  # npbench hist: cdf[binned_gray] with a uint8 image


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int16", "uint32"])
def test_narrow_and_unsigned_integers_index_arrays(target, dtype):
    table = np.arange(256.0) * 0.5
    idx = (np.arange(40) * 7 % (100 if dtype.startswith("int") else 256)).astype(dtype)
    want_out, got_out = np.zeros(40), np.zeros(40)
    want = gather_by_narrow_ints(table, idx, want_out)
    got = polyfuse.kernel(gather_by_narrow_ints, target=target)(table, idx, got_out)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_out, want_out)


def test_float_subscript_is_refused():
    with pytest.raises(UnsupportedError, match="only integers"):
        polyfuse.kernel(float_subscript, target="python")(np.zeros(3), np.zeros(3))


def test_cuda_refuses_run_time_subscripts_with_a_located_message():
    with pytest.raises(UnsupportedError, match="computed at run time .* target='cuda'") as info:
        polyfuse.kernel(gather, target="cuda")(np.ones(3), np.zeros(3, np.int64), np.ones(3))
    assert "y[i] = x[idx[i]]" in str(info.value)


def local_histogram(x, b, out):
    T = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        T[b[i]] += x[i]
    for i in range(x.shape[0]):
        out[i] = T[i] * 2.0 + T[b[i]]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fuse", ("none", "smart", "max"))
def test_local_array_with_run_time_subscripts_is_not_contracted(target, fuse):
    rng = np.random.default_rng(6)
    expected, actual = run_both(local_histogram, rng.random(9), rng.integers(-9, 9, 9), np.zeros(9),
                                target=target, fuse=fuse)
    np.testing.assert_array_equal(expected[2], actual[2])


def test_data_dependent_ifs_on_cuda():
    """numba's simulator unless a GPU run is asked for (tests/conftest.py)."""
    x = np.array([1.0, -1.0, 2.0, -3.0, 0.0, 5.0])
    expected, actual = run_both(keep_positive, x, np.full(6, np.nan), target="cuda")
    np.testing.assert_array_equal(expected[1], actual[1])
    A = np.random.default_rng(3).standard_normal((12, 4))
    expected, actual = run_both(nested, A, np.zeros(12), target="cuda")
    np.testing.assert_array_equal(expected[1], actual[1])


def periodic_dist(x, y, L, periodic_x, periodic_y):
    """numpy-benchmarks' periodic_dist, one final return: bool flags as conditions."""
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    if periodic_x:
        dx[dx > L / 2] -= L
        dx[dx < -L / 2] += L
    if periodic_y:
        dy[dy > L / 2] -= L
        dy[dy < -L / 2] += L
    return np.sqrt(dx ** 2 + dy ** 2)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("flags", [(True, True), (True, False), (np.False_, np.True_)])
def test_bool_arguments_as_conditions(target, flags):
    rng = np.random.default_rng(3)
    x, y = rng.uniform(0, 10, 9), rng.uniform(0, 10, 9)
    got = polyfuse.kernel(periodic_dist, target=target, verify=True)(x, y, 10.0, *flags)
    np.testing.assert_allclose(got, periodic_dist(x, y, 10.0, *flags), rtol=1e-12)


# ---- asserts checked where they run (control.lift_assert, ir.Check) ---------------------------
def checked_steps(x, y, limit):
    for i in range(x.shape[0]):
        y[i] = x[i] * 2.0
        if x[i] > 0.5:  # data-dependent: the assert is checked only where the branch runs
            assert y[i] < limit, "above the limit"
        if i > 0:  # affine
            assert x[i] != x[i - 1]
    assert x[0] > -10.0, "first value"  # of array values at the top level: where it runs too


def checked_in_a_kept_loop(x, out):
    for i in range(x.shape[0]):
        r = x[i]
        while abs(r * r - x[i]) > 1e-9 * x[i]:  # kept as written (frontend.opaque)
            assert r > 0.0, "lost the root"
            r = 0.5 * (r + x[i] / r)
        out[i] = r


def checked_reductions(x, y):
    for _ in range(3):
        y[:] = y + x
        assert y.max() < 5.0, "overflowed"  # an array value in the test: lowered first
        assert y.sum() >= 0


def _outcome(fn, args):
    try:
        fn(*args)
    except AssertionError as e:
        return ("AssertionError", e.args)
    return None


ASSERT_CASES = [
    (checked_steps, lambda: (np.array([0.1, 0.7, 0.2, 0.9]), np.zeros(4), 3.0)),  # passes
    (checked_steps, lambda: (np.array([0.1, 0.7, 2.0, 0.9]), np.zeros(4), 3.0)),  # the message
    (checked_steps, lambda: (np.array([0.1, 0.1, 0.2]), np.zeros(3), 3.0)),  # no message
    (checked_steps, lambda: (np.array([-20.0, 0.1]), np.zeros(2), 3.0)),  # after the loop
    (checked_steps, lambda: (np.array([0.9]), np.zeros(1), 1.0)),
    (checked_in_a_kept_loop, lambda: (np.array([2.0, 9.0]), np.zeros(2))),
    (checked_reductions, lambda: (np.ones(4), np.zeros(4))),
    (checked_reductions, lambda: (np.full(4, 2.0), np.zeros(4))),
    (checked_reductions, lambda: (-np.ones(4), np.zeros(4))),
    (checked_in_a_kept_loop, lambda: (np.array([2.0, -9.0]), np.zeros(2))),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", range(len(ASSERT_CASES)))
def test_asserts_in_loops_and_branches_raise_where_python_does(target, case):
    fn, make = ASSERT_CASES[case]
    want = _outcome(fn, make())
    args = make()
    got = _outcome(polyfuse.kernel(fn, target=target, verify=True), args)
    assert got == want
    if want is None:  # the results too
        expected = make()
        fn(*expected)
        for e, a in zip(expected, args):
            np.testing.assert_array_equal(a, e)


def test_an_assert_keeps_its_loop_parallel():
    k = polyfuse.kernel(checked_steps, target="cpu")
    x = np.linspace(0.0, 0.4, 50)
    k(x, np.zeros(50), 3.0)
    assert "parallel=True" in str(k.explain(x, np.zeros(50), 3.0))


def assert_with_a_computed_message(x):
    for i in range(x.shape[0]):
        assert x[i] > 0, f"x[{i}] is not positive"


def test_an_assert_message_other_than_a_string_literal_is_refused():
    with pytest.raises(UnsupportedError, match="message other than a string literal"):
        polyfuse.kernel(assert_with_a_computed_message)(np.ones(3))


def test_an_assert_message_survives_the_disk_cache():
    """A second kernel object of the same function loads the cached LLVM artifact: the assert's
    message comes from the artifact, not from the compile."""
    x = np.array([0.1, 0.7, 2.0, 0.9])
    for _ in range(2):
        with pytest.raises(AssertionError) as e:
            polyfuse.kernel(checked_steps, target="cpu")(x, np.zeros(4), 3.0)
        assert e.value.args == ("above the limit",)


def binned_counts(idx, counts):
    for i in range(idx.shape[0]):
        if 0 <= idx[i] < counts.shape[0]:
            counts[idx[i]] += 1
    return counts


def below_only(idx, counts):
    for i in range(idx.shape[0]):
        if idx[i] < counts.shape[0]:  # -1 wraps to the last element, as in Python
            counts[idx[i]] += 1
    return counts


@pytest.mark.parametrize("target", ["python", "cpu"])
@pytest.mark.parametrize("fn", [binned_counts, below_only])
def test_a_run_time_store_subscript_is_used_only_where_the_if_holds(fn, target):
    """``hist[b] += 1`` under a data-dependent ``if`` that keeps ``b`` in range: the subscript,
    out of range where the test fails, is neither checked nor used there (it raised IndexError)."""
    idx = np.array([0, 5, 2, -1, 4, 7, 2])
    got = polyfuse.kernel(fn, target=target)(idx, np.zeros(5, np.int64))
    np.testing.assert_array_equal(got, fn(idx, np.zeros(5, np.int64)))
