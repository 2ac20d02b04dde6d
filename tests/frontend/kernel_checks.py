"""The form tests' differential check (test_fe30_forms, test_fe36_forms): each call of the compiled
kernel against the undecorated function, on copies of the same inputs."""

from __future__ import annotations

import numpy as np

import polyfuse


def check_calls(fn, calls, target: str):
    """Each call's result (value and dtype, each item of a tuple; None where the function returns
    None) and written arguments against ``fn``'s; the kernel, for more calls."""
    k = polyfuse.kernel(fn, target=target, verify=True)
    for args in calls:
        expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        actual_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        expected = fn(*expected_args)
        got = k(*actual_args)
        assert (got is None) == (expected is None)
        pairs = zip(got, expected) if isinstance(expected, tuple) else [] if expected is None else [(got, expected)]
        for g, e in pairs:
            np.testing.assert_allclose(g, e, rtol=1e-12)
            assert np.asarray(g).dtype == np.asarray(e).dtype
        for e, a in zip(expected_args, actual_args):
            np.testing.assert_array_equal(a, e)
    return k
