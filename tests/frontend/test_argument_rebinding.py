"""An argument's alias bound again in a loop (frontend/arrays.py: copies, assumed_equal): ODE
integrators and iterative solvers as written (``y = y0`` then ``y = y + ...`` each step),
against the undecorated function."""

import numpy as np
import pytest

import polyfuse

TARGETS = ("python", "cpu")


def rk4(y0, t0, dt, n):
    y = y0
    t = t0
    for _ in range(n):
        k1 = -y
        k2 = -(y + 0.5 * dt * k1)
        k3 = -(y + 0.5 * dt * k2)
        k4 = -(y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
    return y, t


def jacobi(A, b, x0, iters):
    x = x0
    D = np.diag(A)
    R = A - np.diag(D)
    for _ in range(iters):
        x = (b - R @ x) / D
    return x


def halved_then_written(y0, n):
    y = y0
    for _ in range(n):
        y = y * 0.5
    y0[0] = 7.0  # a write through the argument: y's first array must stay y0's
    return y


@pytest.mark.parametrize("target", TARGETS)
def test_integrators(target):
    rng = np.random.default_rng(15)
    y0 = rng.random(5)
    before = y0.copy()
    k = polyfuse.kernel(rk4, target=target)
    for n in (0, 1, 7):
        got, want = k(y0, 0.0, 0.1, n), rk4(y0, 0.0, 0.1, n)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
        assert got[1] == want[1]
    np.testing.assert_array_equal(y0, before)  # the argument unchanged
    A, b = rng.random((5, 5)) + 5 * np.eye(5), rng.random(5)
    np.testing.assert_allclose(polyfuse.kernel(jacobi, target=target)(A, b, np.zeros(5), 15),
                               jacobi(A, b, np.zeros(5), 15), rtol=1e-12)


def test_jacobi_with_a_broadcast_right_hand_side():
    rng = np.random.default_rng(16)
    A, b = rng.random((5, 5)) + 5 * np.eye(5), rng.random(1)
    np.testing.assert_allclose(polyfuse.kernel(jacobi, target="python")(A, b, np.zeros(5), 3),
                               jacobi(A, b, np.zeros(5), 3), rtol=1e-13)


def test_an_argument_written_in_place_keeps_its_alias_a_view():
    with pytest.raises(polyfuse.UnsupportedError, match=r"test_argument_rebinding.py:\d+"):
        polyfuse.kernel(halved_then_written, target="python")(np.ones(3), 2)


def gcd_args(a, b):
    while b:
        a, b = b, a % b
    return a


def ordered_count(x, lo, hi):
    if lo > hi:
        lo, hi = hi, lo
    c = 0
    for v in x:
        if lo <= v <= hi:
            c += 1
    return c, lo, hi


def test_scalar_arguments_bound_again_by_a_tuple_assignment():
    # a, b = b, a % b binds the arguments as a, b = ... does (was: "assignment to argument 'a'")
    k = polyfuse.kernel(gcd_args, target="cpu")
    for a, b in ((12, 18), (7, 0), (0, 5)):
        assert k(a, b) == gcd_args(a, b)
    k = polyfuse.kernel(ordered_count, target="cpu")
    for args in ((np.arange(5.0), 3.0, 1.0), (np.arange(5.0), 1, 3.0)):
        got, want = k(*args), ordered_count(*args)
        assert got == want and list(map(type, got)) == list(map(type, want))
