"""Locals Python may read unbound (frontend/unbound_locals.py): assigned under a data-dependent
``if`` in a loop, read after the loop or later in it.  Each kernel against its undecorated
function on inputs where Python returns and where it raises UnboundLocalError (the same message).
Five kernels on two targets: ten compiles."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TARGETS, assert_same_result

import polyfuse


def last_above(b, c):  # a search: the last c[i] whose b[i] passed, read after the loop
    for i in range(b.shape[0]):
        if b[i] > -0.2:
            q = c[i]
    return q if q > 1.5 else -q  # (the test reads q surely: it raises there)


def carried(b, c, out):  # read later in the loop (control_fuzz p5301_1's shape)
    for i in range(b.shape[0]):
        if b[i] > 0.5:
            w = c[i]
        out[i] += w
    return out


def index_local(b, out):  # an int local as a subscript, bound again by +=
    for i in range(b.shape[0]):
        if b[i] > 0.5:
            k = i
        if b[i] < 0.1:
            k += 1
        out[k % out.shape[0]] += 1.0
    return out


def two_types(b):  # one version per type (frontend/local_versions.py), each unbound alike
    for i in range(b.shape[0]):
        if b[i] > 0.7:
            v = 1
        elif b[i] > 0.4:
            v = 0.5
    return v


def searched(b, c):  # a while loop with a break, and a return of two values
    i = 0
    while i < b.shape[0]:
        if b[i] > 0.9:
            break
        if b[i] > 0.5:
            best = c[i]
        i += 1
    return best, i


INPUTS = [np.array([0.3, 0.95, -0.5, 0.6]), np.array([-1.0, 0.05, 0.2]), np.array([0.8, 0.0, 0.45, 0.95]),
          np.array([0.6, 0.75, 0.05]), np.zeros(0), np.array([0.99])]


def _args(fn, b):
    extra = {"c": 2.0 * b + 1.0, "out": np.zeros(b.shape[0])}
    return [b] + [extra[name] for name in fn.__code__.co_varnames[1:fn.__code__.co_argcount]]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", [last_above, carried, index_local, two_types, searched])
def test_unbound_local_matches_python(fn, target):
    kernel = polyfuse.kernel(fn, target=target)
    raised = 0
    for b in INPUTS:
        expected_args, args = _args(fn, b.copy()), _args(fn, b.copy())
        try:
            expected = kernel.py_func(*expected_args)
        except UnboundLocalError as error:
            raised += 1
            with pytest.raises(UnboundLocalError) as info:
                kernel(*args)
            assert str(info.value) == str(error)
            continue
        assert_same_result(expected, kernel(*args))
        for want, got in zip(expected_args, args):
            np.testing.assert_array_equal(got, want)
    assert 0 < raised < len(INPUTS)  # (the inputs reach both outcomes)


def _last_over(x, t):  # a helper whose own ``best`` has a read Python may skip: refused
    for i in range(x.shape[0]):
        if x[i] > t:
            best = x[i]
    return best if t > -100.0 else 0.0


def shared_name(x, out):  # the kernel's ``best`` is checked; the inlined helper's is not its
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            best = x[i]
        out[i] = best
    return _last_over(x, 0.9)


def test_a_helpers_local_of_the_same_name_stays_refused():
    """Only the kernel's own ``best`` and the names made of it start at zero: the helper's
    unchecked ``best`` never reads a zero where Python raises."""
    with pytest.raises(polyfuse.UnsupportedError, match="local 'best' may be read before it is assigned"):
        polyfuse.kernel(shared_name, target="python")(np.array([0.6, 0.95]), np.zeros(2))
