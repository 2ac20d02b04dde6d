"""Loops kept as written (frontend/opaque.py): ``while``, ``break``/``continue`` and ``range`` bounds
read from arrays.  Each is one statement of the model; these tests check what explain() says about
it, that its accesses keep reordering and parallel marks sound, and that a bad run-time subscript
inside it raises IndexError on every target."""

from __future__ import annotations

import numpy as np
import pytest
from numba import prange

import polyfuse
from polyfuse.errors import UnsupportedError

TARGETS = ("python", "cpu")
FUSES = ("none", "smart", "max")


def run_both(fn, *args, target, fuse="smart"):
    expected = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    fn(*expected)
    actual = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    kernel = polyfuse.kernel(fn, target=target, fuse=fuse, verify=True)
    kernel(*actual)
    for e, a in zip(expected, actual):
        if isinstance(e, np.ndarray):
            np.testing.assert_allclose(a, e, rtol=1e-12)
    return kernel


def csr_matvec(indptr, indices, data, x, y):
    for i in range(y.shape[0]):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]


def csr_args():
    indptr = np.array([0, 2, 2, 5], dtype=np.int64)
    return indptr, np.array([0, 2, 1, 0, 2], dtype=np.int64), np.arange(1.0, 6.0), np.ones(3), np.zeros(3)


@pytest.mark.parametrize("target", TARGETS)
def test_loop_bounds_read_from_arrays_are_kept_as_written(target):
    kernel = run_both(csr_matvec, *csr_args(), target=target)
    (region,) = kernel.explain(*csr_args())["kept as written"]
    assert region["why"] == "loop bound reads array indptr"
    assert region["line"] == csr_matvec.__code__.co_firstlineno + 2
    assert set(region["may read"]) == {"indptr", "indices", "data", "x", "y"}
    assert region["may write"] == ["y"]


def test_explain_renders_kept_loops_as_text():
    """str(explain()) renders every section; a kept loop has no domain or accesses of its own."""
    text = str(polyfuse.kernel(csr_matvec).explain(*csr_args()))
    assert "kept as written: loop bound reads array indptr" in text
    assert "may write y" in text


def matmul(A, B):
    return A @ B


def test_explain_renders_a_blas_product_as_text():
    A = np.ones((64, 64))
    text = str(polyfuse.kernel(matmul).explain(A, A))
    assert "kept as written: " in text and "A @ B" in text


def bisection(a, out, tol):
    for i in range(a.shape[0]):
        lo = 0.0
        hi = a[i] + 1.0
        while hi - lo > tol:
            mid = 0.5 * (lo + hi)
            if mid * mid > a[i]:
                hi = mid
            else:
                lo = mid
        out[i] = 0.5 * (lo + hi)


def first_index(A, t, out):
    for i in range(A.shape[0]):
        out[i] = -1
        for j in range(A.shape[1]):
            if A[i, j] == t:
                out[i] = j
                break


def skip_negative(x, out):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            continue
        s += x[i]
        out[i] = s


@pytest.mark.parametrize("fn, args, why", [
    (bisection, (np.array([0.5, 2.0, 3.0]), np.zeros(3), 1e-9), "while loop"),
    (first_index, (np.array([[1, 2, 3], [3, 3, 1]]), 3, np.zeros(2, np.int64)), "break"),
    (skip_negative, (np.array([1.0, -2.0, 3.0]), np.zeros(3)), "continue"),
])
def test_explain_names_why_each_loop_is_kept(fn, args, why):
    kernel = run_both(fn, *args, target="python")
    (region,) = kernel.explain(*args)["kept as written"]
    assert region["why"] == why
    assert "kept as written: " + why in kernel.explain(*args)["loop code"]


def test_scalars_written_before_read_are_private_to_the_region():
    args = (np.array([0.5, 2.0, 3.0]), np.zeros(3), 1e-9)
    kernel = run_both(bisection, *args, target="cpu")
    (region,) = kernel.explain(*args)["kept as written"]
    assert region["private"] == ["mid"]  # lo and hi are read after the loop
    (loop,) = kernel.explain(*args)["parallel loops"]
    assert loop["parallel"] and {"lo", "hi", "mid"} <= set(loop["private"])


def carried(x, out):
    for i in range(1, x.shape[0]):
        k = 0
        while k < 2:
            out[i] = out[i - 1] + x[i]
            k += 1


def scatter_count(indptr, indices, counts):
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            counts[indices[k]] += 1


@pytest.mark.parametrize("fuse", FUSES)
def test_loops_a_region_carries_a_dependence_through_stay_sequential(fuse):
    x = np.arange(6.0)
    kernel = run_both(carried, x, np.zeros(6), target="cpu", fuse=fuse)
    assert not any(loop["parallel"] for loop in kernel.explain(x, np.zeros(6))["parallel loops"])
    indptr, indices = np.array([0, 2, 3, 5]), np.array([1, 1, 0, 2, 1])
    kernel = run_both(scatter_count, indptr, indices, np.zeros(3, np.int64), target="cpu", fuse=fuse)
    assert not any(loop["parallel"] for loop in kernel.explain(indptr, indices, np.zeros(3, np.int64))
                   ["parallel loops"])


def maybe_overwrite(x, y, z):
    for i in range(x.shape[0]):
        y[i] = 1.0
    for i in range(x.shape[0]):
        j = 0
        while j < x[i]:
            y[i] = 2.0 + j
            j += 1
    for i in range(x.shape[0]):
        z[i] = y[i] * 3.0


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fuse", FUSES)
def test_a_may_write_does_not_hide_the_earlier_write(target, fuse):
    x = np.array([0.0, 2.0, 0.0, 1.0, 3.0])  # the while writes y[i] only where x[i] > 0
    run_both(maybe_overwrite, x, np.zeros(5), np.zeros(5), target=target, fuse=fuse)


def search_then_use(n, a):
    for i in range(n):
        q = -1
        for j in range(n + 4):
            if a[j] < -3.0:
                q = j
                break
        a[q % (n + 4)] = 5.0
        m = a[0]
        for j in range(1, n + 4):
            m = min(m, a[j])
        a[i] = 0.0


def search_after_loop(x, out):
    q = -1
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            if x[j] > x[i] + 1.0:
                q = j
                break
        out[i] = q
    out[0] = q


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fuse", FUSES)
def test_a_scalar_the_region_may_write_and_a_later_statement_reads_is_not_private(target, fuse):
    """``q = -1`` then a search that sets ``q`` only where it finds something, then a read of ``q``:
    _private_scalars saw the read follow ``q = -1`` and took ``q`` as private to the search, so
    the read's flow from ``q = -1`` was lost and fuse="max" hoisted every ``q = -1`` to the start
    (a search that found nothing then read the last one's ``q``). Found by cpu_campaign --style
    extra (seed 707)."""
    x = np.array([0.5, -2.0, 0.3, 0.1, -1.5, 0.2, 0.7])
    a = np.random.default_rng(3).standard_normal(21) * 2.0  # found in some iterations, not in others
    run_both(search_then_use, 17, a, target=target, fuse=fuse)
    run_both(search_after_loop, x, np.zeros(7, np.int64), target=target, fuse=fuse)


def escape(c, counts, limit):
    for i in prange(c.shape[0]):
        z = 0.0
        n = 0
        while abs(z) <= 2.0 and n < limit:
            z = z * z + c[i]
            n += 1
        counts[i] = n


def test_a_prange_loop_around_a_while_loop_is_checked_and_parallel():
    args = (np.linspace(-2.5, 0.5, 7), np.zeros(7, np.int64), 20)
    kernel = run_both(escape, *args, target="cpu")
    explained = kernel.explain(*args)
    (claim,) = explained["prange claims"]
    assert claim["parallel"], claim
    assert explained["parallel loops"][0]["parallel"]


def search(a, t, out):
    for i in range(out.shape[0]):
        k = 0
        while a[k] != t:
            k += 1
        out[i] = k


def bad_scatter(indptr, indices, y):
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            y[indices[k]] = 1.0


@pytest.mark.parametrize("target", TARGETS)
def test_run_time_subscripts_in_a_region_raise_index_error(target):
    with pytest.raises(IndexError):  # the while runs past the end of a
        polyfuse.kernel(search, target=target)(np.array([1.0, 2.0]), 5.0, np.zeros(2, np.int64))
    y = np.zeros(3)
    with pytest.raises(IndexError, match="out of bounds"):
        polyfuse.kernel(bad_scatter, target=target)(np.array([0, 1, 3]), np.array([0, 7, 1]), y)
    assert y[2] == 0.0  # nothing written out of bounds, nothing after the bad subscript


def test_cuda_refuses_a_region_naming_the_construct_and_line():
    with pytest.raises(UnsupportedError, match="while loop .*target='cuda'") as info:
        polyfuse.kernel(bisection, target="cuda")(np.ones(3), np.zeros(3), 1e-6)
    assert "while hi - lo > tol:" in str(info.value)
    assert f"line {bisection.__code__.co_firstlineno + 4}" in str(info.value)


def two_loops_one_temporary(x, out):
    for i in range(x.shape[0]):
        n = 0
        while n < 3:
            t = x[i] * n
            out[i] += t
            n += 1
        m = 0
        while m < 2:
            t = x[i] + m
            out[i] -= t
            m += 1


def test_a_temporary_each_loop_assigns_before_reading_is_private_to_each():
    args = (np.arange(4.0), np.zeros(4))
    kernel = run_both(two_loops_one_temporary, *args, target="cpu")
    regions = kernel.explain(*args)["kept as written"]
    assert [r["private"] for r in regions] == [["t"], ["t"]]


def guarded_neighbour(x, y):
    for i in range(x.shape[0]):
        k = 0
        while k < 2:
            if i > 0:
                y[i] += x[i - 1]
            else:
                y[i] -= 1.0
            k += 1


@pytest.mark.parametrize("target", TARGETS)
def test_accesses_under_an_affine_if_inside_a_region_are_proven_only_where_it_holds(target):
    run_both(guarded_neighbour, np.arange(1.0, 6.0), np.zeros(5), target=target)


def utf8_steps(buf, out):
    i = 0
    while i < buf.shape[0]:
        c = buf[i]
        if c < 0x80:
            step = 1
        elif c < 0xE0:
            step = 2
        else:
            i += 1
            continue
        out[i] = step
        i += step


def sign_steps(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0:
            step = 1.0
        elif x[i] < 0:
            step = 2.0
        else:
            continue
        out[i] = step


@pytest.mark.parametrize("fn, args", [(utf8_steps, (np.array([65, 0xC3, 0xA9, 0xFF, 66], dtype=np.uint8), np.zeros(5))),
                                      (sign_steps, (np.array([1.0, 0.0, -2.0]), np.zeros(3)))])
def test_a_branch_that_jumps_away_leaves_the_rest_to_the_others(fn, args):
    """``step`` is assigned in every branch of an if/elif/else but the one that ends in
    ``continue``: the statements after the ``if`` run only after the others, so it is written
    before any read, private to the region (refused before fe53 as 'may be read before it is
    assigned', at the loop's line)."""
    kernel = run_both(fn, *args, target="python")
    (region,) = kernel.explain(*args)["kept as written"]
    assert "step" in region["private"]
