"""np38's forms: np.bitwise_and/or/xor.reduce (NumPy's identities on empty axes, the dtype kept),
np.array_equal (False where the shapes differ, at compile time or per call; equal_nan=) and
np.geomspace of constant start and stop, tests that are module constants (``x if DEBUG else
y``: the untaken branch's arrays of other extents); each kernel (python backend, program order: the
subject is the front end) against the undecorated function, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_checks import check_calls

import polyfuse

DEBUG = False


def bit_reductions(a, m):
    return (np.bitwise_xor.reduce(a), np.bitwise_or.reduce(a, axis=0), np.bitwise_and.reduce(a, axis=1),
            np.bitwise_and.reduce(a[:0]), np.bitwise_xor.reduce(m), np.bitwise_and.reduce(m, axis=0))


def test_bitwise_reductions_keep_the_dtype_and_numpys_identities():
    rng = np.random.default_rng(0)
    masks = rng.random((3, 4)) > 0.3
    check_calls(bit_reductions, [(rng.integers(0, 256, (3, 4)).astype(np.uint8), masks),
                                 (rng.integers(-99, 99, (2, 5)), masks[:2])], "python")


def float_xor(x):
    return np.bitwise_xor.reduce(x)


def test_bitwise_reduction_of_floats_is_refused():
    with pytest.raises(polyfuse.UnsupportedError, match=r"np.bitwise_xor.reduce\(\) of other than an integer"):
        polyfuse.kernel(float_xor, target="python")(np.ones(3))


def equal_arrays(a, b, C):
    return (np.array_equal(a, b), np.array_equal(a, b[:2]), np.array_equal(a, b, equal_nan=True),
            np.array_equal(C, C.T), np.array_equal(a, C))


def test_array_equal_is_false_where_shapes_differ():
    x = np.array([1.0, np.nan, 3.0])
    check_calls(equal_arrays, [(x, x.copy(), np.ones((2, 2))), (x[:2].copy(), x[:2] + 0.0, np.ones((2, 3))),
                               (x, np.ones(4), np.eye(3)), (np.zeros(0), np.zeros(0), np.ones((1, 1)))], "python")


def spaces(n):
    return np.geomspace(1.0, 1000.0, n), np.geomspace(-2, -1e5, num=n), np.geomspace(3.0, 0.5, n, endpoint=False)


def zero_space(n):
    return np.geomspace(0.0, 1.0, n)


def test_geomspace_of_constant_ends():
    k = polyfuse.kernel(spaces, target="python")
    for n in (0, 1, 2, 7):
        for j, (got, expected) in enumerate(zip(k(n), spaces(n))):
            np.testing.assert_allclose(got, expected, rtol=1e-15)  # the middle elements' power: 1 ulp
            assert got[:1].tolist() == expected[:1].tolist()  # start exactly
            if j < 2:
                assert got[-1:].tolist() == expected[-1:].tolist()  # stop exactly (endpoint=True)
    with pytest.raises(polyfuse.UnsupportedError, match="a ValueError in NumPy"):
        polyfuse.kernel(zero_space, target="python")(3)


def debug_choices(a, b):
    n = a.shape[0]
    y = a if DEBUG else b[:n]
    if not DEBUG:
        z = b[:2]
    else:
        z = a
    return y * 2.0, (a if False else b[1:]) + z.sum()


def test_constant_tests_take_their_branch_unread_the_other():
    rng = np.random.default_rng(0)
    check_calls(debug_choices, [(rng.random(3), rng.random(5)), (rng.random(1), rng.random(2))], "python")


def extremes(x, A):
    return np.max(x), A.min(axis=1), np.argmax(A[0])


def test_max_of_no_elements_is_numpys_value_error_naming_it():
    k = check_calls(extremes, [(np.ones(2), np.ones((2, 3)))], "python")
    for args, what in (((np.ones(0), np.ones((2, 3))), "np.max() of x.shape[0] = 0"),
                       ((np.ones(2), np.ones((2, 0))), "np.min() of A.shape[1] = 0")):
        with pytest.raises(ValueError, match="which has no identity") as err:
            k(*args)
        assert what in str(err.value) and isinstance(err.value, polyfuse.ArgumentError)
