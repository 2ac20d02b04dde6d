"""polyfuse.passes.packed_rows: a parallel row loop of dot products down strided rows (cholesky's
blocked left-looking update) runs W rows at once, their accumulators in registers, reading the
columns no statement of the block writes from a transposed copy.  Results must be the Python
function's bit for bit, with row counts that are not multiples of W, on 1 and 2 threads."""

from __future__ import annotations

import numpy as np
from conftest import copy_args

import polyfuse
from polyfuse.runtime import threads


def scaled_cholesky(n, A):
    """cholesky's nest with another update and a diagonal written first in its row."""
    for i in range(n):
        for k in range(i):
            A[i, i] -= A[i, k] * A[i, k]
        for j in range(i):
            for k in range(j):
                A[i, j] = A[i, j] - 0.5 * (A[i, k] * A[j, k])
            A[i, j] /= A[j, j]
        A[i, i] = np.sqrt(abs(A[i, i]) + 1.0)


def test_packed_rows_bitwise_on_1_2_threads(monkeypatch):
    """Blocks of 8 pivots and groups of 8 rows, so that small sizes hold full groups, a copied
    panel (from the third block on), partial tiles and rows left over."""
    monkeypatch.setenv("POLYFUSE_DISABLE_CACHE", "1")
    monkeypatch.setenv("POLYFUSE_PIVOT_BLOCK", "8")
    monkeypatch.setenv("POLYFUSE_PACKED_ROWS", "8")
    kernel = polyfuse.kernel(scaled_cholesky)
    for n in (1, 2, 3, 33, 45):
        rng = np.random.default_rng(n)
        M = rng.random((n, n))
        args = (n, M @ M.T / n + np.eye(n))
        expected = copy_args(args)
        scaled_cholesky(*expected)
        for count in (1, 2):
            threads.set_num_threads(count)
            kernel(*copy_args(args))  # the first call at a count measures (serially)
            actual = copy_args(args)
            kernel(*actual)
            assert expected[1].tobytes() == actual[1].tobytes(), f"n={n} on {count} threads"
    (record,) = kernel.explain(*args)["packed rows"]
    assert record["rows"] == 8 and record["array"] == "A", record
