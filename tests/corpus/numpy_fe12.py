"""Constructs third-party NumPy programs use that polyfuse refused: unpacking an array value
into names, tuple displays stored into rows, chained stores of a constant display, helpers
that return from inside their loops, np.all/np.any and returned bools, dtype=bool,
np.tile by a size along new axes, np.diff/np.roll/np.round/np.trace/np.diag/np.count_nonzero/
np.ptp/np.isclose/np.allclose, reductions of np.where of Python numbers, x.fill(v), np.inf in
array expressions, np.meshgrid, returned allocations, dtype= of reductions,
np.maximum.accumulate and friends, np.argmax/argmin with axis=,
np.array of list comprehensions.

Written for these tests (none is copied from a third-party program).
"""

from __future__ import annotations

import numpy as np
from corpus_case import Case


def segment_lengths(P):
    """A 2-d point list: each difference row unpacked into two scalars."""
    n = P.shape[0]
    out = np.zeros(n)
    for i in range(1, n):
        dx, dy = P[i] - P[i - 1]
        out[i] = np.sqrt(dx * dx + dy * dy)
    return out


def spring_forces(P, k):
    """Unpacked scalars feed a small array built from them, added into two rows."""
    n = P.shape[0]
    force = np.zeros((n, 2))
    for i in range(1, n):
        ex, ey = P[i] - P[i - 1]
        length = np.sqrt(ex**2 + ey**2) + 1.0
        f = np.array([k * ex / length, k * ey / length])
        force[i - 1] -= f
        force[i] += f
    force[0] = force[-1] = 0, 0
    return force


def rows_of_three(T):
    """Each row of an argument unpacked directly (a view's elements)."""
    n = T.shape[0]
    out = np.empty(n, dtype=T.dtype)
    for i in range(n):
        a, b, c = T[i]
        out[i] = a * b - c
    return out


def swap_through_array(x):
    """The whole value is read before any name is bound: u, v = np.array([v, u])."""
    u = x[0]
    v = x[1]
    for i in range(x.shape[0]):
        u, v = np.array([v + x[i], u])
    return u - v


def unpack_rows_2d(M):
    """A 3-row matrix unpacked into three row views, and a computed one into rows."""
    a, b, c = M
    p, q = M[:2] * 2.0
    return a + b * c, p - q


def unpack_int_rows(A):
    """Integer rows: the names keep the array's dtype."""
    lo, hi = A[0], A[1]
    s, t = A[:, 0] + 1
    return hi - lo, s * t


def store_displays(F, j):
    """Tuple and list displays stored into rows, and chained into two rows."""
    F[1] = 3, 4
    F[2, :] = [1.5, 2]
    F[0] = F[-1] = 0, 0
    F[j][1] += 2.5
    return F


def _escape_steps(x, y, limit):
    c = complex(x, y)
    z = 0.0j
    for step in range(limit):
        z = z * z + c
        if z.real * z.real + z.imag * z.imag > 4.0:
            return step
    return limit


def escape_image(img, limit):
    """A helper returning its loop counter from inside the loop, per pixel, into uint8."""
    rows, cols = img.shape
    for a in range(cols):
        for b in range(rows):
            img[b, a] = _escape_steps(-2.0 + 2.5 * a / cols, -1.2 + 2.4 * b / rows, limit)


def _first_over(row, t):
    for j in range(row.shape[0]):
        if row[j] > t:
            return row[j] * 2.0
    return -1.0


def first_over_per_row(M, t):
    """A float value returned from a loop over a row view."""
    out = np.zeros(M.shape[0])
    for i in range(M.shape[0]):
        out[i] = _first_over(M[i], t)
    return out


def _find_pair(M, t):
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j] > t:
                return i * 100 + j
    return -1


def pair_search(M, T):
    """A return from the inner of two loops leaves both."""
    out = np.zeros(T.shape[0], dtype=np.int64)
    for k in range(T.shape[0]):
        out[k] = _find_pair(M, T[k])
    return out


def _halvings(v, floor):
    count = 0
    while True:
        if v < floor:
            return count
        v = v / 2.0
        count += 1


def halvings(x):
    """A return from a while loop, with no return after it."""
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = _halvings(x[i] * 1000.0, 1.0)
    return out


def all_rows_match(db, mask):
    """A data-dependent if on (a == f(a, row)).all(), per row of a bool array, dtype=bool."""
    out = np.zeros(db.shape[0], dtype=bool)
    for i in range(db.shape[0]):
        row = db[i, 1:]
        if (mask == np.bitwise_and(mask, row)).all():
            if db[i, 0]:
                out[i] = True
    return out


def truth_reductions(x, y):
    """np.all/np.any in every form: full, axis, negative axis, keepdims, the methods, of floats."""
    close = np.abs(x - y) < 0.5
    return (np.all(close), close.any(), np.any(x > y, axis=0), (x != y).all(axis=-1),
            np.all(x, axis=(0, 1), keepdims=True), x.any())


def returned_comparisons(x, t, n):
    """Bools returned: of numpy values an np.bool_, of Python numbers a bool."""
    return x[0] > t, n > 3, (x > t).any()


def pair_differences(x):
    """np.tile by a size along a new leading axis, then minus its transpose."""
    n = len(x)
    grid = np.tile(x, (n, 1))
    return grid - grid.T


def tiled_columns(x, m):
    """np.tile by an integer argument along an axis of extent 1 and a constant along a new one."""
    return np.tile(x[:, None], (1, m)) * 2.0, np.tile(x, (m, 2, 1)).sum(axis=1)


def differences(x, b, k):
    """np.diff along each axis, twice, of floats, bools and ints."""
    return (np.diff(x), np.diff(x, axis=0), np.diff(x, n=2, axis=-1), np.diff(b[0]), np.diff(k, 1, 0),
            np.diff(x[0]) / x[0, 1:])


def rolled(x, v):
    """np.roll by positive and negative constants along each axis, and of a vector; a periodic stencil."""
    lap = np.roll(x, 1, axis=0) + np.roll(x, -1, axis=0) + np.roll(x, 2, axis=1) + np.roll(x, -3, axis=1) - 4 * x
    return lap, np.roll(v, 3), np.roll(v, -1) - v, np.roll(v, 0)


def rounded(x, f, k):
    """np.round with decimals 0, positive and negative, of float64, float32 and ints; the method."""
    return (np.round(x * 100.0), np.round(x, 2), np.around(x * 1000.0, -2), np.round(f * 10.0, 1),
            x.round(1), np.round(k))


def diagonals(A, v):
    """np.trace, np.diag both ways, A.diagonal()."""
    return np.trace(A), np.diag(A), np.diag(v) @ A, A.diagonal() * 2.0, np.trace(A[:, :3])


def counts_and_spreads(x, k):
    """np.count_nonzero (an np.int64), np.ptp full and per axis, sums of np.where of numbers."""
    return (np.count_nonzero(x > 0.5), np.count_nonzero(k), np.ptp(x), np.ptp(x, axis=0), np.ptp(x, 1, keepdims=True),
            np.sum(np.where(x > 0.5, 1, 0)), np.where(x < 0.2, 1.5, 0.0).sum(axis=1))


def closeness(a, b):
    """np.isclose with infinities and NaN (equal_nan both ways), np.allclose (a Python bool)."""
    c = np.where(a > 0.8, np.inf, a)
    d = np.where(b > 0.9, np.nan, b)
    return (np.isclose(a, a + 1e-9), np.isclose(c, c), np.isclose(c, a), np.isclose(d, d),
            np.isclose(d, d, equal_nan=True), np.allclose(a, b), np.allclose(a, a * (1 + 1e-7)),
            np.isclose(a, b, rtol=0.5, atol=0.1))


def filled(x, v):
    """x.fill(v) of a local array, an argument's row and an int array (the value cast)."""
    y = np.empty_like(x)
    y.fill(3.0)
    x[1].fill(v)
    z = np.zeros((3, 2), dtype=np.int32)
    z.fill(7)
    return y + x, z


def grids(x, y, z):
    """np.meshgrid of two and three vectors, both indexings, and a write into one grid."""
    X, Y = np.meshgrid(x, y)
    P, Q, R = np.meshgrid(x, y, z, indexing="ij")
    A, B, C = np.meshgrid(x, y, z)
    X[0, 0] = 5.0
    return X * Y + X, P + 2 * Q + 3 * R, A - B * C, Y


def returned_allocations(x, k):
    """Allocations returned directly, with and without dtype=, beside reductions with dtype=."""
    return (np.ones_like(x, dtype=np.int32), np.zeros(x.shape[0]), np.full_like(x, 2.5),
            np.sum(k, dtype=np.int8), k.prod(dtype=np.int64), np.mean(x, axis=0, dtype=np.float32),
            np.sum(x, axis=1, dtype=float))


def running_extremes(x, A, k):
    """np.maximum/minimum/add/multiply.accumulate, default axis 0 and given, of floats and ints."""
    return (np.maximum.accumulate(x), np.minimum.accumulate(A, axis=1), np.maximum.accumulate(A),
            np.add.accumulate(A, 1), np.maximum.accumulate(k), np.multiply.accumulate(k[:4]))


def positions(A, k):
    """np.argmax/argmin along an axis (also negative, the methods, of ints, bools and with NaN)."""
    B = A.copy()
    B[1, 2] = np.nan
    return (np.argmax(A, axis=1), np.argmin(A, axis=0), A.argmax(axis=-1), np.argmax(B, axis=1),
            np.argmin(B, 0), np.argmax(k, axis=0), np.argmin(k == 1, axis=1))


def comprehended(X, Y, n):
    """np.array of list comprehensions: nested over two arrays' rows, over a vector, over ranges
    (ints, bools), with dtype=."""
    pairs = np.array([[np.sum((a - b) ** 2) for a in X] for b in Y])
    doubled = np.array([v * 2.0 for v in X[0]])
    squares = np.array([i * i for i in range(n)])
    flags = np.array([i > 2 for i in range(1, n)])
    roots = np.array([np.sqrt(v) for v in Y[:, 0]], dtype=np.float32)
    return pairs, doubled, squares, flags, roots


#: none and smart only (test_corpus._fuses): the subject here is how constructs of the frontend (unpacking, displays, helpers' returns, library reductions)
#: are lowered; max fusion of their loops is covered by the property tests and the other modules,
#: and it took 40% of this module's time (suite budget).
FUSES = ("none", "smart")

CASES = [
    Case("segment_lengths", segment_lengths, lambda rng: (rng.random((9, 2)),)),
    Case("spring_forces", spring_forces, lambda rng: (rng.random((12, 2)), 2.5)),
    Case("rows_of_three", rows_of_three, lambda rng: (rng.random((7, 3)).astype(np.float32),), rtol=1e-6),
    Case("swap_through_array", swap_through_array, lambda rng: (rng.random(6),)),
    Case("unpack_rows_2d", unpack_rows_2d, lambda rng: (rng.random((3, 5)),)),
    Case("unpack_int_rows", unpack_int_rows, lambda rng: (rng.integers(-9, 9, (2, 4)),)),
    Case("store_displays", store_displays, lambda rng: (rng.random((6, 2)), 3)),
    Case("escape_image", escape_image, lambda rng: (np.zeros((12, 10), np.uint8), 25)),
    Case("first_over_per_row", first_over_per_row, lambda rng: (rng.random((7, 5)), 0.8)),
    Case("pair_search", pair_search, lambda rng: (rng.random((6, 5)), np.array([0.5, 0.9, 0.99, 2.0]))),
    Case("halvings", halvings, lambda rng: (rng.random(9),)),
    Case("all_rows_match", all_rows_match,
         lambda rng: (rng.integers(0, 2, (40, 4)).astype(bool), np.array([1, 0, 1]))),
    Case("truth_reductions", truth_reductions, lambda rng: (rng.random((3, 4, 2)), rng.random((3, 4, 2)))),
    Case("returned_comparisons", returned_comparisons, lambda rng: (rng.random(4), 0.5, 5)),
    Case("pair_differences", pair_differences, lambda rng: (rng.random(7),)),
    Case("tiled_columns", tiled_columns, lambda rng: (rng.random(5), 3)),
    Case("differences", differences, lambda rng: (rng.random((5, 6)), rng.random((3, 7)) > 0.5,
                                                  rng.integers(-50, 50, (4, 3)).astype(np.int32))),
    Case("rolled", rolled, lambda rng: (rng.random((6, 7)), rng.random(9))),
    Case("rounded", rounded, lambda rng: (rng.random((4, 5)) * 10 - 5, (rng.random(6) * 10).astype(np.float32),
                                          rng.integers(-9, 9, 5))),
    Case("diagonals", diagonals, lambda rng: (rng.random((5, 5)), rng.random(5))),
    Case("counts_and_spreads", counts_and_spreads, lambda rng: (rng.random((4, 6)), rng.integers(-2, 3, 9))),
    Case("returned_allocations", returned_allocations,
         lambda rng: (rng.random((3, 4)), rng.integers(-5, 5, (3, 4)).astype(np.int16)), rtol=1e-6),
    Case("running_extremes", running_extremes,
         lambda rng: (rng.random(7), rng.random((4, 5)), rng.integers(-5, 5, 8).astype(np.int32))),
    Case("positions", positions, lambda rng: (rng.random((4, 5)), rng.integers(0, 3, (4, 5)))),
    Case("comprehended", comprehended, lambda rng: (rng.random((4, 6)), rng.random((3, 6)), 6), rtol=1e-6),
    Case("grids", grids, lambda rng: (rng.random(4), rng.random(3), rng.random(2))),
    Case("filled", filled, lambda rng: (rng.random((3, 2)), 2.5)),
    Case("closeness", closeness, lambda rng: (rng.random((3, 8)), rng.random((3, 8)))),
]
