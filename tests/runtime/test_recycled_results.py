"""Result arrays of a call plan reuse the memory of results the caller has dropped
(runtime.variant.RecycledResults), and never the memory of one still referred to; large
kernel-local arrays are kept for the next call (runtime.variant.LocalArrays)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import HAS_CPU

import polyfuse
from polyfuse.runtime.variant import POOL_BYTES, RECYCLE_BYTES

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="call plans of compiled kernels")

N = RECYCLE_BYTES // 8 + 100  # float64 elements: large enough to be recycled


def affine(x):
    return 2.0 * x + 1.0


def two_results(x, y):
    return x * y, x - y


def diffusion(inp, coeff):  # lap, flx, fly stay whole arrays: the sqrt is more than + - *, so
    # fusing the loops by rows (which would fold them to rows) is not done: it loses parallelism
    lap = 4.0 * np.sqrt(inp[1:-1, 1:-1]) - (inp[2:, 1:-1] + inp[:-2, 1:-1] + inp[1:-1, 2:] + inp[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    return inp[2:-2, 2:-2] - coeff[2:-2, 2:-2] * (flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])


def plan_kernel(fn, *args):
    k = polyfuse.kernel(fn, target="cpu")
    for _ in range(2):  # the second call at these sizes makes the plan
        k(*args)
    return k


def test_dropped_result_memory_is_reused():
    x = np.random.default_rng(0).standard_normal(N)
    k = plan_kernel(affine, x)
    first = k(x)
    address = first.ctypes.data
    del first
    again = k(x)
    assert again.ctypes.data == address
    np.testing.assert_array_equal(again, affine(x))


def test_held_results_and_their_views_keep_their_values():
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(N) for _ in range(4)]
    k = plan_kernel(affine, xs[0])
    kept = k(xs[0])
    view = k(xs[1])[10:-10:3]  # only a view of the second result stays alive
    through_memoryview = np.frombuffer(memoryview(k(xs[2])), dtype=np.float64)
    last = k(xs[3])
    np.testing.assert_array_equal(kept, affine(xs[0]))
    np.testing.assert_array_equal(view, affine(xs[1])[10:-10:3])
    np.testing.assert_array_equal(through_memoryview, affine(xs[2]))
    np.testing.assert_array_equal(last, affine(xs[3]))
    assert len({kept.ctypes.data, view.base.ctypes.data, through_memoryview.ctypes.data, last.ctypes.data}) == 4


def test_tuple_of_results():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(N), rng.standard_normal(N)
    k = plan_kernel(two_results, x, y)
    for _ in range(3):
        product, difference = k(x, y)
        np.testing.assert_array_equal(product, x * y)
        np.testing.assert_array_equal(difference, x - y)
        assert product.flags.writeable and product.flags.c_contiguous


def test_threads_never_share_a_result():
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(N) for _ in range(4)]
    k = plan_kernel(affine, xs[0])
    failures: list[int] = []

    def work(t: int) -> None:
        held: tuple = ()
        for i in range(30):
            x = xs[(t + i) % 4]
            r = k(x)
            if not np.array_equal(r, affine(x)) or (held and not np.array_equal(held[0], affine(held[1]))):
                failures.append(t)
            held = (r, x) if i % 2 else ()  # every other result stays alive across the next call
            del r

    threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_large_local_arrays_are_kept_and_results_stay_right():
    rng = np.random.default_rng(4)
    side = int((POOL_BYTES / 8) ** 0.5) + 8  # lap alone is over the small-set limit
    inputs = [(rng.random((side, side)), rng.random((side, side))) for _ in range(3)]
    k = plan_kernel(diffusion, *inputs[0])
    (plan,) = k._plans.values()
    assert plan.locals is not None and plan.locals.keep == 1
    results = [k(*pair) for pair in inputs * 2]
    for pair, result in zip(inputs * 2, results):
        np.testing.assert_allclose(result, diffusion(*pair), rtol=1e-13)

    def work(t: int) -> None:
        for i in range(10):
            pair = inputs[(t + i) % 3]
            if not np.allclose(k(*pair), diffusion(*pair), rtol=1e-13):
                failures.append(t)

    failures: list[int] = []
    threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
