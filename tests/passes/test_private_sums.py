"""polyfuse.passes.private_sums: a sequential loop carried only by ``+=`` updates runs in chunks
on the thread team, each chunk summing into its own partial, the partials added in chunk order.

The sums are reassociated as BLAS reassociates a product, so the results are compared with the
Python function within the rounding of a reassociated sum (inputs are positive: the bound is
relative), bitwise across 1, 2 and 3 threads (the chunks depend on the trip count only), and bit
for bit with ``blas=False``, which keeps every sum in the order written.  Nests where a private
copy would be wrong keep their loop, and their results stay Python's bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import HAS_CPU, copy_args, threads_forced

import polyfuse
from polyfuse.passes.private_sums import CHUNKS, MIN_ROWS

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="the partial sums are the cpu target's")


def row_products(A, x, y, t):
    """atax's shape: a dot product per row, then ``y[j] += A[i, j] * t[i]`` carried by the rows."""
    for i in range(A.shape[0]):
        t[i] = 0.0
        for j in range(A.shape[1]):
            t[i] += A[i, j] * x[j]
        for j in range(A.shape[1]):
            y[j] += A[i, j] * t[i]


def into_one_element(A, x, out):
    """The accumulator's subscript uses no loop: the partials are added over no loop at all."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[0] += A[i, j] * x[j]


def scalar_sum(A):
    """A local scalar carried by the rows, returned."""
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i, 0] * A[i, 1]
    return s


def moving_subscript(A, y):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            y[i + j] += A[i, j] * A[i, 0]


def reads_accumulator(A, y, t):
    for i in range(A.shape[0]):
        t[i] = y[0]
        for j in range(A.shape[1]):
            y[j] += A[i, j] * A[i, 0]


def column_sums(A, y):
    """A plain sum (no product): the order written, as every user loop outside products."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            y[j] += A[i, j]


def vector_sum(A):
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i, 0] + A[i, 1]
    return s


def scales(A, y, z):
    """``z`` alone could be summed in chunks; ``y`` is a product, not a sum."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            z[j] += A[i, j] * 2.0
            y[j] = y[j] * A[i, j]


def maxes(A, y, z):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            z[j] += A[i, j] * 2.0
            y[j] = max(y[j], A[i, j])


def _args(fn, m: int, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    A = rng.random((m, n)) + 0.5
    return {row_products: lambda: (A, rng.random(n) + 0.5, rng.random(n), np.zeros(m)),
            into_one_element: lambda: (A, rng.random(n) + 0.5, rng.random(1)),
            scalar_sum: lambda: (A,),
            moving_subscript: lambda: (A, rng.random(m + n)),
            reads_accumulator: lambda: (A, rng.random(n), np.zeros(m)),
            scales: lambda: (A, rng.random(n), rng.random(n)),
            maxes: lambda: (A, rng.random(n), rng.random(n)),
            column_sums: lambda: (A, rng.random(n)),
            vector_sum: lambda: (A,)}[fn]()


def _run(k, args, threads: int):
    """Results (arrays written, then the return value) of ``k`` on ``threads`` forced threads, and
    how many times its parallel phases ran on the team."""
    with threads_forced():
        polyfuse.set_num_threads(threads)
        for _ in range(3):  # the first call of a phase is timed serially; later ones use the team
            out = copy_args(args)
            value = k(*out)
        runs = sum(k.compile(*args).backend.phase_runs.values())
    return [a for a in out if isinstance(a, np.ndarray)] + ([np.asarray(value)] if value is not None else []), runs


def _python(fn, args):
    out = copy_args(args)
    value = fn(*out)
    return [a for a in out if isinstance(a, np.ndarray)] + ([np.asarray(value)] if value is not None else [])


def _records(k, args) -> list[dict]:
    return list(k.explain(*copy_args(args)).to_dict().get("private sums", []))


# 2 * MIN_ROWS - 1: the loop as written; 64: two chunks; 65: a chunk of one row; 200: seven
# chunks, the last short; 1100: all CHUNKS (16) chunks (of 72 rows, 69 rounded up to the 8 rows
# run side by side; the last 20) with 3 columns, fewer than the chunks
SIZES = [(2 * MIN_ROWS - 1, 5), (2 * MIN_ROWS, 5), (2 * MIN_ROWS + 1, 7), (200, 9), (1100, 3)]


@pytest.mark.parametrize("fn", [row_products, into_one_element, scalar_sum])
def test_partial_sums_close_to_python_identical_on_any_thread_count(fn):
    k = polyfuse.kernel(fn, verify=True)
    exact = polyfuse.kernel(fn, verify=True, blas=False)
    for m, n in SIZES:
        args = _args(fn, m, n, seed=m)
        reference = _python(fn, args)
        first, _ = _run(k, args, 1)
        for threads in (2, 3):
            again, runs = _run(k, args, threads)
            for a, b in zip(first, again):
                assert a.tobytes() == b.tobytes(), (m, n, threads)  # the same chunks, added in order
            if m >= 2 * MIN_ROWS:
                assert runs > 0, "the chunks ran on the team"
        for a, r in zip(first, reference):
            # a reassociated sum of positive terms: within (terms) * eps of the exact one
            np.testing.assert_allclose(a, r, rtol=(m * n + 1) * np.finfo(np.float64).eps, atol=0)
        if m < 2 * MIN_ROWS:  # too few rows for two chunks: the loop as written, bit for bit
            assert all(a.tobytes() == r.tobytes() for a, r in zip(first, reference))
        # blas=False: every sum in the order written, bit for bit
        plain, _ = _run(exact, args, 2)
        assert all(a.tobytes() == r.tobytes() for a, r in zip(plain, reference)), (m, n)
    records = _records(k, _args(fn, 100, 4))
    assert [r["applied"] for r in records] == [True], records
    assert not _records(exact, _args(fn, 100, 4))


def test_explain_names_the_accumulator_and_partial():
    k = polyfuse.kernel(row_products)
    args = _args(row_products, 100, 4)
    (record,) = _records(k, args)
    assert (record["accumulators"], record["partials"]) == (("y",), ("y_part",))
    assert "+= updates of y" in record["reason"] and f"at most {CHUNKS} chunks" in record["reason"]
    text = str(k.explain(*copy_args(args)))
    assert "partial sums y -> y_part" in text and "reassociates these sums as BLAS does" in text


def test_chunks_hold_whole_groups_of_the_rows_run_side_by_side():
    """Each chunk's row count is a multiple of the rows passes.interleave jams (one vector of
    float64 lanes): 540 rows would be 16 chunks of 34, each leaving 2 rows to run one at a time."""
    k = polyfuse.kernel(row_products)
    (record,) = _records(k, _args(row_products, 540, 4))
    lanes = max(1, polyfuse.options.vector_bytes() // 8)
    assert record["rows_multiple"] == lanes, record
    assert lanes == 1 or f"a multiple of {lanes}" in record["reason"]
    (plain,) = _records(polyfuse.kernel(row_products, interleave=False), _args(row_products, 540, 4))
    assert plain["rows_multiple"] == 1 and plain["applied"]
    args = _args(row_products, 540, 4, seed=5)
    reference = _python(row_products, args)
    for threads in (1, 2):
        out, _ = _run(k, args, threads)
        for a, r in zip(out, reference):
            np.testing.assert_allclose(a, r, rtol=(540 * 4 + 1) * np.finfo(np.float64).eps, atol=0)


@pytest.mark.parametrize("fn, why", [
    (moving_subscript, "a subscript that moves with the loop"),
    (reads_accumulator, "touches, not as a += update"),
    (scales, "not as a += update"),
    (maxes, "not as a += update"),
    (column_sums, "adds no matrix element times a value"),
    (vector_sum, "adds no matrix element times a value"),
])
def test_loops_where_a_private_copy_would_be_wrong_stay_as_written(fn, why):
    """Each of these gives wrong results when privatised (the subscript ``y[i + j]`` would be
    summed per chunk at the wrong element, ``t[i] = y[0]`` would read a partial, products and
    maxima are not sums)."""
    k = polyfuse.kernel(fn, verify=True)
    args = _args(fn, 3 * MIN_ROWS, 5)
    records = _records(k, args)
    assert records and not any(r["applied"] for r in records), records
    assert why in records[0]["reason"]
    reference = _python(fn, args)
    for threads in (1, 2):
        out, _ = _run(k, args, threads)
        assert all(a.tobytes() == r.tobytes() for a, r in zip(out, reference))


def test_private_sums_env_switch_keeps_the_loop(monkeypatch):
    monkeypatch.setenv("POLYFUSE_PRIVATE_SUMS", "0")
    k = polyfuse.kernel(row_products)
    args = _args(row_products, 100, 4)
    assert not _records(k, args)
    assert "private_sums=off" in polyfuse.kernel(row_products).options.key()
