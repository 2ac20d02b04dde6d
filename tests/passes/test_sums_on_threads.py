"""polyfuse/passes/blocked_sums.py: NumPy full sums cut into chunks on the thread team.

A float sum polyfuse wrote for NumPy code (``np.sum``, ``mean``, the sums of ``var``/``std``/
``linalg.norm``) that no parallel loop encloses runs its chunks of ``BLOCK * FAN_IN`` terms as
the iterations of a parallel loop, each into its own partial, and adds the partials in chunk
order after it.  Checked: the result is bitwise the same on 1, 2 and 3 threads (the team forced
on, and seen to run), close to NumPy's, exact for integer-valued data at the chunk boundaries;
NaN, inf, empty and one-element arrays as NumPy gives them; integer sums exact and in order;
user loops and sums inside parallel loops are not cut.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import HAS_CPU, team_runs

import polyfuse
from polyfuse.passes.blocked_sums import BLOCK, FAN_IN
from polyfuse.passes.outer_sums import ROWS
from polyfuse.runtime import threads

pytestmark = pytest.mark.skipif(not HAS_CPU, reason="needs the LLVM backend")

CHUNK = BLOCK * FAN_IN  # terms per chunk on the team


def total(x):
    return np.sum(x)


def mean_std(x):
    mu = x.mean()
    return mu, np.sqrt(((x - mu) ** 2).mean())


def var_norm(x):
    return np.var(x), np.linalg.norm(x + 1.0)


def window(x, lo, hi):
    return np.sum(x[lo:hi])


def rows(X):
    return X.sum(axis=-1)


def user_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


KERNELS = {f.__name__: polyfuse.kernel(f) for f in (total, mean_std, var_norm, window)}


def _on_threads(kernel, args, count):
    """What ``kernel`` returns on ``count`` threads (its second call: the first is measured)."""
    threads.set_num_threads(count)
    kernel(*args)
    return kernel(*args)


def _same_bits(a, b) -> bool:
    a, b = np.atleast_1d(np.asarray(a)), np.atleast_1d(np.asarray(b))
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _bitwise_on_1_2_3_threads(kernel, args, team: bool = True):
    """The result on 1 thread, after checking 2 and 3 threads give the same bits and (``team``:
    there is more than one chunk to share) ran the team."""
    one = _on_threads(kernel, args, 1)
    before = team_runs(kernel.compile(*args).backend)
    for count in (2, 3):
        many = _on_threads(kernel, args, count)
        for a, b in zip(np.atleast_1d(one) if not isinstance(one, tuple) else one,
                        np.atleast_1d(many) if not isinstance(many, tuple) else many):
            assert _same_bits(a, b), (count, a, b)
    assert team_runs(kernel.compile(*args).backend) > before or not team, "the team never ran"
    return one


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_sums_are_bitwise_equal_on_1_2_3_threads_and_close_to_numpy(dtype, forced):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(3 * CHUNK + 17).astype(dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-12
    for name, fn in (("total", total), ("mean_std", mean_std), ("var_norm", var_norm)):
        got = _bitwise_on_1_2_3_threads(KERNELS[name], (x,))
        np.testing.assert_allclose(got, fn(x), rtol=rtol, atol=rtol)
    record = KERNELS["total"].explain(x)["blocked sums"]
    assert record and all(r["threads"] for r in record)
    assert any(loop["parallel"] for loop in KERNELS["total"].explain(x)["parallel loops"])


@pytest.mark.parametrize("n", [BLOCK + 1, CHUNK - 1, CHUNK, CHUNK + 1, FAN_IN * CHUNK + 3])
def test_every_term_once_at_the_chunk_boundaries(n, forced):
    x = np.random.default_rng(n).integers(-3, 4, n).astype(np.float64)
    assert _bitwise_on_1_2_3_threads(KERNELS["total"], (x,), team=n > CHUNK) == np.sum(x.astype(np.int64))


def test_a_window_that_does_not_start_at_zero(forced):
    x = np.random.default_rng(4).integers(-3, 4, 4 * CHUNK).astype(np.float64)
    for lo, hi in ((5, 2 * CHUNK + 9), (CHUNK - 1, 3 * CHUNK), (7, 3), (11, 11 + BLOCK + 1)):
        got = _on_threads(KERNELS["window"], (x, lo, hi), 2)
        assert got == np.sum(x[lo:hi].astype(np.int64)), (lo, hi)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_inf_and_zeros_as_numpy_gives_them(dtype, forced):
    n = 2 * CHUNK + 3
    rng = np.random.default_rng(1)
    with np.errstate(invalid="ignore", over="ignore"):
        for specials in ([np.nan], [np.inf], [-np.inf], [np.inf, -np.inf]):
            x = rng.random(n).astype(dtype)
            x[[5, n - 2][:len(specials)]] = specials  # in the first and the last chunk
            np.testing.assert_equal(_on_threads(KERNELS["total"], (x,), 2), np.sum(x))
        big = np.full(n, np.finfo(dtype).max / 4, dtype)
        assert _on_threads(KERNELS["total"], (big,), 2) == np.sum(big) == np.inf
    for zero in (0.0, -0.0):
        z = np.full(n, zero, dtype)
        got = _on_threads(KERNELS["total"], (z,), 2)
        assert got == 0 and math.copysign(1, got) == math.copysign(1, np.sum(z))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_empty_and_one_element(dtype, forced):
    for x in (np.zeros(0, dtype), np.array([2.5], dtype)):
        for count in (1, 2):
            got = _on_threads(KERNELS["total"], (x,), count)
            assert got == np.sum(x) and got.dtype == np.sum(x).dtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Mean of empty slice"
            got, want = _on_threads(KERNELS["mean_std"], (x,), 2), mean_std(x)
        np.testing.assert_equal(got, want)


def test_integer_sums_are_exact_and_not_cut(forced):
    x = np.random.default_rng(2).integers(-2**40, 2**40, 3 * CHUNK, dtype=np.int64)
    kernel = polyfuse.kernel(total)
    assert _on_threads(kernel, (x,), 2) == np.sum(x)
    assert not kernel.explain(x)["blocked sums"]


def test_user_loops_and_sums_inside_parallel_loops_are_not_cut():
    x = np.ones(3 * CHUNK)
    assert not polyfuse.kernel(user_sum).explain(x)["blocked sums"]
    assert polyfuse.kernel(user_sum)(x) == user_sum(x)
    X = np.ones((4, 2 * BLOCK + 3))
    record = polyfuse.kernel(rows).explain(X)["blocked sums"]
    assert record and not any(r["threads"] for r in record)  # the row loop has the threads
    assert not polyfuse.kernel(total, target="python").explain(x)["blocked sums"]


# ---- column sums: the rows in blocks (polyfuse/passes/outer_sums.py) ---------------------------

def column_sums(X):
    return X.sum(axis=0)


def standardize_columns(X):
    mu = X.mean(axis=0)
    xc = X - mu
    return xc / (np.sqrt((xc * xc).mean(axis=0)) + 1e-8)


def row_window(X, lo, hi):
    return X[lo:hi, 1:].sum(axis=0)


def user_columns(X):
    out = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[j] += X[i, j]
    return out


COLUMNS = {f.__name__: polyfuse.kernel(f) for f in (column_sums, standardize_columns, row_window)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_sums_are_bitwise_equal_on_1_2_3_threads_and_close_to_numpy(dtype, forced):
    X = np.random.default_rng(5).standard_normal((3 * ROWS + 5, 37)).astype(dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-12
    for name, fn in (("column_sums", column_sums), ("standardize_columns", standardize_columns)):
        got = _bitwise_on_1_2_3_threads(COLUMNS[name], (X,))
        np.testing.assert_allclose(got, fn(X), rtol=rtol, atol=rtol)
    record = COLUMNS["standardize_columns"].explain(X)["outer sums"]
    assert len(record) == 2 and all(r["rows"] == ROWS for r in record)


@pytest.mark.parametrize("rows", [1, ROWS, ROWS + 1, 2 * ROWS - 1, 5 * ROWS])
def test_every_row_once_at_the_block_boundaries(rows, forced):
    X = np.random.default_rng(rows).integers(-3, 4, (rows, 9)).astype(np.float64)
    got = _on_threads(COLUMNS["column_sums"], (X,), 2)
    np.testing.assert_array_equal(got, X.astype(np.int64).sum(axis=0))
    X = np.random.default_rng(rows).integers(-3, 4, (4 * ROWS, 9)).astype(np.float64)
    for lo, hi in ((0, rows), (3, 3 + rows), (ROWS - 1, ROWS - 1 + rows)):
        got = _on_threads(COLUMNS["row_window"], (X, lo, hi), 2)
        np.testing.assert_array_equal(got, X[lo:hi, 1:].astype(np.int64).sum(axis=0))


def test_column_sums_of_nan_inf_zeros_and_empty_as_numpy(forced):
    X = np.random.default_rng(6).random((2 * ROWS + 3, 5))
    X[1, 0], X[-1, 1], X[ROWS, 2], X[3, 2] = np.nan, np.inf, -np.inf, np.inf
    with np.errstate(invalid="ignore"):
        got, want = _on_threads(COLUMNS["column_sums"], (X,), 2), X.sum(axis=0)
    np.testing.assert_allclose(got, want, rtol=1e-12)  # NaN where NumPy has NaN, inf where inf
    Z = np.full((2 * ROWS + 1, 3), -0.0)
    assert np.signbit(_on_threads(COLUMNS["column_sums"], (Z,), 2)).tolist() == np.signbit(Z.sum(axis=0)).tolist()
    for shape in ((0, 4), (2 * ROWS, 0)):
        E = np.zeros(shape)
        np.testing.assert_array_equal(_on_threads(COLUMNS["column_sums"], (E,), 2), E.sum(axis=0))


def test_integer_and_user_column_sums_are_not_cut():
    X = np.random.default_rng(7).integers(-5, 5, (3 * ROWS, 6))
    kernel = polyfuse.kernel(column_sums)
    np.testing.assert_array_equal(kernel(X), X.sum(axis=0))
    assert not kernel.explain(X)["outer sums"]
    F = X.astype(np.float64)
    user = polyfuse.kernel(user_columns)
    assert not user.explain(F)["outer sums"]
    assert user(F).tobytes() == user_columns(F).tobytes()


def rescaled_steps(x, n):
    for _ in range(n):
        x[:] = x / (np.sum(x) + 1.0)
    return x.mean()


def centred_steps(X, n):
    for _ in range(n):
        X[:] = X - X.mean(axis=0)
    return X.sum()


@pytest.mark.parametrize("fn, shape", [(rescaled_steps, (2 * CHUNK + 5,)), (centred_steps, (2 * ROWS + 3, 11))])
def test_cut_sums_inside_a_time_loop_and_without_threads(fn, shape, forced):
    """Sums inside a sequential loop are cut too (a region, or serial where one is refused), and
    ``parallel=False`` runs the same cut loops on the calling thread: the same bits."""
    x0 = np.random.default_rng(8).random(shape)
    kernel = polyfuse.kernel(fn)
    results = set()
    for count in (1, 2, 3):
        threads.set_num_threads(count)
        for _ in range(2):
            x = x0.copy()
            returned = kernel(x, 3)
        results.add((x.tobytes(), float(returned)))
    serial = polyfuse.kernel(fn, parallel=False)
    x = x0.copy()
    returned = serial(x, 3)
    results.add((x.tobytes(), float(returned)))
    assert len(results) == 1
    want = x0.copy()
    np.testing.assert_allclose(float(returned), fn(want, 3), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x, want, rtol=1e-12, atol=1e-12)
