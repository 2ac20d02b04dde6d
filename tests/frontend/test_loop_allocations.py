"""Arrays allocated inside loops and branches (frontend/arrays.py ``bind_allocation``), sizes of
temporaries used as loop bounds (``note_size``), and top-level ``assert`` statements
(``lower_assert``, checked per call by analysis/bounds.py).  Every case is compared with the
undecorated function on the same inputs, arguments included.

PYTEST_DONT_REWRITE: the kernels' own asserts must raise as Python raises them, unrewritten."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyfuse
from polyfuse.errors import UnsupportedError

TARGETS = ("python", "cpu")
np_complex = np.complex128  # a global naming a dtype, as npbench writes it


def zeros_each_step(u, steps):
    for n in range(steps):
        b = np.zeros_like(u)  # a fresh array each step: one buffer, zeroed each step
        b[1:-1] = u[:-2] + u[2:]
        u[:] = 0.5 * b
    return u


def empty_each_step(u, steps):
    for n in range(steps):
        b = np.empty_like(u)
        b[0] = u[0]
        b[-1] = u[-1]
        b[1:-1] = u[:-2] + u[2:]
        u[:] = b * 0.5
    return u


def full_with_global_dtype(x, steps):
    acc = np.zeros(x.shape, dtype=np_complex)
    for k in range(steps):
        z = np.full(x.shape, 1j, dtype=np_complex)
        z[1:] += x[:-1] * k
        acc += z
    return acc


def allocated_in_a_branch(x, flag):
    out = np.zeros_like(x)
    if flag > 0:
        w = np.ones(x.shape[0])
        w[::2] = 3.0
        out[:] = w * x
    return out


def helper_pressure(nit, p, b):  # npbench cavity_flow's pressure_poisson, shrunk
    pn = np.empty_like(p)
    pn = p.copy()
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = 0.25 * (pn[1:-1, 2:] + pn[1:-1, :-2] + pn[2:, 1:-1] + pn[:-2, 1:-1]) - b[1:-1, 1:-1]
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]


def helper_inlined_in_a_loop(p, b, nt, nit):
    for n in range(nt):
        helper_pressure(nit, p, b)  # its np.empty_like lands inside this loop
        b[1:-1, 1:-1] = 0.9 * b[1:-1, 1:-1]
    return p


def build_b(u):  # npbench channel_flow's build_up_b: returns a new array each call
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = u[1:-1, 2:] - u[1:-1, :-2]
    return b


def while_loop_with_copies(u, tol):
    diff = 1.0
    steps = 0
    while diff > tol:
        un = u.copy()
        b = build_b(u)
        u[1:-1, 1:-1] = 0.5 * (un[2:, 1:-1] + un[:-2, 1:-1]) + 0.01 * b[1:-1, 1:-1]
        diff = np.abs(u - un).max()
        steps += 1
    return steps


def empty_row_each_iteration(n, A):  # each iteration writes the element it reads
    for i in range(n):
        T = np.empty((n,))
        T[i] = 1.0 + i
        A[i] = T[i]


def ones_each_iteration(x):
    for i in range(x.shape[0]):
        t = np.ones(3)
        x[i] = t[0] + t[2] * i


def shrinking_each_step(x, steps):  # fe53: the extent 2 * i + 1 is largest at the loop's start
    s = 0.0
    for i in range(steps - 1, -1, -1):
        nv = np.empty(2 * i + 1)
        for k in range(2 * i + 1):
            nv[k] = x[k] * 2.0 + i
        s += nv[2 * i] * 0.5 + nv[0]
    return s


def _inputs(rng):
    return {
        shrinking_each_step: (rng.random(11), 5),
        empty_row_each_iteration: (5, rng.random(5)),
        ones_each_iteration: (rng.random(4),),
        zeros_each_step: (rng.random(9), 3),
        empty_each_step: (rng.random(9), 3),
        full_with_global_dtype: (rng.random(6), 3),
        allocated_in_a_branch: (rng.random(5), 1),
        helper_inlined_in_a_loop: (rng.random((6, 7)), rng.random((6, 7)), 2, 3),
        while_loop_with_copies: (rng.random((6, 5)), 1e-3),
    }


CASES = list(_inputs(np.random.default_rng(0)))


def _compare(fn, args, target):
    expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = fn(*expected_args)
    actual = polyfuse.kernel(fn, target=target)(*actual_args)
    if expected is None:
        assert actual is None
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)
        assert np.asarray(actual).dtype == np.asarray(expected).dtype
    for e, a in zip(expected_args, actual_args):
        if isinstance(e, np.ndarray):
            np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_allocations_in_loops_match_python(fn, target):
    _compare(fn, _inputs(np.random.default_rng(1))[fn], target)


def test_branch_not_taken_leaves_the_output_as_python_does():
    _compare(allocated_in_a_branch, (np.arange(4.0), 0), "cpu")


def viewed_across_iterations(x, steps):
    keep = np.zeros(x.shape[0])
    for k in range(steps):
        z = np.zeros(x.shape[0])
        z[:] = x * k
        keep = z  # each step's array must stay distinct: keep is bound to it
    return keep


def test_an_allocation_bound_to_another_name_in_the_loop_is_refused_or_right():
    x = np.arange(5.0)
    try:
        actual = polyfuse.kernel(viewed_across_iterations)(x, 3)
    except UnsupportedError as e:
        assert "keep" in str(e) or "view" in str(e)
    else:
        np.testing.assert_array_equal(actual, viewed_across_iterations(x, 3))


def trinomial_rebound(x, steps):  # batch_fe52's trinomial_euro_call, shrunk
    v = np.empty(2 * steps + 1)
    for k in range(2 * steps + 1):
        v[k] = x[k]
    for i in range(steps - 1, -1, -1):
        nv = np.empty(2 * i + 1)
        for k in range(2 * i + 1):
            nv[k] = 0.25 * v[k] + 0.5 * v[k + 1] + 0.25 * v[k + 2]
        v = nv
    return v[0]


def test_a_local_array_rebound_to_arrays_of_changing_extents_is_refused_saying_why():
    """``v = nv`` of an ``nv = np.empty(2 * i + 1)`` in the loop: each local array is allocated
    once, at one size, so ``v`` cannot stand for the arrays of every iteration; refused at the
    rebinding, naming both extents and the two swapped arrays that express it."""
    with pytest.raises(UnsupportedError, match=r":\d+:\d+: rebinding local array 'v' .*extent \(2 \* i \+ 1\), "
                       r"which changes with each iteration, where 'v' has extent \(2 \* steps \+ 1\).*"
                       r"swap the names"):
        polyfuse.kernel(trinomial_rebound, target="python")(np.ones(11), 5)


# ---- sizes of temporaries as loop bounds (npbench lenet: conv2d of a pooled temporary) ----------
def conv2d(image, weights):
    K = weights.shape[0]
    H_out = image.shape[1] - K + 1
    W_out = image.shape[2] - K + 1
    out = np.empty((image.shape[0], H_out, W_out, weights.shape[3]), dtype=image.dtype)
    for i in range(H_out):
        for j in range(W_out):
            out[:, i, j, :] = np.sum(image[:, i:i + K, j:j + K, :, np.newaxis] * weights[np.newaxis, :, :, :],
                                     axis=(1, 2, 3))
    return out


def maxpool2d(x):
    out = np.empty([x.shape[0], x.shape[1] // 2, x.shape[2] // 2, x.shape[3]], dtype=x.dtype)
    for i in range(x.shape[1] // 2):
        for j in range(x.shape[2] // 2):
            out[:, i, j, :] = np.max(x[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2, :], axis=(1, 2))
    return out


def conv_pool_conv(image, w1, w2):
    x = np.maximum(conv2d(image, w1), 0)
    x = maxpool2d(x)
    return conv2d(x, w2)  # its H_out is a size of the pooled temporary


def test_window_extents_over_sizes_of_temporaries():
    """On the cpu target only: the extents are the frontend's (in the loop program, which is the
    same for every target), and this program's compile is among the suite's slowest (about 4 s
    of CPU, docs/performance.md); a second compile for the python backend checked nothing more."""
    rng = np.random.default_rng(2)
    args = (rng.random((2, 11, 12, 1)), rng.random((3, 3, 1, 4)), rng.random((2, 2, 4, 3)))
    np.testing.assert_allclose(polyfuse.kernel(conv_pool_conv, target="cpu")(*args), conv_pool_conv(*args),
                               rtol=1e-12)


# ---- assert statements ---------------------------------------------------------------------------
def checked_sum(A, B, k):
    assert A.shape[0] == B.shape[0], "rows differ"
    n = A.shape[0]
    assert n >= 2 and 0 <= k < n
    return A[k] + 2.0 * B[k]


def permute(A):  # npbench permute_3d
    B = np.transpose(A, (2, 1, 0)).copy()
    assert not np.shares_memory(A, B)
    return B


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=15, deadline=None)
@given(rows=st.integers(0, 4), other=st.integers(0, 4), k=st.integers(-1, 4))
def test_asserts_raise_where_python_does(target, rows, other, k):
    A, B = np.ones((rows, 2)), np.full((other, 2), 3.0)
    try:
        expected = checked_sum(A, B, k)
    except AssertionError as e:
        with pytest.raises(AssertionError) as got:
            polyfuse.kernel(checked_sum, target=target)(A, B, k)
        assert got.value.args == e.args
    else:
        np.testing.assert_array_equal(polyfuse.kernel(checked_sum, target=target)(A, B, k), expected)


def test_shares_memory_of_a_fresh_copy_is_false():
    A = np.random.default_rng(3).random((2, 3, 4))
    np.testing.assert_array_equal(polyfuse.kernel(permute)(A), permute(A))


def assert_arguments_share(x, y):
    assert not np.shares_memory(x, y)
    return x + y


def test_whether_two_arguments_share_memory_is_refused_where_it_is_asked():
    """(Asserts of array values and inside loops are checked where they run: test_control.py.)"""
    with pytest.raises(UnsupportedError, match="known only at the call") as e:
        polyfuse.kernel(assert_arguments_share)(np.ones(3), np.ones(3))
    assert e.value.span is not None and e.value.span.line > 0


# ---- a temporary bound in both branches of an if ------------------------------------------------
def bound_in_both_branches(x, k):
    if k > 0:
        y = x * 2.0
    elif k == 0:
        y = x + 1.0
    else:
        y = -x
    return y.sum() + y[0], y


def bound_in_both_branches_in_a_loop(u, steps):
    acc = np.zeros_like(u)
    for n in range(steps):
        if n % 2 == 0:
            w = np.full(u.shape, 2.0)
        else:
            w = np.ones(u.shape[0])
        acc += w * u
    return acc


def chosen_by_data(x):
    if x[0] > 0.5:
        y = np.exp(x)
    else:
        y = np.sin(x)
    return y * 2


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn, args", [
    (bound_in_both_branches, (np.arange(4.0), 1)), (bound_in_both_branches, (np.arange(4.0), 0)),
    (bound_in_both_branches, (np.arange(4.0), -3)), (bound_in_both_branches_in_a_loop, (np.arange(5.0), 3)),
    (chosen_by_data, (np.array([0.9, 0.1]),)), (chosen_by_data, (np.array([0.1, 0.9]),)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_a_temporary_bound_in_both_branches_is_one_array(fn, args, target):
    expected, actual = fn(*args), polyfuse.kernel(fn, target=target)(*args)
    for e, a in zip(expected if isinstance(expected, tuple) else (expected,),
                    actual if isinstance(actual, tuple) else (actual,)):
        np.testing.assert_allclose(a, e, rtol=1e-12)


def shapes_differ_then_returned(x, k):
    if k > 0:
        y = x[1:] * 2.0
    else:
        y = x * 1.0
    return y


def shapes_differ_then_measured(x, k):
    if k > 0:
        y = x[1:] * 2.0
    else:
        y = x * 1.0
    return y.shape[0]


def shapes_differ_then_allocated(x, k):
    if k > 0:
        y = x[1:] * 2.0
    else:
        y = x * 1.0
    return np.zeros(y.shape)


@pytest.mark.parametrize("fn", [shapes_differ_then_returned, shapes_differ_then_measured,
                                shapes_differ_then_allocated])
def test_a_temporary_whose_shape_depends_on_the_branch_is_refused_after_it(fn):
    # each of these once returned the else branch's array or extent whatever branch ran
    with pytest.raises(UnsupportedError, match="outside the loop or branch that binds it"):
        polyfuse.kernel(fn)(np.arange(4.0), 1)


# ---- a helper's result bound once, then again in a loop (npbench nbody's acc = getAcc(...)) --------
def accelerations(x):
    a = np.hstack((x[:, :1] * 2.0, x[:, 1:] - 1.0))
    return a


def leapfrog(x, v, steps):
    acc = accelerations(x)
    for i in range(steps):
        v += acc * 0.5
        x += v * 0.1
        acc = accelerations(x)
        v += acc * 0.5
    return acc


@pytest.mark.parametrize("target", TARGETS)
def test_a_helpers_result_bound_again_in_a_loop(target):
    rng = np.random.default_rng(6)
    x, v = rng.random((5, 3)), rng.random((5, 3))
    _compare(leapfrog, (x, v, 3), target)
