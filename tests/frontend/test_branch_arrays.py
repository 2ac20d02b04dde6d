"""A name bound to an array in both branches of an if and read after it
(frontend/arrays.py: merge_branches): products, LAPACK results and shapes that agree only where
the if branch runs, against the undecorated function."""

import numpy as np
import pytest

import polyfuse

TARGETS = ("python", "cpu")


def resolvent(NR, NM, H, pts, Y):
    """npbench's contour_integral in its own words (its complex power left out): the system's
    inverse when it is square, a solve otherwise, negated inside the unit circle."""
    acc = np.zeros((NR, NM))
    for t in range(pts.shape[0]):
        T = pts[t] * np.eye(NR) - H
        if NR == NM:
            X = np.linalg.inv(T)
        else:
            X = np.linalg.solve(T, Y)
        if abs(pts[t]) < 1.0:
            X = -X
        acc += pts[t] * X
    return acc


def product_or_sum(A, B, flag, out):
    for t in range(2):
        if flag > 0:
            W = A @ B
        else:
            W = A + B
        out += W


def _system(rng, nr):
    return rng.random((nr, nr)) - 4.0 * np.eye(nr)


@pytest.mark.parametrize("target", TARGETS)
def test_shapes_agree_where_the_branch_runs(target):
    rng = np.random.default_rng(9)
    k = polyfuse.kernel(resolvent, target=target)
    for nr, nm in ((4, 4), (4, 2), (3, 5)):
        H, pts, Y = _system(rng, nr), np.array([0.5, 1.5, -2.0]), rng.random((nr, nm))
        np.testing.assert_allclose(k(nr, nm, H, pts, Y), resolvent(nr, nm, H, pts, Y), rtol=1e-12)


def test_a_call_where_they_differ_is_refused():
    """NR == NM with Y of another width: Python would run the if branch only; the kernel's one
    array for X has the else branch's extents, so the call is refused, never wrong."""
    rng = np.random.default_rng(10)
    k = polyfuse.kernel(resolvent, target="python")
    with pytest.raises(polyfuse.ArgumentError, match="assume"):
        k(4, 4, _system(rng, 4), np.array([0.5]), rng.random((4, 3)))


@pytest.mark.parametrize("target", TARGETS)
def test_product_in_one_branch(target):
    rng = np.random.default_rng(11)
    A, B = rng.random((4, 4)), rng.random((4, 4))
    kernel = polyfuse.kernel(product_or_sum, target=target)  # one variant serves both flags
    for flag in (1.0, -1.0):
        got, want = np.zeros((4, 4)), np.zeros((4, 4))
        kernel(A, B, flag, got)
        product_or_sum(A, B, flag, want)
        np.testing.assert_allclose(got, want, rtol=1e-13)


def contour_integral(NR, NM, slab_per_bc, Ham, int_pts, Y):
    """npbench's form: the system's powers of z with a real exponent."""
    P0 = np.zeros((NR, NM), dtype=np.complex128)
    for z in int_pts:
        Tz = np.zeros((NR, NR), dtype=np.complex128)
        for n in range(slab_per_bc + 1):
            zz = np.power(z, slab_per_bc / 2 - n)
            Tz += zz * Ham[n]
        if NR == NM:
            X = np.linalg.inv(Tz)
        else:
            X = np.linalg.solve(Tz, Y)
        P0 += X
    return P0


@pytest.mark.parametrize("target", TARGETS)
def test_complex_power_of_a_real_exponent(target):
    """NumPy's complex power multiplies out integral exponents below 100 and calls cpow,
    ``cexp(b * clog(a))``, for the rest (frontend/complex_power.py): square and solved systems."""
    rng = np.random.default_rng(17)
    kernel = polyfuse.kernel(contour_integral, target=target)  # one variant serves both calls
    for nr, nm, slab in ((3, 3, 2), (3, 2, 3)):
        args = (nr, nm, slab, rng.random((slab + 1, nr, nr)) + 0j, np.array([0.5 + 0.5j, 1.5 - 0.2j]),
                rng.random((nr, nm)) + 0j)
        got = kernel(*args)
        np.testing.assert_allclose(got, contour_integral(*args), rtol=1e-12, atol=1e-14)
