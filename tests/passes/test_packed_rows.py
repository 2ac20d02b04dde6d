"""polyfuse.passes.packed_rows: a parallel row loop of dot products down strided rows (cholesky's
blocked left-looking update) runs W rows at once, their accumulators in registers, reading the
columns no statement of the block writes from a transposed copy.  Results must be the Python
function's bit for bit, with row counts that are not multiples of W, on 1 and 2 threads."""

from __future__ import annotations

import numpy as np
from conftest import copy_args

import polyfuse
from polyfuse.model import ir
from polyfuse.model.loop_ast import Block, For
from polyfuse.passes.packed_rows import _panel_only
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
    monkeypatch.setattr(threads, "_num_threads", threads._num_threads)  # (set per count below)
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
    explained = kernel.explain(*args)
    (record,) = explained["packed rows"]
    assert record["rows"] == 8 and record["array"] == "A", record
    # every chain reads the copy only (j < s2 in every block): no second k loop
    assert "_p0(" in explained["loop code"] and "_r0(" not in explained["loop code"]
    # the serial function runs the region on one thread (backends/cpu/llvm.py shared_twins)
    assert [twin for twin in kernel.compile(*args).backend.artifact.twins if twin[0].endswith(".phase0")]


def _loop(name: str, init: ir.Expr, end: ir.Expr) -> For:
    return For(name, init, ir.Compare("<", ir.Var(name, ir.INT), end), 1, Block(()))


def test_the_second_k_loop_is_left_out_only_where_isl_proves_it_empty():
    """cholesky's blocks: j < 32 * t0 + 32 <= 32 * t1 because t1 > t0; nothing is known of t1
    without its loop, a t1 from t0 on lets j pass 32 * t1, and a product of two sizes is no
    affine bound."""
    t0, t1, n = (ir.Var(x, ir.INT) for x in ("_t0", "_t1", "n"))

    def times(a: ir.Expr, b: ir.Expr) -> ir.Expr:
        return ir.BinOp("*", a, b, ir.INT, True)
    blocks = _loop("_t0", ir.int_const(0), ir.BinOp("//", ir.int_add(n, ir.int_const(31)), ir.int_const(32), ir.INT, True))
    j = _loop("_t2", times(ir.int_const(32), t0), ir.int_min(n, ir.int_add(times(ir.int_const(32), t0), ir.int_const(32))))
    s2 = times(ir.int_const(32), t1)
    assert _panel_only((blocks, _loop("_t1", ir.int_add(t0, ir.int_const(1)), n)), j, s2)
    assert _panel_only((blocks,), j, None)
    assert not _panel_only((blocks,), j, s2)
    assert not _panel_only((blocks, _loop("_t1", t0, n)), j, s2)
    assert not _panel_only((blocks, _loop("_t1", ir.int_add(t0, ir.int_const(1)), n)), j, times(n, t1))
